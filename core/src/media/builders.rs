//! One core builder per operation of the table ([`super::table`]): it takes the checked
//! identifiers and argument (and `confirm` where the operation can be read back) and returns
//! the call to send, or for a command the [`Confirmable`] (the call and its read-back check).
//! The builders are grouped by scope: [`workspace`], [`layer`] and [`both`] (`None`: the
//! workspace). [`operations`] lists the table for the docs, the stubs and the tests. The
//! argument kinds the builders take are [`super::arg_kinds`] (re-exported here).

use std::future::Future;

use serde_json::Value;

use super::client::MediaClient;
use super::confirm::{self, Expect};
use super::endpoints::*;
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

    /// Send the command, and read back when asked to (`confirm::confirmed`); its record: see
    /// [`crate::journal`].
    pub async fn send(self, client: &MediaClient) -> Result<()> {
        let confirmed = self.expect.is_some();
        let sent = async move {
            match &self.expect {
                Some(expect) => confirm::confirmed(client, self.call, expect).await,
                None => client.run(self.call).await,
            }
        };
        crate::journal::record(self.operation, confirmed, sent).await
    }
}

impl Client for MediaClient {
    fn run<T: Send + 'static>(&self, call: Call<T>) -> impl Future<Output = Result<T>> + Send {
        MediaClient::run(self, call)
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

pub use super::table::{both, layer, operations, workspace};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::confirm::Flag;

    #[test]
    fn every_operation_is_listed_once_per_scope_with_its_endpoints() {
        let ops = operations();
        assert!(ops.len() >= 50, "{}", ops.len());
        for op in &ops {
            assert!(
                !op.endpoints.is_empty() && !op.doc.trim().is_empty(),
                "{}",
                op.name
            );
            let same = ops
                .iter()
                .filter(|o| o.name == op.name && o.scope == op.scope)
                .count();
            assert_eq!(same, 1, "{} is declared twice", op.name);
        }
    }

    #[test]
    fn a_builder_checks_its_argument_and_picks_its_read_back() {
        let main = Ident::from("Main");
        let c = layer::set_opacity(&main, 0.5, true).unwrap();
        assert_eq!(c.call.request.path, "/opacity/layer/Main");
        assert!(matches!(c.expect, Some(Expect::Opacity { value, .. }) if value == 0.5));
        assert!(layer::set_opacity(&main, 0.5, false)
            .unwrap()
            .expect
            .is_none());
        let e = layer::set_opacity(&main, 1.5, false).err().unwrap();
        assert!(e.to_string().starts_with("value: "), "{e}");
        let ws = both::mute(None, true).unwrap();
        assert_eq!(ws.call.request.path, "/mute/workspace");
        assert!(matches!(
            ws.expect,
            Some(Expect::Flag {
                layer: None,
                flag: Flag::Muted,
                value: true
            })
        ));
        assert_eq!(
            both::mute(Some(&main), false).unwrap().call.request.path,
            "/mute/layer/Main"
        );
        let end = layer::go_to(&main, -0.0)
            .unwrap()
            .call
            .request
            .path_and_query();
        assert!(end.starts_with("/goToEnd/layer/Main"), "{end}");
    }

    #[test]
    fn a_raw_command_is_described_compared_and_hashed_by_its_request_and_read_back() {
        let params = vec![("a b".to_string(), "1".to_string())];
        let raw = Confirmable::request("/x y", Some(serde_json::json!({"v": 1})), params).unwrap();
        assert_eq!(raw.operation, crate::journal::RAW);
        assert_eq!(raw.body(), Some(serde_json::json!({"v": 1})));
        assert_eq!(raw.describe(), "Command('POST /x%20y?a%20b=1 {\"v\":1}')");
        let main = Ident::from("Main");
        let confirmed = layer::set_opacity(&main, 0.5, true).unwrap();
        let plain = layer::set_opacity(&main, 0.5, false).unwrap();
        assert!(confirmed.describe().ends_with(", confirm=True)"));
        assert!(plain == layer::set_opacity(&main, 0.5, false).unwrap());
        assert!(confirmed != plain);
        let hash = crate::json::hash_of::<Confirmable>;
        assert_eq!(
            hash(&plain),
            hash(&layer::set_opacity(&main, 0.5, false).unwrap())
        );
        assert_ne!(hash(&plain), hash(&confirmed));
        let none = Confirmable::request("/x", None, Vec::new()).unwrap();
        assert_eq!(
            (none.body(), none.describe()),
            (None, "Command('POST /x')".into())
        );
        assert!(Confirmable::request("/x", None, vec![("k".into(), "v".repeat(9000))]).is_err());
    }
}
