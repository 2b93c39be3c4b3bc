//! What an operation of the media and scoreboard operation tables is made of, and the core's
//! consumers of a table's grammar. An operation sends its requests through [`Endpoint`]s,
//! requests declared as data: an [`Endpoint`] is a wire method, a path template, a body form
//! (the encoder, which also validates the argument) and a reply decoder; [`Endpoint::with`]
//! turns one and its arguments into a [`Call`] ready to send. [`OpInfo`] describes an
//! operation for the docs, the stubs and the tests. `operation_table!` (`showctl_macros`) turns a
//! table (`media::table`, `score::table`) into its endpoint constants, its core builders and
//! its [`OpInfo`]s.
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
