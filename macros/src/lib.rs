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
use syn::parse_macro_input;
use syn::spanned::Spanned;

mod binding;
mod parse;
mod sports;
mod table;
mod twins;

use parse::Table;

/// See the crate documentation.
#[proc_macro]
pub fn operation_table(input: TokenStream) -> TokenStream {
    let table = parse_macro_input!(input as Table);
    if let Some(classes) = &table.classes {
        let span = classes
            .client
            .as_ref()
            .map_or_else(proc_macro2::Span::call_site, |c| c.span());
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
        Some(parse_macro_input!(attr as twins::Inherited))
    };
    let item = parse_macro_input!(item as syn::ItemImpl);
    match twins::expand(item, inherited) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
