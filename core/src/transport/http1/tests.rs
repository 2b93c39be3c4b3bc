use super::*;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::net::TcpListener;

#[test]
fn plain_targets_are_read_from_the_base() {
    let p = Address::of("http://h:1/api/0").unwrap();
    assert_eq!(
        (
            p.authority.as_str(),
            p.host.as_str(),
            p.port,
            p.target_of("http://h:1/api/0/x?y=1")
        ),
        ("h:1", "h", 1, "/api/0/x?y=1")
    );
    let p = Address::of("http://h/x/api/0").unwrap();
    assert_eq!(
        (
            p.authority.as_str(),
            p.port,
            p.target_of("http://h/x/api/0/y")
        ),
        ("h", 80, "/x/api/0/y")
    );
    let p = Address::of("http://[::1]:9/api/0").unwrap();
    assert_eq!(
        (p.authority.as_str(), p.host.as_str(), p.port),
        ("[::1]:9", "::1", 9)
    );
    let p = Address::of("http://[::1]/api/0").unwrap();
    assert_eq!((p.host.as_str(), p.port), ("::1", 80));
    let p = Address::of("https://h/api/0").unwrap();
    assert_eq!(
        (
            p.host.as_str(),
            p.port,
            p.tls,
            p.target_of("https://h/api/0/x")
        ),
        ("h", 443, true, "/api/0/x")
    );
    assert_eq!(Address::of("ftp://h/api/0"), None);
}

#[test]
fn only_targets_reqwest_would_send_unchanged_go_as_they_are() {
    for ok in [
        "/opacity/layer/0",
        "/skip/layer/0?forwards=true&offset=1.5",
        "/trigger/cue/Intro%20%C3%89cran",
        "/cue/..x/a.b",
        "/cue/.../x",
        "/cue/%2e%2e%2e",
    ] {
        assert!(sent_as_is(ok), "{ok}");
    }
    for other in [
        "/a b",
        "/cue/..",
        "/cue/./x",
        "/cue/%2E%2e/x",
        "/cue/.%2e",
        "/cue/%2e",
        "/a\r\nX: y",
        "/é",
        "/a#b",
    ] {
        assert!(!sent_as_is(other), "{other:?}");
    }
}

fn head(raw: &[u8]) -> Head {
    parse_head(raw).ok().flatten().expect("a complete head")
}

