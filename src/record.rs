//! `showctl record URL DIR`: a read-only capture of every documented read of an installation
//! (each layer's, playlist's and cue's included) into DIR, one file per exchange in the
//! project's recording format (`recordings/NNN-<path>.json`), with the key scrubbed wherever the
//! application echoed it, plus `workspace.json`: the installation in the simulator's workspace
//! format, so `Simulator(workspace=DIR)` rehearses on the user's own playlists and layers.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::ident::Ident;
use crate::media::endpoints as ep;
use crate::probe::{layer_objects, read_everything, root_playlist, App, Exchange};
use crate::transport::Transport;

/// The folder of DIR that holds the recordings.
pub const RECORDINGS: &str = "recordings";
/// The workspace file written beside them.
pub const WORKSPACE: &str = "workspace.json";

/// Capture every read into `dir` (created; it must be empty if it exists). Returns how many
/// recordings were written. Fails, writing nothing, when the first read fails (no connection,
/// a refused certificate, a refused key).
pub async fn record(transport: &Transport, app: App, dir: &Path) -> Result<usize> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir)
            .map_err(|e| Error::invalid(format!("dir: cannot read {}: {e}", dir.display())))?;
        if entries.next().is_some() {
            return Err(Error::invalid(format!(
                "dir: {} is not empty; record into a new directory",
                dir.display()
            )));
        }
    }
    let exchanges = read_everything(transport, app).await;
    if let Some(first) = exchanges.first() {
        if let Some(e) = &first.error {
            return Err(e.clone());
        }
    }
    let folder = dir.join(RECORDINGS);
    std::fs::create_dir_all(&folder)
        .map_err(|e| Error::invalid(format!("dir: cannot create {}: {e}", folder.display())))?;
    let write = |path: &Path, value: &Value| -> Result<()> {
        let text = serde_json::to_string_pretty(value).expect("JSON always serializes");
        std::fs::write(path, text + "\n")
            .map_err(|e| Error::invalid(format!("dir: cannot write {}: {e}", path.display())))
    };
    let base = transport.base_url();
    for (i, ex) in exchanges.iter().enumerate() {
        let rec = recording(transport, base, ex);
        write(
            &folder.join(format!("{i:03}-{}.json", slug(&ex.request.path))),
            &rec,
        )?;
    }
    let workspace = match app {
        App::Media => media_workspace(&exchanges),
        App::Scoreboard => scoreboard_workspace(&exchanges),
    };
    write(&dir.join(WORKSPACE), &workspace)?;
    Ok(exchanges.len())
}

/// A file name from a path (`/data/layer/Main` -> `data-layer-Main`).
fn slug(path: &str) -> String {
    let s: String = path
        .trim_start_matches('/')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    s.chars().take(80).collect()
}

/// One exchange in the recording format (see tests/recordings/README.md).
fn recording(transport: &Transport, base: &str, ex: &Exchange) -> Value {
    let body = transport.target().scrub_all(&ex.body);
    let mut response = Map::new();
    response.insert("status".into(), json!(ex.status.unwrap_or(0)));
    if !body.is_empty() {
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) => response.insert("body".into(), v),
            Err(_) => response.insert(
                "body_text".into(),
                Value::String(String::from_utf8_lossy(&body).into_owned()),
            ),
        };
    }
    if let Some(e) = &ex.error {
        response.insert(
            "error".into(),
            Value::String(
                String::from_utf8_lossy(&transport.target().scrub_all(e.to_string().as_bytes()))
                    .into_owned(),
            ),
        );
    }
    let mut request = json!({
        "method": "GET",
        "path": format!("{}{}", crate::transport::API_PREFIX, ex.request.path),
    });
    if !ex.request.query.is_empty() {
        request["query"] = Value::Object(
            ex.request
                .query
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        );
    }
    json!({
        "description": format!(
            "GET {} as recorded from {base} by showctl record",
            ex.request.path_and_query()
        ),
        "request": request,
        "response": response,
    })
}

/// The JSON answers by path (2xx only).
fn answers(exchanges: &[Exchange]) -> HashMap<String, Value> {
    exchanges
        .iter()
        .filter_map(|ex| Some((ex.request.path.clone(), ex.json()?)))
        .collect()
}

