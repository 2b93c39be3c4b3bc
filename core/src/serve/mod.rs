//! The one serve path of every listener this crate runs (the feed, the simulator): HTTP/1.1 by
//! hyper with a timer, so that
//!
//! - a connection that does not send a whole request head within [`Limits::header_timeout`]
//!   (a half-open socket, a slow sender) is closed. hyper starts that clock whenever the
//!   connection waits for a request head, so it also closes a keep-alive connection left idle
//!   between requests for that long;
//! - at most [`Limits::max_connections`] connections are open at once: beyond that, new
//!   connections wait in the listen queue ([`BACKLOG`]) until one closes (a log line says when
//!   the cap is reached);
//! - an accept that fails for want of resources (out of file descriptors: `EMFILE`, `ENFILE`,
//!   `ENOBUFS`, `ENOMEM`) is retried after a backoff from [`ACCEPT_BACKOFF_MIN`] doubling to
//!   [`ACCEPT_BACKOFF_MAX`], never in a spin, while the open connections keep being served and
//!   shed (so a normal reader gets in once idle sockets are closed);
//! - stopping closes the listener at once, lets every connection finish the answer it is
//!   writing for at most [`Limits::stop_grace`], then closes what is left.
//!
//! [`Running`] is the handle of a server started on a runtime. In a child of `fork()` the
//! parent's runtime has no threads: stopping or dropping the handle there abandons the copy
//! without touching that runtime, and the parent keeps serving.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch, Semaphore};
use tokio::task::{JoinHandle, JoinSet};

pub mod guard;

/// The default header-read timeout: the longest a connection may take to send a request head,
/// and the longest a keep-alive connection stays open idle between requests.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// The default cap on open connections (lowered to the descriptor limit less
/// [`DESCRIPTOR_RESERVE`] where that is lower; see [`default_max_connections`]).
pub const MAX_CONNECTIONS: usize = 4096;
/// File descriptors left to the rest of the process (its own requests, files, the embedder) when
/// the cap comes from the descriptor limit.
pub const DESCRIPTOR_RESERVE: usize = 64;
/// The default time open connections get to finish the answer they are writing when the
/// server stops.
pub const STOP_GRACE: Duration = Duration::from_secs(1);
/// The first wait after an accept failed for want of resources.
pub const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);
/// The longest wait between accepts while they keep failing.
pub const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The bounds of a server (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    pub header_timeout: Duration,
    pub max_connections: usize,
    pub stop_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: HEADER_TIMEOUT,
            max_connections: default_max_connections(),
            stop_grace: STOP_GRACE,
        }
    }
}

impl Limits {
    /// The default bounds with a header timeout given in seconds (see [`header_timeout`]).
    pub fn with_header_timeout(seconds: f64) -> crate::Result<Limits> {
        Ok(Limits {
            header_timeout: header_timeout(seconds)?,
            ..Limits::default()
        })
    }
}

/// Check a port given as a number (0 picks a free port).
pub fn port(port: i64) -> crate::Result<u16> {
    u16::try_from(port).map_err(|_| {
        crate::Error::invalid(format!(
            "port: must be from 0 (pick a free port) to 65535, got {port}"
        ))
    })
}

/// Check a header timeout given in seconds (more than 0, at most [`HEADER_TIMEOUT`]).
pub fn header_timeout(seconds: f64) -> crate::Result<Duration> {
    let max = HEADER_TIMEOUT.as_secs_f64();
    if seconds.is_finite() && seconds > 0.0 && seconds <= max {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(crate::Error::invalid(format!(
            "header_timeout: must be a number of seconds above 0 and at most {max}, got {seconds}"
        )))
    }
}

/// [`MAX_CONNECTIONS`], or the process's soft descriptor limit less [`DESCRIPTOR_RESERVE`]
/// when that is lower (at least 16).
pub fn default_max_connections() -> usize {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct given; nothing else is touched.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0
            && lim.rlim_cur != libc::RLIM_INFINITY
        {
            let soft = usize::try_from(lim.rlim_cur).unwrap_or(usize::MAX);
            return soft
                .saturating_sub(DESCRIPTOR_RESERVE)
                .clamp(16, MAX_CONNECTIONS);
        }
    }
    MAX_CONNECTIONS
}

/// Whether `host` can be listened on: an IP address, or a name that resolves. The error names
/// the argument (`host`), so a caller can check it before anything starts.
pub fn check_host(host: &str) -> std::result::Result<(), String> {
    use std::net::ToSocketAddrs;
    match (host, 0).to_socket_addrs() {
        Ok(addrs) if addrs.len() > 0 => Ok(()),
        Ok(_) => Err(format!("host: {host:?} resolves to no address")),
        Err(e) => Err(format!(
            "host: {host:?} is not an IP address or a name that resolves ({e})"
        )),
    }
}

