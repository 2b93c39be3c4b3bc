use serde_json::json;

use super::*;
use crate::media::models::Cue;

/// Both readers agree on `body`; returns whether it was read in one pass.
fn agree(body: &str) -> bool {
    let full = one::<Playlist>(body.as_bytes());
    match (full, decode(body.as_bytes())) {
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "{body}");
            false
        }
        (Ok(p), Ok(PlaylistTree::Model(q))) => {
            assert_eq!(p, q, "{body}");
            false
        }
        (Ok(p), Ok(PlaylistTree::Flat(f))) => {
            same_playlist(&f, 0, &p);
            true
        }
        (a, b) => panic!("{body}: the full decoder gave {a:?}, the one-pass reader {b:?}"),
    }
}

fn owned(t: Option<&str>) -> Option<String> {
    t.map(str::to_owned)
}

fn same_playlist(f: &Flat, index: u32, p: &Playlist) {
    let n = &f.playlists[index as usize];
    assert_eq!(owned(f.text(&n.uuid)), p.uuid);
    assert_eq!(owned(f.text(&n.name)), p.name);
    assert_eq!(&f.model::<Playlist>(&n.span).unwrap(), p);
    assert_eq!(n.items.len(), p.items.len());
    for (c, cue) in n.items.clone().zip(&p.items) {
        let c = &f.cues[c as usize];
        assert_eq!(owned(f.text(&c.uuid)), cue.uuid);
        assert_eq!(owned(f.text(&c.name)), cue.name);
        assert_eq!(&f.model::<Cue>(&c.span).unwrap(), &**cue);
    }
    assert_eq!(n.children.len(), p.children.len());
    for (i, child) in n.children.iter().zip(&p.children) {
        same_playlist(f, *i, child);
    }
}

fn tree() -> serde_json::Value {
    json!({"playlist": {
        "uuid": "R", "name": "Playlists", "items": [],
        "children": [
            {"uuid": "G", "name": "Group", "items": [], "children": [
                {"uuid": "A", "name": "Show A", "items": [
                    {"name": "Intro", "uuid": "c1"},
                    {"uuid": "c2", "name": "Goal!", "duration": 1.5, "tags": ["x", {"y": null}]}
                ], "children": []}
            ]},
            {"uuid": "V", "name": "Video Input", "items": [{"name": "Input 1", "uuid": "v1"}]}
        ]
    }})
}

#[test]
fn the_plain_shape_is_read_in_one_pass_as_the_full_decoder_reads_it() {
    let compact = tree().to_string();
    let pretty = serde_json::to_string_pretty(&tree()).unwrap();
    for body in [&compact, &pretty] {
        assert!(agree(body), "{body}");
    }
    let PlaylistTree::Flat(f) = decode(compact.as_bytes()).unwrap() else {
        panic!("not read in one pass")
    };
    assert_eq!(f.playlists.len(), 4);
    assert_eq!(f.cues.len(), 3);
    assert_eq!(f.text(&f.playlists[0].name), Some("Playlists"));
    assert!(matches!(f.cues[0].name, Text::Span(..)));
}

#[test]
fn texts_and_nulls() {
    for body in [
        r#"{"playlist": {"uuid": "null", "name": null, "items": null, "children": null}}"#,
        r#"{"playlist": {"uuid": "", "name": ""}}"#,
        r#"{"playlist": {}}"#,
        r#"{"playlist": {"name": "Lower \"Third\"/Left \u00e9", "uuid": "a\/b"}}"#,
        r#"{"playlist": {"name": "Café ✓ 𝄞", "items": [{"name": "\ud834\udd1e"}]}}"#,
        r#"{"playlist": {"na\u006de": "escaped key"}}"#,
        r#"{"version": 3, "playlist": {"name": "x"}, "extra": [1, {"a": null}]}"#,
        " \n\t{ \"playlist\" : { \"name\" : \"x\" , \"items\" : [ ] } } \r\n",
        r#"{"playlist": {"x": -0.5e-3, "y": [true, false, null, "s\n"], "name": "n"}}"#,
    ] {
        assert!(agree(body), "{body}");
    }
}

#[test]
fn other_shapes_go_to_the_full_decoder() {
    for body in [
        r#"{"playlist": {"children": [{"playlist": {"name": "wrapped"}}]}}"#,
        r#"{"playlist": {"items": [{"playlistItem": {"name": "wrapped"}}]}}"#,
        r#"{"playlist": {"items": [1, {"name": "a"}, "x"]}}"#,
        r#"{"playlist": {"children": [null, {"name": "a"}]}}"#,
        r#"{"playlist": {"name": 5, "uuid": 7}}"#,
        r#"{"playlist": {"name": true}}"#,
        r#"{"playlist": {"name": "a", "name": "b"}}"#,
        r#"{"playlist": {"items": [{"name": "a", "name": "b"}]}}"#,
        r#"{"playlist": {"name": "a"}, "playlist": {"name": "b"}}"#,
        r#"{"playlist": {"items": {"name": "not a list"}}}"#,
        r#"{"uuid": "R", "name": "bare"}"#,
        r#"{"playlist": {"playlist": {"name": "top level key"}}}"#,
    ] {
        assert!(!agree(body), "{body} should not be read in one pass");
    }
}

