use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::*;
use crate::error::Delivery;
use crate::media::table::consts::{MUTE_LAYER, UNMUTE_LAYER};
use crate::media::test_server::{client, lines, serve, Reply};

fn layer(name: &str) -> Ident {
    Ident::Name(name.into())
}

fn mute(name: &str) -> Step {
    Step::Command(Box::new(Confirmable {
        operation: "mute",
        call: MUTE_LAYER.at(&[&layer(name)]).unwrap(),
        expect: None,
    }))
}

fn unmute(name: &str) -> Step {
    Step::Command(Box::new(Confirmable {
        operation: "unmute",
        call: UNMUTE_LAYER.at(&[&layer(name)]).unwrap(),
        expect: None,
    }))
}

fn posts(log: &crate::media::test_server::Log) -> Vec<String> {
    lines(log, "POST ")
}

async fn go(c: &MediaClient, steps: Vec<Step>, halt: bool) -> Run {
    run(
        c,
        super::steps(steps).unwrap(),
        halt,
        None,
        Stop::default(),
        Progress::default(),
    )
    .await
}

#[test]
fn waits_need_a_bound_and_steps_are_checked() {
    assert!(wait(-1.0).is_err());
    assert!(wait(f64::NAN).is_err());
    assert!(wait(3601.0).is_err());
    assert_eq!(wait(0.5).unwrap(), Duration::from_millis(500));
    let e = Until::new(layer("Main"), State::Playing, None, 0.1).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("timeout: a wait on the transport needs a bound"),
        "{e}"
    );
    assert!(Until::new(layer("Main"), State::Playing, Some(0.0), 0.1).is_err());
    assert!(Until::new(layer("Main"), State::Playing, Some(1.0), 0.01).is_err());
    assert!(Until::new(Ident::Index(-1), State::Playing, Some(1.0), 0.1).is_err());
    assert!(State::new(Some("running"), None).is_err());
    assert!(State::new(None, None).is_err());
    assert!(State::new(Some("playing"), Some(1.0)).is_err());
    assert_eq!(State::new(None, Some(5.0)).unwrap(), State::Remaining(5.0));
    assert!(super::steps(Vec::new()).is_err());
}

#[tokio::test]
async fn steps_run_in_order_and_a_wait_waits() {
    let (url, log) = serve(|_| Reply::ok("")).await;
    let c = client(&url);
    let steps = vec![
        mute("A"),
        mute("B"),
        Step::Wait(Duration::from_millis(200)),
        unmute("A"),
        unmute("B"),
    ];
    let run = go(&c, steps, true).await;
    assert_eq!(run.stopped_at, None);
    assert!(!run.cancelled);
    let indexes: Vec<usize> = run.outcomes.iter().map(|o| o.index).collect();
    assert_eq!(indexes, [0, 1, 2, 3, 4]);
    assert!(run.outcomes.iter().all(|o| o.result.is_ok()));
    assert_eq!(
        posts(&log),
        [
            "POST /mute/layer/A",
            "POST /mute/layer/B",
            "POST /unmute/layer/A",
            "POST /unmute/layer/B"
        ]
    );
    assert!(run.outcomes[2].elapsed >= Duration::from_millis(200));
}

#[tokio::test]
async fn halt_stops_at_the_failed_step_and_without_it_the_rest_runs_once() {
    let (url, log) = serve(|r| {
        if r.path.ends_with("/Bad") {
            Reply::status(400)
        } else {
            Reply::ok("")
        }
    })
    .await;
    let c = client(&url);
    let steps = || vec![mute("A"), mute("Bad"), unmute("A")];
    let run = go(&c, steps(), true).await;
    assert_eq!(run.stopped_at, Some(1));
    assert_eq!(run.outcomes.len(), 2);
    assert_eq!(
        run.outcomes[1].result.as_ref().unwrap_err().status(),
        Some(400)
    );
    assert_eq!(
        posts(&log).len(),
        2,
        "nothing after the failed step: {:?}",
        posts(&log)
    );

    log.lock().unwrap().clear();
    let run = go(&c, steps(), false).await;
    assert_eq!(run.stopped_at, None);
    assert_eq!(run.outcomes.len(), 3);
    assert!(run.outcomes[1].result.is_err() && run.outcomes[2].result.is_ok());
    let bad = posts(&log).iter().filter(|l| l.ends_with("/Bad")).count();
    assert_eq!(bad, 1, "a failed step is never sent again");
}

#[tokio::test]
async fn a_not_sent_step_is_reported_and_not_retried() {
    let (url, log) = serve(|_| Reply::ok("")).await;
    let c = client(&url);
    c.set_cooldown(Some(Duration::from_secs(60)));
    let run = go(&c, vec![mute("A"), mute("A"), unmute("A")], false).await;
    let second = run.outcomes[1].result.as_ref().unwrap_err();
    assert!(matches!(second, Error::DoublePress { .. }), "{second}");
    assert_eq!(second.delivery(), Delivery::NotSent);
    assert!(run.outcomes[2].result.is_ok());
    assert_eq!(posts(&log), ["POST /mute/layer/A", "POST /unmute/layer/A"]);
}

