//! The feed against the simulator: what it serves follows the application within an interval,
//! says stale when the application stops answering and recovers by itself, and drops an SSE
//! client that stops reading.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use super::{Feed, Kind, Options, SourceSpec, SourceState};
use crate::ident::encode_segment;
use crate::runtime;
use crate::serve::Limits;
use crate::simulator::{self, Simulator};
use crate::transport::{Config, Request, Transport};

fn run<F: Future>(f: F) -> F::Output {
    runtime::get().block_on(f)
}

fn simulator() -> Simulator {
    let sim = Simulator::new(simulator::Options::default()).unwrap();
    sim.start(runtime::get().handle()).unwrap();
    sim
}

fn config(sim: &Simulator, timeout: Duration) -> Config {
    let mut c = Config::new(sim.url().unwrap());
    c.timeout = timeout;
    c
}

/// Options polling the given applications, serving on a free loopback port.
fn options(media: Option<Config>, scoreboard: Option<Config>, interval: Duration) -> Options {
    let sources = [(Kind::Media, media), (Kind::Scoreboard, scoreboard)]
        .into_iter()
        .filter_map(|(kind, c)| c.map(|c| SourceSpec::new(kind, c)))
        .collect();
    Options {
        sources,
        venue: false,
        interval,
        host: "127.0.0.1".into(),
        port: 0,
        write: None,
        limits: Limits::default(),
    }
}

fn feed(sim: &Simulator, interval: Duration, timeout: Duration) -> Feed {
    let feed = Feed::new(Options {
        write: None,
        ..options(
            Some(config(sim, timeout)),
            Some(config(sim, timeout)),
            interval,
        )
    })
    .unwrap();
    feed.start().unwrap();
    feed
}

async fn post(sim: &Simulator, path: &str) {
    let mut c = Config::new(sim.url().unwrap());
    c.retries = 0;
    Transport::new(&c)
        .unwrap()
        .send(&Request::post(path))
        .await
        .unwrap();
}

/// Wait (at most 10 s) until the media state satisfies `f`.
async fn media_until(
    feed: &Feed,
    f: impl FnMut(&Arc<SourceState<super::Layers>>) -> bool,
) -> Arc<SourceState<super::Layers>> {
    let mut rx = feed.shared().media[0].rx.clone();
    let got = tokio::time::timeout(Duration::from_secs(10), rx.wait_for(f))
        .await
        .expect("the feed did not show it within 10 s")
        .unwrap();
    got.clone()
}

fn layer_state(s: &SourceState<super::Layers>, index: usize) -> Option<String> {
    let t = s.data.as_ref()?.get(index)?;
    Some(super::layer_json(index, t)["state"].as_str()?.to_string())
}

#[test]
fn a_triggered_cue_shows_within_one_interval() {
    let sim = simulator();
    let interval = Duration::from_millis(250);
    let feed = feed(&sim, interval, Duration::from_secs(2));
    run(async {
        media_until(&feed, |s| s.data.is_some()).await;
        let path = format!(
            "/trigger/layer/1/playlist/{}/cue/0",
            encode_segment("Main Show")
        );
        post(&sim, &path).await;
        let t0 = Instant::now();
        media_until(&feed, |s| layer_state(s, 1).as_deref() == Some("playing")).await;
        let took = t0.elapsed();
        // The next poll starts at most one interval later; allow it its own round trip.
        assert!(took < interval + Duration::from_millis(250), "{took:?}");
        let doc = feed.transport().unwrap();
        let layer = &doc["layers"][1];
        assert_eq!(layer["name"], "Main");
        assert_eq!(layer["media"], "keynote_loop.mov");
        assert_eq!(layer["cue"], "Keynote Loop");
        assert_eq!(layer["duration"], 300.0);
        assert!(layer["remaining"].as_f64().unwrap() <= 300.0);
        assert_eq!(doc["stale"], false);
        assert!(doc["age"].as_f64().unwrap() < 1.0);
        feed.stop().await;
    });
}

