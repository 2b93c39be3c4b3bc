//! The grammar of `operation_table!` (see the crate documentation): a table parsed into its
//! [`Op`]s, each checked against the rules of its group, with errors on the entry's tokens.

use proc_macro2::Span;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, parenthesized, Attribute, Block, Expr, Ident, Path, Token, Type};

/// The groups of a table, in the order `operations()` lists them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Group {
    WorkspaceReads,
    LayerReads,
    WorkspaceCommands,
    LayerCommands,
    BothCommands,
}

impl Group {
    pub(crate) const ALL: [(&'static str, Group); 5] = [
        ("workspace_reads", Group::WorkspaceReads),
        ("layer_reads", Group::LayerReads),
        ("workspace_commands", Group::WorkspaceCommands),
        ("layer_commands", Group::LayerCommands),
        ("both_commands", Group::BothCommands),
    ];
    pub(crate) fn is_read(self) -> bool {
        matches!(self, Group::WorkspaceReads | Group::LayerReads)
    }
    pub(crate) fn on_layer(self) -> bool {
        matches!(self, Group::LayerReads | Group::LayerCommands)
    }
    pub(crate) fn scope(self) -> &'static str {
        match self {
            Group::WorkspaceReads | Group::WorkspaceCommands => "Workspace",
            Group::LayerReads | Group::LayerCommands => "Layer",
            Group::BothCommands => "Both",
        }
    }
}

/// The argument after the identifiers: `name: Kind` (converted and checked by the kind), or
/// `name: Type = default` (converted by the binding's `args::name`).
pub(crate) struct Arg {
    pub(crate) name: Ident,
    pub(crate) ty: Type,
    pub(crate) default: Option<Expr>,
}

/// `NAME: Type = expr;`
pub(crate) struct Const {
    pub(crate) name: Ident,
    pub(crate) ty: Type,
    pub(crate) expr: Expr,
}

/// One entry of the table.
pub(crate) struct Op {
    pub(crate) group: Group,
    pub(crate) docs: Vec<Attribute>,
    pub(crate) doc: String,
    pub(crate) name: Ident,
    /// The identifiers (in a layer's group the first is the layer).
    pub(crate) ids: Vec<Ident>,
    pub(crate) arg: Option<Arg>,
    pub(crate) reply: Option<Type>,
    pub(crate) consts: Vec<Const>,
    pub(crate) call: Option<Block>,
    pub(crate) confirm: Option<Block>,
}

/// `binding(client = Path, layer = Path, command = Path, core = Path);`: the head a binding
/// puts before a table it hands to `binding_methods!`: the binding classes of the table and
/// the core module whose builders their methods call.
#[derive(Default)]
pub(crate) struct Classes {
    pub(crate) client: Option<Path>,
    pub(crate) layer: Option<Path>,
    pub(crate) command: Option<Path>,
    pub(crate) core: Option<Path>,
}

pub(crate) struct Table {
    /// The head, when a binding gives one (`operation_table!` refuses it).
    pub(crate) classes: Option<Classes>,
    pub(crate) ops: Vec<Op>,
}

pub(crate) fn err<T>(span: Span, msg: impl std::fmt::Display) -> syn::Result<T> {
    Err(syn::Error::new(span, msg))
}

impl Classes {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut classes = Classes::default();
        let kw: Ident = input.parse()?;
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
                "core" => &mut classes.core,
                _ => {
                    return err(
                        key.span(),
                        "expected `client`, `layer`, `command` or `core`",
                    )
                }
            };
            *slot = Some(path);
        }
        if classes.client.is_none() || classes.core.is_none() {
            return err(
                kw.span(),
                "`binding(...)` names the `client` class and the `core` module of the builders",
            );
        }
        input.parse::<Token![;]>()?;
        Ok(classes)
    }
}

impl Parse for Table {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let classes = if input.peek(Ident) && input.fork().parse::<Ident>()? == "binding" {
            Some(Classes::parse(input)?)
        } else {
            None
        };
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

    pub(crate) fn first_endpoint(&self) -> &Ident {
        &self.consts[0].name
    }

