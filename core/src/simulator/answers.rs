//! The shapes the read endpoints answer, as typed serde models borrowing the state (wire names
//! of the API documents). The workspace file's types (`workspace.rs`) hold what the state is
//! made of; an answer differs from them where the wire does: the file nests the keys a real
//! application sent beyond the documented ones under `"extra"` and links the catalogues by
//! reference, while an answer writes those keys after the documented ones ([`Extended`]) and
//! carries UUIDs. Numbers are written by [`super::wire`].
//!
//! The lists of documented keys (`*_KEYS`) are what `record` leaves out of `extra` when it
//! turns a real answer into a workspace file, so both sides agree on which keys are answered.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};

use super::workspace::{BlendMode, Cue, Extra, Fx, LayerPreset, Named, Playlist};

/// The keys of a name-and-UUID object (target set, media, cue) the simulator answers itself.
pub const NAMED_KEYS: &[&str] = &["name", "uuid"];
/// The keys of an effect or a transition the simulator answers itself.
pub const FX_KEYS: &[&str] = &["uuid", "name", "enabled", "variables"];
/// The keys of a playlist the simulator answers itself.
pub const PLAYLIST_KEYS: &[&str] = &["uuid", "name", "items", "children"];
/// The keys of a blend mode the simulator answers itself.
pub const BLEND_MODE_KEYS: &[&str] = &["name", "id"];
/// The keys of a layer preset the simulator answers itself.
pub const LAYER_PRESET_KEYS: &[&str] = &["id", "name"];
/// The keys of an effect preset the simulator answers itself.
pub const EFFECT_PRESET_KEYS: &[&str] = &["uuid", "name", "effects"];
/// The keys of a layer the simulator answers itself (from the other fields of the file), in
/// `GET /data/layer/{id}` and in a transport state.
pub const LAYER_KEYS: &[&str] = &[
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
/// The keys of a transport state the simulator answers itself.
pub const TRANSPORT_KEYS: &[&str] = &[
    "playingItem",
    "playingMedia",
    "timeElapsed",
    "timeRemaining",
    "isPlaying",
    "playbackRate",
    "isScrubbing",
    "layer",
];

/// A documented object followed by the keys a real application sent beyond it: a key of
/// `extra` the object already has is left out (a documented key is never replaced).
pub struct Extended<'a, T>(pub T, pub &'a Extra);

impl<T: Serialize> Serialize for Extended<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let documented = match serde_json::to_value(&self.0).map_err(serde::ser::Error::custom)? {
            Value::Object(m) => m,
            _ => return Err(serde::ser::Error::custom("an answer object is a map")),
        };
        let extra = self.1.iter().filter(|(k, _)| !documented.contains_key(*k));
        let mut map = s.serialize_map(Some(documented.len() + self.1.len()))?;
        for (k, v) in documented.iter().chain(extra) {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// `{key: value}`: the one-key wrapper of most answers (`{"layer": {...}}`, `{"data": [...]}`).
pub struct Keyed<T>(pub &'static str, pub T);

impl<T: Serialize> Serialize for Keyed<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &self.1)?;
        map.end()
    }
}

/// `{"data": [{key: item}, ...]}`: a catalogue list.
pub fn list<T: Serialize>(key: &'static str, items: impl Iterator<Item = T>) -> Value {
    to_value(Keyed(
        "data",
        items.map(|i| Keyed(key, i)).collect::<Vec<_>>(),
    ))
}

/// The answer as a JSON value (what the routes write with the application's numbers).
pub fn to_value(answer: impl Serialize) -> Value {
    serde_json::to_value(answer).expect("an answer always serializes")
}

/// `{"value": x}`.
#[derive(Serialize)]
pub struct Val<T> {
    pub value: T,
}

#[derive(Serialize)]
pub struct NameUuid<'a> {
    pub name: &'a str,
    pub uuid: &'a str,
}

/// A target set, a media or a cue: `{name, uuid}` and the extra keys.
pub fn named(n: &Named) -> Extended<'_, NameUuid<'_>> {
    Extended(
        NameUuid {
            name: &n.name,
            uuid: &n.uuid,
        },
        &n.extra,
    )
}

/// A cue as the API answers it: `{name, uuid}` and the extra keys (its duration, media and
/// layer stay in the file).
pub fn cue(c: &Cue) -> Extended<'_, NameUuid<'_>> {
    Extended(
        NameUuid {
            name: &c.name,
            uuid: &c.uuid,
        },
        &c.extra,
    )
}

#[derive(Serialize)]
pub struct PlaylistDoc<'a> {
    pub uuid: &'a str,
    pub name: &'a str,
    pub items: Vec<Extended<'a, NameUuid<'a>>>,
    pub children: Vec<Extended<'a, PlaylistDoc<'a>>>,
}

/// A playlist and its descendants.
pub fn playlist(p: &Playlist) -> Extended<'_, PlaylistDoc<'_>> {
    Extended(
        PlaylistDoc {
            uuid: &p.uuid,
            name: &p.name,
            items: p.items.iter().map(cue).collect(),
            children: p.children.iter().map(playlist).collect(),
        },
        &p.extra,
    )
}

