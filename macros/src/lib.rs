//! The code generation of showctl, one macro level deep. For the core crate (it emits core
//! code only):
//!
//! - `operation_table!` reads an operation table once and makes the core's endpoint
//!   constants, builders and `operations()` (see below);
//! - `sport_table!` reads the scoreboard's sport table once and makes the `Sport` enum and
//!   each sport's fields (its grammar and output in `sports.rs`).
//!
//! For the binding crate, from the same tables (the core hands each table to a generator
//! through a `macro_rules!` of its own, `showctl::media_operations!` and the like, so the table
//! is written once and the core names no binding):
//!
//! - `binding_methods!` makes each operation's Python methods, `_async` twins, `Command`
//!   constructors and Python types;
//! - `sport_classes!` makes each sport's record class;
//! - `#[twins]` gives a hand-written binding method its `_async` twin.
//!
//! # `operation_table!`
//!
//! ```text
//! operation_table! {
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
//! `ArgKind`; or `arg: Type = default`), the reply of a read, its endpoint constant(s),
//! optionally `=> { call }` (the call when it is not the first endpoint's
//! `ENDPOINT.with(ids, "arg", arg)`) and `confirm { expectation }` (the read-back check of
//! `confirm=True`). At the call site it makes:
//!
//! - `mod consts`: the endpoint constants;
//! - `mod workspace`, `mod layer`, `mod both`: one core builder per operation (`both`: `None`
//!   for the workspace), returning the `Call` of a read or the `Confirmable` of a command;
//! - `fn operations()`: the table as `OpInfo`s.
//!
//! The call site has in scope what the entries name (kinds, models, encoders, decoders, what
//! `=> { call }` and `confirm { ... }` use) and, for `both_commands`, `either`; the generated
//! code names the rest by path (`crate::media::builders::Confirmable`, ...). Errors in an entry
//! are reported on its tokens. A table with a `binding(...)` head is refused here.
//!
//! # `binding_methods!`
//!
//! The same table behind a head, `binding(client = PyClass, layer = PyLayer, command =
//! PyCommand, core = path::to::table);`, invoked in the binding crate. It makes the
//! `#[pymethods]` of the client class (workspace groups, `both_commands` with `None`) and of
//! the layer class (layer groups, its own layer), each method calling the core builder
//! `core::workspace::name` (`layer::`, `both::`) with its `_async` twin (as `#[twins]` makes
//! them), the `Command` constructors of the commands, and `fn python_types()` (the Python
//! types of each operation). The call site has the reply types and argument kinds in scope;
//! the binding's own helpers are named by path (`crate::args`, `crate::jobs`, `crate::errors`).
//!
//! # `#[twins]`
//!
//! Placed above `#[pymethods]` on an `impl` block of a binding class (so it expands first), it
//! turns every method marked `#[twin]` into the pair the binding exposes. The marked method
//! is declared as the *job* it runs: it takes `&self` and its Python arguments (with their
//! `#[pyo3(...)]` conversions) and returns `PyResult<J>`, where `J` is a
//! `crate::jobs::Job` of the class's core client (`crate::jobs::Handle`). From
//! it come:
//!
//! - `name_job(&self, ...) -> PyResult<J>`: the declaration's body, in a plain `impl` block
//!   (not exported to Python);
//! - `name(&self, py, ...)`: the blocking method, `crate::jobs::block` on the job;
//! - `name_async`: its awaitable twin, `crate::jobs::awaitable` on the same job, so
//!   bad arguments are refused when it is called, before anything is awaited.
//!
//! Both keep the declaration's attributes (`#[pyo3(signature = ...)]`, ...) and parameters, so
//! their Python signatures are the same; the twin's docstring is the method's followed by an
//! empty line and "Awaitable twin.". A declaration may take `py: Python<'_>` first: it is
//! passed on to the job. Methods without `#[twin]` are left as they are.
//!
//! The `_async` twin is a class attribute, `crate::jobs::AsyncTwin` (a coroutine
//! function to `inspect`), over a native function: the instance first, then the method's
//! parameters (`__text_signature__` as `#[pymethods]` writes it). `#[twins(Base: name, ...)]`
//! also shows the awaitable methods `name` of the base class `Base` as coroutine functions of
//! this class, named after it.

