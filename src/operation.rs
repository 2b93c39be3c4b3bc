//! What an operation of the media and scoreboard operation tables is made of, and the core's
//! consumers of a table's grammar. An operation sends its requests through [`Endpoint`]s,
//! requests declared as data: an [`Endpoint`] is a wire method, a path template, a body form
//! (the encoder, which also validates the argument) and a reply decoder; [`Endpoint::with`]
//! turns one and its arguments into a [`Call`] ready to send. [`OpInfo`] describes an
//! operation for the docs, the stubs and the tests; `endpoint_consts!` and `builders!` turn a
//! table into its endpoint constants (`media::endpoints`) and its core builders
//! (`media::builders`, `score::builders`).
//!
//! Path templates name their identifiers as `{kind:arg}`: the kind decides the identifier
//! rule (layer, cue, playlist), `arg` is the argument named in a refusal.

use std::future::Future;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::ident::{Ident, Kind};
use crate::transport::{Method, Request};

/// Reads a reply body (the body of an empty reply is empty).
pub type Decode<T> = fn(&[u8]) -> Result<T, String>;
/// Validates an argument (named by the `&str`) and turns it into the body and query.
pub type Encode<A> = fn(&str, A) -> Result<Payload>;

/// What a request carries besides its path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Payload {
    pub json: Option<Value>,
    pub query: Vec<(String, String)>,
}

/// One documented request.
pub struct Endpoint<A, T> {
    pub method: Method,
    pub path: &'static str,
    pub encode: Encode<A>,
    pub decode: Decode<T>,
    /// The path used in the field when the documented one answers 404 or 405.
    pub fallback: Option<&'static str>,
    /// The largest reply accepted (see [`Request::max_reply`]); `None`: the client's
    /// `max_body`.
    pub max_reply: Option<usize>,
}

impl<A, T> Endpoint<A, T> {
    /// This endpoint with its replies capped at `max` bytes.
    pub const fn capped(self, max: usize) -> Self {
        Endpoint {
            max_reply: Some(max),
            ..self
        }
    }
}

/// A request ready to send, with the decoder of its reply.
pub struct Call<T> {
    pub request: Request,
    pub fallback: Option<Request>,
    pub decode: Decode<T>,
}

impl<T> Clone for Call<T> {
    fn clone(&self) -> Self {
        Call {
            request: self.request.clone(),
            fallback: self.fallback.clone(),
            decode: self.decode,
        }
    }
}

impl<A, T> Endpoint<A, T> {
    /// Build the request: validate the identifiers (in the order of the template) and the
    /// argument `value` (named `arg` in a refusal).
    pub fn with(&self, ids: &[&Ident], arg: &str, value: A) -> Result<Call<T>> {
        let path = fill(self.path, ids)?;
        let payload = (self.encode)(arg, value)?;
        let build = |path: String| Request {
            method: self.method,
            path,
            query: payload.query.clone(),
            body: payload
                .json
                .as_ref()
                .map(|v| serde_json::to_vec(v).expect("a JSON value always serializes")),
            max_reply: self.max_reply,
        };
        let fallback = match self.fallback {
            Some(template) => Some(build(fill(template, ids)?)),
            None => None,
        };
        Ok(Call {
            request: build(path),
            fallback,
            decode: self.decode,
        })
    }
}

impl<T> Endpoint<(), T> {
    /// Build a request that takes no argument.
    pub fn at(&self, ids: &[&Ident]) -> Result<Call<T>> {
        self.with(ids, "", ())
    }
}

/// Fill the `{kind:arg}` placeholders of a template with validated, encoded identifiers.
pub fn fill(template: &str, ids: &[&Ident]) -> Result<String> {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    let mut ids = ids.iter();
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| Error::Internal(format!("bad path template {template:?}")))?;
        let (kind, arg) = rest[open + 1..close]
            .split_once(':')
            .ok_or_else(|| Error::Internal(format!("bad placeholder in {template:?}")))?;
        let kind = match kind {
            "layer" => Kind::Layer,
            "cue" => Kind::Cue,
            "playlist" => Kind::Playlist,
            _ => return Err(Error::Internal(format!("bad kind in {template:?}"))),
        };
        let id = ids
            .next()
            .ok_or_else(|| Error::Internal(format!("too few identifiers for {template:?}")))?;
        out.push_str(&id.segment(kind, arg)?);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    if ids.next().is_some() {
        return Err(Error::Internal(format!(
            "too many identifiers for {template:?}"
        )));
    }
    Ok(out)
}

