//! The name lookups of a media client (`names.rs`), against a scripted application.

use std::sync::{Arc, Mutex};

use serde_json::json;

use super::models::{LayerList, LayerState, Model};
use super::names::*;
use super::table::consts::MUTE_LAYER;
use super::test_server::{client, lines, serve, Reply};
use crate::error::{Error, Result};
use crate::ident::Ident;

/// Layers "Main", "10" and "Twin" twice; playlists "2024" (cues "1", "Intro") and "Main Show"
/// (cue "1" again), in a group. `renamed` swaps layer "Main" for "Program".
async fn app() -> (String, crate::media::test_server::Log, Arc<Mutex<bool>>) {
    let renamed = Arc::new(Mutex::new(false));
    let r = renamed.clone();
    let (url, log) = serve(move |req| {
        let main = if *r.lock().unwrap() {
            "Program"
        } else {
            "Main"
        };
        match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/data/layers") => Reply::ok(
                json!({"data": [
                    {"layer": {"name": main, "uuid": "L-MAIN"}},
                    {"layer": {"name": "10", "uuid": "L-TEN"}},
                    {"layer": {"name": "Twin", "uuid": "L-T1"}},
                    {"layer": {"name": "Twin", "uuid": "L-T2"}},
                    {"layer": {"name": "Nameless"}}
                ]})
                .to_string(),
            ),
            ("GET", "/data/playlists") => Reply::ok(
                json!({"playlist": {"name": "root", "uuid": "ROOT", "items": [], "children": [
                    {"name": "Group", "uuid": "G", "items": [], "children": [
                        {"name": "2024", "uuid": "P-2024", "children": [], "items": [
                            {"name": "1", "uuid": "C-1A"}, {"name": "Intro", "uuid": "C-INTRO"}]},
                        {"name": "Main Show", "uuid": "P-MAIN", "children": [], "items": [
                            {"name": "1", "uuid": "C-1B"}]}
                    ]},
                    {"name": "Main", "uuid": "P-MAINPL", "items": [], "children": []}
                ]}})
                .to_string(),
            ),
            ("POST", _) => Reply::ok(""),
            _ => Reply::status(404),
        }
    })
    .await;
    (url, log, renamed)
}

