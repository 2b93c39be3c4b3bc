use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::*;
use crate::media::models::Model;
use crate::media::test_server::{client, serve, Reply};

/// A layer's transport state: `media` None is an empty layer (the residual playingItem stays).
fn ts(layer: &str, media: Option<&str>, playing: bool, rate: f64, remaining: f64) -> Value {
    let mut v = json!({
        "timeElapsed": 1.0, "timeRemaining": remaining, "playbackRate": rate,
        "isPlaying": playing, "isScrubbing": false,
        "playingItem": {"name": "Old cue", "uuid": "CUE-OLD"},
        "layer": {"name": layer, "uuid": format!("L-{layer}")}
    });
    if let Some(m) = media {
        v["playingMedia"] = json!({"name": m, "uuid": format!("M-{m}")});
    }
    v
}

fn state(v: Value) -> TransportState {
    TransportState::from_value(v).unwrap()
}

fn kinds(prev: Value, cur: Value, thresholds: &[f64]) -> Vec<(&'static str, Option<f64>)> {
    layer_changes(Some(&state(prev)), Some(&state(cur)), thresholds)
        .into_iter()
        .map(|(k, t)| (k.as_str(), t))
        .collect()
}

#[test]
fn started_and_stopped() {
    let paused = ts("Main", Some("a.mov"), false, 0.0, 20.0);
    let playing = ts("Main", Some("a.mov"), true, 1.0, 19.0);
    assert_eq!(
        kinds(paused.clone(), playing.clone(), &[]),
        [("started", None)]
    );
    assert_eq!(kinds(playing.clone(), paused, &[]), [("stopped", None)]);
    assert_eq!(kinds(playing.clone(), playing, &[]), []);
}

#[test]
fn media_changed_on_an_empty_or_a_busy_layer() {
    let empty = ts("Main", None, false, 0.0, 0.0);
    let a = ts("Main", Some("a.mov"), true, 1.0, 30.0);
    let b = ts("Main", Some("b.mov"), true, 1.0, 30.0);
    let b_paused = ts("Main", Some("b.mov"), false, 0.0, 30.0);
    assert_eq!(
        kinds(empty, a.clone(), &[]),
        [("media_changed", None), ("started", None)]
    );
    assert_eq!(
        kinds(a.clone(), b, &[]),
        [("media_changed", None), ("started", None)]
    );
    assert_eq!(
        kinds(a, b_paused, &[]),
        [("media_changed", None), ("stopped", None)]
    );
}

#[test]
fn emptied_when_playing_media_is_absent_whatever_playing_item_says() {
    let a = ts("Main", Some("a.mov"), true, 1.0, 3.0);
    let mut cleared = ts("Main", None, true, 1.0, 0.0);
    cleared["playingItem"] = json!({"name": "Intro", "uuid": "CUE-1"});
    assert_eq!(kinds(a, cleared.clone(), &[10.0]), [("emptied", None)]);
    // An empty layer whose residual playingItem changes: nothing happened.
    let mut other = cleared.clone();
    other["playingItem"] = json!({"name": "Goal!", "uuid": "CUE-2"});
    assert_eq!(kinds(cleared, other, &[10.0]), []);
}

#[test]
fn time_remaining_crossings() {
    let at = |r: f64| ts("Main", Some("a.mov"), true, 1.0, r);
    assert_eq!(
        kinds(at(10.4), at(9.9), &[10.0]),
        [("time_remaining", Some(10.0))]
    );
    assert_eq!(
        kinds(at(10.0), at(9.0), &[10.0]),
        [],
        "already at the threshold"
    );
    assert_eq!(
        kinds(at(12.0), at(4.0), &[10.0, 5.0]),
        [
            ("time_remaining", Some(10.0)),
            ("time_remaining", Some(5.0))
        ]
    );
    assert_eq!(
        kinds(at(4.0), at(12.0), &[10.0]),
        [],
        "a jump back is no crossing"
    );
    // A clip reaching its end crosses the last threshold as it stops.
    let ended = ts("Main", Some("a.mov"), false, 0.0, 0.0);
    assert_eq!(
        kinds(at(1.2), ended, &[1.0]),
        [("stopped", None), ("time_remaining", Some(1.0))]
    );
    // New media that starts below a threshold crossed nothing.
    let b = ts("Main", Some("b.mov"), true, 1.0, 3.0);
    assert_eq!(
        kinds(at(30.0), b, &[10.0]),
        [("media_changed", None), ("started", None)]
    );
}

#[test]
fn a_still_image_plays_at_rate_0_and_crosses_nothing() {
    let empty = ts("Logo", None, false, 0.0, 0.0);
    let still = ts("Logo", Some("logo.png"), true, 0.0, 0.0);
    assert_eq!(
        kinds(empty, still.clone(), &[10.0]),
        [("media_changed", None), ("started", None)]
    );
    let mut odd = still.clone();
    odd["timeRemaining"] = json!(20.0);
    assert_eq!(kinds(odd, still, &[10.0]), []);
}

#[test]
fn layers_matched_by_uuid_across_polls_and_removed_layers_empty() {
    let prev = vec![
        Arc::new(state(ts("A", Some("a.mov"), true, 1.0, 30.0))),
        Arc::new(state(ts("B", Some("b.mov"), true, 1.0, 30.0))),
    ];
    // B moved to the front, A is gone, C is new and plays.
    let cur = vec![
        Arc::new(state(ts("B", Some("b.mov"), true, 1.0, 29.0))),
        Arc::new(state(ts("C", Some("c.mov"), true, 1.0, 30.0))),
    ];
    let at = SystemTime::now();
    let events = changes(&prev, &cur, &[], at);
    let seen: Vec<_> = events
        .iter()
        .map(|e| (e.kind.as_str(), e.layer_name.as_deref(), e.layer_index))
        .collect();
    assert_eq!(
        seen,
        [
            ("media_changed", Some("C"), Some(1)),
            ("started", Some("C"), Some(1)),
            ("emptied", Some("A"), None),
        ]
    );
    let gone = &events[2];
    assert_eq!(gone.layer_uuid.as_deref(), Some("L-A"));
    assert!(gone.current.is_none() && gone.previous.is_some());
    assert!(events[0].previous.is_none());
    assert_eq!(events[0].at, at);
}