/// No body, no query.
pub fn nothing(_: &str, (): ()) -> Result<Payload> {
    Ok(Payload::default())
}

/// A command's reply: never read (the application answers an empty 200).
pub fn done(_: &[u8]) -> Result<(), String> {
    Ok(())
}

/// A read without an argument.
pub const fn get<T>(path: &'static str, decode: Decode<T>) -> Endpoint<(), T> {
    Endpoint {
        method: Method::Get,
        path,
        encode: nothing,
        decode,
        fallback: None,
        max_reply: None,
    }
}

/// A command whose argument `encode` turns into the body and query.
pub const fn post<A>(path: &'static str, encode: Encode<A>) -> Endpoint<A, ()> {
    Endpoint {
        method: Method::Post,
        path,
        encode,
        decode: done,
        fallback: None,
        max_reply: None,
    }
}

/// A command without a body.
pub const fn post0(path: &'static str) -> Endpoint<(), ()> {
    post(path, nothing)
}

/// A client that sends the calls of an operation table (cheap to clone).
pub trait Client: Clone + Send + Sync + 'static {
    /// Send `call` and decode its reply.
    fn run<T: Send + 'static>(&self, call: Call<T>) -> impl Future<Output = Result<T>> + Send;
}

impl<A, T> Endpoint<A, T> {
    /// The wire method and path template (for the docs and the operation list).
    pub fn describe(&self) -> (&'static str, &'static str) {
        (self.method.as_str(), self.path)
    }
}

/// Where an operation applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The whole application (the `MediaPlayer`, or the `Scoreboard`).
    Workspace,
    /// One layer (a `Layer` handle).
    Layer,
    /// Both: the workspace for no layer, else the layer.
    Both,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Workspace => "workspace",
            Scope::Layer => "layer",
            Scope::Both => "both",
        }
    }
}

/// One operation of a table, as data (for the docs, the stubs and the tests).
#[derive(Debug, Clone)]
pub struct OpInfo {
    pub name: &'static str,
    pub async_name: &'static str,
    pub scope: Scope,
    /// A command (POST) rather than a read.
    pub command: bool,
    /// The identifiers taken as arguments (for a layer's operation, besides the layer).
    pub ids: Vec<&'static str>,
    /// The argument after the identifiers, if any.
    pub arg: Option<&'static str>,
    /// Its default, as written in the table.
    pub default: Option<&'static str>,
    /// Whether the operation takes `confirm` (it has a read-back check).
    pub confirm: bool,
    pub doc: &'static str,
    /// The wire method and path of each endpoint it may use.
    pub endpoints: Vec<(&'static str, &'static str)>,
}

/// The block given, else the default tokens.
macro_rules! choose {
    ({ $given:tt } { $($default:tt)* }) => {
        $given
    };
    ({} { $($default:tt)* }) => {
        $($default)*
    };
}

/// The name of an operation's argument as named in a refusal (`""` for none).
macro_rules! arg_name {
    () => {
        ""
    };
    ($arg:ident) => {
        stringify!($arg)
    };
}

/// An operation's argument value (`()` for none).
macro_rules! arg_value {
    () => {
        ()
    };
    ($arg:ident) => {
        $arg
    };
}

/// The first expression.
macro_rules! first {
    ($e:expr $(, $rest:expr)*) => {
        $e
    };
}

