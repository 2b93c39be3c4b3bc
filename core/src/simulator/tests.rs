//! The simulator over HTTP, driven by raw HTTP/1.1 requests on a socket (the bytes a client
//! sends, nothing of the showctl client): commands change what the read endpoints answer,
//! status codes match the field, faults and the key check work.

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{Options, Simulator};

fn rt() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

fn run<F: Future>(f: F) -> F::Output {
    rt().block_on(f)
}

fn started(options: Options) -> Simulator {
    let sim = Simulator::new(options).unwrap();
    sim.start(rt().handle()).unwrap();
    sim
}

/// An answer: the status (`None` when the connection closed without one) and the body.
#[derive(Debug)]
struct Answer {
    status: Option<u16>,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// One request as raw bytes: `headers` are sent as given; `body` `None` sends no body and no
/// Content-Length.
async fn send(sim: &Simulator, head: &str, headers: &[&str], body: Option<&[u8]>) -> Answer {
    let (method, path) = head.split_once(' ').unwrap();
    let mut req =
        format!("{method} /api/0{path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    if let Some(b) = body {
        req.push_str(&format!("Content-Length: {}\r\n", b.len()));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body.unwrap_or_default());
    let mut stream = TcpStream::connect(sim.addr().unwrap()).await.unwrap();
    stream.write_all(&bytes).await.unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out).await;
    let text = String::from_utf8_lossy(&out);
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse().ok());
    let body = match out.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(i) => out[i + 4..].to_vec(),
        None => Vec::new(),
    };
    Answer { status, body }
}

const JSON: &str = "Content-Type: application/json";

async fn get(sim: &Simulator, path: &str) -> Value {
    let a = send(sim, &format!("GET {path}"), &[], None).await;
    assert_eq!(a.status, Some(200), "{path}: {a:?}");
    a.json()
}

async fn post(sim: &Simulator, path: &str, body: Option<Value>) -> Answer {
    match body {
        Some(v) => {
            let bytes = serde_json::to_vec(&v).unwrap();
            send(sim, &format!("POST {path}"), &[JSON], Some(&bytes)).await
        }
        None => send(sim, &format!("POST {path}"), &[], None).await,
    }
}

pub(crate) async fn ok(sim: &Simulator, path: &str, body: Option<Value>) {
    let a = post(sim, path, body).await;
    assert_eq!(a.status, Some(200), "{path}: {a:?}");
    assert!(a.body.is_empty(), "a command answers an empty body");
}

#[test]
fn commands_show_in_the_reads() {
    let sim = started(Options::default());
    run(async {
        ok(&sim, "/mute/layer/1", None).await;
        ok(&sim, "/hide/layer/Main", None).await;
        let l = get(&sim, "/data/layer/1").await;
        assert_eq!(l["layer"]["isMuted"], true);
        assert_eq!(l["layer"]["isHidden"], true);
        assert_eq!(l["layer"]["name"], "Main");

        ok(&sim, "/opacity/layer/0", Some(json!({"value": 0.25}))).await;
        assert_eq!(
            get(&sim, "/opacity/layer/0").await,
            json!({"opacity": {"value": 0.25}})
        );
        // Out of range is clamped, as the application does.
        ok(&sim, "/opacity/layer/0", Some(json!({"value": 7}))).await;
        assert_eq!(get(&sim, "/opacity/layer/0").await["opacity"]["value"], 1.0);

        ok(&sim, "/unmute/workspace", None).await;
        ok(&sim, "/mute/workspace", None).await;
        let layers = get(&sim, "/data/layers").await;
        let all = layers["data"].as_array().unwrap();
        assert_eq!(all.len(), 4);
        assert!(all.iter().all(|l| l["layer"]["isMuted"] == true));
        assert_eq!(all[3]["layer"]["targetSetUUID"], "null");

        ok(
            &sim,
            "/transitionDuration/layer/2",
            Some(json!({"value": 2.5})),
        )
        .await;
        assert_eq!(
            get(&sim, "/transitionDuration/layer/2").await,
            json!({"transitionDuration": {"value": 2.5}})
        );
        assert!(sim.warnings().is_empty(), "{:?}", sim.warnings());
    });
}