use proc_macro::TokenStream;
use proc_macro2::{TokenStream as TokenStream2, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, Attribute, Block, FnArg, ImplItem, ImplItemFn, ItemImpl, Pat, PatType, Path,
    Type,
};

mod parse;
mod sports;

use parse::{err, Arg, Group, Op, Table};

/// See the crate documentation.
#[proc_macro]
pub fn operation_table(input: TokenStream) -> TokenStream {
    let table = parse_macro_input!(input as Table);
    if let Some(classes) = &table.classes {
        let span = classes.client.as_ref().map_or_else(proc_macro2::Span::call_site, |c| c.span());
        return syn::Error::new(
            span,
            "a core table names no binding: the binding hands the table to `binding_methods!`",
        )
        .to_compile_error()
        .into();
    }
    match table.expand() {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// See the crate documentation.
#[proc_macro]
pub fn binding_methods(input: TokenStream) -> TokenStream {
    let table = parse_macro_input!(input as Table);
    match table.binding() {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// See the crate documentation.
#[proc_macro]
pub fn sport_table(input: TokenStream) -> TokenStream {
    match parse_macro_input!(input as sports::SportTable).expand() {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// See the crate documentation.
#[proc_macro]
pub fn sport_classes(input: TokenStream) -> TokenStream {
    match parse_macro_input!(input as sports::SportTable).classes() {
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

// ---------------------------------------------------------------------------------------------
// What `operation_table!` makes of a table
// ---------------------------------------------------------------------------------------------

impl Table {
    pub(crate) fn expand(&self) -> syn::Result<TokenStream2> {
        let consts = self.ops.iter().flat_map(|op| {
            let doc = format!("The endpoint of `{}`.", op.name);
            op.consts.iter().map(move |c| {
                let (name, ty, expr) = (&c.name, &c.ty, &c.expr);
                quote_spanned! {name.span()=> #[doc = #doc] pub const #name: #ty = #expr; }
            })
        });
        let builders = |groups: &[Group]| -> Vec<TokenStream2> {
            self.ops
                .iter()
                .filter(|op| groups.contains(&op.group))
                .map(builder)
                .collect()
        };
        let workspace = builders(&[Group::WorkspaceReads, Group::WorkspaceCommands]);
        let layer = builders(&[Group::LayerReads, Group::LayerCommands]);
        let both = builders(&[Group::BothCommands]);
        let mut listed: Vec<&Op> = self.ops.iter().collect();
        listed.sort_by_key(|op| Group::ALL.iter().position(|(_, g)| *g == op.group));
        let infos = listed.iter().map(|op| info(op));
        Ok(quote! {
            /// The endpoint constants of the table.
            pub mod consts {
                #[allow(unused_imports)]
                use super::*;
                #(#consts)*
            }
            /// The operations on the workspace (and the scoreboard's).
            pub mod workspace {
                #[allow(unused_imports)]
                use super::*;
                #[allow(unused_imports)]
                use super::consts::*;
                #(#workspace)*
            }
            /// The operations on one layer.
            pub mod layer {
                #[allow(unused_imports)]
                use super::*;
                #[allow(unused_imports)]
                use super::consts::*;
                #(#layer)*
            }
            /// The commands that exist for the workspace (`None`) and for a layer.
            pub mod both {
                #[allow(unused_imports)]
                use super::*;
                #[allow(unused_imports)]
                use super::consts::*;
                #(#both)*
            }
            /// Every operation of the table, in its order.
            pub fn operations() -> ::std::vec::Vec<crate::operation::OpInfo> {
                use crate::operation::{OpInfo, Scope};
                #[allow(unused_imports)]
                use consts::*;
                ::std::vec![#(#infos),*]
            }
        })
    }

    /// The binding (`binding_methods!`): the methods of each class with their twins, the
    /// `Command` constructors and `python_types()`.
    fn binding(&self) -> syn::Result<TokenStream2> {
        let Some(c) = &self.classes else {
            return err(
                proc_macro2::Span::call_site(),
                "`binding_methods!` takes the table with a head: \
                 `binding(client = .., layer = .., command = .., core = ..);`",
            );
        };
        let client = c.client.as_ref().expect("checked when parsed");
        let core = c.core.as_ref().expect("checked when parsed");
        let on =
            |groups: &'static [Group]| self.ops.iter().filter(move |op| groups.contains(&op.group));
        let mut blocks = vec![methods(
            client,
            core,
            on(&[
                Group::WorkspaceReads,
                Group::WorkspaceCommands,
                Group::BothCommands,
            ]),
            false,
        )?];
        let layer_ops = on(&[Group::LayerReads, Group::LayerCommands, Group::BothCommands]);
        match &c.layer {
            Some(layer) => blocks.push(methods(layer, core, layer_ops, true)?),
            None => {
                if let Some(op) = layer_ops.into_iter().next() {
                    return err(
                        op.name.span(),
                        "a layer's operation in a table without `layer`",
                    );
                }
            }
        }
        let commands: Vec<&Op> = self.ops.iter().filter(|op| !op.group.is_read()).collect();
        match &c.command {
            Some(command) => {
                let ctors = commands.iter().map(|op| constructor(op, core));
                blocks.push(quote! {
                    #[::pyo3::pymethods]
                    impl #command { #(#ctors)* }
                });
            }
            None => {
                if let Some(op) = commands.first() {
                    return err(op.name.span(), "a command in a table without `command`");
                }
            }
        }
        let types = self.ops.iter().map(|op| {
            let scope = op.group.scope().to_lowercase();
            let name = op.name.to_string();
            let arg = match &op.arg {
                None => quote!(None),
                Some(Arg {
                    default: Some(_),
                    ty,
                    ..
                }) => {
                    let ty = ty.to_token_stream().to_string();
                    quote!(Some(#ty.to_string()))
                }
                Some(Arg { ty, .. }) => quote!(Some(<#ty as FromPyArg>::py_type())),
            };
            let reply = match &op.reply {
                Some(ty) => quote!(<#ty as Reply>::py_type()),
                None => quote!("None".to_string()),
            };
            quote!((#scope, #name, #arg, #reply))
        });
        Ok(quote! {
            #(#blocks)*
            /// The Python types of each operation of the table (for `_core._operations()`).
            pub(crate) fn python_types() -> crate::table::Types {
                #[allow(unused_imports)]
                use crate::args::FromPyArg;
                use crate::convert::Reply;
                ::std::vec![#(#types),*]
            }
        })
    }
}

/// The core parameter of the argument: the kind's value, or the declared type.
fn core_param(arg: &Arg) -> TokenStream2 {
    let (name, ty) = (&arg.name, &arg.ty);
    match arg.default {
        Some(_) => quote!(#name: #ty),
        None => quote!(#name: <#ty as crate::media::builders::ArgKind>::Value),
    }
}

/// A `=> { call }` block as its one expression (no braces left for the lint), or as it is.
fn plain(call: &Block) -> TokenStream2 {
    match call.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => quote!(#e),
        _ => quote!(#call),
    }
}

/// The core builder of `op`.
fn builder(op: &Op) -> TokenStream2 {
    let (name, docs, span) = (&op.name, &op.docs, op.name.span());
    let ids = &op.ids;
    let ep = op.first_endpoint();
    if let Some(reply) = &op.reply {
        let call = match &op.call {
            Some(call) => plain(call),
            None => quote_spanned!(span=> #ep.with(&[#(#ids),*], "", ())),
        };
        return quote_spanned! {span=>
            #(#docs)*
            pub fn #name(#(#ids: &crate::ident::Ident),*) -> crate::error::Result<crate::operation::Call<#reply>> { #call }
        };
    }
    let confirm_param = op.confirm.as_ref().map(|_| quote!(confirm: bool));
    let expect = op.confirm.as_ref().map(|block| {
        quote! { if confirm { expect = Some(#block); } }
    });
    let name_str = name.to_string();
    if op.group == Group::BothCommands {
        let (layer, ws, on_layer) = (&op.ids[0], &op.consts[0].name, &op.consts[1].name);
        return quote_spanned! {span=>
            #(#docs)*
            pub fn #name(#layer: Option<&crate::ident::Ident>, #confirm_param) -> crate::error::Result<crate::media::builders::Confirmable> {
                #[allow(unused_mut)]
                let mut expect: Option<crate::media::confirm::Expect> = None;
                #expect
                let call = either(#layer, &#ws, &#on_layer)?;
                Ok(crate::media::builders::Confirmable { operation: #name_str, call, expect })
            }
        };
    }
    let mut params: Vec<TokenStream2> = ids
        .iter()
        .map(|id| quote!(#id: &crate::ident::Ident))
        .collect();
    params.extend(op.arg.as_ref().map(core_param));
    params.extend(confirm_param);
    let call = match &op.call {
        Some(call) => plain(call),
        None => {
            let (arg_name, value) = match &op.arg {
                Some(a) => (a.name.to_string(), a.name.to_token_stream()),
                None => (String::new(), quote!(())),
            };
            quote_spanned!(span=> #ep.with(&[#(#ids),*], #arg_name, #value))
        }
    };
    quote_spanned! {span=>
        #(#docs)*
        pub fn #name(#(#params),*) -> crate::error::Result<crate::media::builders::Confirmable> {
            #[allow(unused_mut)]
            let mut expect: Option<crate::media::confirm::Expect> = None;
            #expect
            let call = #call?;
            Ok(crate::media::builders::Confirmable { operation: #name_str, call, expect })
        }
    }
}

/// The `OpInfo` of `op`.
fn info(op: &Op) -> TokenStream2 {
    let name = op.name.to_string();
    let scope = format_ident!("{}", op.group.scope());
    let command = !op.group.is_read();
    let ids = op.arg_ids().iter().map(|i| i.to_string());
    let arg = match &op.arg {
        Some(a) => {
            let a = a.name.to_string();
            quote!(Some(#a))
        }
        None => quote!(None),
    };
    let default = match op.arg.as_ref().and_then(|a| a.default.as_ref()) {
        Some(d) => {
            let d = d.to_token_stream().to_string();
            quote!(Some(#d))
        }
        None => quote!(None),
    };
    let confirm = op.confirm.is_some();
    let doc = &op.doc;
    let eps = op.consts.iter().map(|c| &c.name);
    quote! {
        OpInfo {
            name: #name, scope: Scope::#scope, command: #command,
            ids: ::std::vec![#(#ids),*], arg: #arg, default: #default, confirm: #confirm,
            doc: #doc, endpoints: ::std::vec![#(#eps.describe()),*],
        }
    }
}

/// The Python parameters of `op`'s method (`with_layer`: the layer's too, as `Command`'s
/// constructors take it), with the `#[pyo3(signature = ...)]` that lists them.
struct PyParams {
    signature: TokenStream2,
    params: Vec<TokenStream2>,
    /// The conversions of the parameters into the core builder's arguments.
    convert: Vec<TokenStream2>,
    /// The core builder's arguments after the layer.
    args: Vec<TokenStream2>,
}

fn py_params(op: &Op) -> PyParams {
    let mut sig = Vec::new();
    let mut params = Vec::new();
    let mut convert = Vec::new();
    let mut args = Vec::new();
    for id in op.arg_ids() {
        let s = id.to_string();
        sig.push(quote!(#id));
        params.push(quote!(#id: &::pyo3::Bound<'_, ::pyo3::PyAny>));
        convert.push(quote!(let #id = crate::args::ident(#id, #s)?;));
        args.push(quote!(&#id));
    }
    if let Some(arg) = &op.arg {
        let (name, ty) = (&arg.name, &arg.ty);
        let s = name.to_string();
        match &arg.default {
            Some(default) => {
                sig.push(quote!(#name = #default));
                params.push(quote! {
                    #[pyo3(from_py_with = crate::args::#name)] #name: #ty
                });
            }
            None => {
                sig.push(quote!(#name));
                params.push(quote!(#name: &::pyo3::Bound<'_, ::pyo3::PyAny>));
                convert.push(quote!(let #name = crate::args::arg::<#ty>(#name, #s)?;));
            }
        }
        args.push(quote!(#name));
    }
    if op.confirm.is_some() {
        sig.push(quote!(*));
        sig.push(quote!(confirm = false));
        params.push(quote! {
            #[pyo3(from_py_with = crate::args::confirm)] confirm: bool
        });
        args.push(quote!(confirm));
    }
    PyParams {
        signature: quote!(#(#sig),*),
        params,
        convert,
        args,
    }
}

/// The `#[pymethods]` of `class` for `ops` (`on_layer`: a `Layer`, whose own identifier comes
/// first), each method with its `_async` twin.
fn methods<'a>(
    class: &Path,
    core: &Path,
    ops: impl Iterator<Item = &'a Op>,
    on_layer: bool,
) -> syn::Result<TokenStream2> {
    let class_ty: Type = syn::parse_quote!(#class);
    let mut jobs = Vec::new();
    let mut natives = Vec::new();
    let mut items = Vec::new();
    for op in ops {
        let (name, docs, span) = (&op.name, &op.docs, op.name.span());
        let PyParams {
            signature,
            params,
            convert,
            args,
        } = py_params(op);
        let (module, layer) = match (op.group, on_layer) {
            (Group::BothCommands, false) => (quote!(both), quote!(None,)),
            (Group::BothCommands, true) => (quote!(both), quote!(Some(&self.ident),)),
            (_, true) => (quote!(layer), quote!(&self.ident,)),
            (_, false) => (quote!(workspace), quote!()),
        };
        let job = match &op.reply {
            Some(reply) => quote!(::showctl::operation::Call<#reply>),
            None => quote!(::showctl::media::builders::Confirmable),
        };
        let decl = quote_spanned! {span=>
            #(#docs)*
            #[pyo3(signature = (#signature))]
            fn #name(&self, #(#params),*) -> ::pyo3::PyResult<#job> {
                #(#convert)*
                #core::#module::#name(#layer #(#args),*).map_err(crate::errors::to_py)
            }
        };
        let twin = Twin::new(syn::parse2(decl)?)?;
        jobs.push(twin.job());
        natives.push(twin.native(&class_ty));
        items.push(twin.method());
        items.push(twin.twin_attr(&class_ty));
    }
    Ok(quote! {
        #[::pyo3::pymethods]
        impl #class { #(#items)* }
        impl #class { #(#jobs)* }
        #(#natives)*
    })
}

/// The `Command` constructor of the command `op`: the arguments of its method, the layer
/// first for a layer's command (`None`, the default, for the workspace in `both_commands`).
fn constructor(op: &Op, core: &Path) -> TokenStream2 {
    let (name, docs, span) = (&op.name, &op.docs, op.name.span());
    let PyParams {
        mut signature,
        mut params,
        mut convert,
        args,
    } = py_params(op);
    let (module, layer) = match op.group {
        Group::WorkspaceCommands => (quote!(workspace), quote!()),
        Group::LayerCommands => {
            let l = &op.ids[0];
            params.insert(0, quote!(#l: &::pyo3::Bound<'_, ::pyo3::PyAny>));
            convert.insert(0, quote!(let #l = Self::layer_arg(#l)?;));
            signature = if signature.is_empty() {
                quote!(#l)
            } else {
                quote!(#l, #signature)
            };
            (quote!(layer), quote!(&#l,))
        }
        _ => {
            let l = &op.ids[0];
            params.insert(0, quote!(#l: Option<&::pyo3::Bound<'_, ::pyo3::PyAny>>));
            convert.insert(0, quote!(let #l = #l.map(Self::layer_arg).transpose()?;));
            signature = if signature.is_empty() {
                quote!(#l = None)
            } else {
                quote!(#l = None, #signature)
            };
            (quote!(both), quote!(#l.as_ref(),))
        }
    };
    quote_spanned! {span=>
        #(#docs)*
        #[staticmethod]
        #[pyo3(signature = (#signature))]
        fn #name(#(#params),*) -> ::pyo3::PyResult<Self> {
            #(#convert)*
            let job = #core::#module::#name(#layer #(#args),*).map_err(crate::errors::to_py)?;
            Ok(Self { job })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The twins: a method and its `_async` twin from one declaration
// ---------------------------------------------------------------------------------------------

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
