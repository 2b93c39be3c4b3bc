//! A media client's mirrors (`mirror.rs`): every command reaches the primary and each mirror,
//! against scripted applications.

use std::time::Duration;

use super::client::MediaClient;
use super::endpoints::{BlendSpec, Call};
use super::mirror::*;
use super::table::consts::{MUTE_LAYER, SET_LAYER_BLEND, SET_LAYER_OPACITY};
use super::test_server::{config, dead_url, lines, mirrored, serve, Reply};
use crate::error::Error;
use crate::ident::Ident;

fn opacity(v: f64) -> Call<()> {
    SET_LAYER_OPACITY
        .with(&[&Ident::Index(0)], "value", v)
        .unwrap()
}

/// Every command reaches the primary and each mirror; a dead mirror and a slow one neither
/// delay nor hide the primary's result; the slow one gets the commands in order.
#[tokio::test]
async fn a_dead_and_a_slow_mirror() {
    let (primary, primary_log) = serve(|_| Reply::ok("")).await;
    let (slow, slow_log) = serve(|_| Reply::ok("").after(Duration::from_millis(150))).await;
    let dead = dead_url().await;
    let c = mirrored(&config(&primary), &[(&dead, None), (&slow, None)]);
    let values = [0.1, 0.2, 0.3, 0.4, 0.5];
    for v in values {
        c.run(opacity(v)).await.unwrap();
    }
    assert_eq!(lines(&primary_log, "POST").len(), 5);
    let status = c.mirror_status();
    assert_eq!(status.len(), 2);
    assert!(
        status[1].pending > 0,
        "the primary did not wait for the slow mirror"
    );
    assert!(c.mirrors_busy());
    c.shutdown().await;
    let status = c.mirror_status();
    let (d, s) = (&status[0], &status[1]);
    assert!(d.url.starts_with(&dead) && d.url.ends_with("/api/0"));
    assert_eq!((d.sent, d.failed, d.pending, d.healthy), (0, 5, 0, false));
    assert!(matches!(d.last_error, Some(Error::Connect { .. })));
    assert!(d.last_error_at.is_some() && d.last_ok_at.is_none());
    assert_eq!(
        (s.sent, s.failed, s.dropped, s.pending, s.healthy),
        (5, 0, 0, 0, true)
    );
    let seen: Vec<String> = lines(&slow_log, "POST");
    let expected: Vec<String> = values
        .iter()
        .map(|v| format!("POST /opacity/layer/0 {{\"value\":{v}}}"))
        .collect();
    assert_eq!(seen, expected, "the mirror gets the commands in order");
    // Closed: nothing more is sent anywhere.
    assert!(matches!(c.run(opacity(0.9)).await, Err(Error::Closed)));
    assert_eq!(lines(&slow_log, "POST").len(), 5);
}

