//! `#[twins]`: the `_async` twin of a binding method, made from the method's one declaration.
//!
//! Placed above `#[pymethods]` on an `impl` block of a binding class (so it expands first), it
//! turns every method marked `#[twin]` into the pair the binding exposes. The marked method
//! is declared as the *job* it runs: it takes `&self` and its Python arguments (with their
//! `#[pyo3(...)]` conversions) and returns `PyResult<J>`, where `J` is a
//! `crate::python::ops::Job` of the class's core client (`crate::python::ops::Handle`). From
//! it come:
//!
//! - `name_job(&self, ...) -> PyResult<J>`: the declaration's body, in a plain `impl` block
//!   (not exported to Python);
//! - `name(&self, py, ...)`: the blocking method, `crate::python::ops::block` on the job;
//! - `name_async(&self, py, ...)`: its awaitable twin, `crate::python::ops::awaitable` on the
//!   same job, so bad arguments are refused when it is called, before anything is awaited.
//!
//! Both keep the declaration's attributes (`#[pyo3(signature = ...)]`, ...) and parameters, so
//! their Python signatures are the same; the twin's docstring is the method's followed by an
//! empty line and "Awaitable twin.". A declaration may take `py: Python<'_>` first: it is
//! passed on to the job. Methods without `#[twin]` are left as they are.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, Attribute, FnArg, ImplItem, ImplItemFn, ItemImpl, Pat, PatType, Type,
};

/// See the crate documentation.
#[proc_macro_attribute]
pub fn twins(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = TokenStream2::from(attr);
        return syn::Error::new(attr.span(), "#[twins] takes no arguments")
            .to_compile_error()
            .into();
    }
    let item = parse_macro_input!(item as ItemImpl);
    match expand(item) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn is_named(attr: &Attribute, name: &str) -> bool {
    attr.path().is_ident(name)
}

fn expand(mut block: ItemImpl) -> syn::Result<TokenStream2> {
    if !block.attrs.iter().any(|a| is_named(a, "pymethods")) {
        return Err(syn::Error::new(
            block.impl_token.span,
            "#[twins] goes above #[pymethods] on the same impl block",
        ));
    }
    let mut jobs = Vec::new();
    let mut items = Vec::new();
    for item in std::mem::take(&mut block.items) {
        match item {
            ImplItem::Fn(f) if f.attrs.iter().any(|a| is_named(a, "twin")) => {
                let twin = Twin::new(f)?;
                jobs.push(twin.job());
                items.push(syn::parse2(twin.method(false))?);
                items.push(syn::parse2(twin.method(true))?);
            }
            other => items.push(other),
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
    })
}

/// One `#[twin]` declaration, taken apart.
struct Twin {
    decl: ImplItemFn,
    /// Whether the declaration takes `py` first.
    takes_py: bool,
    /// The Python parameters, with their `#[pyo3(...)]` attributes.
    params: Vec<PatType>,
}

impl Twin {
    fn new(mut decl: ImplItemFn) -> syn::Result<Self> {
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
    fn job(&self) -> TokenStream2 {
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

    /// The blocking method (`awaitable` false) or its `_async` twin.
    fn method(&self, awaitable: bool) -> TokenStream2 {
        let sig = &self.decl.sig;
        let span = sig.ident.span();
        let params = &self.params;
        let names = self.params.iter().map(|p| &p.pat);
        let py_arg = self.takes_py.then(|| quote!(py,));
        let job = self.job_name();
        let (docs, others): (Vec<&Attribute>, Vec<&Attribute>) =
            self.decl.attrs.iter().partition(|a| is_named(a, "doc"));
        let vis = &self.decl.vis;
        if awaitable {
            let name = format_ident!("{}_async", sig.ident, span = span);
            quote_spanned! {span=>
                #(#docs)*
                #[doc = ""]
                #[doc = " Awaitable twin."]
                #(#others)*
                #vis fn #name<'py>(
                    &self,
                    py: ::pyo3::Python<'py>,
                    #(#params),*
                ) -> ::pyo3::PyResult<::pyo3::Bound<'py, ::pyo3::PyAny>> {
                    let job = self.#job(#py_arg #(#names),*)?;
                    crate::python::ops::awaitable(py, crate::python::ops::Handle::client(self), job)
                }
            }
        } else {
            let name = &sig.ident;
            let attrs = &self.decl.attrs;
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
    }
}

/// `Python<...>` (however it is imported).
fn is_python(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Python"),
        _ => false,
    }
}
