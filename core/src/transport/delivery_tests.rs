//! The re-send rule, the connection cap and `delivery`, on the lanes and the process runtime
//! (the transport's one exchange), against raw servers on loopback.

use super::*;

use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What a server does on each connection after answering its first request.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    /// Closes it (no `Connection: close` said).
    Close,
    /// Closes it, unread, when the next request arrives.
    CloseUnread,
    /// Reads the next request, then closes without answering.
    ReadAndClose,
    /// Reads the next request and sends half a status line, then closes.
    HalfAnswer,
    /// Reads the next request and sends its status line and part of its body, then closes.
    StatusThenCut,
}

/// A raw server; the bodies of the requests it read, in order.
struct Raw {
    url: String,
    bodies: Arc<Mutex<Vec<String>>>,
}

impl Raw {
    fn bodies(&self) -> Vec<String> {
        self.bodies.lock().unwrap().clone()
    }
}

/// Read one request (head and `Content-Length` body); its body, `None` at the end.
async fn read_one(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
    let len: usize = head
        .split("\r\n")
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while buf.len() < end + len {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(String::from_utf8_lossy(&buf[end..end + len]).into_owned())
}

async fn raw_server(then: Then) -> Raw {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let log = bodies.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let Some(body) = read_one(&mut stream).await else {
                    return;
                };
                log.lock().unwrap().push(body);
                let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
                if stream.write_all(ok).await.is_err() {
                    return;
                }
                match then {
                    Then::Close => {}
                    Then::CloseUnread => {
                        // Closed with the request unread: the client gets a reset.
                        let _ = stream.readable().await;
                    }
                    Then::ReadAndClose | Then::HalfAnswer | Then::StatusThenCut => {
                        if let Some(body) = read_one(&mut stream).await {
                            log.lock().unwrap().push(body);
                            let part: &[u8] = match then {
                                Then::HalfAnswer => b"HTTP/1.1 200 O",
                                Then::StatusThenCut => {
                                    b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{"
                                }
                                _ => b"",
                            };
                            let _ = stream.write_all(part).await;
                        }
                    }
                }
            });
        }
    });
    Raw { url, bodies }
}

fn transport(url: &str, cap: usize) -> Arc<Transport> {
    let mut config = Config::new(url);
    config.timeout = Duration::from_secs(5);
    config.max_connections = cap;
    Arc::new(Transport::new(&config).unwrap())
}

fn command(i: usize) -> Request {
    Request::post("/mute/workspace").json(&serde_json::json!({ "n": i }))
}

/// `count` commands one after the other, on the calling thread's lane or on the process
/// runtime; the errors.
fn commands(t: &Arc<Transport>, count: usize, lane: bool) -> Vec<Error> {
    let rt = crate::runtime::get();
    let mut errors = Vec::new();
    for i in 0..count {
        let result = if lane {
            crate::runtime::block_on_here(t.send(&command(i)))
        } else {
            let t = t.clone();
            rt.block_on(rt.spawn(async move { t.send(&command(i)).await }))
                .unwrap()
        };
        errors.extend(result.err());
    }
    errors
}

fn sent(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("{{\"n\":{i}}}")).collect()
}

#[test]
fn a_command_on_a_kept_connection_closed_unread_is_sent_again_once() {
    let rt = crate::runtime::get();
    for (then, lane) in [Then::Close, Then::CloseUnread]
        .into_iter()
        .flat_map(|then| [(then, true), (then, false)])
    {
        let server = rt.block_on(raw_server(then));
        let t = transport(&server.url, 8);
        let errors = commands(&t, 40, lane);
        let errors: Vec<_> = errors.iter().map(Error::to_string).collect();
        assert_eq!(errors, Vec::<String>::new());
        assert_eq!(server.bodies(), sent(40), "each command read once");
    }
}

#[test]
fn a_request_read_and_left_unanswered_on_a_kept_connection_goes_again() {
    // The residual risk of the rule: the application read it, then closed without answering.
    for lane in [true, false] {
        let server = crate::runtime::get().block_on(raw_server(Then::ReadAndClose));
        let t = transport(&server.url, 8);
        let errors = commands(&t, 2, lane);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(server.bodies(), ["{\"n\":0}", "{\"n\":1}", "{\"n\":1}"]);
    }
}

