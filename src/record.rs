//! `showctl record URL DIR`: a read-only capture of every documented read of an installation
//! (each layer's, playlist's and cue's included) into DIR, one file per exchange in the
//! project's recording format (`recordings/NNN-<path>.json`), with the key scrubbed wherever the
//! application echoed it, plus `workspace.json`: the installation in the simulator's workspace
//! format, so `Simulator(workspace=DIR)` rehearses on the user's own playlists and layers.

use std::collections::HashMap;
use std::io::Write as _;
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

/// What `record` wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The recordings written.
    pub count: usize,
    /// The bounds the reads reached (see [`crate::probe::Reads::limits`]): what is missing.
    pub limits: Vec<String>,
}

/// Capture every read into `dir` (created; it must be empty if it exists). Fails, writing
/// nothing, when the first read fails (no connection, a refused certificate, a refused key).
///
/// Everything is written into a fresh directory with an unpredictable name beside `dir`
/// (created exclusively, only its owner may enter it), which then takes `dir`'s place in one
/// rename: a symbolic link planted in `dir` or at its name, before or during the reads, never
/// makes it write outside `dir` nor overwrite another file (the rename fails instead, and
/// nothing is left behind).
pub async fn record(transport: &Transport, app: App, dir: &Path) -> Result<Recorded> {
    if transport.is_closed() {
        return Err(Error::Closed);
    }
    let shown = dir.display();
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(Error::invalid(format!(
                "dir: {shown} is a symbolic link; give the directory itself"
            )));
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(Error::invalid(format!("dir: {shown} is not a directory")));
        }
        Ok(_) => {
            let mut entries = std::fs::read_dir(dir)
                .map_err(|e| Error::invalid(format!("dir: cannot read {shown}: {e}")))?;
            if entries.next().is_some() {
                return Err(Error::invalid(format!(
                    "dir: {shown} is not empty; record into a new directory"
                )));
            }
        }
        Err(_) => {}
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(Error::invalid(format!(
            "dir: the folder {} does not exist",
            parent.display()
        )));
    }
    let reads = read_everything(transport, app).await;
    let exchanges = reads.exchanges;
    if let Some(first) = exchanges.first() {
        if let Some(e) = &first.error {
            return Err(e.clone());
        }
    }
    // A read that fell back (`/blend` answered 404, then `/layerBlend`) is two recordings, one
    // per request (the key is scrubbed from each as it is written).
    let exchanges: Vec<Exchange> = exchanges
        .into_iter()
        .flat_map(|mut ex| {
            let first = ex.instead_of.take().map(|b| *b);
            first.into_iter().chain(std::iter::once(ex))
        })
        .collect();
    let staging = tempfile::Builder::new()
        .prefix(".showctl-record-")
        .tempdir_in(parent)
        .map_err(|e| Error::invalid(format!("dir: cannot write into {}: {e}", parent.display())))?;
    let folder = staging.path().join(RECORDINGS);
    std::fs::create_dir(&folder)
        .map_err(|e| Error::invalid(format!("dir: cannot create {}: {e}", folder.display())))?;
    let write = |path: &Path, value: &Value| -> Result<()> {
        let text = serde_json::to_string_pretty(value).expect("JSON always serializes");
        let text = crate::scrub::scrub_str(&text, transport.target().secret());
        let shown = path.display();
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| Error::invalid(format!("dir: cannot write {shown}: {e}")))?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.write_all(b"\n"))
            .map_err(|e| Error::invalid(format!("dir: cannot write {shown}: {e}")))
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
    write(&staging.path().join(WORKSPACE), &workspace)?;
    // Readable by others as a directory made with the usual mode would be (it was the owner's
    // alone while being written).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let _ = std::fs::set_permissions(staging.path(), std::fs::Permissions::from_mode(0o755));
    }
    // Replaces `dir` only if it is (still) an empty directory or absent; a symbolic link or
    // anything planted in it makes the rename fail.
    std::fs::rename(staging.path(), dir).map_err(|e| {
        Error::invalid(format!(
            "dir: cannot move the recording into {shown}: {e} (was something created in it \
             meanwhile?)"
        ))
    })?;
    // Moved: there is nothing left to remove.
    let _ = staging.keep();
    Ok(Recorded {
        count: exchanges.len(),
        limits: reads.limits,
    })
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
    let body = &ex.body;
    let mut response = Map::new();
    response.insert("status".into(), json!(ex.status.unwrap_or(0)));
    if !body.is_empty() {
        match serde_json::from_slice::<Value>(body) {
            Ok(v) => response.insert("body".into(), v),
            Err(_) => response.insert(
                "body_text".into(),
                Value::String(String::from_utf8_lossy(body).into_owned()),
            ),
        };
    }
    if let Some(e) = &ex.error {
        response.insert(
            "error".into(),
            Value::String(
                crate::scrub::scrub_str(&e.to_string(), transport.target().secret()).into_owned(),
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

/// `obj` with only its `documented` keys, plus `"extra"`: the keys the application sent beyond
/// them (the simulator answers them as-is, so the replay answers equal JSON).
fn keep(obj: &Value, documented: &[&str]) -> Map<String, Value> {
    let mut out = Map::new();
    let mut extra = Map::new();
    for (k, v) in obj.as_object().into_iter().flatten() {
        if documented.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        } else {
            extra.insert(k.clone(), v.clone());
        }
    }
    if !extra.is_empty() {
        out.insert("extra".into(), Value::Object(extra));
    }
    out
}

const NAMED: &[&str] = &["name", "uuid"];
const FX: &[&str] = &["uuid", "name", "enabled", "variables"];
/// The layer keys the simulator answers itself (from the other fields of the file).
const LAYER: &[&str] = &[
    "uuid",
    "name",
    "isHidden",
    "isMuted",
    "opacity",
    "effects",
    "effectPresetUUID",
    "targetSetUUID",
    "transitionDuration",
    "transition",
    "layerBlend",
];
const TRANSPORT: &[&str] = &[
    "playingItem",
    "playingMedia",
    "timeElapsed",
    "timeRemaining",
    "isPlaying",
    "playbackRate",
    "isScrubbing",
    "layer",
];

/// A catalogue entry (target set, media) as the workspace file holds it.
fn named(v: &Value) -> Option<Value> {
    text(v, "name")?;
    Some(Value::Object(keep(v, NAMED)))
}

/// An effect or a transition as the workspace file holds it.
fn fx(v: &Value) -> Option<Value> {
    text(v, "name")?;
    Some(Value::Object(keep(v, FX)))
}

/// A reference to a catalogue entry: its UUID, else its name.
fn reference(v: &Value) -> Option<Value> {
    text(v, "uuid")
        .or_else(|| text(v, "name"))
        .map(Value::String)
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

fn playlist(p: &Value, video_input: Option<&str>) -> Value {
    let mut out = keep(p, &["name", "uuid", "items", "children"]);
    let items: Vec<Value> = p
        .get("items")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(named).collect())
        .unwrap_or_default();
    let children: Vec<Value> = p
        .get("children")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|c| playlist(c, video_input)).collect())
        .unwrap_or_default();
    out.entry("name").or_insert_with(|| json!("Root"));
    out.insert("items".into(), Value::Array(items));
    out.insert("children".into(), Value::Array(children));
    if video_input.is_some() && text(p, "uuid").as_deref() == video_input {
        out.insert("videoInput".into(), Value::Bool(true));
    }
    Value::Object(out)
}

