//! The `_async` twin of a binding method, made from its one declaration: the code path of
//! `#[twins]` (hand-written methods) and of `operation_table!` (the table's methods).

use proc_macro2::{TokenStream as TokenStream2, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ImplItemFn, Pat, PatType, Type};

pub(crate) fn is_named(attr: &Attribute, name: &str) -> bool {
    attr.path().is_ident(name)
}

/// One `#[twin]` declaration, taken apart.
pub(crate) struct Twin {
    decl: ImplItemFn,
    /// Whether the declaration takes `py` first.
    takes_py: bool,
    /// The Python parameters, with their `#[pyo3(...)]` attributes.
    params: Vec<PatType>,
}

impl Twin {
    pub(crate) fn new(mut decl: ImplItemFn) -> syn::Result<Self> {
        decl.attrs.retain(|a| !is_named(a, "twin"));
        let sig = &decl.sig;
        if sig.asyncness.is_some() || !sig.generics.params.is_empty() {
            return Err(syn::Error::new(
                sig.span(),
                "a #[twin] method is a plain fn without generics (its twins add `'py`)",
            ));
        }
        let mut inputs = sig.inputs.iter();
        match inputs.next() {
            Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
            _ => {
                return Err(syn::Error::new(
                    sig.span(),
                    "a #[twin] method takes `&self` (its job runs on the class's `Handle::client`)",
                ))
            }
        }
        let mut params = Vec::new();
        let mut takes_py = false;
        for (i, arg) in inputs.enumerate() {
            let FnArg::Typed(p) = arg else {
                unreachable!("only the first argument can be a receiver")
            };
            if !matches!(&*p.pat, Pat::Ident(_)) {
                return Err(syn::Error::new(
                    p.pat.span(),
                    "a #[twin] method's parameters are plain names",
                ));
            }
            if i == 0 && is_python(&p.ty) {
                takes_py = true;
            } else {
                params.push(p.clone());
            }
        }
        Ok(Twin {
            decl,
            takes_py,
            params,
        })
    }

    fn job_name(&self) -> syn::Ident {
        format_ident!("{}_job", self.decl.sig.ident)
    }

    /// The declaration as an ordinary method returning the job.
    pub(crate) fn job(&self) -> TokenStream2 {
        let mut job = self.decl.clone();
        job.attrs
            .retain(|a| !is_named(a, "pyo3") && !is_named(a, "doc"));
        job.sig.ident = self.job_name();
        for arg in job.sig.inputs.iter_mut() {
            if let FnArg::Typed(p) = arg {
                p.attrs.retain(|a| !is_named(a, "pyo3"));
            }
        }
        let doc = format!(" The job of `{0}` and `{0}_async`.", self.decl.sig.ident);
        quote! {
            #[doc = #doc]
            #job
        }
    }

