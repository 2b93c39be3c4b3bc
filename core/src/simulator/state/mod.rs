//! The simulated workspace: its state, the commands that change it and the JSON the read
//! endpoints answer with (wire names of the API document). No HTTP here: `routes` maps
//! requests onto these methods, and a refused command is a [`Bad`] (HTTP 400).

use std::time::Instant;

use serde_json::{Map, Value};

use super::scores::Scores;
use super::workspace::{Answers, BlendMode, Cue, Extra, Fx, LayerPreset, Named, Playlist};

mod effects;
mod layers;
mod playlists;
mod seed;
mod transport;

pub use playlists::Selection;
pub use transport::PlaybackClock;

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

/// The transition a POST /transition body chooses, and the variables a posted transition
/// object gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chosen<'a> {
    pub key: Given<'a>,
    pub variables: Option<&'a [Value]>,
}

impl<'a> Chosen<'a> {
    /// A transition chosen by its UUID or name only (it takes the catalogue's variables).
    pub fn by(key: Given<'a>) -> Self {
        Chosen {
            key,
            variables: None,
        }
    }
}

/// Effects, effect preset and transition settings: the workspace has one set, each layer too.
#[derive(Debug, Clone)]
struct Settings {
    effects: Vec<Fx>,
    effect_preset: Option<usize>,
    /// The scope's own copy of a catalogue transition: a posted transition object sets its
    /// variables without touching the catalogue.
    transition: Option<Fx>,
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
    transport: PlaybackClock,
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

impl World {
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

    pub fn scores_json(&self) -> Value {
        Value::Object(self.scores.current().clone())
    }
}

#[cfg(test)]
mod tests;
