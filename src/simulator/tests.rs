//! The simulator over HTTP, driven by the crate's own transport: commands change what the read
//! endpoints answer, status codes match the field, faults and the key check work.

use std::future::Future;
use std::time::Duration;

use serde_json::{json, Value};

use super::{Options, Simulator};
use crate::error::Error;
use crate::ident::encode_segment;
use crate::runtime;
use crate::transport::{Config, Request, Transport};

fn run<F: Future>(f: F) -> F::Output {
    runtime::get().block_on(f)
}

fn started(options: Options) -> Simulator {
    let sim = Simulator::new(options).unwrap();
    sim.start().unwrap();
    sim
}

fn client(sim: &Simulator, key: Option<&str>, timeout: Duration) -> Transport {
    let mut config = Config::new(sim.url().unwrap());
    config.api_key = key.map(str::to_string);
    config.retries = 0;
    config.timeout = timeout;
    Transport::new(&config).unwrap()
}

struct Fixture {
    sim: Simulator,
    http: Transport,
}

impl Fixture {
    fn new() -> Self {
        let sim = started(Options::default());
        let http = client(&sim, None, Duration::from_secs(5));
        Fixture { sim, http }
    }
    async fn get(&self, path: &str) -> Value {
        let body = self.http.send(&Request::get(path)).await.unwrap();
        serde_json::from_slice(&body).unwrap()
    }
    async fn post(&self, req: Request) {
        let body = self.http.send(&req).await.unwrap();
        assert!(body.is_empty(), "a command answers an empty body");
    }
    async fn status(&self, req: Request) -> Option<u16> {
        self.http.send(&req).await.err().and_then(|e| e.status())
    }
}

#[test]
fn commands_show_in_the_reads() {
    let f = Fixture::new();
    run(async {
        f.post(Request::post("/mute/layer/1")).await;
        f.post(Request::post("/hide/layer/Main")).await;
        let l = f.get("/data/layer/1").await;
        assert_eq!(l["layer"]["isMuted"], true);
        assert_eq!(l["layer"]["isHidden"], true);
        assert_eq!(l["layer"]["name"], "Main");

        f.post(Request::post("/opacity/layer/0").json(&json!({"value": 0.25})))
            .await;
        assert_eq!(
            f.get("/opacity/layer/0").await,
            json!({"opacity": {"value": 0.25}})
        );
        // Out of range is clamped, as the application does.
        f.post(Request::post("/opacity/layer/0").json(&json!({"value": 7})))
            .await;
        assert_eq!(f.get("/opacity/layer/0").await["opacity"]["value"], 1.0);

        f.post(Request::post("/unmute/workspace")).await;
        f.post(Request::post("/mute/workspace")).await;
        let layers = f.get("/data/layers").await;
        let all = layers["data"].as_array().unwrap();
        assert_eq!(all.len(), 4);
        assert!(all.iter().all(|l| l["layer"]["isMuted"] == true));
        assert_eq!(all[3]["layer"]["targetSetUUID"], "null");

        f.post(Request::post("/transitionDuration/layer/2").json(&json!({"value": 2.5})))
            .await;
        assert_eq!(
            f.get("/transitionDuration/layer/2").await,
            json!({"transitionDuration": {"value": 2.5}})
        );
    });
}

#[test]
fn triggering_plays_and_the_clock_runs() {
    let f = Fixture::new();
    run(async {
        let path = format!(
            "/trigger/layer/1/playlist/{}/cue/0",
            encode_segment("Main Show")
        );
        f.post(Request::post(path)).await;
        let first = f.get("/transportState/layer/1").await["transportState"].clone();
        assert_eq!(first["isPlaying"], true);
        assert_eq!(first["playbackRate"], 1.0);
        assert_eq!(first["playingItem"]["name"], "Keynote Loop");
        assert_eq!(first["playingMedia"]["name"], "keynote_loop.mov");
        assert_eq!(first["layer"]["transition"]["name"], "Dissolve");
        tokio::time::sleep(Duration::from_millis(60)).await;
        let later = f.get("/transportState/layer/1").await["transportState"].clone();
        assert!(later["timeElapsed"].as_f64() > first["timeElapsed"].as_f64());

        f.post(Request::post("/pause/layer/1")).await;
        let paused = f.get("/transportState/layer/1").await["transportState"].clone();
        assert_eq!(paused["isPlaying"], false);
        f.post(Request::post("/goToEnd/layer/1").query("offset", "2"))
            .await;
        let end = f.get("/transportState/layer/1").await["transportState"].clone();
        assert_eq!(end["timeRemaining"], 2.0);
        f.post(
            Request::post("/skip/layer/1")
                .query("forwards", "false")
                .query("offset", "10"),
        )
        .await;
        let back = f.get("/transportState/layer/1").await["transportState"].clone();
        assert_eq!(back["timeElapsed"], 288.0);

        f.post(Request::post("/clear/layer/1")).await;
        let cleared = f.get("/transportState/layer/1").await["transportState"].clone();
        assert!(cleared.get("playingMedia").is_none());
        assert_eq!(cleared["playingItem"]["name"], "Keynote Loop");

        // The workspace transport state lists every layer.
        let all = f.get("/transportState/workspace").await;
        assert_eq!(all["data"].as_array().unwrap().len(), 4);
    });
}

