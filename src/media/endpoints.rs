//! The endpoint table of the media API: each request is declared once, with its method, path
//! template, body form (the encoder, which also validates the argument) and reply decoder.
//! The Python methods, sync and async alike, only pick an entry and hand over the arguments.
//!
//! Path templates name their identifiers as `{kind:arg}`: the kind decides the identifier
//! rule (layer, cue, playlist), `arg` is the argument named in a refusal.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::models::*;
use crate::error::{Error, Result};
use crate::ident::{Ident, Kind};
use crate::score::json_kind;
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

/// Reply caps: far above the largest reply of each shape seen or imaginable, far below the
/// default `max_body` (64 MiB), so a runaway reply costs at most this much memory.
/// A number (`{"value": 0.5}`).
pub const NUMBER_REPLY: usize = 64 * 1024;
/// One object (a layer's state, blend, target set, preset, transition, transport state).
pub const OBJECT_REPLY: usize = 1024 * 1024;
/// A list of small objects (blend modes, presets, target sets, effects, transitions, the
/// transport state of each layer).
pub const LIST_REPLY: usize = 16 * 1024 * 1024;

impl<A, T> Endpoint<A, T> {
    /// This endpoint with its replies capped at `max` bytes.
    const fn capped(self, max: usize) -> Self {
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

// ---------------------------------------------------------------------------------------------
// Argument checks and body forms (writing is strict: one form each)
// ---------------------------------------------------------------------------------------------

/// A finite number from `lo` to `hi`, or a refusal naming `arg` and the range.
pub fn number_in(value: f64, arg: &str, lo: f64, hi: f64) -> Result<f64> {
    if !value.is_finite() || value < lo || value > hi {
        return Err(Error::invalid(format!(
            "{arg}: must be a finite number from {lo} to {hi}, got {}",
            shown(value)
        )));
    }
    Ok(value)
}

/// A number for a message: `1e300`, not 301 digits.
pub fn shown(v: f64) -> String {
    if v != 0.0 && v.is_finite() && (v.abs() >= 1e16 || v.abs() < 1e-6) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// A non-empty text argument.
pub fn non_empty(value: String, arg: &str) -> Result<String> {
    if value.is_empty() {
        return Err(Error::invalid(format!("{arg}: must not be empty")));
    }
    Ok(value)
}

/// Opacity range (the application clamps silently, so the client refuses).
pub const OPACITY: (f64, f64) = (0.0, 1.0);
/// Transition duration range in seconds.
pub const TRANSITION_DURATION: (f64, f64) = (0.0, 5.0);

fn body(json: Value) -> Payload {
    Payload {
        json: Some(json),
        query: Vec::new(),
    }
}

/// No body, no query.
fn nothing(_: &str, (): ()) -> Result<Payload> {
    Ok(Payload::default())
}

/// `{"value": opacity}`.
fn opacity_body(arg: &str, v: f64) -> Result<Payload> {
    let v = number_in(v, arg, OPACITY.0, OPACITY.1)?;
    Ok(body(json!({ "value": v })))
}

/// `{"value": seconds}`.
fn duration_body(arg: &str, v: f64) -> Result<Payload> {
    let v = number_in(v, arg, TRANSITION_DURATION.0, TRANSITION_DURATION.1)?;
    Ok(body(json!({ "value": v })))
}

/// `{"value": "text"}`.
fn value_body(arg: &str, v: String) -> Result<Payload> {
    Ok(body(json!({ "value": non_empty(v, arg)? })))
}

/// `{"value": "text"}`, or no body at all for `None` (target set: no body means nil).
fn value_or_no_body(arg: &str, v: Option<String>) -> Result<Payload> {
    match v {
        Some(v) => value_body(arg, v),
        None => Ok(Payload::default()),
    }
}

/// `{"value": "text"}` or `{"value": null}`.
fn value_or_null_body(arg: &str, v: Option<String>) -> Result<Payload> {
    match v {
        Some(v) => value_body(arg, v),
        None => Ok(body(json!({ "value": null }))),
    }
}

/// The fields of an effect in `{"effect": {...}}`, per the API document.
pub const EFFECT_FIELDS: [&str; 4] = ["uuid", "name", "enabled", "variables"];

/// `{"effect": {uuid, name?, enabled?, variables?}}`; `uuid` is required.
fn effect_body(arg: &str, effect: Map<String, Value>) -> Result<Payload> {
    let refuse = |what: String| Err(Error::invalid(format!("{arg}: {what}")));
    if let Some(k) = effect.keys().find(|k| !EFFECT_FIELDS.contains(&k.as_str())) {
        return refuse(format!(
            "unknown field {k:?}; an effect has {}",
            EFFECT_FIELDS.join(", ")
        ));
    }
    match effect.get("uuid") {
        Some(Value::String(u)) if !u.is_empty() && u != "null" => {}
        _ => return refuse("needs a \"uuid\" (a non-empty string)".into()),
    }
    for (key, ok) in [
        ("name", effect.get("name").is_none_or(Value::is_string)),
        (
            "enabled",
            effect.get("enabled").is_none_or(Value::is_boolean),
        ),
        (
            "variables",
            effect
                .get("variables")
                .is_none_or(|v| v.as_array().is_some_and(|a| a.iter().all(Value::is_object))),
        ),
    ] {
        if !ok {
            return refuse(format!(
                "{key:?} must be {}",
                match key {
                    "name" => "a string",
                    "enabled" => "a boolean",
                    _ => "a list of variable objects",
                }
            ));
        }
    }
    Ok(body(json!({ "effect": effect })))
}

/// The body of an effect read from the application: its documented fields only.
pub fn effect_fields(effect: &Effect) -> Map<String, Value> {
    let mut m = Map::new();
    for key in EFFECT_FIELDS {
        if let Some(v) = effect.raw().get(key) {
            m.insert(key.to_string(), v.clone());
        }
    }
    m
}

/// A layer blend to send: the type and its base.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendSpec {
    pub r#type: String,
    pub base: Map<String, Value>,
}

impl BlendSpec {
    /// From `{"type": ..., "base": {...}}` (a dict given by the caller, or a `LayerBlend`).
    pub fn from_value(arg: &str, v: &Value) -> Result<Self> {
        let refuse = |what: &str| Error::invalid(format!("{arg}: {what}"));
        let obj = v
            .as_object()
            .ok_or_else(|| refuse("a layer blend is {\"type\": ..., \"base\": {...}}"))?;
        if let Some(k) = obj.keys().find(|k| *k != "type" && *k != "base") {
            return Err(refuse(&format!(
                "unknown field {k:?}; a layer blend has \"type\" and \"base\""
            )));
        }
        let r#type = obj
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| refuse("needs a \"type\" string"))?
            .to_string();
        let base = match obj.get("base") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(b)) => b.clone(),
            Some(other) => {
                return Err(refuse(&format!(
                    "\"base\" must be an object, got {}",
                    json_kind(other)
                )))
            }
        };
        Ok(BlendSpec { r#type, base })
    }
}

impl BlendSpec {
    /// From a layer blend read from the application: its type and the documented fields of
    /// its base (anything else it carried is left out).
    pub fn from_model(arg: &str, blend: &LayerBlend) -> Result<Self> {
        let r#type = blend
            .r#type
            .clone()
            .ok_or_else(|| Error::invalid(format!("{arg}: this LayerBlend has no type")))?;
        let documented = blend_fields(&r#type).unwrap_or(&[]);
        let base = blend
            .base
            .as_object()
            .map(|b| {
                b.iter()
                    .filter(|(k, _)| documented.iter().any(|(f, _)| f == k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(BlendSpec { r#type, base })
    }
}

/// The documented base fields of each blend type: (name, required).
fn blend_fields(kind: &str) -> Option<&'static [(&'static str, bool)]> {
    Some(match kind {
        "Standard" => &[("name", false), ("modeIndex", true), ("opacity", true)],
        "Alpha Matte" | "Luma Matte" => &[("isInverted", true)],
        "White Matte" => &[],
        _ => return None,
    })
}

/// `{"type": ..., "base": {...}}`, checked against the layer blend table of the document.
fn blend_body(arg: &str, spec: BlendSpec) -> Result<Payload> {
    let refuse = |what: String| Err(Error::invalid(format!("{arg}: {what}")));
    let Some(fields) = blend_fields(&spec.r#type) else {
        return refuse(format!(
            "type must be one of {}, got {:?}",
            BLEND_TYPES.join(", "),
            spec.r#type
        ));
    };
    for key in spec.base.keys() {
        if !fields.iter().any(|(f, _)| f == key) {
            return refuse(format!(
                "{key:?} is not a base field of {:?} (it has: {})",
                spec.r#type,
                fields
                    .iter()
                    .map(|(f, _)| *f)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    for (field, required) in fields {
        let v = spec.base.get(*field);
        let ok = match (*field, v) {
            (_, None) => !required,
            ("name", Some(v)) => v.is_string(),
            ("modeIndex", Some(v)) => v.as_u64().is_some(),
            ("opacity", Some(v)) => {
                let x = v.as_f64().unwrap_or(f64::NAN);
                number_in(x, &format!("{arg}: base opacity"), OPACITY.0, OPACITY.1)?;
                true
            }
            (_, Some(v)) => v.is_boolean(),
        };
        if !ok {
            let want = match *field {
                "name" => "a string",
                "modeIndex" => "an integer of 0 or above (the blend mode index)",
                _ => "a boolean",
            };
            return refuse(format!(
                "base field {field:?} of {:?} must be {want}{}",
                spec.r#type,
                if v.is_none() { " and is required" } else { "" }
            ));
        }
    }
    Ok(body(json!({ "type": spec.r#type, "base": spec.base })))
}

/// `?target=true|false`.
fn target_query(_: &str, target: bool) -> Result<Payload> {
    Ok(Payload {
        json: None,
        query: vec![("target".into(), target.to_string())],
    })
}

/// Seconds as sent in a query (`1.5`, `10`, `0`), to the microsecond: never hundreds of
/// digits (`1e-300` is `0`).
fn seconds_text(v: f64) -> String {
    ((v * 1e6).round() / 1e6).to_string()
}

/// The largest playhead offset or skip, in seconds (either way): a week, longer than any media
/// item; past it a number is a mistake (`1e300` would be sent as 301 digits).
pub const MAX_OFFSET_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

fn offset_seconds(v: f64, arg: &str) -> Result<f64> {
    number_in(v, arg, -MAX_OFFSET_SECONDS, MAX_OFFSET_SECONDS)
}

/// `?offset=S` with S ≥ 0.
fn offset_query(arg: &str, v: f64) -> Result<Payload> {
    let v = offset_seconds(v, arg)?.abs();
    Ok(Payload {
        json: None,
        query: vec![("offset".into(), seconds_text(v))],
    })
}

/// `?forwards=true|false&offset=|S|`: forwards for S ≥ 0.
fn skip_query(arg: &str, v: f64) -> Result<Payload> {
    let v = offset_seconds(v, arg)?;
    Ok(Payload {
        json: None,
        query: vec![
            ("forwards".into(), (v >= 0.0).to_string()),
            ("offset".into(), seconds_text(v.abs())),
        ],
    })
}

// ---------------------------------------------------------------------------------------------
// Reply decoders (reading is lenient: every documented variant)
// ---------------------------------------------------------------------------------------------

/// The JSON of a body; `None` for an empty (or blank) body.
pub fn parse(body: &[u8]) -> Result<Option<Value>, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(body)
        .map(Some)
        .map_err(|e| format!("not JSON: {e}"))
}

fn required(body: &[u8]) -> Result<Value, String> {
    parse(body)?.ok_or_else(|| "the body was empty where JSON was expected".to_string())
}

/// A command's reply: never read (the application answers an empty 200).
fn done(_: &[u8]) -> Result<(), String> {
    Ok(())
}

/// Decoded JSON, or `None` for an empty body.
pub fn json_or_none(body: &[u8]) -> Result<Option<Value>, String> {
    parse(body)
}

/// One resource under its key (`{"playlist": {...}}`) or bare; `None` when the key holds
/// null or "null", when it is missing from an object that is not the resource itself, or
/// for an empty body.
fn single<M: Model>(v: Option<Value>) -> Result<Option<M>, String> {
    let Some(v) = v else { return Ok(None) };
    let key = M::KEY.unwrap_or("");
    match v {
        Value::Null => Ok(None),
        Value::Object(mut obj) => match obj.remove(key) {
            Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s == "null" || s.is_empty() => Ok(None),
            Some(inner) => M::from_value(inner).map(Some),
            None if obj.is_empty() || obj.contains_key("data") => Ok(None),
            None => Ok(Some(M::from_raw(obj))),
        },
        other => Err(format!(
            "expected {{\"{key}\": {}}}, got {}",
            M::NAME,
            json_kind(&other)
        )),
    }
}

/// A resource that must be there.
fn one<M: Model>(body: &[u8]) -> Result<M, String> {
    single(Some(required(body)?))?.ok_or_else(|| {
        format!(
            "expected {{\"{}\": {}}}, found none",
            M::KEY.unwrap_or(""),
            M::NAME
        )
    })
}

/// A resource that can be nil (null, "null", a missing key or an empty body).
fn maybe<M: Model>(body: &[u8]) -> Result<Option<M>, String> {
    single(parse(body)?)
}

/// The array of a list reply: under `data` (or `transitions`), or the body itself.
fn array(v: Value) -> Result<Vec<Value>, String> {
    match v {
        Value::Array(a) => Ok(a),
        Value::Object(mut obj) => {
            for key in ["data", "transitions"] {
                match obj.remove(key) {
                    Some(Value::Array(a)) => return Ok(a),
                    Some(Value::Null) => return Ok(Vec::new()),
                    Some(other) => {
                        return Err(format!(
                            "\"{key}\" should be an array, got {}",
                            json_kind(&other)
                        ))
                    }
                    None => {}
                }
            }
            Err("expected {\"data\": [...]}, found no \"data\" array".into())
        }
        other => Err(format!(
            "expected {{\"data\": [...]}}, got {}",
            json_kind(&other)
        )),
    }
}

/// A list of resources, each bare or wrapped under its key.
fn list<M: Model>(body: &[u8]) -> Result<Vec<Arc<M>>, String> {
    // Items are moved out of the parsed tree, never copied: decoding holds the tree once.
    array(required(body)?)?
        .into_iter()
        .enumerate()
        .map(|(i, item)| match into_item::<M>(item) {
            Ok(obj) => Ok(Arc::new(M::from_raw(obj))),
            Err(kind) => Err(format!(
                "item {i} should be a {} object, got {kind}",
                M::NAME,
            )),
        })
        .collect()
}

/// [`unwrap_item`] taking the item: its object (bare or under the model's key), or the kind of
/// what was there instead.
fn into_item<M: Model>(item: Value) -> Result<Raw, &'static str> {
    let kind = json_kind(&item);
    let Value::Object(mut obj) = item else {
        return Err(kind);
    };
    match M::KEY.and_then(|k| obj.remove(k)) {
        Some(Value::Object(inner)) => Ok(inner),
        Some(_) => Err(kind),
        None => Ok(obj),
    }
}

fn layers(body: &[u8]) -> Result<LayerList, String> {
    list::<LayerState>(body).map(LayerList)
}

/// The transport state of one layer: one object, or an array under `data` (its first item).
fn transport_one(body: &[u8]) -> Result<TransportState, String> {
    let v = required(body)?;
    let is_list = match &v {
        Value::Array(_) => true,
        Value::Object(o) => o.contains_key("data") && !o.contains_key("transportState"),
        _ => false,
    };
    if !is_list {
        return one(body);
    }
    let mut states = array(v)?;
    if states.is_empty() {
        return Err("the transport state list was empty".into());
    }
    let first = states.swap_remove(0);
    unwrap_item::<TransportState>(&first)
        .map(|o| TransportState::from_raw(o.clone()))
        .ok_or_else(|| {
            format!(
                "expected a TransportState object, got {}",
                json_kind(&first)
            )
        })
}

/// A number under `key` (`{key: {"value": x}}`, `{key: x}`) or `{"value": x}` or bare.
fn number_under(body: &[u8], key: &str) -> Result<f64, String> {
    let v = required(body)?;
    let found = match &v {
        Value::Object(o) if o.contains_key(key) => number(o.get(key)),
        other => number(Some(other)),
    };
    found.ok_or_else(|| {
        format!("expected {{\"{key}\": {{\"value\": number}}}} or {{\"value\": number}}")
    })
}

fn opacity(body: &[u8]) -> Result<f64, String> {
    number_under(body, "opacity")
}

fn transition_duration(body: &[u8]) -> Result<f64, String> {
    number_under(body, "transitionDuration")
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

const fn get<T>(path: &'static str, decode: Decode<T>) -> Endpoint<(), T> {
    Endpoint {
        method: Method::Get,
        path,
        encode: nothing,
        decode,
        fallback: None,
        max_reply: None,
    }
}

const fn post<A>(path: &'static str, encode: Encode<A>) -> Endpoint<A, ()> {
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
const fn post0(path: &'static str) -> Endpoint<(), ()> {
    post(path, nothing)
}

// Data
pub const PLAYLISTS: Endpoint<(), Playlist> = get("/data/playlists", one);
pub const PLAYLIST: Endpoint<(), Playlist> = get("/data/playlist/{playlist:id}", one);
pub const CUE: Endpoint<(), Cue> = get(
    "/data/playlist/{playlist:playlist_id}/cue/{cue:cue_id}",
    one,
)
.capped(OBJECT_REPLY);
pub const LAYERS: Endpoint<(), LayerList> = get("/data/layers", layers);
pub const LAYER_STATE: Endpoint<(), LayerState> =
    get("/data/layer/{layer:id}", one).capped(OBJECT_REPLY);

// Clear, mute, unmute, hide, unhide
pub const CLEAR_WORKSPACE: Endpoint<(), ()> = post0("/clear/workspace");
pub const MUTE_WORKSPACE: Endpoint<(), ()> = post0("/mute/workspace");
pub const UNMUTE_WORKSPACE: Endpoint<(), ()> = post0("/unmute/workspace");
pub const HIDE_WORKSPACE: Endpoint<(), ()> = post0("/hide/workspace");
pub const UNHIDE_WORKSPACE: Endpoint<(), ()> = post0("/unhide/workspace");
pub const CLEAR_LAYER: Endpoint<(), ()> = post0("/clear/layer/{layer:id}");
pub const MUTE_LAYER: Endpoint<(), ()> = post0("/mute/layer/{layer:id}");
pub const UNMUTE_LAYER: Endpoint<(), ()> = post0("/unmute/layer/{layer:id}");
pub const HIDE_LAYER: Endpoint<(), ()> = post0("/hide/layer/{layer:id}");
pub const UNHIDE_LAYER: Endpoint<(), ()> = post0("/unhide/layer/{layer:id}");

// Select
pub const SELECT_LAYER: Endpoint<bool, ()> = post("/select/layer/{layer:id}", target_query);
pub const SELECT_PLAYLIST: Endpoint<(), ()> = post0("/select/playlist/{playlist:id}");

// Trigger
pub const TRIGGER_CUE: Endpoint<(), ()> = post0("/trigger/cue/{cue:id}");
pub const TRIGGER_PLAYLIST: Endpoint<(), ()> = post0("/trigger/playlist/{playlist:id}");
pub const TRIGGER_PLAYLIST_CUE: Endpoint<(), ()> =
    post0("/trigger/playlist/{playlist:playlist_id}/cue/{cue:cue_id}");
pub const TRIGGER_LAYER: Endpoint<(), ()> =
    post0("/trigger/layer/{layer:id}/playlist/{playlist:playlist_id}/cue/{cue:cue_id}");

// Opacity
pub const LAYER_OPACITY: Endpoint<(), f64> =
    get("/opacity/layer/{layer:id}", opacity).capped(NUMBER_REPLY);
pub const SET_LAYER_OPACITY: Endpoint<f64, ()> = post("/opacity/layer/{layer:id}", opacity_body);

// Blend mode
pub const BLEND_MODES: Endpoint<(), Vec<Arc<BlendMode>>> =
    get("/blendMode", list).capped(LIST_REPLY);
pub const LAYER_BLEND_MODE: Endpoint<(), BlendMode> =
    get("/blendMode/layer/{layer:id}", one).capped(OBJECT_REPLY);
pub const SET_LAYER_BLEND_MODE: Endpoint<String, ()> =
    post("/blendMode/layer/{layer:id}", value_body);

// Layer blend (`/layerBlend/layer/{id}` in the field where `/blend` misbehaves)
pub const LAYER_BLEND: Endpoint<(), LayerBlend> = Endpoint {
    fallback: Some("/layerBlend/layer/{layer:id}"),
    ..get("/blend/layer/{layer:id}", one).capped(OBJECT_REPLY)
};
pub const SET_LAYER_BLEND: Endpoint<BlendSpec, ()> = Endpoint {
    fallback: Some("/layerBlend/layer/{layer:id}"),
    ..post("/blend/layer/{layer:id}", blend_body)
};

// Layer preset
pub const LAYER_PRESETS: Endpoint<(), Vec<Arc<LayerPreset>>> =
    get("/layerPreset", list).capped(LIST_REPLY);
pub const LAYER_LAYER_PRESETS: Endpoint<(), Vec<Arc<LayerPreset>>> =
    get("/layerPreset/layer/{layer:id}", list).capped(LIST_REPLY);
pub const APPLY_LAYER_PRESET: Endpoint<String, ()> =
    post("/layerPreset/layer/{layer:id}", value_body);

// Target set
pub const TARGET_SETS: Endpoint<(), Vec<Arc<TargetSet>>> =
    get("/targetSet", list).capped(LIST_REPLY);
pub const LAYER_TARGET_SET: Endpoint<(), Option<TargetSet>> =
    get("/targetSet/layer/{layer:id}", maybe).capped(OBJECT_REPLY);
pub const SET_LAYER_TARGET_SET: Endpoint<Option<String>, ()> =
    post("/targetSet/layer/{layer:id}", value_or_no_body);

// Effects
pub const EFFECTS: Endpoint<(), Vec<Arc<Effect>>> = get("/effects", list).capped(LIST_REPLY);
pub const WORKSPACE_EFFECTS: Endpoint<(), Vec<Arc<Effect>>> =
    get("/effects/workspace", list).capped(LIST_REPLY);
pub const SET_WORKSPACE_EFFECT: Endpoint<Map<String, Value>, ()> =
    post("/effects/workspace", effect_body);
pub const LAYER_EFFECTS: Endpoint<(), Vec<Arc<Effect>>> =
    get("/effects/layer/{layer:id}", list).capped(LIST_REPLY);
pub const SET_LAYER_EFFECT: Endpoint<Map<String, Value>, ()> =
    post("/effects/layer/{layer:id}", effect_body);

// Effects preset
pub const EFFECT_PRESETS: Endpoint<(), Vec<Arc<EffectPreset>>> =
    get("/effectsPreset", list).capped(LIST_REPLY);
pub const WORKSPACE_EFFECT_PRESET: Endpoint<(), Option<EffectPreset>> =
    get("/effectsPreset/workspace", maybe).capped(OBJECT_REPLY);
pub const SET_WORKSPACE_EFFECT_PRESET: Endpoint<Option<String>, ()> =
    post("/effectsPreset/workspace", value_or_null_body);
pub const LAYER_EFFECT_PRESET: Endpoint<(), Option<EffectPreset>> =
    get("/effectsPreset/layer/{layer:id}", maybe).capped(OBJECT_REPLY);
pub const SET_LAYER_EFFECT_PRESET: Endpoint<Option<String>, ()> =
    post("/effectsPreset/layer/{layer:id}", value_or_null_body);

// Transition (sent as `{"value": uuid}`; `{"value": null}` returns a layer to the master)
pub const TRANSITIONS: Endpoint<(), Vec<Arc<Transition>>> =
    get("/transition", list).capped(LIST_REPLY);
pub const WORKSPACE_TRANSITION: Endpoint<(), Option<Transition>> =
    get("/transition/workspace", maybe).capped(OBJECT_REPLY);
pub const SET_WORKSPACE_TRANSITION: Endpoint<String, ()> =
    post("/transition/workspace", value_body);
pub const LAYER_TRANSITION: Endpoint<(), Option<Transition>> =
    get("/transition/layer/{layer:id}", maybe).capped(OBJECT_REPLY);
pub const SET_LAYER_TRANSITION: Endpoint<Option<String>, ()> =
    post("/transition/layer/{layer:id}", value_or_null_body);

// Transition duration
pub const WORKSPACE_TRANSITION_DURATION: Endpoint<(), f64> =
    get("/transitionDuration/workspace", transition_duration).capped(NUMBER_REPLY);
pub const SET_WORKSPACE_TRANSITION_DURATION: Endpoint<f64, ()> =
    post("/transitionDuration/workspace", duration_body);
pub const LAYER_TRANSITION_DURATION: Endpoint<(), f64> =
    get("/transitionDuration/layer/{layer:id}", transition_duration).capped(NUMBER_REPLY);
pub const SET_LAYER_TRANSITION_DURATION: Endpoint<f64, ()> =
    post("/transitionDuration/layer/{layer:id}", duration_body);

// Transport state
pub const TRANSPORT_STATES: Endpoint<(), Vec<Arc<TransportState>>> =
    get("/transportState/workspace", list).capped(LIST_REPLY);
pub const LAYER_TRANSPORT_STATE: Endpoint<(), TransportState> =
    get("/transportState/layer/{layer:id}", transport_one).capped(OBJECT_REPLY);

// Observed in the field (3.3+), not in the API document.
pub const PLAY_WORKSPACE: Endpoint<(), ()> = post0("/play/workspace");
pub const PAUSE_WORKSPACE: Endpoint<(), ()> = post0("/pause/workspace");
pub const PLAY_LAYER: Endpoint<(), ()> = post0("/play/layer/{layer:id}");
pub const PAUSE_LAYER: Endpoint<(), ()> = post0("/pause/layer/{layer:id}");
pub const GO_TO_START: Endpoint<f64, ()> = post("/goToStart/layer/{layer:id}", offset_query);
pub const GO_TO_END: Endpoint<f64, ()> = post("/goToEnd/layer/{layer:id}", offset_query);
pub const SKIP: Endpoint<f64, ()> = post("/skip/layer/{layer:id}", skip_query);

/// Move the playhead of a layer: `seconds` ≥ 0 from the start (`/goToStart?offset=S`),
/// below 0 from the end (`/goToEnd?offset=|S|`); `-0.0` is the very end.
pub fn go_to(layer: &Ident, seconds: f64) -> Result<Call<()>> {
    let seconds = offset_seconds(seconds, "seconds")?;
    let endpoint = if seconds.is_sign_negative() {
        GO_TO_END
    } else {
        GO_TO_START
    };
    endpoint.with(&[layer], "seconds", seconds)
}

/// Any request, for what the table does not cover: `path` is relative to `/api/0`; the
/// reply is decoded JSON, or `None` for an empty body.
pub fn raw(
    method: &str,
    path: &str,
    json: Option<Value>,
    params: Vec<(String, String)>,
) -> Result<Call<Option<Value>>> {
    let method = Method::parse(method)?;
    let path = raw_path(path)?;
    let max = crate::ident::MAX_RAW;
    if path.len() > max {
        return Err(Error::invalid(format!(
            "path: at most {max} bytes once encoded, got {}",
            path.len()
        )));
    }
    for (k, v) in &params {
        let len = crate::ident::encode_segment(k).len() + crate::ident::encode_segment(v).len();
        if len > max {
            return Err(Error::invalid(format!(
                "params[{:?}]: at most {max} bytes once encoded, got {len}",
                crate::error::capped(k, 64, "bytes")
            )));
        }
    }
    Ok(Call {
        request: Request {
            method,
            path,
            query: params,
            body: json.map(|v| serde_json::to_vec(&v).expect("a JSON value always serializes")),
            max_reply: None,
        },
        fallback: None,
        decode: json_or_none,
    })
}

/// Characters kept as they are in a raw path: RFC 3986 pchar plus `/` and `%` (so an already
/// encoded path passes through); everything else is percent-encoded.
const RAW_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b':')
    .remove(b'@')
    .remove(b'/')
    .remove(b'%');

fn raw_path(path: &str) -> Result<String> {
    let refuse = |what: &str| Err(Error::invalid(format!("path: {what}, got {path:?}")));
    let trimmed = path.trim_start_matches('/');
    if trimmed.is_empty() {
        return refuse("must name an endpoint below /api/0, such as \"/data/layers\"");
    }
    if path.contains("://") {
        return refuse("is relative to the client's URL and /api/0, not a full URL");
    }
    if path.chars().any(char::is_control) {
        return refuse("contains a control character");
    }
    if path.contains(['?', '#']) {
        return refuse("must not carry a query or fragment; pass params={...}");
    }
    // Also encoded (`%2e%2e`, `..%2F`): a server may decode before it resolves the path.
    let dots = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .split(['/', '\\'])
            .any(|part| part == "." || part == "..")
    };
    if trimmed.split('/').any(dots) {
        return refuse("must not contain \".\" or \"..\" segments");
    }
    // A `%` that does not start an escape is a literal percent sign ("100%").
    let mut escaped = String::with_capacity(trimmed.len());
    for (i, c) in trimmed.char_indices() {
        let hex = trimmed.as_bytes().get(i + 1..i + 3);
        if c == '%' && !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
            escaped.push_str("%25");
        } else {
            escaped.push(c);
        }
    }
    Ok(format!(
        "/{}",
        percent_encoding::utf8_percent_encode(&escaped, RAW_PATH)
    ))
}

#[cfg(test)]
mod tests;
