//! The HTTP face of the simulator: every endpoint of both API documents plus the
//! field-observed ones, under `/api/0`, mapped onto [`World`]. A command answers 200 with an
//! empty body; a refused one 400 with a line of text; an unknown path 404; a wrong method 405.
//!
//! Bodies are read as leniently as the real application reads them: no `Content-Type`, a body
//! that is not JSON (the text `[object Object]`), no body or `{}` are all accepted, and a
//! body that is not a value acts like no body. What breaks the documents is reported as a
//! warning (see [`super::Shared::report`]); in strict mode it is refused with 400 instead.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use serde_json::Value;

use super::state::{Bad, Chosen, Given, Op, Outcome, Scope, World};
use super::Shared;

/// Largest request body read (bytes).
pub const MAX_BODY: usize = 1024 * 1024;

type Sh = Arc<Shared>;

/// A request body as the application reads it.
enum Body {
    /// No body (or only white space).
    Empty,
    Json(Value),
    /// Not JSON (such as the text `[object Object]`): taken as no body.
    NotJson,
}

/// What a handler gets: the decoded path parameters, the query, the body, and the warnings
/// gathered so far (a request the application accepts but that breaks the documents).
pub struct Incoming {
    ids: Vec<String>,
    query: Vec<(String, String)>,
    body: Body,
    strict: bool,
    /// `METHOD /path`, the start of each warning.
    what: String,
    warnings: Mutex<Vec<String>>,
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

/// Characters of a path that should have been percent-encoded (anything but RFC 3986
/// unreserved characters, `/` and `%`).
fn unencoded(path: &str) -> String {
    let mut seen = String::new();
    for c in path.chars() {
        let fine = c.is_ascii_alphanumeric() || "-._~/%".contains(c);
        if !fine && !seen.contains(c) {
            seen.push(c);
        }
    }
    seen
}

fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned();
    if bytes.len() > 40 {
        format!("{text:?}…")
    } else {
        format!("{text:?}")
    }
}

fn parse_body(headers: &HeaderMap, bytes: &[u8], warn: &mut Vec<String>) -> Body {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Body::Empty;
    }
    let json_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    if !json_type {
        let sent = headers
            .get(header::CONTENT_TYPE)
            .map_or("no Content-Type".to_string(), |v| {
                format!("Content-Type {:?}", String::from_utf8_lossy(v.as_bytes()))
            });
        warn.push(format!(
            "the body was sent with {sent}; the document asks for Content-Type: application/json"
        ));
    }
    match serde_json::from_slice(bytes) {
        Ok(v) => Body::Json(v),
        Err(_) => {
            warn.push(format!(
                "the body {} is not JSON; the application takes it as no body",
                preview(bytes)
            ));
            Body::NotJson
        }
    }
}

impl FromRequest<Sh> for Incoming {
    type Rejection = Response;

    async fn from_request(req: Request, state: &Sh) -> Result<Self, Self::Rejection> {
        let (mut parts, body) = req.into_parts();
        // Routes without parameters have none to give.
        let ids = match RawPathParams::from_request_parts(&mut parts, state).await {
            Ok(params) => params.iter().map(|(_, v)| v.to_string()).collect(),
            Err(axum::extract::rejection::RawPathParamsRejection::MissingPathParams(_)) => {
                Vec::new()
            }
            Err(e) => return Err(e.into_response()),
        };
        let mut warnings = Vec::new();
        // Every route is nested under /api/0, which the nest cut from the URI.
        let path = format!("/api/0{}", parts.uri.path());
        let odd = unencoded(&path);
        if !odd.is_empty() {
            warnings.push(format!(
                "the path carries {odd:?} unencoded; names should be percent-encoded"
            ));
        }
        let query = query_pairs(&parts.uri);
        let bytes: Bytes = axum::body::to_bytes(body, MAX_BODY)
            .await
            .map_err(|_| refuse(Bad(format!("the body is larger than {MAX_BODY} bytes"))))?;
        let body = if parts.method == Method::GET {
            Body::Empty
        } else {
            parse_body(&parts.headers, &bytes, &mut warnings)
        };
        let what = format!("{} {path}", parts.method);
        let warnings = warnings
            .into_iter()
            .map(|w| format!("{what}: {w}"))
            .collect();
        Ok(Incoming {
            ids,
            query,
            body,
            strict: state.strict,
            what,
            warnings: Mutex::new(warnings),
        })
    }
}

impl Incoming {
    fn id(&self) -> &str {
        self.nth(0)
    }
    fn nth(&self, n: usize) -> &str {
        self.ids.get(n).map_or("", String::as_str)
    }

