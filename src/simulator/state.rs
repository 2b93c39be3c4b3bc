//! The simulated workspace: its state, the commands that change it and the JSON the read
//! endpoints answer with (wire names of the API document). No HTTP here: `routes` maps
//! requests onto these methods, and a refused command is a [`Bad`] (HTTP 400).

use std::time::Instant;

use serde_json::{json, Map, Value};

use super::scores::Scores;
use super::wire::single;
use super::workspace::{
    with_extra, Answers, BlendMode, Cue, Extra, Fx, FxRef, LayerPreset, LayerSeed, Named,
    OpacityForm, Playlist, TransitionListKey, TransportSeed, Workspace,
};

/// A refused request: the simulator answers 400 with this text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bad(pub String);

pub type Outcome<T> = Result<T, Bad>;

fn bad<T>(msg: impl Into<String>) -> Outcome<T> {
    Err(Bad(msg.into()))
}

/// Longest transition duration (seconds), per the document's limits.
pub const MAX_TRANSITION_DURATION: f64 = 5.0;

/// A path identifier after percent-decoding: digits are always an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Id<'a> {
    Index(i64),
    Key(&'a str),
}

fn parse_id(s: &str) -> Id<'_> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let fallback = if s.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        };
        return Id::Index(s.parse().unwrap_or(fallback));
    }
    Id::Key(s)
}

/// Position of the first item whose first key matches, else whose second key matches (UUIDs
/// before names).
fn lookup<T>(items: &[T], key: &str, keys: impl Fn(&T) -> [&str; 2]) -> Option<usize> {
    let first = items.iter().position(|t| keys(t)[0] == key);
    first.or_else(|| items.iter().position(|t| keys(t)[1] == key))
}

fn fx_keys(f: &Fx) -> [&str; 2] {
    [&f.uuid, &f.name]
}

fn preset_keys(p: &EffectPreset) -> [&str; 2] {
    [&p.uuid, &p.name]
}

fn named_keys(t: &Named) -> [&str; 2] {
    [&t.uuid, &t.name]
}

fn blend_keys(b: &BlendMode) -> [&str; 2] {
    [&b.name, &b.name]
}

fn layer_preset_keys(p: &LayerPreset) -> [&str; 2] {
    [&p.id, &p.name]
}

fn list(key: &str, items: impl Iterator<Item = Value>) -> Value {
    json!({ "data": items.map(|v| json!({ key: v })).collect::<Vec<_>>() })
}

fn names<T>(items: &[T], name: impl Fn(&T) -> &str) -> String {
    let all: Vec<String> = items.iter().map(|t| format!("{:?}", name(t))).collect();
    if all.is_empty() {
        "none".into()
    } else {
        all.join(", ")
    }
}

/// The commands without arguments, on a layer or on every layer of the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Clear,
    Mute,
    Unmute,
    Hide,
    Unhide,
    Play,
    Pause,
}

impl Op {
    pub const ALL: [Op; 7] = [
        Op::Clear,
        Op::Mute,
        Op::Unmute,
        Op::Hide,
        Op::Unhide,
        Op::Play,
        Op::Pause,
    ];
    pub fn path(self) -> &'static str {
        match self {
            Op::Clear => "clear",
            Op::Mute => "mute",
            Op::Unmute => "unmute",
            Op::Hide => "hide",
            Op::Unhide => "unhide",
            Op::Play => "play",
            Op::Pause => "pause",
        }
    }
}

/// Where effects, effect presets, transitions and transition durations apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    Workspace,
    Layer(&'a str),
}

/// What a `{"value": ...}` body amounted to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Given<'a> {
    /// No body, a body that is not JSON, or no `value` key: the application changes nothing
    /// (and a target set ends at "No Selection").
    Nothing,
    /// `{"value": null}`.
    Null,
    Text(&'a str),
    Number(f64),
}
/// What a layer plays: the cue that touched it last, the media, and the clock.
#[derive(Debug, Clone, Default)]
pub struct PlaybackClock {
    item: Option<Value>,
    media: Option<Value>,
    /// Seconds; 0 for a still image.
    duration: f64,
    /// A video input: no end, no remaining time.
    live: bool,
    /// Position when `since` was set (or the position while paused).
    position: f64,
    /// Playing since this instant.
    since: Option<Instant>,
    /// Keys of a recorded transport state beyond the documented ones.
    extra: Extra,
}

impl PlaybackClock {
    fn seeded(seed: &TransportSeed, now: Instant) -> Self {
        PlaybackClock {
            item: seed.playing_item.as_ref().map(Named::to_json),
            media: seed.playing_media.as_ref().map(Named::to_json),
            duration: (seed.time_elapsed + seed.time_remaining).max(0.0),
            live: seed.live,
            position: seed.time_elapsed.max(0.0),
            since: (seed.is_playing && seed.playing_media.is_some()).then_some(now),
            extra: seed.extra.clone(),
        }
    }

    fn load(&mut self, cue: &Cue, live: bool, now: Instant) {
        let summary = json!({ "name": cue.name, "uuid": cue.uuid });
        self.media = Some(cue.media.as_ref().map_or(summary.clone(), Named::to_json));
        self.item = Some(summary);
        self.duration = if live { 0.0 } else { cue.duration.max(0.0) };
        self.live = live;
        self.position = 0.0;
        self.since = Some(now);
    }

    fn elapsed(&self, now: Instant) -> f64 {
        let run = self
            .since
            .map_or(0.0, |s| now.saturating_duration_since(s).as_secs_f64());
        let t = self.position + run;
        if self.live {
            t
        } else {
            t.min(self.duration)
        }
    }

    fn still(&self) -> bool {
        !self.live && self.duration == 0.0
    }

    /// A still image reports playing at rate 0; a clip that reached its end stops.
    fn is_playing(&self, now: Instant) -> bool {
        self.media.is_some()
            && self.since.is_some()
            && (self.live || self.still() || self.elapsed(now) < self.duration)
    }

    fn play(&mut self, now: Instant) {
        if self.media.is_none() || self.since.is_some() {
            return;
        }
        if !self.live && !self.still() && self.position >= self.duration {
            self.position = 0.0;
        }
        self.since = Some(now);
    }

    fn pause(&mut self, now: Instant) {
        self.position = self.elapsed(now);
        self.since = None;
    }

    fn seek(&mut self, to: f64, now: Instant) {
        if self.media.is_none() {
            return;
        }
        self.position = if self.live {
            to.max(0.0)
        } else {
            to.clamp(0.0, self.duration)
        };
        if self.since.is_some() {
            self.since = Some(now);
        }
    }

    /// Empty the layer; `playingItem` stays (the application never clears it).
    fn clear(&mut self) {
        *self = PlaybackClock {
            item: self.item.take(),
            extra: std::mem::take(&mut self.extra),
            ..PlaybackClock::default()
        };
    }

