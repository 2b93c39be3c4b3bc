//! What the builders of the operation table return: for a command, the [`Confirmable`] (the
//! call and its read-back check; sending it is `confirm.rs`'s), and the helpers the table's
//! entries build their calls with ([`tree`], [`either`]). The builders themselves, one per
//! operation, are made by the table ([`super::table`]: `workspace`, `layer`, `both`, and
//! `operations()`, which lists them for the docs, the stubs and the tests). The argument kinds
//! the builders take are [`super::arg_kinds`] (re-exported here).

use serde_json::Value;

use super::endpoints::*;
use super::expect::Expect;
use super::models::*;
use super::tree::{self, PlaylistTree};
use crate::error::Result;
use crate::ident::Ident;

pub use super::arg_kinds::{
    ArgKind, BlendArg, EffectArg, LabelOf, Labelled, NameOf, Number, OrNone, UuidOf,
};

/// The names the table's entries use (argument kinds, models, reply types), for the consumers
/// of the table outside this module.
pub mod prelude {
    pub use super::super::models::*;
    pub use super::super::tree::PlaylistTree;
    pub use super::{BlendArg, EffectArg, NameOf, Number, OrNone, UuidOf};
    pub use std::sync::Arc;
}

// ---------------------------------------------------------------------------------------------
// What the builders return
// ---------------------------------------------------------------------------------------------

/// A command, and what to read back until it shows (`confirm=True`), when anything.
#[derive(Clone)]
pub struct Confirmable {
    /// The operation's name (`set_opacity`; `"request"` for a raw command), for its record.
    pub operation: &'static str,
    pub call: Call<()>,
    pub expect: Option<Expect>,
}

impl From<Call<()>> for Confirmable {
    fn from(call: Call<()>) -> Self {
        Confirmable {
            operation: crate::journal::RAW,
            call,
            expect: None,
        }
    }
}

/// Two commands are the same when they send the same request and both are read back or
/// neither is.
impl PartialEq for Confirmable {
    fn eq(&self, other: &Self) -> bool {
        self.call.request == other.call.request && self.expect.is_some() == other.expect.is_some()
    }
}

impl std::hash::Hash for Confirmable {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (&self.call.request, self.expect.is_some()).hash(state);
    }
}

impl Confirmable {
    /// Any POST (`request()` of a batch): `path` relative to /api/0, `json` its body, `params`
    /// its query, checked as [`raw`] checks them.
    pub fn request(path: &str, json: Option<Value>, params: Vec<(String, String)>) -> Result<Self> {
        let raw = raw("POST", path, json, params)?;
        let call = Call {
            request: raw.request,
            fallback: None,
            decode: |_| Ok(()),
        };
        Ok(call.into())
    }

    /// The JSON body as sent (decoded), or `None`.
    pub fn body(&self) -> Option<Value> {
        let body = self.call.request.body.as_deref()?;
        parse(body).ok().flatten()
    }

    /// `Command('POST /path body', confirm=True)`: the request as sent, and whether it is read
    /// back.
    pub fn describe(&self) -> String {
        let request = &self.call.request;
        let body = request
            .body
            .as_deref()
            .map(|b| format!(" {}", String::from_utf8_lossy(b)))
            .unwrap_or_default();
        let confirm = if self.expect.is_some() {
            ", confirm=True"
        } else {
            ""
        };
        format!(
            "Command('{} {}{body}'{confirm})",
            request.method.as_str(),
            request.path_and_query()
        )
    }
}

/// A playlist call whose reply is read in one pass (see [`tree`]).
pub(super) fn tree(call: Result<Call<Playlist>>) -> Result<Call<PlaylistTree>> {
    call.map(|c| Call {
        request: c.request,
        fallback: c.fallback,
        decode: tree::decode,
    })
}

/// The workspace's endpoint for `None`, else the layer's.
pub(super) fn either(
    layer: Option<&Ident>,
    workspace: &Endpoint<(), ()>,
    on_layer: &Endpoint<(), ()>,
) -> Result<Call<()>> {
    match layer {
        None => workspace.at(&[]),
        Some(l) => on_layer.at(&[l]),
    }
}