#[tokio::test]
async fn reads_go_to_the_primary_and_keys_follow_the_primary_unless_given() {
    let (primary, primary_log) = serve(|_| Reply::ok(r#"{"value": 1}"#)).await;
    let (a, a_log) = serve(|req| Reply::ok(req.auth.clone().unwrap_or_default())).await;
    let auth = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = auth.clone();
    let (b, _) = serve(move |req| {
        seen.lock().unwrap().push(req.auth.clone());
        Reply::ok("")
    })
    .await;
    let mut cfg = config(&primary);
    cfg.api_key = Some("primary-key".into());
    let c = mirrored(&cfg, &[(&a, None), (&b, Some("b-key"))]);
    c.run(
        crate::media::table::consts::LAYER_OPACITY
            .at(&[&Ident::Index(0)])
            .unwrap(),
    )
    .await
    .unwrap();
    c.run(MUTE_LAYER.at(&[&Ident::Index(1)]).unwrap())
        .await
        .unwrap();
    c.shutdown().await;
    assert_eq!(primary_log.lock().unwrap().len(), 2);
    assert_eq!(*a_log.lock().unwrap(), ["POST /mute/layer/1"]);
    assert_eq!(*auth.lock().unwrap(), [Some("Bearer b-key".to_string())]);
    assert_eq!(c.mirror_status()[0].sent, 1);
}

#[tokio::test]
async fn a_mirror_learns_its_own_layer_blend_fallback() {
    let (primary, primary_log) = serve(|_| Reply::ok("")).await;
    let (old, old_log) = serve(|req| match req.path.starts_with("/blend/") {
        true => Reply::status(404),
        false => Reply::ok(""),
    })
    .await;
    let c = mirrored(&config(&primary), &[(&old, None)]);
    let blend = BlendSpec::from_value("b", &serde_json::json!({"type": "White Matte"})).unwrap();
    for _ in 0..2 {
        c.run(
            SET_LAYER_BLEND
                .with(&[&Ident::Index(0)], "b", blend.clone())
                .unwrap(),
        )
        .await
        .unwrap();
    }
    c.shutdown().await;
    assert_eq!(lines(&primary_log, "POST /blend/").len(), 2);
    let body = r#"{"type":"White Matte","base":{}}"#;
    assert_eq!(
        *old_log.lock().unwrap(),
        [
            format!("POST /blend/layer/0 {body}"),
            format!("POST /layerBlend/layer/0 {body}"),
            format!("POST /layerBlend/layer/0 {body}"),
        ]
    );
    let st = &c.mirror_status()[0];
    assert_eq!((st.sent, st.failed, st.healthy), (2, 0, true));
}

/// A mirror that never answers: its queue (small here) fills, what does not fit is dropped
/// and counted, and closing gives up on it after the client's timeout.
#[tokio::test]
async fn a_full_queue_drops_commands_for_that_mirror_only() {
    let (primary, primary_log) = serve(|_| Reply::ok("")).await;
    let (stuck, _) = serve(|_| Reply::ok("").after(Duration::from_secs(30))).await;
    let mut cfg = config(&primary);
    // Longer than the burst takes even on a loaded machine: the mirror's first command is in
    // flight for the whole burst, so exactly what does not fit in the queue is dropped (with
    // 0.5 s, a burst slower than that freed a slot and the count came out one short).
    cfg.timeout = Duration::from_secs(3);
    const SMALL: usize = 64;
    let targets = vec![crate::transport::Target::new(&stuck, None).unwrap()];
    let transport = std::sync::Arc::new(crate::transport::Transport::new(&cfg).unwrap());
    let c = MediaClient::with_mirror_queues(transport, targets, SMALL).unwrap();
    let n = SMALL + 50;
    let commands = (0..n)
        .map(|_| MUTE_LAYER.at(&[&Ident::Index(0)]).unwrap().into())
        .collect();
    let results = crate::media::automation::batch(&c, commands, 64).await;
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(lines(&primary_log, "POST").len(), n);
    let st = &c.mirror_status()[0];
    assert!(st.dropped >= 49 && st.dropped <= 50, "{st:?}");
    assert!(!st.healthy);
    let started = tokio::time::Instant::now();
    c.shutdown().await;
    // Bounded: the timeout for what is queued, then a second to count what is left.
    assert!(
        started.elapsed() < cfg.timeout + Duration::from_secs(3),
        "closing is bounded"
    );
    let st = &c.mirror_status()[0];
    assert_eq!(st.pending, 0, "{st:?}");
    assert_eq!(st.sent, 0);
    // The command in flight when closing gave up went out: unanswered, not dropped.
    assert_eq!((st.failed, st.unanswered), (0, 1), "{st:?}");
    assert_eq!(st.unanswered + st.dropped, n as u64, "{st:?}");
}

/// A burst far larger than any show sends at once (but within the queue) reaches a mirror that
/// keeps up whole and in order, and it stays healthy.
#[tokio::test]
async fn a_burst_reaches_a_mirror_that_keeps_up() {
    let (primary, _) = serve(|_| Reply::ok("")).await;
    let (mirror, mirror_log) = serve(|_| Reply::ok("")).await;
    let mut cfg = config(&primary);
    cfg.timeout = Duration::from_secs(60);
    let c = mirrored(&cfg, &[(&mirror, None)]);
    let n = 3000;
    let commands = (0..n).map(|i| opacity(i as f64 / 4096.0).into()).collect();
    let results = crate::media::automation::batch(&c, commands, 64).await;
    assert!(results.iter().all(Result::is_ok));
    c.shutdown().await;
    let st = &c.mirror_status()[0];
    assert_eq!(
        (st.sent, st.failed, st.dropped, st.pending, st.healthy),
        (n as u64, 0, 0, 0, true),
        "{st:?}"
    );
    let expected: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "POST /opacity/layer/0 {}",
                serde_json::json!({"value": i as f64 / 4096.0})
            )
        })
        .collect();
    assert_eq!(lines(&mirror_log, "POST"), expected);
}

#[test]
fn a_mirror_may_not_repeat_a_url() {
    let t = |u: &str| crate::transport::Target::new(u, None).unwrap();
    let transport = std::sync::Arc::new(crate::transport::Transport::new(&config("h:1")).unwrap());
    let e = MediaClient::with_mirrors(transport.clone(), vec![t("http://h:1/")]).unwrap_err();
    assert!(
        e.to_string()
            .contains("mirrors[0]: http://h:1/api/0 is already the primary"),
        "{e}"
    );
    let e = MediaClient::with_mirrors(transport, vec![t("h:2"), t("h:2")]).unwrap_err();
    assert!(e.to_string().starts_with("mirrors[1]:"), "{e}");
}

