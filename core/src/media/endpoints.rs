//! The wire side of the media API: the body forms (encoders, which also validate the argument),
//! the reply decoders and the requests the table does not cover ([`raw`]); the operation table
//! ([`super::table`]) declares its endpoint constants with them (`table::consts`). Reading is
//! lenient (every documented and field variant); writing is strict.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::models::*;
use crate::error::{Error, Result};
use crate::json::json_kind;
pub use crate::operation::*;
use crate::transport::{Method, Request};

/// Reply caps: far above the largest reply of each shape seen or imaginable, far below the
/// default `max_body` (64 MiB), so a runaway reply costs at most this much memory.
/// A number (`{"value": 0.5}`).
pub const NUMBER_REPLY: usize = 64 * 1024;
/// One object (a layer's state, blend, target set, preset, transition, transport state).
pub const OBJECT_REPLY: usize = 1024 * 1024;
/// A list of small objects (blend modes, presets, target sets, effects, transitions, the
/// transport state of each layer).
pub const LIST_REPLY: usize = 16 * 1024 * 1024;

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

/// `{"value": opacity}`.
pub(super) fn opacity_body(arg: &str, v: f64) -> Result<Payload> {
    let v = number_in(v, arg, OPACITY.0, OPACITY.1)?;
    Ok(body(json!({ "value": v })))
}

/// `{"value": seconds}`.
pub(super) fn duration_body(arg: &str, v: f64) -> Result<Payload> {
    let v = number_in(v, arg, TRANSITION_DURATION.0, TRANSITION_DURATION.1)?;
    Ok(body(json!({ "value": v })))
}

/// `{"value": "text"}`.
pub(super) fn value_body(arg: &str, v: String) -> Result<Payload> {
    Ok(body(json!({ "value": non_empty(v, arg)? })))
}

/// `{"value": "text"}`, or no body at all for `None` (target set: no body means nil).
pub(super) fn value_or_no_body(arg: &str, v: Option<String>) -> Result<Payload> {
    match v {
        Some(v) => value_body(arg, v),
        None => Ok(Payload::default()),
    }
}

/// `{"value": "text"}` or `{"value": null}`.
pub(super) fn value_or_null_body(arg: &str, v: Option<String>) -> Result<Payload> {
    match v {
        Some(v) => value_body(arg, v),
        None => Ok(body(json!({ "value": null }))),
    }
}

/// The fields of an effect in `{"effect": {...}}`, per the API document.
pub const EFFECT_FIELDS: [&str; 4] = ["uuid", "name", "enabled", "variables"];

/// `{"effect": {uuid, name?, enabled?, variables?}}`; `uuid` is required.
pub(super) fn effect_body(arg: &str, effect: Map<String, Value>) -> Result<Payload> {
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
pub(super) fn blend_body(arg: &str, spec: BlendSpec) -> Result<Payload> {
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
pub(super) fn target_query(_: &str, target: bool) -> Result<Payload> {
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

pub(super) fn offset_seconds(v: f64, arg: &str) -> Result<f64> {
    number_in(v, arg, -MAX_OFFSET_SECONDS, MAX_OFFSET_SECONDS)
}

/// `?offset=S` with S ≥ 0.
pub(super) fn offset_query(arg: &str, v: f64) -> Result<Payload> {
    let v = offset_seconds(v, arg)?.abs();
    Ok(Payload {
        json: None,
        query: vec![("offset".into(), seconds_text(v))],
    })
}

/// `?forwards=true|false&offset=|S|`: forwards for S ≥ 0.
pub(super) fn skip_query(arg: &str, v: f64) -> Result<Payload> {
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
pub(super) fn one<M: Model>(body: &[u8]) -> Result<M, String> {
    single(Some(required(body)?))?.ok_or_else(|| {
        format!(
            "expected {{\"{}\": {}}}, found none",
            M::KEY.unwrap_or(""),
            M::NAME
        )
    })
}

/// A resource that can be nil (null, "null", a missing key or an empty body).
pub(super) fn maybe<M: Model>(body: &[u8]) -> Result<Option<M>, String> {
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
pub(super) fn list<M: Model>(body: &[u8]) -> Result<Vec<Arc<M>>, String> {
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

pub(super) fn layers(body: &[u8]) -> Result<LayerList, String> {
    list::<LayerState>(body).map(LayerList)
}

/// The transport state of one layer: one object, or an array under `data` (its first item).
pub(super) fn transport_one(body: &[u8]) -> Result<TransportState, String> {
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

pub(super) fn opacity(body: &[u8]) -> Result<f64, String> {
    number_under(body, "opacity")
}

pub(super) fn transition_duration(body: &[u8]) -> Result<f64, String> {
    number_under(body, "transitionDuration")
}

// ---------------------------------------------------------------------------------------------
// The endpoint constants, from the operation table
// ---------------------------------------------------------------------------------------------

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

/// A query parameter's value as sent: a text, a number or a flag as written in JSON; `None`
/// for an array, an object or a null, which a query cannot carry.
pub fn query_value(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
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
