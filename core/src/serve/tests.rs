//! The serve path on its own: header timeout, connection cap, graceful and bounded stop, and
//! errors that name the argument.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use axum::body::Body;
use hyper::{Request, Response};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{bind, check_host, header_timeout, Conn, Limits, Running, HEADER_TIMEOUT};
use crate::runtime;

fn limits(header: Duration, max_connections: usize) -> Limits {
    Limits {
        header_timeout: header,
        max_connections,
        stop_grace: Duration::from_millis(300),
    }
}

/// A server answering `200 ok` to every request, after `delay` (forever when `None`).
fn start(limits: Limits, delay: Option<Duration>) -> Running {
    let listener = bind("127.0.0.1", 0).unwrap();
    Running::start(
        runtime::get().handle(),
        "test",
        listener,
        limits,
        move |_: &TcpStream| {
            Conn::new(hyper::service::service_fn(
                move |_: Request<hyper::body::Incoming>| async move {
                    match delay {
                        Some(d) => tokio::time::sleep(d).await,
                        None => std::future::pending().await,
                    }
                    Ok::<_, Infallible>(Response::new(Body::from("ok")))
                },
            ))
        },
    )
    .unwrap()
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    runtime::get().block_on(f)
}

/// Send a whole GET and read the answer to its end (the server closes: `Connection: close`).
async fn get(stream: &mut TcpStream) -> String {
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).await.unwrap();
    out
}

#[test]
fn a_half_open_connection_is_closed_within_the_header_timeout() {
    let server = start(limits(Duration::from_millis(200), 16), Some(Duration::ZERO));
    run(async {
        let mut s = TcpStream::connect(server.addr()).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: t").await.unwrap();
        let started = Instant::now();
        let mut buf = [0u8; 256];
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
            .await
            .expect("the half-open connection was kept open")
            .unwrap_or(0);
        let took = started.elapsed();
        assert!(
            n == 0 || buf.starts_with(b"HTTP/1.1 408"),
            "{:?}",
            &buf[..n]
        );
        assert!(took >= Duration::from_millis(150), "{took:?}");
        // An idle keep-alive connection is closed by the same clock.
        let mut s = TcpStream::connect(server.addr()).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            .await
            .unwrap();
        let n = s.read(&mut buf).await.unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        let closed = tokio::time::timeout(Duration::from_secs(5), async {
            while s.read(&mut buf).await.unwrap_or(0) > 0 {}
        })
        .await;
        assert!(
            closed.is_ok(),
            "an idle keep-alive connection was kept open"
        );
        server.stop().await;
    });
}

#[test]
fn beyond_the_cap_a_connection_waits_until_one_closes() {
    let server = start(limits(Duration::from_secs(10), 2), Some(Duration::ZERO));
    run(async {
        let mut idle = Vec::new();
        for _ in 0..2 {
            let mut s = TcpStream::connect(server.addr()).await.unwrap();
            s.write_all(b"GET / HT").await.unwrap();
            idle.push(s);
        }
        let mut third = TcpStream::connect(server.addr()).await.unwrap();
        let answer = tokio::spawn(async move { get(&mut third).await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !answer.is_finished(),
            "a third connection was served beyond the cap of 2"
        );
        drop(idle.pop());
        let answer = tokio::time::timeout(Duration::from_secs(5), answer)
            .await
            .expect("the waiting connection was not served once a slot was free")
            .unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        server.stop().await;
    });
}

#[test]
fn stop_lets_an_answer_finish_and_frees_the_port() {
    let server = start(limits(HEADER_TIMEOUT, 16), Some(Duration::from_millis(150)));
    let addr = server.addr();
    run(async {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let answer = tokio::spawn(async move { get(&mut s).await });
        tokio::time::sleep(Duration::from_millis(50)).await; // the request is in the handler
        server.stop().await;
        let answer = answer.await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with("ok"), "{answer}");
    });
    std::net::TcpListener::bind(addr).expect("the port is still held after stop()");
}

#[test]
fn stop_closes_an_answer_that_never_comes_after_the_grace() {
    let server = start(limits(HEADER_TIMEOUT, 16), None);
    run(async {
        let mut s = TcpStream::connect(server.addr()).await.unwrap();
        let answer = tokio::spawn(async move { get(&mut s).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let started = Instant::now();
        tokio::time::timeout(Duration::from_secs(5), server.stop())
            .await
            .expect("stop() waited for an answer that never comes");
        assert!(started.elapsed() >= Duration::from_millis(250));
        assert_eq!(answer.await.unwrap(), "", "closed without an answer");
    });
}

#[test]
fn errors_name_the_argument() {
    let err = check_host("bad host").unwrap_err();
    assert!(err.starts_with("host: \"bad host\""), "{err}");
    let taken = bind("127.0.0.1", 0).unwrap();
    let port = taken.local_addr().unwrap().port();
    let err = bind("127.0.0.1", port).unwrap_err();
    assert!(
        err.starts_with(&format!("port: cannot listen on 127.0.0.1:{port}")),
        "{err}"
    );
    // An address that is not this machine's.
    let err = bind("192.0.2.1", 0).unwrap_err();
    assert!(
        err.starts_with("host: cannot listen on 192.0.2.1:0"),
        "{err}"
    );
    assert!(header_timeout(0.0).is_err());
    assert!(header_timeout(30.5).is_err());
    assert_eq!(header_timeout(30.0).unwrap(), HEADER_TIMEOUT);
}

#[test]
fn the_default_cap_leaves_descriptors_to_the_process() {
    let cap = super::default_max_connections();
    assert!((16..=super::MAX_CONNECTIONS).contains(&cap), "{cap}");
}

#[test]
fn a_port_and_a_header_timeout_are_checked() {
    assert_eq!(super::port(0).unwrap(), 0);
    assert_eq!(super::port(65535).unwrap(), 65535);
    let err = super::port(65536).unwrap_err();
    assert!(matches!(err, crate::Error::InvalidInput(_)));
    assert_eq!(
        err.to_string(),
        "port: must be from 0 (pick a free port) to 65535, got 65536"
    );
    assert!(super::port(-1).is_err());
    let limits = super::Limits::with_header_timeout(2.5).unwrap();
    assert_eq!(
        limits.header_timeout,
        std::time::Duration::from_millis(2500)
    );
    assert_eq!(
        limits.max_connections,
        super::Limits::default().max_connections
    );
    assert!(super::Limits::with_header_timeout(0.0)
        .unwrap_err()
        .to_string()
        .starts_with("header_timeout:"));
}
