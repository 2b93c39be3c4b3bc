//! The simulated workspace: its state, the commands that change it and the JSON the read
//! endpoints answer with (wire names of the API document). No HTTP here: `routes` maps
//! requests onto these methods, and a refused command is a [`Bad`] (HTTP 400).

use std::time::Instant;

use serde_json::{json, Map, Value};

use super::scores::Scores;
use super::workspace::{BlendMode, Cue, Fx, LayerPreset, Named, Playlist, Workspace};

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

/// What a layer plays: the cue that touched it last, the media, and the clock.
#[derive(Debug, Clone, Default)]
pub struct Transport {
    item: Option<Named>,
    media: Option<Named>,
    /// Seconds; 0 for a still image.
    duration: f64,
    /// A video input: no end, no remaining time.
    live: bool,
    /// Position when `since` was set (or the position while paused).
    position: f64,
    /// Playing since this instant.
    since: Option<Instant>,
}

impl Transport {
    fn load(&mut self, cue: &Cue, live: bool, now: Instant) {
        self.item = Some(cue.summary());
        self.media = Some(cue.media.clone().unwrap_or_else(|| cue.summary()));
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
        *self = Transport {
            item: self.item.take(),
            ..Transport::default()
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
            m.insert("playingItem".into(), json!(item));
        }
        if let Some(media) = &self.media {
            m.insert("playingMedia".into(), json!(media));
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

#[derive(Debug, Clone)]
struct Layer {
    uuid: String,
    name: String,
    hidden: bool,
    muted: bool,
    opacity: f64,
    blend_mode: usize,
    /// One of BLEND_TYPES; `inverted` is the matte's isInverted.
    blend_type: &'static str,
    inverted: bool,
    target_set: Option<usize>,
    settings: Settings,
    transport: Transport,
}

const BLEND_TYPES: [&str; 4] = ["Standard", "Alpha Matte", "Luma Matte", "White Matte"];

#[derive(Debug, Clone)]
struct EffectPreset {
    uuid: String,
    name: String,
    effects: Vec<Fx>,
}

/// The whole simulated state of both applications.
#[derive(Debug, Clone)]
pub struct World {
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
    targeted_layer: Option<usize>,
    /// UUID of the selected playlist (the first top-level playlist at start).
    selected_playlist: Option<String>,
    pub scores: Scores,
}

/// Resolve a reference of the workspace file (a UUID or a name) in a catalogue.
fn seed_ref<T>(
    what: &str,
    items: &[T],
    key: &str,
    keys: impl Fn(&T) -> [&str; 2],
) -> Result<usize, String> {
    lookup(items, key, &keys).ok_or_else(|| {
        format!(
            "{what}: {key:?} is not in the catalogue (known: {})",
            names(items, |t| keys(t)[1])
        )
    })
}

fn seed_opt<T>(
    what: &str,
    items: &[T],
    key: Option<&String>,
    keys: impl Fn(&T) -> [&str; 2],
) -> Result<Option<usize>, String> {
    key.map(|k| seed_ref(what, items, k, keys)).transpose()
}

fn seed_effects(what: &str, effects: &[Fx], refs: &[String]) -> Result<Vec<Fx>, String> {
    refs.iter()
        .map(|r| seed_ref(what, effects, r, fx_keys).map(|i| effects[i].clone()))
        .collect()
}

impl World {
    /// Build the state from a workspace file, resolving every reference.
    pub fn new(ws: &Workspace) -> Result<World, String> {
        let effect_presets = ws
            .effect_presets
            .iter()
            .map(|p| {
                let what = format!("effectPresets.{}.effects", p.name);
                Ok(EffectPreset {
                    uuid: p.uuid.clone(),
                    name: p.name.clone(),
                    effects: seed_effects(&what, &ws.effects, &p.effects)?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let settings = |what: &str,
                        transition: Option<&String>,
                        duration: f64,
                        effects: &[String],
                        preset: Option<&String>|
         -> Result<Settings, String> {
            Ok(Settings {
                effects: seed_effects(&format!("{what}.effects"), &ws.effects, effects)?,
                effect_preset: seed_opt(
                    &format!("{what}.effectPreset"),
                    &effect_presets,
                    preset,
                    preset_keys,
                )?,
                transition: seed_opt(
                    &format!("{what}.transition"),
                    &ws.transitions,
                    transition,
                    fx_keys,
                )?,
                transition_duration: duration.clamp(0.0, MAX_TRANSITION_DURATION),
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
        for l in &ws.layers {
            let what = format!("layers.{}", l.name);
            let blend_mode = match &l.blend_mode {
                Some(m) => seed_ref(&format!("{what}.blendMode"), &ws.blend_modes, m, |b| {
                    [&b.name, &b.name]
                })?,
                None => 0,
            };
            layers.push(Layer {
                uuid: l.uuid.clone(),
                name: l.name.clone(),
                hidden: l.is_hidden,
                muted: l.is_muted,
                opacity: l.opacity.clamp(0.0, 1.0),
                blend_mode,
                blend_type: BLEND_TYPES[0],
                inverted: false,
                target_set: seed_opt(
                    &format!("{what}.targetSet"),
                    &ws.target_sets,
                    l.target_set.as_ref(),
                    |t| [&t.uuid, &t.name],
                )?,
                settings: settings(
                    &what,
                    l.transition.as_ref(),
                    l.transition_duration,
                    &l.effects,
                    l.effect_preset.as_ref(),
                )?,
                transport: Transport::default(),
            });
        }
        let mut world = World {
            playlists: ws.playlists.clone(),
            blend_modes: ws.blend_modes.clone(),
            layer_presets: ws.layer_presets.clone(),
            target_sets: ws.target_sets.clone(),
            effects: ws.effects.clone(),
            effect_presets,
            transitions: ws.transitions.clone(),
            layers,
            workspace,
            selected_layer: 0,
            targeted_layer: None,
            selected_playlist: None,
            scores: Scores::new(&ws.scoreboard)?,
        };
        for p in &ws.layer_presets {
            if let Some(m) = &p.blend_mode {
                seed_ref(
                    &format!("layerPresets.{}.blendMode", p.name),
                    &ws.blend_modes,
                    m,
                    |b| [&b.name, &b.name],
                )?;
            }
        }
        let first = world.top_level().next().map(|p| p.uuid.clone());
        world.selected_playlist = first;
        Ok(world)
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
    fn cue(&self, playlist: &Playlist, id: &str, index_only: bool) -> Outcome<(Cue, bool)> {
        let found = match parse_id(id) {
            Id::Index(i) if i < 0 => {
                return bad(format!(
                    "cue index {i} is negative (the application crashes on negative indices)"
                ))
            }
            Id::Index(i) => usize::try_from(i).ok().and_then(|i| playlist.items.get(i)),
            Id::Key(k) if index_only => {
                return bad(format!("this endpoint takes a cue index only, got {k:?}"))
            }
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
        json!({
            "uuid": p.uuid,
            "name": p.name,
            "items": p.items.iter().map(Cue::summary).collect::<Vec<_>>(),
            "children": p.children.iter().map(Self::playlist_json).collect::<Vec<_>>(),
        })
    }

    pub fn playlists_json(&self) -> Value {
        json!({ "playlist": Self::playlist_json(&self.playlists) })
    }

    pub fn playlist_by_id_json(&self, id: &str) -> Outcome<Value> {
        Ok(json!({ "playlist": Self::playlist_json(self.playlist(id)?) }))
    }

    pub fn cue_json(&self, playlist: &str, cue: &str) -> Outcome<Value> {
        let (cue, _) = self.cue(self.playlist(playlist)?, cue, false)?;
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
        m.insert("effects".into(), json!(l.settings.effects));
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

    pub fn layers_json(&self) -> Value {
        list(
            "layer",
            self.layers.iter().map(|l| json!(self.layer_map(l))),
        )
    }

    pub fn layer_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(json!({ "layer": self.layer_map(l) }))
    }

    fn transport_of(&self, l: &Layer, now: Instant) -> Value {
        let mut ts = l.transport.to_json(now);
        let mut layer = self.layer_map(l);
        layer.insert(
            "transition".into(),
            json!(l.settings.transition.map(|i| &self.transitions[i])),
        );
        ts.insert("layer".into(), Value::Object(layer));
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
        // The field form (the document shows {"value": x}).
        Ok(json!({ "opacity": { "value": l.opacity } }))
    }

    pub fn blend_modes_json(&self) -> Value {
        list("blendMode", self.blend_modes.iter().map(|m| json!(m)))
    }

    pub fn layer_blend_mode_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(json!({ "blendMode": self.blend_modes[l.blend_mode] }))
    }

    pub fn blend_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        let base = match l.blend_type {
            "Standard" => json!({
                "name": self.blend_modes[l.blend_mode].name,
                "modeIndex": l.blend_mode,
                "opacity": l.opacity,
            }),
            "White Matte" => json!({}),
            _ => json!({ "isInverted": l.inverted }),
        };
        Ok(json!({ "layerBlend": { "type": l.blend_type, "base": base } }))
    }

    pub fn layer_presets_json(&self) -> Value {
        let items: Vec<Value> = self
            .layer_presets
            .iter()
            .map(|p| json!({ "id": p.id, "name": p.name }))
            .collect();
        json!({ "data": items })
    }

    /// The presets a layer can apply (every preset of the workspace).
    pub fn layer_presets_of_json(&self, id: &str) -> Outcome<Value> {
        self.layer_index(id)?;
        Ok(self.layer_presets_json())
    }

    pub fn target_sets_json(&self) -> Value {
        list("targetSet", self.target_sets.iter().map(|t| json!(t)))
    }

    pub fn layer_target_set_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(json!({ "targetSet": l.target_set.map(|i| &self.target_sets[i]) }))
    }

    pub fn effects_json(&self) -> Value {
        list("effect", self.effects.iter().map(|e| json!(e)))
    }

    pub fn scope_effects_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        Ok(list("effect", s.effects.iter().map(|e| json!(e))))
    }

    fn effect_preset_value(p: &EffectPreset) -> Value {
        json!({ "uuid": p.uuid, "name": p.name, "effects": p.effects })
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
        list("transition", self.transitions.iter().map(|t| json!(t)))
    }

    pub fn scope_transition_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        Ok(json!({ "transition": s.transition.map(|i| &self.transitions[i]) }))
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
            Op::Clear => layer.transport.clear(),
            Op::Mute => layer.muted = true,
            Op::Unmute => layer.muted = false,
            Op::Hide => layer.hidden = true,
            Op::Unhide => layer.hidden = false,
            Op::Play => layer.transport.play(now),
            Op::Pause => layer.transport.pause(now),
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
        let t = &mut self.layers[i].transport;
        let target = to(t.elapsed(now), t.duration);
        t.seek(target, now);
        Ok(())
    }

    pub fn select_layer(&mut self, id: &str, target: bool) -> Outcome<()> {
        let i = self.layer_index(id)?;
        self.selected_layer = i;
        if target {
            self.targeted_layer = Some(i);
        }
        Ok(())
    }

    pub fn select_playlist(&mut self, id: &str) -> Outcome<()> {
        self.selected_playlist = Some(self.playlist(id)?.uuid.clone());
        Ok(())
    }

    /// The selected layer (index) and the targeted one, if any.
    pub fn selection(&self) -> (usize, Option<usize>, Option<String>) {
        (
            self.selected_layer,
            self.targeted_layer,
            self.selected_playlist.clone(),
        )
    }

    fn play_on(&mut self, layer: usize, (cue, live): (Cue, bool)) -> Outcome<()> {
        match self.layers.get_mut(layer) {
            Some(l) => {
                l.transport.load(&cue, live, Instant::now());
                Ok(())
            }
            None => bad("the workspace has no layer to play on"),
        }
    }

    /// POST /trigger/cue/{id}: a cue (by index only) of the selected playlist, on the
    /// selected layer.
    pub fn trigger_cue(&mut self, cue: &str) -> Outcome<()> {
        let selected = self.selected_playlist.clone().unwrap_or_default();
        let p = self.playlist(&selected)?;
        let found = self.cue(p, cue, true)?;
        self.play_on(self.selected_layer, found)
    }

    /// POST /trigger/playlist/{id}: the first cue of the playlist, on the selected layer.
    pub fn trigger_playlist(&mut self, playlist: &str) -> Outcome<()> {
        let p = self.playlist(playlist)?;
        if p.items.is_empty() {
            return bad(format!("playlist {:?} has no cues", p.name));
        }
        let found = self.cue(p, "0", true)?;
        self.play_on(self.selected_layer, found)
    }

    /// POST /trigger/playlist/{p}/cue/{c} (on the selected layer) and
    /// /trigger/layer/{l}/playlist/{p}/cue/{c}.
    pub fn trigger_playlist_cue(
        &mut self,
        layer: Option<&str>,
        playlist: &str,
        cue: &str,
    ) -> Outcome<()> {
        let layer = match layer {
            Some(id) => self.layer_index(id)?,
            None => self.selected_layer,
        };
        let found = self.cue(self.playlist(playlist)?, cue, false)?;
        self.play_on(layer, found)
    }

    /// Opacity out of range is clamped, as the application does.
    pub fn set_opacity(&mut self, id: &str, value: f64) -> Outcome<()> {
        let i = self.layer_index(id)?;
        self.layers[i].opacity = value.clamp(0.0, 1.0);
        Ok(())
    }

    fn blend_mode_index(&self, name: &str) -> Outcome<usize> {
        lookup(&self.blend_modes, name, |b| [&b.name, &b.name]).map_or_else(
            || {
                bad(format!(
                    "no blend mode {name:?} (blend modes: {})",
                    names(&self.blend_modes, |b| &b.name)
                ))
            },
            Ok,
        )
    }

    pub fn set_blend_mode(&mut self, id: &str, name: &str) -> Outcome<()> {
        let i = self.layer_index(id)?;
        self.layers[i].blend_mode = self.blend_mode_index(name)?;
        Ok(())
    }

    /// POST /blend/layer/{id}: {type, base}, also accepted wrapped in a layerBlend key.
    pub fn set_blend(&mut self, id: &str, body: &Value) -> Outcome<()> {
        let i = self.layer_index(id)?;
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
                    Some(o) => opacity = o.clamp(0.0, 1.0),
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
        l.blend_mode = mode;
        l.opacity = opacity;
        l.inverted = inverted;
        Ok(())
    }

    /// Apply a layer preset (by name or id): it sets the layer fields it carries.
    pub fn apply_layer_preset(&mut self, id: &str, preset: &str) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let Some(p) = lookup(&self.layer_presets, preset, |p| [&p.id, &p.name]) else {
            return bad(format!(
                "no layer preset {preset:?} (presets: {})",
                names(&self.layer_presets, |p| &p.name)
            ));
        };
        let p = self.layer_presets[p].clone();
        let mode = p
            .blend_mode
            .as_deref()
            .map(|m| self.blend_mode_index(m))
            .transpose()?;
        let l = &mut self.layers[i];
        if let Some(o) = p.opacity {
            l.opacity = o.clamp(0.0, 1.0);
        }
        if let Some(m) = mode {
            l.blend_mode = m;
        }
        if let Some(h) = p.is_hidden {
            l.hidden = h;
        }
        if let Some(m) = p.is_muted {
            l.muted = m;
        }
        Ok(())
    }

    /// `None` sets the target set to nil.
    pub fn set_target_set(&mut self, id: &str, name: Option<&str>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let set = match name {
            None => None,
            Some(n) => match lookup(&self.target_sets, n, |t| [&t.uuid, &t.name]) {
                Some(t) => Some(t),
                None => {
                    return bad(format!(
                        "no target set {n:?} (target sets: {})",
                        names(&self.target_sets, |t| &t.name)
                    ))
                }
            },
        };
        self.layers[i].target_set = set;
        Ok(())
    }

    /// POST /effects/{workspace|layer}: {effect: {uuid, name?, enabled?, variables?}} (the
    /// unwrapped form is read too). A known effect is added, or updated when already active.
    pub fn set_effect(&mut self, scope: Scope<'_>, body: &Value) -> Outcome<()> {
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

    /// Select an effect preset (by UUID or name) and take its effects; `None` selects none
    /// and keeps the effects.
    pub fn set_effect_preset(&mut self, scope: Scope<'_>, preset: Option<&str>) -> Outcome<()> {
        let found = match preset {
            None => None,
            Some(k) => match lookup(&self.effect_presets, k, preset_keys) {
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
                s.effects = effects;
            }
            None => s.effect_preset = None,
        }
        Ok(())
    }

    /// Set a transition (by UUID or name); `None` means the master transition for a layer,
    /// none for the workspace.
    pub fn set_transition(&mut self, scope: Scope<'_>, key: Option<&str>) -> Outcome<()> {
        let t = match key {
            None => None,
            Some(k) => match lookup(&self.transitions, k, fx_keys) {
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

    /// Clamped to 0.0–5.0, as opacity is.
    pub fn set_transition_duration(&mut self, scope: Scope<'_>, seconds: f64) -> Outcome<()> {
        self.scope(scope)?.transition_duration = seconds.clamp(0.0, MAX_TRANSITION_DURATION);
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
        let cue = Cue {
            name: "c".into(),
            uuid: "u".into(),
            duration: 10.0,
            media: None,
        };
        let mut t = Transport::default();
        t.load(&cue, false, t0);
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
        let cue = Cue {
            name: "s".into(),
            uuid: "u".into(),
            duration: 0.0,
            media: None,
        };
        let mut t = Transport::default();
        t.load(&cue, false, t0);
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
    fn trigger_cue_takes_an_index_of_the_selected_playlist() {
        let mut w = world();
        w.select_playlist("Main Show").unwrap();
        w.select_layer("1", false).unwrap();
        assert!(w.trigger_cue("Sponsor Reel").is_err());
        w.trigger_cue("1").unwrap();
        let ts = w.transport_json(Scope::Layer("1")).unwrap();
        assert_eq!(ts["transportState"]["playingItem"]["name"], "Sponsor Reel");
        assert_eq!(ts["transportState"]["playingMedia"]["name"], "sponsors.mp4");
        w.trigger_playlist_cue(Some("0"), "-1", "Camera 2").unwrap();
        let ts = w.transport_json(Scope::Layer("0")).unwrap();
        assert_eq!(ts["transportState"]["playingMedia"]["name"], "Camera 2");
        assert_eq!(ts["transportState"]["timeRemaining"], 0.0);
    }

    #[test]
    fn blend_standard_moves_mode_and_opacity() {
        let mut w = world();
        w.set_blend(
            "0",
            &json!({"layerBlend": {"type": "Standard", "base": {"modeIndex": 2, "opacity": 3}}}),
        )
        .unwrap();
        assert_eq!(
            w.layer_blend_mode_json("0").unwrap()["blendMode"]["name"],
            "Multiply"
        );
        assert_eq!(w.opacity_json("0").unwrap()["opacity"]["value"], 1.0);
        w.set_blend(
            "0",
            &json!({"type": "Luma Matte", "base": {"isInverted": true}}),
        )
        .unwrap();
        let b = w.blend_json("0").unwrap();
        assert_eq!(b["layerBlend"]["base"]["isInverted"], true);
        assert!(w.set_blend("0", &json!({"type": "Sepia"})).is_err());
    }

    #[test]
    fn presets_and_effects() {
        let mut w = world();
        w.apply_layer_preset("0", "Ghost").unwrap();
        assert_eq!(w.layers[0].opacity, 0.35);
        w.set_effect_preset(Scope::Layer("0"), Some("Dreamy"))
            .unwrap();
        assert_eq!(w.layers[0].settings.effects.len(), 2);
        let uuid = w.effects[2].uuid.clone();
        w.set_effect(
            Scope::Workspace,
            &json!({"effect": {"uuid": uuid, "enabled": false}}),
        )
        .unwrap();
        let e = w.scope_effects_json(Scope::Workspace).unwrap();
        assert_eq!(e["data"][0]["effect"]["enabled"], false);
        assert!(w
            .set_effect(Scope::Workspace, &json!({"effect": {"uuid": "x"}}))
            .is_err());
    }

    #[test]
    fn bad_references_in_a_workspace_file_are_named() {
        let ws = Workspace::from_json(r#"{"layers":[{"name":"A","blendMode":"Sepia"}]}"#).unwrap();
        let err = World::new(&ws).unwrap_err();
        assert!(
            err.contains("layers.A.blendMode") && err.contains("Normal"),
            "{err}"
        );
    }
}