#[test]
fn a_command_whose_answer_began_is_never_sent_again() {
    let cases = [
        (Then::HalfAnswer, Delivery::SentNoAnswer),
        (Then::StatusThenCut, Delivery::Answered),
    ];
    for ((then, delivery), lane) in cases.into_iter().flat_map(|c| [(c, true), (c, false)]) {
        let server = crate::runtime::get().block_on(raw_server(then));
        let t = transport(&server.url, 8);
        let errors = commands(&t, 2, lane);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(matches!(errors[0], Error::Connect { .. }), "{}", errors[0]);
        assert_eq!(errors[0].delivery(), delivery, "{}", errors[0]);
        assert_eq!(server.bodies(), sent(2));
    }
}

#[test]
fn a_request_read_and_left_unanswered_on_a_new_connection_is_sent_no_answer() {
    let rt = crate::runtime::get();
    // Each connection's first request is read and left unanswered.
    let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let read = Arc::new(AtomicUsize::new(0));
    let count = read.clone();
    rt.spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            if read_one(&mut stream).await.is_some() {
                count.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    let t = transport(&url, 8);
    let mut errors = commands(&t, 1, true);
    errors.extend(commands(&t, 1, false));
    assert_eq!(errors.len(), 2);
    for e in &errors {
        assert!(matches!(e, Error::Connect { .. }), "{e}");
        assert_eq!(e.delivery(), Delivery::SentNoAnswer, "{e}");
    }
    assert_eq!(read.load(Ordering::SeqCst), 2, "each sent once");
}

/// Whether the client closed this connection (end of stream or an error; pending bytes or
/// none yet: open).
fn at_end(stream: &TcpStream) -> bool {
    let mut byte = [std::mem::MaybeUninit::<u8>::uninit(); 1];
    match socket2::SockRef::from(stream).peek(&mut byte) {
        Ok(n) => n == 0,
        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
    }
}

/// A keep-alive server answering each request after `work`, counting the connections open at
/// once (one the client closed is noticed before the next one is counted).
async fn counting_server(work: Duration) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let most = Arc::new(AtomicUsize::new(0));
    let seen = most.clone();
    let open: Arc<Mutex<Vec<Arc<TcpStream>>>> = Arc::default();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let stream = Arc::new(stream);
            {
                let mut open = open.lock().unwrap();
                open.retain(|s| !at_end(s));
                open.push(stream.clone());
                seen.fetch_max(open.len(), Ordering::SeqCst);
            }
            let open = open.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                // Each read is one request: the client sends one at a time, and small.
                while stream.readable().await.is_ok() {
                    match stream.try_read(&mut buf) {
                        Ok(0) => break,
                        Ok(_) => {
                            tokio::time::sleep(work).await;
                            let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
                            if stream.writable().await.is_err() || stream.try_write(ok).is_err() {
                                break;
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                        Err(_) => break,
                    }
                }
                open.lock().unwrap().retain(|s| !Arc::ptr_eq(s, &stream));
            });
        }
    });
    (url, most)
}

#[test]
fn the_cap_holds_across_lanes_and_the_process_runtime() {
    let rt = crate::runtime::get();
    let (url, most) = rt.block_on(counting_server(Duration::from_millis(5)));
    let t = transport(&url, 2);
    let req = Request::get("/ping");
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let (t, req) = (t.clone(), req.clone());
            rt.spawn(async move {
                for _ in 0..5 {
                    t.send(&req).await?;
                }
                Ok::<_, Error>(())
            })
        })
        .collect();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (t, req) = (t.clone(), req.clone());
            std::thread::spawn(move || {
                for _ in 0..5 {
                    crate::runtime::block_on_here(t.send(&req))?;
                }
                Ok::<_, Error>(())
            })
        })
        .collect();
    for task in tasks {
        rt.block_on(task).unwrap().unwrap();
    }
    for thread in threads {
        thread.join().unwrap().unwrap();
    }
    let most = most.load(Ordering::SeqCst);
    assert!(most <= 2 && most > 0, "{most} connections open at once");
}

#[test]
fn a_connection_kept_idle_by_a_lane_does_not_starve_the_runtime() {
    let rt = crate::runtime::get();
    let (url, _) = rt.block_on(counting_server(Duration::ZERO));
    let mut config = Config::new(&url);
    config.timeout = Duration::from_secs(2);
    config.max_connections = 1;
    config.retries = 0;
    let t = Arc::new(Transport::new(&config).unwrap());
    let req = Request::get("/ping");
    // A thread's lane keeps its connection, and the thread stays.
    let (go, wait) = std::sync::mpsc::channel::<()>();
    let (done, kept) = std::sync::mpsc::channel();
    let lane = std::thread::spawn({
        let (t, req) = (t.clone(), req.clone());
        move || {
            done.send(crate::runtime::block_on_here(t.send(&req)))
                .unwrap();
            wait.recv().unwrap();
        }
    });
    kept.recv().unwrap().unwrap();
    let (t2, r2) = (t.clone(), req.clone());
    let result = rt.block_on(rt.spawn(async move { t2.send(&r2).await }));
    go.send(()).unwrap();
    lane.join().unwrap();
    result.unwrap().unwrap();
}

