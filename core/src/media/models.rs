//! The resources of the media API, read leniently.
//!
//! Every model keeps the JSON object the application sent (`raw`, for `to_dict()`: wire names,
//! unknown fields kept, duplicate keys resolved last-wins) next to its typed fields. Reading
//! never fails on a field: a field that is missing or of an unexpected type reads as `None` (or
//! an empty list), ints are accepted where doubles are documented, numbers given as text are
//! read as numbers, a `{"value": x}` wrapper around a number is looked through, and the text
//! `"null"` in a UUID field reads as `None`, like a JSON null. Nested models are shared
//! (`Arc`) so that handing them out is cheap.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::json::{as_text, json_kind};

/// A JSON object as the application sent it.
pub type Raw = Map<String, Value>;

/// A resource of the API.
pub trait Model: Sized {
    /// The class name (as the binding names the model's class).
    const NAME: &'static str;
    /// The key that wraps one resource in replies and list items (`{"layer": {...}}`), if any.
    const KEY: Option<&'static str>;
    /// Read the typed fields of an object; never fails (see the module documentation).
    fn from_raw(raw: Raw) -> Self;
    /// The object as sent.
    fn raw(&self) -> &Raw;

    /// Read one resource from a JSON value, which must be an object nested at most
    /// [`MAX_DEPTH`](crate::json::MAX_DEPTH) deep (reading a model recurses into it).
    fn from_value(value: Value) -> Result<Self, String> {
        crate::json::check_depth(&value)?;
        match value {
            Value::Object(raw) => Ok(Self::from_raw(raw)),
            other => Err(format!(
                "a {} is a JSON object, got {}",
                Self::NAME,
                json_kind(&other)
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Lenient field readers
// ---------------------------------------------------------------------------------------------

/// Text: strings as they are, numbers and booleans printed; null or anything else is `None`.
pub fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(as_text)
}

/// A UUID: like [`text`], and the text `"null"` (or an empty string) is `None` too.
pub fn uuid(v: Option<&Value>) -> Option<String> {
    text(v).filter(|s| !s.is_empty() && s != "null")
}

/// A number: an int or a double, a numeric string, or any of these wrapped as `{"value": x}`.
pub fn number(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        Value::Object(m) => number(m.get("value")),
        _ => None,
    }
}

/// An integer: an int, an integral double or a string of digits.
pub fn integer(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A boolean: `true`/`false`, the texts "true"/"false" (any case), or 1/0.
pub fn boolean(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") || s == "1" => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") || s == "0" => Some(false),
        Value::Number(n) => n.as_f64().map(|f| f != 0.0),
        _ => None,
    }
}

/// The object a wrapped item holds: `{"effect": {...}}` gives the inner object, a bare object
/// gives itself. Anything else (null, "null", an array) is `None`.
pub fn unwrap_item<M: Model>(v: &Value) -> Option<&Raw> {
    let obj = v.as_object()?;
    match M::KEY.and_then(|k| obj.get(k)) {
        Some(inner) => inner.as_object(),
        None => Some(obj),
    }
}

/// A list field: an array of objects, each bare or wrapped; items that are not objects are
/// skipped, and a missing or null field is an empty list.
pub fn items<M: Model>(v: Option<&Value>) -> Vec<Arc<M>> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(unwrap_item::<M>)
            .map(|o| Arc::new(M::from_raw(o.clone())))
            .collect(),
        _ => Vec::new(),
    }
}

/// A nested object field (`null`, `"null"` or a missing field is `None`).
pub fn nested<M: Model>(v: Option<&Value>) -> Option<Arc<M>> {
    v.and_then(unwrap_item::<M>)
        .map(|o| Arc::new(M::from_raw(o.clone())))
}

// ---------------------------------------------------------------------------------------------
// The models
// ---------------------------------------------------------------------------------------------

