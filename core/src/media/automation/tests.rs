use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::media::table::consts::MUTE_LAYER;
use crate::media::test_server::{
    client, lines, serve, serve_counting, serve_layers, Layers, Reply,
};

fn posted_values(log: &crate::media::test_server::Log) -> Vec<f64> {
    lines(log, "POST /opacity/layer/")
        .iter()
        .map(|l| {
            let body = l.split_once(' ').unwrap().1.split_once(' ').unwrap().1;
            serde_json::from_str::<serde_json::Value>(body).unwrap()["value"]
                .as_f64()
                .unwrap()
        })
        .collect()
}

#[test]
fn fade_arguments() {
    assert_eq!(
        Fade::new(1.0, 2.0, None).unwrap(),
        Fade {
            to: 1.0,
            seconds: 2.0,
            steps: 40
        }
    );
    assert_eq!(Fade::new(0.0, 0.0, None).unwrap().steps, 1);
    assert_eq!(Fade::new(0.0, 0.0, Some(1)).unwrap().steps, 1);
    assert_eq!(Fade::new(0.5, 1.0, Some(50)).unwrap().steps, 50);
    for (to, seconds, steps, arg) in [
        (1.5, 1.0, None, "to:"),
        (f64::NAN, 1.0, None, "to:"),
        (0.5, -1.0, None, "seconds:"),
        (0.5, f64::INFINITY, None, "seconds:"),
        (0.5, 1.0, Some(0), "steps:"),
        (0.5, 1.0, Some(51), "steps:"),
        (0.5, 0.0, Some(2), "steps:"),
    ] {
        let e = Fade::new(to, seconds, steps).unwrap_err().to_string();
        assert!(e.starts_with(arg), "{to} {seconds} {steps:?}: {e}");
    }
}

#[test]
fn fade_steps_are_even_and_end_on_the_target() {
    let f = Fade::new(0.0, 1.0, Some(3)).unwrap();
    let values: Vec<f64> = (1..=3).map(|i| f.value_of(0.9, i)).collect();
    assert!((values[0] - 0.6).abs() < 1e-12 && (values[1] - 0.3).abs() < 1e-12);
    assert_eq!(values[2], 0.0, "the last step is exactly the target");
    let times: Vec<Duration> = (1..=3).map(|i| f.time_of(i)).collect();
    assert_eq!(times[2], Duration::from_secs(1));
    assert!(times[1] - times[0] == times[2] - times[1] || times[0].as_millis() == 333);
}