#[test]
fn threshold_refusals_and_order() {
    assert_eq!(thresholds(&[5.0, 10.0, 5.0]).unwrap(), [10.0, 5.0]);
    assert!(thresholds(&[]).unwrap().is_empty());
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e9] {
        let e = thresholds(&[bad]).unwrap_err().to_string();
        assert!(e.starts_with("thresholds:"), "{e}");
    }
    assert!(thresholds(&[1.0; 17]).is_err());
}

/// A server answering the n-th workspace poll (from 0) with `reply(n, body)`, where
/// `body(playing)` is the poll of one layer "Main" holding a.mov; and the count of polls.
async fn polls_answered(
    reply: impl Fn(usize, fn(bool) -> String) -> Reply + Send + Sync + 'static,
) -> (String, Arc<AtomicUsize>) {
    fn body(playing: bool) -> String {
        json!({"data": [{"transportState": ts("Main", Some("a.mov"), playing, 1.0, 9.0)}]})
            .to_string()
    }
    let polls = Arc::new(AtomicUsize::new(0));
    let n = polls.clone();
    let (url, _log) = serve(move |_| reply(n.fetch_add(1, Ordering::SeqCst), body)).await;
    (url, polls)
}

/// The watch reports a transient failure once, goes on polling, reports the recovery with the
/// changes since the last good poll, and ends on a failure that is not transient.
#[tokio::test]
async fn a_watch_outlives_transient_failures() {
    let (url, polls) = polls_answered(|n, body| match n {
        0 | 1 => Reply::ok(body(false)),
        2 | 3 => Reply::status(503),
        4 => Reply::ok(body(true)),
        _ => Reply::status(404),
    })
    .await;
    let mut watch = TransportWatch::new(client(&url), Duration::from_millis(50), vec![10.0]);
    let failed = watch.next_event().await.unwrap();
    assert_eq!(failed.kind, EventKind::PollFailed);
    assert_eq!(failed.error.as_ref().and_then(Error::status), Some(503));
    let recovered = watch.next_event().await.unwrap();
    assert_eq!(recovered.kind, EventKind::PollRecovered);
    assert_eq!(
        polls.load(Ordering::SeqCst),
        5,
        "one event for two failed polls"
    );
    let started = watch.next_event().await.unwrap();
    assert_eq!(started.kind, EventKind::Started);
    assert_eq!(started.layer_name.as_deref(), Some("Main"));
    assert_eq!(started.layer_index, Some(0));
    assert_eq!(started.current.as_ref().unwrap().is_playing, Some(true));
    assert_eq!(started.previous.as_ref().unwrap().is_playing, Some(false));
    let end = watch.next_event().await.unwrap_err();
    assert_eq!(end.status(), Some(404));
}

/// `baseline()` polls once when no poll has answered, and not again after: a change made after
/// it is the first event. A transient failure there is raised and also queued as the event
/// iterating would have given, and the next answer is the baseline.
#[tokio::test]
async fn the_baseline_is_taken_once_and_changes_follow_it() {
    let (url, polls) = polls_answered(|n, body| match n {
        0 => Reply::status(503),
        1 => Reply::ok(body(false)),
        _ => Reply::ok(body(true)),
    })
    .await;
    let mut watch = TransportWatch::new(client(&url), Duration::from_millis(50), vec![]);
    let err = watch.baseline().await.unwrap_err();
    assert_eq!(err.status(), Some(503));
    let base = watch.baseline().await.unwrap();
    assert_eq!(base.len(), 1);
    assert_eq!(base[0].is_playing, Some(false));
    assert_eq!(polls.load(Ordering::SeqCst), 2);
    let again = watch.baseline().await.unwrap();
    assert_eq!(again[0].is_playing, Some(false));
    assert_eq!(
        polls.load(Ordering::SeqCst),
        2,
        "the baseline is not taken twice"
    );
    let kinds: Vec<_> = [
        watch.next_event().await.unwrap(),
        watch.next_event().await.unwrap(),
        watch.next_event().await.unwrap(),
    ]
    .iter()
    .map(|e| e.kind)
    .collect();
    assert_eq!(
        kinds,
        [
            EventKind::PollFailed,
            EventKind::PollRecovered,
            EventKind::Started
        ]
    );
}

#[test]
fn the_repr_shows_the_layer_or_the_error_and_a_crossed_threshold() {
    let shown = TransportEvent::shown_fields;
    assert_eq!(shown(false, false), ["kind", "layer_index", "layer_name"]);
    assert_eq!(
        shown(false, true),
        ["kind", "layer_index", "layer_name", "threshold"]
    );
    assert_eq!(shown(true, false), ["kind", "error"]);
}

#[test]
fn a_watch_starts_only_with_a_valid_interval_and_thresholds() {
    let c = client("http://127.0.0.1:9");
    let refused = |r: Result<TransportWatch>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(refused(TransportWatch::start(c.clone(), 0.01, &[10.0])).starts_with("interval:"));
    assert!(refused(TransportWatch::start(c.clone(), 0.5, &[-1.0])).starts_with("thresholds:"));
    assert!(TransportWatch::start(c, 0.5, &[10.0]).is_ok());
}
