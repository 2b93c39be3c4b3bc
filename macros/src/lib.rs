//! The binding's code generation, one macro level deep:
//!
//! - `operation_table!` reads an operation table once and makes everything that comes from it
//!   (see below);
//! - `#[twins]` gives a hand-written binding method its `_async` twin.
//!
//! # `operation_table!`
//!
//! ```text
//! operation_table! {
//!     python(client = PyClass, layer = PyLayer, command = PyCommand);
//!     workspace_reads { /// doc
//!                       name(ids) -> Reply { ENDPOINT: Endpoint<A, T> = expr; } }
//!     layer_reads { ... name(layer, ids) -> Reply { ... } }
//!     workspace_commands { /// doc
//!                          name(ids, arg: Kind) { ENDPOINT: ... = expr; } confirm { expect } }
//!     layer_commands { ... name(layer, ids, arg: Type = default) { ... } }
//!     both_commands { ... name(layer) { WORKSPACE_ENDPOINT: ...; LAYER_ENDPOINT: ...; } }
//! }
//! ```
//!
//! A group may be left out. An entry is its doc comment, its name, its identifiers (in a
//! layer's group the first is the layer) and at most one argument (`arg: Kind`, a kind of
//! `ArgKind`; or `arg: Type = default`, converted by the binding's `args::arg`), the reply of
//! a read, its endpoint constant(s), optionally `=> { call }` (the call when it is not the
//! first endpoint's `ENDPOINT.with(ids, "arg", arg)`) and `confirm { expectation }` (the
//! read-back check of `confirm=True`). At the call site it makes:
//!
//! - `mod consts`: the endpoint constants;
//! - `mod workspace`, `mod layer`, `mod both`: one core builder per operation (`both`: `None`
//!   for the workspace), returning the `Call` of a read or the `Confirmable` of a command;
//! - `fn operations()`: the table as `OpInfo`s;
//! - under `#[cfg(feature = "python")]`: the `#[pymethods]` of the client class (workspace
//!   groups, `both_commands` with `None`) and of the layer class (layer groups, its own
//!   layer), each method with its `_async` twin (as `#[twins]` makes them), the `Command`
//!   constructors of the commands, and `fn python_types()` (the Python types of each
//!   operation).
//!
//! The call site has in scope what the entries name (kinds, models, encoders, decoders) and,
//! for commands, `Confirmable`, `Expect`, `ArgKind` and `either`.
//!
//! # `#[twins]`
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
//! - `name_async`: its awaitable twin, `crate::python::ops::awaitable` on the same job, so
//!   bad arguments are refused when it is called, before anything is awaited.
//!
//! Both keep the declaration's attributes (`#[pyo3(signature = ...)]`, ...) and parameters, so
//! their Python signatures are the same; the twin's docstring is the method's followed by an
//! empty line and "Awaitable twin.". A declaration may take `py: Python<'_>` first: it is
//! passed on to the job. Methods without `#[twin]` are left as they are.
//!
//! The `_async` twin is a class attribute, `crate::python::ops::AsyncTwin` (a coroutine
//! function to `inspect`), over a native function: the instance first, then the method's
//! parameters (`__text_signature__` as `#[pymethods]` writes it). `#[twins(Base: name, ...)]`
//! also shows the awaitable methods `name` of the base class `Base` as coroutine functions of
//! this class, named after it.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{parse_macro_input, ImplItem, ItemImpl};

mod table;
mod twins;

use twins::{is_named, Twin};

/// See the crate documentation.
#[proc_macro]
pub fn operation_table(input: TokenStream) -> TokenStream {
    let table = parse_macro_input!(input as table::Table);
    match table.expand() {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// See the crate documentation.
#[proc_macro_attribute]
pub fn twins(attr: TokenStream, item: TokenStream) -> TokenStream {
    let inherited = if attr.is_empty() {
        None
    } else {
        Some(parse_macro_input!(attr as Inherited))
    };
    let item = parse_macro_input!(item as ItemImpl);
    match expand(item, inherited) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// `#[twins(Base: name, ...)]`: awaitable methods of the base class `Base` shown as
/// coroutine functions of this class.
struct Inherited {
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

fn expand(mut block: ItemImpl, inherited: Option<Inherited>) -> syn::Result<TokenStream2> {
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
                ) -> ::pyo3::PyResult<::pyo3::Py<crate::python::ops::AsyncTwin>> {
                    crate::python::ops::AsyncTwin::inherited::<#base, Self>(py, #text)
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
