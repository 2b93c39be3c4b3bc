use super::*;
use std::borrow::Cow;

#[test]
fn base_forms() {
    assert_eq!(normalize_base("http://h:1").unwrap(), "http://h:1/api/0");
    assert_eq!(normalize_base("https://h:1/").unwrap(), "https://h:1/api/0");
    assert_eq!(normalize_base("h:1").unwrap(), "http://h:1/api/0");
    assert_eq!(
        normalize_base("127.0.0.1:80").unwrap(),
        "http://127.0.0.1/api/0"
    );
    assert_eq!(
        normalize_base("http://h:1/api/0").unwrap(),
        "http://h:1/api/0"
    );
    assert_eq!(
        normalize_base("http://[::1]:9").unwrap(),
        "http://[::1]:9/api/0"
    );
}

#[test]
fn base_refusals() {
    for bad in [
        "",
        "ftp://h",
        "http://h:1\r\nX: y",
        "http://u:p@h:1",
        "http://h/?q=1",
    ] {
        assert!(normalize_base(bad).is_err(), "{bad:?} should be refused");
    }
}

#[test]
fn key_refusals_never_repeat_the_key() {
    let e = auth_header("sec\r\nret").unwrap_err().to_string();
    assert!(!e.contains("sec"), "{e}");
    assert!(auth_header("good-key").unwrap().is_sensitive());
}

/// A connection opened by a blocking call on one thread's lane is only driven by that
/// thread: the process runtime and other threads must not be handed it.
#[test]
fn lanes_and_the_runtime_keep_their_own_connections() {
    let rt = crate::runtime::get();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route("/api/0/ping", axum::routing::get(|| async { "{}" }));
    rt.spawn(async move { axum::serve(listener, app).await });
    let mut config = Config::new(format!("http://{addr}"));
    config.timeout = Duration::from_secs(2);
    config.retries = 0;
    let t = Arc::new(Transport::new(&config).unwrap());
    let req = Request::get("/ping");
    for _ in 0..3 {
        let body = crate::runtime::block_on_here(t.send(&req)).unwrap();
        assert_eq!(&body[..], b"{}");
        let (t2, r2) = (t.clone(), req.clone());
        let body = rt
            .block_on(rt.spawn(async move { t2.send(&r2).await }))
            .unwrap()
            .unwrap();
        assert_eq!(&body[..], b"{}");
        let (t3, r3) = (t.clone(), req.clone());
        let body = std::thread::spawn(move || crate::runtime::block_on_here(t3.send(&r3)))
            .join()
            .unwrap()
            .unwrap();
        assert_eq!(&body[..], b"{}");
    }
}

/// A server that keeps connections alive but closes one idle for 20 ms; says so on the
/// channel once it has.
async fn closes_idle_connections(closed: std::sync::mpsc::Sender<()>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let closed = closed.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                loop {
                    let idle = Duration::from_millis(20);
                    match tokio::time::timeout(idle, stream.read(&mut buf)).await {
                        Ok(Ok(n)) if n > 0 => {
                            let reply = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
                            if stream.write_all(reply.as_bytes()).await.is_err() {
                                break;
                            }
                        }
                        _ => break, // idle, closed or failed: close
                    }
                }
                drop(stream);
                let _ = closed.send(());
            });
        }
    });
    url
}

/// A lane's connection closed by the server while the thread was away is not used for
/// the next call (a command on it would fail: commands are not retried).
#[test]
fn a_lane_does_not_send_on_a_connection_closed_while_idle() {
    let rt = crate::runtime::get();
    let (tx, closed) = std::sync::mpsc::channel();
    let url = rt.block_on(rt.spawn(closes_idle_connections(tx))).unwrap();
    let mut config = Config::new(url);
    config.retries = 0;
    let t = Transport::new(&config).unwrap();
    for _ in 0..3 {
        crate::runtime::block_on_here(t.send(&Request::post("/mute/layer/0"))).unwrap();
        // Away until the server has closed the connection this call kept.
        closed.recv_timeout(Duration::from_secs(10)).unwrap();
    }
}