    fn to_json(&self, now: Instant) -> Map<String, Value> {
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        let elapsed = self.elapsed(now);
        let playing = self.is_playing(now);
        let remaining = if self.live || self.media.is_none() {
            0.0
        } else {
            self.duration - elapsed
        };
        let rate = if playing && !self.still() { 1.0 } else { 0.0 };
        let mut m = Map::new();
        m.insert("timeElapsed".into(), json!(round(elapsed)));
        m.insert("timeRemaining".into(), json!(round(remaining)));
        m.insert("playbackRate".into(), json!(rate));
        m.insert("isPlaying".into(), json!(playing));
        m.insert("isScrubbing".into(), json!(false));
        if let Some(item) = &self.item {
            m.insert("playingItem".into(), item.clone());
        }
        if let Some(media) = &self.media {
            m.insert("playingMedia".into(), media.clone());
        }
        for (k, v) in &self.extra {
            if !m.contains_key(k) {
                m.insert(k.clone(), v.clone());
            }
        }
        m
    }
}

/// Effects, effect preset and transition settings: the workspace has one set, each layer too.
#[derive(Debug, Clone)]
struct Settings {
    effects: Vec<Fx>,
    effect_preset: Option<usize>,
    transition: Option<usize>,
    transition_duration: f64,
}

/// The layer blend types of the document.
const BLEND_TYPES: [&str; 4] = ["Standard", "Alpha Matte", "Luma Matte", "White Matte"];

/// The keys of a Standard blend's base that follow the layer's state.
const STANDARD_BASE: [&str; 3] = ["name", "modeIndex", "opacity"];

#[derive(Debug, Clone)]
struct Layer {
    uuid: String,
    name: String,
    hidden: bool,
    muted: bool,
    opacity: f64,
    blend_mode: usize,
    /// One of BLEND_TYPES, and the base as last set (a Standard base's name, modeIndex and
    /// opacity, and a matte's isInverted, follow the state when answered).
    blend_type: &'static str,
    blend_base: Map<String, Value>,
    inverted: bool,
    target_set: Option<usize>,
    layer_preset: Option<usize>,
    settings: Settings,
    clock: PlaybackClock,
    extra: Extra,
}

#[derive(Debug, Clone)]
struct EffectPreset {
    uuid: String,
    name: String,
    /// `None` is answered as null.
    effects: Option<Vec<Fx>>,
    extra: Extra,
}

/// The whole simulated state of both applications.
#[derive(Debug, Clone)]
pub struct World {
    answers: Answers,
    playlists: Playlist,
    blend_modes: Vec<BlendMode>,
    layer_presets: Vec<LayerPreset>,
    target_sets: Vec<Named>,
    effects: Vec<Fx>,
    effect_presets: Vec<EffectPreset>,
    transitions: Vec<Fx>,
    layers: Vec<Layer>,
    workspace: Settings,
    selected_layer: usize,
    /// Where untargeted media plays: the layer last selected with `target=true`.
    targeted_layer: usize,
    /// UUID of the selected playlist.
    selected_playlist: Option<String>,
    pub scores: Scores,
}

/// Builds a [`Settings`] from the seed: JSON path, transition, duration, effects, preset.
type SettingsOf<'a> =
    dyn Fn(&str, Option<&String>, f64, &[FxRef], Option<&String>) -> Result<Settings, String> + 'a;

/// Resolve a reference of the workspace file (a UUID or a name) in a catalogue; `at` is the
/// JSON path of the reference, `catalogue` the key of the list it names.
fn seed_ref<T>(
    at: &str,
    catalogue: &str,
    items: &[T],
    key: &str,
    keys: impl Fn(&T) -> [&str; 2],
) -> Result<usize, String> {
    lookup(items, key, &keys).ok_or_else(|| {
        format!(
            "at {at}: {key:?} is not in {catalogue} (expected one of: {})",
            names(items, |t| keys(t)[1])
        )
    })
}

fn seed_opt<T>(
    at: &str,
    catalogue: &str,
    items: &[T],
    key: Option<&String>,
    keys: impl Fn(&T) -> [&str; 2],
) -> Result<Option<usize>, String> {
    key.map(|k| seed_ref(at, catalogue, items, k, keys))
        .transpose()
}

fn seed_effects(at: &str, effects: &[Fx], refs: &[FxRef]) -> Result<Vec<Fx>, String> {
    refs.iter()
        .enumerate()
        .map(|(i, r)| match r {
            FxRef::Inline(fx) => Ok(fx.clone()),
            FxRef::Ref(key) => seed_ref(&format!("{at}[{i}]"), "effects", effects, key, fx_keys)
                .map(|i| effects[i].clone()),
        })
        .collect()
}

