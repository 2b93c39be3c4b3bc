//! One set of rules for `http://` and `https://`: every behaviour of the transport here runs
//! against the same scripted server twice, over plain TCP and wrapped in TLS (a certificate
//! made for the test, pinned by the client), and each test fails when the two runs end
//! differently (answers, error type, status, delivery, message, connections opened, requests
//! the server read), before checking what the outcome is.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

use super::{Config, Request, Transport};
use crate::error::{Delivery, Error};
use crate::tls::Fingerprint;

/// What the server does on a connection, in order; the connection is closed after the last
/// step (over TLS with `close_notify`).
#[derive(Clone, Debug)]
enum Step {
    /// Read a request: its head and its `Content-Length` body.
    Read,
    /// Read a request's head only, leaving its body unread.
    ReadHead,
    /// Write these bytes, in pieces of at most this many bytes (each flushed).
    Write(Vec<u8>, usize),
    /// Wait until a request arrives, and close without reading it.
    CloseOnRequest,
    /// Write these bytes and end the session in the same packet, but keep the TCP connection
    /// open until the client closes it: over TLS the answer and `close_notify` in one write,
    /// over plain TCP the answer and a half-close (FIN).
    AnswerAndEnd(Vec<u8>),
}

/// A server's connection: plain TCP or TLS, and how it ends its session alone.
trait Session: AsyncRead + AsyncWrite + Unpin + Send {
    /// Write `bytes` and end the session in the same packet (see [`Step::AnswerAndEnd`]).
    fn answer_and_end(&mut self, bytes: &[u8]) -> impl std::future::Future<Output = bool> + Send;
}

impl Session for tokio::net::TcpStream {
    async fn answer_and_end(&mut self, bytes: &[u8]) -> bool {
        self.write_all(bytes).await.is_ok() && self.shutdown().await.is_ok()
    }
}

impl Session for tokio_rustls::server::TlsStream<tokio::net::TcpStream> {
    async fn answer_and_end(&mut self, bytes: &[u8]) -> bool {
        let session = self.get_mut().1;
        if std::io::Write::write_all(&mut session.writer(), bytes).is_err() {
            return false;
        }
        session.send_close_notify();
        self.flush().await.is_ok()
    }
}

fn answer(raw: &str) -> Step {
    Step::Write(raw.as_bytes().to_vec(), usize::MAX)
}

const OK: &str = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
const OK_CLOSE: &str = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";

/// A certificate for 127.0.0.1 and its key, made once per test process.
fn identity() -> &'static (Arc<rustls::ServerConfig>, Fingerprint) {
    static MADE: std::sync::OnceLock<(Arc<rustls::ServerConfig>, Fingerprint)> =
        std::sync::OnceLock::new();
    MADE.get_or_init(|| {
        let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
        let der = made.cert.der().clone();
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(made.signing_key.serialize_der().into());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![der.clone()], key)
            .unwrap();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        (Arc::new(config), Fingerprint::of(&der))
    })
}

/// A scripted server: connection `i` follows `scripts[i]` (the last script repeats).
struct Server {
    url: String,
    connections: Arc<AtomicUsize>,
    requests: Arc<AtomicUsize>,
    closed: Mutex<mpsc::Receiver<()>>,
}

impl Server {
    /// Wait until the server has closed a connection.
    fn wait_closed(&self) {
        let closed = self.closed.lock().unwrap();
        closed.recv_timeout(Duration::from_secs(10)).unwrap();
    }
}

fn start(tls: bool, scripts: Vec<Vec<Step>>) -> Server {
    let rt = crate::runtime::get();
    let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let scheme = if tls { "https" } else { "http" };
    let url = format!("{scheme}://{}", listener.local_addr().unwrap());
    let (connections, requests) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (done, closed) = mpsc::channel();
    let (count, read) = (connections.clone(), requests.clone());
    let scripts = Arc::new(Mutex::new(VecDeque::from(scripts)));
    rt.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let steps = {
                let mut s = scripts.lock().unwrap();
                if s.len() > 1 {
                    s.pop_front().unwrap()
                } else {
                    s[0].clone()
                }
            };
            let (read, done) = (read.clone(), done.clone());
            tokio::spawn(async move {
                if tls {
                    let acceptor = tokio_rustls::TlsAcceptor::from(identity().0.clone());
                    if let Ok(stream) = acceptor.accept(tcp).await {
                        serve(stream, steps, &read).await;
                    }
                } else {
                    serve(tcp, steps, &read).await;
                }
                let _ = done.send(());
            });
        }
    });
    Server {
        url,
        connections,
        requests,
        closed: Mutex::new(closed),
    }
}