#[test]
fn an_unanswering_application_is_stale_within_an_interval_and_recovers() {
    let sim = simulator();
    let interval = Duration::from_millis(200);
    let feed = feed(&sim, interval, Duration::from_secs(2));
    run(async {
        media_until(&feed, |s| s.data.is_some()).await;
        sim.delay(3.0).unwrap();
        let t0 = Instant::now();
        let stale = media_until(&feed, |s| s.stale_since.is_some()).await;
        let took = t0.elapsed();
        // Stale two intervals after the last answer, which came at most one before t0.
        assert!(took < interval * 2 + Duration::from_millis(200), "{took:?}");
        assert!(
            stale.error.as_deref().unwrap().contains("no answer"),
            "{stale:?}"
        );
        let doc = feed.transport().unwrap();
        assert_eq!(doc["stale"], true);
        assert!(doc["stale_since"].is_string());
        assert!(doc["age"].as_f64().unwrap() >= interval.as_secs_f64());
        // The last good layers are still served, marked stale.
        assert_eq!(doc["layers"].as_array().unwrap().len(), 4);
        let mut scores = feed.shared().scores[0].rx.clone();
        tokio::time::timeout(
            Duration::from_secs(10),
            scores.wait_for(|s| s.stale_since.is_some()),
        )
        .await
        .expect("the scores did not go stale")
        .unwrap();
        assert_eq!(feed.scores().unwrap()["stale"], true);
        sim.delay(0.0).unwrap();
        let fresh = media_until(&feed, |s| s.stale_since.is_none()).await;
        assert!(fresh.error.is_none());
        assert_eq!(feed.transport().unwrap()["stale"], false);
        // A failing status is stale too, with the application's error.
        sim.fail_next(503, 1000).unwrap();
        let failed = media_until(&feed, |s| s.stale_since.is_some()).await;
        assert!(
            failed.error.as_deref().unwrap().contains("503"),
            "{failed:?}"
        );
        sim.fail_next(503, 0).unwrap();
        media_until(&feed, |s| s.stale_since.is_none()).await;
        feed.stop().await;
    });
}

#[test]
fn an_sse_client_that_stops_reading_is_dropped() {
    let sim = simulator();
    let feed = feed(&sim, Duration::from_millis(50), Duration::from_secs(2));
    let addr = feed.addr().unwrap();
    run(async {
        // A playing layer changes every poll: a message every 50 ms.
        let path = format!(
            "/trigger/layer/0/playlist/{}/cue/0",
            encode_segment("Main Show")
        );
        post(&sim, &path).await;
        let mut clients = feed.sse_clients_watch().unwrap();
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let mut stream = socket.connect(addr).await.unwrap();
        stream
            .write_all(b"GET /events HTTP/1.1\r\nHost: feed\r\n\r\n")
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(10), clients.wait_for(|n| *n == 1))
            .await
            .unwrap()
            .unwrap();
        // Never read: the socket fills, the client falls behind and is dropped.
        tokio::time::timeout(Duration::from_secs(60), clients.wait_for(|n| *n == 0))
            .await
            .expect("a stuck client was not dropped")
            .unwrap();
        assert!(feed.shared().published() > super::SSE_BUFFER as u64);
        drop(stream);
        feed.stop().await;
    });
}

#[test]
fn no_application_is_refused() {
    let err = Feed::new(options(None, None, Duration::from_millis(500)))
        .err()
        .unwrap();
    assert!(err.to_string().starts_with("media, scoreboard:"), "{err}");
}