/// Declares the endpoint constants of an operation table (the rest of each entry is for the
/// other consumers).
macro_rules! endpoint_consts {
    ({} $($group:ident {
        $(
            $(#[doc = $doc:literal])+
            $name:ident / $aname:ident [$($id:ident),*] $(($($args:tt)*))? $(-> $ret:ty)? {
                $($ep:ident : $ety:ty = $eexpr:expr;)+
            } $(=> $call:block)? $($confirm:ident $expect:block)?
        )*
    })*) => {
        $($($(
            #[doc = concat!("The endpoint of `", stringify!($name), "`.")]
            pub const $ep: $ety = $eexpr;
        )+)*)*
    };
}

/// The core builders of an operation table (`crate::media::table` has the grammar): modules
/// `workspace`, `layer` and `both` with one function per operation, and `operations()`. The
/// expansion site provides the endpoint constants and, for commands, `Confirmable`, `Expect`
/// and `either`.
macro_rules! builders {
    ({}
     workspace_reads { $(
        $(#[doc = $rd:literal])+
        $rn:ident / $ran:ident [$($rid:ident),*] () -> $rret:ty {
            $rep:ident : $rety:ty = $reexpr:expr; $($rmore:ident : $rmty:ty = $rmexpr:expr;)*
        } $(=> $rcall:block)?
     )* }
     layer_reads { $(
        $(#[doc = $ld:literal])+
        $ln:ident / $lan:ident [$ll:ident $(, $lid:ident)*] () -> $lret:ty {
            $lep:ident : $lety:ty = $leexpr:expr; $($lmore:ident : $lmty:ty = $lmexpr:expr;)*
        } $(=> $lcall:block)?
     )* }
     workspace_commands { $(
        $(#[doc = $wd:literal])+
        $wn:ident / $wan:ident [$($wid:ident),*]
            ($($wp:ident : $wt:ty)? $(; $wdp:ident : $wdt:ty = $wdd:tt)?) {
            $wep:ident : $wety:ty = $weexpr:expr; $($wmore:ident : $wmty:ty = $wmexpr:expr;)*
        } $(=> $wcall:block)? $($wconfirm:ident $wexpect:block)?
     )* }
     layer_commands { $(
        $(#[doc = $cd:literal])+
        $cn:ident / $can:ident [$cl:ident $(, $cid:ident)*]
            ($($cp:ident : $ct:ty)? $(; $cdp:ident : $cdt:ty = $cdd:tt)?) {
            $cep:ident : $cety:ty = $ceexpr:expr; $($cmore:ident : $cmty:ty = $cmexpr:expr;)*
        } $(=> $ccall:block)? $($cconfirm:ident $cexpect:block)?
     )* }
     both_commands { $(
        $(#[doc = $bd:literal])+
        $bn:ident / $ban:ident [$bl:ident] {
            $bwep:ident : $bwety:ty = $bwexpr:expr; $blep:ident : $blety:ty = $blexpr:expr;
        } $($bconfirm:ident $bexpect:block)?
     )* }
    ) => {
        /// The operations on the workspace (and the scoreboard's).
        pub mod workspace {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[doc = $rd])+
                pub fn $rn($($rid: &Ident),*) -> Result<Call<$rret>> {
                    $crate::operation::choose!({$($rcall)?} { $rep.with(&[$($rid),*], "", ()) })
                }
            )*
            $(
                $(#[doc = $wd])+
                pub fn $wn(
                    $($wid: &Ident,)* $($wp: <$wt as ArgKind>::Value,)? $($wdp: $wdt,)?
                    $($wconfirm: bool)?
                ) -> Result<Confirmable> {
                    #[allow(unused_mut)]
                    let mut expect: Option<Expect> = None;
                    $(if $wconfirm { expect = Some($wexpect); })?
                    let call = $crate::operation::choose!({$($wcall)?} {
                        $wep.with(
                            &[$($wid),*],
                            $crate::operation::arg_name!($($wp)? $($wdp)?),
                            $crate::operation::arg_value!($($wp)? $($wdp)?),
                        )
                    })?;
                    Ok(Confirmable { operation: stringify!($wn), call, expect })
                }
            )*
        }

        /// The operations on one layer.
        pub mod layer {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[doc = $ld])+
                pub fn $ln($ll: &Ident $(, $lid: &Ident)*) -> Result<Call<$lret>> {
                    $crate::operation::choose!({$($lcall)?} {
                        $lep.with(&[$ll $(, $lid)*], "", ())
                    })
                }
            )*
            $(
                $(#[doc = $cd])+
                pub fn $cn(
                    $cl: &Ident, $($cid: &Ident,)* $($cp: <$ct as ArgKind>::Value,)?
                    $($cdp: $cdt,)? $($cconfirm: bool)?
                ) -> Result<Confirmable> {
                    #[allow(unused_mut)]
                    let mut expect: Option<Expect> = None;
                    $(if $cconfirm { expect = Some($cexpect); })?
                    let call = $crate::operation::choose!({$($ccall)?} {
                        $cep.with(
                            &[$cl $(, $cid)*],
                            $crate::operation::arg_name!($($cp)? $($cdp)?),
                            $crate::operation::arg_value!($($cp)? $($cdp)?),
                        )
                    })?;
                    Ok(Confirmable { operation: stringify!($cn), call, expect })
                }
            )*
        }

        /// The commands that exist for the workspace (`None`) and for a layer.
        pub mod both {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[doc = $bd])+
                pub fn $bn($bl: Option<&Ident> $(, $bconfirm: bool)?) -> Result<Confirmable> {
                    #[allow(unused_mut)]
                    let mut expect: Option<Expect> = None;
                    $(if $bconfirm { expect = Some($bexpect); })?
                    let call = either($bl, &$bwep, &$blep)?;
                    Ok(Confirmable { operation: stringify!($bn), call, expect })
                }
            )*
        }

        /// Every operation of the table, in its order.
        #[allow(clippy::vec_init_then_push)]
        pub fn operations() -> Vec<$crate::operation::OpInfo> {
            use $crate::operation::{OpInfo, Scope};
            let mut out = Vec::new();
            $(out.push(OpInfo {
                name: stringify!($rn), async_name: stringify!($ran), scope: Scope::Workspace,
                command: false, ids: vec![$(stringify!($rid)),*], arg: None, default: None,
                confirm: false, doc: concat!($($rd, "\n"),+),
                endpoints: vec![$rep.describe() $(, $rmore.describe())*],
            });)*
            $(out.push(OpInfo {
                name: stringify!($ln), async_name: stringify!($lan), scope: Scope::Layer,
                command: false, ids: vec![$(stringify!($lid)),*], arg: None, default: None,
                confirm: false, doc: concat!($($ld, "\n"),+),
                endpoints: vec![$lep.describe() $(, $lmore.describe())*],
            });)*
            $(out.push(OpInfo {
                name: stringify!($wn), async_name: stringify!($wan), scope: Scope::Workspace,
                command: true, ids: vec![$(stringify!($wid)),*],
                arg: $crate::operation::first!($(Some(stringify!($wp)),)? $(Some(stringify!($wdp)),)? None),
                default: $crate::operation::first!($(Some(stringify!($wdd)),)? None),
                confirm: $crate::operation::first!($({ let _ = stringify!($wconfirm); true },)? false),
                doc: concat!($($wd, "\n"),+),
                endpoints: vec![$wep.describe() $(, $wmore.describe())*],
            });)*
            $(out.push(OpInfo {
                name: stringify!($cn), async_name: stringify!($can), scope: Scope::Layer,
                command: true, ids: vec![$(stringify!($cid)),*],
                arg: $crate::operation::first!($(Some(stringify!($cp)),)? $(Some(stringify!($cdp)),)? None),
                default: $crate::operation::first!($(Some(stringify!($cdd)),)? None),
                confirm: $crate::operation::first!($({ let _ = stringify!($cconfirm); true },)? false),
                doc: concat!($($cd, "\n"),+),
                endpoints: vec![$cep.describe() $(, $cmore.describe())*],
            });)*
            $(out.push(OpInfo {
                name: stringify!($bn), async_name: stringify!($ban), scope: Scope::Both,
                command: true, ids: vec![], arg: None, default: None,
                confirm: $crate::operation::first!($({ let _ = stringify!($bconfirm); true },)? false),
                doc: concat!($($bd, "\n"),+),
                endpoints: vec![$bwep.describe(), $blep.describe()],
            });)*
            out
        }
    };
}

pub(crate) use {arg_name, arg_value, builders, choose, endpoint_consts, first};
