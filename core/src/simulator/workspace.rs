//! The workspace file that seeds the simulator (format 1, described in docs/simulator.md,
//! "Workspace file"): playlists with cues and their media, layers, the catalogues of blend
//! modes, layer presets, target sets, effects, effect presets and transitions, the
//! workspace-wide settings and the scoreboard's starting records.
//!
//! Objects use the wire names of the API documents. A few keys only the simulator needs (a
//! cue's `duration`, `media` and `layer`, a layer's references to the catalogues) are part of
//! the format; anything else a real application sent goes under `extra` and is echoed as-is
//! after the documented fields, so a workspace built from a recording answers equal JSON.
//! Lists keep their order. Missing UUIDs are generated (RFC 4122 version 4).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The workspace that ships with showctl (used when no file is given).
pub const DEFAULT_WORKSPACE: &str = include_str!("default_workspace.json");

/// The file a workspace directory holds (as `showctl record` writes it).
pub const WORKSPACE_FILE_NAME: &str = "workspace.json";

/// The newest format this simulator reads.
pub const FORMAT: u32 = 1;

/// Keys a real application sent that the format does not describe, echoed as-is.
pub type Extra = Map<String, Value>;

/// A parsed workspace file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Workspace {
    #[serde(default = "format_one")]
    pub format: u32,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub answers: Answers,
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

/// Why a workspace could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The file (or the directory's workspace.json) could not be read.
    Io(std::io::Error),
    /// The text is not a workspace ([`crate::error::Error::InvalidInput`]): the message names the
    /// file, the JSON path and what was expected.
    Invalid(crate::error::Error),
}

/// A workspace as given to a simulator (`workspace=`): none (the built-in one), JSON data, or
/// a file or a directory holding [`WORKSPACE_FILE_NAME`].
#[derive(Debug)]
pub enum Given {
    Builtin,
    Data(Value),
    Path(PathBuf),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(e) => e.fmt(f),
            LoadError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LoadError {}

fn invalid(msg: String) -> LoadError {
    LoadError::Invalid(crate::error::Error::invalid(msg))
}

fn located<E: fmt::Display>(err: serde_path_to_error::Error<E>) -> String {
    let path = err.path().to_string();
    if path == "." || path.is_empty() {
        err.into_inner().to_string()
    } else {
        format!("at {path}: {}", err.into_inner())
    }
}

impl Workspace {
    /// The workspace that ships with showctl.
    pub fn builtin() -> Self {
        Self::from_json(DEFAULT_WORKSPACE).expect("the built-in workspace is valid")
    }

    /// Parse a workspace file's text; an error names the JSON path and what was expected.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let ws: Workspace = serde_path_to_error::deserialize(de).map_err(located)?;
        ws.checked()
    }

    /// Build a workspace from a JSON value (a mapping the caller gave, for example).
    pub fn from_value(value: Value) -> Result<Self, String> {
        let ws: Workspace = serde_path_to_error::deserialize(value).map_err(located)?;
        ws.checked()
    }