#[test]
fn trigger_cue_follows_the_selection() {
    let f = Fixture::new();
    run(async {
        f.post(Request::post("/select/playlist/-1")).await;
        f.post(Request::post("/select/layer/Background").query("target", "true"))
            .await;
        f.post(Request::post("/trigger/cue/1")).await;
        let ts = f.get("/transportState/layer/0").await["transportState"].clone();
        assert_eq!(ts["playingMedia"]["name"], "Camera 2");
        assert_eq!(f.sim.selection().1, Some(0));
        // By name, this endpoint answers 400 (field behaviour).
        assert_eq!(
            f.status(Request::post("/trigger/cue/Camera%201")).await,
            Some(400)
        );
    });
}

#[test]
fn field_status_codes() {
    let f = Fixture::new();
    run(async {
        assert_eq!(f.status(Request::get("/nope")).await, Some(404));
        assert_eq!(f.status(Request::get("/data/layer/9")).await, Some(400));
        assert_eq!(
            f.status(Request::get("/data/layer/Nobody")).await,
            Some(400)
        );
        assert_eq!(f.status(Request::get("/mute/workspace")).await, Some(405));
        assert_eq!(f.status(Request::post("/data/layers")).await, Some(405));
        assert_eq!(
            f.status(Request::post("/opacity/layer/0").json(&json!({"val": 1})))
                .await,
            Some(400)
        );
        let mut malformed = Request::post("/opacity/layer/0");
        malformed.body = Some(b"{\"value\":".to_vec());
        assert_eq!(f.status(malformed).await, Some(400));
        assert_eq!(
            f.status(Request::post("/blend/layer/0").json(&json!({"type": "Sepia"})))
                .await,
            Some(400)
        );
        // Outside the /api/0 prefix.
        let err = reqwest::get(format!("{}/data/layers", f.sim.url().unwrap()))
            .await
            .unwrap();
        assert_eq!(err.status().as_u16(), 404);
    });
}

#[test]
fn names_arrive_percent_encoded() {
    let f = Fixture::new();
    run(async {
        let seg = encode_segment("Lower Third/Left");
        f.post(Request::post(format!("/mute/layer/{seg}"))).await;
        assert_eq!(f.get("/data/layer/2").await["layer"]["isMuted"], true);
        let log = f.sim.requests();
        assert_eq!(log[0].path, "/api/0/mute/layer/Lower%20Third%2FLeft");
        assert_eq!(log[0].status, Some(200));
    });
}

#[test]
fn catalogue_settings_round_trip() {
    let f = Fixture::new();
    run(async {
        let effects = f.get("/effects").await;
        let blur = effects["data"][0]["effect"]["uuid"].clone();
        f.post(Request::post("/effects/layer/0").json(&json!({"effect": {"uuid": blur}})))
            .await;
        assert_eq!(
            f.get("/effects/layer/0").await["data"][0]["effect"]["uuid"],
            blur
        );
        f.post(Request::post("/effectsPreset/layer/0").json(&json!({"value": "Dreamy"})))
            .await;
        let preset = f.get("/effectsPreset/layer/0").await;
        assert_eq!(preset["effectPreset"]["name"], "Dreamy");
        let uuid = preset["effectPreset"]["uuid"].clone();
        assert_eq!(
            f.get("/data/layer/0").await["layer"]["effectPresetUUID"],
            uuid
        );

        f.post(Request::post("/targetSet/layer/0")).await;
        assert_eq!(
            f.get("/targetSet/layer/0").await,
            json!({"targetSet": null})
        );
        f.post(Request::post("/targetSet/layer/0").json(&json!({"value": "Projectors"})))
            .await;
        assert_eq!(
            f.get("/targetSet/layer/0").await["targetSet"]["name"],
            "Projectors"
        );

        f.post(Request::post("/transition/layer/1").json(&json!({"value": null})))
            .await;
        assert_eq!(
            f.get("/transition/layer/1").await,
            json!({"transition": null})
        );
        f.post(
            Request::post("/transition/workspace").json(&json!({"transition": {"name": "Cut"}})),
        )
        .await;
        assert_eq!(
            f.get("/transition/workspace").await["transition"]["name"],
            "Cut"
        );

        f.post(Request::post("/layerPreset/layer/1").json(&json!({"value": "Ghost"})))
            .await;
        assert_eq!(f.get("/opacity/layer/1").await["opacity"]["value"], 0.35);
        assert_eq!(
            f.get("/blendMode/layer/1").await["blendMode"]["name"],
            "Screen"
        );
        f.post(Request::post("/blendMode/layer/1").json(&json!({"value": "Multiply"})))
            .await;
        let blend = f.get("/layerBlend/layer/1").await;
        assert_eq!(blend["layerBlend"]["base"]["modeIndex"], 2);
    });
}