async fn serve<S: Session>(mut stream: S, steps: Vec<Step>, read: &AtomicUsize) {
    let mut buf = Vec::new();
    for step in steps {
        let ok = match step {
            Step::Read | Step::ReadHead => {
                let whole = matches!(step, Step::Read);
                let got = read_request(&mut stream, &mut buf, whole).await;
                read.fetch_add(usize::from(got), Ordering::SeqCst);
                got
            }
            Step::Write(bytes, piece) => {
                let mut ok = true;
                for part in bytes.chunks(piece.min(bytes.len()).max(1)) {
                    ok = ok && stream.write_all(part).await.is_ok() && stream.flush().await.is_ok();
                }
                ok
            }
            Step::AnswerAndEnd(bytes) => {
                if stream.answer_and_end(&bytes).await {
                    // Held open, read and ignored, until the client closes it.
                    while matches!(stream.read(&mut [0u8; 512]).await, Ok(n) if n > 0) {}
                }
                return;
            }
            Step::CloseOnRequest => {
                // One byte taken, the rest left unread, and the connection dropped.
                let _ = stream.read(&mut [0u8; 1]).await;
                return;
            }
        };
        if !ok {
            return;
        }
    }
    let _ = stream.shutdown().await;
}

/// Read one request into `buf`: its head, and its body when `whole`; false at the end of the
/// connection.
async fn read_request<S: AsyncRead + Unpin>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    whole: bool,
) -> bool {
    loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..p]).to_ascii_lowercase();
            let len: usize = head
                .split("content-length: ")
                .nth(1)
                .and_then(|v| v.split("\r\n").next())
                .map_or(0, |v| v.parse().unwrap());
            let end = if whole { p + 4 + len } else { p + 4 };
            if buf.len() >= end {
                buf.drain(..end);
                return true;
            }
        }
        let mut chunk = [0u8; 16384];
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// How one call ended, with the client's base URL taken out of messages.
#[derive(Debug, PartialEq)]
enum Outcome {
    Answer(Vec<u8>),
    Failed {
        kind: &'static str,
        status: Option<u16>,
        delivery: Delivery,
        message: String,
    },
}

impl Outcome {
    fn of(result: crate::error::Result<bytes::Bytes>, base: &str) -> Outcome {
        let err = match result {
            Ok(body) => return Outcome::Answer(body.to_vec()),
            Err(e) => e,
        };
        let kind = match &err {
            Error::Api { .. } => "api",
            Error::Connect { .. } => "connect",
            Error::Timeout { .. } => "timeout",
            Error::Decode { .. } => "decode",
            _ => "other",
        };
        let message = err
            .to_string()
            .replace(base, "URL")
            // Said of plain HTTP only: the port may be an HTTPS one.
            .replace(
                " (if the application is set to HTTPS, use an https:// URL)",
                "",
            );
        Outcome::Failed {
            kind,
            status: err.status(),
            delivery: err.delivery(),
            message,
        }
    }

    fn message(&self) -> &str {
        match self {
            Outcome::Answer(_) => "",
            Outcome::Failed { message, .. } => message,
        }
    }
}

/// A run: each call's outcome, the connections the server accepted and the requests it read.
#[derive(Debug, PartialEq)]
struct Run {
    outcomes: Vec<Outcome>,
    connections: usize,
    requests: usize,
}

/// A client of `server` (pinning the test certificate over TLS), no retries unless tuned.
fn client(server: &Server, tune: &dyn Fn(&mut Config)) -> Transport {
    let mut config = Config::new(&server.url);
    config.timeout = Duration::from_secs(3);
    config.retries = 0;
    config.backoff = Duration::from_millis(10);
    if server.url.starts_with("https") {
        config.tls_fingerprint = Some(identity().1);
    }
    tune(&mut config);
    Transport::new(&config).unwrap()
}