    /// The blocking method.
    pub(crate) fn method(&self) -> TokenStream2 {
        let sig = &self.decl.sig;
        let span = sig.ident.span();
        let (name, params, attrs, vis) =
            (&sig.ident, &self.params, &self.decl.attrs, &self.decl.vis);
        let names = self.params.iter().map(|p| &p.pat);
        let py_arg = self.takes_py.then(|| quote!(py,));
        let job = self.job_name();
        quote_spanned! {span=>
            #(#attrs)*
            #vis fn #name(
                &self,
                py: ::pyo3::Python<'_>,
                #(#params),*
            ) -> ::pyo3::PyResult<::pyo3::Py<::pyo3::PyAny>> {
                let job = self.#job(#py_arg #(#names),*)?;
                crate::python::ops::block(py, crate::python::ops::Handle::client(self), job)
            }
        }
    }

    fn native_name(&self, class: &syn::Type) -> syn::Ident {
        let class = quote!(#class).to_string();
        let class = class
            .rsplit("::")
            .next()
            .unwrap_or("")
            .trim()
            .to_lowercase();
        format_ident!("{}_{}_async", class, self.decl.sig.ident)
    }

    /// The `_async` twin: a class attribute (`crate::python::ops::AsyncTwin`) over
    /// [`Twin::native`], for the `#[pymethods]` block of the class.
    pub(crate) fn twin_attr(&self, class: &syn::Type) -> TokenStream2 {
        let span = self.decl.sig.ident.span();
        let name = format_ident!("{}_async", self.decl.sig.ident, span = span);
        let native = self.native_name(class);
        quote_spanned! {span=>
            #[classattr]
            fn #name(
                py: ::pyo3::Python<'_>,
            ) -> ::pyo3::PyResult<::pyo3::Py<crate::python::ops::AsyncTwin>> {
                let native = ::pyo3::wrap_pyfunction!(#native, py)?.into_any();
                let owner = <Self as ::pyo3::PyTypeInfo>::type_object(py);
                crate::python::ops::AsyncTwin::new(py, native, &owner)
            }
        }
    }

    /// The native function of the `_async` twin: the instance first (positional only), then
    /// the method's parameters; it makes the job and hands it to asyncio. Its docstring is
    /// the method's followed by an empty line and "Awaitable twin.", its text signature the
    /// method's (as `#[pymethods]` would write it).
    pub(crate) fn native(&self, class: &syn::Type) -> TokenStream2 {
        let sig = &self.decl.sig;
        let span = sig.ident.span();
        let py_name = format!("{}_async", sig.ident);
        let native = self.native_name(class);
        let params = &self.params;
        let names = self.params.iter().map(|p| &p.pat);
        let py_arg = self.takes_py.then(|| quote!(py,));
        let job = self.job_name();
        let docs = self.decl.attrs.iter().filter(|a| is_named(a, "doc"));
        let items = self.signature_items();
        let text = format!(
            "($self{})",
            items
                .iter()
                .map(|item| format!(", {}", text_of(item)))
                .collect::<String>()
        );
        let slash = (!items.iter().any(|i| i.to_string() == "/")).then(|| quote!(/,));
        quote_spanned! {span=>
            #(#docs)*
            #[doc = ""]
            #[doc = " Awaitable twin."]
            #[::pyo3::pyfunction]
            #[pyo3(name = #py_name, signature = (slf, #slash #(#items),*), text_signature = #text)]
            fn #native<'py>(
                py: ::pyo3::Python<'py>,
                slf: ::pyo3::PyRef<'py, #class>,
                #(#params),*
            ) -> ::pyo3::PyResult<::pyo3::Bound<'py, ::pyo3::PyAny>> {
                let job = slf.#job(#py_arg #(#names),*)?;
                crate::python::ops::awaitable(py, crate::python::ops::Handle::client(&*slf), job)
            }
        }
    }

    /// The items of the declaration's `#[pyo3(signature = (...))]`, or its parameters' names.
    fn signature_items(&self) -> Vec<TokenStream2> {
        for attr in self.decl.attrs.iter().filter(|a| is_named(a, "pyo3")) {
            let Ok(list) = attr.meta.require_list() else {
                continue;
            };
            let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
            for (i, t) in tokens.iter().enumerate() {
                let TokenTree::Ident(id) = t else { continue };
                if id != "signature" {
                    continue;
                }
                if let Some(TokenTree::Group(g)) = tokens.get(i + 2) {
                    let mut items = vec![TokenStream2::new()];
                    for t in g.stream() {
                        match &t {
                            TokenTree::Punct(p) if p.as_char() == ',' => {
                                items.push(TokenStream2::new())
                            }
                            _ => items.last_mut().expect("one item at least").extend([t]),
                        }
                    }
                    items.retain(|i| !i.is_empty());
                    return items;
                }
            }
        }
        self.params
            .iter()
            .map(|p| {
                let pat = &p.pat;
                quote!(#pat)
            })
            .collect()
    }
}

/// A signature item as `#[pymethods]` writes it in `__text_signature__`: `name`, `*`, or
/// `name=default` (`False`, `None`, a number or a string as written; `...` otherwise).
fn text_of(item: &TokenStream2) -> String {
    let tokens: Vec<TokenTree> = item.clone().into_iter().collect();
    let eq = tokens
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '='));
    let Some(eq) = eq else {
        return tokens.iter().map(|t| t.to_string()).collect();
    };
    let name: String = tokens[..eq].iter().map(|t| t.to_string()).collect();
    let default: String = tokens[eq + 1..].iter().map(|t| t.to_string()).collect();
    let shown = match default.as_str() {
        "false" => "False".to_string(),
        "true" => "True".to_string(),
        "None" => "None".to_string(),
        d if d.starts_with('"') || d.trim_start_matches('-').parse::<f64>().is_ok() => {
            d.to_string()
        }
        _ => "...".to_string(),
    };
    format!("{name}={shown}")
}

/// `Python<...>` (however it is imported).
fn is_python(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Python"),
        _ => false,
    }
}
