use std::sync::{Arc, Mutex};

use serde_json::json;

use super::*;
use crate::media::expect::Flag;
use crate::media::table::consts::{
    MUTE_LAYER, MUTE_WORKSPACE, SET_LAYER_OPACITY, TRIGGER_LAYER, TRIGGER_PLAYLIST_CUE,
};
use crate::media::test_server::{client, lines, serve, serve_layers, Layers, Reply};

fn opacity(layer: &str, value: f64) -> (Call<()>, Expect) {
    let id = Ident::from(layer);
    (
        SET_LAYER_OPACITY.with(&[&id], "value", value).unwrap(),
        Expect::Opacity { layer: id, value },
    )
}

#[tokio::test]
async fn a_change_that_shows_after_a_few_reads_is_confirmed() {
    let mut layers = Layers::named(&["Main"]);
    layers.lag = 3;
    let (url, log, _) = serve_layers(layers).await;
    let (call, expect) = opacity("Main", 0.5);
    confirmed(&client(&url), call, &expect).await.unwrap();
    assert_eq!(lines(&log, "POST").len(), 1);
    assert_eq!(lines(&log, "GET /opacity/layer/Main").len(), 3);
}

#[tokio::test]
async fn a_single_precision_opacity_is_confirmed() {
    let mut layers = Layers::named(&["Main"]);
    layers.round = true;
    let (url, _, state) = serve_layers(layers).await;
    let (call, expect) = opacity("Main", 0.3);
    confirmed(&client(&url), call, &expect).await.unwrap();
    assert_eq!(state.lock().unwrap().layers[0].opacity, 0.30000001192092896);
}

#[test]
fn numbers_compare_as_the_application_stores_them() {
    // The field's read-back of 0.01, printed as a double.
    let field: f64 = "0.0099999997764825821".parse().unwrap();
    assert!(close(0.01, field));
    assert!(close(1.0, 1.0) && close(0.0, 0.0));
    // A value the application would not have stored for what was sent.
    assert!(!close(0.3, 77.0 / 255.0));
    assert!(!close(0.5, 0.5001));
}

