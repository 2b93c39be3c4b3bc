//! The workspace file that seeds the simulator: playlists, layers, and the catalogues of blend
//! modes, layer presets, target sets, effects, effect presets and transitions, plus the
//! scoreboard's starting records. Objects use the wire field names of the API documents; a few
//! fields only the simulator needs (a cue's `duration` and `media`, a layer's `blendMode`) are
//! documented in docs/simulator.md. Missing UUIDs are generated.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The workspace that ships with showctl (used when no file is given).
pub const DEFAULT_WORKSPACE: &str = include_str!("default_workspace.json");

/// A parsed workspace file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Workspace {
    #[serde(default)]
    pub name: String,
    #[serde(default = "root_playlist")]
    pub playlists: Playlist,
    #[serde(default)]
    pub layers: Vec<LayerSeed>,
    #[serde(default = "default_blend_modes")]
    pub blend_modes: Vec<BlendMode>,
    #[serde(default)]
    pub layer_presets: Vec<LayerPreset>,
    #[serde(default)]
    pub target_sets: Vec<Named>,
    #[serde(default)]
    pub effects: Vec<Fx>,
    #[serde(default)]
    pub effect_presets: Vec<EffectPresetSeed>,
    #[serde(default)]
    pub transitions: Vec<Fx>,
    #[serde(default)]
    pub workspace: WorkspaceSeed,
    #[serde(default)]
    pub scoreboard: ScoreboardSeed,
}

impl Workspace {
    /// The workspace that ships with showctl.
    pub fn builtin() -> Self {
        Self::from_json(DEFAULT_WORKSPACE).expect("the built-in workspace is valid")
    }

    /// Parse a workspace file's text.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        Self::from_value(value)
    }

    /// Build a workspace from a JSON value (a dict given from Python, for example).
    pub fn from_value(value: Value) -> Result<Self, String> {
        crate::json::check_depth(&value)?;
        let ws: Workspace = serde_json::from_value(value).map_err(|e| e.to_string())?;
        if ws.blend_modes.is_empty() {
            return Err("blendModes: at least one blend mode is needed".into());
        }
        Ok(ws)
    }
}

fn new_uuid() -> String {
    let b: [u8; 16] = rand::random();
    let hex: String = b.iter().map(|x| format!("{x:02X}")).collect();
    format!(
        "{}-{}-4{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[16..20],
        &hex[20..32]
    )
}

fn root_playlist() -> Playlist {
    Playlist {
        name: "Workspace".into(),
        uuid: new_uuid(),
        items: Vec::new(),
        children: Vec::new(),
        video_input: false,
    }
}

fn default_blend_modes() -> Vec<BlendMode> {
    vec![BlendMode {
        name: "Normal".into(),
        id: 0,
    }]
}

fn yes() -> bool {
    true
}
fn one() -> f64 {
    1.0
}
fn default_duration() -> f64 {
    30.0
}

/// A name and a UUID: a cue summary, a target set, a playing media.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    pub name: String,
    #[serde(default = "new_uuid")]
    pub uuid: String,
}

/// A cue (playlist item). `duration` (seconds, 0 for a still image) and `media` (what
/// `playingMedia` reports; the cue itself when absent) exist only in the workspace file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cue {
    pub name: String,
    #[serde(default = "new_uuid")]
    pub uuid: String,
    #[serde(default = "default_duration")]
    pub duration: f64,
    pub media: Option<Named>,
}

impl Cue {
    pub fn summary(&self) -> Named {
        Named {
            name: self.name.clone(),
            uuid: self.uuid.clone(),
        }
    }
}

/// A playlist; groups hold playlists in `children`. The video input playlist carries
/// `"videoInput": true` and holds video input actions as its items.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Playlist {
    pub name: String,
    #[serde(default = "new_uuid")]
    pub uuid: String,
    #[serde(default)]
    pub items: Vec<Cue>,
    #[serde(default)]
    pub children: Vec<Playlist>,
    #[serde(default)]
    pub video_input: bool,
}

impl Playlist {
    /// Depth-first search of this playlist and its descendants.
    pub fn find(&self, pred: &dyn Fn(&Playlist) -> bool) -> Option<&Playlist> {
        if pred(self) {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(pred))
    }
}

/// An effect or a transition (both are {uuid, name, enabled, variables}).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fx {
    #[serde(default = "new_uuid")]
    pub uuid: String,
    pub name: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub variables: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlendMode {
    pub name: String,
    pub id: i64,
}

/// A layer preset; applying it sets the layer fields it carries.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LayerPreset {
    pub id: String,
    pub name: String,
    pub opacity: Option<f64>,
    pub blend_mode: Option<String>,
    pub is_hidden: Option<bool>,
    pub is_muted: Option<bool>,
}

/// An effect preset; `effects` names effects of the catalogue (by name or UUID).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectPresetSeed {
    #[serde(default = "new_uuid")]
    pub uuid: String,
    pub name: String,
    #[serde(default)]
    pub effects: Vec<String>,
}

/// A layer at start. References (blend mode, target set, transition, effects, effect preset)
/// are names or UUIDs of the catalogues.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LayerSeed {
    pub name: String,
    #[serde(default = "new_uuid")]
    pub uuid: String,
    #[serde(default = "one")]
    pub opacity: f64,
    #[serde(default)]
    pub is_hidden: bool,
    #[serde(default)]
    pub is_muted: bool,
    pub blend_mode: Option<String>,
    pub target_set: Option<String>,
    pub transition: Option<String>,
    #[serde(default = "one")]
    pub transition_duration: f64,
    #[serde(default)]
    pub effects: Vec<String>,
    pub effect_preset: Option<String>,
}

/// The workspace-wide settings at start.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkspaceSeed {
    pub transition: Option<String>,
    #[serde(default = "one")]
    pub transition_duration: f64,
    #[serde(default)]
    pub effects: Vec<String>,
    pub effect_preset: Option<String>,
}

impl Default for WorkspaceSeed {
    fn default() -> Self {
        WorkspaceSeed {
            transition: None,
            transition_duration: 1.0,
            effects: Vec::new(),
            effect_preset: None,
        }
    }
}

/// The scoreboard at start: the active sport and fields that override each sport's defaults.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreboardSeed {
    #[serde(default = "basketball")]
    pub sport: String,
    #[serde(default)]
    pub records: Map<String, Value>,
}

fn basketball() -> String {
    "Basketball".into()
}

impl Default for ScoreboardSeed {
    fn default() -> Self {
        ScoreboardSeed {
            sport: basketball(),
            records: Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_parses() {
        let ws = Workspace::builtin();
        assert_eq!(ws.layers.len(), 4);
        assert!(ws
            .playlists
            .find(&|p| p.video_input)
            .is_some_and(|p| !p.items.is_empty()));
    }

    #[test]
    fn minimal_file_gets_defaults() {
        let ws = Workspace::from_json(r#"{"layers":[{"name":"A"}]}"#).unwrap();
        assert_eq!(ws.layers[0].opacity, 1.0);
        assert_eq!(ws.layers[0].uuid.len(), 36);
        assert_ne!(ws.layers[0].uuid, ws.playlists.uuid);
        assert_eq!(ws.blend_modes[0].name, "Normal");
    }

    #[test]
    fn typos_are_reported() {
        let err = Workspace::from_json(r#"{"layer":[]}"#).unwrap_err();
        assert!(err.contains("unknown field `layer`"), "{err}");
    }
}