#[derive(Serialize)]
pub struct FxDoc<'a> {
    pub uuid: &'a str,
    pub name: &'a str,
    pub enabled: bool,
    pub variables: &'a [Value],
}

/// An effect or a transition: `{uuid, name, enabled, variables}` and the extra keys.
pub fn fx(f: &Fx) -> Extended<'_, FxDoc<'_>> {
    Extended(
        FxDoc {
            uuid: &f.uuid,
            name: &f.name,
            enabled: f.enabled,
            variables: &f.variables,
        },
        &f.extra,
    )
}

#[derive(Serialize)]
pub struct BlendModeDoc<'a> {
    pub name: &'a str,
    pub id: i64,
}

pub fn blend_mode(b: &BlendMode) -> Extended<'_, BlendModeDoc<'_>> {
    Extended(
        BlendModeDoc {
            name: &b.name,
            id: b.id,
        },
        &b.extra,
    )
}

#[derive(Serialize)]
pub struct LayerPresetDoc<'a> {
    pub id: &'a str,
    pub name: &'a str,
}

/// A layer preset as listed: `{id, name}` and the extra keys (what it sets stays in the file).
pub fn layer_preset(p: &LayerPreset) -> Extended<'_, LayerPresetDoc<'_>> {
    Extended(
        LayerPresetDoc {
            id: &p.id,
            name: &p.name,
        },
        &p.extra,
    )
}

#[derive(Serialize)]
pub struct EffectPresetDoc<'a> {
    pub uuid: &'a str,
    pub name: &'a str,
    /// `None` is answered as null.
    pub effects: Option<Vec<Extended<'a, FxDoc<'a>>>>,
}

/// A layer as `GET /data/layer/{id}` answers it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayerDoc<'a> {
    pub uuid: &'a str,
    pub name: &'a str,
    pub is_hidden: bool,
    pub is_muted: bool,
    pub opacity: f64,
    pub effects: Vec<Extended<'a, FxDoc<'a>>>,
    /// The UUID, or `"null"` when none.
    #[serde(rename = "effectPresetUUID")]
    pub effect_preset_uuid: &'a str,
    /// The UUID, or `"null"` when none.
    #[serde(rename = "targetSetUUID")]
    pub target_set_uuid: &'a str,
    pub transition_duration: f64,
}

/// A layer in a transport state: the layer's fields, its blend and its live transition.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveLayerDoc<'a> {
    #[serde(flatten)]
    pub layer: LayerDoc<'a>,
    pub layer_blend: LayerBlend<'a>,
    pub transition: Option<LiveTransition<'a>>,
}

/// `{type, base}` of `GET /layerBlend/layer/{id}`.
#[derive(Serialize)]
pub struct LayerBlend<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    pub base: Map<String, Value>,
}

/// The transition a transport-state layer reports, with the layer's duration and the
/// transition's `favoriteUUID` (written after the transition's extra keys, replacing any).
#[derive(Serialize)]
pub struct LiveTransition<'a> {
    #[serde(flatten)]
    pub fx: Extended<'a, FxDoc<'a>>,
    pub duration: f64,
    #[serde(rename = "favoriteUUID")]
    pub favorite_uuid: &'a str,
}

/// A transport state's own fields (`playingItem` and `playingMedia` absent when none).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TransportDoc<'a> {
    pub time_elapsed: f64,
    pub time_remaining: f64,
    pub playback_rate: f64,
    pub is_playing: bool,
    pub is_scrubbing: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playing_item: Option<Extended<'a, NameUuid<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playing_media: Option<Extended<'a, NameUuid<'a>>>,
}

/// A transport state: its fields and extra keys, then the layer.
#[derive(Serialize)]
pub struct TransportState<'a> {
    #[serde(flatten)]
    pub state: Extended<'a, TransportDoc<'a>>,
    pub layer: Extended<'a, LiveLayerDoc<'a>>,
}

/// `GET /opacity/layer/{id}`: the field form or the document's.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Opacity {
    /// `{"opacity": {"value": x}}`.
    Field { opacity: Val<f64> },
    /// `{"value": x}`.
    Document(Val<f64>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_keys_follow_and_never_replace_documented_ones() {
        let mut extra = Extra::new();
        extra.insert("z".into(), Value::from(1));
        extra.insert("name".into(), Value::from("not this"));
        extra.insert("a".into(), Value::from(2));
        let n = Named {
            name: "T".into(),
            uuid: "U".into(),
            extra,
        };
        assert_eq!(
            serde_json::to_string(&named(&n)).unwrap(),
            r#"{"name":"T","uuid":"U","z":1,"a":2}"#
        );
        assert_eq!(
            serde_json::to_string(&Keyed("targetSet", Some(named(&n)))).unwrap(),
            r#"{"targetSet":{"name":"T","uuid":"U","z":1,"a":2}}"#
        );
    }

    #[test]
    fn extra_keys_are_kept_in_order_of_the_file() {
        let ws = crate::simulator::workspace::Workspace::from_json(
            r#"{"targetSets":[{"name":"T","uuid":"U","extra":{"z":1,"a":[2]}}]}"#,
        )
        .unwrap();
        let v = named(&ws.target_sets[0]);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"name":"T","uuid":"U","z":1,"a":[2]}"#
        );
    }
}
