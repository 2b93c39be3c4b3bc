//! `showctl record URL DIR`: a read-only capture of every documented read of an installation
//! (each layer's, playlist's and cue's included) into DIR, one file per exchange in the
//! project's recording format (`recordings/NNN-<path>.json`), with the key scrubbed wherever the
//! application echoed it, plus `workspace.json`: the installation in the simulator's workspace
//! format, so `Simulator(workspace=DIR)` rehearses on the user's own playlists and layers.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::ident::Ident;
use crate::media::table::consts as ep;
use crate::probe::{layer_objects, read_everything, root_playlist, App, Exchange};
use crate::simulator::answers::{
    BLEND_MODE_KEYS, EFFECT_PRESET_KEYS, FX_KEYS, LAYER_KEYS, LAYER_PRESET_KEYS, NAMED_KEYS,
    PLAYLIST_KEYS, TRANSPORT_KEYS,
};
use crate::simulator::workspace::{
    new_uuid, Answers, BlendMode, Cue, EffectPresetSeed, Extra, Fx, FxRef, LayerBlendSeed,
    LayerSeed, Named, OpacityForm, Playlist, TransitionListKey, TransportSeed, Workspace,
};
use crate::transport::Transport;

/// The folder of DIR that holds the recordings.
pub const RECORDINGS: &str = "recordings";
/// The workspace file written beside them.
pub const WORKSPACE: &str = "workspace.json";
/// The `name` of a recorded workspace.
const RECORDED: &str = "recorded by showctl record";

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
    let workspace = serde_json::to_value(&workspace).expect("a workspace always serializes");
    write(&staging.path().join(WORKSPACE), &workspace)?;
    // The mode a directory made the usual way has (0777 less the umask: `recordings` was made
    // so), not the owner-only mode it was written under, nor a fixed 0755 that would open a
    // recording to others under `umask 077`.
    #[cfg(unix)]
    if let Ok(made) = std::fs::metadata(&folder) {
        let _ = std::fs::set_permissions(staging.path(), made.permissions());
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
#[derive(Serialize)]
struct Recording {
    description: String,
    request: RecordedRequest,
    response: RecordedResponse,
}

#[derive(Serialize)]
struct RecordedRequest {
    method: &'static str,
    /// As sent, with the `/api/0` prefix.
    path: String,
    #[serde(skip_serializing_if = "Map::is_empty")]
    query: Map<String, Value>,
}

#[derive(Serialize)]
struct RecordedResponse {
    /// 0 when no answer came.
    status: u16,
    /// A JSON body.
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<Value>,
    /// A body that is not JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    body_text: Option<String>,
    /// Why the read failed (the key scrubbed).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn recording(transport: &Transport, base: &str, ex: &Exchange) -> Value {
    let body = &ex.body;
    let parsed = (!body.is_empty()).then(|| serde_json::from_slice::<Value>(body));
    let secret = transport.target().secret();
    let rec = Recording {
        description: format!(
            "GET {} as recorded from {base} by showctl record",
            ex.request.path_and_query()
        ),
        request: RecordedRequest {
            method: "GET",
            path: format!("{}{}", crate::transport::API_PREFIX, ex.request.path),
            query: ex
                .request
                .query
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        },
        response: RecordedResponse {
            status: ex.status.unwrap_or(0),
            body_text: match &parsed {
                Some(Err(_)) => Some(String::from_utf8_lossy(body).into_owned()),
                _ => None,
            },
            body: parsed.and_then(|p| p.ok()),
            error: ex
                .error
                .as_ref()
                .map(|e| crate::scrub::scrub_str(&e.to_string(), secret).into_owned()),
        },
    };
    serde_json::to_value(rec).expect("a recording always serializes")
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

/// `obj`'s `documented` keys, plus `"extra"`: the keys the application sent beyond them (the
/// simulator answers them as-is, so the replay answers equal JSON).
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

/// The keys the application sent beyond the `documented` ones.
fn extra(obj: &Value, documented: &[&str]) -> Extra {
    match keep(obj, documented).remove("extra") {
        Some(Value::Object(extra)) => extra,
        _ => Extra::new(),
    }
}

/// An object of an answer read through the workspace file's own type (the documented keys as
/// fields, the others under `extra`); `None` when it does not fit (no name, a wrong type).
fn typed<T: DeserializeOwned>(obj: &Value, documented: &[&str]) -> Option<T> {
    text(obj, "name")?;
    serde_json::from_value(Value::Object(keep(obj, documented))).ok()
}

/// A catalogue entry (target set, media, cue).
fn named(v: &Value) -> Option<Named> {
    typed(v, NAMED_KEYS)
}

/// An effect or a transition.
fn fx(v: &Value) -> Option<Fx> {
    typed(v, FX_KEYS)
}

fn effects(list: &[Value]) -> Vec<FxRef> {
    list.iter().filter_map(fx).map(FxRef::Inline).collect()
}

/// A reference to a catalogue entry: its UUID, else its name.
fn reference(v: &Value) -> Option<String> {
    text(v, "uuid").or_else(|| text(v, "name"))
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

fn playlist(p: &Value, video_input: Option<&str>) -> Playlist {
    let list = |key: &str| p.get(key).and_then(Value::as_array).map(Vec::as_slice);
    let uuid = p.get("uuid").and_then(Value::as_str);
    Playlist {
        name: text(p, "name").unwrap_or_else(|| "Root".into()),
        uuid: uuid.map_or_else(new_uuid, str::to_string),
        items: list("items")
            .unwrap_or_default()
            .iter()
            .filter_map(|c| typed::<Cue>(c, NAMED_KEYS))
            .collect(),
        children: list("children")
            .unwrap_or_default()
            .iter()
            .map(|c| playlist(c, video_input))
            .collect(),
        video_input: video_input.is_some() && text(p, "uuid").as_deref() == video_input,
        extra: extra(p, PLAYLIST_KEYS),
    }
}

/// What a layer shows, from its transport state (`{"transportState": {...}}`).
fn transport(v: Option<&Value>) -> Option<TransportSeed> {
    let ts = single(v, "transportState")?;
    let time = |key: &str| ts.get(key).and_then(Value::as_f64).unwrap_or(0.0);
    Some(TransportSeed {
        playing_item: ts.get("playingItem").and_then(named),
        playing_media: ts.get("playingMedia").and_then(named),
        time_elapsed: time("timeElapsed"),
        time_remaining: time("timeRemaining"),
        is_playing: ts
            .get("isPlaying")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        live: false,
        extra: extra(&ts, TRANSPORT_KEYS),
    })
}

/// The transition a transport state's layer reports (`{"transportState": {"layer":
/// {"transition": {...}}}}`).
fn transport_transition(v: Option<&Value>) -> Option<Value> {
    let ts = single(v, "transportState")?;
    single(ts.get("layer")?.get("transition"), "transition")
}

/// The media installation in the simulator's workspace format (version 1).
pub fn media_workspace(exchanges: &[Exchange]) -> Workspace {
    let answers = answers(exchanges);
    let at = |path: &str| answers.get(path);
    let mut ws = Workspace::empty();
    ws.name = RECORDED.into();
    let opacity = answers
        .iter()
        .find(|(p, _)| p.starts_with("/opacity/layer/"))
        .map(|(_, v)| v);
    ws.answers = Answers {
        opacity: match opacity {
            Some(v) if v.get("opacity").is_none() => OpacityForm::Document,
            _ => OpacityForm::Field,
        },
        transition_list: match at("/transition") {
            Some(v) if v.get("transitions").is_some() => TransitionListKey::Transitions,
            _ => TransitionListKey::Data,
        },
        // An installation that answered /blend/layer/{id} (before 3.8) replays with that route.
        blend_route: answers.keys().any(|p| p.starts_with("/blend/layer/")),
    };
    let video_input = single(at("/data/playlist/-1"), "playlist").and_then(|p| text(&p, "uuid"));
    if let Some(root) = at("/data/playlists").and_then(root_playlist) {
        ws.playlists = playlist(root, video_input.as_deref());
    }
    let blend_modes: Vec<BlendMode> = list_of(at("/blendMode"), "blendMode")
        .iter()
        .filter_map(|m| typed(m, BLEND_MODE_KEYS))
        .collect();
    if !blend_modes.is_empty() {
        ws.blend_modes = blend_modes;
    }
    ws.layer_presets = list_of(at("/layerPreset"), "layerPreset")
        .into_iter()
        .filter_map(|mut p| {
            // A numeric id is kept as its text.
            if let Some(Value::Number(n)) = p.get("id") {
                p["id"] = Value::String(n.to_string());
            }
            typed(&p, LAYER_PRESET_KEYS)
        })
        .collect();
    ws.target_sets = list_of(at("/targetSet"), "targetSet")
        .iter()
        .filter_map(named)
        .collect();
    ws.effects = list_of(at("/effects"), "effect")
        .iter()
        .filter_map(fx)
        .collect();
    ws.effect_presets = list_of(at("/effectsPreset"), "effectPreset")
        .iter()
        .filter_map(|p| {
            let mut seed: EffectPresetSeed = typed(p, &["uuid", "name"])?;
            seed.effects = p
                .get("effects")
                .and_then(Value::as_array)
                .map(|a| effects(a));
            seed.extra = extra(p, EFFECT_PRESET_KEYS);
            Some(seed)
        })
        .collect();
    ws.transitions = list_of(at("/transition"), "transition")
        .iter()
        .filter_map(fx)
        .collect();

    let w = &mut ws.workspace;
    // Whole objects, not references: a posted transition object leaves the layer or the
    // workspace with variables of its own.
    w.transition = single(at("/transition/workspace"), "transition")
        .and_then(|t| fx(&t))
        .map(FxRef::Inline);
    if let Some(d) = duration(at("/transitionDuration/workspace")) {
        w.transition_duration = d;
    }
    w.effects = effects(&list_of(at("/effects/workspace"), "effect"));
    w.effect_preset =
        single(at("/effectsPreset/workspace"), "effectPreset").and_then(|p| reference(&p));

    let layers = at("/data/layers").map(layer_objects).unwrap_or_default();
    for (i, layer) in layers.iter().enumerate() {
        let own = [
            "name",
            "uuid",
            "opacity",
            "isHidden",
            "isMuted",
            "transitionDuration",
        ];
        let Some(mut seed) = typed::<LayerSeed>(layer, &own) else {
            continue;
        };
        seed.extra = extra(layer, LAYER_KEYS);
        let id = match text(layer, "uuid") {
            Some(u) => Ident::Name(u),
            None => Ident::Index(i as i64),
        };
        let read = |template: &str| {
            crate::operation::fill(template, &[&id])
                .ok()
                .and_then(|p| answers.get(&p))
        };
        seed.blend_mode =
            single(read(ep::LAYER_BLEND_MODE.path), "blendMode").and_then(|m| text(&m, "name"));
        let blend = read(ep::LAYER_BLEND.path).or_else(|| ep::LAYER_BLEND.fallback.and_then(read));
        seed.layer_blend = single(blend, "layerBlend").and_then(|b| {
            Some(LayerBlendSeed {
                kind: text(&b, "type")?,
                base: b
                    .get("base")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            })
        });
        seed.target_set =
            single(read(ep::LAYER_TARGET_SET.path), "targetSet").and_then(|t| reference(&t));
        if let [preset] = list_of(read(ep::LAYER_LAYER_PRESETS.path), "layerPreset").as_slice() {
            seed.layer_preset = preset.get("id").map(|id| {
                id.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| id.to_string())
            });
        }
        let live = transport_transition(read(ep::LAYER_TRANSPORT_STATE.path));
        let own = single(read(ep::LAYER_TRANSITION.path), "transition").and_then(|t| fx(&t));
        // The favoriteUUID a transport-state layer reports with its transition (its own, else
        // the workspace's).
        let favorite = live.as_ref().and_then(|t| text(t, "favoriteUUID"));
        seed.transition = match (own, &mut ws.workspace.transition) {
            (Some(mut t), _) => {
                t.favorite_uuid = favorite;
                Some(FxRef::Inline(t))
            }
            (None, Some(FxRef::Inline(workspace))) => {
                if workspace.favorite_uuid.is_none() {
                    workspace.favorite_uuid = favorite;
                }
                None
            }
            (None, _) => None,
        };
        if let Some(d) = duration(read(ep::LAYER_TRANSITION_DURATION.path)) {
            seed.transition_duration = d;
        }
        seed.effects = effects(&list_of(read(ep::LAYER_EFFECTS.path), "effect"));
        seed.effect_preset =
            single(read(ep::LAYER_EFFECT_PRESET.path), "effectPreset").and_then(|p| reference(&p));
        seed.transport = transport(read(ep::LAYER_TRANSPORT_STATE.path));
        ws.layers.push(seed);
    }
    ws
}

/// The scoreboard installation in the simulator's workspace format: its sport and record.
pub fn scoreboard_workspace(exchanges: &[Exchange]) -> Workspace {
    let mut ws = Workspace::empty();
    let Some(record) = exchanges.first().and_then(Exchange::json) else {
        return ws;
    };
    let Some(sport) = text(&record, "sportMode") else {
        return ws;
    };
    let fields: Map<String, Value> = record
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.as_str() != "sportMode")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    ws.name = RECORDED.into();
    ws.scoreboard
        .records
        .insert(sport.clone(), Value::Object(fields));
    ws.scoreboard.sport = sport;
    ws
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::runtime;
    use crate::simulator::{Options, Simulator};
    use crate::transport::Config;

    /// Every read of a simulator, by path (with the query), the clock of a playing clip left
    /// out.
    fn reads(sim: &Simulator, app: App) -> Vec<(String, Option<u16>, Option<Value>)> {
        let transport = Transport::new(&Config::new(sim.url().unwrap())).unwrap();
        let reads = runtime::get().block_on(read_everything(&transport, app));
        fn no_clock(v: Value) -> Value {
            match v {
                Value::Object(m) => m
                    .into_iter()
                    .filter(|(k, _)| k != "timeElapsed" && k != "timeRemaining")
                    .map(|(k, v)| (k, no_clock(v)))
                    .collect(),
                Value::Array(a) => a.into_iter().map(no_clock).collect(),
                other => other,
            }
        }
        reads
            .exchanges
            .iter()
            .map(|ex| {
                let json = ex.json().map(no_clock);
                (ex.request.path_and_query(), ex.status, json)
            })
            .collect()
    }

    fn started(workspace: Workspace) -> Simulator {
        let options = Options {
            workspace,
            ..Options::default()
        };
        let sim = Simulator::new(options).unwrap();
        sim.start(runtime::get().handle()).unwrap();
        sim
    }

    /// What `record` writes is the simulator's own workspace type: it reads back as written,
    /// and a simulator started from it answers every read as the recorded one did.
    #[test]
    fn a_recorded_workspace_answers_the_same_reads() {
        // A state a show reaches: a layer muted at another opacity, showing a paused clip.
        let mut show = Workspace::builtin();
        let main = &mut show.layers[1];
        main.is_muted = true;
        main.opacity = 0.4;
        main.blend_mode = Some("Dissolve".into());
        let clip = Named {
            name: "Countdown".into(),
            uuid: new_uuid(),
            extra: Extra::new(),
        };
        main.transport = Some(TransportSeed {
            playing_item: Some(clip.clone()),
            playing_media: Some(clip),
            time_elapsed: 3.0,
            time_remaining: 7.0,
            is_playing: false,
            live: false,
            extra: Extra::new(),
        });
        // Transport-state layers report a favoriteUUID of each transition's own.
        let favorites: Vec<String> = show.transitions.iter().map(|_| new_uuid()).collect();
        for (t, f) in show.transitions.iter_mut().zip(&favorites) {
            t.favorite_uuid = Some(f.clone());
        }
        let (blur, tint) = (show.effects[0].uuid.clone(), show.effects[1].uuid.clone());
        let wipe = show.transitions[2].uuid.clone();
        let source = started(show);
        // Effects and transitions changed as a show changes them: a posted effect with its own
        // variables (it replaces the layer's), a workspace effect, and transition objects with
        // variables of their own on a layer and on the workspace.
        let feather = |x: f64| {
            json!([{"type": "Float", "base": {"name": "Feather", "value": x, "min_value": 0,
                    "max_value": 1}}, {"type": "Color", "base": {"name": "Edge", "color": "#00FF00"}}])
        };
        let radius = json!([{"type": "Float", "base": {"name": "Radius", "value": 20.05,
                             "min_value": 0, "max_value": 100}}]);
        let changes = [
            (
                "/effects/layer/3",
                json!({"effect": {"uuid": blur, "enabled": true, "variables": radius}}),
            ),
            (
                "/effects/workspace",
                json!({"effect": {"uuid": tint, "enabled": false}}),
            ),
            (
                "/transition/layer/2",
                json!({"transition": {"uuid": wipe, "variables": feather(0.05)}}),
            ),
            (
                "/transition/workspace",
                json!({"transition": {"uuid": wipe, "variables": feather(0.3)}}),
            ),
        ];
        runtime::get().block_on(async {
            for (path, body) in changes {
                crate::simulator::tests::ok(&source, path, Some(body)).await;
            }
        });
        let transport = Transport::new(&Config::new(source.url().unwrap())).unwrap();
        let exchanges = runtime::get()
            .block_on(read_everything(&transport, App::Media))
            .exchanges;
        let written = serde_json::to_value(media_workspace(&exchanges)).unwrap();
        let again = Workspace::from_value(written.clone()).unwrap();
        assert_eq!(serde_json::to_value(&again).unwrap(), written);
        let want = reads(&source, App::Media);
        assert!(want.len() > 40, "{} reads", want.len());
        let got = reads(&started(again), App::Media);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w);
        }
        // The changes were read, and survived: the layer's and the workspace's own variables
        // (single precision) and the favoriteUUIDs transport-state layers report.
        let text = serde_json::to_string(&got).unwrap();
        for seen in [
            "0.05000000074505806",
            "0.30000001192092896",
            "20.049999237060547",
            &favorites[1],
            &favorites[2],
        ] {
            assert!(text.contains(seen), "{seen} not in the replayed reads");
        }
    }

    #[test]
    fn a_scoreboard_record_is_its_sport_and_fields() {
        let source = started(Workspace::builtin());
        source.set_sport("Hockey").unwrap();
        source.set_score("team1Score", Value::from("3")).unwrap();
        let transport = Transport::new(&Config::new(source.url().unwrap())).unwrap();
        let exchanges = runtime::get()
            .block_on(read_everything(&transport, App::Scoreboard))
            .exchanges;
        let ws = scoreboard_workspace(&exchanges);
        assert_eq!(ws.scoreboard.sport, "Hockey");
        let text = serde_json::to_string(&ws).unwrap();
        let again = Workspace::from_json(&text).unwrap();
        assert_eq!(again.scoreboard, ws.scoreboard);
        let want = reads(&source, App::Scoreboard);
        assert_eq!(want.len(), 1);
        assert_eq!(reads(&started(again), App::Scoreboard), want);
    }
}