    /// Note a request the application accepts but that breaks the documents: refused in
    /// strict mode.
    fn warn(&self, msg: impl Into<String>) -> Outcome<()> {
        let msg = format!("{}: {}", self.what, msg.into());
        super::lock(&self.warnings).push(msg.clone());
        if self.strict {
            Err(Bad(format!("strict mode: {msg}")))
        } else {
            Ok(())
        }
    }

    /// The warnings of the request so far (taken out).
    fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *super::lock(&self.warnings))
    }

    /// In strict mode, the warnings gathered while reading the request refuse it.
    fn strict_check(&self) -> Outcome<()> {
        let warnings = super::lock(&self.warnings);
        if self.strict && !warnings.is_empty() {
            return Err(Bad(format!("strict mode: {}", warnings.join("; "))));
        }
        Ok(())
    }

    fn has_body(&self) -> bool {
        !matches!(self.body, Body::Empty)
    }

    /// The `value` of a {"value": ...} body, `None` for no usable body: no body, a body that
    /// is not JSON, `{}` or JSON that is not an object (no body is documented only where
    /// `no_body_documented`). An object with other keys but no `value` is refused, as in the
    /// field.
    fn value(&self, no_body_documented: bool) -> Outcome<Option<&Value>> {
        let v = match &self.body {
            Body::Empty if no_body_documented => return Ok(None),
            Body::Empty => {
                self.warn(
                    "no body; the document expects {\"value\": ...} (the application changes \
                     nothing)",
                )?;
                return Ok(None);
            }
            Body::NotJson => return Ok(None),
            Body::Json(v) => v,
        };
        match v.get("value") {
            None if v.as_object().is_some_and(|m| !m.is_empty()) => {
                let keys: Vec<&String> = v.as_object().into_iter().flat_map(|m| m.keys()).collect();
                let more = if keys.len() > 5 { ", …" } else { "" };
                Err(Bad(format!(
                    "the body has no \"value\" key (it has {:?}{more}); send {{\"value\": ...}}",
                    &keys[..keys.len().min(5)]
                )))
            }
            None => {
                self.warn(
                    "the body has no \"value\" key; the document expects {\"value\": ...} (the \
                     application changes nothing)",
                )?;
                Ok(None)
            }
            Some(value) => Ok(Some(value)),
        }
    }

    /// What a {"value": ...} body amounts to; `expected` names what the command takes, for the
    /// refusal of any other JSON type (`"value" must be {expected}, got true`).
    fn given(&self, no_body_documented: bool, expected: &str) -> Outcome<Given<'_>> {
        Ok(match self.value(no_body_documented)? {
            None => Given::Nothing,
            Some(Value::Null) => Given::Null,
            Some(Value::String(s)) => Given::Text(s),
            Some(Value::Number(n)) => Given::Number(n.as_f64().unwrap_or(f64::NAN)),
            Some(other) => return Err(must_be(expected, other)),
        })
    }

    /// A {"value": number} body; `None` changes nothing. Anything else in `value` (null, a
    /// string, true) gets the one refusal `"value" must be a number, got ...`.
    fn number(&self) -> Outcome<Option<f64>> {
        match self.value(false)? {
            None => Ok(None),
            Some(Value::Number(n)) if n.as_f64().is_some_and(f64::is_finite) => Ok(n.as_f64()),
            Some(other) => Err(must_be("a number", other)),
        }
    }

    /// A {"value": "name"} body; `None` changes nothing.
    fn name(&self) -> Outcome<Option<&str>> {
        match self.value(false)? {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(must_be("a string", other)),
        }
    }

    /// A JSON object body (`None`, with a warning, when there is none or it is empty).
    fn object(&self) -> Outcome<Option<&Value>> {
        match &self.body {
            Body::Json(v @ Value::Object(m)) if !m.is_empty() => Ok(Some(v)),
            Body::NotJson => Ok(None),
            _ => {
                self.warn(
                    "no JSON object in the body; the document expects one (the application \
                     changes nothing)",
                )?;
                Ok(None)
            }
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

    /// The transition of a POST /transition body: {"transition": {uuid|name, variables?}},
    /// {"value": uuid|name|null} or {"name": name}. The variables of a posted transition
    /// object set the transition's (#463); its `enabled` does nothing for a transition
    /// (Companion #462), so it is not read.
    fn transition(&self) -> Outcome<Chosen<'_>> {
        if let Body::Json(body) = &self.body {
            match body.get("transition") {
                Some(Value::Null) => return Ok(Chosen::by(Given::Null)),
                Some(t) => {
                    let key = t
                        .get("uuid")
                        .or_else(|| t.get("name"))
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            Bad("\"transition\" needs a \"uuid\" or \"name\" string".into())
                        })?;
                    let variables = match t.get("variables") {
                        None => None,
                        Some(Value::Array(v)) => Some(v.as_slice()),
                        Some(_) => return Err(Bad("transition.variables must be an array".into())),
                    };
                    return Ok(Chosen {
                        key: Given::Text(key),
                        variables,
                    });
                }
                None => {}
            }
            // The document's field table also lists a `name` key.
            if let (None, Some(name)) = (body.get("value"), body.get("name")) {
                return name
                    .as_str()
                    .map(|n| Chosen::by(Given::Text(n)))
                    .ok_or_else(|| Bad("\"name\" must be a string".into()));
            }
        }
        self.given(false, "a string or null").map(Chosen::by)
    }
}