    /// Load a workspace file, or the `workspace.json` of a directory.
    pub fn from_path(path: &Path) -> Result<Self, LoadError> {
        let file: PathBuf = if path.is_dir() {
            path.join(WORKSPACE_FILE_NAME)
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read_to_string(&file).map_err(|e| {
            LoadError::Io(std::io::Error::new(
                e.kind(),
                format!("cannot read {}: {e}", file.display()),
            ))
        })?;
        Self::from_json(&text).map_err(|e| invalid(format!("{}: {e}", file.display())))
    }

    /// The workspace given; a refusal starts with `workspace: ` (an unreadable file is
    /// [`LoadError::Io`] of the same kind).
    pub fn given(given: Given) -> Result<Self, LoadError> {
        let named = |e: LoadError| match e {
            LoadError::Io(e) => {
                LoadError::Io(std::io::Error::new(e.kind(), format!("workspace: {e}")))
            }
            LoadError::Invalid(e) => invalid(format!("workspace: {e}")),
        };
        match given {
            Given::Builtin => Ok(Self::builtin()),
            Given::Data(value) => Self::from_value(value).map_err(|e| named(invalid(e))),
            Given::Path(path) => Self::from_path(&path).map_err(named),
        }
    }

    /// A workspace with every section at its default (what an empty file gives).
    pub fn empty() -> Self {
        Workspace {
            format: FORMAT,
            name: String::new(),
            answers: Answers::default(),
            playlists: root_playlist(),
            layers: Vec::new(),
            blend_modes: default_blend_modes(),
            layer_presets: Vec::new(),
            target_sets: Vec::new(),
            effects: Vec::new(),
            effect_presets: Vec::new(),
            transitions: Vec::new(),
            workspace: WorkspaceSeed::default(),
            scoreboard: ScoreboardSeed::default(),
        }
    }

    fn checked(self) -> Result<Self, String> {
        if self.format == 0 || self.format > FORMAT {
            return Err(format!(
                "at format: this simulator reads workspace format 1 to {FORMAT}, got {}",
                self.format
            ));
        }
        if self.blend_modes.is_empty() {
            return Err("at blendModes: at least one blend mode is needed".into());
        }
        Ok(self)
    }
}

/// A version 4 UUID (random, RFC 4122 variant), upper case as the application writes them.
pub fn new_uuid() -> String {
    let mut b: [u8; 16] = rand::random();
    b[6] = (b[6] & 0x0F) | 0x40; // version 4
    b[8] = (b[8] & 0x3F) | 0x80; // variant 10xx
    let hex: String = b.iter().map(|x| format!("{x:02X}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

fn format_one() -> u32 {
    1
}

fn root_playlist() -> Playlist {
    Playlist {
        name: "Root".into(),
        uuid: new_uuid(),
        items: Vec::new(),
        children: Vec::new(),
        video_input: false,
        extra: Extra::new(),
    }
}

fn default_blend_modes() -> Vec<BlendMode> {
    vec![BlendMode {
        name: "Normal".into(),
        id: 0,
        extra: Extra::new(),
    }]
}

fn yes() -> bool {
    true
}
fn is_false(b: &bool) -> bool {
    !b
}
fn one() -> f64 {
    1.0
}
fn default_duration() -> f64 {
    30.0
}

/// How the read endpoints that have two forms answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Answers {
    /// `GET /opacity/layer/{id}`.
    #[serde(default)]
    pub opacity: OpacityForm,
    /// The key of the list `GET /transition` answers.
    #[serde(default)]
    pub transition_list: TransitionListKey,
    /// `/blend/layer/{id}` answers, as in versions before 3.8 (else only `/layerBlend`).
    #[serde(default)]
    pub blend_route: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpacityForm {
    /// `{"opacity": {"value": x}}`, as the field reports.
    #[default]
    #[serde(rename = "field")]
    Field,
    /// `{"value": x}`, as the document shows.
    #[serde(rename = "document")]
    Document,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TransitionListKey {
    #[default]
    #[serde(rename = "data")]
    Data,
    #[serde(rename = "transitions")]
    Transitions,
}

/// A name and a UUID (a target set, a media), plus what the application sent beyond them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    pub name: String,
    #[serde(default = "new_uuid")]
    pub uuid: String,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

/// A cue (playlist item). `duration` (seconds, 0 for a still image), `media` (what
/// `playingMedia` reports; the cue itself when absent) and `layer` (the layer the cue is
/// configured to play on: a name or UUID; none plays on the targeted layer) exist only in the
/// workspace file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cue {
    pub name: String,
    #[serde(default = "new_uuid")]
    pub uuid: String,
    #[serde(default = "default_duration")]
    pub duration: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<Named>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

/// A playlist; groups hold playlists in `children`. The video input playlist carries
/// `"videoInput": true` and holds video input actions as its items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Playlist {
    pub name: String,
    #[serde(default = "new_uuid")]
    pub uuid: String,
    #[serde(default)]
    pub items: Vec<Cue>,
    #[serde(default)]
    pub children: Vec<Playlist>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub video_input: bool,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

impl Playlist {
    /// Depth-first search of this playlist and its descendants.
    pub fn find(&self, pred: &dyn Fn(&Playlist) -> bool) -> Option<&Playlist> {
        if pred(self) {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(pred))
    }

    /// Every playlist of the tree, depth first.
    pub fn all(&self) -> Vec<&Playlist> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.all());
        }
        out
    }
}

/// An effect or a transition (both are {uuid, name, enabled, variables}). `favoriteUUID`
/// (transitions only) is what transport-state layers report with the transition.
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
    #[serde(
        default,
        rename = "favoriteUUID",
        skip_serializing_if = "Option::is_none"
    )]
    pub favorite_uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

