//! CPU per HTTPS call of the transport's exchange (hyper's HTTP/1.1 client connection over
//! tokio-rustls).
//!
//!     cargo bench --bench tls_cpu -- [CALLS] [ROUNDS] [PACE_MS]
//!
//! Serves a fixed JSON answer over TLS 1.3 (a certificate made here, pinned by the client;
//! HTTP/1.1 keep-alive) from a thread of its own, then makes the same blocking GET on this
//! thread's lane, back to back and paced (a sleep between calls, as cues are spaced), in
//! interleaved rounds. Each figure is this thread's CPU time per call (`RUSAGE_THREAD`: a lane
//! drives its calls on the calling thread; the server's thread is not counted); it prints the
//! median of the rounds. To compare two builds (another revision), run each one's `tls_cpu`
//! one after the other, alternately: docs/decisions/0011-one-exchange-on-hyper.md did so.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use showctl::transport::{Config, Request, Transport};

const ANSWER: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 53\r\n\r\n\
{\"home\": 3, \"away\": 1, \"period\": 2, \"clock\": \"12:31\"}";

/// A TLS server on loopback answering every request of every connection with [`ANSWER`];
/// returns its port and the certificate's pin.
fn serve() -> (u16, String) {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let der = made.cert.der().clone();
    let pin = showctl::tls::Fingerprint::of(&der).to_string();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(made.signing_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![der], key)
        .unwrap();
    // The server speaks HTTP/1.1 only, as the applications do.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let config = Arc::new(config);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || {
                let _ = tcp.set_nodelay(true);
                let conn = rustls::ServerConnection::new(config).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        if tls.write_all(ANSWER).and_then(|()| tls.flush()).is_err() {
                            return;
                        }
                    }
                    match tls.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
            });
        }
    });
    (port, pin)
}

/// This thread's CPU time, in microseconds.
fn thread_cpu_us() -> f64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    let us = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
    us(usage.ru_utime) + us(usage.ru_stime)
}

fn cpu_per_call(t: &Transport, path: &str, calls: usize, pace: Duration) -> f64 {
    let req = Request::get(path);
    let call = || showctl::runtime::block_on_here(t.send(&req)).unwrap();
    for _ in 0..20 {
        call();
    }
    let start = thread_cpu_us();
    for _ in 0..calls {
        call();
        if !pace.is_zero() {
            std::thread::sleep(pace);
        }
    }
    (thread_cpu_us() - start) / calls as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let arg = |i: usize, default: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (calls, rounds) = (arg(0, 500.0) as usize, arg(1, 5.0) as usize);
    let pace = Duration::from_secs_f64(arg(2, 5.0) / 1000.0);
    let (port, pin) = serve();
    let mut config = Config::new(format!("https://127.0.0.1:{port}"));
    config.tls_fingerprint = Some(showctl::tls::Fingerprint::parse(&pin).unwrap());
    let t = Transport::new(&config).unwrap();
    let modes = [("back-to-back", Duration::ZERO), ("paced", pace)];
    let mut figures = vec![Vec::new(); modes.len()];
    for _ in 0..rounds {
        for (m, (_, pace)) in modes.iter().enumerate() {
            figures[m].push(cpu_per_call(&t, "/data/scores", calls, *pace));
        }
    }
    for (m, (mode, _)) in modes.iter().enumerate() {
        println!(
            "{mode:>12}: {:7.1} us/call (median of {rounds} rounds of {calls} calls)",
            median(figures[m].clone())
        );
    }
}
