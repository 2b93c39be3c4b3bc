//! The bridge's sockets: one port, UDP datagrams and TCP connections (SLIP frames), each
//! packet checked (sender, rate, size) before it is decoded, and decoded by `rosc` into jobs
//! for the senders' lanes ([`super::run`]).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::sync::{mpsc, Semaphore};

use super::run::{From, Job, Shared};
use super::slip::{Frame, Framer};
use super::{Options, Stats, TARGET};
use crate::error::{Error, Result};

/// A running bridge. Dropped without [`Running::stop`], it still stops reading (its tasks see
/// the bridge closing and end), without waiting for them.
pub(super) struct Running {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    /// The process that started it: in a child of `fork()` its tasks live in a runtime with no
    /// threads, so nothing of it is stopped or woken there (the parent's bridge goes on).
    pid: u32,
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.pid == std::process::id() {
            self.shared.closing.send_replace(true);
        }
    }
}

impl Running {
    /// Stop reading, refuse what is queued, and wait (at most `grace`) for every task. In a
    /// child of `fork()`, returns at once and leaves the parent's bridge alone (the child's
    /// copies of the sockets stay open until it exits).
    pub async fn stop(self, grace: Duration) {
        if self.pid != std::process::id() {
            std::mem::forget(self);
            return;
        }
        self.shared.closing.send_replace(true);
        self.shared.tasks.close();
        if tokio::time::timeout(grace, self.shared.tasks.wait())
            .await
            .is_err()
        {
            log::warn!(
                target: TARGET,
                "osc: stopped with a command still being sent after {} s",
                grace.as_secs_f64()
            );
        }
    }
}

/// Tries at binding UDP on the port the kernel picked for TCP (`port=0`) before giving up.
const PORT_TRIES: usize = 20;

/// Bind TCP and UDP on one port and start reading.
pub(super) fn start(o: &Options, shared: Arc<Shared>) -> Result<Running> {
    let (tcp, udp) = bind(&o.host, o.port)?;
    let addr = tcp
        .local_addr()
        .map_err(|e| Error::invalid(format!("host: {e}")))?;
    let rt = crate::runtime::get();
    let _entered = rt.enter();
    let tcp = TcpListener::from_std(tcp).map_err(|e| Error::invalid(format!("host: {e}")))?;
    let udp = Arc::new(UdpSocket::from_std(udp).map_err(|e| Error::invalid(format!("host: {e}")))?);
    let _ = shared.udp.set(udp.clone());
    shared.tasks.spawn(read_udp(shared.clone(), udp));
    shared.tasks.spawn(accept(shared.clone(), tcp));
    Ok(Running {
        addr,
        shared,
        pid: std::process::id(),
    })
}

fn bind(host: &str, port: u16) -> Result<(std::net::TcpListener, std::net::UdpSocket)> {
    let mut last = None;
    for _ in 0..if port == 0 { PORT_TRIES } else { 1 } {
        let tcp = crate::serve::bind(host, port).map_err(Error::invalid)?;
        let at = tcp
            .local_addr()
            .map_err(|e| Error::invalid(format!("host: {e}")))?;
        match std::net::UdpSocket::bind(at) {
            Ok(udp) => {
                udp.set_nonblocking(true)
                    .map_err(|e| Error::invalid(format!("host: {e}")))?;
                return Ok((tcp, udp));
            }
            Err(e) => last = Some((at, e)),
        }
    }
    let (at, e) = last.expect("tried once at least");
    Err(Error::invalid(format!(
        "port: cannot listen for UDP on {at}: {e}"
    )))
}

async fn read_udp(shared: Arc<Shared>, udp: Arc<UdpSocket>) {
    let mut closing = shared.closing.subscribe();
    let max = shared.limits.max_frame;
    // One byte more than the bound: a datagram that fills it is over the bound.
    let mut buf = vec![0u8; max + 1];
    loop {
        let got = tokio::select! {
            _ = closing.wait_for(|c| *c) => return,
            got = udp.recv_from(&mut buf) => got,
        };
        let (n, peer) = match got {
            Ok(got) => got,
            // An ICMP error of an earlier reply (the sender's port closed): nothing to read.
            Err(_) => continue,
        };
        if !shared.allowed(peer, "udp") || !shared.admitted(peer) {
            continue;
        }
        let from = From {
            transport: "udp",
            peer,
            tcp: None,
        };
        Stats::add(&shared.stats.received);
        if n > max {
            Stats::add(&shared.stats.oversized);
            shared.dropped(&from, format!("oversized: over the {max} bytes read"), n);
            continue;
        }
        guarded(&shared, from, &buf[..n]);
    }
}