fn transport(playing: bool, remaining: f64) -> String {
    format!(
        r#"{{"transportState":{{"timeElapsed":1,"timeRemaining":{remaining},"playbackRate":1,
        "isPlaying":{playing},"playingMedia":{{"name":"clip","uuid":"u"}}}}}}"#
    )
}

#[tokio::test]
async fn a_wait_on_the_transport_ends_when_the_state_shows() {
    let reads = Arc::new(AtomicUsize::new(0));
    let seen = reads.clone();
    let (url, _) = serve(move |_| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        Reply::ok(transport(n >= 3, 8.0 - n as f64))
    })
    .await;
    let c = client(&url);
    let playing = Until::new(layer("A"), State::Playing, Some(5.0), 0.05).unwrap();
    until(&c, &playing).await.unwrap();
    assert_eq!(
        reads.load(Ordering::SeqCst),
        4,
        "it stops reading once the state shows"
    );
    let remaining = Until::new(layer("A"), State::Remaining(2.0), Some(5.0), 0.05).unwrap();
    until(&c, &remaining).await.unwrap();
    assert!(
        reads.load(Ordering::SeqCst) >= 7,
        "8 - n <= 2 only from the 7th read"
    );
}

#[tokio::test]
async fn a_wait_on_the_transport_that_never_shows_times_out() {
    let (url, _) = serve(|_| Reply::ok(transport(false, 3.0))).await;
    let c = client(&url);
    let u = Until::new(layer("A"), State::Playing, Some(0.3), 0.05).unwrap();
    let started = Instant::now();
    let e = until(&c, &u).await.unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert!(
        matches!(
            e,
            Error::Timeout {
                delivery: Delivery::NotSent,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("was not playing within 0.3 s (last read: paused"),
        "{e}"
    );
}

#[tokio::test]
async fn a_stop_during_a_wait_ends_it_and_nothing_more_is_sent() {
    let stop = Stop::default();
    let on_mute = stop.clone();
    let (url, log) = serve(move |r| {
        if r.path.starts_with("/mute") {
            on_mute.stop();
        }
        Reply::ok("")
    })
    .await;
    let c = client(&url);
    let steps = super::steps(vec![
        mute("A"),
        Step::Wait(Duration::from_secs(30)),
        unmute("A"),
    ]);
    let started = Instant::now();
    let run = run(&c, steps.unwrap(), true, None, stop, Progress::default()).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the wait was not ended"
    );
    assert!(run.cancelled);
    assert_eq!(run.stopped_at, Some(1));
    assert_eq!(run.outcomes.len(), 1);
    assert_eq!(posts(&log), ["POST /mute/layer/A"]);
}

#[tokio::test]
async fn a_stop_during_a_command_lets_it_finish_and_sends_nothing_after() {
    let stop = Stop::default();
    let on_mute = stop.clone();
    let (url, log) = serve(move |r| {
        if r.path.starts_with("/mute") {
            on_mute.stop();
            return Reply::ok("").after(Duration::from_millis(100));
        }
        Reply::ok("")
    })
    .await;
    let c = client(&url);
    let steps = super::steps(vec![mute("A"), unmute("A")]).unwrap();
    let run = run(&c, steps, true, None, stop, Progress::default()).await;
    assert!(run.cancelled);
    assert_eq!(run.outcomes.len(), 1);
    assert!(
        run.outcomes[0].result.is_ok(),
        "the command in flight was answered"
    );
    assert_eq!(run.stopped_at, Some(1));
    assert_eq!(posts(&log), ["POST /mute/layer/A"]);
}

#[tokio::test]
async fn check_looks_up_every_identifier_before_anything_is_sent() {
    let (url, log) = serve(|r| {
        if r.path.contains("Nope") {
            Reply::status(400)
        } else {
            Reply::ok(r#"{"layer":{"name":"A"}}"#)
        }
    })
    .await;
    let c = client(&url);
    let until = Until::new(layer("A"), State::Empty, Some(1.0), 0.1).unwrap();
    let steps = vec![mute("A"), Step::Until(until), mute("Nope"), unmute("A")];
    let e = check(&c, &steps).await.unwrap_err();
    assert!(matches!(e, Error::Lookup(_)), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("steps[2]: layer \"Nope\" is not in the application"),
        "{e}"
    );
    assert!(posts(&log).is_empty());
    let reads = lines(&log, "GET /data/layer/");
    assert_eq!(reads.len(), 2, "each identifier is read once: {reads:?}");
    check(&c, &[mute("A"), unmute("A")]).await.unwrap();
}

#[test]
fn identifiers_are_found_in_the_path_by_the_operations_template() {
    assert_eq!(
        captures(
            "/trigger/layer/{layer:id}/playlist/{playlist:p}/cue/{cue:c}",
            "/trigger/layer/A/playlist/2/cue/x%20y"
        ),
        Some(vec![("layer", "A"), ("playlist", "2"), ("cue", "x%20y")])
    );
    assert_eq!(captures("/mute/layer/{layer:id}", "/unmute/layer/A"), None);
}