#[tokio::test]
async fn a_change_that_never_shows_is_not_confirmed() {
    let mut layers = Layers::named(&["Main"]);
    layers.ignore = true;
    layers.layers[0].opacity = 0.3;
    let (url, log, _) = serve_layers(layers).await;
    let (call, expect) = opacity("Main", 0.5);
    let started = std::time::Instant::now();
    let err = confirmed(&client(&url), call, &expect).await.unwrap_err();
    match &err {
        Error::NotConfirmed {
            method,
            url: u,
            expected,
            actual,
            message,
        } => {
            assert_eq!((&**expected, &**actual), (&json!(0.5), &json!(0.3)));
            assert_eq!(method, "POST");
            assert!(u.ends_with("/api/0/opacity/layer/Main"), "{u}");
            assert!(
                message.contains("the opacity of layer \"Main\" read back 0.3, not 0.5"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(lines(&log, "GET").len(), READ_BACK.len());
    assert!(started.elapsed() >= READ_BACK[READ_BACK.len() - 1]);
}

#[tokio::test]
async fn a_failed_command_is_returned_as_it_is_and_nothing_is_read() {
    let (url, log) = serve(|_| Reply::status(400)).await;
    let (call, expect) = opacity("Nobody", 0.5);
    let err = confirmed(&client(&url), call, &expect).await.unwrap_err();
    assert_eq!(err.status(), Some(400));
    assert_eq!(log.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn reads_that_keep_failing_are_reported() {
    let (url, log) = serve(|req| match req.method.as_str() {
        "POST" => Reply::ok(""),
        _ => Reply::status(500),
    })
    .await;
    let (call, expect) = opacity("Main", 0.5);
    let err = confirmed(&client(&url), call, &expect).await.unwrap_err();
    match err {
        Error::NotConfirmed {
            actual, message, ..
        } => {
            assert_eq!(*actual, serde_json::Value::Null);
            assert!(message.contains("could not be read back: 500"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(lines(&log, "GET").len(), READ_BACK.len());
}

#[tokio::test]
async fn mute_of_a_layer_and_of_the_workspace() {
    let mut layers = Layers::named(&["A", "B"]);
    layers.lag = 1;
    let (url, _, state) = serve_layers(layers).await;
    let c = client(&url);
    let a = Ident::from("A");
    let expect = Expect::Flag {
        layer: Some(a.clone()),
        flag: Flag::Muted,
        value: true,
    };
    confirmed(&c, MUTE_LAYER.at(&[&a]).unwrap(), &expect)
        .await
        .unwrap();
    let expect = Expect::Flag {
        layer: None,
        flag: Flag::Muted,
        value: true,
    };
    confirmed(&c, MUTE_WORKSPACE.at(&[]).unwrap(), &expect)
        .await
        .unwrap();
    assert!(state.lock().unwrap().layers.iter().all(|l| l.muted));
    // Hidden stays false: a hide expectation is not met, and says which layers.
    state.lock().unwrap().ignore = true;
    let expect = Expect::Flag {
        layer: None,
        flag: Flag::Hidden,
        value: true,
    };
    let err = confirmed(&c, MUTE_WORKSPACE.at(&[]).unwrap(), &expect)
        .await
        .unwrap_err();
    match err {
        Error::NotConfirmed {
            expected, actual, ..
        } => {
            assert_eq!(*expected, json!(true));
            assert_eq!(*actual, json!({"A": false, "B": false}));
        }
        other => panic!("{other:?}"),
    }
}

/// A transport stand-in: the trigger loads the cue on the layer after one read; the playlist
/// "Show" holds cues "1" (UUID C-1) and "Goal!" (C-2).
async fn stage(load: bool) -> (String, crate::media::test_server::Log) {
    let playing: Arc<Mutex<Option<(&str, bool)>>> = Arc::new(Mutex::new(None));
    serve(move |req| {
        let mut p = playing.lock().unwrap();
        let cue = |name: &str, uuid: &str| json!({"playlistItem": {"name": name, "uuid": uuid}});
        match (req.method.as_str(), req.path.as_str()) {
            ("POST", path) if path.starts_with("/trigger/") => {
                *p = Some(("C-1", false));
                Reply::ok("")
            }
            ("GET", "/data/playlist/Show/cue/1") => Reply::ok(cue("1", "C-1").to_string()),
            ("GET", "/data/playlist/Show/cue/0") => Reply::ok(cue("1", "c-1").to_string()),
            ("GET", path) if path.starts_with("/transportState/") => {
                let shown = p.map(|(_, seen)| seen && load).unwrap_or(false);
                if let Some((_, seen)) = p.as_mut() {
                    *seen = true;
                }
                // The residual playingItem names the cue even when nothing plays.
                let mut t = json!({"isPlaying": shown, "playbackRate": 1,
                                   "playingItem": {"name": "1", "uuid": "C-1"},
                                   "layer": {"name": "Main"}});
                if shown {
                    t["playingMedia"] = json!({"name": "one.mov"});
                }
                if path.ends_with("/workspace") {
                    Reply::ok(json!({"data": [{"transportState": t}]}).to_string())
                } else {
                    Reply::ok(json!({ "transportState": t }).to_string())
                }
            }
            _ => Reply::status(404),
        }
    })
    .await
}

#[tokio::test]
async fn a_trigger_is_confirmed_by_the_cue_playing_with_media() {
    let (url, log) = stage(true).await;
    let c = client(&url);
    let (main, show, one) = (Ident::from("Main"), Ident::from("Show"), Ident::from("1"));
    let expect = Expect::Playing {
        layer: Some(main.clone()),
        playlist: show.clone(),
        cue: Some(one.clone()),
    };
    confirmed(
        &c,
        TRIGGER_LAYER.at(&[&main, &show, &one]).unwrap(),
        &expect,
    )
    .await
    .unwrap();
    assert_eq!(lines(&log, "GET /transportState/layer/Main").len(), 2);
    // By index on the workspace (the cue's UUID matches in any case).
    let zero = Ident::Index(0);
    let expect = Expect::Playing {
        layer: None,
        playlist: show.clone(),
        cue: Some(zero.clone()),
    };
    confirmed(
        &c,
        TRIGGER_PLAYLIST_CUE.at(&[&show, &zero]).unwrap(),
        &expect,
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn a_residual_playing_item_without_media_is_not_a_confirmation() {
    let (url, _) = stage(false).await;
    let (main, show, one) = (Ident::from("Main"), Ident::from("Show"), Ident::from("1"));
    let expect = Expect::Playing {
        layer: Some(main.clone()),
        playlist: show.clone(),
        cue: Some(one.clone()),
    };
    let err = confirmed(
        &client(&url),
        TRIGGER_LAYER.at(&[&main, &show, &one]).unwrap(),
        &expect,
    )
    .await
    .unwrap_err();
    match err {
        Error::NotConfirmed {
            expected, actual, ..
        } => assert_eq!((*expected, *actual), (json!("1"), serde_json::Value::Null)),
        other => panic!("{other:?}"),
    }
}

/// Two layers share a name (and one has the name of another's key form): every layer is in
/// `actual`, none hidden behind another of the same name.
#[tokio::test]
async fn a_workspace_read_back_reports_every_layer_even_with_shared_names() {
    let mut layers = Layers::named(&["Clip", "Logo", "Clip", "Clip [0]"]);
    layers.ignore = true;
    let (url, _, _) = serve_layers(layers).await;
    let c = client(&url);
    let expect = Expect::Flag {
        layer: None,
        flag: Flag::Muted,
        value: true,
    };
    let err = confirmed(&c, MUTE_WORKSPACE.at(&[]).unwrap(), &expect)
        .await
        .unwrap_err();
    let Error::NotConfirmed { actual, .. } = err else {
        panic!("{err:?}")
    };
    let keys: Vec<&String> = actual.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 4, "{actual}");
    assert_eq!(
        *actual,
        json!({"Clip [0]": false, "Logo": false, "Clip [2]": false, "Clip [0] [3]": false})
    );
}

#[test]
fn the_default_schedule_is_read_back_over_the_default_timeout() {
    assert_eq!(
        read_back(crate::transport::DEFAULT_CONFIRM_TIMEOUT),
        READ_BACK
    );
    let fast = read_back(Duration::from_millis(40));
    assert_eq!(fast[0], Duration::ZERO);
    assert_eq!(fast[1], Duration::from_millis(10));
    assert_eq!(fast[4], Duration::from_millis(40));
}