#[tokio::test]
async fn a_fade_sends_its_steps_in_order() {
    let mut layers = Layers::named(&["Main"]);
    layers.layers[0].opacity = 0.0;
    let (url, log, state) = serve_layers(layers).await;
    let c = client(&url);
    fade(
        &c,
        &Ident::from("Main"),
        Fade::new(1.0, 0.2, Some(4)).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(posted_values(&log), [0.25, 0.5, 0.75, 1.0]);
    assert_eq!(lines(&log, "GET")[0], "GET /opacity/layer/Main");
    assert_eq!(state.lock().unwrap().layers[0].opacity, 1.0);
}

#[tokio::test]
async fn a_fade_behind_schedule_skips_steps_but_ends_on_time_on_the_target() {
    let (url, log) = serve(|req| match req.method.as_str() {
        "GET" => Reply::ok(r#"{"opacity": {"value": 1}}"#),
        _ => Reply::ok("").after(Duration::from_millis(120)),
    })
    .await;
    fade(
        &client(&url),
        &Ident::Index(0),
        Fade::new(0.0, 0.2, Some(10)).unwrap(),
    )
    .await
    .unwrap();
    let values = posted_values(&log);
    assert!(
        values.len() < 10,
        "steps behind schedule are skipped: {values:?}"
    );
    assert_eq!(*values.last().unwrap(), 0.0);
    assert!(values.windows(2).all(|w| w[0] > w[1]), "{values:?}");
}

#[tokio::test]
async fn a_failing_step_ends_the_fade_with_its_error() {
    let posts = Arc::new(AtomicUsize::new(0));
    let n = posts.clone();
    let (url, _) = serve(move |req| match req.method.as_str() {
        "GET" => Reply::ok(r#"{"value": 0}"#),
        _ if n.fetch_add(1, Ordering::SeqCst) == 1 => Reply::status(400),
        _ => Reply::ok(""),
    })
    .await;
    let err = fade(
        &client(&url),
        &Ident::Index(0),
        Fade::new(1.0, 0.1, Some(5)).unwrap(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.status(), Some(400));
    assert_eq!(posts.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn adjust_opacity_clamps_and_returns_the_value_set() {
    let mut layers = Layers::named(&["Main"]);
    layers.layers[0].opacity = 0.9;
    let (url, log, _) = serve_layers(layers).await;
    let c = client(&url);
    let main = Ident::from("Main");
    assert_eq!(adjust_opacity(&c, &main, 0.3, false).await.unwrap(), 1.0);
    let v = adjust_opacity(&c, &main, -0.75, true).await.unwrap();
    assert!((v - 0.25).abs() < 1e-12);
    assert_eq!(posted_values(&log), [1.0, v]);
    assert!(delta(1.5).is_err() && delta(f64::NAN).is_err() && delta(-1.0).is_ok());
}

#[tokio::test]
async fn a_batch_returns_every_outcome_in_order_within_its_concurrency() {
    let (url, log, peak) = serve_counting(|req| {
        let status = match req.path.as_str() {
            "/mute/layer/7" => 503,
            "/mute/layer/13" => 400,
            _ => 200,
        };
        Reply::status(status).after(Duration::from_millis(20))
    })
    .await;
    let c = client(&url);
    let commands = (0..20)
        .map(|i| MUTE_LAYER.at(&[&Ident::Index(i)]).unwrap().into())
        .collect();
    let results = batch(&c, commands, 4).await;
    assert_eq!(results.len(), 20);
    for (i, r) in results.iter().enumerate() {
        match i {
            7 => assert_eq!(r.as_ref().unwrap_err().status(), Some(503)),
            13 => assert_eq!(r.as_ref().unwrap_err().status(), Some(400)),
            _ => assert!(r.is_ok(), "{i}: {r:?}"),
        }
    }
    assert_eq!(log.lock().unwrap().len(), 20);
    let peak = peak.load(Ordering::SeqCst);
    assert!((2..=4).contains(&peak), "{peak} at once");
    assert!(concurrency(0).is_err() && concurrency(257).is_err() && concurrency(16).is_ok());
    assert!(batch(&c, Vec::new(), 4).await.is_empty());
}

#[tokio::test]
async fn adjusting_and_fading_refuse_bad_arguments_before_sending_then_run() {
    let mut layers = Layers::named(&["Main"]);
    layers.layers[0].opacity = 0.5;
    let (url, log, state) = serve_layers(layers).await;
    let (c, main) = (client(&url), Ident::from("Main"));
    let message = |e: Error| e.to_string();
    assert!(message(adjusting(&c, &main, 1.5, false).err().unwrap()).starts_with("delta:"));
    assert!(message(fading(&c, &main, 2.0, 1.0, None).err().unwrap()).starts_with("to:"));
    assert!(message(fading(&c, &main, 1.0, 0.1, Some(50)).err().unwrap()).starts_with("steps:"));
    assert!(log.lock().unwrap().is_empty(), "nothing sent");
    assert_eq!(
        adjusting(&c, &main, -0.25, false).unwrap().await.unwrap(),
        0.25
    );
    fading(&c, &main, 1.0, 0.1, Some(2)).unwrap().await.unwrap();
    assert_eq!(posted_values(&log), [0.25, 0.625, 1.0]);
    assert_eq!(state.lock().unwrap().layers[0].opacity, 1.0);
}
