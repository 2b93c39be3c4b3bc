//! `operation_table!`: an operation table read once (see the crate documentation for its
//! grammar), then everything made from it: the endpoint constants, the core builders and
//! `operations()`, and under the `python` feature the binding's methods with their `_async`
//! twins, the `Command` constructors and the Python types of each operation.

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, parenthesized, Attribute, Block, Expr, Ident, Path, Token, Type};

use crate::twins::Twin;

/// The groups of a table, in the order `operations()` lists them.
#[derive(Clone, Copy, PartialEq)]
enum Group {
    WorkspaceReads,
    LayerReads,
    WorkspaceCommands,
    LayerCommands,
    BothCommands,
}

impl Group {
    const ALL: [(&'static str, Group); 5] = [
        ("workspace_reads", Group::WorkspaceReads),
        ("layer_reads", Group::LayerReads),
        ("workspace_commands", Group::WorkspaceCommands),
        ("layer_commands", Group::LayerCommands),
        ("both_commands", Group::BothCommands),
    ];
    fn is_read(self) -> bool {
        matches!(self, Group::WorkspaceReads | Group::LayerReads)
    }
    fn on_layer(self) -> bool {
        matches!(self, Group::LayerReads | Group::LayerCommands)
    }
    fn scope(self) -> &'static str {
        match self {
            Group::WorkspaceReads | Group::WorkspaceCommands => "Workspace",
            Group::LayerReads | Group::LayerCommands => "Layer",
            Group::BothCommands => "Both",
        }
    }
}

/// The argument after the identifiers: `name: Kind` (converted and checked by the kind), or
/// `name: Type = default` (converted by the binding's `args::name`).
struct Arg {
    name: Ident,
    ty: Type,
    default: Option<Expr>,
}

/// `NAME: Type = expr;`
struct Const {
    name: Ident,
    ty: Type,
    expr: Expr,
}

/// One entry of the table.
struct Op {
    group: Group,
    docs: Vec<Attribute>,
    doc: String,
    name: Ident,
    /// The identifiers (in a layer's group the first is the layer).
    ids: Vec<Ident>,
    arg: Option<Arg>,
    reply: Option<Type>,
    consts: Vec<Const>,
    call: Option<Block>,
    confirm: Option<Block>,
}

/// `python(client = Path, layer = Path, command = Path)`: the binding classes of the table.
#[derive(Default)]
struct Classes {
    client: Option<Path>,
    layer: Option<Path>,
    command: Option<Path>,
}

pub(crate) struct Table {
    classes: Classes,
    ops: Vec<Op>,
}

fn err<T>(span: Span, msg: impl std::fmt::Display) -> syn::Result<T> {
    Err(syn::Error::new(span, msg))
}

impl Parse for Table {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut classes = Classes::default();
        let kw: Ident = input.parse()?;
        if kw != "python" {
            return err(
                kw.span(),
                "a table starts with `python(client = ..., ...);`",
            );
        }
        let content;
        parenthesized!(content in input);
        for (key, path) in
            Punctuated::<(Ident, Path), Token![,]>::parse_terminated_with(&content, |p| {
                Ok((p.parse()?, (p.parse::<Token![=]>()?, p.parse()?).1))
            })?
        {
            let slot = match key.to_string().as_str() {
                "client" => &mut classes.client,
                "layer" => &mut classes.layer,
                "command" => &mut classes.command,
                _ => return err(key.span(), "expected `client`, `layer` or `command`"),
            };
            *slot = Some(path);
        }
        if classes.client.is_none() {
            return err(kw.span(), "`python(...)` names the `client` class");
        }
        input.parse::<Token![;]>()?;
        let mut ops = Vec::new();
        while !input.is_empty() {
            let name: Ident = input.parse()?;
            let Some((_, group)) = Group::ALL.iter().find(|(n, _)| name == n) else {
                let names: Vec<&str> = Group::ALL.iter().map(|(n, _)| *n).collect();
                return err(
                    name.span(),
                    format!("expected a group: {}", names.join(", ")),
                );
            };
            let content;
            braced!(content in input);
            while !content.is_empty() {
                ops.push(Op::parse(&content, *group)?);
            }
        }
        let table = Table { classes, ops };
        table.check()?;
        Ok(table)
    }
}