#[test]
fn a_refused_port_is_not_sent() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let t = transport(&format!("http://127.0.0.1:{port}"), 8);
    let e = crate::runtime::block_on_here(t.send(&Request::get("/x"))).unwrap_err();
    assert_eq!(e.delivery(), Delivery::NotSent, "{e}");
}

#[test]
fn a_call_is_as_delivered_as_its_furthest_attempt() {
    let timeout = |delivery| Error::Timeout {
        method: "GET".into(),
        url: "u".into(),
        message: "m".into(),
        delivery,
    };
    let e = timeout(Delivery::NotSent).delivered_at_least(Delivery::SentNoAnswer);
    assert_eq!(e.delivery(), Delivery::SentNoAnswer);
    let e = timeout(Delivery::Answered).delivered_at_least(Delivery::SentNoAnswer);
    assert_eq!(e.delivery(), Delivery::Answered);
}

#[test]
fn a_call_whose_time_runs_out_waiting_for_a_connection_was_never_sent() {
    let rt = crate::runtime::get();
    let server = rt.block_on(raw_server(Then::Close));
    let mut config = Config::new(&server.url);
    config.timeout = Duration::from_millis(200);
    config.max_connections = 1;
    let t = Arc::new(Transport::new(&config).unwrap());
    let gate = t.clients.gates.of(&t.target.origin);
    let held = rt.block_on(gate.acquire());
    let req = Request::get("/x");
    for lane in [true, false] {
        let e = if lane {
            crate::runtime::block_on_here(t.send(&req))
        } else {
            let (t, req) = (t.clone(), req.clone());
            rt.block_on(rt.spawn(async move { t.send(&req).await }))
                .unwrap()
        }
        .unwrap_err();
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
        assert_eq!(e.delivery(), Delivery::NotSent, "{e}");
        let said = "was never sent: it waited 0.200s for a free connection (1 in use, \
                    max_connections=1) (3 attempts of 0.2 s)";
        assert!(e.to_string().contains(said), "{e}");
    }
    assert!(server.bodies().is_empty());
    drop(held.retire());
    crate::runtime::block_on_here(t.send(&req)).unwrap();
    assert_eq!(server.bodies().len(), 1);
}

#[test]
fn a_read_sent_once_then_refused_stays_sent_no_answer() {
    let rt = crate::runtime::get();
    // The first connection's request is read and left unanswered; then the port is closed.
    let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    rt.spawn(async move {
        if let Ok((mut stream, _)) = listener.accept().await {
            drop(listener);
            read_one(&mut stream).await;
        }
    });
    let t = transport(&url, 8);
    let e = crate::runtime::block_on_here(t.send(&Request::get("/x"))).unwrap_err();
    assert!(e.to_string().contains("(3 attempts)"), "{e}");
    assert_eq!(e.delivery(), Delivery::SentNoAnswer, "{e}");
}

/// A server that reads each connection's request and never answers; sends how the next read
/// of that connection ended: `"reset"` (ECONNRESET) or `"closed"` (the end of the stream).
async fn never_answers() -> (String, std::sync::mpsc::Receiver<&'static str>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                if read_one(&mut stream).await.is_none() {
                    return;
                }
                let mut byte = [0u8; 1];
                let end = match stream.read(&mut byte).await {
                    Ok(0) => "closed",
                    Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => "reset",
                    other => panic!("{other:?}"),
                };
                let _ = tx.send(end);
            });
        }
    });
    (url, rx)
}

/// A request given up at its timeout, after it was written, ends its connection with a reset
/// (never a normal close, which would leave it for the kernel to deliver later), on a lane
/// and on the process runtime alike.
#[test]
fn a_request_given_up_at_its_timeout_resets_its_connection() {
    let rt = crate::runtime::get();
    let (url, ends) = rt.block_on(rt.spawn(never_answers())).unwrap();
    let mut config = Config::new(&url);
    config.timeout = Duration::from_millis(300);
    config.retries = 0;
    let t = Arc::new(Transport::new(&config).unwrap());
    for lane in [true, false] {
        let errors = commands(&t, 1, lane);
        assert!(matches!(errors[..], [Error::Timeout { .. }]), "{errors:?}");
        assert_eq!(errors[0].delivery(), Delivery::SentNoAnswer);
        let end = ends.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(end, "reset", "on a lane: {lane}");
    }
}
