//! The HTTP face of the simulator: every endpoint of both API documents plus the
//! field-observed ones, under `/api/0`, mapped onto [`World`]. A command answers 200 with an
//! empty body; a refused one 400 with a line of text; an unknown path 404; a wrong method 405.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::{Json, Router};
use serde_json::Value;

use super::state::{Bad, Op, Outcome, Scope, World};
use super::Shared;

/// Largest request body read (bytes).
pub const MAX_BODY: usize = 1024 * 1024;

type Sh = Arc<Shared>;

/// What a handler gets: the decoded path parameters, the query, and the body as JSON
/// (`None` when empty; a malformed body is kept as the refusal to give when it is needed).
pub struct Call {
    ids: Vec<String>,
    query: Vec<(String, String)>,
    body: Outcome<Option<Value>>,
}

/// The decoded query pairs of a request, in order.
pub fn query_pairs(uri: &Uri) -> Vec<(String, String)> {
    uri.query()
        .map(|q| {
            url::form_urlencoded::parse(q.as_bytes())
                .into_owned()
                .collect()
        })
        .unwrap_or_default()
}

fn parse_body(headers: &HeaderMap, bytes: &[u8]) -> Outcome<Option<Value>> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    if !json {
        return Err(Bad(
            "a request body must be JSON sent with Content-Type: application/json".into(),
        ));
    }
    serde_json::from_slice(bytes)
        .map(Some)
        .map_err(|e| Bad(format!("malformed JSON body: {e}")))
}

impl<S: Send + Sync> FromRequest<S> for Call {
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let (mut parts, body) = req.into_parts();
        // Routes without parameters have none to give.
        let ids = match RawPathParams::from_request_parts(&mut parts, state).await {
            Ok(params) => params.iter().map(|(_, v)| v.to_string()).collect(),
            Err(axum::extract::rejection::RawPathParamsRejection::MissingPathParams(_)) => {
                Vec::new()
            }
            Err(e) => return Err(e.into_response()),
        };
        let query = query_pairs(&parts.uri);
        let bytes: Bytes = axum::body::to_bytes(body, MAX_BODY)
            .await
            .map_err(|_| refuse(Bad(format!("the body is larger than {MAX_BODY} bytes"))))?;
        Ok(Call {
            ids,
            query,
            body: parse_body(&parts.headers, &bytes),
        })
    }
}

impl Call {
    fn id(&self) -> &str {
        self.nth(0)
    }
    fn nth(&self, n: usize) -> &str {
        self.ids.get(n).map_or("", String::as_str)
    }

    fn body(&self) -> Outcome<&Value> {
        match &self.body {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(Bad("this endpoint needs a JSON body".into())),
            Err(e) => Err(e.clone()),
        }
    }

    /// The `value` of a {"value": ...} body; `None` for null or, when `empty_is_none`, for
    /// no body at all.
    fn value(&self, empty_is_none: bool) -> Outcome<Option<&Value>> {
        if empty_is_none && matches!(self.body, Ok(None)) {
            return Ok(None);
        }
        match self.body()?.get("value") {
            None => Err(Bad(
                "the body needs a \"value\" key: {\"value\": ...}".into()
            )),
            Some(Value::Null) => Ok(None),
            Some(v) => Ok(Some(v)),
        }
    }

    /// A {"value": "text"} or {"value": null} body.
    fn text(&self, empty_is_none: bool) -> Outcome<Option<&str>> {
        match self.value(empty_is_none)? {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(Bad("\"value\" must be a string or null".into())),
        }
    }

    /// A {"value": "text"} body.
    fn name(&self) -> Outcome<&str> {
        self.text(false)?
            .ok_or_else(|| Bad("\"value\" must be a string".into()))
    }

    fn number(&self) -> Outcome<f64> {
        match self.value(false)?.and_then(Value::as_f64) {
            Some(v) if v.is_finite() => Ok(v),
            _ => Err(Bad("\"value\" must be a number".into())),
        }
    }