impl World {
    /// Build the state from a workspace file, resolving every reference (an error names the
    /// JSON path of the reference and what it could be).
    pub fn new(ws: &Workspace) -> Result<World, String> {
        let now = Instant::now();
        let effect_presets = ws
            .effect_presets
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let at = format!("effectPresets[{i}].effects");
                Ok(EffectPreset {
                    uuid: p.uuid.clone(),
                    name: p.name.clone(),
                    effects: match &p.effects {
                        Some(refs) => Some(seed_effects(&at, &ws.effects, refs)?),
                        None => None,
                    },
                    extra: p.extra.clone(),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let settings = |at: &str,
                        transition: Option<&String>,
                        duration: f64,
                        effects: &[FxRef],
                        preset: Option<&String>|
         -> Result<Settings, String> {
            Ok(Settings {
                effects: seed_effects(&format!("{at}.effects"), &ws.effects, effects)?,
                effect_preset: seed_opt(
                    &format!("{at}.effectPreset"),
                    "effectPresets",
                    &effect_presets,
                    preset,
                    preset_keys,
                )?,
                transition: seed_opt(
                    &format!("{at}.transition"),
                    "transitions",
                    &ws.transitions,
                    transition,
                    fx_keys,
                )?,
                transition_duration: single(duration.clamp(0.0, MAX_TRANSITION_DURATION)),
            })
        };
        let w = &ws.workspace;
        let workspace = settings(
            "workspace",
            w.transition.as_ref(),
            w.transition_duration,
            &w.effects,
            w.effect_preset.as_ref(),
        )?;
        let mut layers = Vec::with_capacity(ws.layers.len());
        for (i, l) in ws.layers.iter().enumerate() {
            let at = format!("layers[{i}]");
            layers.push(Self::seed_layer(ws, l, &at, &settings, now)?);
        }
        for (i, p) in ws.layer_presets.iter().enumerate() {
            if let Some(m) = &p.blend_mode {
                let at = format!("layerPresets[{i}].blendMode");
                seed_ref(&at, "blendModes", &ws.blend_modes, m, blend_keys)?;
            }
        }
        let layer_keys = |l: &LayerSeed| [l.uuid.clone(), l.name.clone()];
        let find_layer = |at: &str, key: &str| -> Result<usize, String> {
            let keys: Vec<[String; 2]> = ws.layers.iter().map(layer_keys).collect();
            seed_ref(at, "layers", &keys, key, |k| [&k[0], &k[1]])
        };
        for p in ws.playlists.all() {
            for c in &p.items {
                if let Some(l) = &c.layer {
                    find_layer(&format!("the layer of cue {:?}", c.name), l)?;
                }
            }
        }
        let targeted_layer = match &w.target_layer {
            Some(l) => find_layer("workspace.targetLayer", l)?,
            None => 0,
        };
        let mut world = World {
            answers: ws.answers.clone(),
            playlists: ws.playlists.clone(),
            blend_modes: ws.blend_modes.clone(),
            layer_presets: ws.layer_presets.clone(),
            target_sets: ws.target_sets.clone(),
            effects: ws.effects.clone(),
            effect_presets,
            transitions: ws.transitions.clone(),
            layers,
            workspace,
            selected_layer: targeted_layer,
            targeted_layer,
            selected_playlist: None,
            scores: Scores::new(&ws.scoreboard)?,
        };
        world.selected_playlist = match &w.selected_playlist {
            Some(p) => Some(
                world
                    .playlist(p)
                    .map_err(|e| format!("at workspace.selectedPlaylist: {}", e.0))?
                    .uuid
                    .clone(),
            ),
            None => world.top_level().next().map(|p| p.uuid.clone()),
        };
        Ok(world)
    }

    fn seed_layer(
        ws: &Workspace,
        l: &LayerSeed,
        at: &str,
        settings: &SettingsOf<'_>,
        now: Instant,
    ) -> Result<Layer, String> {
        let blend = l.layer_blend.as_ref();
        let blend_type = match blend {
            None => BLEND_TYPES[0],
            Some(b) => *BLEND_TYPES.iter().find(|t| **t == b.kind).ok_or_else(|| {
                format!(
                    "at {at}.layerBlend.type: expected one of {}, got {:?}",
                    BLEND_TYPES.join(", "),
                    b.kind
                )
            })?,
        };
        let base = blend.map(|b| b.base.clone());
        let from_base = base
            .as_ref()
            .and_then(|b| b.get("modeIndex"))
            .and_then(Value::as_u64)
            .map(|m| m as usize)
            .filter(|m| *m < ws.blend_modes.len());
        let blend_mode = match &l.blend_mode {
            Some(m) => seed_ref(
                &format!("{at}.blendMode"),
                "blendModes",
                &ws.blend_modes,
                m,
                blend_keys,
            )?,
            None => from_base.unwrap_or(0),
        };
        let inverted = base
            .as_ref()
            .and_then(|b| b.get("isInverted"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(Layer {
            uuid: l.uuid.clone(),
            name: l.name.clone(),
            hidden: l.is_hidden,
            muted: l.is_muted,
            opacity: single(l.opacity.clamp(0.0, 1.0)),
            blend_mode,
            blend_type,
            blend_base: base.unwrap_or_else(|| Self::fresh_base(blend_type)),
            inverted,
            target_set: seed_opt(
                &format!("{at}.targetSet"),
                "targetSets",
                &ws.target_sets,
                l.target_set.as_ref(),
                named_keys,
            )?,
            layer_preset: seed_opt(
                &format!("{at}.layerPreset"),
                "layerPresets",
                &ws.layer_presets,
                l.layer_preset.as_ref(),
                layer_preset_keys,
            )?,
            settings: settings(
                at,
                l.transition.as_ref(),
                l.transition_duration,
                &l.effects,
                l.effect_preset.as_ref(),
            )?,
            clock: l
                .transport
                .as_ref()
                .map_or_else(PlaybackClock::default, |t| PlaybackClock::seeded(t, now)),
            extra: l.extra.clone(),
        })
    }

    /// The base a blend type answers with when set through the API.
    fn fresh_base(kind: &str) -> Map<String, Value> {
        let keys: &[&str] = match kind {
            "Standard" => &STANDARD_BASE,
            "White Matte" => &[],
            _ => &["isInverted"],
        };
        keys.iter().map(|k| (k.to_string(), Value::Null)).collect()
    }

    // --- lookups --------------------------------------------------------------------------

    fn top_level(&self) -> impl Iterator<Item = &Playlist> {
        self.playlists.children.iter().filter(|p| !p.video_input)
    }

    fn layer_index(&self, id: &str) -> Outcome<usize> {
        match parse_id(id) {
            Id::Index(i) if i < 0 => bad(format!(
                "layer index {i} is negative (the application crashes on negative indices)"
            )),
            Id::Index(i) => match usize::try_from(i) {
                Ok(i) if i < self.layers.len() => Ok(i),
                _ => bad(format!(
                    "no layer at index {i}: the workspace has {} layers",
                    self.layers.len()
                )),
            },
            Id::Key(k) => lookup(&self.layers, k, |l| [&l.uuid, &l.name]).map_or_else(
                || {
                    bad(format!(
                        "no layer with the name or UUID {k:?} (layers: {})",
                        names(&self.layers, |l| &l.name)
                    ))
                },
                Ok,
            ),
        }
    }

    /// A playlist by top-level index, -1 (the video input playlist), UUID or name (anywhere in
    /// the tree).
    fn playlist(&self, id: &str) -> Outcome<&Playlist> {
        let found = match parse_id(id) {
            Id::Index(-1) => self.playlists.find(&|p| p.video_input),
            Id::Index(i) if i < -1 => {
                return bad(format!(
                    "playlist index {i} is below -1 (the application crashes on it)"
                ))
            }
            Id::Index(i) => usize::try_from(i)
                .ok()
                .and_then(|i| self.top_level().nth(i)),
            Id::Key(k) => self
                .playlists
                .find(&|p| p.uuid == k)
                .or_else(|| self.playlists.find(&|p| p.name == k)),
        };
        found.map_or_else(|| bad(format!("no playlist {id:?}")), Ok)
    }

    /// A cue of a playlist by index, UUID or name; `live` when the playlist is the video
    /// input playlist.
    fn cue(&self, playlist: &Playlist, id: &str) -> Outcome<(Cue, bool)> {
        let found = match parse_id(id) {
            Id::Index(i) if i < 0 => {
                return bad(format!(
                    "cue index {i} is negative (the application crashes on negative indices)"
                ))
            }
            Id::Index(i) => usize::try_from(i).ok().and_then(|i| playlist.items.get(i)),
            Id::Key(k) => {
                lookup(&playlist.items, k, |c| [&c.uuid, &c.name]).map(|i| &playlist.items[i])
            }
        };
        match found {
            Some(c) => Ok((c.clone(), playlist.video_input)),
            None => bad(format!(
                "no cue {id:?} in playlist {:?} ({} items)",
                playlist.name,
                playlist.items.len()
            )),
        }
    }

    fn scope(&mut self, scope: Scope<'_>) -> Outcome<&mut Settings> {
        Ok(match scope {
            Scope::Workspace => &mut self.workspace,
            Scope::Layer(id) => {
                let i = self.layer_index(id)?;
                &mut self.layers[i].settings
            }
        })
    }

    fn settings(&self, scope: Scope<'_>) -> Outcome<&Settings> {
        Ok(match scope {
            Scope::Workspace => &self.workspace,
            Scope::Layer(id) => &self.layers[self.layer_index(id)?].settings,
        })
    }

    // --- reads ----------------------------------------------------------------------------

    fn playlist_json(p: &Playlist) -> Value {
        let mut m = Map::new();
        m.insert("uuid".into(), json!(p.uuid));
        m.insert("name".into(), json!(p.name));
        m.insert(
            "items".into(),
            Value::Array(p.items.iter().map(Cue::summary).collect()),
        );
        m.insert(
            "children".into(),
            Value::Array(p.children.iter().map(Self::playlist_json).collect()),
        );
        with_extra(m, &p.extra)
    }

    pub fn playlists_json(&self) -> Value {
        json!({ "playlist": Self::playlist_json(&self.playlists) })
    }

    pub fn playlist_by_id_json(&self, id: &str) -> Outcome<Value> {
        Ok(json!({ "playlist": Self::playlist_json(self.playlist(id)?) }))
    }

    pub fn cue_json(&self, playlist: &str, cue: &str) -> Outcome<Value> {
        let (cue, _) = self.cue(self.playlist(playlist)?, cue)?;
        Ok(json!({ "playlistItem": cue.summary() }))
    }

    fn layer_map(&self, l: &Layer) -> Map<String, Value> {
        let uuid_or_null = |u: Option<&str>| u.unwrap_or("null").to_string();
        let mut m = Map::new();
        m.insert("uuid".into(), json!(l.uuid));
        m.insert("name".into(), json!(l.name));
        m.insert("isHidden".into(), json!(l.hidden));
        m.insert("isMuted".into(), json!(l.muted));
        m.insert("opacity".into(), json!(l.opacity));
        m.insert(
            "effects".into(),
            Value::Array(l.settings.effects.iter().map(Fx::to_json).collect()),
        );
        m.insert(
            "effectPresetUUID".into(),
            json!(uuid_or_null(
                l.settings
                    .effect_preset
                    .map(|i| self.effect_presets[i].uuid.as_str())
            )),
        );
        m.insert(
            "targetSetUUID".into(),
            json!(uuid_or_null(
                l.target_set.map(|i| self.target_sets[i].uuid.as_str())
            )),
        );
        m.insert(
            "transitionDuration".into(),
            json!(l.settings.transition_duration),
        );
        m
    }

    fn layer_value(&self, l: &Layer) -> Value {
        with_extra(self.layer_map(l), &l.extra)
    }

    pub fn layers_json(&self) -> Value {
        list("layer", self.layers.iter().map(|l| self.layer_value(l)))
    }

    pub fn layer_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(json!({ "layer": self.layer_value(l) }))
    }

    /// The transition a transport-state layer reports: its own, else the workspace's, with
    /// the layer's `duration` and the transition's `favoriteUUID`.
    fn live_transition(&self, l: &Layer) -> Value {
        let Some(i) = l.settings.transition.or(self.workspace.transition) else {
            return Value::Null;
        };
        let t = &self.transitions[i];
        let mut v = t.to_json();
        if let Value::Object(m) = &mut v {
            m.insert("duration".into(), json!(l.settings.transition_duration));
            let favorite = t.favorite_uuid.as_deref().unwrap_or(&t.uuid);
            m.insert("favoriteUUID".into(), json!(favorite));
        }
        v
    }

    fn transport_of(&self, l: &Layer, now: Instant) -> Value {
        let mut ts = l.clock.to_json(now);
        let mut layer = self.layer_map(l);
        layer.insert("layerBlend".into(), self.layer_blend(l));
        layer.insert("transition".into(), self.live_transition(l));
        ts.insert("layer".into(), with_extra(layer, &l.extra));
        Value::Object(ts)
    }

    pub fn transport_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let now = Instant::now();
        Ok(match scope {
            Scope::Workspace => list(
                "transportState",
                self.layers.iter().map(|l| self.transport_of(l, now)),
            ),
            Scope::Layer(id) => {
                let l = &self.layers[self.layer_index(id)?];
                json!({ "transportState": self.transport_of(l, now) })
            }
        })
    }

    pub fn opacity_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(match self.answers.opacity {
            OpacityForm::Field => json!({ "opacity": { "value": l.opacity } }),
            OpacityForm::Document => json!({ "value": l.opacity }),
        })
    }

    pub fn blend_modes_json(&self) -> Value {
        list("blendMode", self.blend_modes.iter().map(BlendMode::to_json))
    }

    pub fn layer_blend_mode_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(json!({ "blendMode": self.blend_modes[l.blend_mode].to_json() }))
    }