#[test]
fn a_head_says_how_its_body_ends_and_whether_the_connection_stays() {
    let h = head(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
    assert_eq!(
        (h.status, h.framing, h.keep_alive),
        (200, Framing::Length(5), true)
    );
    assert_eq!(h.len, 38);
    let h = head(b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, Chunked\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::Chunked, true));
    // Chunked before another coding, or a length beside the coding: read to the end.
    let h = head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::Close, false));
    let h = head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::Chunked, false));
    let h = head(b"HTTP/1.1 200 OK\r\n\r\n");
    assert_eq!((h.framing, h.keep_alive), (Framing::Close, false));
    let h = head(b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n");
    assert!(!h.keep_alive);
    let h = head(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n");
    assert!(!h.keep_alive);
    for status in [204, 304] {
        let raw = format!("HTTP/1.1 {status} X\r\nContent-Length: 9\r\n\r\n");
        assert_eq!(head(raw.as_bytes()).framing, Framing::Empty);
    }
    let h = head(b"HTTP/1.1 301 Moved\nLocation: /x\nContent-Length: 0\n\n");
    assert_eq!((h.status, h.location.as_deref()), (301, Some(&b"/x"[..])));
}

#[test]
fn a_head_that_is_incomplete_waits_and_a_broken_one_is_refused() {
    assert!(matches!(
        parse_head(b"HTTP/1.1 200 OK\r\nContent-"),
        Ok(None)
    ));
    assert!(matches!(parse_head(b""), Ok(None)));
    let invalid = |raw: &[u8]| match parse_head(raw) {
        Err(Failure::Invalid(what)) => what,
        other => panic!("{:?}", other.map(|h| h.map(|h| h.status))),
    };
    assert!(invalid(b"\x00\xffthis is not HTTP\r\n\r\n").contains("invalid HTTP version"));
    let twice = b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n";
    assert!(invalid(twice).contains("conflicting"));
    assert!(invalid(b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n").contains("Content-Length"));
    let mut endless = b"HTTP/1.1 200 OK\r\n".to_vec();
    let pad = format!("X-Pad: {}\r\n", "0".repeat(4000));
    while endless.len() <= MAX_HEAD {
        endless.extend_from_slice(pad.as_bytes());
    }
    assert!(invalid(&endless).contains("larger than"));
}

/// What the scripted server does with a request.
#[derive(Clone, Copy)]
enum Then {
    /// Answer these bytes and keep the connection.
    Answer(&'static [u8]),
    /// Answer these bytes and close.
    AnswerAndClose(&'static [u8]),
    /// Close without answering.
    Close,
}
use Then::{Answer as Reply, AnswerAndClose, Close};

/// A server whose every connection reads a request head (and its `Content-Length` body) and
/// does the next step of the script with it (the last step repeats).
struct Scripted {
    address: Address,
    connections: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<Vec<u8>>>>,
}

async fn scripted(replies: Vec<Then>) -> Scripted {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let script = Arc::new(Mutex::new(replies));
    let (count, seen) = (connections.clone(), requests.clone());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let (seen, script) = (seen.clone(), script.clone());
            tokio::spawn(async move {
                let mut buf = Vec::new();
                loop {
                    let end = loop {
                        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&buf[..p]).to_lowercase();
                            let len: usize = head
                                .split("content-length: ")
                                .nth(1)
                                .and_then(|v| v.split("\r\n").next())
                                .map_or(0, |v| v.parse().unwrap());
                            if buf.len() >= p + 4 + len {
                                break p + 4 + len;
                            }
                        }
                        let mut chunk = [0u8; 4096];
                        match stream.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    };
                    seen.lock().unwrap().push(buf.drain(..end).collect());
                    let reply = {
                        let mut s = script.lock().unwrap();
                        if s.len() > 1 {
                            s.remove(0)
                        } else {
                            s[0]
                        }
                    };
                    match reply {
                        Reply(bytes) => {
                            if stream.write_all(bytes).await.is_err() {
                                return;
                            }
                        }
                        AnswerAndClose(bytes) => {
                            let _ = stream.write_all(bytes).await;
                            return;
                        }
                        Close => return,
                    }
                }
            });
        }
    });
    Scripted {
        address: Address::of(&format!("http://{addr}/api/0")).unwrap(),
        connections,
        requests,
    }
}

const LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

const CAPS: Caps = Caps {
    success: 1 << 20,
    other: 1 << 20,
};

fn get<'a>(target: &'a str, authority: &'a str) -> Outgoing<'a> {
    Outgoing {
        method: "GET",
        target,
        authority,
        auth: None,
        body: None,
    }
}

/// One exchange on a new connection to the scripted server.
async fn once(server: &Scripted, caps: Caps) -> Result<(Answer, Option<Conn>), Failure> {
    let conn = connect(&server.address, None, LIMIT)
        .await
        .map_err(|_| Failure::Invalid("connect".into()))?;
    conn.exchange(&get("/api/0/x", &server.address.authority), caps)
        .await
}