/// `"value" must be {expected}, got {what was sent}`: the one refusal of a value of the wrong
/// JSON type.
fn must_be(expected: &str, got: &Value) -> Bad {
    Bad(format!("\"value\" must be {expected}, got {got}"))
}

fn refuse(bad: Bad) -> Response {
    (StatusCode::BAD_REQUEST, bad.0).into_response()
}

/// A GET endpoint.
fn read(f: fn(&World, &Incoming) -> Outcome<Value>) -> MethodRouter<Sh> {
    get(move |State(sh): State<Sh>, call: Incoming| async move {
        sh.apply_due();
        let response = match call.strict_check() {
            Err(bad) => refuse(bad),
            Ok(()) => match f(&sh.world(), &call) {
                Ok(v) => super::wire::answer(&v, sh.read_content_type.as_ref()),
                Err(bad) => refuse(bad),
            },
        };
        sh.report(call.take_warnings());
        response
    })
}

/// A POST endpoint: 200 with an empty body once accepted; the change is applied at once, or
/// `apply_delay` later. `takes_body` is false for the commands the document gives no body.
fn command<F>(takes_body: bool, f: F) -> MethodRouter<Sh>
where
    F: Fn(&mut World, &Incoming) -> Outcome<()> + Clone + Send + Sync + 'static,
{
    post(move |State(sh): State<Sh>, call: Incoming| async move {
        let pre = if !takes_body && call.has_body() {
            call.warn("this endpoint takes no body (the application ignores it)")
        } else {
            Ok(())
        };
        let (response, warnings) = match pre.and_then(|()| call.strict_check()) {
            Err(bad) => (refuse(bad), call.take_warnings()),
            Ok(()) => match sh.command(call, f) {
                Ok(w) => (StatusCode::OK.into_response(), w),
                Err((bad, w)) => (refuse(bad), w),
            },
        };
        sh.report(warnings);
        response
    })
}

/// What `Shared::command` gives back: the warnings of the request.
pub type Warnings = Vec<String>;

impl Shared {
    /// Run a command: validate and apply it now, or validate it on a copy of the state and
    /// apply it `apply_delay` later (the answer does not wait).
    fn command<F>(self: &Arc<Self>, call: Incoming, f: F) -> Result<Warnings, (Bad, Warnings)>
    where
        F: Fn(&mut World, &Incoming) -> Outcome<()> + Send + Sync + 'static,
    {
        self.apply_due();
        let outcome = if self.apply_delay.is_zero() {
            f(&mut self.world(), &call)
        } else {
            let mut probe = self.world().clone();
            f(&mut probe, &call)
        };
        let warnings = call.take_warnings();
        match outcome {
            Err(bad) => Err((bad, warnings)),
            Ok(()) => {
                if !self.apply_delay.is_zero() {
                    self.defer(Box::new(move |w: &mut World| {
                        // The state may have moved since: a refusal now changes nothing.
                        let _ = f(w, &call);
                    }));
                }
                Ok(warnings)
            }
        }
    }
}