/// A feed writing into a new directory whose writes are held (a stalled disk). Returns, once
/// the first write is held, the feed and the directory; `files::gate::release(dir)` lets the
/// writes go.
fn feed_writing_into_a_held_dir(sim: &Simulator, name: &str) -> (Arc<Feed>, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("showctl-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    super::files::gate::hold(&dir);
    let feed = Feed::new(Options {
        write: Some(dir.clone()),
        ..options(
            Some(config(sim, Duration::from_secs(2))),
            None,
            Duration::from_millis(50),
        )
    })
    .unwrap();
    feed.start().unwrap();
    super::files::gate::wait_for_writer(&dir);
    (Arc::new(feed), dir)
}

/// Let the held writes into `dir` go (from a blocking thread, as a reader of a slow disk).
async fn release(dir: std::path::PathBuf) {
    tokio::task::spawn_blocking(move || super::files::gate::release(&dir))
        .await
        .unwrap()
}

/// `stop()` finishes the file being written instead of abandoning it on its thread: stopping
/// while a write is held open returns only after the write is released, and leaves the file in
/// place with no temporary file behind.
#[test]
fn stop_waits_for_the_file_being_written() {
    let sim = simulator();
    let (feed, dir) = feed_writing_into_a_held_dir(&sim, "feed-stop");
    run(async {
        let started = Instant::now();
        let stopping = tokio::spawn({
            let feed = feed.clone();
            async move { feed.stop().await }
        });
        let mut stopping = std::pin::pin!(stopping);
        let early = tokio::time::timeout(Duration::from_millis(300), &mut stopping).await;
        assert!(
            early.is_err(),
            "stop() returned while a file was being written"
        );
        release(dir.clone()).await;
        tokio::time::timeout(Duration::from_secs(10), stopping)
            .await
            .expect("stop() did not return once the write was released")
            .unwrap();
        // The writer ended with its sources: stop() did not wait out the grace.
        assert!(
            started.elapsed() < super::WRITE_GRACE,
            "{:?}",
            started.elapsed()
        );
    });
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["transport.json"]);
    let doc = std::fs::read_to_string(dir.join("transport.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert!(doc["polled_at"].is_string(), "{doc}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A write that never finishes (a stalled disk) holds `stop()` for `WRITE_GRACE`, not forever.
#[test]
fn stop_returns_after_the_grace_when_a_write_is_stuck() {
    let sim = simulator();
    let (feed, dir) = feed_writing_into_a_held_dir(&sim, "feed-stuck");
    run(async {
        let started = Instant::now();
        tokio::time::timeout(super::WRITE_GRACE * 3, feed.stop())
            .await
            .expect("stop() hung on a stuck write");
        assert!(
            started.elapsed() >= super::WRITE_GRACE,
            "{:?}",
            started.elapsed()
        );
        // Release the writer's thread.
        release(dir.clone()).await;
    });
    // The released writer may still be finishing its files: remove once it has (bounded).
    let deadline = Instant::now() + Duration::from_secs(10);
    while let Err(e) = std::fs::remove_dir_all(&dir) {
        assert!(Instant::now() < deadline, "{dir:?} still written to: {e}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Before its first answer a source's document says why it has no data; `wait_ready` returns
/// once the source answered or went stale (two intervals unanswered), not after the timeout.
#[test]
fn documents_say_why_a_source_has_no_data_yet() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let mut c = Config::new(url.clone());
    c.timeout = Duration::from_secs(30);
    let feed = Feed::new(options(Some(c), None, Duration::from_millis(100))).unwrap();
    feed.start().unwrap();
    let doc = feed.transport().unwrap();
    let error = doc["error"].as_str().unwrap();
    assert!(
        error.starts_with("waiting for the first answer from"),
        "{doc}"
    );
    assert!(doc["polled_at"].is_null() && doc["stale"] == false, "{doc}");
    run(async {
        let started = Instant::now();
        assert!(feed.wait_ready(Duration::from_secs(10)).await);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        let doc = feed.transport().unwrap();
        assert!(
            doc["error"].as_str().unwrap().starts_with("no answer from"),
            "{doc}"
        );
        assert_eq!(doc["stale"], true);
        feed.stop().await;
    });
}

/// One reader's view of a score document: when its data was answered and the home score.
fn read_score(path: &str, body: &[u8]) -> Result<(String, i64), String> {
    let text = std::str::from_utf8(body).map_err(|e| e.to_string())?;
    let fields: Vec<(String, String)> = match path {
        "scores.json" => {
            let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
            let score = &doc["view"]["teams"][0]["score"];
            let polled = doc["polled_at"].as_str().unwrap_or_default();
            let pair = |k: &str, v: String| (k.to_string(), v);
            vec![
                pair("polled_at", polled.into()),
                pair("team1_score", score.to_string()),
            ]
        }
        "scores.xml" => super::docs::tests::parse_xml(text)?,
        _ => {
            let rows = super::docs::tests::parse_csv(text);
            let [head, row] = &rows[..] else {
                return Err(format!("{} rows", rows.len()));
            };
            head.iter().cloned().zip(row.iter().cloned()).collect()
        }
    };
    let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let polled = get("polled_at")
        .filter(|p| !p.is_empty())
        .ok_or("no polled_at")?;
    let score = (get("team1_score").and_then(|s| s.parse().ok())).ok_or("no team1_score")?;
    Ok((polled, score))
}

/// 50 readers ask for the score documents as fast as they can while the score goes up on every
/// poll; a third of the asks want gzip, a third send the `ETag` they hold. Every answer parses
/// (no torn document), says data at least as new as the feed held when it was asked (a `304`
/// included: what the reader holds is then current), and nothing a reader gets is older than
/// what it got before. Bounded: at most 200 asks per reader, for at most 3 s, on loopback.
#[test]
fn fifty_readers_never_get_a_torn_or_older_document() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let sim = Arc::new(simulator());
    // Long enough between polls that a reader often still holds the current document.
    let interval = Duration::from_millis(500);
    let feed = Feed::new(options(
        None,
        Some(config(&sim, Duration::from_secs(2))),
        interval,
    ))
    .unwrap();
    feed.start().unwrap();
    let shared = feed.shared();
    run(async {
        let mut rx = shared.scores[0].rx.clone();
        rx.wait_for(|s| s.data.is_some()).await.unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let scorer = {
            let (sim, done) = (sim.clone(), done.clone());
            tokio::spawn(async move {
                let mut n = 0;
                while !done.load(Ordering::SeqCst) {
                    n += 1;
                    sim.set_score("team1Score", serde_json::json!(n.to_string()))
                        .unwrap();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            })
        };
        let url = feed.url().unwrap();
        let deadline = Instant::now() + Duration::from_secs(3);
        // A connection per reader (hyper's client connection), kept for all its requests.
        let parsed = url::Url::parse(&url).unwrap();
        let authority = format!("{}:{}", parsed.host_str().unwrap(), parsed.port().unwrap());
        let readers = (0..50).map(|reader| {
            let (url, shared, authority) = (url.clone(), shared.clone(), authority.clone());
            tokio::spawn(async move {
                let tcp = tokio::net::TcpStream::connect(&authority).await.unwrap();
                let io = hyper_util::rt::TokioIo::new(tcp);
                let (mut client, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
                tokio::spawn(conn);
                let mut last: Option<(String, i64)> = None;
                // Per document: its ETag as the reader got it, whether gzipped, and its data.
                type Held = Option<(String, bool, (String, i64))>;
                let mut held: [Held; 3] = Default::default();
                let (mut not_modified, mut zipped) = (0, 0);
                for i in 0..200usize {
                    if i > 0 && Instant::now() > deadline {
                        break;
                    }
                    let which = (reader + i) % 3;
                    let path = ["scores.json", "scores.xml", "scores.csv"][which];
                    let fed = shared.scores[0].rx.borrow().polled_at.map(super::iso);
                    let target = url::Url::parse(&format!("{url}{path}")).unwrap();
                    let mut ask = hyper::Request::get(target.path()).header("host", &authority);
                    match (i / 3) % 3 {
                        0 => ask = ask.header("accept-encoding", "gzip"),
                        1 => {
                            // The same representation again, if it is still current.
                            if let Some((etag, gzip, _)) = &held[which] {
                                ask = ask.header("if-none-match", etag);
                                if *gzip {
                                    ask = ask.header("accept-encoding", "gzip");
                                }
                            }
                        }
                        _ => {}
                    }
                    client.ready().await.unwrap();
                    let ask = ask
                        .body(http_body_util::Empty::<bytes::Bytes>::new())
                        .unwrap();
                    let r = client.send_request(ask).await.unwrap();
                    let status = r.status().as_u16();
                    let gzip = r.headers().get("content-encoding").is_some();
                    let etag = r.headers()["etag"].to_str().unwrap().to_string();
                    let body = http_body_util::BodyExt::collect(r.into_body())
                        .await
                        .unwrap()
                        .to_bytes();
                    let got = if status == 304 {
                        not_modified += 1;
                        held[which]
                            .clone()
                            .expect("304 to an ETag the reader holds")
                            .2
                    } else {
                        assert_eq!(status, 200);
                        let body = if gzip {
                            zipped += 1;
                            let mut out = Vec::new();
                            let mut gz = flate2::read::GzDecoder::new(&body[..]);
                            std::io::Read::read_to_end(&mut gz, &mut out).unwrap();
                            out
                        } else {
                            body.to_vec()
                        };
                        let got = read_score(path, &body)
                            .unwrap_or_else(|e| panic!("{path}: {e}: {body:?}"));
                        held[which] = Some((etag, gzip, got.clone()));
                        got
                    };
                    let fed = fed.expect("the feed has data");
                    assert!(
                        got.0 >= fed,
                        "{path}: data of {} when the feed held {fed}",
                        got.0
                    );
                    if let Some(before) = &last {
                        assert!(got >= *before, "{path}: {got:?} after {before:?}");
                    }
                    last = Some(got);
                }
                (last.expect("at least one answer").1, not_modified, zipped)
            })
        });
        let results = futures::future::join_all(readers).await;
        done.store(true, Ordering::SeqCst);
        scorer.await.unwrap();
        let results: Vec<_> = results.into_iter().map(Result::unwrap).collect();
        // The score moved while they read, and the 304 and gzip answers were exercised.
        assert!(results.iter().any(|r| r.0 >= 10), "{results:?}");
        assert!(
            results.iter().map(|r| r.1).sum::<usize>() > 0,
            "no 304: {results:?}"
        );
        assert!(results.iter().map(|r| r.2).sum::<usize>() > 0, "no gzip");
        feed.stop().await;
    });
}

#[test]
fn options_beside_a_venue_are_refused_by_name() {
    use super::check_beside_venue;
    assert!(check_beside_venue(false, true, &[("api_key", false)]).is_ok());
    let interval = check_beside_venue(true, true, &[]).unwrap_err().to_string();
    assert!(
        interval.starts_with("interval: not with venue="),
        "{interval}"
    );
    let given = [("media", false), ("timeout", true), ("verify", true)];
    let err = check_beside_venue(false, false, &given)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("timeout: not with a venue"), "{err}");
}

#[test]
fn the_ready_wait_the_port_and_the_description_before_start() {
    let mut slow = Config::new("http://127.0.0.1:9");
    slow.timeout = Duration::from_secs(7);
    let feed = Feed::new(Options {
        port: 4321,
        ..options(
            Some(Config::new("http://127.0.0.1:8")),
            Some(slow),
            Duration::from_secs(1),
        )
    })
    .unwrap();
    assert_eq!(feed.ready_timeout(None).unwrap(), Duration::from_secs(7));
    assert_eq!(
        feed.ready_timeout(Some(0.5)).unwrap(),
        Duration::from_millis(500)
    );
    let err = feed.ready_timeout(Some(-1.0)).unwrap_err().to_string();
    assert!(err.starts_with("timeout: must be a number of seconds from 0 to 3600"));
    assert_eq!(feed.port(), 4321);
    let repr = feed.describe();
    assert!(repr.starts_with("Feed(media='http://127.0.0.1:8"), "{repr}");
    assert!(repr.ends_with(", running=False)"), "{repr}");
}