/// A keep-alive server answering `{}` to every request; counts its connections.
async fn counts_connections() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stream.read(&mut buf).await {
                    let reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
                    if n == 0 || stream.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, count)
}

/// A configuration (no retries) for a [`counts_connections`] server on the process
/// runtime, and its count.
fn counted() -> (Config, Arc<std::sync::atomic::AtomicUsize>) {
    let rt = crate::runtime::get();
    let (url, connections) = rt.block_on(rt.spawn(counts_connections())).unwrap();
    let mut config = Config::new(url);
    config.retries = 0;
    (config, connections)
}

/// A blocking call is made on the lane's own connections (core/src/transport/http1.rs): one
/// connection carries the calls. A target hyper cannot send as it is given is refused before
/// anything is sent.
#[test]
fn a_lane_makes_its_calls_on_one_connection() {
    let (config, connections) = counted();
    let t = Transport::new(&config).unwrap();
    for _ in 0..5 {
        let body = crate::runtime::block_on_here(t.send(&Request::get("/x"))).unwrap();
        assert_eq!(&body[..], b"{}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    let err = crate::runtime::block_on_here(t.send(&Request::get("/a b"))).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    assert!(err.to_string().contains("\"/api/0/a b\""), "{err}");
    assert_eq!(err.delivery(), Delivery::NotSent);
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

/// A request made on the process runtime (an awaitable call, a mirror, the feed) uses the
/// runtime's own kept connections; on a runtime of the caller's own it goes through the same
/// exchange on a connection of its own, which nothing keeps.
#[test]
fn the_process_runtime_keeps_its_connections_and_a_callers_runtime_none() {
    let rt = crate::runtime::get();
    let (config, connections) = counted();
    let t = Arc::new(Transport::new(&config).unwrap());
    for _ in 0..5 {
        let t2 = t.clone();
        let sent = rt.spawn(async move { t2.send(&Request::get("/x")).await });
        assert_eq!(&rt.block_on(sent).unwrap().unwrap()[..], b"{}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    assert_eq!(t.clients.process_kept(|k| k.len()), 1);
    let own = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let elsewhere = Transport::new(&config).unwrap();
    for _ in 0..2 {
        let body = own.block_on(elsewhere.send(&Request::get("/x"))).unwrap();
        assert_eq!(&body[..], b"{}");
    }
    assert_eq!(elsewhere.clients.process_kept(|k| k.len()), 0);
    assert_eq!(
        connections.load(Ordering::SeqCst),
        3,
        "one per call on its runtime"
    );
    assert_eq!(
        elsewhere.clients.gates.of(&elsewhere.target.origin).open(),
        0
    );
}

/// Every failure of a lane's exchange is typed and worded (the fault matrix of
/// tests/client/test_faults.py checks the binding's side).
#[test]
fn a_lanes_failures_are_typed_and_worded() {
    let rt = crate::runtime::get();
    let on_lane = |script: Vec<Reply>, tune: &dyn Fn(&mut Config)| {
        let server = rt.block_on(start(script));
        let mut c = config(&server.url);
        c.retries = 0;
        tune(&mut c);
        let t = Transport::new(&c).unwrap();
        crate::runtime::block_on_here(t.send(&Request::get("/x"))).unwrap_err()
    };
    let cut = on_lane(
        vec![Reply::Raw(
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"uuid\":",
        )],
        &|_| {},
    );
    assert!(matches!(cut, Error::Connect { .. }), "{cut:?}");
    assert!(
        cut.to_string().contains("closed before the whole body"),
        "{cut}"
    );
    assert!(cut.to_string().contains("use an https:// URL"), "{cut}");
    let garbage = on_lane(vec![Reply::Raw("\u{0}this is not HTTP\r\n\r\n")], &|_| {});
    assert!(matches!(garbage, Error::Connect { .. }), "{garbage:?}");
    assert!(garbage.to_string().contains("invalid HTTP"), "{garbage}");
    let big = on_lane(vec![Reply::Status(200, "[1,2,3,4,5,6,7,8,9]")], &|c| {
        c.max_body = 8
    });
    assert!(big.to_string().contains("max_body (8 bytes)"), "{big}");
    let moved = on_lane(
        vec![Reply::Raw(
            "HTTP/1.1 301 Moved\r\nLocation: https://h:1/api/0/x\r\nContent-Length: 0\r\n\r\n",
        )],
        &|_| {},
    );
    assert_eq!(moved.status(), Some(301));
    assert!(
        moved.to_string().contains("Location: https://h:1/api/0/x"),
        "{moved}"
    );
    let slow = on_lane(vec![Reply::Slow(Duration::from_secs(5), 200, "{}")], &|c| {
        c.timeout = Duration::from_millis(300)
    });
    assert!(matches!(slow, Error::Timeout { .. }), "{slow:?}");
    assert!(slow.to_string().contains("0.300s"), "{slow}");

    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let t = Transport::new(&config(&format!("127.0.0.1:{port}"))).unwrap();
    let refused = crate::runtime::block_on_here(t.send(&Request::get("/x"))).unwrap_err();
    assert!(matches!(refused, Error::Connect { .. }), "{refused:?}");
    let msg = refused.to_string();
    assert!(
        msg.contains("refused") && msg.contains("is the application running"),
        "{msg}"
    );
}

#[test]
fn an_echoed_key_is_scrubbed_from_what_errors_keep() {
    let t = Target::new("h:1", Some("s3cret-key")).unwrap();
    assert_eq!(
        &*t.scrub(b"Bearer s3cret-key, s3cret-key!"),
        b"Bearer ***, ***!"
    );
    assert!(matches!(t.scrub(b"nothing here"), Cow::Borrowed(_)));
    // Past what an error keeps, nothing is searched or kept.
    let long = [vec![b'x'; 5000], b"s3cret-key".to_vec()].concat();
    assert!(matches!(t.scrub(&long), Cow::Borrowed(_)));
    let early = [b"s3cret-key".to_vec(), vec![b'x'; 5000]].concat();
    assert_eq!(&t.scrub(&early)[..4], b"***x");
    let e = Error::api(
        500,
        "GET",
        "u",
        &t.scrub(b"<pre>Authorization: Bearer s3cret-key</pre>"),
    );
    assert!(!e.to_string().contains("s3cret-key"), "{e}");
    let none = Target::new("h:1", None).unwrap();
    assert!(matches!(none.scrub(b"s3cret-key"), Cow::Borrowed(_)));
    // A JSON body's numbers and words stay, whatever the key.
    let one = Target::new("h:1", Some("1")).unwrap();
    assert!(matches!(
        one.scrub_all(br#"{"opacity":1}"#),
        Cow::Borrowed(_)
    ));
}

#[test]
fn query_is_encoded() {
    let r = Request::post("/skip/layer/0")
        .query("forwards", "true")
        .query("offset", "1.5");
    assert_eq!(r.path_and_query(), "/skip/layer/0?forwards=true&offset=1.5");
}

use super::test_server::{start, Reply};

async fn send(config: &Config, req: Request) -> Result<Bytes> {
    Transport::new(config).unwrap().send(&req).await
}

fn config(url: &str) -> Config {
    let mut c = Config::new(url);
    c.timeout = Duration::from_secs(2);
    c.backoff = Duration::from_millis(10);
    c
}

#[tokio::test]
async fn get_is_retried_on_503_and_succeeds() {
    let server = start(vec![
        Reply::Status(503, ""),
        Reply::Status(503, "busy"),
        Reply::Status(200, "{}"),
    ])
    .await;
    let t = Transport::new(&config(&server.url)).unwrap();
    let body = t.send(&Request::get("/data/scores")).await.unwrap();
    assert_eq!(&body[..], b"{}");
    let seen = server.seen();
    assert_eq!(seen.len(), 3);
    assert!(seen
        .iter()
        .all(|r| r.method == "GET" && r.target == "/api/0/data/scores"));
}

#[tokio::test]
async fn get_gives_up_after_the_retries() {
    let server = start(vec![Reply::Status(500, "oops")]).await;
    let mut c = config(&server.url);
    c.retries = 1;
    let err = send(&c, Request::get("/x")).await.unwrap_err();
    assert_eq!(err.status(), Some(500));
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn post_is_not_retried() {
    let server = start(vec![Reply::Status(503, ""), Reply::Status(200, "")]).await;
    let t = Transport::new(&config(&server.url)).unwrap();
    let err = t
        .send(&Request::post("/clear/workspace"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(503));
    match &err {
        Error::Api { method, url, .. } => {
            assert_eq!(method, "POST");
            assert_eq!(url, &format!("{}/api/0/clear/workspace", server.url));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn post_is_retried_with_retry_commands() {
    let server = start(vec![Reply::Status(503, ""), Reply::Status(200, "")]).await;
    let mut c = config(&server.url);
    c.retry_commands = true;
    let body = send(&c, Request::post("/clear/workspace")).await.unwrap();
    assert!(body.is_empty());
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    for status in [400, 401, 403, 404, 405, 502] {
        let server = start(vec![Reply::Status(status, "")]).await;
        let err = send(&config(&server.url), Request::get("/x"))
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(status));
        assert_eq!(server.seen().len(), 1, "{status}");
    }
}

#[tokio::test]
async fn key_travels_as_a_bearer_header_only_when_given() {
    let server = start(vec![Reply::Status(200, "{}")]).await;
    let mut c = config(&server.url);
    c.api_key = Some("s3cret".into());
    send(&c, Request::get("/x")).await.unwrap();
    send(&config(&server.url), Request::get("/x"))
        .await
        .unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].header("authorization"), Some("Bearer s3cret"));
    assert_eq!(seen[1].header("authorization"), None);
    assert!(seen[0]
        .header("user-agent")
        .unwrap()
        .starts_with("showctl/"));
}

#[tokio::test]
async fn json_body_is_sent_with_its_content_type() {
    let server = start(vec![Reply::Status(200, "")]).await;
    let req = Request::post("/opacity/layer/0")
        .query("target", "true")
        .json(&serde_json::json!({"value": 0.5}));
    send(&config(&server.url), req).await.unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].target, "/api/0/opacity/layer/0?target=true");
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(seen[0].body, br#"{"value":0.5}"#);
}

#[tokio::test]
async fn a_slow_answer_times_out_within_the_timeout() {
    let server = start(vec![Reply::Slow(Duration::from_secs(5), 200, "{}")]).await;
    let mut c = config(&server.url);
    c.timeout = Duration::from_millis(300);
    c.retries = 0;
    let started = Instant::now();
    let err = send(&c, Request::get("/x")).await.unwrap_err();
    let took = started.elapsed();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
    assert!(err.to_string().contains("0.300s"), "{err}");
    assert!(took < Duration::from_millis(1000), "{took:?}");
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error_with_a_hint() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut c = config(&format!("127.0.0.1:{port}"));
    c.retries = 1;
    let err = send(&c, Request::get("/x")).await.unwrap_err();
    assert!(matches!(err, Error::Connect { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("refused"), "{msg}");
    assert!(msg.contains("is the application running"), "{msg}");
}

#[tokio::test]
async fn a_body_cut_short_is_a_connect_error() {
    let server = start(vec![Reply::Raw(
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"uuid\":",
    )])
    .await;
    let mut c = config(&server.url);
    c.retries = 0;
    let err = send(&c, Request::get("/x")).await.unwrap_err();
    assert!(matches!(err, Error::Connect { .. }), "{err:?}");
}

#[tokio::test]
async fn https_on_a_plain_http_port_says_use_http() {
    // A plain HTTP server answers the TLS hello with an HTTP error, as the application's
    // own server does.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let reply = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
            let _ = tokio::io::AsyncWriteExt::write_all(&mut stream, reply).await;
        }
    });
    let mut c = config(&origin.replacen("http://", "https://", 1));
    c.retries = 0;
    let err = send(&c, Request::get("/x")).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Connect { .. }), "{err:?}");
    assert!(
        msg.contains(&format!("the application speaks plain HTTP: use {origin}")),
        "{msg}"
    );
    assert!(!msg.contains("corrupt"), "{msg}");
}

#[tokio::test]
async fn a_401_says_whether_a_key_was_sent() {
    let server = start(vec![Reply::Status(401, "")]).await;
    let mut c = config(&server.url);
    let none = send(&c, Request::get("/x")).await.unwrap_err().to_string();
    assert!(
        none.contains("no API key was sent; pass api_key=\"KEY\""),
        "{none}"
    );
    c.api_key = Some("k3y".into());
    let sent = send(&c, Request::get("/x")).await.unwrap_err().to_string();
    assert!(sent.contains("the API key sent was refused"), "{sent}");
    assert!(!sent.contains("k3y"), "{sent}");
}

#[tokio::test]
async fn a_body_larger_than_max_body_is_refused() {
    let server = start(vec![Reply::Status(200, "[1,2,3,4,5,6,7,8,9]")]).await;
    let mut c = config(&server.url);
    c.max_body = 8;
    let err = send(&c, Request::get("/x")).await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("max_body (8 bytes)"), "{err}");
}

#[tokio::test]
async fn redirects_are_reported_not_followed() {
    let server = start(vec![Reply::Raw(
        "HTTP/1.1 301 Moved\r\nLocation: https://h:1/api/0/x\r\nContent-Length: 0\r\n\r\n",
    )])
    .await;
    let err = send(&config(&server.url), Request::get("/x"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(301));
    let msg = err.to_string();
    assert!(msg.contains("Location: https://h:1/api/0/x"), "{msg}");
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn a_closed_transport_sends_nothing() {
    let server = start(vec![Reply::Status(200, "{}")]).await;
    let t = Transport::new(&config(&server.url)).unwrap();
    t.close();
    assert!(t.is_closed());
    let err = t.send(&Request::get("/x")).await.unwrap_err();
    assert!(matches!(err, Error::Closed));
    assert!(server.seen().is_empty());
}

#[test]
fn control_characters_are_refused_even_at_the_ends() {
    for bad in ["http://h:1\n", "\r\nhttp://h:1", "h:1\t"] {
        let e = normalize_base(bad).unwrap_err().to_string();
        assert!(e.contains("CR, LF"), "{bad:?}: {e}");
    }
    assert_eq!(normalize_base("  h:1  ").unwrap(), "http://h:1/api/0");
    assert!(auth_header(" key").is_err());
    assert!(auth_header("key ").is_err());
    assert!(auth_header("").is_err());
}

#[test]
fn debug_never_shows_the_key() {
    let mut c = Config::new("h:1");
    c.api_key = Some("s3cret".into());
    assert!(!format!("{c:?}").contains("s3cret"));
    let t = Transport::new(&c).unwrap();
    assert!(!format!("{t:?}").contains("s3cret"));
    assert!(!format!("{:?}", t.target()).contains("s3cret"));
    assert!(t.target().auth.is_some());
}

#[test]
fn methods_parse() {
    assert_eq!(Method::parse("get").unwrap(), Method::Get);
    assert_eq!(Method::parse("POST").unwrap(), Method::Post);
    assert!(Method::parse("DELETE")
        .unwrap_err()
        .to_string()
        .contains("GET and POST"));
}

#[test]
fn zero_timeout_is_refused() {
    let mut c = Config::new("h:1");
    c.timeout = Duration::ZERO;
    assert!(Transport::new(&c).is_err());
}

#[test]
fn ca_cert_must_be_a_readable_pem() {
    let mut c = Config::new("https://h:1");
    c.ca_cert = Some("/nonexistent/ca.pem".into());
    let e = Transport::new(&c).unwrap_err().to_string();
    assert!(e.starts_with("ca_cert: cannot read"), "{e}");
    let dir = std::env::temp_dir().join(format!("showctl-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("not.pem");
    std::fs::write(&path, "hello").unwrap();
    c.ca_cert = Some(path);
    let e = Transport::new(&c).unwrap_err().to_string();
    assert!(e.starts_with("ca_cert:"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}
