//! What `binding_methods!` makes of a table in the binding crate: each class's `#[pymethods]`
//! with their `_async` twins, the `Command` constructors and `python_types()`.

use proc_macro2::TokenStream as TokenStream2;
use quote::{quote, quote_spanned, ToTokens};
use syn::{Path, Type};

use crate::parse::{err, Arg, Group, Op, Table};
use crate::twins::Twin;

impl Table {
    /// The binding (`binding_methods!`): the methods of each class with their twins, the
    /// `Command` constructors and `python_types()`.
    pub(crate) fn binding(&self) -> syn::Result<TokenStream2> {
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