/// The listen queue: connections beyond the cap wait there (the kernel bounds it by
/// `net.core.somaxconn`).
pub const BACKLOG: i32 = 1024;

/// Bind `host:port` with a listen queue of [`BACKLOG`]; the error names the argument at fault:
/// `port` when it is taken or not allowed, `host` when the address is not one of this
/// machine's.
pub fn bind(host: &str, port: u16) -> std::result::Result<std::net::TcpListener, String> {
    use std::net::ToSocketAddrs;
    check_host(host)?;
    let fail = |e: io::Error| {
        let arg = match e.kind() {
            io::ErrorKind::AddrInUse | io::ErrorKind::PermissionDenied => "port",
            _ => "host",
        };
        format!("{arg}: cannot listen on {host}:{port}: {e}")
    };
    let mut last = None;
    for addr in (host, port).to_socket_addrs().map_err(fail)? {
        match listen(addr) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(fail(
        last.unwrap_or_else(|| io::ErrorKind::AddrNotAvailable.into()),
    ))
}

fn listen(addr: SocketAddr) -> io::Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    // As std does: a restarted server may bind its port again at once.
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// A future that, when it resolves, closes its connection at once.
pub type CloseWhen = Pin<Box<dyn Future<Output = ()> + Send>>;

/// What a server runs on one accepted connection: the service answering its requests (an
/// `Err` closes the connection without an answer), and optionally a future that closes the
/// connection when it resolves (the feed's watch over a reader that stopped reading).
pub struct Conn<S> {
    pub service: S,
    pub close_when: Option<CloseWhen>,
}

impl<S> Conn<S> {
    pub fn new(service: S) -> Self {
        Conn {
            service,
            close_when: None,
        }
    }
}

/// An accept error that concerns only the connection being accepted (retried at once).
fn per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serve `listener` until `stop` fires (or its sender is dropped), running `make`'s service on
/// each connection within `limits`; returns once every connection is closed.
pub async fn serve<F, S, E>(
    label: &'static str,
    listener: TcpListener,
    limits: Limits,
    mut stop: oneshot::Receiver<()>,
    mut make: F,
) where
    F: FnMut(&TcpStream) -> Conn<S>,
    S: hyper::service::Service<Request<Incoming>, Response = Response<Body>, Error = E>
        + Send
        + 'static,
    S::Future: Send + 'static,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let cap = limits.max_connections.max(1);
    let slots = Arc::new(Semaphore::new(cap));
    let (stopping, stopping_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut backoff = ACCEPT_BACKOFF_MIN;
    let mut failing = false;
    let mut capped = false;
    loop {
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                if !capped {
                    capped = true;
                    log::warn!(
                        "{label}: {cap} connections open (the cap); new connections wait \
                         until one closes"
                    );
                }
                tokio::select! {
                    _ = &mut stop => break,
                    slot = slots.clone().acquire_owned() => slot.expect("never closed"),
                    Some(_) = connections.join_next(), if !connections.is_empty() => continue,
                }
            }
        };
        if capped && slots.available_permits() >= cap / 2 {
            capped = false;
        }
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    if failing {
                        log::info!("{label}: accepting connections again");
                        failing = false;
                    }
                    backoff = ACCEPT_BACKOFF_MIN;
                    let _ = stream.set_nodelay(true);
                    let conn = make(&stream);
                    let stopping = stopping_rx.clone();
                    let limits = limits.clone();
                    connections.spawn(async move {
                        let _slot = slot;
                        run(label, stream, conn, &limits, stopping).await;
                    });
                }
                Err(e) if per_connection(&e) => {}
                Err(e) => {
                    if !failing {
                        log::warn!(
                            "{label}: accept failed: {e}; retrying with a backoff of up to {} ms \
                             while open connections are served and shed",
                            ACCEPT_BACKOFF_MAX.as_millis()
                        );
                        failing = true;
                    }
                    tokio::select! {
                        _ = &mut stop => break,
                        _ = tokio::time::sleep(backoff) => {}
                    }
                    backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let _ = stopping.send(true);
    let grace = limits.stop_grace;
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(grace, drained).await.is_err() {
        log::debug!(
            "{label}: {} connections still open after the stop grace; closing them",
            connections.len()
        );
    }
    connections.shutdown().await;
}