#[test]
fn triggering_plays_and_the_clock_runs() {
    let sim = started(Options::default());
    run(async {
        // "Main" is the targeted layer of the default workspace.
        ok(&sim, "/trigger/playlist/Main%20Show/cue/0", None).await;
        let first = get(&sim, "/transportState/layer/1").await["transportState"].clone();
        assert_eq!(first["isPlaying"], true);
        assert_eq!(first["playbackRate"], 1.0);
        assert_eq!(first["playingItem"]["name"], "Keynote Loop");
        assert_eq!(first["playingMedia"]["name"], "keynote_loop.mov");
        assert_eq!(first["layer"]["transition"]["name"], "Dissolve");
        tokio::time::sleep(Duration::from_millis(60)).await;
        let later = get(&sim, "/transportState/layer/1").await["transportState"].clone();
        assert!(later["timeElapsed"].as_f64() > first["timeElapsed"].as_f64());

        ok(&sim, "/pause/layer/1", None).await;
        let paused = get(&sim, "/transportState/layer/1").await["transportState"].clone();
        assert_eq!(paused["isPlaying"], false);
        ok(&sim, "/goToEnd/layer/1?offset=2", None).await;
        let end = get(&sim, "/transportState/layer/1").await["transportState"].clone();
        assert_eq!(end["timeRemaining"], 2.0);
        ok(&sim, "/skip/layer/1?forwards=false&offset=10", None).await;
        let back = get(&sim, "/transportState/layer/1").await["transportState"].clone();
        assert_eq!(back["timeElapsed"], 288.0);

        ok(&sim, "/clear/layer/1", None).await;
        let cleared = get(&sim, "/transportState/layer/1").await["transportState"].clone();
        assert!(cleared.get("playingMedia").is_none());
        assert_eq!(cleared["playingItem"]["name"], "Keynote Loop");

        // The workspace transport state lists every layer.
        let all = get(&sim, "/transportState/workspace").await;
        assert_eq!(all["data"].as_array().unwrap().len(), 4);
    });
}

#[test]
fn trigger_cue_follows_the_selection() {
    let sim = started(Options::default());
    run(async {
        ok(&sim, "/select/playlist/-1", None).await;
        ok(&sim, "/select/layer/Background?target=true", None).await;
        ok(&sim, "/trigger/cue/1", None).await;
        let ts = get(&sim, "/transportState/layer/0").await["transportState"].clone();
        assert_eq!(ts["playingMedia"]["name"], "Camera 2");
        assert_eq!(sim.selection().target, 0);
        // By name, this endpoint answers 400 (field behaviour).
        assert_eq!(
            post(&sim, "/trigger/cue/Camera%201", None).await.status,
            Some(400)
        );
    });
}

#[test]
fn field_status_codes() {
    let sim = started(Options::default());
    run(async {
        let status = |head: &'static str| {
            let sim = &sim;
            async move { send(sim, head, &[], None).await.status }
        };
        assert_eq!(status("GET /nope").await, Some(404));
        assert_eq!(status("GET /data/layer/9").await, Some(400));
        assert_eq!(status("GET /data/layer/Nobody").await, Some(400));
        assert_eq!(status("GET /mute/workspace").await, Some(405));
        assert_eq!(status("POST /data/layers").await, Some(405));
        let a = post(&sim, "/opacity/layer/0", Some(json!({"value": "high"}))).await;
        assert_eq!(a.status, Some(400));
        let a = post(&sim, "/layerBlend/layer/0", Some(json!({"type": "Sepia"}))).await;
        assert_eq!(a.status, Some(400));
        // 3.8 and 3.9 have no /blend/layer/{id} (the `blend_route` option serves it).
        assert_eq!(status("GET /blend/layer/0").await, Some(404));
        let a = post(&sim, "/blend/layer/0", Some(json!({"type": "Normal"}))).await;
        assert_eq!(a.status, Some(404));
        // Outside the /api/0 prefix.
        let mut stream = TcpStream::connect(sim.addr().unwrap()).await.unwrap();
        stream
            .write_all(b"GET /data/layers HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut out = String::new();
        stream.read_to_string(&mut out).await.unwrap();
        assert!(out.starts_with("HTTP/1.1 404"), "{out}");
    });
}