/// An effect in a layer, the workspace or an effect preset, or the transition of a layer or
/// the workspace: a name or UUID of its catalogue, or a whole object (its own variable values).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FxRef {
    Ref(String),
    Inline(Fx),
}

impl<'de> Deserialize<'de> for FxRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FxRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an effect name or UUID, or an effect object {uuid, name, ...}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FxRef, E> {
                Ok(FxRef::Ref(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<FxRef, A::Error> {
                Fx::deserialize(de::value::MapAccessDeserializer::new(map)).map(FxRef::Inline)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlendMode {
    pub name: String,
    pub id: i64,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

/// A layer preset; applying it sets the layer fields it carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LayerPreset {
    pub id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opacity: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blend_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_hidden: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_muted: Option<bool>,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

/// An effect preset; `effects` are references to the catalogue or effect objects; `null`
/// is answered as null (the document allows it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectPresetSeed {
    #[serde(default = "new_uuid")]
    pub uuid: String,
    pub name: String,
    #[serde(default = "some_empty")]
    pub effects: Option<Vec<FxRef>>,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

fn some_empty() -> Option<Vec<FxRef>> {
    Some(Vec::new())
}

/// A layer's blend as `GET /blend/layer/{id}` answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerBlendSeed {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub base: Map<String, Value>,
}

/// What a layer shows at start (a transport state as the application answered it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TransportSeed {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playing_item: Option<Named>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playing_media: Option<Named>,
    #[serde(default)]
    pub time_elapsed: f64,
    #[serde(default)]
    pub time_remaining: f64,
    #[serde(default)]
    pub is_playing: bool,
    /// A video input: no end.
    #[serde(default)]
    pub live: bool,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

/// A layer at start. References (blend mode, target set, layer preset, transition, effects,
/// effect preset) are names or UUIDs of the catalogues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blend_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_blend: Option<LayerBlendSeed>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_set: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_preset: Option<String>,
    /// A name or UUID of the `transitions` catalogue, or a whole transition object (its own
    /// variable values, as a posted transition object leaves it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transition: Option<FxRef>,
    #[serde(default = "one")]
    pub transition_duration: f64,
    #[serde(default)]
    pub effects: Vec<FxRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect_preset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<TransportSeed>,
    #[serde(default, skip_serializing_if = "Extra::is_empty")]
    pub extra: Extra,
}

/// The workspace-wide settings at start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkspaceSeed {
    /// A name or UUID of the `transitions` catalogue, or a whole transition object (its own
    /// variable values, as a posted transition object leaves it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transition: Option<FxRef>,
    #[serde(default = "one")]
    pub transition_duration: f64,
    #[serde(default)]
    pub effects: Vec<FxRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect_preset: Option<String>,
    /// The layer untargeted media plays on until a `select/layer/{id}?target=true` (a name
    /// or UUID; the first layer when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_layer: Option<String>,
    /// The selected playlist at start (a name or UUID; the first top-level one when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected_playlist: Option<String>,
}

impl Default for WorkspaceSeed {
    fn default() -> Self {
        WorkspaceSeed {
            transition: None,
            transition_duration: 1.0,
            effects: Vec::new(),
            effect_preset: None,
            target_layer: None,
            selected_playlist: None,
        }
    }
}

/// The scoreboard at start: the active sport and, per sport mode, fields that override the
/// defaults (other keys are kept and answered too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
        assert_eq!(ws.playlists.name, "Root");
        assert_eq!(ws.blend_modes.len(), 27);
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
        assert_eq!(ws.playlists.name, "Root");
    }