/// One connection, until it ends, its `close_when` resolves, or the server stops (then it may
/// finish the answer it is writing; the server aborts it after the grace).
async fn run<S, E>(
    label: &'static str,
    stream: TcpStream,
    conn: Conn<S>,
    limits: &Limits,
    mut stopping: watch::Receiver<bool>,
) where
    S: hyper::service::Service<Request<Incoming>, Response = Response<Body>, Error = E>,
    S::Future: Send + 'static,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let http = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .serve_connection(TokioIo::new(stream), conn.service);
    tokio::pin!(http);
    let close_when = conn.close_when;
    let close = async move {
        match close_when {
            Some(f) => f.await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        r = http.as_mut() => if let Err(e) = r {
            log::debug!("{label}: connection ended: {e}");
        },
        _ = close => {}
        _ = async { let _ = stopping.wait_for(|s| *s).await; } => {
            http.as_mut().graceful_shutdown();
            let _ = http.await;
        }
    }
}

/// A server started on a runtime (see the module documentation for a forked child).
pub struct Running {
    addr: SocketAddr,
    pid: u32,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    #[cfg(unix)]
    fd: std::os::fd::RawFd,
    /// The listening socket's identity (device and inode): a forked child closes `fd` only
    /// while it still is that socket.
    #[cfg(unix)]
    identity: Option<(u64, u64)>,
}

/// The device and inode of the file open at `fd`, if it is open.
#[cfg(unix)]
fn identity(fd: std::os::fd::RawFd) -> Option<(u64, u64)> {
    // SAFETY: fstat only writes into the struct given; a closed descriptor makes it fail.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    Some((u64::from(st.st_dev as u64), u64::from(st.st_ino as u64)))
}

impl Running {
    /// Serve `listener` (bound by [`bind`]) on `rt`.
    pub fn start<F, S, E>(
        rt: &tokio::runtime::Handle,
        label: &'static str,
        listener: std::net::TcpListener,
        limits: Limits,
        make: F,
    ) -> io::Result<Running>
    where
        F: FnMut(&TcpStream) -> Conn<S> + Send + 'static,
        S: hyper::service::Service<Request<Incoming>, Response = Response<Body>, Error = E>
            + Send
            + 'static,
        S::Future: Send + 'static,
        E: Into<Box<dyn std::error::Error + Send + Sync>> + 'static,
    {
        let addr = listener.local_addr()?;
        #[cfg(unix)]
        let fd = std::os::fd::AsRawFd::as_raw_fd(&listener);
        #[cfg(unix)]
        let identity = identity(fd);
        let listener = {
            let _entered = rt.enter();
            TcpListener::from_std(listener)?
        };
        let (stop, stopped) = oneshot::channel();
        let task = rt.spawn(serve(label, listener, limits, stopped, make));
        Ok(Running {
            addr,
            pid: std::process::id(),
            stop: Some(stop),
            task: Some(task),
            #[cfg(unix)]
            fd,
            #[cfg(unix)]
            identity,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// True in a child of `fork()` of the process that started the server.
    pub fn in_forked_child(&self) -> bool {
        self.pid != std::process::id()
    }

    /// Stop serving; returns once every connection is closed and the port is free. In a forked
    /// child, returns at once (see [`Running::abandon`]).
    pub async fn stop(mut self) {
        if self.in_forked_child() {
            return; // dropped: abandoned
        }
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// The child's copy of a parent's server: its tasks live in a runtime with no threads here,
    /// so nothing of it is stopped or woken (that could wait forever, or deregister the
    /// listener from the epoll instance the parent still uses); the child's copy of the
    /// listening socket is closed, so the child does not hold the port. Only if the descriptor
    /// still is that socket: a daemonizing child may have closed its inherited descriptors and
    /// opened a file that got the same number, which is the child's, not the server's.
    fn abandon(&mut self) {
        std::mem::forget(self.stop.take());
        std::mem::forget(self.task.take());
        #[cfg(unix)]
        if self.identity.is_some() && identity(self.fd) == self.identity {
            // SAFETY: the descriptor is this process's copy of the listener (same device and
            // inode), which nothing in this process uses any more (the task owning it is never
            // run here).
            unsafe {
                libc::close(self.fd);
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.in_forked_child() {
            self.abandon();
        }
        // Otherwise dropping the sender stops the accept loop, which closes the connections.
    }
}

/// Drop `value` here unless this is a forked child of `pid`, where it is leaked instead: task
/// handles and channels of the parent's runtime must not be touched in a child.
pub fn drop_unless_forked<T>(pid: u32, value: T) {
    if pid != std::process::id() {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

#[cfg(test)]
mod tests;
