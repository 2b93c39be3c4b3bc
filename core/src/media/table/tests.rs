//! The operation table: its endpoints (method, path, query, body of each request) and every
//! reply variant, and its builders (the argument checks and read-back each picks).

use super::consts::*;
use super::*;
use crate::error::Error;
use crate::media::builders::Confirmable;
use serde_json::json;

fn id(i: i64) -> Ident {
    Ident::Index(i)
}

fn name(s: &str) -> Ident {
    Ident::from(s)
}

/// Method, path with query, and body (as JSON) of a call.
fn wire<T>(call: Result<Call<T>>) -> (&'static str, String, Option<Value>) {
    let call = call.expect("the call should be built");
    let r = call.request;
    let body = r.body.as_ref().map(|b| serde_json::from_slice(b).unwrap());
    (r.method.as_str(), r.path_and_query(), body)
}

fn get_(path: &str) -> (&'static str, String, Option<Value>) {
    ("GET", path.to_string(), None)
}

fn post_(path: &str, body: Option<Value>) -> (&'static str, String, Option<Value>) {
    ("POST", path.to_string(), body)
}

#[test]
fn reads_of_the_table() {
    let l = name("Lower Third/Left");
    let cases = [
        (wire(PLAYLISTS.at(&[])), get_("/data/playlists")),
        (wire(PLAYLIST.at(&[&id(-1)])), get_("/data/playlist/-1")),
        (
            wire(CUE.at(&[&name("Show A"), &id(3)])),
            get_("/data/playlist/Show%20A/cue/3"),
        ),
        (wire(LAYERS.at(&[])), get_("/data/layers")),
        (
            wire(LAYER_STATE.at(&[&l])),
            get_("/data/layer/Lower%20Third%2FLeft"),
        ),
        (wire(LAYER_OPACITY.at(&[&id(0)])), get_("/opacity/layer/0")),
        (wire(BLEND_MODES.at(&[])), get_("/blendMode")),
        (
            wire(LAYER_BLEND_MODE.at(&[&id(1)])),
            get_("/blendMode/layer/1"),
        ),
        (wire(LAYER_BLEND.at(&[&id(1)])), get_("/blend/layer/1")),
        (wire(LAYER_PRESETS.at(&[])), get_("/layerPreset")),
        (
            wire(LAYER_LAYER_PRESETS.at(&[&id(2)])),
            get_("/layerPreset/layer/2"),
        ),
        (wire(TARGET_SETS.at(&[])), get_("/targetSet")),
        (
            wire(LAYER_TARGET_SET.at(&[&id(2)])),
            get_("/targetSet/layer/2"),
        ),
        (wire(EFFECTS.at(&[])), get_("/effects")),
        (wire(WORKSPACE_EFFECTS.at(&[])), get_("/effects/workspace")),
        (wire(LAYER_EFFECTS.at(&[&id(0)])), get_("/effects/layer/0")),
        (wire(EFFECT_PRESETS.at(&[])), get_("/effectsPreset")),
        (
            wire(WORKSPACE_EFFECT_PRESET.at(&[])),
            get_("/effectsPreset/workspace"),
        ),
        (
            wire(LAYER_EFFECT_PRESET.at(&[&id(0)])),
            get_("/effectsPreset/layer/0"),
        ),
        (wire(TRANSITIONS.at(&[])), get_("/transition")),
        (
            wire(WORKSPACE_TRANSITION.at(&[])),
            get_("/transition/workspace"),
        ),
        (
            wire(LAYER_TRANSITION.at(&[&id(0)])),
            get_("/transition/layer/0"),
        ),
        (
            wire(WORKSPACE_TRANSITION_DURATION.at(&[])),
            get_("/transitionDuration/workspace"),
        ),
        (
            wire(LAYER_TRANSITION_DURATION.at(&[&id(0)])),
            get_("/transitionDuration/layer/0"),
        ),
        (
            wire(TRANSPORT_STATES.at(&[])),
            get_("/transportState/workspace"),
        ),
        (
            wire(LAYER_TRANSPORT_STATE.at(&[&id(0)])),
            get_("/transportState/layer/0"),
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}

#[test]
fn commands_of_the_table() {
    let l = id(1);
    let v = |x: Value| Some(json!({ "value": x }));
    let cases = [
        (
            wire(CLEAR_WORKSPACE.at(&[])),
            post_("/clear/workspace", None),
        ),
        (wire(MUTE_WORKSPACE.at(&[])), post_("/mute/workspace", None)),
        (
            wire(UNMUTE_WORKSPACE.at(&[])),
            post_("/unmute/workspace", None),
        ),
        (wire(HIDE_WORKSPACE.at(&[])), post_("/hide/workspace", None)),
        (
            wire(UNHIDE_WORKSPACE.at(&[])),
            post_("/unhide/workspace", None),
        ),
        (wire(CLEAR_LAYER.at(&[&l])), post_("/clear/layer/1", None)),
        (wire(MUTE_LAYER.at(&[&l])), post_("/mute/layer/1", None)),
        (wire(UNMUTE_LAYER.at(&[&l])), post_("/unmute/layer/1", None)),
        (wire(HIDE_LAYER.at(&[&l])), post_("/hide/layer/1", None)),
        (wire(UNHIDE_LAYER.at(&[&l])), post_("/unhide/layer/1", None)),
        (
            wire(SELECT_LAYER.with(&[&l], "target", true)),
            post_("/select/layer/1?target=true", None),
        ),
        (
            wire(SELECT_LAYER.with(&[&l], "target", false)),
            post_("/select/layer/1?target=false", None),
        ),
        (
            wire(SELECT_PLAYLIST.at(&[&id(-1)])),
            post_("/select/playlist/-1", None),
        ),
        (
            wire(TRIGGER_CUE.at(&[&id(4)])),
            post_("/trigger/cue/4", None),
        ),
        (
            wire(TRIGGER_PLAYLIST.at(&[&name("Intro")])),
            post_("/trigger/playlist/Intro", None),
        ),
        (
            wire(TRIGGER_PLAYLIST_CUE.at(&[&id(2), &name("Goal!")])),
            post_("/trigger/playlist/2/cue/Goal%21", None),
        ),
        (
            wire(TRIGGER_LAYER.at(&[&l, &id(-1), &id(0)])),
            post_("/trigger/layer/1/playlist/-1/cue/0", None),
        ),
        (
            wire(SET_LAYER_OPACITY.with(&[&l], "value", 0.5)),
            post_("/opacity/layer/1", v(json!(0.5))),
        ),
        (
            wire(SET_LAYER_BLEND_MODE.with(&[&l], "name", "Add".into())),
            post_("/blendMode/layer/1", v(json!("Add"))),
        ),
        (
            wire(APPLY_LAYER_PRESET.with(&[&l], "name", "Wide".into())),
            post_("/layerPreset/layer/1", v(json!("Wide"))),
        ),
        (
            wire(SET_LAYER_TARGET_SET.with(&[&l], "name_or_none", Some("All".into()))),
            post_("/targetSet/layer/1", v(json!("All"))),
        ),
        (
            wire(SET_LAYER_TARGET_SET.with(&[&l], "name_or_none", None)),
            post_("/targetSet/layer/1", None),
        ),
        (
            wire(SET_WORKSPACE_EFFECT_PRESET.with(&[], "uuid_or_none", Some("U".into()))),
            post_("/effectsPreset/workspace", v(json!("U"))),
        ),
        (
            wire(SET_WORKSPACE_EFFECT_PRESET.with(&[], "uuid_or_none", None)),
            post_("/effectsPreset/workspace", v(Value::Null)),
        ),
        (
            wire(SET_LAYER_EFFECT_PRESET.with(&[&l], "name_or_none", Some("Warm".into()))),
            post_("/effectsPreset/layer/1", v(json!("Warm"))),
        ),
        (
            wire(SET_WORKSPACE_TRANSITION.with(&[], "transition", "T-1".into())),
            post_("/transition/workspace", v(json!("T-1"))),
        ),
        (
            wire(SET_LAYER_TRANSITION.with(&[&l], "transition_or_none", None)),
            post_("/transition/layer/1", v(Value::Null)),
        ),
        (
            wire(SET_WORKSPACE_TRANSITION_DURATION.with(&[], "seconds", 5.0)),
            post_("/transitionDuration/workspace", v(json!(5.0))),
        ),
        (
            wire(SET_LAYER_TRANSITION_DURATION.with(&[&l], "seconds", 0.0)),
            post_("/transitionDuration/layer/1", v(json!(0.0))),
        ),
        (wire(PLAY_WORKSPACE.at(&[])), post_("/play/workspace", None)),
        (
            wire(PAUSE_WORKSPACE.at(&[])),
            post_("/pause/workspace", None),
        ),
        (wire(PLAY_LAYER.at(&[&l])), post_("/play/layer/1", None)),
        (wire(PAUSE_LAYER.at(&[&l])), post_("/pause/layer/1", None)),
        (
            wire(go_to(&l, 12.5)),
            post_("/goToStart/layer/1?offset=12.5", None),
        ),
        (
            wire(go_to(&l, 0.0)),
            post_("/goToStart/layer/1?offset=0", None),
        ),
        (
            wire(go_to(&l, -3.0)),
            post_("/goToEnd/layer/1?offset=3", None),
        ),
        (
            wire(go_to(&l, -0.0)),
            post_("/goToEnd/layer/1?offset=0", None),
        ),
        (
            wire(SKIP.with(&[&l], "seconds", 2.5)),
            post_("/skip/layer/1?forwards=true&offset=2.5", None),
        ),
        (
            wire(SKIP.with(&[&l], "seconds", -10.0)),
            post_("/skip/layer/1?forwards=false&offset=10", None),
        ),
        // To the microsecond, never hundreds of digits.
        (
            wire(go_to(&l, 1e-300)),
            post_("/goToStart/layer/1?offset=0", None),
        ),
        (
            wire(go_to(&l, 0.1 + 0.2)),
            post_("/goToStart/layer/1?offset=0.3", None),
        ),
        (
            wire(go_to(&l, -MAX_OFFSET_SECONDS)),
            post_("/goToEnd/layer/1?offset=604800", None),
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}

#[test]
fn effect_and_blend_bodies() {
    let effect = json!({"uuid": "E1", "enabled": false})
        .as_object()
        .unwrap()
        .clone();
    assert_eq!(
        wire(SET_LAYER_EFFECT.with(&[&id(0)], "effect", effect.clone())),
        post_(
            "/effects/layer/0",
            Some(json!({"effect": {"uuid": "E1", "enabled": false}}))
        )
    );
    assert_eq!(
        wire(SET_WORKSPACE_EFFECT.with(&[], "effect", effect)).1,
        "/effects/workspace"
    );
    let spec = BlendSpec::from_value(
        "blend",
        &json!({"type": "Standard", "base": {"modeIndex": 2, "opacity": 1}}),
    )
    .unwrap();
    let call = SET_LAYER_BLEND.with(&[&id(3)], "blend", spec).unwrap();
    assert_eq!(call.fallback.unwrap().path, "/layerBlend/layer/3");
    let body: Value = serde_json::from_slice(call.request.body.as_ref().unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"type": "Standard", "base": {"modeIndex": 2, "opacity": 1}})
    );
    let white = BlendSpec::from_value("blend", &json!({"type": "White Matte"})).unwrap();
    let call = SET_LAYER_BLEND.with(&[&id(3)], "blend", white).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(call.request.body.as_ref().unwrap()).unwrap(),
        json!({"type": "White Matte", "base": {}})
    );
    assert_eq!(
        LAYER_BLEND.at(&[&id(0)]).unwrap().fallback.unwrap().path,
        "/layerBlend/layer/0"
    );
    assert!(LAYER_OPACITY.at(&[&id(0)]).unwrap().fallback.is_none());
}

fn refused<T>(r: Result<Call<T>>, arg: &str) {
    match r {
        Err(Error::InvalidInput(msg)) => assert!(msg.starts_with(arg), "{msg:?} names {arg}"),
        Err(other) => panic!("expected a refusal, got {other:?}"),
        Ok(c) => panic!("expected a refusal, built {:?}", c.request),
    }
}

#[test]
fn refusals_name_the_argument() {
    refused(LAYER_STATE.at(&[&id(-1)]), "id");
    refused(PLAYLIST.at(&[&id(-2)]), "id");
    refused(CUE.at(&[&id(0), &id(-1)]), "cue_id");
    refused(CUE.at(&[&id(-2), &id(0)]), "playlist_id");
    refused(TRIGGER_PLAYLIST.at(&[&name("")]), "id");
    refused(TRIGGER_LAYER.at(&[&id(0), &id(0), &name("-4")]), "cue_id");
    for bad in [-0.01, 1.01, f64::NAN, f64::INFINITY] {
        refused(SET_LAYER_OPACITY.with(&[&id(0)], "value", bad), "value");
    }
    for bad in [-0.5, 5.001, f64::NAN, f64::NEG_INFINITY] {
        refused(
            SET_LAYER_TRANSITION_DURATION.with(&[&id(0)], "seconds", bad),
            "seconds",
        );
        refused(
            SET_WORKSPACE_TRANSITION_DURATION.with(&[], "seconds", bad),
            "seconds",
        );
    }
    refused(
        SET_LAYER_BLEND_MODE.with(&[&id(0)], "name", String::new()),
        "name",
    );
    refused(
        SET_LAYER_TARGET_SET.with(&[&id(0)], "name_or_none", Some(String::new())),
        "name_or_none",
    );
    refused(go_to(&id(0), f64::NAN), "seconds");
    for huge in [1e300, -1e300, MAX_OFFSET_SECONDS * 1.0001] {
        refused(go_to(&id(0), huge), "seconds");
        refused(SKIP.with(&[&id(0)], "seconds", huge), "seconds");
    }
    refused(SKIP.with(&[&id(0)], "seconds", f64::INFINITY), "seconds");
    let effect = |v: Value| v.as_object().unwrap().clone();
    refused(
        SET_LAYER_EFFECT.with(&[&id(0)], "effect", effect(json!({"name": "x"}))),
        "effect",
    );
    refused(
        SET_LAYER_EFFECT.with(&[&id(0)], "effect", effect(json!({"uuid": ""}))),
        "effect",
    );
    refused(
        SET_LAYER_EFFECT.with(
            &[&id(0)],
            "effect",
            effect(json!({"uuid": "u", "enable": true})),
        ),
        "effect",
    );
    refused(
        SET_LAYER_EFFECT.with(
            &[&id(0)],
            "effect",
            effect(json!({"uuid": "u", "enabled": "yes"})),
        ),
        "effect",
    );
    let blend = |v: Value| BlendSpec::from_value("blend", &v).unwrap();
    for bad in [
        json!({"type": "Multiply", "base": {}}),
        json!({"type": "Standard", "base": {"modeIndex": 1}}),
        json!({"type": "Standard", "base": {"modeIndex": -1, "opacity": 1}}),
        json!({"type": "Standard", "base": {"modeIndex": 1, "opacity": 2}}),
        json!({"type": "Alpha Matte", "base": {}}),
        json!({"type": "Luma Matte", "base": {"isInverted": 1}}),
        json!({"type": "White Matte", "base": {"isInverted": true}}),
    ] {
        refused(
            SET_LAYER_BLEND.with(&[&id(0)], "blend", blend(bad)),
            "blend",
        );
    }
    assert!(BlendSpec::from_value("blend", &json!({"type": "Standard", "extra": 1})).is_err());
    assert!(BlendSpec::from_value("blend", &json!({"base": {}})).is_err());
    assert!(BlendSpec::from_value("blend", &json!({"type": "Standard", "base": 3})).is_err());
}

#[test]
fn templates_check_their_identifiers() {
    assert!(matches!(
        fill("/a/{layer:id}", &[]),
        Err(Error::Internal(_))
    ));
    assert!(matches!(fill("/a", &[&id(0)]), Err(Error::Internal(_))));
    assert!(matches!(
        fill("/a/{thing:id}", &[&id(0)]),
        Err(Error::Internal(_))
    ));
    assert_eq!(
        fill("/a/{layer:id}/b", &[&name("É")]).unwrap(),
        "/a/%C3%89/b"
    );
}

// ---------------------------------------------------------------------------------------------
// Decoders
// ---------------------------------------------------------------------------------------------

fn b(v: Value) -> Vec<u8> {
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn opacity_variants() {
    let d = LAYER_OPACITY.decode;
    assert_eq!(d(&b(json!({"opacity": {"value": 0.5}}))), Ok(0.5));
    assert_eq!(d(&b(json!({"value": 0.25}))), Ok(0.25));
    assert_eq!(d(&b(json!({"opacity": 1}))), Ok(1.0));
    assert_eq!(d(&b(json!({"value": 0}))), Ok(0.0));
    assert!(d(b"").is_err());
    assert!(d(&b(json!({"other": 1}))).is_err());
    assert!(d(b"{\"value\":").is_err());
}

#[test]
fn transition_duration_variants() {
    let d = LAYER_TRANSITION_DURATION.decode;
    assert_eq!(
        d(&b(json!({"transitionDuration": {"value": 1.5}}))),
        Ok(1.5)
    );
    assert_eq!(d(&b(json!({"transitionDuration": 2}))), Ok(2.0));
    assert_eq!(d(&b(json!({"value": 3}))), Ok(3.0));
    assert!(d(&b(json!({"transitionDuration": null}))).is_err());
}

#[test]
fn data_reads() {
    let p = (PLAYLISTS.decode)(&b(json!({"playlist": {"uuid": "R", "name": "root",
        "items": [{"name": "a", "uuid": "1"}], "children": [{"uuid": "C", "name": "child"}]}})))
    .unwrap();
    assert_eq!(p.uuid.as_deref(), Some("R"));
    assert_eq!(p.items[0].name.as_deref(), Some("a"));
    assert_eq!(p.children[0].name.as_deref(), Some("child"));
    let c = (CUE.decode)(&b(json!({"playlistItem": {"name": "Goal", "uuid": "G"}}))).unwrap();
    assert_eq!(c.name.as_deref(), Some("Goal"));
    let bare = (CUE.decode)(&b(json!({"name": "Goal", "uuid": "G"}))).unwrap();
    assert_eq!(bare, c.clone());
    assert!((PLAYLIST.decode)(&b(json!({"playlist": null}))).is_err());
    assert!((PLAYLIST.decode)(&b(json!([1, 2]))).is_err());

    let layers = (LAYERS.decode)(&b(json!({"data": [
        {"layer": {"name": "A", "opacity": 1}},
        {"name": "B", "opacity": {"value": 0.5}}
    ]})))
    .unwrap();
    assert_eq!(layers.0.len(), 2);
    assert_eq!(layers.0[0].opacity, Some(1.0));
    assert_eq!(layers.0[1].name.as_deref(), Some("B"));
    assert_eq!(layers.0[1].opacity, Some(0.5));
    assert!((LAYERS.decode)(&b(json!({"data": [1]}))).is_err());
    assert!((LAYERS.decode)(&b(json!({"layers": []}))).is_err());
    let one = (LAYER_STATE.decode)(&b(json!({"layer": {"name": "A", "isMuted": true}}))).unwrap();
    assert_eq!(one.is_muted, Some(true));
}

#[test]
fn list_variants() {
    let modes = (BLEND_MODES.decode)(&b(json!({"data": [
        {"blendMode": {"name": "Normal", "id": 0}}, {"name": "Add", "id": 1.0}
    ]})))
    .unwrap();
    assert_eq!(modes[1].id, Some(1));
    assert_eq!(modes[0].name.as_deref(), Some("Normal"));
    let presets = (LAYER_PRESETS.decode)(&b(json!({"data": [
        {"id": "P1", "name": "Wide"}, {"layerPreset": {"id": 7, "name": "Tight"}}
    ]})))
    .unwrap();
    assert_eq!(presets[1].id.as_deref(), Some("7"));
    let effects = (EFFECTS.decode)(&b(json!({"data": [
        {"effect": {"uuid": "E1", "name": "Blur"}}, {"uuid": "E2", "name": "Glow"}
    ]})))
    .unwrap();
    assert_eq!(effects[1].name.as_deref(), Some("Glow"));
    for body in [
        json!({"data": [{"transition": {"uuid": "T1", "name": "Cut"}}]}),
        json!({"transitions": [{"transition": {"uuid": "T1", "name": "Cut"}}]}),
        json!({"transitions": [{"uuid": "T1", "name": "Cut"}]}),
        json!([{"uuid": "T1", "name": "Cut"}]),
    ] {
        let t = (TRANSITIONS.decode)(&b(body)).unwrap();
        assert_eq!(t[0].uuid.as_deref(), Some("T1"));
    }
    assert_eq!(
        (TARGET_SETS.decode)(&b(json!({"data": null}))).unwrap(),
        vec![]
    );
    assert!((TARGET_SETS.decode)(b"").is_err());
    assert!((TARGET_SETS.decode)(&b(json!({"data": {}}))).is_err());
    let states = (TRANSPORT_STATES.decode)(&b(json!({"data": [
        {"transportState": {"isPlaying": true, "playingMedia": {"name": "m"}}}
    ]})))
    .unwrap();
    assert_eq!(states[0].is_playing, Some(true));
    let presets = (EFFECT_PRESETS.decode)(&b(json!({"data": [
        {"effectPreset": {"uuid": "EP", "name": "Warm", "effects": null}}
    ]})))
    .unwrap();
    assert!(presets[0].effects.is_empty());
}

#[test]
fn nil_variants() {
    let d = LAYER_TARGET_SET.decode;
    assert_eq!(d(&b(json!({"targetSet": null}))), Ok(None));
    assert_eq!(d(&b(json!({"targetSet": "null"}))), Ok(None));
    assert_eq!(d(&b(json!({}))), Ok(None));
    assert_eq!(d(b""), Ok(None));
    assert_eq!(d(b"null"), Ok(None));
    let t = d(&b(json!({"targetSet": {"name": "All", "uuid": "null"}})))
        .unwrap()
        .unwrap();
    assert_eq!((t.name.as_deref(), t.uuid), (Some("All"), None));
    assert!(d(&b(json!({"targetSet": [1]}))).is_err());
    assert_eq!(
        (WORKSPACE_EFFECT_PRESET.decode)(&b(json!({"effectPreset": null}))),
        Ok(None)
    );
    assert_eq!((LAYER_EFFECT_PRESET.decode)(b" "), Ok(None));
    assert_eq!(
        (LAYER_TRANSITION.decode)(&b(json!({"transition": null}))),
        Ok(None)
    );
    let t = (WORKSPACE_TRANSITION.decode)(&b(json!({"transition": {"uuid": "T", "name": "Cut"}})))
        .unwrap()
        .unwrap();
    assert_eq!(t.name.as_deref(), Some("Cut"));
}

#[test]
fn layer_transport_state_variants() {
    let d = LAYER_TRANSPORT_STATE.decode;
    let state = json!({"timeElapsed": 1, "isPlaying": false, "layer": {"name": "A"}});
    for body in [
        json!({"transportState": state.clone()}),
        state.clone(),
        json!({"data": [{"transportState": state.clone()}]}),
        json!({"data": [state.clone()]}),
    ] {
        let t = d(&b(body.clone())).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(t.time_elapsed, Some(1.0));
        assert_eq!(t.is_playing, Some(false));
        assert_eq!(t.playing_media, None);
        assert_eq!(t.layer.as_ref().unwrap().name.as_deref(), Some("A"));
    }
    assert!(d(&b(json!({"data": []}))).is_err());
    assert!(d(b"").is_err());
}

#[test]
fn layer_blend_reply() {
    let blend = (LAYER_BLEND.decode)(&b(json!({"layerBlend": {"type": "Alpha Matte",
        "base": {"isInverted": false}}})))
    .unwrap();
    assert_eq!(blend.r#type.as_deref(), Some("Alpha Matte"));
    assert_eq!(blend.is_inverted, Some(false));
    let mode =
        (LAYER_BLEND_MODE.decode)(&b(json!({"blendMode": {"name": "Screen", "id": "3"}}))).unwrap();
    assert_eq!(mode.id, Some(3));
}

#[test]
fn command_replies_are_not_read() {
    assert_eq!((CLEAR_WORKSPACE.decode)(b""), Ok(()));
    assert_eq!((CLEAR_WORKSPACE.decode)(b"<html>not json</html>"), Ok(()));
}

#[test]
fn raw_requests() {
    let (m, p, body) = wire(raw(
        "post",
        "data/layer/Lower Third",
        Some(json!({"x": 1})),
        vec![("a".into(), "b c".into())],
    ));
    assert_eq!(
        (m, p.as_str()),
        ("POST", "/data/layer/Lower%20Third?a=b%20c")
    );
    assert_eq!(body, Some(json!({"x": 1})));
    assert_eq!(
        wire(raw("GET", "/data/layer/A%2FB", None, vec![])).1,
        "/data/layer/A%2FB"
    );
    // A percent sign that starts no escape is sent as one.
    assert_eq!(
        wire(raw("GET", "/data/layer/100%/%zz%4", None, vec![])).1,
        "/data/layer/100%25/%25zz%254"
    );
    for bad in [
        "",
        "/",
        "http://h/x",
        "/a?b=1",
        "/a#x",
        "/a/../b",
        "/a\r\n",
        "/a/%2e%2e/b",
        "/a/.%2E",
        "/a/..%2Fb",
        "/a/%2E",
    ] {
        let refused = raw("GET", bad, None, vec![]);
        assert!(
            matches!(refused, Err(Error::InvalidInput(m)) if m.starts_with("path:")),
            "{bad:?}"
        );
    }
    assert!(raw("DELETE", "/x", None, vec![]).is_err());
    assert_eq!(json_or_none(b""), Ok(None));
    assert_eq!(json_or_none(b"[1]"), Ok(Some(json!([1]))));
}

#[test]
fn duplicate_keys_last_wins() {
    let d = LAYER_OPACITY.decode;
    assert_eq!(
        d(br#"{"opacity":{"value":0.1},"opacity":{"value":0.9}}"#),
        Ok(0.9)
    );
    let layer = (LAYER_STATE.decode)(br#"{"layer":{"isMuted":true,"isMuted":false}}"#).unwrap();
    assert_eq!(layer.is_muted, Some(false));
    assert_eq!(layer.raw().len(), 1);
}

/// The field prints a whole double without a fraction (`1`, `0`): every reply field the
/// document gives as a double decodes from the field's exact text.
#[test]
fn whole_numbers_decode_where_doubles_are_documented() {
    assert_eq!(
        (LAYER_OPACITY.decode)(br#"{"opacity":{"value":1}}"#),
        Ok(1.0)
    );
    assert_eq!(
        (LAYER_TRANSITION_DURATION.decode)(br#"{"transitionDuration":{"value":0}}"#),
        Ok(0.0)
    );
    assert_eq!(
        (WORKSPACE_TRANSITION_DURATION.decode)(br#"{"transitionDuration":{"value":5}}"#),
        Ok(5.0)
    );
    let layer = br#"{"uuid":"L","name":"A","isHidden":false,"isMuted":false,"opacity":1,
        "effects":[],"effectPresetUUID":"null","targetSetUUID":"null","transitionDuration":0}"#;
    let l = (LAYER_STATE.decode)(
        format!(r#"{{"layer":{}}}"#, std::str::from_utf8(layer).unwrap()).as_bytes(),
    )
    .unwrap();
    assert_eq!((l.opacity, l.transition_duration), (Some(1.0), Some(0.0)));
    let t = (LAYER_TRANSPORT_STATE.decode)(
        br#"{"transportState":{"timeElapsed":0,"timeRemaining":30,"playbackRate":1,
        "isPlaying":true,"isScrubbing":false,"layer":{"name":"A","opacity":0,
        "layerBlend":{"type":"Standard","base":{"name":"Normal","modeIndex":0,"opacity":1}}}}}"#,
    )
    .unwrap();
    assert_eq!(
        (t.time_elapsed, t.time_remaining, t.playback_rate),
        (Some(0.0), Some(30.0), Some(1.0))
    );
    assert_eq!(t.layer.as_ref().unwrap().opacity, Some(0.0));
    let blend = (LAYER_BLEND.decode)(
        br#"{"layerBlend":{"type":"Standard","base":{"name":"Normal","modeIndex":0,"opacity":1}}}"#,
    )
    .unwrap();
    assert_eq!(blend.opacity, Some(1.0));
    let float = br#"{"type":"Float","base":{"value":1,"max_value":100,"min_value":0,"name":"R"}}"#;
    let float = std::str::from_utf8(float).unwrap();
    let effects = (EFFECTS.decode)(
        format!(r#"{{"data":[{{"effect":{{"uuid":"E","name":"Blur","enabled":true,"variables":[{float}]}}}}]}}"#)
            .as_bytes(),
    )
    .unwrap();
    let transitions = (TRANSITIONS.decode)(
        format!(r#"{{"data":[{{"transition":{{"uuid":"T","name":"Dissolve","enabled":false,"variables":[{float}]}}}}]}}"#)
            .as_bytes(),
    )
    .unwrap();
    for variables in [&effects[0].variables, &transitions[0].variables] {
        match &variables[0].base {
            VariableBase::Float(f) => assert_eq!(
                (f.value, f.max_value, f.min_value),
                (Some(1.0), Some(100.0), Some(0.0))
            ),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_query_value_is_a_text_a_number_or_a_flag() {
    assert_eq!(query_value(json!("a b")), Some("a b".into()));
    assert_eq!(query_value(json!(2.5)), Some("2.5".into()));
    assert_eq!(query_value(json!(-3)), Some("-3".into()));
    assert_eq!(query_value(json!(true)), Some("true".into()));
    for refused in [json!(null), json!([1]), json!({"a": 1})] {
        assert_eq!(query_value(refused), None);
    }
}

#[test]
fn every_operation_is_listed_once_per_scope_with_its_endpoints() {
    let ops = operations();
    assert!(ops.len() >= 50, "{}", ops.len());
    for op in &ops {
        assert!(
            !op.endpoints.is_empty() && !op.doc.trim().is_empty(),
            "{}",
            op.name
        );
        let same = ops
            .iter()
            .filter(|o| o.name == op.name && o.scope == op.scope)
            .count();
        assert_eq!(same, 1, "{} is declared twice", op.name);
    }
}

#[test]
fn a_builder_checks_its_argument_and_picks_its_read_back() {
    let main = Ident::from("Main");
    let c = layer::set_opacity(&main, 0.5, true).unwrap();
    assert_eq!(c.call.request.path, "/opacity/layer/Main");
    assert!(matches!(c.expect, Some(Expect::Opacity { value, .. }) if value == 0.5));
    assert!(layer::set_opacity(&main, 0.5, false)
        .unwrap()
        .expect
        .is_none());
    let e = layer::set_opacity(&main, 1.5, false).err().unwrap();
    assert!(e.to_string().starts_with("value: "), "{e}");
    let ws = both::mute(None, true).unwrap();
    assert_eq!(ws.call.request.path, "/mute/workspace");
    assert!(matches!(
        ws.expect,
        Some(Expect::Flag {
            layer: None,
            flag: Flag::Muted,
            value: true
        })
    ));
    assert_eq!(
        both::mute(Some(&main), false).unwrap().call.request.path,
        "/mute/layer/Main"
    );
    let end = layer::go_to(&main, -0.0)
        .unwrap()
        .call
        .request
        .path_and_query();
    assert!(end.starts_with("/goToEnd/layer/Main"), "{end}");
}

#[test]
fn a_raw_command_is_described_compared_and_hashed_by_its_request_and_read_back() {
    let params = vec![("a b".to_string(), "1".to_string())];
    let raw = Confirmable::request("/x y", Some(serde_json::json!({"v": 1})), params).unwrap();
    assert_eq!(raw.operation, crate::journal::RAW);
    assert_eq!(raw.body(), Some(serde_json::json!({"v": 1})));
    assert_eq!(raw.describe(), "Command('POST /x%20y?a%20b=1 {\"v\":1}')");
    let main = Ident::from("Main");
    let confirmed = layer::set_opacity(&main, 0.5, true).unwrap();
    let plain = layer::set_opacity(&main, 0.5, false).unwrap();
    assert!(confirmed.describe().ends_with(", confirm=True)"));
    assert!(plain == layer::set_opacity(&main, 0.5, false).unwrap());
    assert!(confirmed != plain);
    let hash = crate::json::hash_of::<Confirmable>;
    assert_eq!(
        hash(&plain),
        hash(&layer::set_opacity(&main, 0.5, false).unwrap())
    );
    assert_ne!(hash(&plain), hash(&confirmed));
    let none = Confirmable::request("/x", None, Vec::new()).unwrap();
    assert_eq!(
        (none.body(), none.describe()),
        (None, "Command('POST /x')".into())
    );
    assert!(Confirmable::request("/x", None, vec![("k".into(), "v".repeat(9000))]).is_err());
}