    #[test]
    fn generated_uuids_are_version_4_rfc_4122() {
        for _ in 0..200 {
            let u = new_uuid();
            let b = u.as_bytes();
            assert_eq!(u.len(), 36);
            assert_eq!(b[14], b'4', "{u}");
            assert!(matches!(b[19], b'8' | b'9' | b'A' | b'B'), "{u}");
        }
    }

    #[test]
    fn errors_name_the_json_path_and_the_expectation() {
        let text = r#"{"playlists": {"name": "Root", "children": [
            {"name": "A"}, {"name": "B"},
            {"name": "C", "items": [{"name": "c", "duration": "long"}]}]}}"#;
        let err = Workspace::from_json(text).unwrap_err();
        assert!(
            err.contains("playlists.children[2].items[0].duration") && err.contains("f64"),
            "{err}"
        );
        let err = Workspace::from_json(r#"{"layer":[]}"#).unwrap_err();
        assert!(err.contains("unknown field `layer`"), "{err}");
        let err = Workspace::from_json(r#"{"layers":[{"name":"A","effects":[{"nme":"x"}]}]}"#)
            .unwrap_err();
        assert!(
            err.contains("layers[0].effects[0]") && err.contains("nme"),
            "{err}"
        );
        let err = Workspace::from_json(r#"{"format": 2}"#).unwrap_err();
        assert!(err.contains("format"), "{err}");
    }

    #[test]
    fn a_directory_is_read_through_its_workspace_json() {
        let dir = std::env::temp_dir().join(format!("showctl-ws-{}", new_uuid()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(WORKSPACE_FILE_NAME), r#"{"name":"Recorded"}"#).unwrap();
        let ws = Workspace::from_path(&dir).unwrap();
        assert_eq!(ws.name, "Recorded");
        std::fs::write(dir.join(WORKSPACE_FILE_NAME), r#"{"layers": 3}"#).unwrap();
        let err = Workspace::from_path(&dir).unwrap_err().to_string();
        assert!(
            err.contains("workspace.json") && err.contains("at layers") && err.contains("sequence"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let err = Workspace::from_path(&dir).unwrap_err();
        assert!(matches!(err, LoadError::Io(_)), "{err}");
        let err = Workspace::given(Given::Path(dir.clone())).unwrap_err();
        assert!(matches!(&err, LoadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound));
        assert!(
            err.to_string().starts_with("workspace: cannot read "),
            "{err}"
        );
    }

    /// A workspace given as data or none: a refusal names the argument and is invalid input.
    #[test]
    fn a_given_workspace_names_the_argument() {
        let ws = Workspace::given(Given::Data(serde_json::json!({"name": "Given"}))).unwrap();
        assert_eq!(ws.name, "Given");
        assert_eq!(
            Workspace::given(Given::Builtin).unwrap().name,
            Workspace::builtin().name
        );
        let err = Workspace::given(Given::Data(serde_json::json!({"layers": 3}))).unwrap_err();
        assert!(matches!(
            &err,
            LoadError::Invalid(crate::error::Error::InvalidInput(_))
        ));
        assert!(
            err.to_string().starts_with("workspace: at layers: "),
            "{err}"
        );
    }
}