/// What a layer shows, from its transport state (`{"transportState": {...}}`).
fn transport(v: Option<&Value>) -> Option<Value> {
    let ts = single(v, "transportState")?;
    let mut seed = Map::new();
    for key in ["playingItem", "playingMedia"] {
        if let Some(item) = ts.get(key).and_then(named) {
            seed.insert(key.into(), item);
        }
    }
    for key in ["timeElapsed", "timeRemaining"] {
        if let Some(t) = ts.get(key).filter(|t| t.is_number()) {
            seed.insert(key.into(), t.clone());
        }
    }
    if let Some(p) = ts.get("isPlaying").and_then(Value::as_bool) {
        seed.insert("isPlaying".into(), Value::Bool(p));
    }
    if let Some(Value::Object(extra)) = keep(&ts, TRANSPORT).remove("extra") {
        seed.insert("extra".into(), Value::Object(extra));
    }
    Some(Value::Object(seed))
}

/// The media installation in the simulator's workspace format (version 1).
pub fn media_workspace(exchanges: &[Exchange]) -> Value {
    let answers = answers(exchanges);
    let at = |path: &str| answers.get(path);
    let mut ws = Map::new();
    ws.insert("format".into(), json!(1));
    ws.insert("name".into(), json!("recorded by showctl record"));
    let opacity_form = answers
        .iter()
        .find(|(p, _)| p.starts_with("/opacity/layer/"))
        .map(|(_, v)| {
            if v.get("opacity").is_some() {
                "field"
            } else {
                "document"
            }
        });
    let list_key = match at("/transition") {
        Some(v) if v.get("transitions").is_some() => "transitions",
        _ => "data",
    };
    // An installation that answered /blend/layer/{id} (before 3.8) replays with that route.
    let blend_route = answers.keys().any(|p| p.starts_with("/blend/layer/"));
    ws.insert(
        "answers".into(),
        json!({
            "opacity": opacity_form.unwrap_or("field"),
            "transitionList": list_key,
            "blendRoute": blend_route,
        }),
    );
    let video_input = single(at("/data/playlist/-1"), "playlist").and_then(|p| text(&p, "uuid"));
    if let Some(root) = at("/data/playlists").and_then(root_playlist) {
        ws.insert("playlists".into(), playlist(root, video_input.as_deref()));
    }
    let blend_modes: Vec<Value> = list_of(at("/blendMode"), "blendMode")
        .iter()
        .filter(|m| m.get("name").is_some() && m.get("id").is_some())
        .map(|m| Value::Object(keep(m, &["name", "id"])))
        .collect();
    if !blend_modes.is_empty() {
        ws.insert("blendModes".into(), Value::Array(blend_modes));
    }
    let presets: Vec<Value> = list_of(at("/layerPreset"), "layerPreset")
        .iter()
        .filter_map(|p| {
            let mut out = keep(p, &["id", "name"]);
            if let Some(Value::Number(n)) = out.get("id") {
                let id = n.to_string();
                out.insert("id".into(), Value::String(id));
            }
            (out.get("id")?.is_string() && text(p, "name").is_some()).then_some(Value::Object(out))
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
            text(p, "name")?;
            let mut out = keep(p, &["uuid", "name", "effects"]);
            let effects = match p.get("effects") {
                Some(Value::Array(a)) => Value::Array(a.iter().filter_map(fx).collect()),
                _ => Value::Null,
            };
            out.insert("effects".into(), effects);
            Some(Value::Object(out))
        })
        .collect();
    ws.insert("effectPresets".into(), Value::Array(effect_presets));
    let transitions: Vec<Value> = list_of(at("/transition"), "transition")
        .iter()
        .filter_map(fx)
        .collect();
    ws.insert("transitions".into(), Value::Array(transitions));

    let mut workspace = Map::new();
    if let Some(t) = single(at("/transition/workspace"), "transition").and_then(|t| reference(&t)) {
        workspace.insert("transition".into(), t);
    }
    if let Some(d) = duration(at("/transitionDuration/workspace")) {
        workspace.insert("transitionDuration".into(), json!(d));
    }
    let fx_list = list_of(at("/effects/workspace"), "effect");
    workspace.insert(
        "effects".into(),
        Value::Array(fx_list.iter().filter_map(fx).collect()),
    );
    if let Some(p) =
        single(at("/effectsPreset/workspace"), "effectPreset").and_then(|p| reference(&p))
    {
        workspace.insert("effectPreset".into(), p);
    }
    ws.insert("workspace".into(), Value::Object(workspace));

    let layers = at("/data/layers").map(layer_objects).unwrap_or_default();
    let mut seeds = Vec::new();
    for (i, layer) in layers.iter().enumerate() {
        if text(layer, "name").is_none() {
            continue;
        }
        let mut seed = keep(
            layer,
            &[
                "name",
                "uuid",
                "opacity",
                "isHidden",
                "isMuted",
                "transitionDuration",
            ],
        );
        if let Some(Value::Object(extra)) = keep(layer, LAYER).remove("extra") {
            seed.insert("extra".into(), Value::Object(extra));
        } else {
            seed.remove("extra");
        }
        let id = match text(layer, "uuid") {
            Some(u) => Ident::Name(u),
            None => Ident::Index(i as i64),
        };
        let read = |template: &str| {
            ep::fill(template, &[&id])
                .ok()
                .and_then(|p| answers.get(&p))
        };
        if let Some(m) =
            single(read(ep::LAYER_BLEND_MODE.path), "blendMode").and_then(|m| text(&m, "name"))
        {
            seed.insert("blendMode".into(), Value::String(m));
        }
        let blend = read(ep::LAYER_BLEND.path).or_else(|| ep::LAYER_BLEND.fallback.and_then(read));
        if let Some(b) = single(blend, "layerBlend") {
            if let Some(kind) = text(&b, "type") {
                let base = b.get("base").cloned().unwrap_or_else(|| json!({}));
                seed.insert("layerBlend".into(), json!({ "type": kind, "base": base }));
            }
        }
        if let Some(t) =
            single(read(ep::LAYER_TARGET_SET.path), "targetSet").and_then(|t| reference(&t))
        {
            seed.insert("targetSet".into(), t);
        }
        if let [preset] = list_of(read(ep::LAYER_LAYER_PRESETS.path), "layerPreset").as_slice() {
            if let Some(id) = preset.get("id") {
                let id = id
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| id.to_string());
                seed.insert("layerPreset".into(), Value::String(id));
            }
        }
        if let Some(t) =
            single(read(ep::LAYER_TRANSITION.path), "transition").and_then(|t| reference(&t))
        {
            seed.insert("transition".into(), t);
        }
        if let Some(d) = duration(read(ep::LAYER_TRANSITION_DURATION.path)) {
            seed.insert("transitionDuration".into(), json!(d));
        }
        let fx_list = list_of(read(ep::LAYER_EFFECTS.path), "effect");
        seed.insert(
            "effects".into(),
            Value::Array(fx_list.iter().filter_map(fx).collect()),
        );
        if let Some(p) =
            single(read(ep::LAYER_EFFECT_PRESET.path), "effectPreset").and_then(|p| reference(&p))
        {
            seed.insert("effectPreset".into(), p);
        }
        if let Some(t) = transport(read(ep::LAYER_TRANSPORT_STATE.path)) {
            seed.insert("transport".into(), t);
        }
        seeds.push(Value::Object(seed));
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
                .filter(|(k, _)| k.as_str() != "sportMode")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    json!({
        "format": 1,
        "name": "recorded by showctl record",
        "scoreboard": { "sport": sport, "records": { sport.clone(): fields } },
    })
}
