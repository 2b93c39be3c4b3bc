//! What `operation_table!` makes of a table: the core's endpoint constants, builders and
//! `operations()` (core code only).

use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::Block;

use crate::parse::{Arg, Group, Op, Table};

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
                let mut expect: Option<crate::media::expect::Expect> = None;
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
            let mut expect: Option<crate::media::expect::Expect> = None;
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
