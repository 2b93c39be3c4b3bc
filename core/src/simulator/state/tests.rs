use std::time::Duration;

use super::*;
use crate::simulator::answers::to_value;
use crate::simulator::workspace::Workspace;
use serde_json::json;

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
    let json = to_value(t.answer(at(10.0)));
    assert!(json.get("playingMedia").is_none());
    assert_eq!(json["playingItem"]["name"], "c");
    assert_eq!(json["isPlaying"], false);
}

#[test]
fn still_image_plays_at_rate_zero() {
    let t0 = Instant::now();
    let mut t = PlaybackClock::default();
    t.load(&cue("s", 0.0), false, t0);
    let json = to_value(t.answer(t0 + Duration::from_secs(5)));
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
    let body = json!({"layerBlend": {"type": "Standard", "base": {"modeIndex": 3, "opacity": 3}}});
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
    let ws = Workspace::from_json(r#"{"layers":[{"name":"A"},{"name":"B","blendMode":"Sepia"}]}"#)
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

#[test]
fn a_scope_keeps_its_own_transition_and_one_posted_effect() {
    let mut w = world();
    let (blur, tint) = (w.effects[0].uuid.clone(), w.effects[1].uuid.clone());
    for uuid in [&blur, &tint] {
        let body = json!({"effect": {"uuid": uuid}});
        w.set_effect(Scope::Layer("0"), Some(&body)).unwrap();
    }
    // The second replaced the first, and was added enabled (the catalogue's is disabled).
    let fx = &w.layers[0].settings.effects;
    assert_eq!(
        (fx.len(), fx[0].uuid.as_str(), fx[0].enabled),
        (1, tint.as_str(), true)
    );
    assert!(!w.effects[1].enabled);
    // A posted transition object's variables land in the layer's copy, in single precision.
    let vars = [json!({"type": "Float", "base": {"name": "Feather", "value": 0.05}})];
    let chosen = Chosen {
        key: Given::Text("Wipe Left"),
        variables: Some(&vars),
    };
    w.set_transition(Scope::Layer("0"), chosen).unwrap();
    let own = w.layers[0].settings.transition.as_ref().unwrap();
    assert_eq!(own.variables[0]["base"]["value"], json!(f64::from(0.05f32)));
    assert_eq!(
        w.transitions[2].variables[0]["base"]["value"],
        json!(f64::from(0.1f32))
    );
    // By name alone, the catalogue's values again.
    w.set_transition(Scope::Layer("0"), Chosen::by(Given::Text("Wipe Left")))
        .unwrap();
    assert_eq!(
        w.layers[0].settings.transition.as_ref().unwrap().variables,
        w.transitions[2].variables
    );
}