#[test]
fn names_arrive_percent_encoded() {
    let sim = started(Options::default());
    run(async {
        ok(&sim, "/mute/layer/Lower%20Third%2FLeft", None).await;
        assert_eq!(get(&sim, "/data/layer/2").await["layer"]["isMuted"], true);
        let log = sim.requests();
        assert_eq!(log[0].path, "/api/0/mute/layer/Lower%20Third%2FLeft");
        assert_eq!(log[0].status, Some(200));
        assert!(sim.warnings().is_empty());
        // Sent unencoded (legal in a path, but not what the documents' names need).
        let odd = send(&sim, "GET /data/layer/Main'", &[], None).await;
        assert_eq!(odd.status, Some(400), "no layer named Main'");
        let warned = sim.warnings();
        assert!(
            warned.len() == 1 && warned[0].contains("percent-encoded"),
            "{warned:?}"
        );
    });
}

#[test]
fn catalogue_settings_round_trip() {
    let sim = started(Options::default());
    run(async {
        let effects = get(&sim, "/effects").await;
        let blur = effects["data"][0]["effect"]["uuid"].clone();
        ok(
            &sim,
            "/effects/layer/0",
            Some(json!({"effect": {"uuid": blur}})),
        )
        .await;
        assert_eq!(
            get(&sim, "/effects/layer/0").await["data"][0]["effect"]["uuid"],
            blur
        );
        ok(
            &sim,
            "/effectsPreset/layer/0",
            Some(json!({"value": "Dreamy"})),
        )
        .await;
        let preset = get(&sim, "/effectsPreset/layer/0").await;
        assert_eq!(preset["effectPreset"]["name"], "Dreamy");
        let uuid = preset["effectPreset"]["uuid"].clone();
        assert_eq!(
            get(&sim, "/data/layer/0").await["layer"]["effectPresetUUID"],
            uuid
        );

        ok(&sim, "/targetSet/layer/0", None).await;
        assert_eq!(
            get(&sim, "/targetSet/layer/0").await,
            json!({"targetSet": null})
        );
        ok(
            &sim,
            "/targetSet/layer/0",
            Some(json!({"value": "Projectors"})),
        )
        .await;
        assert_eq!(
            get(&sim, "/targetSet/layer/0").await["targetSet"]["name"],
            "Projectors"
        );

        ok(&sim, "/transition/layer/1", Some(json!({"value": null}))).await;
        assert_eq!(
            get(&sim, "/transition/layer/1").await,
            json!({"transition": null})
        );
        let cut = json!({"transition": {"name": "Cut"}});
        ok(&sim, "/transition/workspace", Some(cut)).await;
        assert_eq!(
            get(&sim, "/transition/workspace").await["transition"]["name"],
            "Cut"
        );

        ok(
            &sim,
            "/layerPreset/layer/1",
            Some(json!({"value": "Ghost"})),
        )
        .await;
        // Kept in single precision and printed as a double, as the application does.
        let opacity = send(&sim, "GET /opacity/layer/1", &[], None).await.body;
        assert_eq!(opacity, br#"{"opacity":{"value":0.34999999403953552}}"#);
        assert_eq!(
            get(&sim, "/blendMode/layer/1").await["blendMode"]["name"],
            "Screen"
        );
        ok(
            &sim,
            "/blendMode/layer/1",
            Some(json!({"value": "Multiply"})),
        )
        .await;
        let blend = get(&sim, "/layerBlend/layer/1").await;
        assert_eq!(blend["layerBlend"]["base"]["modeIndex"], 3);
        assert!(sim.warnings().is_empty(), "{:?}", sim.warnings());
    });
}

#[test]
fn api_key_is_required_when_set() {
    let sim = started(Options {
        api_key: Some("s3cret".into()),
        ..Options::default()
    });
    run(async {
        let anon = send(&sim, "GET /data/layers", &[], None).await;
        assert_eq!(anon.status, Some(401));
        assert!(anon.body.is_empty(), "401 has an empty body");
        let wrong = send(
            &sim,
            "GET /data/layers",
            &["Authorization: Bearer nope"],
            None,
        )
        .await;
        assert_eq!(wrong.status, Some(401));
        let good = send(
            &sim,
            "GET /data/layers",
            &["Authorization: Bearer s3cret"],
            None,
        )
        .await;
        assert_eq!(good.status, Some(200));
        let log = sim.requests();
        assert_eq!(log.len(), 3);
        assert!(log
            .iter()
            .all(|r| r.headers.iter().all(|(k, _)| k != "authorization")));
    });
}

#[test]
fn injected_faults() {
    let sim = started(Options::default());
    run(async {
        sim.fail_next(503, 2).unwrap();
        assert_eq!(
            send(&sim, "GET /data/layers", &[], None).await.status,
            Some(503)
        );
        assert_eq!(post(&sim, "/mute/layer/0", None).await.status, Some(503));
        // A failed command changed nothing.
        assert_eq!(get(&sim, "/data/layer/0").await["layer"]["isMuted"], false);

        sim.drop_next(1).unwrap();
        let dropped = send(&sim, "GET /data/layers", &[], None).await;
        assert_eq!(dropped.status, None);
        get(&sim, "/data/layers").await;

        sim.delay(1.0).unwrap();
        let slow = tokio::time::timeout(
            Duration::from_millis(200),
            send(&sim, "GET /data/layers", &[], None),
        )
        .await;
        assert!(slow.is_err(), "the answer waits out the delay");
        sim.delay(0.0).unwrap();

        let statuses: Vec<Option<u16>> = sim.requests().iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [Some(503), Some(503), Some(200), None, Some(200), Some(200)]
        );
        assert!(sim.fail_next(200, 1).is_err());
        // A count is checked before the status, and refused by both.
        let times = "times: must be a whole number from 0 to 4294967295, got -1";
        assert_eq!(sim.fail_next(200, -1).unwrap_err().to_string(), times);
        assert_eq!(sim.drop_next(-1).unwrap_err().to_string(), times);
        assert!(sim.delay(-1.0).is_err());
    });
}