#[test]
fn invalid_replies_give_the_full_decoders_errors() {
    let deep = format!(
        "{{\"playlist\": {}{}}}",
        "{\"children\": [".repeat(150),
        "]}".repeat(150)
    );
    for body in [
        "",
        "   ",
        "[1, 2]",
        "null",
        r#"{"playlist": null}"#,
        r#"{"playlist": "null"}"#,
        r#"{"playlist": {"name": "a",}}"#,
        r#"{"playlist": {"items": [{"name": "a"},]}}"#,
        r#"{"playlist": {"name": "unterminated}}"#,
        "{\"playlist\": {\"name\": \"a\u{1}b\"}}",
        r#"{"playlist": {"name": "bad \x escape"}}"#,
        r#"{"playlist": {"n": 01}}"#,
        r#"{"playlist": {"n": nul}}"#,
        r#"{"playlist": {"name": nullx}}"#,
        r#"{"playlist": {}} trailing"#,
        r#"{"playlist": {}}}"#,
        r#"{"playlist" {}}"#,
        &deep,
    ] {
        assert!(!agree(body), "{body}");
    }
    assert!(decode(b"{\"playlist\": {\"name\": \"\xff\"}}").is_err());
}

#[test]
fn a_big_tree() {
    let cue = |i: usize| json!({"name": format!("Cue {i}"), "uuid": format!("u{i}")});
    let playlists: Vec<_> = (0..20)
        .map(|p| {
            json!({"uuid": format!("p{p}"), "name": format!("P{p}"),
                        "items": (0..50).map(cue).collect::<Vec<_>>(), "children": []})
        })
        .collect();
    let body = json!({"playlist": {"uuid": "R", "name": "root", "children": playlists}});
    assert!(agree(&body.to_string()));
    let tree = decode(body.to_string().as_bytes()).unwrap();
    assert_eq!(
        tree.into_playlist().unwrap(),
        one::<Playlist>(body.to_string().as_bytes()).unwrap()
    );
}

/// `{"playlist": ...}` with `levels` playlists nested in `children`, the innermost holding a
/// field (or a cue's field) nested `pad` deep: 2 + 2 × levels + pad levels in all (+2 in a cue).
fn nested_tree(levels: usize, pad: usize, in_cue: bool) -> String {
    let padding = format!("{}{}", "[".repeat(pad), "]".repeat(pad));
    let inner = if in_cue {
        format!(r#"{{"items": [{{"name": "c", "x": {padding}}}]}}"#)
    } else {
        format!(r#"{{"name": "p", "x": {padding}}}"#)
    };
    format!(
        r#"{{"playlist": {}{inner}{}}}"#,
        r#"{"children": ["#.repeat(levels),
        "]}".repeat(levels)
    )
}

#[test]
fn both_readers_agree_at_the_depth_limit() {
    use crate::json::{depth, MAX_DEPTH};
    // Deep trees go to the full decoder; shallow ones with a deep field are read in one pass.
    for (levels, in_cue, one_pass) in [
        (62, false, false),
        (61, true, false),
        (19, false, true),
        (10, false, true),
        (10, true, true),
    ] {
        let base = 2 + 2 * levels + 2 * usize::from(in_cue);
        let pad = MAX_DEPTH - base;
        let deepest = nested_tree(levels, pad, in_cue);
        let v: serde_json::Value = serde_json::from_str(&deepest).unwrap();
        assert_eq!(depth(&v, usize::MAX), MAX_DEPTH);
        assert_eq!(agree(&deepest), one_pass, "{levels} levels, {pad} padding");
        assert!(decode(deepest.as_bytes()).is_ok());
        let too_deep = nested_tree(levels, pad + 1, in_cue);
        assert!(!agree(&too_deep));
        assert!(decode(too_deep.as_bytes()).is_err());
    }
    assert!(agree(&nested_tree(FLAT_MAX_DEPTH / 2 - 1, 1, false)));
    assert!(!agree(&nested_tree(FLAT_MAX_DEPTH / 2, 1, false)));
    // Playlists alone past the limit.
    let deep = nested_tree(64, 1, false);
    assert!(!agree(&deep));
    assert!(decode(deep.as_bytes()).is_err());
}

#[test]
fn nesting_skips_strings() {
    assert_eq!(nesting(br#"[1, "[[[", {"a\"[": [{}]}]"#), 4);
    assert_eq!(nesting(b"3"), 0);
}

#[test]
fn a_node_model_is_read_from_its_span_once_and_equals_the_full_decoders() {
    let body = r#"{"playlist": {"uuid": "p", "name": "Show", "items": [{"uuid": "c", "name": "Open", "x": 1}], "children": []}}"#;
    let Ok(PlaylistTree::Flat(f)) = decode(body.as_bytes()) else {
        panic!("the plain shape is read in one pass");
    };
    let cue = NodeModel::<Cue>::span(&f, &f.cues[0].span);
    let first = cue.model().clone();
    assert!(Arc::ptr_eq(&first, cue.model()), "read once, then kept");
    let full = one::<Playlist>(body.as_bytes()).unwrap();
    assert_eq!(*first, *full.items[0]);
    assert_eq!(first.raw().get("x"), Some(&json!(1)));
    let given = NodeModel::Model(full.items[0].clone());
    assert!(Arc::ptr_eq(given.model(), &full.items[0]));
}