/// The calls of `calls` made on the calling thread's lane against a server following
/// `scripts`, over plain TCP and over TLS; fails when the two runs differ.
fn both(
    scripts: Vec<Vec<Step>>,
    tune: &dyn Fn(&mut Config),
    calls: &dyn Fn(&Transport, &Server) -> Vec<crate::error::Result<bytes::Bytes>>,
) -> Run {
    let runs: Vec<Run> = [false, true]
        .into_iter()
        .map(|tls| {
            let server = start(tls, scripts.clone());
            let t = client(&server, tune);
            let results = calls(&t, &server);
            Run {
                outcomes: results
                    .into_iter()
                    .map(|r| Outcome::of(r, t.base_url()))
                    .collect(),
                connections: server.connections.load(Ordering::SeqCst),
                requests: server.requests.load(Ordering::SeqCst),
            }
        })
        .collect();
    assert_eq!(
        runs[0], runs[1],
        "plain TCP (left) and TLS (right) disagree"
    );
    runs.into_iter().next().unwrap()
}

fn get(t: &Transport, path: &str) -> crate::error::Result<bytes::Bytes> {
    crate::runtime::block_on_here(t.send(&Request::get(path)))
}

/// A command without a body, sent on the calling thread's lane.
fn post(t: &Transport, path: &str) -> crate::error::Result<bytes::Bytes> {
    crate::runtime::block_on_here(t.send(&Request::post(path)))
}

/// The outcome of a request answered `{}`.
fn ok() -> Outcome {
    Outcome::Answer(b"{}".to_vec())
}

/// One GET answered by one connection of `steps`.
fn one_get(steps: Vec<Step>) -> Run {
    both(vec![steps], &|_| {}, &|t, _| vec![get(t, "/x")])
}

fn answered(body: &[u8]) -> Run {
    Run {
        outcomes: vec![Outcome::Answer(body.to_vec())],
        connections: 1,
        requests: 1,
    }
}