#[test]
fn scoreboard_record_changes() {
    let sim = started(Options::default());
    run(async {
        let rec = get(&sim, "/data/scores").await;
        assert_eq!(rec["sportMode"], "Basketball");
        assert_eq!(rec["team1Score"], "48");
        sim.set_score("team1Score", json!("50")).unwrap();
        assert_eq!(get(&sim, "/data/scores").await["team1Score"], "50");
        sim.set_sport("Tennis").unwrap();
        let rec = get(&sim, "/data/scores").await;
        assert_eq!(rec["sportMode"], "Tennis");
        assert_eq!(rec["team1Set1"], " ");
        assert!(sim.set_sport("Curling").is_err());
        let err = super::check_score_number("team1Score", f64::NAN).unwrap_err();
        assert!(matches!(err, crate::error::Error::InvalidInput(_)));
        assert_eq!(
            err.to_string(),
            "value: team1Score takes text or a finite number, got NaN"
        );
        assert!(super::check_score_number("team1Score", 1.5).is_ok());
    });
}

#[test]
fn stop_keeps_the_port_for_the_next_start() {
    let sim = started(Options::default());
    let port = sim.addr().unwrap().port();
    run(async {
        get(&sim, "/data/layers").await;
        sim.stop().await;
        assert!(sim.url().is_none());
        assert_eq!(sim.port(), port);
        sim.start(rt().handle()).unwrap();
        assert_eq!(
            sim.addr().unwrap().port(),
            port,
            "the same port after a restart"
        );
        get(&sim, "/data/layers").await;
        sim.stop().await;
        sim.stop().await;
    });
    // A port in use: a clear error, not a panic.
    let busy = started(Options::default());
    let clash = Simulator::new(Options {
        port: busy.addr().unwrap().port(),
        ..Options::default()
    })
    .unwrap();
    let err = clash.start(rt().handle()).unwrap_err();
    assert!(err.to_string().contains("cannot listen on"), "{err}");
}

#[test]
fn reset_restores_the_seed() {
    let sim = started(Options::default());
    run(async {
        ok(&sim, "/mute/layer/0", None).await;
        sim.fail_next(500, 5).unwrap();
        sim.reset();
        assert!(sim.requests().is_empty());
        assert_eq!(get(&sim, "/data/layer/0").await["layer"]["isMuted"], false);
    });
}