    fn query(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A boolean query parameter: true/1 or false/0.
    fn flag(&self, key: &str, default: bool) -> Outcome<bool> {
        match self.query(key) {
            None => Ok(default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(other) => Err(Bad(format!(
                "query {key}: expected true, 1, false or 0, got {other:?}"
            ))),
        }
    }

    /// A number of seconds in the query (0 when absent).
    fn seconds(&self, key: &str) -> Outcome<f64> {
        match self.query(key) {
            None => Ok(0.0),
            Some(s) => match s.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                _ => Err(Bad(format!(
                    "query {key}: expected a number of seconds, 0 or more, got {s:?}"
                ))),
            },
        }
    }

    /// The transition named by a POST /transition body: {"transition": {uuid|name}} or
    /// {"value": uuid|name|null}.
    fn transition(&self) -> Outcome<Option<&str>> {
        let body = self.body()?;
        match body.get("transition") {
            Some(Value::Null) => Ok(None),
            Some(t) => t
                .get("uuid")
                .or_else(|| t.get("name"))
                .and_then(Value::as_str)
                .map(Some)
                .ok_or_else(|| Bad("\"transition\" needs a \"uuid\" or \"name\" string".into())),
            None => self.text(false),
        }
    }
}

fn refuse(bad: Bad) -> Response {
    (StatusCode::BAD_REQUEST, bad.0).into_response()
}

fn reply(shared: &Shared, f: impl FnOnce(&mut World) -> Outcome<Option<Value>>) -> Response {
    match f(&mut shared.world()) {
        Ok(Some(v)) => Json(v).into_response(),
        Ok(None) => StatusCode::OK.into_response(),
        Err(bad) => refuse(bad),
    }
}

/// A GET endpoint.
fn read(f: fn(&World, &Call) -> Outcome<Value>) -> MethodRouter<Sh> {
    get(
        move |State(sh): State<Sh>, call: Call| async move { reply(&sh, |w| f(w, &call).map(Some)) },
    )
}

/// A POST endpoint: 200 with an empty body once applied.
fn command(f: fn(&mut World, &Call) -> Outcome<()>) -> MethodRouter<Sh> {
    post(move |State(sh): State<Sh>, call: Call| async move {
        reply(&sh, |w| f(w, &call).map(|()| None))
    })
}

/// Workspace routes have no path parameter; layer routes have exactly one.
fn scope_of(c: &Call) -> Scope<'_> {
    if c.ids.is_empty() {
        Scope::Workspace
    } else {
        Scope::Layer(c.id())
    }
}

/// The routes of effects, effect presets, transitions and durations under `/…/{suffix}`: the
/// workspace and a layer take the same bodies.
fn scoped(api: Router<Sh>, suffix: &str) -> Router<Sh> {
    let at = |path: &str| format!("{path}/{suffix}");
    api.route(
        &at("/effects"),
        read(|w, c| w.scope_effects_json(scope_of(c)))
            .merge(command(|w, c| w.set_effect(scope_of(c), c.body()?))),
    )
    .route(
        &at("/effectsPreset"),
        read(|w, c| w.scope_effect_preset_json(scope_of(c))).merge(command(|w, c| {
            w.set_effect_preset(scope_of(c), c.text(false)?)
        })),
    )
    .route(
        &at("/transition"),
        read(|w, c| w.scope_transition_json(scope_of(c))).merge(command(|w, c| {
            w.set_transition(scope_of(c), c.transition()?)
        })),
    )
    .route(
        &at("/transitionDuration"),
        read(|w, c| w.scope_duration_json(scope_of(c))).merge(command(|w, c| {
            w.set_transition_duration(scope_of(c), c.number()?)
        })),
    )
}