#[tokio::test]
async fn the_request_is_written_as_reqwest_wrote_it() {
    let server = scripted(vec![Reply(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")]).await;
    let authority = server.address.authority.clone();
    let conn = connect(&server.address, None, LIMIT).await.unwrap();
    let post = Outgoing {
        method: "POST",
        target: "/api/0/opacity/layer/0",
        authority: &authority,
        auth: Some(b"Bearer k"),
        body: Some(br#"{"value":0.25}"#),
    };
    let (_, conn) = conn.exchange(&post, CAPS).await.unwrap();
    let get = get("/api/0/opacity/layer/0", &authority);
    conn.unwrap().exchange(&get, CAPS).await.unwrap();
    let seen = server.requests.lock().unwrap().clone();
    // The bytes reqwest 0.13 wrote for these two requests (captured on the wire).
    let agent = super::super::USER_AGENT_VALUE;
    let expected_post = format!(
        "POST /api/0/opacity/layer/0 HTTP/1.1\r\nauthorization: Bearer k\r\n\
         content-type: application/json\r\naccept: */*\r\nuser-agent: {agent}\r\n\
         host: {authority}\r\ncontent-length: 14\r\n\r\n{{\"value\":0.25}}"
    );
    let expected_get = format!(
        "GET /api/0/opacity/layer/0 HTTP/1.1\r\naccept: */*\r\nuser-agent: {agent}\r\n\
         host: {authority}\r\n\r\n"
    );
    assert_eq!(String::from_utf8_lossy(&seen[0]), expected_post);
    assert_eq!(String::from_utf8_lossy(&seen[1]), expected_get);
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn chunks_extensions_trailers_and_informational_answers_are_read() {
    let server = scripted(vec![Reply(
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
          4;ext=1\r\n{\"va\r\n9\r\nlue\": 0.5\r\n1\r\n}\r\n0\r\nX-Trailer: t\r\n\r\n",
    )])
    .await;
    let (answer, again) = once(&server, CAPS).await.unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body, br#"{"value": 0.5}"#);
    assert!(
        again.is_some(),
        "a chunked answer leaves the connection usable"
    );
}

#[tokio::test]
async fn a_connection_is_kept_only_when_the_answer_ended_cleanly() {
    for (reply, kept) in [
        (&b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"[..], true),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
            false,
        ),
        // Bytes after the answer: the next answer could not be told from them.
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1",
            false,
        ),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", false),
    ] {
        let server = scripted(vec![Reply(reply)]).await;
        let (answer, again) = once(&server, CAPS).await.unwrap();
        assert_eq!(answer.body, b"{}");
        assert_eq!(again.is_some(), kept, "{}", String::from_utf8_lossy(reply));
    }
    // Without a length, the body ends with the connection.
    let server = scripted(vec![AnswerAndClose(b"HTTP/1.1 200 OK\r\n\r\n{\"a\": 1}")]).await;
    let (answer, again) = once(&server, CAPS).await.unwrap();
    assert_eq!(
        (answer.body.as_slice(), again.is_none()),
        (&br#"{"a": 1}"#[..], true)
    );
}

#[tokio::test]
async fn a_large_body_read_past_the_buffer_leaves_the_connection_usable() {
    let body = "x".repeat(300_000);
    let reply = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let reply: &'static [u8] = Box::leak(reply.into_bytes().into_boxed_slice());
    let server = scripted(vec![Reply(reply)]).await;
    let authority = server.address.authority.clone();
    let (answer, again) = once(&server, CAPS).await.unwrap();
    assert_eq!(answer.body, body.as_bytes());
    let conn = again.expect("the answer ended cleanly");
    assert!(
        conn.buf.capacity() <= KEEP_BUFFER,
        "the body was not kept in the buffer"
    );
    let (answer, again) = conn
        .exchange(&get("/api/0/x", &authority), CAPS)
        .await
        .unwrap();
    assert_eq!((answer.body.len(), again.is_some()), (body.len(), true));
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn bodies_over_the_cap_are_refused_without_being_read_whole() {
    let small = Caps {
        success: 4,
        other: 100,
    };
    let announced = scripted(vec![Reply(
        b"HTTP/1.1 200 OK\r\nContent-Length: 50000000\r\n\r\n",
    )]);
    assert!(matches!(
        once(&announced.await, small).await,
        Err(Failure::TooLarge { status: 200 })
    ));
    let chunked = scripted(vec![Reply(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\n",
    )]);
    assert!(matches!(
        once(&chunked.await, small).await,
        Err(Failure::TooLarge { status: 200 })
    ));
    let streamed = scripted(vec![AnswerAndClose(b"HTTP/1.1 200 OK\r\n\r\n0123456789")]);
    assert!(matches!(
        once(&streamed.await, small).await,
        Err(Failure::TooLarge { status: 200 })
    ));
    // An error page has its own cap.
    let page = scripted(vec![Reply(
        b"HTTP/1.1 500 Oops\r\nContent-Length: 10\r\n\r\n0123456789",
    )]);
    let (answer, _) = once(&page.await, small).await.unwrap();
    assert_eq!((answer.status, answer.body.len()), (500, 10));
}

#[tokio::test]
async fn an_answer_cut_short_is_a_closed_connection() {
    for (cut, received) in [
        (
            &b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"uuid\":"[..],
            46,
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Le", 27),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            4,
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n",
            0,
        ),
    ] {
        let server = scripted(vec![AnswerAndClose(cut)]).await;
        match once(&server, CAPS).await {
            Err(Failure::Closed { received: r, .. }) => {
                assert!(
                    r >= received,
                    "{r} < {received}: {}",
                    String::from_utf8_lossy(cut)
                )
            }
            other => panic!("{}: {:?}", String::from_utf8_lossy(cut), other.map(|a| a.0)),
        }
    }
    let server = scripted(vec![Close]).await;
    assert!(matches!(
        once(&server, CAPS).await,
        Err(Failure::Closed { received: 0, .. })
    ));
}

#[tokio::test]
async fn a_kept_connection_closed_by_the_server_is_not_used_again() {
    let server = scripted(vec![
        Reply(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
        AnswerAndClose(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
    ])
    .await;
    let authority = server.address.authority.clone();
    let mut kept = Kept::for_lane();
    let gate = super::super::gate::Gates::new(64).of(&authority);
    let (_, conn) = once(&server, CAPS).await.unwrap();
    kept.put(&authority, conn.unwrap(), gate.acquire().await, &gate);
    let (conn, lease) = kept
        .take(&authority)
        .expect("an open connection is used again");
    // The second answer is followed by the server's close: once it has arrived, the kept
    // connection is not handed out.
    let (_, conn) = conn
        .exchange(&get("/api/0/x", &authority), CAPS)
        .await
        .unwrap();
    let conn = conn.expect("the answer itself left the connection usable");
    conn.stream.tcp().readable().await.unwrap();
    kept.put(&authority, conn, lease, &gate);
    assert!(kept.take(&authority).is_none());
    assert!(kept.idle.is_empty());
}

#[tokio::test]
async fn a_connection_idle_too_long_is_not_used_again() {
    let server = scripted(vec![Reply(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")]).await;
    let authority = server.address.authority.clone();
    let mut kept = Kept::for_lane();
    let gate = super::super::gate::Gates::new(64).of(&authority);
    for _ in 0..KEEP_PER_AUTHORITY + 2 {
        let (_, conn) = once(&server, CAPS).await.unwrap();
        kept.put(&authority, conn.unwrap(), gate.acquire().await, &gate);
    }
    assert_eq!(
        gate.open(),
        KEEP_PER_AUTHORITY,
        "a connection not kept gives its permit back"
    );
    assert_eq!(
        kept.idle.len(),
        KEEP_PER_AUTHORITY,
        "at most this many are kept"
    );
    assert!(kept.take("elsewhere:80").is_none());
    for conn in kept.idle.iter_mut().filter_map(|k| k.conn.as_mut()) {
        conn.idle_since -= IDLE_LIMIT + Duration::from_secs(1);
    }
    assert!(kept.take(&authority).is_none());
}

#[test]
fn addresses_are_tried_families_interleaved_from_the_first_ones() {
    let a = |s: &str| s.parse::<std::net::SocketAddr>().unwrap();
    let (v6a, v6b, v4a, v4b) = (
        a("[::1]:1"),
        a("[::2]:1"),
        a("127.0.0.1:1"),
        a("127.0.0.2:1"),
    );
    assert_eq!(
        stream::interleave(vec![v6a, v6b, v4a, v4b]),
        vec![v6a, v4a, v6b, v4b]
    );
    assert_eq!(
        stream::interleave(vec![v4a, v6a, v6b, v4b]),
        vec![v4a, v6a, v4b, v6b]
    );
    assert_eq!(stream::interleave(vec![v4b, v4a]), vec![v4b, v4a]);
    assert!(stream::interleave(Vec::new()).is_empty());
}
