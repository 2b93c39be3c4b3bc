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
    assert_eq!(p.host_header, "h");
    assert_eq!(Address::of("ftp://h/api/0"), None);
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
    /// Answer these bytes, then close when the test says so (see [`Scripted::close_now`]).
    AnswerThenCloseWhenTold(&'static [u8]),
}
use Then::{Answer as Reply, AnswerAndClose, Close};

/// A server whose every connection reads a request head (and its `Content-Length` body) and
/// does the next step of the script with it (the last step repeats).
struct Scripted {
    address: Address,
    connections: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<Vec<u8>>>>,
    /// Told each time the server closed a connection.
    closed: Arc<tokio::sync::Notify>,
    /// Tells a connection waiting in [`Then::AnswerThenCloseWhenTold`] to close.
    close_now: Arc<tokio::sync::Notify>,
}

async fn scripted(replies: Vec<Then>) -> Scripted {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let script = Arc::new(Mutex::new(replies));
    let closed = Arc::new(tokio::sync::Notify::new());
    let close_now = Arc::new(tokio::sync::Notify::new());
    let (count, seen, told) = (connections.clone(), requests.clone(), closed.clone());
    let when = close_now.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let (seen, script, told) = (seen.clone(), script.clone(), told.clone());
            let when = when.clone();
            tokio::spawn(async move {
                // Told once the connection is closed, however the script ends.
                struct Tell(Arc<tokio::sync::Notify>);
                impl Drop for Tell {
                    fn drop(&mut self) {
                        self.0.notify_one();
                    }
                }
                let _tell = Tell(told);
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
                            drop(stream);
                            return;
                        }
                        Close => return,
                        Then::AnswerThenCloseWhenTold(bytes) => {
                            let _ = stream.write_all(bytes).await;
                            when.notified().await;
                            drop(stream);
                            return;
                        }
                    }
                }
            });
        }
    });
    Scripted {
        address: Address::of(&format!("http://{addr}/api/0")).unwrap(),
        connections,
        requests,
        closed,
        close_now,
    }
}

const LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

const CAPS: Caps = Caps {
    success: 1 << 20,
    other: 1 << 20,
};

fn get<'a>(target: &'a str, address: &'a Address) -> Outgoing<'a> {
    Outgoing {
        method: "GET",
        target,
        host: &address.host_header,
        auth: None,
        body: None,
    }
}

/// One exchange of `out` on `conn`.
async fn send(
    conn: Conn,
    out: &Outgoing<'_>,
    caps: Caps,
) -> Result<(Answer, Option<Conn>), Failure> {
    let mut message = Some(out.message().unwrap());
    conn.exchange(&mut message, caps, &Progress::default())
        .await
}

/// One exchange on a new connection to the scripted server.
async fn once(server: &Scripted, caps: Caps) -> Result<(Answer, Option<Conn>), Failure> {
    let conn = connect(&server.address, None, LIMIT)
        .await
        .map_err(|_| Failure::Invalid("connect".into()))?;
    send(conn, &get("/api/0/x", &server.address), caps).await
}