impl Op {
    fn parse(input: ParseStream, group: Group) -> syn::Result<Self> {
        let docs = input.call(Attribute::parse_outer)?;
        let mut doc = String::new();
        for attr in &docs {
            match &attr.meta {
                syn::Meta::NameValue(nv) if attr.path().is_ident("doc") => {
                    let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) = &nv.value
                    else {
                        return err(nv.value.span_of(), "a doc comment");
                    };
                    doc.push_str(&s.value());
                    doc.push('\n');
                }
                _ => return err(attr.path().span_of(), "an entry takes doc comments only"),
            }
        }
        let name: Ident = input.parse()?;
        if docs.is_empty() {
            return err(
                name.span(),
                "an operation has a doc comment (its Python docstring)",
            );
        }
        let params;
        parenthesized!(params in input);
        let mut ids = Vec::new();
        let mut arg = None;
        while !params.is_empty() {
            let pname: Ident = params.parse()?;
            if params.peek(Token![:]) {
                params.parse::<Token![:]>()?;
                let ty: Type = params.parse()?;
                let default = if params.peek(Token![=]) {
                    params.parse::<Token![=]>()?;
                    Some(params.parse()?)
                } else {
                    None
                };
                if arg.is_some() {
                    return err(
                        pname.span(),
                        "an operation takes one argument after its ids",
                    );
                }
                arg = Some(Arg {
                    name: pname,
                    ty,
                    default,
                });
            } else if arg.is_some() {
                return err(pname.span(), "the identifiers come before the argument");
            } else {
                ids.push(pname);
            }
            if !params.is_empty() {
                params.parse::<Token![,]>()?;
            }
        }
        let reply = if input.peek(Token![->]) {
            input.parse::<Token![->]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        let body;
        braced!(body in input);
        let mut consts = Vec::new();
        while !body.is_empty() {
            let name = body.parse()?;
            body.parse::<Token![:]>()?;
            let ty = body.parse()?;
            body.parse::<Token![=]>()?;
            let expr = body.parse()?;
            body.parse::<Token![;]>()?;
            consts.push(Const { name, ty, expr });
        }
        let call = if input.peek(Token![=>]) {
            input.parse::<Token![=>]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        let confirm = if input.peek(Ident) && input.fork().parse::<Ident>()? == "confirm" {
            input.parse::<Ident>()?;
            Some(input.parse()?)
        } else {
            None
        };
        let op = Op {
            group,
            docs,
            doc,
            name,
            ids,
            arg,
            reply,
            consts,
            call,
            confirm,
        };
        op.check()?;
        Ok(op)
    }

    /// The entry against the rules of its group.
    fn check(&self) -> syn::Result<()> {
        let span = self.name.span();
        let g = self.group;
        if self.consts.is_empty() {
            return err(
                span,
                "an operation declares its endpoint(s) in `{ NAME: Type = ...; }`",
            );
        }
        if g.is_read() != self.reply.is_some() {
            return err(
                span,
                "a read declares its reply (`-> Type`), a command does not",
            );
        }
        if g.is_read() && self.arg.is_some() {
            return err(span, "a read takes identifiers only");
        }
        if g.is_read() && self.confirm.is_some() {
            return err(span, "only a command can be confirmed");
        }
        if g.on_layer() && self.ids.is_empty() {
            return err(
                span,
                "a layer's operation takes the layer first: `name(layer, ...)`",
            );
        }
        if g == Group::BothCommands {
            if self.ids.len() != 1 || self.arg.is_some() || self.call.is_some() {
                return err(span, "a `both_commands` entry is `name(layer) { ... }`");
            }
            if self.consts.len() != 2 {
                return err(
                    span,
                    "a `both_commands` entry declares the workspace endpoint, then the layer's",
                );
            }
        }
        Ok(())
    }

    fn first_endpoint(&self) -> &Ident {
        &self.consts[0].name
    }

    /// The identifiers passed as arguments (the layer of a layer's operation is not).
    fn arg_ids(&self) -> &[Ident] {
        if self.group.on_layer() || self.group == Group::BothCommands {
            &self.ids[1..]
        } else {
            &self.ids
        }
    }
}

trait SpanOf {
    fn span_of(&self) -> Span;
}
impl<T: ToTokens> SpanOf for T {
    fn span_of(&self) -> Span {
        syn::spanned::Spanned::span(self)
    }
}

impl Table {
    fn check(&self) -> syn::Result<()> {
        for (i, op) in self.ops.iter().enumerate() {
            let same_class = |o: &Op| {
                o.group.on_layer() == op.group.on_layer()
                    || o.group == Group::BothCommands
                    || op.group == Group::BothCommands
            };
            if self.ops[..i]
                .iter()
                .any(|o| o.name == op.name && same_class(o))
            {
                return err(op.name.span(), format!("`{}` is declared twice", op.name));
            }
        }
        Ok(())
    }

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
        let binding = self.binding()?;
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
            #binding
        })
    }

    /// The binding (under the `python` feature): the methods of each class with their twins,
    /// the `Command` constructors and `python_types()`.
    fn binding(&self) -> syn::Result<TokenStream2> {
        let c = &self.classes;
        let client = c.client.as_ref().expect("checked when parsed");
        let on =
            |groups: &'static [Group]| self.ops.iter().filter(move |op| groups.contains(&op.group));
        let mut blocks = vec![methods(
            client,
            on(&[
                Group::WorkspaceReads,
                Group::WorkspaceCommands,
                Group::BothCommands,
            ]),
            false,
        )?];
        let layer_ops = on(&[Group::LayerReads, Group::LayerCommands, Group::BothCommands]);
        match &c.layer {
            Some(layer) => blocks.push(methods(layer, layer_ops, true)?),
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
                let ctors = commands.iter().map(|op| constructor(op));
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
            #[cfg(feature = "python")]
            mod binding {
                #[allow(unused_imports)]
                use super::*;
                #(#blocks)*
            }
            /// The Python types of each operation of the table (for `_core._operations()`).
            #[cfg(feature = "python")]
            pub(crate) fn python_types() -> crate::python::ops::Types {
                #[allow(unused_imports)]
                use crate::python::args::FromPyArg;
                use crate::python::convert::Reply;
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
    let async_name = format!("{name}_async");
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
            name: #name, async_name: #async_name, scope: Scope::#scope, command: #command,
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
        convert.push(quote!(let #id = crate::python::args::ident(#id, #s)?;));
        args.push(quote!(&#id));
    }
    if let Some(arg) = &op.arg {
        let (name, ty) = (&arg.name, &arg.ty);
        let s = name.to_string();
        match &arg.default {
            Some(default) => {
                sig.push(quote!(#name = #default));
                params.push(quote! {
                    #[pyo3(from_py_with = crate::python::args::#name)] #name: #ty
                });
            }
            None => {
                sig.push(quote!(#name));
                params.push(quote!(#name: &::pyo3::Bound<'_, ::pyo3::PyAny>));
                convert.push(quote!(let #name = crate::python::args::arg::<#ty>(#name, #s)?;));
            }
        }
        args.push(quote!(#name));
    }
    if op.confirm.is_some() {
        sig.push(quote!(*));
        sig.push(quote!(confirm = false));
        params.push(quote! {
            #[pyo3(from_py_with = crate::python::args::confirm)] confirm: bool
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
            Some(reply) => quote!(crate::operation::Call<#reply>),
            None => quote!(crate::media::builders::Confirmable),
        };
        let decl = quote_spanned! {span=>
            #(#docs)*
            #[pyo3(signature = (#signature))]
            fn #name(&self, #(#params),*) -> ::pyo3::PyResult<#job> {
                #(#convert)*
                Ok(super::#module::#name(#layer #(#args),*)?)
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
fn constructor(op: &Op) -> TokenStream2 {
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
            let job = super::#module::#name(#layer #(#args),*)?;
            Ok(Self { job })
        }
    }
}
