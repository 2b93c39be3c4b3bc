//! `#[twins]`: a binding method and its `_async` twin from one declaration (also used by
//! `binding_methods!` for the tables' methods).

use proc_macro2::{TokenStream as TokenStream2, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ImplItem, ImplItemFn, ItemImpl, Pat, PatType, Type};

/// `#[twins(Base: name, ...)]`: awaitable methods of the base class `Base` shown as
/// coroutine functions of this class.
pub(crate) struct Inherited {
    base: syn::Path,
    names: Vec<syn::Ident>,
}

impl syn::parse::Parse for Inherited {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let base = input.parse()?;
        input.parse::<syn::Token![:]>()?;
        let names =
            syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated(input)?;
        Ok(Inherited {
            base,
            names: names.into_iter().collect(),
        })
    }
}

pub(crate) fn expand(
    mut block: ItemImpl,
    inherited: Option<Inherited>,
) -> syn::Result<TokenStream2> {
    if !block.attrs.iter().any(|a| is_named(a, "pymethods")) {
        return Err(syn::Error::new(
            block.impl_token.span,
            "#[twins] goes above #[pymethods] on the same impl block",
        ));
    }
    let mut jobs = Vec::new();
    let mut natives = Vec::new();
    let mut items = Vec::new();
    for item in std::mem::take(&mut block.items) {
        match item {
            ImplItem::Fn(f) if f.attrs.iter().any(|a| is_named(a, "twin")) => {
                let twin = Twin::new(f)?;
                jobs.push(twin.job());
                natives.push(twin.native(&block.self_ty));
                items.push(syn::parse2(twin.method())?);
                items.push(syn::parse2(twin.twin_attr(&block.self_ty))?);
            }
            other => items.push(other),
        }
    }
    if let Some(Inherited { base, names }) = inherited {
        for name in names {
            let text = name.to_string();
            items.push(syn::parse_quote_spanned! {name.span()=>
                #[classattr]
                fn #name(
                    py: ::pyo3::Python<'_>,
                ) -> ::pyo3::PyResult<::pyo3::Py<crate::jobs::AsyncTwin>> {
                    crate::jobs::AsyncTwin::inherited::<#base, Self>(py, #text)
                }
            });
        }
    }
    block.items = items;
    let (generics, ty) = (&block.generics, &block.self_ty);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    Ok(quote! {
        #block
        impl #impl_generics #ty #where_clause {
            #(#jobs)*
        }
        #(#natives)*
    })
}

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
                crate::jobs::block(py, crate::jobs::Handle::client(self), job)
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

    /// The `_async` twin: a class attribute (`crate::jobs::AsyncTwin`) over
    /// [`Twin::native`], for the `#[pymethods]` block of the class.
    pub(crate) fn twin_attr(&self, class: &syn::Type) -> TokenStream2 {
        let span = self.decl.sig.ident.span();
        let name = format_ident!("{}_async", self.decl.sig.ident, span = span);
        let native = self.native_name(class);
        quote_spanned! {span=>
            #[classattr]
            fn #name(
                py: ::pyo3::Python<'_>,
            ) -> ::pyo3::PyResult<::pyo3::Py<crate::jobs::AsyncTwin>> {
                let native = ::pyo3::wrap_pyfunction!(#native, py)?.into_any();
                let owner = <Self as ::pyo3::PyTypeInfo>::type_object(py);
                crate::jobs::AsyncTwin::new(py, native, &owner)
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
                crate::jobs::awaitable(py, crate::jobs::Handle::client(&*slf), job)
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