#[test]
fn bodies_framed_by_length_chunks_or_the_close_are_read_alike() {
    let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
                   3;ext=1\r\n{\"a\r\n4\r\n\":1}\r\n0\r\nX-Trailer: t\r\n\r\n";
    for (raw, body) in [
        (OK, &b"{}"[..]),
        (chunked, b"{\"a\":1}"),
        ("HTTP/1.1 200 OK\r\n\r\n[1,2]", b"[1,2]"),
        ("HTTP/1.0 200 OK\r\n\r\n[3]", b"[3]"),
    ] {
        for piece in [usize::MAX, 1] {
            let steps = vec![Step::Read, Step::Write(raw.as_bytes().to_vec(), piece)];
            assert_eq!(
                one_get(steps),
                answered(body),
                "{raw:?} in pieces of {piece}"
            );
        }
    }
}

#[test]
fn informational_answers_are_skipped() {
    let raw =
        format!("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n{OK}");
    assert_eq!(one_get(vec![Step::Read, answer(&raw)]), answered(b"{}"));
}

/// An answer with `n` headers (the last its `Content-Length`).
fn with_headers(n: usize) -> String {
    let mut raw = "HTTP/1.1 200 OK\r\n".to_string();
    for i in 1..n {
        raw.push_str(&format!("X-H{i}: v\r\n"));
    }
    raw + "Content-Length: 2\r\n\r\n{}"
}

#[test]
fn an_answer_with_up_to_100_headers_is_read() {
    assert_eq!(
        one_get(vec![Step::Read, answer(&with_headers(100))]),
        answered(b"{}")
    );
    let run = one_get(vec![Step::Read, answer(&with_headers(101))]);
    let failed = &run.outcomes[0];
    assert!(
        failed.message().contains("more than 100 headers"),
        "{failed:?}"
    );
    // Its status line came: the application answered, and the answer is refused.
    assert!(matches!(
        failed,
        Outcome::Failed {
            kind: "decode",
            delivery: Delivery::Answered,
            ..
        }
    ));
}

#[test]
fn content_length_lists_are_read_as_that_many_headers() {
    let body = "{\"a\":\"12345\"}";
    for head in [
        "Content-Length: 13, 13",
        "Content-Length: 13\r\nContent-Length: 13",
    ] {
        let raw = format!("HTTP/1.1 200 OK\r\n{head}\r\n\r\n{body}");
        assert_eq!(
            one_get(vec![Step::Read, answer(&raw)]),
            answered(body.as_bytes()),
            "{head}"
        );
    }
    for head in [
        "Content-Length: 13, 14",
        "Content-Length: 13\r\nContent-Length: 13, 12",
        "Content-Length: 13,",
        "Content-Length: +13",
    ] {
        let raw = format!("HTTP/1.1 200 OK\r\n{head}\r\n\r\n{body}");
        let run = one_get(vec![Step::Read, answer(&raw)]);
        let failed = &run.outcomes[0];
        assert!(
            failed.message().contains("Content-Length"),
            "{head}: {failed:?}"
        );
    }
}

/// An answer whose head (status line, headers and the blank line) is `size` bytes.
fn with_head_of(size: usize) -> String {
    let start = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: ";
    let pad = "p".repeat(size - start.len() - "\r\n\r\n".len());
    format!("{start}{pad}\r\n\r\n{{}}")
}

#[test]
fn the_head_limit_holds_however_the_bytes_arrive() {
    let limit = super::http1::MAX_HEAD;
    assert_eq!(limit, 100 * 1024, "curl's and httpx's limit");
    for piece in [usize::MAX, 1000, 7] {
        // A 64 KiB head (a header line that curl, httpx and reqwest read), and the limit.
        for size in [64 * 1024, limit] {
            let fits = Step::Write(with_head_of(size).into_bytes(), piece);
            assert_eq!(
                one_get(vec![Step::Read, fits]),
                answered(b"{}"),
                "{size} in pieces of {piece}"
            );
        }
        let over = Step::Write(with_head_of(limit + 1).into_bytes(), piece);
        let run = one_get(vec![Step::Read, over]);
        // Its status line came: the application answered, and the answer is refused.
        match &run.outcomes[0] {
            Outcome::Failed {
                kind: "decode",
                delivery: Delivery::Answered,
                message,
                ..
            } => assert!(
                message.contains("head is larger than 102400 bytes"),
                "{piece}: {message}"
            ),
            other => panic!("{piece}: {other:?}"),
        }
    }
}

#[test]
fn an_answer_cut_short_after_its_status_line_is_a_broken_connection_answered() {
    for raw in [
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"uuid\":",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"a\"",
        "HTTP/1.1 200 OK\r\nContent-",
    ] {
        let run = one_get(vec![Step::Read, answer(raw)]);
        match &run.outcomes[0] {
            // The status line came: the application acted on the request.
            Outcome::Failed {
                kind: "connect",
                delivery: Delivery::Answered,
                message,
                ..
            } => {
                assert!(message.contains("connection closed"), "{message}")
            }
            other => panic!("{raw:?}: {other:?}"),
        }
    }
}

#[test]
fn an_early_answer_during_a_large_upload_is_that_answer() {
    let refused =
        "HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: 15\r\n\r\n\
                   {\"error\":\"big\"}";
    let body = serde_json::json!({ "data": "x".repeat(16 << 20) });
    let run = both(
        vec![vec![Step::ReadHead, answer(refused)]],
        // Not retried even where commands are.
        &|c| {
            c.retries = 2;
            c.retry_commands = true;
        },
        &|t, _| {
            let req = Request::post("/upload").json(&body);
            vec![crate::runtime::block_on_here(t.send(&req))]
        },
    );
    match &run.outcomes[0] {
        Outcome::Failed {
            kind: "api",
            status: Some(413),
            delivery: Delivery::Answered,
            ..
        } => {}
        other => panic!("{other:?}"),
    }
    assert_eq!((run.connections, run.requests), (1, 1));
}

#[test]
fn a_kept_connection_carries_the_next_calls() {
    let run = both(
        vec![vec![
            Step::Read,
            answer(OK),
            Step::Read,
            answer(OK),
            Step::Read,
            answer(OK),
        ]],
        &|_| {},
        &|t, _| (0..3).map(|_| get(t, "/x")).collect(),
    );
    assert_eq!(run.outcomes, vec![ok(), ok(), ok()]);
    assert_eq!((run.connections, run.requests), (1, 3));
}

/// A kept connection the server closed while it was idle (over TLS: `close_notify`, then the
/// TCP close) is not used: the command goes out once, on a new connection.
#[test]
fn a_connection_closed_while_idle_is_not_used() {
    let run = both(vec![vec![Step::Read, answer(OK)]], &|_| {}, &|t, server| {
        let first = post(t, "/mute");
        server.wait_closed();
        let second = post(t, "/mute");
        vec![first, second]
    });
    assert_eq!(run.outcomes, vec![ok(), ok()]);
    assert_eq!((run.connections, run.requests), (2, 2));
}

/// A session the server ended right after its answer (over TLS `close_notify` in the same
/// packet, taken in with the answer, the TCP connection left open) is not used again.
#[test]
fn a_session_ended_with_the_answer_is_not_used_again() {
    let run = both(
        vec![vec![Step::Read, Step::AnswerAndEnd(OK.as_bytes().to_vec())]],
        &|_| {},
        &|t, _| (0..2).map(|_| get(t, "/x")).collect(),
    );
    assert_eq!(run.outcomes, vec![ok(), ok()]);
    assert_eq!((run.connections, run.requests), (2, 2));
}

#[test]
fn a_redirect_is_refused_with_its_location() {
    let moved = "HTTP/1.1 301 Moved\r\nLocation: https://h:1/api/0/x\r\nContent-Length: 0\r\n\r\n";
    let run = one_get(vec![Step::Read, answer(moved)]);
    match &run.outcomes[0] {
        Outcome::Failed {
            kind: "api",
            status: Some(301),
            delivery: Delivery::Answered,
            message,
        } => {
            assert!(
                message.contains("Location: https://h:1/api/0/x"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(run.connections, 1);
}

/// A command on a kept connection that the server closed when the command arrived, without
/// reading it, is sent once more on a new connection and answered there (the re-send rule of
/// docs/reliability.md).
#[test]
fn a_command_the_server_closed_unread_is_sent_again_once() {
    let run = both(
        vec![
            vec![Step::Read, answer(OK), Step::CloseOnRequest],
            vec![Step::Read, answer(OK)],
        ],
        &|_| {},
        &|t, _| (0..2).map(|_| post(t, "/mute")).collect(),
    );
    assert_eq!(run.outcomes, vec![ok(), ok()]);
    assert_eq!((run.connections, run.requests), (2, 2));
}

/// A name whose first address never accepts (a listener with a full backlog: its SYNs are
/// dropped) connects through the next one, on every call and every retry, well within a
/// timeout that trying the silent address alone would use up.
#[test]
fn a_silent_first_address_does_not_take_the_attempt() {
    let silent = silent_address();
    let busy = "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
    let run = both(
        vec![
            vec![Step::Read, answer(busy)],
            vec![Step::Read, answer(OK_CLOSE)],
        ],
        &|c| {
            c.timeout = Duration::from_millis(1500);
            c.retries = 1;
            let url = url::Url::parse(&c.url).unwrap();
            let port = url.port().unwrap();
            let host = format!("silent-first-{port}.test");
            super::http1::resolve_as(
                &host,
                vec![silent, (std::net::Ipv4Addr::LOCALHOST, port).into()],
            );
            c.url = format!("{}://{host}:{port}", url.scheme());
        },
        &|t, _| (0..3).map(|_| get(t, "/x")).collect(),
    );
    assert_eq!(run.outcomes, vec![ok(), ok(), ok()]);
    // The first call's retry included: a connection per attempt, each through the next address.
    assert_eq!((run.connections, run.requests), (4, 4));
}

/// An address on loopback that never accepts: a listener whose backlog is full, so the kernel
/// drops further SYNs (no answer, no reset).
fn silent_address() -> std::net::SocketAddr {
    use socket2::{Domain, Socket, Type};
    static FULL: std::sync::OnceLock<(Socket, Vec<Socket>, std::net::SocketAddr)> =
        std::sync::OnceLock::new();
    FULL.get_or_init(|| {
        let listener = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
        listener
            .bind(&std::net::SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, 0)).into())
            .unwrap();
        listener.listen(0).unwrap();
        let addr = listener.local_addr().unwrap().as_socket().unwrap();
        let mut fillers = Vec::new();
        // Connections until one is not accepted by the kernel within a moment.
        loop {
            let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
            if s.connect_timeout(&addr.into(), Duration::from_millis(200))
                .is_err()
            {
                break;
            }
            fillers.push(s);
        }
        (listener, fillers, addr)
    })
    .2
}

/// How curl, a client the project did not write, reads the answer of `steps` to a GET on the
/// same scripted server over plain TCP: the body, or its error.
fn by_curl(steps: Vec<Step>) -> Result<Vec<u8>, String> {
    let server = start(false, vec![steps]);
    let out = std::process::Command::new("curl")
        .args(["--silent", "--show-error", "--http1.1", "--max-time", "3"])
        .arg(format!("{}/api/0/x", server.url))
        .output()
        .expect("curl runs (the reference of these tests)");
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The transport reads `steps` as curl does: the same body, or both refuse the answer.
fn as_curl_reads(steps: Vec<Step>) {
    let ours = one_get(steps.clone());
    let reference = by_curl(steps.clone());
    match (&ours.outcomes[0], &reference) {
        (Outcome::Answer(body), Ok(theirs)) => assert_eq!(body, theirs, "{steps:?}"),
        (Outcome::Failed { .. }, Err(_)) => {}
        (ours, theirs) => panic!("showctl {ours:?}, curl {theirs:?}: {steps:?}"),
    }
}

#[test]
fn answers_are_read_as_curl_reads_them() {
    let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
                   3;ext=1\r\n{\"a\r\n4\r\n\":1}\r\n0\r\nX-Trailer: t\r\n\r\n";
    let informational =
        format!("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n{OK}");
    let body = "{\"a\":\"12345\"}";
    let listed = format!("HTTP/1.1 200 OK\r\nContent-Length: 13, 13\r\n\r\n{body}");
    let answers: Vec<String> = vec![
        OK.into(),
        chunked.into(),
        "HTTP/1.1 200 OK\r\n\r\n[1,2]".into(),
        "HTTP/1.0 200 OK\r\n\r\n[3]".into(),
        informational,
        with_headers(100),
        listed,
        // A 64 KiB header line: read by curl, httpx and reqwest.
        with_head_of(64 * 1024),
        // Cut short: in a body of known length, in a chunked body.
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"uuid\":".into(),
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n".into(),
        // Not HTTP at all.
        "\u{0}this is not HTTP\r\n\r\n".into(),
    ];
    for raw in answers {
        for piece in [usize::MAX, 7] {
            as_curl_reads(vec![
                Step::Read,
                Step::Write(raw.clone().into_bytes(), piece),
            ]);
        }
    }
}

/// Where the transport is deliberately stricter than curl, pinned so that each difference is
/// seen: curl reads a body whose `Content-Length` values differ (by the first one), where hyper,
/// like httpx, refuses it (RFC 9110, 8.6: the length is not known, and a proxy in between may
/// frame it otherwise); and curl takes a head cut short by the close as a complete answer with
/// an empty body, where the transport says the connection closed before a complete answer;
/// and curl reads a chunk that ends in a bare LF, where hyper requires CRLF.
#[test]
fn where_curl_is_lenient_the_transport_refuses() {
    for (raw, curl_reads, refusal) in [
        (
            "HTTP/1.1 200 OK\r\nContent-Length: 13, 14\r\n\r\n{\"a\":\"12345\"}",
            &b"{\"a\":\"12345\"}"[..],
            "conflicting Content-Length",
        ),
        (
            "HTTP/1.1 200 OK\r\nContent-",
            b"",
            "connection closed before a complete answer (25 bytes of the answer received)",
        ),
        (
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\n0\r\n\r\n",
            b"abc",
            "invalid HTTP answer",
        ),
    ] {
        let steps = vec![Step::Read, answer(raw)];
        assert_eq!(by_curl(steps.clone()), Ok(curl_reads.to_vec()), "{raw:?}");
        let run = one_get(steps);
        assert!(run.outcomes[0].message().contains(refusal), "{run:?}");
    }
}