/// The items of a list answer (`{"data": [...]}` or `{"transitions": [...]}` or bare), each
/// unwrapped from its `key` when wrapped.
fn list_of(v: Option<&Value>, key: &str) -> Vec<Value> {
    let items = match v {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Object(o)) => o
            .get("data")
            .or_else(|| o.get("transitions"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    items.into_iter().map(|i| unwrap(i, key)).collect()
}

/// `{"key": {...}}` -> `{...}`; anything else as is.
fn unwrap(v: Value, key: &str) -> Value {
    match v {
        Value::Object(mut o) if o.len() == 1 && o.contains_key(key) => {
            o.remove(key).unwrap_or(Value::Null)
        }
        other => other,
    }
}

/// One resource of a single answer (`{"key": {...}}` or bare), `None` for null or "null".
fn single(v: Option<&Value>, key: &str) -> Option<Value> {
    let inner = match v? {
        Value::Object(o) if o.contains_key(key) => o.get(key)?.clone(),
        other => other.clone(),
    };
    match &inner {
        Value::Object(o) if !o.is_empty() => Some(inner),
        _ => None,
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) if s != "null" && !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// `{name, uuid}` of an object, as the workspace file names catalogue entries.
fn named(v: &Value) -> Option<Value> {
    let name = text(v, "name")?;
    let mut out = json!({ "name": name });
    if let Some(uuid) = text(v, "uuid") {
        out["uuid"] = Value::String(uuid);
    }
    Some(out)
}

/// An effect or a transition as the workspace file holds it.
fn fx(v: &Value) -> Option<Value> {
    let mut out = named(v)?;
    if let Some(enabled) = v.get("enabled").and_then(Value::as_bool) {
        out["enabled"] = Value::Bool(enabled);
    }
    if let Some(vars) = v.get("variables").and_then(Value::as_array) {
        out["variables"] = Value::Array(vars.clone());
    }
    Some(out)
}

fn names_of(items: &[Value]) -> Vec<Value> {
    items
        .iter()
        .filter_map(|e| text(e, "name").map(Value::String))
        .collect()
}

/// A duration answer: `{"transitionDuration": {"value": x}}`, `{"value": x}` or a number.
fn duration(v: Option<&Value>) -> Option<f64> {
    let v = v?;
    v.as_f64()
        .or_else(|| v.get("value").and_then(Value::as_f64))
        .or_else(|| {
            v.get("transitionDuration")
                .and_then(|d| d.get("value").or(Some(d)))
                .and_then(Value::as_f64)
        })
}

fn playlist(p: &Value) -> Value {
    let items: Vec<Value> = p
        .get("items")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(named).collect())
        .unwrap_or_default();
    let children: Vec<Value> = p
        .get("children")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(playlist).collect())
        .unwrap_or_default();
    let mut out = named(p).unwrap_or_else(|| json!({ "name": "Root" }));
    out["items"] = Value::Array(items);
    out["children"] = Value::Array(children);
    out
}

/// The media installation in the simulator's workspace format.
pub fn media_workspace(exchanges: &[Exchange]) -> Value {
    let answers = answers(exchanges);
    let at = |path: &str| answers.get(path);
    let mut ws = Map::new();
    if let Some(root) = at("/data/playlists").and_then(root_playlist) {
        ws.insert("playlists".into(), playlist(root));
    }
    let blend_modes: Vec<Value> = list_of(at("/blendMode"), "blendMode")
        .into_iter()
        .filter(|m| m.get("name").is_some() && m.get("id").is_some())
        .map(|m| json!({ "name": m["name"], "id": m["id"] }))
        .collect();
    if !blend_modes.is_empty() {
        ws.insert("blendModes".into(), Value::Array(blend_modes));
    }
    let presets: Vec<Value> = list_of(at("/layerPreset"), "layerPreset")
        .iter()
        .filter_map(|p| {
            let id = match p.get("id")? {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some(json!({ "id": id, "name": text(p, "name")? }))
        })
        .collect();
    ws.insert("layerPresets".into(), Value::Array(presets));
    let target_sets: Vec<Value> = list_of(at("/targetSet"), "targetSet")
        .iter()
        .filter_map(named)
        .collect();
    ws.insert("targetSets".into(), Value::Array(target_sets));
    let effects: Vec<Value> = list_of(at("/effects"), "effect")
        .iter()
        .filter_map(fx)
        .collect();
    ws.insert("effects".into(), Value::Array(effects));
    let effect_presets: Vec<Value> = list_of(at("/effectsPreset"), "effectPreset")
        .iter()
        .filter_map(|p| {
            let mut out = named(p)?;
            let fx = p
                .get("effects")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            out["effects"] = Value::Array(names_of(&fx));
            Some(out)
        })
        .collect();
    ws.insert("effectPresets".into(), Value::Array(effect_presets));
    let transitions: Vec<Value> = list_of(at("/transition"), "transition")
        .iter()
        .filter_map(fx)
        .collect();
    ws.insert("transitions".into(), Value::Array(transitions));

    let mut workspace = Map::new();
    if let Some(t) =
        single(at("/transition/workspace"), "transition").and_then(|t| text(&t, "name"))
    {
        workspace.insert("transition".into(), Value::String(t));
    }
    if let Some(d) = duration(at("/transitionDuration/workspace")) {
        workspace.insert("transitionDuration".into(), json!(d));
    }
    workspace.insert(
        "effects".into(),
        Value::Array(names_of(&list_of(at("/effects/workspace"), "effect"))),
    );
    if let Some(p) =
        single(at("/effectsPreset/workspace"), "effectPreset").and_then(|p| text(&p, "name"))
    {
        workspace.insert("effectPreset".into(), Value::String(p));
    }
    ws.insert("workspace".into(), Value::Object(workspace));

    let layers = at("/data/layers").map(layer_objects).unwrap_or_default();
    let mut seeds = Vec::new();
    for (i, layer) in layers.iter().enumerate() {
        let Some(mut seed) = named(layer) else {
            continue;
        };
        let id = match text(layer, "uuid") {
            Some(u) => Ident::Name(u),
            None => Ident::Index(i as i64),
        };
        let read = |template: &str| {
            ep::fill(template, &[&id])
                .ok()
                .and_then(|p| answers.get(&p))
        };
        let opacity = read(ep::LAYER_OPACITY.path)
            .and_then(|v| {
                v.get("opacity")
                    .and_then(|o| o.get("value").or(Some(o)))
                    .or_else(|| v.get("value"))
                    .and_then(Value::as_f64)
            })
            .or_else(|| layer.get("opacity").and_then(Value::as_f64));
        if let Some(o) = opacity {
            seed["opacity"] = json!(o);
        }
        for flag in ["isHidden", "isMuted"] {
            if let Some(b) = layer.get(flag).and_then(Value::as_bool) {
                seed[flag] = Value::Bool(b);
            }
        }
        if let Some(m) =
            single(read(ep::LAYER_BLEND_MODE.path), "blendMode").and_then(|m| text(&m, "name"))
        {
            seed["blendMode"] = Value::String(m);
        }
        if let Some(t) =
            single(read(ep::LAYER_TARGET_SET.path), "targetSet").and_then(|t| text(&t, "name"))
        {
            seed["targetSet"] = Value::String(t);
        }
        if let Some(t) =
            single(read(ep::LAYER_TRANSITION.path), "transition").and_then(|t| text(&t, "name"))
        {
            seed["transition"] = Value::String(t);
        }
        if let Some(d) = duration(read(ep::LAYER_TRANSITION_DURATION.path)) {
            seed["transitionDuration"] = json!(d);
        }
        seed["effects"] = Value::Array(names_of(&list_of(read(ep::LAYER_EFFECTS.path), "effect")));
        if let Some(p) = single(read(ep::LAYER_EFFECT_PRESET.path), "effectPreset")
            .and_then(|p| text(&p, "name"))
        {
            seed["effectPreset"] = Value::String(p);
        }
        seeds.push(seed);
    }
    ws.insert("layers".into(), Value::Array(seeds));
    Value::Object(ws)
}

/// The scoreboard installation in the simulator's workspace format: its sport and record.
pub fn scoreboard_workspace(exchanges: &[Exchange]) -> Value {
    let Some(record) = exchanges.first().and_then(Exchange::json) else {
        return json!({});
    };
    let Some(sport) = text(&record, "sportMode") else {
        return json!({});
    };
    let fields: Map<String, Value> = record
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| !["uuid", "version", "sportMode"].contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    json!({ "scoreboard": { "sport": sport, "records": { sport.clone(): fields } } })
}