/// Declare a model: its typed fields, read from the raw object by the given expressions.
macro_rules! model {
    (
        $(#[$doc:meta])*
        $ty:ident ($name:literal, $key:expr) {
            $( $(#[$fdoc:meta])* $field:ident : $fty:ty = $read:expr ),* $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $ty {
            $( $(#[$fdoc])* pub $field: $fty, )*
            raw: Raw,
        }

        impl Model for $ty {
            const NAME: &'static str = $name;
            const KEY: Option<&'static str> = $key;
            #[allow(clippy::redundant_closure_call)]
            fn from_raw(raw: Raw) -> Self {
                $ty {
                    $( $field: ($read)(&raw), )*
                    raw,
                }
            }
            fn raw(&self) -> &Raw {
                &self.raw
            }
        }
    };
}

model! {
    /// A cue summary (playlist item) `{name, uuid}`.
    Cue("Cue", Some("playlistItem")) {
        uuid: Option<String> = |r: &Raw| uuid(r.get("uuid")),
        name: Option<String> = |r: &Raw| text(r.get("name")),
    }
}

model! {
    /// The media playing on a layer `{name, uuid}` (absent when the layer is empty).
    Media("Media", None) {
        uuid: Option<String> = |r: &Raw| uuid(r.get("uuid")),
        name: Option<String> = |r: &Raw| text(r.get("name")),
    }
}

model! {
    /// A playlist, its cues (`items`) and nested playlists (`children`).
    Playlist("Playlist", Some("playlist")) {
        uuid: Option<String> = |r: &Raw| uuid(r.get("uuid")),
        name: Option<String> = |r: &Raw| text(r.get("name")),
        items: Vec<Arc<Cue>> = |r: &Raw| items(r.get("items")),
        children: Vec<Arc<Playlist>> = |r: &Raw| items(r.get("children")),
    }
}

/// A playlist or a cue found in a playlist tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    Playlist(Arc<Playlist>),
    Cue(Arc<Cue>),
}

impl Playlist {
    /// This playlist and all nested ones, depth-first (each before its children).
    pub fn walk(self: &Arc<Self>) -> Vec<Arc<Playlist>> {
        let mut out = Vec::new();
        let mut stack = vec![self.clone()];
        while let Some(p) = stack.pop() {
            stack.extend(p.children.iter().rev().cloned());
            out.push(p);
        }
        out
    }

    /// The first playlist or cue whose UUID (any case) or name is `key`, depth-first: each
    /// playlist is looked at before its cues, its cues before its nested playlists.
    pub fn find(self: &Arc<Self>, key: &str) -> Option<Found> {
        let hit = |uuid: &Option<String>, name: &Option<String>| {
            uuid.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(key))
                || name.as_deref() == Some(key)
        };
        self.walk().into_iter().find_map(|p| {
            if hit(&p.uuid, &p.name) {
                return Some(Found::Playlist(p.clone()));
            }
            p.items
                .iter()
                .find(|c| hit(&c.uuid, &c.name))
                .map(|c| Found::Cue(c.clone()))
        })
    }
}

/// The typed base of a variable, by its type.
#[derive(Debug, Clone, PartialEq)]
pub enum VariableBase {
    Float(Arc<FloatBase>),
    Color(Arc<ColorBase>),
    /// Int, Double, Direction and unknown types (their layout is not documented), or a base
    /// that is not an object: the value as sent (`Null` when absent).
    Other(Value),
}

model! {
    /// The base of a `Float` variable.
    FloatBase("FloatBase", None) {
        value: Option<f64> = |r: &Raw| number(r.get("value")),
        max_value: Option<f64> = |r: &Raw| number(r.get("max_value").or_else(|| r.get("maxValue"))),
        min_value: Option<f64> = |r: &Raw| number(r.get("min_value").or_else(|| r.get("minValue"))),
        name: Option<String> = |r: &Raw| text(r.get("name")),
    }
}

model! {
    /// The base of a `Color` variable (`color` is `#RRGGBB`).
    ColorBase("ColorBase", None) {
        name: Option<String> = |r: &Raw| text(r.get("name")),
        color: Option<String> = |r: &Raw| text(r.get("color")),
    }
}

fn variable_base(r: &Raw) -> VariableBase {
    let base = r.get("base");
    let kind = text(r.get("type")).unwrap_or_default();
    match base {
        Some(Value::Object(b)) if kind.eq_ignore_ascii_case("float") => {
            VariableBase::Float(Arc::new(FloatBase::from_raw(b.clone())))
        }
        Some(Value::Object(b)) if kind.eq_ignore_ascii_case("color") => {
            VariableBase::Color(Arc::new(ColorBase::from_raw(b.clone())))
        }
        other => VariableBase::Other(other.cloned().unwrap_or(Value::Null)),
    }
}

model! {
    /// A variable of an effect or transition: `type` (Int, Float, Double, Direction, Color)
    /// and its `base`.
    Variable("Variable", Some("variable")) {
        r#type: Option<String> = |r: &Raw| text(r.get("type")),
        base: VariableBase = variable_base,
    }
}

model! {
    /// An effect.
    Effect("Effect", Some("effect")) {
        uuid: Option<String> = |r: &Raw| uuid(r.get("uuid")),
        name: Option<String> = |r: &Raw| text(r.get("name")),
        enabled: Option<bool> = |r: &Raw| boolean(r.get("enabled")),
        variables: Vec<Arc<Variable>> = |r: &Raw| items(r.get("variables")),
    }
}

model! {
    /// A transition.
    Transition("Transition", Some("transition")) {
        uuid: Option<String> = |r: &Raw| uuid(r.get("uuid")),
        name: Option<String> = |r: &Raw| text(r.get("name")),
        enabled: Option<bool> = |r: &Raw| boolean(r.get("enabled")),
        variables: Vec<Arc<Variable>> = |r: &Raw| items(r.get("variables")),
    }
}

model! {
    /// An effects preset (`effects` is empty when the application sends null).
    EffectPreset("EffectPreset", Some("effectPreset")) {
        uuid: Option<String> = |r: &Raw| uuid(r.get("uuid")),
        name: Option<String> = |r: &Raw| text(r.get("name")),
        effects: Vec<Arc<Effect>> = |r: &Raw| items(r.get("effects")),
    }
}

model! {
    /// A blend mode `{name, id}`.
    BlendMode("BlendMode", Some("blendMode")) {
        name: Option<String> = |r: &Raw| text(r.get("name")),
        id: Option<i64> = |r: &Raw| integer(r.get("id")),
    }
}

/// The four layer blend types of the API document.
pub const BLEND_TYPES: [&str; 4] = ["Standard", "Alpha Matte", "Luma Matte", "White Matte"];

fn blend_base(r: &Raw) -> Option<&Raw> {
    r.get("base").and_then(Value::as_object)
}

model! {
    /// A layer blend: `type` and its `base` as sent, with the typed fields of the base
    /// (`name`, `mode_index`, `opacity` for Standard; `is_inverted` for the mattes).
    LayerBlend("LayerBlend", Some("layerBlend")) {
        r#type: Option<String> = |r: &Raw| text(r.get("type")),
        base: Value = |r: &Raw| r.get("base").cloned().unwrap_or(Value::Null),
        name: Option<String> = |r: &Raw| text(blend_base(r).and_then(|b| b.get("name"))),
        mode_index: Option<i64> = |r: &Raw| integer(blend_base(r).and_then(|b| b.get("modeIndex"))),
        opacity: Option<f64> = |r: &Raw| number(blend_base(r).and_then(|b| b.get("opacity"))),
        is_inverted: Option<bool> =
            |r: &Raw| boolean(blend_base(r).and_then(|b| b.get("isInverted"))),
    }
}

model! {
    /// A layer preset `{id, name}` (`id` is text; a number is printed).
    LayerPreset("LayerPreset", Some("layerPreset")) {
        id: Option<String> = |r: &Raw| text(r.get("id")),
        name: Option<String> = |r: &Raw| text(r.get("name")),
    }
}

model! {
    /// A target set `{name, uuid}`.
    TargetSet("TargetSet", Some("targetSet")) {
        name: Option<String> = |r: &Raw| text(r.get("name")),
        uuid: Option<String> = |r: &Raw| uuid(r.get("uuid")),
    }
}

model! {
    /// The state of a layer.
    LayerState("LayerState", Some("layer")) {
        uuid: Option<String> = |r: &Raw| uuid(r.get("uuid")),
        name: Option<String> = |r: &Raw| text(r.get("name")),
        is_hidden: Option<bool> = |r: &Raw| boolean(r.get("isHidden")),
        is_muted: Option<bool> = |r: &Raw| boolean(r.get("isMuted")),
        opacity: Option<f64> = |r: &Raw| number(r.get("opacity")),
        effects: Vec<Arc<Effect>> = |r: &Raw| items(r.get("effects")),
        effect_preset_uuid: Option<String> = |r: &Raw| uuid(r.get("effectPresetUUID")),
        target_set_uuid: Option<String> = |r: &Raw| uuid(r.get("targetSetUUID")),
        transition_duration: Option<f64> = |r: &Raw| number(r.get("transitionDuration")),
        transition: Option<Arc<Transition>> = |r: &Raw| nested(r.get("transition")),
    }
}

model! {
    /// The transport state of a layer: times, rate, what plays, and the layer itself.
    TransportState("TransportState", Some("transportState")) {
        time_elapsed: Option<f64> = |r: &Raw| number(r.get("timeElapsed")),
        time_remaining: Option<f64> = |r: &Raw| number(r.get("timeRemaining")),
        playback_rate: Option<f64> = |r: &Raw| number(r.get("playbackRate")),
        is_playing: Option<bool> = |r: &Raw| boolean(r.get("isPlaying")),
        is_scrubbing: Option<bool> = |r: &Raw| boolean(r.get("isScrubbing")),
        playing_item: Option<Arc<Cue>> = |r: &Raw| nested(r.get("playingItem")),
        playing_media: Option<Arc<Media>> = |r: &Raw| nested(r.get("playingMedia")),
        layer: Option<Arc<LayerState>> = |r: &Raw| nested(r.get("layer")),
    }
}

/// The layers of the workspace (`GET /data/layers`), in the application's order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LayerList(pub Vec<Arc<LayerState>>);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Raw {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn null_text_and_null_uuid_read_as_none() {
        let l = LayerState::from_raw(obj(json!({
            "uuid": "null", "effectPresetUUID": "null", "targetSetUUID": null, "name": "null"
        })));
        assert_eq!(l.uuid, None);
        assert_eq!(l.effect_preset_uuid, None);
        assert_eq!(l.target_set_uuid, None);
        // "null" is only special in UUID fields.
        assert_eq!(l.name.as_deref(), Some("null"));
    }

    #[test]
    fn numbers_ints_wrapped_and_text() {
        let l = LayerState::from_raw(obj(json!({
            "opacity": {"value": 1}, "transitionDuration": "2.5", "isMuted": "true", "isHidden": 0
        })));
        assert_eq!(l.opacity, Some(1.0));
        assert_eq!(l.transition_duration, Some(2.5));
        assert_eq!(l.is_muted, Some(true));
        assert_eq!(l.is_hidden, Some(false));
        let l = LayerState::from_raw(obj(json!({"opacity": 0.25, "isMuted": [1]})));
        assert_eq!(l.opacity, Some(0.25));
        assert_eq!(
            l.is_muted, None,
            "a field of an unexpected type reads as absent"
        );
    }

    #[test]
    fn layer_keeps_raw_and_nested_models() {
        let raw = json!({
            "uuid": "L1", "name": "Main", "future": {"x": 1},
            "effects": [
                {"effect": {"uuid": "E1", "name": "Blur", "enabled": true}}, {"uuid": "E2"}, 3
            ],
            "transition": {"uuid": "T1", "name": "Dissolve", "variables": []}
        });
        let l = LayerState::from_value(raw.clone()).unwrap();
        assert_eq!(Value::Object(l.raw().clone()), raw);
        assert_eq!(
            l.effects.len(),
            2,
            "wrapped and bare items, non-objects skipped"
        );
        assert_eq!(l.effects[0].name.as_deref(), Some("Blur"));
        assert_eq!(l.effects[1].uuid.as_deref(), Some("E2"));
        assert_eq!(
            l.transition.as_ref().unwrap().name.as_deref(),
            Some("Dissolve")
        );
        assert!(LayerState::from_value(json!([1])).is_err());
    }

    #[test]
    fn variables_typed_by_type() {
        let e = Effect::from_raw(obj(json!({"variables": [
            {"type": "Float",
             "base": {"value": 1, "max_value": 2.0, "min_value": 0, "name": "Amount"}},
            {"type": "Color", "base": {"name": "Tint", "color": "#FF0000"}},
            {"type": "Int", "base": {"value": 3}},
            {"type": "Direction"}
        ]})));
        match &e.variables[0].base {
            VariableBase::Float(f) => {
                assert_eq!(
                    (f.value, f.max_value, f.min_value),
                    (Some(1.0), Some(2.0), Some(0.0))
                );
                assert_eq!(f.name.as_deref(), Some("Amount"));
            }
            other => panic!("{other:?}"),
        }
        match &e.variables[1].base {
            VariableBase::Color(c) => assert_eq!(c.color.as_deref(), Some("#FF0000")),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            e.variables[2].base,
            VariableBase::Other(json!({"value": 3}))
        );
        assert_eq!(e.variables[2].r#type.as_deref(), Some("Int"));
        assert_eq!(e.variables[3].base, VariableBase::Other(Value::Null));
    }

    #[test]
    fn transport_state_with_and_without_playing_media() {
        let t = TransportState::from_raw(obj(json!({
            "timeElapsed": 1, "timeRemaining": 9.5, "playbackRate": 0, "isPlaying": true,
            "isScrubbing": false, "playingItem": {"name": "Intro", "uuid": "C1"},
            "layer": {"name": "Main", "transition": {"name": "Cut"}}
        })));
        assert_eq!(t.time_elapsed, Some(1.0));
        assert_eq!(t.playback_rate, Some(0.0));
        assert_eq!(t.playing_media, None);
        assert_eq!(
            t.playing_item.as_ref().unwrap().name.as_deref(),
            Some("Intro")
        );
        let layer = t.layer.as_ref().unwrap();
        assert_eq!(
            layer.transition.as_ref().unwrap().name.as_deref(),
            Some("Cut")
        );
        let t = TransportState::from_raw(obj(
            json!({"playingMedia": {"name": "clip.mov", "uuid": "M"}}),
        ));
        assert_eq!(t.playing_media.unwrap().name.as_deref(), Some("clip.mov"));
    }

    #[test]
    fn blend_typed_base() {
        let b = LayerBlend::from_raw(obj(
            json!({"type": "Standard", "base": {"modeIndex": 2, "opacity": 1}}),
        ));
        assert_eq!(
            (b.mode_index, b.opacity, b.is_inverted),
            (Some(2), Some(1.0), None)
        );
        let b = LayerBlend::from_raw(obj(
            json!({"type": "Luma Matte", "base": {"isInverted": true}}),
        ));
        assert_eq!(b.is_inverted, Some(true));
        assert_eq!(b.base, json!({"isInverted": true}));
    }

    fn tree() -> Arc<Playlist> {
        Arc::new(Playlist::from_raw(obj(json!({
            "uuid": "ROOT", "name": "root", "items": [{"name": "Top", "uuid": "c0"}],
            "children": [
                {"uuid": "G", "name": "Group", "items": [], "children": [
                    {"uuid": "P1", "name": "Show", "children": [],
                     "items": [{"name": "Intro", "uuid": "aa-1"}]}
                ]},
                {"uuid": "VI", "name": "Video Input", "items": [{"name": "Show", "uuid": "vi-1"}]}
            ]
        }))))
    }

    #[test]
    fn walk_is_depth_first() {
        let names: Vec<_> = tree()
            .walk()
            .iter()
            .map(|p| p.name.clone().unwrap())
            .collect();
        assert_eq!(names, ["root", "Group", "Show", "Video Input"]);
    }

    #[test]
    fn find_playlists_and_cues() {
        let t = tree();
        match t.find("Show") {
            Some(Found::Playlist(p)) => assert_eq!(p.uuid.as_deref(), Some("P1")),
            other => panic!("{other:?}"),
        }
        match t.find("AA-1") {
            Some(Found::Cue(c)) => assert_eq!(c.name.as_deref(), Some("Intro")),
            other => panic!("{other:?}"),
        }
        match t.find("vi-1") {
            Some(Found::Cue(c)) => assert_eq!(c.name.as_deref(), Some("Show")),
            other => panic!("{other:?}"),
        }
        assert_eq!(t.find("nothing"), None);
    }
}