/// The router of both applications.
pub fn router(shared: Sh) -> Router {
    let mut api: Router<Sh> = Router::new()
        // Data
        .route("/data/playlists", read(|w, _| Ok(w.playlists_json())))
        .route(
            "/data/playlist/{id}",
            read(|w, c| w.playlist_by_id_json(c.id())),
        )
        .route(
            "/data/playlist/{p}/cue/{c}",
            read(|w, c| w.cue_json(c.nth(0), c.nth(1))),
        )
        .route("/data/layers", read(|w, _| Ok(w.layers_json())))
        .route("/data/layer/{id}", read(|w, c| w.layer_json(c.id())))
        .route("/data/scores", read(|w, _| Ok(w.scores_json())))
        // Select and trigger
        .route(
            "/select/layer/{id}",
            command(|w, c| w.select_layer(c.id(), c.flag("target", false)?)),
        )
        .route(
            "/select/playlist/{id}",
            command(|w, c| w.select_playlist(c.id())),
        )
        .route("/trigger/cue/{id}", command(|w, c| w.trigger_cue(c.id())))
        .route(
            "/trigger/playlist/{id}",
            command(|w, c| w.trigger_playlist(c.id())),
        )
        .route(
            "/trigger/playlist/{p}/cue/{c}",
            command(|w, c| w.trigger_playlist_cue(None, c.nth(0), c.nth(1))),
        )
        .route(
            "/trigger/layer/{l}/playlist/{p}/cue/{c}",
            command(|w, c| w.trigger_playlist_cue(Some(c.nth(0)), c.nth(1), c.nth(2))),
        )
        // Field-observed transport commands
        .route(
            "/goToStart/layer/{id}",
            command(|w, c| {
                let offset = c.seconds("offset")?;
                w.seek(c.id(), |_, _| offset)
            }),
        )
        .route(
            "/goToEnd/layer/{id}",
            command(|w, c| {
                let offset = c.seconds("offset")?;
                w.seek(c.id(), |_, end| end - offset)
            }),
        )
        .route(
            "/skip/layer/{id}",
            command(|w, c| {
                let offset = c.seconds("offset")?;
                let sign = if c.flag("forwards", true)? { 1.0 } else { -1.0 };
                w.seek(c.id(), |now, _| now + sign * offset)
            }),
        )
        // Layer properties
        .route(
            "/opacity/layer/{id}",
            read(|w, c| w.opacity_json(c.id()))
                .merge(command(|w, c| w.set_opacity(c.id(), c.number()?))),
        )
        .route("/blendMode", read(|w, _| Ok(w.blend_modes_json())))
        .route(
            "/blendMode/layer/{id}",
            read(|w, c| w.layer_blend_mode_json(c.id()))
                .merge(command(|w, c| w.set_blend_mode(c.id(), c.name()?))),
        )
        .route("/layerPreset", read(|w, _| Ok(w.layer_presets_json())))
        .route(
            "/layerPreset/layer/{id}",
            read(|w, c| w.layer_presets_of_json(c.id()))
                .merge(command(|w, c| w.apply_layer_preset(c.id(), c.name()?))),
        )
        .route("/targetSet", read(|w, _| Ok(w.target_sets_json())))
        .route(
            "/targetSet/layer/{id}",
            read(|w, c| w.layer_target_set_json(c.id()))
                .merge(command(|w, c| w.set_target_set(c.id(), c.text(true)?))),
        )
        .route("/effects", read(|w, _| Ok(w.effects_json())))
        .route("/effectsPreset", read(|w, _| Ok(w.effect_presets_json())))
        .route("/transition", read(|w, _| Ok(w.transitions_json())))
        .route(
            "/transportState/workspace",
            read(|w, _| w.transport_json(Scope::Workspace)),
        )
        .route(
            "/transportState/layer/{id}",
            read(|w, c| w.transport_json(Scope::Layer(c.id()))),
        );
    // /blend/layer misbehaved in 3.3.1; the field uses /layerBlend/layer with the same body.
    for path in ["/blend/layer/{id}", "/layerBlend/layer/{id}"] {
        api = api.route(
            path,
            read(|w, c| w.blend_json(c.id())).merge(command(|w, c| w.set_blend(c.id(), c.body()?))),
        );
    }
    api = scoped(api, "workspace");
    api = scoped(api, "layer/{id}");
    for op in Op::ALL {
        api = api
            .route(
                &format!("/{}/workspace", op.path()),
                post(move |State(sh): State<Sh>| async move {
                    reply(&sh, |w| {
                        w.workspace_op(op);
                        Ok(None)
                    })
                }),
            )
            .route(
                &format!("/{}/layer/{{id}}", op.path()),
                post(move |State(sh): State<Sh>, call: Call| async move {
                    reply(&sh, |w| w.layer_op(call.id(), op).map(|()| None))
                }),
            );
    }
    let api = api.method_not_allowed_fallback(|method: Method, uri: Uri| async move {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{} does not accept {method}", uri.path()),
        )
    });
    Router::new()
        .nest("/api/0", api)
        .fallback(|method: Method, uri: Uri| async move {
            (
                StatusCode::NOT_FOUND,
                format!("no endpoint {method} {}", uri.path()),
            )
        })
        .with_state(shared)
}