/// Workspace routes have no path parameter; layer routes have exactly one.
fn scope_of(c: &Incoming) -> Scope<'_> {
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
            .merge(command(true, |w, c| w.set_effect(scope_of(c), c.object()?))),
    )
    .route(
        &at("/effectsPreset"),
        read(|w, c| w.scope_effect_preset_json(scope_of(c))).merge(command(true, |w, c| {
            w.set_effect_preset(scope_of(c), c.given(false, "a string or null")?)
        })),
    )
    .route(
        &at("/transition"),
        read(|w, c| w.scope_transition_json(scope_of(c))).merge(command(true, |w, c| {
            let chosen = c.transition()?;
            if chosen.key == Given::Null && scope_of(c) == Scope::Workspace {
                // The document allows null only for a layer (it then uses the master
                // transition); the workspace's transition is what transport-state layers
                // report, and they always carry one.
                return c.warn(
                    "null is documented only for a layer's transition (the layer then uses \
                     the master transition); the workspace keeps its transition",
                );
            }
            w.set_transition(scope_of(c), chosen)
        })),
    )
    .route(
        &at("/transitionDuration"),
        read(|w, c| w.scope_duration_json(scope_of(c))).merge(command(true, |w, c| {
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
            command(false, |w, c| {
                w.select_layer(c.id(), c.flag("target", false)?)
            }),
        )
        .route(
            "/select/playlist/{id}",
            command(false, |w, c| w.select_playlist(c.id())),
        )
        .route(
            "/trigger/cue/{id}",
            command(false, |w, c| w.trigger_cue(c.id())),
        )
        .route(
            "/trigger/playlist/{id}",
            command(false, |w, c| w.trigger_playlist(c.id())),
        )
        .route(
            "/trigger/playlist/{p}/cue/{c}",
            command(false, |w, c| {
                w.trigger_playlist_cue(None, c.nth(0), c.nth(1))
            }),
        )
        .route(
            "/trigger/layer/{l}/playlist/{p}/cue/{c}",
            command(false, |w, c| {
                w.trigger_playlist_cue(Some(c.nth(0)), c.nth(1), c.nth(2))
            }),
        )
        // Field-observed transport commands
        .route(
            "/goToStart/layer/{id}",
            command(false, |w, c| {
                let offset = c.seconds("offset")?;
                w.seek(c.id(), |_, _| offset)
            }),
        )
        .route(
            "/goToEnd/layer/{id}",
            command(false, |w, c| {
                let offset = c.seconds("offset")?;
                w.seek(c.id(), |_, end| end - offset)
            }),
        )
        .route(
            "/skip/layer/{id}",
            command(false, |w, c| {
                let offset = c.seconds("offset")?;
                let sign = if c.flag("forwards", true)? { 1.0 } else { -1.0 };
                w.seek(c.id(), |now, _| now + sign * offset)
            }),
        )
        // Layer properties
        .route(
            "/opacity/layer/{id}",
            read(|w, c| w.opacity_json(c.id()))
                .merge(command(true, |w, c| w.set_opacity(c.id(), c.number()?))),
        )
        .route("/blendMode", read(|w, _| Ok(w.blend_modes_json())))
        .route(
            "/blendMode/layer/{id}",
            read(|w, c| w.layer_blend_mode_json(c.id()))
                .merge(command(true, |w, c| w.set_blend_mode(c.id(), c.name()?))),
        )
        .route("/layerPreset", read(|w, _| Ok(w.layer_presets_json())))
        .route(
            "/layerPreset/layer/{id}",
            read(|w, c| w.layer_presets_of_json(c.id())).merge(command(true, |w, c| {
                w.apply_layer_preset(c.id(), c.name()?)
            })),
        )
        .route("/targetSet", read(|w, _| Ok(w.target_sets_json())))
        .route(
            "/targetSet/layer/{id}",
            read(|w, c| w.layer_target_set_json(c.id())).merge(command(true, |w, c| {
                let given = c.given(true, "a string (a target set's name) or null")?;
                let (set, index) = w.target_set_of(given)?;
                if index {
                    c.warn(
                        "a target set cannot be addressed by index (the application ends at \
                         \"No Selection\"); send its name",
                    )?;
                }
                w.set_target_set(c.id(), set)
            })),
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
    // /blend/layer misbehaved in 3.3.1 and 3.8/3.9 have no such route; the field uses
    // /layerBlend/layer with the same body. `blend_route` serves it as older versions did.
    let blend_paths: &[&str] = if shared.blend_route {
        &["/blend/layer/{id}", "/layerBlend/layer/{id}"]
    } else {
        &["/layerBlend/layer/{id}"]
    };
    for path in blend_paths {
        api = api.route(
            path,
            read(|w, c| w.blend_json(c.id()))
                .merge(command(true, |w, c| w.set_blend(c.id(), c.object()?))),
        );
    }
    api = scoped(api, "workspace");
    api = scoped(api, "layer/{id}");
    for op in Op::ALL {
        api = api
            .route(
                &format!("/{}/workspace", op.path()),
                command(false, move |w, _| {
                    w.workspace_op(op);
                    Ok(())
                }),
            )
            .route(
                &format!("/{}/layer/{{id}}", op.path()),
                command(false, move |w, c| w.layer_op(c.id(), op)),
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