    /// The identifiers passed as arguments (the layer of a layer's operation is not).
    pub(crate) fn arg_ids(&self) -> &[Ident] {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(groups: &str) -> syn::Result<Table> {
        syn::parse_str::<Table>(groups)
    }

    /// The message a table with `groups` is refused with.
    fn refusal(groups: &str) -> String {
        match parse(groups) {
            Ok(_) => panic!("accepted: {groups}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn an_entry_of_each_group_parses_into_its_parts() {
        let table = parse(
            "workspace_reads {
                 /// GET /a.
                 a() -> A { A_EP: Endpoint<(), A> = get(\"/a\", one); }
             }
             layer_commands {
                 /// POST /b/layer/{id}.
                 set_b(layer, value: Number) { B_EP: Endpoint<f64, ()> = post(\"/b\", b); }
                 confirm { Expect::B }
             }
             both_commands {
                 /// POST /c/workspace or /c/layer/{id}.
                 c(layer) { C_W: Endpoint<(), ()> = post0(\"/c\"); C_L: Endpoint<(), ()> = post0(\"/c/l\"); }
             }",
        )
        .unwrap();
        assert_eq!(table.ops.len(), 3);
        let set_b = &table.ops[1];
        assert_eq!(set_b.name, "set_b");
        assert_eq!(set_b.group, Group::LayerCommands);
        assert_eq!(set_b.ids.len(), 1);
        assert!(set_b.arg_ids().is_empty(), "the layer is not an argument");
        assert_eq!(set_b.arg.as_ref().unwrap().name, "value");
        assert!(set_b.confirm.is_some() && set_b.reply.is_none());
        assert_eq!(set_b.first_endpoint(), "B_EP");
        assert_eq!(table.ops[0].doc, " GET /a.\n");
    }

    #[test]
    fn each_broken_rule_is_refused_by_what_it_breaks() {
        let cases = [
            (
                "workspace_reads { /// r\n r() { R: E = e; } }",
                "a read declares its reply",
            ),
            (
                "workspace_commands { /// c\n c() -> T { C: E = e; } }",
                "a read declares its reply (`-> Type`), a command does not",
            ),
            (
                "workspace_reads { /// r\n r() -> T { R: E = e; } confirm { x } }",
                "only a command can be confirmed",
            ),
            (
                "workspace_reads { /// r\n r(id, v: Number) -> T { R: E = e; } }",
                "a read takes identifiers only",
            ),
            (
                "layer_reads { /// r\n r() -> T { R: E = e; } }",
                "takes the layer first",
            ),
            (
                "workspace_reads { r() -> T { R: E = e; } }",
                "an operation has a doc comment",
            ),
            (
                "workspace_reads { /// r\n r() -> T { } }",
                "declares its endpoint(s)",
            ),
            (
                "workspace_commands { /// c\n c(a: Number, b: Number) { C: E = e; } }",
                "one argument after its ids",
            ),
            (
                "workspace_commands { /// c\n c(a: Number, id) { C: E = e; } }",
                "the identifiers come before the argument",
            ),
            (
                "both_commands { /// c\n c(layer) { C: E = e; } }",
                "declares the workspace endpoint, then the layer's",
            ),
            (
                "both_commands { /// c\n c(layer, id) { C: E = e; D: E = e; } }",
                "a `both_commands` entry is `name(layer) { ... }`",
            ),
            ("layer_things { }", "expected a group: workspace_reads"),
        ];
        for (groups, want) in cases {
            let got = refusal(groups);
            assert!(
                got.contains(want),
                "{groups}\n  said: {got}\n  want: {want}"
            );
        }
    }

    #[test]
    fn a_binding_head_names_its_client_class_and_core_module() {
        let e = syn::parse_str::<Table>("binding(layer = Layer, core = m);")
            .err()
            .unwrap();
        assert!(e.to_string().contains("names the `client` class"), "{e}");
        let e = syn::parse_str::<Table>("binding(client = C);")
            .err()
            .unwrap();
        assert!(e.to_string().contains("the `core` module"), "{e}");
        let e = syn::parse_str::<Table>("binding(client = C, core = m, python = P);")
            .err()
            .unwrap();
        assert!(e.to_string().contains("expected `client`"), "{e}");
        let t =
            syn::parse_str::<Table>("binding(client = C, core = m); workspace_reads {}").unwrap();
        assert!(t.classes.is_some());
        assert!(syn::parse_str::<Table>("workspace_reads {}")
            .unwrap()
            .classes
            .is_none());
    }
}