/// `close()` gives up at once on what is in flight: a command the mirror already has is
/// counted unanswered (it may run it), never dropped, and the mirror is not healthy.
#[tokio::test]
async fn a_command_given_up_at_close_once_written_is_unanswered_not_dropped() {
    let (primary, _) = serve(|_| Reply::ok("")).await;
    let (mirror, mirror_log) = serve(|_| Reply::ok("").after(Duration::from_secs(30))).await;
    let c = mirrored(&config(&primary), &[(&mirror, None)]);
    c.run(opacity(0.5)).await.unwrap();
    // Wait until the mirror has the command, then close.
    while lines(&mirror_log, "POST").is_empty() {
        tokio::task::yield_now().await;
    }
    c.close();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while c.mirrors_busy() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the drop was never counted"
        );
        tokio::task::yield_now().await;
    }
    let st = &c.mirror_status()[0];
    assert_eq!(
        (st.sent, st.failed, st.unanswered, st.dropped, st.healthy),
        (0, 0, 1, 0, false),
        "{st:?}"
    );
}

/// A mirror takes the primary's key unless it names its own (`None` too), and its own pin is
/// checked as a `tls_fingerprint`.
#[test]
fn a_mirror_spec_takes_the_primary_key_unless_it_names_its_own() {
    let hex = "ab".repeat(32);
    let own = MirrorSpec::new("https://m:1".into(), Some(Some("k2".into())), Some(hex));
    assert!(own.target(Some("k1")).unwrap().has_key());
    let none = MirrorSpec::new("http://m:1".into(), Some(None), None);
    assert!(
        !none.target(Some("k1")).unwrap().has_key(),
        "None: no key at all"
    );
    let primary = MirrorSpec::new("http://m:1".into(), None, None);
    assert!(primary.target(Some("k1")).unwrap().has_key());
    let plain = MirrorSpec::new("http://m:1".into(), None, Some("ab".repeat(32)));
    let e = plain.target(Some("k1")).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("is not an https:// URL"), "{e}");
    let bad = MirrorSpec::new("ftp://m".into(), None, None);
    assert!(bad.target(None).is_err());
}

#[test]
fn mirror_targets_take_the_primary_key_and_name_the_mirror_they_refuse() {
    let plain = MirrorSpec::new("http://backup:8080".into(), None, None);
    let own = MirrorSpec::new("http://spare:8080".into(), Some(None), None);
    let ok = targets(vec![plain.clone(), own], Some("k")).unwrap();
    assert_eq!(ok.len(), 2);
    let bad = MirrorSpec::new("ftp://nowhere".into(), None, None);
    let e = targets(vec![plain, bad], None).err().unwrap();
    assert!(matches!(e, Error::InvalidInput(_)), "{e:?}");
    assert!(e.to_string().starts_with("mirrors[1]: "), "{e}");
}

/// A command the mirror got and did not answer (it may still run it) is never overtaken: the
/// next is held until the mirror answers the fence read again, then everything follows in order.
#[tokio::test]
async fn a_command_left_unanswered_holds_the_next_until_the_mirror_answers_again() {
    let (primary, _) = serve(|_| Reply::ok("")).await;
    let fences = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = fences.clone();
    let (mirror, mirror_log) = serve(move |req| {
        let late = Reply::ok("").after(Duration::from_secs(3));
        if req.path == FENCE && seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < 2 {
            return late; // still not serving: the first two fences go unanswered
        }
        match req.value() == 0.2 {
            true => late,
            false => Reply::ok("0.5"),
        }
    })
    .await;
    let mut cfg = config(&primary);
    cfg.timeout = Duration::from_millis(300);
    let c = mirrored(&cfg, &[(&mirror, None)]);
    for v in [0.1, 0.2, 0.3, 0.4] {
        c.run(opacity(v)).await.unwrap();
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while c.mirrors_busy() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the mirror never went on"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let post = |v: f64| format!("POST /opacity/layer/0 {{\"value\":{v}}}");
    let fence = format!("GET {FENCE}");
    let log = mirror_log.lock().unwrap().clone();
    assert_eq!(
        log,
        [
            post(0.1),
            post(0.2),
            fence.clone(),
            fence.clone(),
            fence,
            post(0.3),
            post(0.4)
        ],
        "held until the third fence was answered"
    );
    let st = &c.mirror_status()[0];
    assert_eq!(
        (st.sent, st.failed, st.unanswered, st.dropped, st.healthy),
        (3, 0, 1, 0, true),
        "{st:?}"
    );
}