#[tokio::test]
async fn the_request_is_written_header_for_header() {
    let server = scripted(vec![Reply(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")]).await;
    let authority = server.address.authority.clone();
    let conn = connect(&server.address, None, LIMIT).await.unwrap();
    let key = HeaderValue::from_static("Bearer k");
    let post = Outgoing {
        method: "POST",
        target: "/api/0/opacity/layer/0",
        host: &server.address.host_header,
        auth: Some(&key),
        body: Some(br#"{"value":0.25}"#),
    };
    let (_, conn) = send(conn, &post, CAPS).await.unwrap();
    let get = get("/api/0/opacity/layer/0", &server.address);
    send(conn.unwrap(), &get, CAPS).await.unwrap();
    let seen = server.requests.lock().unwrap().clone();
    // The headers the applications have always been sent, in the same order.
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

#[test]
fn a_target_that_cannot_be_sent_is_refused_before_anything_is() {
    let address = Address::of("http://h:1/api/0").unwrap();
    let refused = get("/api/0/a b", &address).message().unwrap_err();
    assert!(refused.contains("cannot be sent"), "{refused}");
    assert!(get("/api/0/cue/%2e%2e/x?y=1", &address).message().is_ok());
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
        (
            b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 2\r\n\r\n{}",
            false,
        ),
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
    let (answer, again) = once(&server, CAPS).await.unwrap();
    assert_eq!(answer.body, body.as_bytes());
    let conn = again.expect("the answer ended cleanly");
    let (answer, again) = send(conn, &get("/api/0/x", &server.address), CAPS)
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
    // Refused as soon as what was read passes the cap (the connection stays open).
    let chunked = scripted(vec![Reply(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n",
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
        // A head and one whole chunk, then the close.
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
            0,
        ),
    ] {
        let _ = received;
        let server = scripted(vec![AnswerAndClose(cut)]).await;
        match once(&server, CAPS).await {
            // Every byte the server sent was received, and is counted.
            Err(Failure::Closed { received: r, .. }) => {
                assert_eq!(r, cut.len(), "{}", String::from_utf8_lossy(cut))
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
        Then::AnswerThenCloseWhenTold(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
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
    let (_, conn) = send(conn, &get("/api/0/x", &server.address), CAPS)
        .await
        .unwrap();
    let conn = conn.expect("the answer itself left the connection usable");
    kept.put(&authority, conn, lease, &gate);
    // The server closes the connection while it is kept: once the close has arrived, it is
    // not handed out.
    server.close_now.notify_one();
    server.closed.notified().await;
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

/// A server that reads one request and never answers; says how its next read of that
/// connection ended: `Ok(())` at the end of the stream, or the error.
async fn reads_and_never_answers() -> (
    Address,
    tokio::sync::oneshot::Receiver<()>,
    tokio::sync::oneshot::Receiver<std::io::Result<()>>,
) {
    use tokio::io::AsyncReadExt;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (read_tx, read_rx) = tokio::sync::oneshot::channel();
    let (end_tx, end_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the request came whole");
            buf.extend_from_slice(&chunk[..n]);
        }
        let _ = read_tx.send(());
        let end = match stream.read(&mut chunk).await {
            Ok(0) => Ok(()),
            Ok(n) => panic!("{n} more bytes"),
            Err(e) => Err(e),
        };
        let _ = end_tx.send(end);
    });
    let address = Address::of(&format!("http://{addr}/api/0")).unwrap();
    (address, read_rx, end_rx)
}

/// How the server saw a connection end: `"reset"` or `"closed"`.
fn ending(end: std::io::Result<()>) -> &'static str {
    match end {
        Ok(()) => "closed",
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => "reset",
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test]
async fn a_request_given_up_resets_its_connection() {
    // A cancelled exchange (the future dropped once the server has read the request).
    let (address, read, end) = reads_and_never_answers().await;
    let conn = connect(&address, None, LIMIT).await.unwrap();
    let exchange = tokio::spawn(async move {
        send(conn, &get("/api/0/x", &address), CAPS)
            .await
            .map(|_| ())
    });
    read.await.unwrap();
    exchange.abort();
    assert!(exchange.await.unwrap_err().is_cancelled());
    assert_eq!(ending(end.await.unwrap()), "reset");
    // Its time running out (the same as a timeout of the transport's attempt).
    let (address, _read, end) = reads_and_never_answers().await;
    let conn = connect(&address, None, LIMIT).await.unwrap();
    let out = get("/api/0/x", &address);
    let timed = tokio::time::timeout(Duration::from_millis(200), send(conn, &out, CAPS)).await;
    assert!(timed.is_err(), "no answer came");
    assert_eq!(ending(end.await.unwrap()), "reset");
}

#[tokio::test]
async fn a_connection_closed_between_requests_is_closed_normally() {
    use tokio::io::AsyncReadExt;
    // Answered in full, then dropped (not kept): a normal close, which the server reads as the
    // end of the stream.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut chunk).await.unwrap();
            buf.extend_from_slice(&chunk[..n]);
        }
        let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        stream.write_all(ok).await.unwrap();
        match stream.read(&mut chunk).await {
            Ok(n) => Ok(n),
            Err(e) => Err(e),
        }
    });
    let address = Address::of(&format!("http://{addr}/api/0")).unwrap();
    let conn = connect(&address, None, LIMIT).await.unwrap();
    let (answer, again) = send(conn, &get("/api/0/x", &address), CAPS).await.unwrap();
    assert_eq!(answer.body, b"{}");
    drop(again.expect("kept"));
    assert_eq!(server.await.unwrap().unwrap(), 0, "the end of the stream");
}