#[test]
fn api_key_is_required_when_set() {
    let sim = started(Options {
        api_key: Some("s3cret".into()),
        ..Options::default()
    });
    run(async {
        let anon = client(&sim, None, Duration::from_secs(5));
        let err = anon.send(&Request::get("/data/layers")).await.unwrap_err();
        assert_eq!(err.status(), Some(401));
        let wrong = client(&sim, Some("nope"), Duration::from_secs(5));
        let err = wrong.send(&Request::get("/data/layers")).await.unwrap_err();
        assert_eq!(err.status(), Some(401));
        let good = client(&sim, Some("s3cret"), Duration::from_secs(5));
        good.send(&Request::get("/data/layers")).await.unwrap();
        let log = sim.requests();
        assert_eq!(log.len(), 3);
        assert!(log
            .iter()
            .all(|r| r.headers.iter().all(|(k, _)| k != "authorization")));
    });
}

#[test]
fn injected_faults() {
    let f = Fixture::new();
    run(async {
        f.sim.fail_next(503, 2).unwrap();
        assert_eq!(f.status(Request::get("/data/layers")).await, Some(503));
        assert_eq!(f.status(Request::post("/mute/layer/0")).await, Some(503));
        // A failed command changed nothing.
        assert_eq!(f.get("/data/layer/0").await["layer"]["isMuted"], false);

        f.sim.drop_next(1);
        let err = f
            .http
            .send(&Request::get("/data/layers"))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Connect { .. }), "{err:?}");
        f.get("/data/layers").await;

        f.sim.delay(1.0).unwrap();
        let quick = client(&f.sim, None, Duration::from_millis(200));
        let err = quick.send(&Request::get("/data/layers")).await.unwrap_err();
        assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
        f.sim.delay(0.0).unwrap();

        let statuses: Vec<Option<u16>> = f.sim.requests().iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [Some(503), Some(503), Some(200), None, Some(200), Some(200)]
        );
        assert!(f.sim.fail_next(200, 1).is_err());
        assert!(f.sim.delay(-1.0).is_err());
    });
}

#[test]
fn scoreboard_record_changes() {
    let f = Fixture::new();
    run(async {
        let rec = f.get("/data/scores").await;
        assert_eq!(rec["sportMode"], "Basketball");
        assert_eq!(rec["team1Score"], "48");
        f.sim.set_score("team1Score", json!("50")).unwrap();
        assert_eq!(f.get("/data/scores").await["team1Score"], "50");
        f.sim.set_sport("Tennis").unwrap();
        let rec = f.get("/data/scores").await;
        assert_eq!(rec["sportMode"], "Tennis");
        assert_eq!(rec["team1Set1"], " ");
        assert!(f.sim.set_sport("Curling").is_err());
    });
}

#[test]
fn stop_frees_the_port_and_start_again_works() {
    let sim = started(Options::default());
    run(async {
        let http = client(&sim, None, Duration::from_secs(2));
        http.send(&Request::get("/data/layers")).await.unwrap();
        sim.stop().await;
        assert!(sim.url().is_none());
        // The kept-alive connection was closed too.
        let err = http.send(&Request::get("/data/layers")).await.unwrap_err();
        assert!(matches!(err, Error::Connect { .. }), "{err:?}");
        sim.start().unwrap();
        let again = client(&sim, None, Duration::from_secs(2));
        again.send(&Request::get("/data/layers")).await.unwrap();
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
    let err = clash.start().unwrap_err();
    assert!(err.to_string().contains("cannot listen on"), "{err}");
}

#[test]
fn reset_restores_the_seed() {
    let f = Fixture::new();
    run(async {
        f.post(Request::post("/mute/layer/0")).await;
        f.sim.fail_next(500, 5).unwrap();
        f.sim.reset();
        assert!(f.sim.requests().is_empty());
        assert_eq!(f.get("/data/layer/0").await["layer"]["isMuted"], false);
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
    .unwrap();
    assert!(
        err.to_string().starts_with("workspace: layers.A.targetSet"),
        "{err}"
    );
}