async fn accept(shared: Arc<Shared>, listener: TcpListener) {
    let mut closing = shared.closing.subscribe();
    let slots = Arc::new(Semaphore::new(shared.limits.max_connections));
    let full_logged = AtomicBool::new(false);
    loop {
        let got = tokio::select! {
            _ = closing.wait_for(|c| *c) => return,
            got = listener.accept() => got,
        };
        let (stream, peer) = match got {
            Ok(got) => got,
            Err(e) => {
                // Out of descriptors or the like: wait before accepting again, never spin.
                log::warn!(target: TARGET, "osc: accepting a TCP connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if !shared.allowed(peer, "tcp") {
            continue;
        }
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            Stats::add(&shared.stats.connections_refused);
            if !full_logged.swap(true, Ordering::Relaxed) {
                log::warn!(
                    target: TARGET,
                    "osc: {} TCP connections are open: more are closed as they come (one line \
                     until one closes)",
                    shared.limits.max_connections
                );
            }
            continue;
        };
        full_logged.store(false, Ordering::Relaxed);
        let s = shared.clone();
        shared.tasks.spawn(async move {
            connection(s, stream, peer).await;
            drop(slot);
        });
    }
}

/// Frames written to one connection at most while it does not read them; more replies are
/// dropped.
const WRITE_QUEUE: usize = 64;

async fn connection(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    let (mut read, mut write) = stream.into_split();
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(WRITE_QUEUE);
    let idle = shared.limits.idle;
    let writer = shared.tasks.spawn(async move {
        while let Some(frame) = rx.recv().await {
            match tokio::time::timeout(idle, write.write_all(&frame)).await {
                Ok(Ok(())) => {}
                _ => break,
            }
        }
    });
    let from = From {
        transport: "tcp",
        peer,
        tcp: Some(tx),
    };
    let mut closing = shared.closing.subscribe();
    let mut framer = Framer::new(shared.limits.max_frame);
    let mut buf = vec![0u8; 16 * 1024];
    let mut frames = Vec::new();
    loop {
        let n = tokio::select! {
            _ = closing.wait_for(|c| *c) => break,
            n = tokio::time::timeout(idle, read.read(&mut buf)) => match n {
                Ok(Ok(0)) | Ok(Err(_)) => break,
                Ok(Ok(n)) => n,
                Err(_) => {
                    log::info!(
                        target: TARGET,
                        "osc: TCP connection from {peer} closed: idle for {} s",
                        idle.as_secs()
                    );
                    break;
                }
            },
        };
        framer.feed(&buf[..n], &mut frames);
        for frame in frames.drain(..) {
            if !shared.admitted(peer) {
                continue;
            }
            Stats::add(&shared.stats.received);
            match frame {
                Frame::Packet(p) => guarded(&shared, from.clone(), &p),
                Frame::Oversized(len) => {
                    Stats::add(&shared.stats.oversized);
                    let max = shared.limits.max_frame;
                    shared.dropped(&from, format!("oversized: {len} bytes, over {max}"), len);
                }
                Frame::Malformed => {
                    Stats::add(&shared.stats.malformed);
                    shared.dropped(&from, "malformed: a bad SLIP escape".into(), 0);
                }
            }
        }
    }
    drop(from);
    // The writer ends once the lanes have dropped their copies of the connection's sender
    // (after the replies they still owe): a reply is never cut by the reader's end. It is
    // tracked with the bridge's tasks, which `stop` waits for.
    drop(writer);
}

/// Why a bundle's time is refused, if it is.
fn too_far(at: SystemTime, shared: &Shared) -> Option<String> {
    let now = SystemTime::now();
    let limits = &shared.limits;
    match at.duration_since(now) {
        Ok(ahead) if ahead > limits.max_ahead => Some(format!(
            "its time tag is {:.3} s ahead, over the {} s allowed",
            ahead.as_secs_f64(),
            limits.max_ahead.as_secs_f64()
        )),
        Ok(_) => None,
        Err(e) if e.duration() > limits.max_late => Some(format!(
            "its time tag passed {:.3} s ago: later than the {} s allowed, so it is not run",
            e.duration().as_secs_f64(),
            limits.max_late.as_secs_f64()
        )),
        Err(_) => None,
    }
}

/// [`packet`], a panic in it (in the decoder, say) caught: the packet is dropped with a
/// record, and the socket goes on being read.
fn guarded(shared: &Arc<Shared>, from: From, bytes: &[u8]) {
    let keep = from.clone();
    let run = std::panic::AssertUnwindSafe(|| packet(shared, from, bytes));
    if std::panic::catch_unwind(run).is_err() {
        Stats::add(&shared.stats.malformed);
        let why = "malformed: reading it failed (a panic, caught)".to_string();
        shared.dropped(&keep, why, bytes.len());
    }
}

/// One packet read whole: decoded, grouped, and handed to its sender's lane.
fn packet(shared: &Arc<Shared>, from: From, bytes: &[u8]) {
    let out = match super::decode::read(bytes) {
        Ok(out) => out,
        Err(why) => {
            Stats::add(&shared.stats.malformed);
            return shared.dropped(&from, format!("malformed: {why}"), bytes.len());
        }
    };
    for (when, messages) in out {
        if messages.is_empty() {
            continue;
        }
        let job = |at| Job {
            from: from.clone(),
            messages,
            at,
        };
        match when {
            Err(why) => shared.refuse_all(job(None), &why),
            Ok(None) => shared.dispatch(job(None)),
            Ok(Some(at)) => match too_far(at, shared) {
                Some(why) => shared.refuse_all(job(Some(at)), &why),
                None => shared.dispatch(job(Some(at))),
            },
        }
    }
}