    fn layer_blend(&self, l: &Layer) -> Value {
        let mut base = l.blend_base.clone();
        for (k, v) in base.iter_mut() {
            match (l.blend_type, k.as_str()) {
                ("Standard", "name") => *v = json!(self.blend_modes[l.blend_mode].name),
                ("Standard", "modeIndex") => *v = json!(l.blend_mode),
                ("Standard", "opacity") => *v = json!(l.opacity),
                ("Alpha Matte" | "Luma Matte", "isInverted") => *v = json!(l.inverted),
                _ => {}
            }
        }
        json!({ "type": l.blend_type, "base": base })
    }

    pub fn blend_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(json!({ "layerBlend": self.layer_blend(l) }))
    }

    pub fn layer_presets_json(&self) -> Value {
        let items: Vec<Value> = self
            .layer_presets
            .iter()
            .map(LayerPreset::to_json)
            .collect();
        json!({ "data": items })
    }

    /// The preset the layer has applied (an empty list when none).
    pub fn layer_presets_of_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        let items: Vec<Value> = l
            .layer_preset
            .map(|i| self.layer_presets[i].to_json())
            .into_iter()
            .collect();
        Ok(json!({ "data": items }))
    }

    pub fn target_sets_json(&self) -> Value {
        list("targetSet", self.target_sets.iter().map(Named::to_json))
    }

    pub fn layer_target_set_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(json!({ "targetSet": l.target_set.map(|i| self.target_sets[i].to_json()) }))
    }

    pub fn effects_json(&self) -> Value {
        list("effect", self.effects.iter().map(Fx::to_json))
    }

    pub fn scope_effects_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        Ok(list("effect", s.effects.iter().map(Fx::to_json)))
    }

    fn effect_preset_value(p: &EffectPreset) -> Value {
        let mut m = Map::new();
        m.insert("uuid".into(), json!(p.uuid));
        m.insert("name".into(), json!(p.name));
        m.insert(
            "effects".into(),
            p.effects.as_ref().map_or(Value::Null, |e| {
                Value::Array(e.iter().map(Fx::to_json).collect())
            }),
        );
        with_extra(m, &p.extra)
    }

    pub fn effect_presets_json(&self) -> Value {
        list(
            "effectPreset",
            self.effect_presets.iter().map(Self::effect_preset_value),
        )
    }

    pub fn scope_effect_preset_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        let p = s
            .effect_preset
            .map(|i| Self::effect_preset_value(&self.effect_presets[i]));
        Ok(json!({ "effectPreset": p }))
    }

    pub fn transitions_json(&self) -> Value {
        let items = self
            .transitions
            .iter()
            .map(|t| json!({ "transition": t.to_json() }));
        let key = match self.answers.transition_list {
            TransitionListKey::Data => "data",
            TransitionListKey::Transitions => "transitions",
        };
        json!({ key: items.collect::<Vec<_>>() })
    }

    pub fn scope_transition_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        Ok(json!({ "transition": s.transition.map(|i| self.transitions[i].to_json()) }))
    }

    pub fn scope_duration_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        Ok(json!({ "transitionDuration": { "value": s.transition_duration } }))
    }

    pub fn scores_json(&self) -> Value {
        Value::Object(self.scores.current().clone())
    }

    // --- commands -------------------------------------------------------------------------

    fn apply(layer: &mut Layer, op: Op, now: Instant) {
        match op {
            Op::Clear => layer.clock.clear(),
            Op::Mute => layer.muted = true,
            Op::Unmute => layer.muted = false,
            Op::Hide => layer.hidden = true,
            Op::Unhide => layer.hidden = false,
            Op::Play => layer.clock.play(now),
            Op::Pause => layer.clock.pause(now),
        }
    }

    /// A command on one layer.
    pub fn layer_op(&mut self, id: &str, op: Op) -> Outcome<()> {
        let i = self.layer_index(id)?;
        Self::apply(&mut self.layers[i], op, Instant::now());
        Ok(())
    }

    /// A command on the workspace: it applies to every layer.
    pub fn workspace_op(&mut self, op: Op) {
        let now = Instant::now();
        for l in &mut self.layers {
            Self::apply(l, op, now);
        }
    }

    /// Move the play head of a layer: `to(elapsed, duration)` gives the new position.
    pub fn seek(&mut self, id: &str, to: impl Fn(f64, f64) -> f64) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let now = Instant::now();
        let t = &mut self.layers[i].clock;
        let target = to(t.elapsed(now), t.duration);
        t.seek(target, now);
        Ok(())
    }

    /// Select a layer; with `target` it also becomes the layer untargeted media plays on.
    pub fn select_layer(&mut self, id: &str, target: bool) -> Outcome<()> {
        let i = self.layer_index(id)?;
        self.selected_layer = i;
        if target {
            self.targeted_layer = i;
        }
        Ok(())
    }

    pub fn select_playlist(&mut self, id: &str) -> Outcome<()> {
        self.selected_playlist = Some(self.playlist(id)?.uuid.clone());
        Ok(())
    }

    /// The selected layer (index), the targeted one and the selected playlist's UUID.
    pub fn selection(&self) -> (usize, usize, Option<String>) {
        (
            self.selected_layer,
            self.targeted_layer,
            self.selected_playlist.clone(),
        )
    }

    /// Play a cue: on its configured layer when it has one, else on the targeted layer.
    fn play(&mut self, (cue, live): (Cue, bool)) -> Outcome<()> {
        let layer = match &cue.layer {
            Some(l) => self.layer_index(l)?,
            None => self.targeted_layer,
        };
        match self.layers.get_mut(layer) {
            Some(l) => {
                l.clock.load(&cue, live, Instant::now());
                Ok(())
            }
            None => bad("the workspace has no layer to play on"),
        }
    }

    /// POST /trigger/cue/{id}: a cue of the selected playlist, by index or UUID (a UUID works
    /// only when the cue's playlist is selected; a name is refused, as in the field).
    pub fn trigger_cue(&mut self, cue: &str) -> Outcome<()> {
        let selected = self.selected_playlist.clone().unwrap_or_default();
        let p = self.playlist(&selected)?;
        let found = match parse_id(cue) {
            Id::Index(_) => self.cue(p, cue)?,
            Id::Key(k) => match p.items.iter().find(|c| c.uuid == k) {
                Some(c) => (c.clone(), p.video_input),
                None => return bad(self.not_in_selected(p, k)),
            },
        };
        self.play(found)
    }

    /// Why `/trigger/cue/{k}` found no cue `k` in the selected playlist `p`.
    fn not_in_selected(&self, p: &Playlist, k: &str) -> String {
        if p.items.iter().any(|c| c.name == k) {
            return format!(
                "this endpoint takes a cue index or UUID, not a name ({k:?}); send the cue's \
                 index or UUID"
            );
        }
        let elsewhere = self
            .playlists
            .all()
            .into_iter()
            .find(|q| q.items.iter().any(|c| c.uuid == k));
        match elsewhere {
            Some(q) => format!(
                "cue {k} is in playlist {:?}, not in the selected playlist {:?}: select its \
                 playlist first",
                q.name, p.name
            ),
            None => format!(
                "no cue with the index or UUID {k:?} in the selected playlist {:?}",
                p.name
            ),
        }
    }

    /// POST /trigger/playlist/{id}: the first cue of the playlist.
    pub fn trigger_playlist(&mut self, playlist: &str) -> Outcome<()> {
        let p = self.playlist(playlist)?;
        if p.items.is_empty() {
            return bad(format!("playlist {:?} has no cues", p.name));
        }
        let found = self.cue(p, "0")?;
        self.play(found)
    }

    /// POST /trigger/playlist/{p}/cue/{c} and /trigger/layer/{l}/playlist/{p}/cue/{c}: the
    /// layer must exist but is ignored, as in the field (the cue plays on its own layer).
    pub fn trigger_playlist_cue(
        &mut self,
        layer: Option<&str>,
        playlist: &str,
        cue: &str,
    ) -> Outcome<()> {
        if let Some(id) = layer {
            self.layer_index(id)?;
        }
        let found = self.cue(self.playlist(playlist)?, cue)?;
        self.play(found)
    }

    /// Opacity out of range is clamped, as the application does, and kept in single
    /// precision. On a layer with a matte blend it also replaces the blend with Normal
    /// (Standard), as the 3.8/3.9 reference says.
    pub fn set_opacity(&mut self, id: &str, value: Option<f64>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let Some(v) = value else {
            return Ok(());
        };
        let normal = lookup(&self.blend_modes, "Normal", blend_keys).unwrap_or(0);
        let l = &mut self.layers[i];
        l.opacity = single(v.clamp(0.0, 1.0));
        if l.blend_type != BLEND_TYPES[0] {
            l.blend_type = BLEND_TYPES[0];
            l.blend_base = Self::fresh_base(BLEND_TYPES[0]);
            l.blend_mode = normal;
            l.inverted = false;
        }
        Ok(())
    }

    fn blend_mode_index(&self, name: &str) -> Outcome<usize> {
        lookup(&self.blend_modes, name, blend_keys).map_or_else(
            || {
                bad(format!(
                    "no blend mode {name:?} (blend modes: {})",
                    names(&self.blend_modes, |b| &b.name)
                ))
            },
            Ok,
        )
    }

    pub fn set_blend_mode(&mut self, id: &str, name: Option<&str>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        if let Some(name) = name {
            self.layers[i].blend_mode = self.blend_mode_index(name)?;
        }
        Ok(())
    }

    /// POST /blend/layer/{id}: {type, base}, also accepted wrapped in a layerBlend key;
    /// `None` (no usable body) changes nothing.
    pub fn set_blend(&mut self, id: &str, body: Option<&Value>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let Some(body) = body else {
            return Ok(());
        };
        let blend = body.get("layerBlend").unwrap_or(body);
        let Some(kind) = blend.get("type").and_then(Value::as_str) else {
            return bad("the body needs a \"type\" string (Standard, Alpha Matte, Luma Matte or White Matte)");
        };
        let Some(&kind) = BLEND_TYPES.iter().find(|t| **t == kind) else {
            return bad(format!(
                "unknown layer blend type {kind:?} (types: {})",
                BLEND_TYPES.join(", ")
            ));
        };
        let empty = Map::new();
        let base = match blend.get("base") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(_) => return bad("\"base\" must be an object"),
        };
        let mut mode = self.layers[i].blend_mode;
        let mut opacity = self.layers[i].opacity;
        let mut inverted = false;
        if kind == "Standard" {
            if let Some(v) = base.get("modeIndex") {
                match v.as_u64().map(|m| m as usize) {
                    Some(m) if m < self.blend_modes.len() => mode = m,
                    _ => {
                        return bad(format!(
                            "base.modeIndex must be a blend mode index from 0 to {}",
                            self.blend_modes.len() - 1
                        ))
                    }
                }
            }
            if let Some(v) = base.get("opacity") {
                match v.as_f64() {
                    Some(o) => opacity = single(o.clamp(0.0, 1.0)),
                    None => return bad("base.opacity must be a number"),
                }
            }
        } else if let Some(v) = base.get("isInverted") {
            match v.as_bool() {
                Some(b) => inverted = b,
                None => return bad("base.isInverted must be a boolean"),
            }
        }
        let l = &mut self.layers[i];
        l.blend_type = kind;
        l.blend_base = Self::fresh_base(kind);
        l.blend_mode = mode;
        l.opacity = opacity;
        l.inverted = inverted;
        Ok(())
    }

    /// Apply a layer preset (by name or id): it sets the layer fields it carries. An empty
    /// name unlinks the layer's preset.
    pub fn apply_layer_preset(&mut self, id: &str, preset: Option<&str>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let Some(preset) = preset else {
            return Ok(());
        };
        if preset.is_empty() {
            self.layers[i].layer_preset = None;
            return Ok(());
        }
        let Some(p) = lookup(&self.layer_presets, preset, layer_preset_keys) else {
            return bad(format!(
                "no layer preset {preset:?} (presets: {})",
                names(&self.layer_presets, |p| &p.name)
            ));
        };
        let found = self.layer_presets[p].clone();
        let mode = found
            .blend_mode
            .as_deref()
            .map(|m| self.blend_mode_index(m))
            .transpose()?;
        let l = &mut self.layers[i];
        l.layer_preset = Some(p);
        if let Some(o) = found.opacity {
            l.opacity = single(o.clamp(0.0, 1.0));
        }
        if let Some(m) = mode {
            l.blend_mode = m;
        }
        if let Some(h) = found.is_hidden {
            l.hidden = h;
        }
        if let Some(m) = found.is_muted {
            l.muted = m;
        }
        Ok(())
    }

    /// The target set a value names: `None` for nil ("No Selection"). `Err` carries the
    /// text of a refusal; `index` is told when the value is an index, which the application
    /// does not support (it ends at "No Selection").
    pub fn target_set_of(&self, value: Given<'_>) -> Outcome<(Option<usize>, bool)> {
        match value {
            Given::Nothing | Given::Null => Ok((None, false)),
            Given::Number(_) => Ok((None, true)),
            Given::Text(n) => match lookup(&self.target_sets, n, named_keys) {
                Some(t) => Ok((Some(t), false)),
                None if matches!(parse_id(n), Id::Index(_)) => Ok((None, true)),
                None => bad(format!(
                    "no target set {n:?} (target sets: {})",
                    names(&self.target_sets, |t| &t.name)
                )),
            },
        }
    }

    pub fn set_target_set(&mut self, id: &str, set: Option<usize>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        self.layers[i].target_set = set;
        Ok(())
    }

    /// POST /effects/{workspace|layer}: {effect: {uuid, name?, enabled?, variables?}} (the
    /// unwrapped form is read too). A known effect is added, or updated when already active.
    /// `None` (no usable body) changes nothing.
    pub fn set_effect(&mut self, scope: Scope<'_>, body: Option<&Value>) -> Outcome<()> {
        self.settings(scope)?;
        let Some(body) = body else {
            return Ok(());
        };
        let fields = body.get("effect").unwrap_or(body);
        let Some(uuid) = fields.get("uuid").and_then(Value::as_str) else {
            return bad("the body needs {\"effect\": {\"uuid\": ...}}");
        };
        let Some(known) = self.effects.iter().find(|e| e.uuid == uuid).cloned() else {
            return bad(format!(
                "no effect with the UUID {uuid:?} (GET /effects lists them)"
            ));
        };
        let enabled = match fields.get("enabled") {
            None => None,
            Some(v) => match v.as_bool() {
                Some(b) => Some(b),
                None => return bad("effect.enabled must be a boolean"),
            },
        };
        let variables = match fields.get("variables") {
            None => None,
            Some(Value::Array(v)) => Some(v.clone()),
            Some(_) => return bad("effect.variables must be an array"),
        };
        let s = self.scope(scope)?;
        let slot = match s.effects.iter().position(|e| e.uuid == uuid) {
            Some(i) => &mut s.effects[i],
            None => {
                s.effects.push(known);
                s.effects.last_mut().expect("just pushed")
            }
        };
        if let Some(b) = enabled {
            slot.enabled = b;
        }
        if let Some(v) = variables {
            slot.variables = v;
        }
        Ok(())
    }

    /// Select an effect preset (by UUID or name) and take its effects; null or an empty name
    /// selects none and keeps the effects; `Nothing` changes nothing.
    pub fn set_effect_preset(&mut self, scope: Scope<'_>, preset: Given<'_>) -> Outcome<()> {
        self.settings(scope)?;
        let found = match preset {
            Given::Nothing => return Ok(()),
            Given::Null | Given::Text("") => None,
            Given::Number(n) => return bad(format!("\"value\" must be a string, got {n}")),
            Given::Text(k) => match lookup(&self.effect_presets, k, preset_keys) {
                Some(i) => Some((i, self.effect_presets[i].effects.clone())),
                None => {
                    return bad(format!(
                        "no effect preset {k:?} (presets: {})",
                        names(&self.effect_presets, |p| &p.name)
                    ))
                }
            },
        };
        let s = self.scope(scope)?;
        match found {
            Some((i, effects)) => {
                s.effect_preset = Some(i);
                s.effects = effects.unwrap_or_default();
            }
            None => s.effect_preset = None,
        }
        Ok(())
    }

    /// Set a transition (by UUID or name); null means the master transition for a layer,
    /// none for the workspace; `Nothing` changes nothing.
    pub fn set_transition(&mut self, scope: Scope<'_>, key: Given<'_>) -> Outcome<()> {
        self.settings(scope)?;
        let t = match key {
            Given::Nothing => return Ok(()),
            Given::Null => None,
            Given::Number(n) => return bad(format!("\"value\" must be a string, got {n}")),
            Given::Text(k) => match lookup(&self.transitions, k, fx_keys) {
                Some(i) => Some(i),
                None => {
                    return bad(format!(
                        "no transition {k:?} (transitions: {})",
                        names(&self.transitions, |t| &t.name)
                    ))
                }
            },
        };
        self.scope(scope)?.transition = t;
        Ok(())
    }

    /// Clamped to 0.0–5.0, as opacity is; `None` changes nothing.
    pub fn set_transition_duration(
        &mut self,
        scope: Scope<'_>,
        seconds: Option<f64>,
    ) -> Outcome<()> {
        let s = self.scope(scope)?;
        if let Some(v) = seconds {
            s.transition_duration = single(v.clamp(0.0, MAX_TRANSITION_DURATION));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn world() -> World {
        World::new(&Workspace::builtin()).unwrap()
    }

    fn cue(name: &str, duration: f64) -> Cue {
        Cue {
            name: name.into(),
            uuid: "u".into(),
            duration,
            media: None,
            layer: None,
            extra: Extra::new(),
        }
    }

    #[test]
    fn identifiers() {
        assert_eq!(parse_id("12"), Id::Index(12));
        assert_eq!(parse_id("-1"), Id::Index(-1));
        assert_eq!(parse_id("1a"), Id::Key("1a"));
        assert_eq!(parse_id("-"), Id::Key("-"));
        assert_eq!(parse_id("99999999999999999999"), Id::Index(i64::MAX));
        let w = world();
        assert_eq!(w.layer_index("2").unwrap(), 2);
        assert_eq!(w.layer_index("Lower Third/Left").unwrap(), 2);
        let uuid = w.layers[3].uuid.clone();
        assert_eq!(w.layer_index(&uuid).unwrap(), 3);
        assert!(w.layer_index("-1").unwrap_err().0.contains("negative"));
        assert!(w.layer_index("9").unwrap_err().0.contains("4 layers"));
        assert!(w.layer_index("Nope").unwrap_err().0.contains("\"Main\""));
        assert!(w.playlist("-1").unwrap().video_input);
        assert!(w.playlist("-2").is_err());
        assert_eq!(w.playlist("1").unwrap().name, "Main Show");
        assert_eq!(w.playlist("Highlights").unwrap().items.len(), 2);
    }

    #[test]
    fn transport_clock() {
        let t0 = Instant::now();
        let mut t = PlaybackClock::default();
        t.load(&cue("c", 10.0), false, t0);
        let at = |s: f64| t0 + Duration::from_secs_f64(s);
        assert_eq!(t.elapsed(at(2.0)), 2.0);
        assert!(t.is_playing(at(2.0)));
        assert!(!t.is_playing(at(11.0)));
        assert_eq!(t.elapsed(at(11.0)), 10.0);
        t.pause(at(3.0));
        assert_eq!(t.elapsed(at(8.0)), 3.0);
        t.seek(7.5, at(8.0));
        t.play(at(9.0));
        assert_eq!(t.elapsed(at(10.0)), 8.5);
        t.clear();
        let json = t.to_json(at(10.0));
        assert!(json.get("playingMedia").is_none());
        assert_eq!(json["playingItem"]["name"], "c");
        assert_eq!(json["isPlaying"], false);
    }

    #[test]
    fn still_image_plays_at_rate_zero() {
        let t0 = Instant::now();
        let mut t = PlaybackClock::default();
        t.load(&cue("s", 0.0), false, t0);
        let json = t.to_json(t0 + Duration::from_secs(5));
        assert_eq!(json["isPlaying"], true);
        assert_eq!(json["playbackRate"], 0.0);
    }

    #[test]
    fn workspace_ops_apply_to_every_layer() {
        let mut w = world();
        w.workspace_op(Op::Mute);
        assert!(w.layers.iter().all(|l| l.muted));
        w.layer_op("Main", Op::Unmute).unwrap();
        assert!(!w.layers[1].muted && w.layers[0].muted);
    }

    #[test]
    fn untargeted_media_plays_on_the_targeted_layer() {
        let mut w = world();
        // The default workspace targets "Main" at start.
        w.select_playlist("Main Show").unwrap();
        assert!(w.trigger_cue("Sponsor Reel").is_err());
        w.trigger_cue("1").unwrap();
        let ts = w.transport_json(Scope::Layer("Main")).unwrap();
        assert_eq!(ts["transportState"]["playingItem"]["name"], "Sponsor Reel");
        assert_eq!(ts["transportState"]["playingMedia"]["name"], "sponsors.mp4");
        // Selecting without target does not retarget.
        w.select_layer("0", false).unwrap();
        w.trigger_playlist("Opening").unwrap();
        let main = w.transport_json(Scope::Layer("Main")).unwrap();
        assert_eq!(main["transportState"]["playingItem"]["name"], "Countdown");
        w.select_layer("0", true).unwrap();
        // The layer of /trigger/layer/... is ignored: the cue plays on the targeted layer.
        w.trigger_playlist_cue(Some("3"), "-1", "Camera 2").unwrap();
        let ts = w.transport_json(Scope::Layer("0")).unwrap();
        assert_eq!(ts["transportState"]["playingMedia"]["name"], "Camera 2");
        assert_eq!(ts["transportState"]["timeRemaining"], 0.0);
        let logo = w.transport_json(Scope::Layer("3")).unwrap();
        assert!(logo["transportState"].get("playingMedia").is_none());
        // A cue with a configured layer plays there, whatever the request names.
        w.trigger_playlist_cue(Some("0"), "Main Show", "Speaker Lower Third")
            .unwrap();
        let third = w.transport_json(Scope::Layer("2")).unwrap();
        assert_eq!(
            third["transportState"]["playingItem"]["name"],
            "Speaker Lower Third"
        );
    }

    #[test]
    fn blend_standard_moves_mode_and_opacity() {
        let mut w = world();
        let body =
            json!({"layerBlend": {"type": "Standard", "base": {"modeIndex": 3, "opacity": 3}}});
        w.set_blend("0", Some(&body)).unwrap();
        assert_eq!(
            w.layer_blend_mode_json("0").unwrap()["blendMode"]["name"],
            "Multiply"
        );
        assert_eq!(w.opacity_json("0").unwrap()["opacity"]["value"], 1.0);
        let body = json!({"type": "Luma Matte", "base": {"isInverted": true}});
        w.set_blend("0", Some(&body)).unwrap();
        let b = w.blend_json("0").unwrap();
        assert_eq!(b["layerBlend"]["base"], json!({"isInverted": true}));
        assert!(w.set_blend("0", Some(&json!({"type": "Sepia"}))).is_err());
        w.set_blend("0", None).unwrap();
        assert_eq!(w.blend_json("0").unwrap(), b);
    }

    #[test]
    fn opacity_replaces_a_matte_with_normal() {
        let mut w = world();
        w.set_blend_mode("2", Some("Screen")).unwrap();
        let luma = json!({"type": "Luma Matte", "base": {"isInverted": true}});
        w.set_blend("2", Some(&luma)).unwrap();
        // No value: nothing changes, the matte stays.
        w.set_opacity("2", None).unwrap();
        assert_eq!(
            w.blend_json("2").unwrap()["layerBlend"]["type"],
            "Luma Matte"
        );
        w.set_opacity("2", Some(0.4)).unwrap();
        assert_eq!(
            w.blend_json("2").unwrap(),
            json!({"layerBlend": {"type": "Standard",
                "base": {"name": "Normal", "modeIndex": 0, "opacity": f64::from(0.4f32)}}})
        );
        // On a Standard blend the mode stays.
        w.set_blend_mode("2", Some("Screen")).unwrap();
        w.set_opacity("2", Some(0.5)).unwrap();
        assert_eq!(
            w.layer_blend_mode_json("2").unwrap()["blendMode"]["name"],
            "Screen"
        );
    }

    #[test]
    fn trigger_cue_takes_a_uuid_of_the_selected_playlist() {
        let mut w = world();
        w.select_playlist("Main Show").unwrap();
        let sponsor = w.playlist("Main Show").unwrap().items[1].uuid.clone();
        let countdown = w.playlist("Opening").unwrap().items[0].uuid.clone();
        w.trigger_cue(&sponsor).unwrap();
        let ts = w.transport_json(Scope::Layer("Main")).unwrap();
        assert_eq!(ts["transportState"]["playingItem"]["name"], "Sponsor Reel");
        // A cue of another playlist: refused, naming where it is.
        let err = w.trigger_cue(&countdown).unwrap_err().0;
        assert!(
            err.contains("\"Opening\"") && err.contains("select"),
            "{err}"
        );
        // A name: refused, as in the field.
        let err = w.trigger_cue("Sponsor Reel").unwrap_err().0;
        assert!(err.contains("not a name"), "{err}");
        w.select_playlist("Opening").unwrap();
        w.trigger_cue(&countdown).unwrap();
    }

    #[test]
    fn presets_and_effects() {
        let mut w = world();
        w.apply_layer_preset("0", Some("Ghost")).unwrap();
        // Kept in single precision, as the application does.
        assert_eq!(w.layers[0].opacity, f64::from(0.35f32));
        assert_eq!(
            w.layer_presets_of_json("0").unwrap(),
            json!({"data": [{"id": "3", "name": "Ghost"}]})
        );
        assert_eq!(w.layer_presets_of_json("1").unwrap(), json!({"data": []}));
        w.apply_layer_preset("0", Some("")).unwrap();
        assert_eq!(w.layer_presets_of_json("0").unwrap(), json!({"data": []}));
        w.set_effect_preset(Scope::Layer("0"), Given::Text("Dreamy"))
            .unwrap();
        assert_eq!(w.layers[0].settings.effects.len(), 2);
        w.set_effect_preset(Scope::Layer("0"), Given::Text(""))
            .unwrap();
        assert_eq!(w.layers[0].settings.effect_preset, None);
        let uuid = w.effects[2].uuid.clone();
        let body = json!({"effect": {"uuid": uuid, "enabled": false}});
        w.set_effect(Scope::Workspace, Some(&body)).unwrap();
        let e = w.scope_effects_json(Scope::Workspace).unwrap();
        assert_eq!(e["data"][0]["effect"]["enabled"], false);
        let unknown = json!({"effect": {"uuid": "x"}});
        assert!(w.set_effect(Scope::Workspace, Some(&unknown)).is_err());
    }

    #[test]
    fn live_layers_carry_blend_and_transition() {
        let w = world();
        let ts = w.transport_json(Scope::Layer("0")).unwrap();
        let layer = &ts["transportState"]["layer"];
        // Background has no transition of its own: the workspace's (Dissolve) is reported.
        assert_eq!(layer["transition"]["name"], "Dissolve");
        assert_eq!(layer["transition"]["duration"], 1.0);
        assert_eq!(
            layer["transition"]["favoriteUUID"],
            "BBB458D3-9FD5-43EB-8286-ECEC43432C6B"
        );
        assert_eq!(layer["layerBlend"]["type"], "Standard");
        assert_eq!(layer["layerBlend"]["base"]["name"], "Normal");
        let third = w.transport_json(Scope::Layer("2")).unwrap();
        assert_eq!(
            third["transportState"]["layer"]["transition"]["duration"],
            0.5
        );
    }

    #[test]
    fn bad_references_in_a_workspace_file_are_named() {
        let ws =
            Workspace::from_json(r#"{"layers":[{"name":"A"},{"name":"B","blendMode":"Sepia"}]}"#)
                .unwrap();
        let err = World::new(&ws).unwrap_err();
        assert!(
            err.contains("layers[1].blendMode") && err.contains("Normal"),
            "{err}"
        );
        let ws = Workspace::from_json(
            r#"{"layers":[{"name":"A"}],"playlists":{"name":"Root","children":[{"name":"P","items":[{"name":"c","layer":"Z"}]}]}}"#,
        )
        .unwrap();
        let err = World::new(&ws).unwrap_err();
        assert!(err.contains("\"Z\"") && err.contains("\"A\""), "{err}");
    }
}