fn lookup_error(e: Error) -> String {
    match e {
        Error::Lookup(m) => m,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_layer_named_with_digits_is_reached_by_uuid() {
    let (url, log, _) = app().await;
    let c = client(&url);
    let ten = c.resolve_layer("10").await.unwrap();
    assert_eq!(ten.uuid.as_deref(), Some("L-TEN"));
    let id = Ident::from(ten.uuid.clone().unwrap());
    c.run(MUTE_LAYER.at(&[&id]).unwrap()).await.unwrap();
    assert_eq!(lines(&log, "POST"), ["POST /mute/layer/L-TEN"]);
    // By UUID in any case, too.
    let again = c.resolve_layer("l-ten").await.unwrap();
    assert_eq!(again.name.as_deref(), Some("10"));
    assert_eq!(lines(&log, "GET /data/layers").len(), 1, "the list is kept");
}

#[tokio::test]
async fn playlists_anywhere_in_the_tree_and_by_name_with_kinds() {
    let (url, log, _) = app().await;
    let c = client(&url);
    let p = c.resolve_playlist("2024").await.unwrap();
    assert_eq!(p.uuid.as_deref(), Some("P-2024"));
    assert_eq!(p.items.len(), 2);
    assert_eq!(c.by_name("Intro", None).await.unwrap(), "C-INTRO");
    assert_eq!(c.by_name("10", None).await.unwrap(), "L-TEN");
    assert_eq!(
        c.by_name("Main", Some(NameKind::Playlist)).await.unwrap(),
        "P-MAINPL"
    );
    assert_eq!(
        c.by_name("Main", Some(NameKind::Layer)).await.unwrap(),
        "L-MAIN"
    );
    let e = lookup_error(c.by_name("Main", None).await.unwrap_err());
    assert!(e.contains("2 things are named \"Main\""), "{e}");
    assert!(e.contains("layer \"Main\" (L-MAIN)") && e.contains("playlist \"Main\" (P-MAINPL)"));
    let e = lookup_error(c.by_name("1", Some(NameKind::Cue)).await.unwrap_err());
    assert!(e.contains("C-1A") && e.contains("C-1B"), "{e}");
    assert_eq!(lines(&log, "GET /data/playlists").len(), 1);
}

#[tokio::test]
async fn misses_twins_and_nameless_layers() {
    let (url, log, _) = app().await;
    let c = client(&url);
    let e = lookup_error(c.resolve_layer("Nobody").await.unwrap_err());
    assert!(e.starts_with("no layer is named \"Nobody\""), "{e}");
    assert_eq!(
        lines(&log, "GET /data/layers").len(),
        1,
        "a fresh list is not read twice"
    );
    c.resolve_layer("Nobody").await.unwrap_err();
    // A miss in the kept list is looked up once more in a fresh one.
    assert_eq!(lines(&log, "GET /data/layers").len(), 2);
    let e = lookup_error(c.resolve_layer("Twin").await.unwrap_err());
    assert!(e.contains("L-T1") && e.contains("L-T2"), "{e}");
    let e = lookup_error(c.resolve_layer("Nameless").await.unwrap_err());
    assert!(e.contains("has no UUID"), "{e}");
    assert!(matches!(
        c.resolve_layer("").await.unwrap_err(),
        Error::InvalidInput(_)
    ));
    assert!(NameKind::parse("layer").is_ok() && NameKind::parse("Layer").is_err());
}

#[tokio::test]
async fn a_miss_suggests_the_nearest_name_and_lists_them() {
    let (url, _, _) = app().await;
    let c = client(&url);
    let e = lookup_error(c.resolve_layer("Mian").await.unwrap_err());
    assert!(
        e.starts_with(
            "no layer is named \"Mian\"; did you mean \"Main\"? (layers: \"Main\", \"10\", \
             \"Twin\", \"Nameless\")"
        ),
        "{e}"
    );
    let e = lookup_error(c.resolve_playlist("main show").await.unwrap_err());
    assert!(e.contains("did you mean \"Main Show\"?"), "{e}");
    assert!(
        e.contains("playlists: \"Group\", \"2024\", \"Main Show\", \"Main\")"),
        "{e}"
    );
    let e = lookup_error(c.by_name("Intr", Some(NameKind::Cue)).await.unwrap_err());
    assert!(
        e.contains("did you mean \"Intro\"?") && !e.contains("layers:"),
        "{e}"
    );
    let e = lookup_error(c.resolve_layer("Something else").await.unwrap_err());
    assert!(!e.contains("did you mean") && e.contains("layers: "), "{e}");
}

#[test]
fn a_long_list_is_cut() {
    let list = LayerList(
        (0..30)
            .map(|i| {
                let raw = json!({"name": format!("Layer {i}"), "uuid": "U"});
                Arc::new(LayerState::from_raw(raw.as_object().unwrap().clone()))
            })
            .collect(),
    );
    let e = lookup_error(miss("Nobody", Some(NameKind::Layer), Some(&list), None));
    assert!(e.contains("\"Layer 19\" and 10 more)"), "{e}");
    assert!(!e.contains("Layer 20\""), "{e}");
}

#[tokio::test]
async fn refresh_forgets_the_kept_lists() {
    let (url, log, renamed) = app().await;
    let c = client(&url);
    assert_eq!(
        c.by_name("Main", Some(NameKind::Layer)).await.unwrap(),
        "L-MAIN"
    );
    *renamed.lock().unwrap() = true;
    // Still found in the kept list (a stale hit), until refresh().
    assert_eq!(
        c.by_name("Main", Some(NameKind::Layer)).await.unwrap(),
        "L-MAIN"
    );
    // A name missing from the kept list is found in a fresh one.
    assert_eq!(
        c.by_name("Program", Some(NameKind::Layer)).await.unwrap(),
        "L-MAIN"
    );
    c.refresh();
    assert!(c.by_name("Main", Some(NameKind::Layer)).await.is_err());
    assert_eq!(lines(&log, "GET /data/layers").len(), 3);
}

#[tokio::test]
async fn the_lookup_calls_refuse_bad_arguments_before_sending_and_resolve_by_uuid() {
    let (url, log, _) = app().await;
    let c = client(&url);
    let refused = |r: Result<()>| match r {
        Err(Error::InvalidInput(m)) => m,
        other => panic!("{other:?}"),
    };
    assert!(refused(c.layer_named(String::new()).map(drop)).starts_with("name:"));
    assert!(refused(c.playlist_named(String::new()).map(drop)).starts_with("name:"));
    assert!(refused(c.uuid_named("Main".into(), Some("deck")).map(drop)).starts_with("kind:"));
    assert!(log.lock().unwrap().is_empty(), "nothing sent");
    let ten = c.layer_named("10".into()).unwrap().await.unwrap();
    assert_eq!(ten, Ident::Name("L-TEN".into()));
    let main = c.playlist_named("Main".into()).unwrap().await.unwrap();
    assert_eq!(main.uuid.as_deref(), Some("P-MAINPL"));
    let cue = c.uuid_named("Intro".into(), Some("cue")).unwrap().await;
    assert_eq!(cue.unwrap(), "C-INTRO");
}