#[test]
fn changes_land_apply_delay_after_the_answer() {
    let sim = started(Options {
        apply_delay: 0.3,
        ..Options::default()
    });
    run(async {
        ok(&sim, "/mute/layer/0", None).await;
        ok(&sim, "/opacity/layer/0", Some(json!({"value": 0.5}))).await;
        // Answered at once, not applied yet.
        assert_eq!(get(&sim, "/data/layer/0").await["layer"]["isMuted"], false);
        // A refusal still answers 400 at once (validated against the state of the moment).
        assert_eq!(
            post(&sim, "/mute/layer/Nobody", None).await.status,
            Some(400)
        );
        tokio::time::sleep(Duration::from_millis(450)).await;
        let l = get(&sim, "/data/layer/0").await;
        assert_eq!(
            (l["layer"]["isMuted"].clone(), l["layer"]["opacity"].clone()),
            (json!(true), json!(0.5))
        );
    });
    assert!(Simulator::new(Options {
        apply_delay: f64::NAN,
        ..Options::default()
    })
    .is_err());
}

#[test]
fn blend_route_serves_the_pre_3_8_path() {
    let sim = started(Options {
        blend_route: true,
        ..Options::default()
    });
    assert!(sim.blend_route());
    run(async {
        let luma = json!({"type": "Luma Matte", "base": {"isInverted": true}});
        ok(&sim, "/blend/layer/0", Some(luma)).await;
        // Both paths read the same layer blend.
        let old = get(&sim, "/blend/layer/0").await;
        assert_eq!(old["layerBlend"]["type"], "Luma Matte");
        assert_eq!(get(&sim, "/layerBlend/layer/0").await, old);
    });
}

#[test]
fn bad_workspace_is_refused() {
    let ws =
        super::Workspace::from_json(r#"{"layers":[{"name":"A","targetSet":"Nowhere"}]}"#).unwrap();
    let err = Simulator::new(Options {
        workspace: ws,
        ..Options::default()
    })
    .err()
    .unwrap()
    .to_string();
    assert!(
        err.starts_with("workspace: at layers[0].targetSet"),
        "{err}"
    );
}

/// The simulator takes nothing from the client: no `use crate::` (or any other path into the
/// crate) outside `crate::simulator` in its sources, but the serve path every listener of the
/// crate shares (`crate::serve`, which knows nothing of either application) and the crate's
/// error type (`crate::error`: a refused argument is `Error::InvalidInput`, as everywhere).
#[test]
fn the_simulator_imports_nothing_from_the_client() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/simulator");
    // Spelled in two halves so this test does not find itself.
    let needle = ["crate", "::"].concat();
    let up = ["super::", "super"].concat();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let mut rest = code;
            while let Some(i) = rest.find(&needle) {
                let after = &rest[i + needle.len()..];
                assert!(
                    ["simulator", "serve::", "error::"]
                        .iter()
                        .any(|p| after.starts_with(p)),
                    "{}:{}: {line}",
                    path.display(),
                    n + 1
                );
                rest = after;
            }
            assert!(!code.contains(&up), "{}:{}: {line}", path.display(), n + 1);
        }
        checked += 1;
    }
    assert!(checked >= 6, "read {checked} files of {}", dir.display());
}

#[test]
fn a_recorded_request_reads_its_json_and_describes_itself() {
    let record = |body: &str, len: usize| super::Record {
        method: "POST".into(),
        path: "/api/0/x".into(),
        query: vec![("a".into(), "1".into()), ("b".into(), "2".into())],
        headers: vec![],
        body: axum::body::Bytes::from(body.to_string()),
        body_len: len,
        status: None,
    };
    assert_eq!(record(" \n", 2).json().unwrap(), None);
    assert_eq!(
        record("{\"v\":1}", 7).json().unwrap(),
        Some(json!({"v": 1}))
    );
    assert!(record("{", 1)
        .json()
        .unwrap_err()
        .to_string()
        .starts_with("the body is not JSON"));
    let cut = record("{\"v\":", 9000).json().unwrap_err();
    assert!(matches!(cut, crate::error::Error::InvalidInput(_)));
    assert_eq!(
        cut.to_string(),
        "the body (9000 bytes) is longer than the log keeps (5 bytes)"
    );
    assert_eq!(
        record("", 0).to_string(),
        "RecordedRequest(method='POST', path='/api/0/x?a=1&b=2', status=None, body=0 bytes)"
    );
    assert_eq!(super::times(3).unwrap(), 3);
    let err = super::times(-1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "times: must be a whole number from 0 to 4294967295, got -1"
    );
}
