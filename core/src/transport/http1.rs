//! The HTTP/1.1 exchange of every call, `http://` and `https://`: hyper's client connection
//! (`hyper::client::conn::http1`) over showctl's own connections
//! (docs/decisions/0011-one-exchange-on-hyper.md).
//!
//! hyper writes the request and reads the answer (status line and headers, `1xx` answers,
//! bodies framed by `Transfer-Encoding: chunked`, `Content-Length` or the end of the
//! connection, keep-alive); the transport keeps what the connection level decides: how a
//! connection is made ([`stream`]: every address raced, TLS on the client's rustls
//! configuration), which connections are kept and for how long, the caps on a body, how far an
//! exchange got ([`wire`]: bytes written, bytes read, a final status line) and whether a request
//! that failed on a kept connection may go again. hyper's connection has no pool and takes the
//! request target as it is given: a call pays for framing and parsing, nothing more.
//!
//! The connection is driven by the call that uses it (no task is spawned: a lane's blocking
//! call, the process runtime and a runtime of the caller's own all drive it the same way) and
//! rests between calls. A kept connection is checked before it is used (a server may have
//! closed it meanwhile: over TLS any byte that arrived, `close_notify` included) and dropped
//! after [`IDLE_LIMIT`]. An answer's head is read up to [`MAX_HEAD`] bytes and [`MAX_HEADERS`]
//! headers (what curl and httpx read), and refused beyond.

use std::future::Future;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Body;
use hyper::client::conn::http1 as h1;
use hyper::header::{self, HeaderValue};
use hyper_util::rt::TokioIo;

mod stream;
mod wire;
#[cfg(test)]
pub(super) use stream::resolve_as;
pub(super) use stream::Stream;
use wire::{Tally, Wire};

use super::gate::{Gate, Lease, RawSock};
use super::progress::{Progress, Stage};

/// A kept connection idle for longer than this is closed instead of used: servers close idle
/// connections after a while (the simulator and the feed after 30 s), and a connection whose
/// close went unseen (a NAT or firewall forgot it) would hold the call until its timeout.
pub(super) const IDLE_LIMIT: Duration = Duration::from_secs(25);
/// Kept connections per authority on a lane (a lane's call rarely has more requests in flight).
const KEEP_PER_AUTHORITY: usize = 4;
/// Kept connections per authority on the process runtime, whose awaitable calls and batches run
/// many requests at once (a batch 16 by default, the benchmark's fan-out 64).
const KEEP_PER_AUTHORITY_SHARED: usize = 128;
/// The largest status line plus headers read (curl's and httpx's limit: 100 KiB).
pub(super) const MAX_HEAD: usize = 100 * 1024;
/// Headers read of one answer (hyper's limit, left at its default: setting it moves hyper's
/// header array to the heap).
pub(super) const MAX_HEADERS: usize = 100;

/// The request and the connection of an exchange, as hyper takes them.
pub(super) type Message = hyper::Request<Full<Bytes>>;
type Link = h1::Connection<TokioIo<Wire>, Full<Bytes>>;

/// Where a target is (its authority, host, port and scheme), taken from its base URL once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Address {
    /// `host[:port]` as the `Host` header carries it (IPv6 in brackets).
    pub authority: String,
    /// The same, as the `Host` header's value.
    pub host_header: HeaderValue,
    /// The host to connect to (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    /// An `https://` target: the exchange runs over TLS.
    pub tls: bool,
}

impl Address {
    /// The parts of a normalized base (`http[s]://host[:port]/…/api/0`).
    pub fn of(base: &str) -> Option<Address> {
        let (rest, tls) = match base.strip_prefix("https://") {
            Some(rest) => (rest, true),
            None => (base.strip_prefix("http://")?, false),
        };
        let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !p.contains(']') => (h, p.parse().ok()?),
            _ => (authority, if tls { 443 } else { 80 }),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        Some(Address {
            authority: authority.to_string(),
            host_header: HeaderValue::from_str(authority).ok()?,
            host: host.to_string(),
            port,
            tls,
        })
    }

    /// The request target of a URL of this target (its base, then a path and query): the URL
    /// without the scheme and the authority (`/api/0/…`, or `/prefix/api/0/…`).
    pub fn target_of<'u>(&self, url: &'u str) -> &'u str {
        let scheme = if self.tls { "https://" } else { "http://" };
        &url[scheme.len() + self.authority.len()..]
    }
}

/// A request as the transport hands it to hyper.
pub(super) struct Outgoing<'a> {
    pub method: &'static str,
    /// The request target: the base's path, the request's path and its query.
    pub target: &'a str,
    pub host: &'a HeaderValue,
    /// The `Authorization` header's value.
    pub auth: Option<&'a HeaderValue>,
    /// A JSON body.
    pub body: Option<&'a [u8]>,
}

impl Outgoing<'_> {
    /// The request: its line, then `authorization`, `content-type`, `accept`, `user-agent` and
    /// `host` (hyper adds `content-length` for a body); `Err` says why the target cannot be
    /// sent (nothing was).
    pub fn message(&self) -> Result<Message, String> {
        let uri = hyper::Uri::try_from(self.target)
            .map_err(|e| format!("the request target {:?} cannot be sent: {e}", self.target))?;
        let body = self.body.map_or_else(Bytes::new, Bytes::copy_from_slice);
        let mut req = hyper::Request::new(Full::new(body));
        *req.uri_mut() = uri;
        if self.method == "POST" {
            *req.method_mut() = hyper::Method::POST;
        }
        let headers = req.headers_mut();
        if let Some(auth) = self.auth {
            headers.insert(header::AUTHORIZATION, auth.clone());
        }
        if self.body.is_some() {
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
        }
        headers.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        headers.insert(
            header::USER_AGENT,
            HeaderValue::from_static(super::USER_AGENT_VALUE),
        );
        headers.insert(header::HOST, self.host.clone());
        Ok(req)
    }
}

/// The largest body accepted: of a 2xx answer, and of any other (an error page or a redirect).
#[derive(Clone, Copy, Debug)]
pub(super) struct Caps {
    pub success: usize,
    pub other: usize,
}

impl Caps {
    fn of(self, status: u16) -> usize {
        if status < 300 {
            self.success
        } else {
            self.other
        }
    }
}

/// A complete answer.
#[derive(Debug)]
pub(super) struct Answer {
    pub status: u16,
    pub location: Option<Vec<u8>>,
    pub body: Vec<u8>,
}

/// How an exchange failed, before the transport names the request in its error.
#[derive(Debug)]
pub(super) enum Failure {
    /// The host name did not resolve.
    Resolve(std::io::Error),
    /// No connection could be made.
    Connect(std::io::Error),
    /// The TLS handshake failed (the certificate refused, or no TLS server on the port).
    Tls(std::io::Error),
    /// Writing the request or reading the answer failed.
    Io(std::io::Error),
    /// The connection ended before the answer was complete (`received` bytes of it).
    Closed { received: usize, what: &'static str },
    /// What came back is not an HTTP/1.x answer.
    Invalid(String),
    /// The answer's head is beyond the limits (its size, its count of headers).
    HeadTooLarge(String),
    /// The body is larger than its cap (announced or as read).
    TooLarge { status: u16 },
}

impl Failure {
    /// How a hyper error of an exchange failed; `what` says where in the answer it was.
    fn of(e: &hyper::Error, tally: &Tally, what: &'static str) -> Failure {
        if let Some(e) = tally.write_failure() {
            // Writing failed, and no answer came after it: the write's error is the cause.
            return Failure::Io(e);
        }
        if e.is_parse_too_large() {
            // hyper says "message head is too large" for either limit: the bytes read tell
            // which one it was.
            return Failure::HeadTooLarge(if tally.read() > MAX_HEAD {
                format!("the answer's head is larger than {MAX_HEAD} bytes")
            } else {
                format!("the answer has more than {MAX_HEADERS} headers")
            });
        }
        if e.is_parse() || e.is_parse_status() {
            let words = e.to_string();
            if words.contains("content-length") {
                // A value that is no number, or a list of differing ones (RFC 9110, 8.6).
                return Failure::Invalid("invalid or conflicting Content-Length".into());
            }
            return Failure::Invalid(words);
        }
        let mut source = std::error::Error::source(e);
        while let Some(cause) = source {
            if let Some(io) = cause.downcast_ref::<std::io::Error>() {
                if matches!(
                    io.kind(),
                    std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput
                ) {
                    // hyper's words for a body it cannot frame (a chunk not ending in CRLF).
                    return Failure::Invalid(io.to_string());
                }
                if io.kind() == std::io::ErrorKind::UnexpectedEof {
                    // A body cut short by the end of the connection.
                    return Failure::Closed {
                        received: tally.read(),
                        what,
                    };
                }
                return Failure::Io(match io.raw_os_error() {
                    Some(code) => std::io::Error::from_raw_os_error(code),
                    None => std::io::Error::new(io.kind(), io.to_string()),
                });
            }
            source = cause.source();
        }
        if e.is_incomplete_message() || e.is_canceled() || e.is_closed() {
            return Failure::Closed {
                received: tally.read(),
                what,
            };
        }
        Failure::Invalid(crate::error::chain(e))
    }
}

/// A connection: hyper's two halves (the one that sends requests, the one that does the
/// reading and writing), and what the transport knows of it.
pub(super) struct Conn {
    sender: h1::SendRequest<Full<Bytes>>,
    /// `None` once hyper ended the connection.
    link: Option<Link>,
    tally: Arc<Tally>,
    /// The socket, for its gate to shut down while it is kept idle (see [`Lease::park`]).
    raw: RawSock,
    idle_since: Instant,
}

/// Poll `fut` with the connection driven beside it (hyper's half that reads and writes),
/// noting after each turn how far the exchange got. In one turn: `fut`, then (when it is not
/// done) the connection, then `fut` again: a request handed to hyper is written, and an answer
/// hyper has read is taken, in the same turn, without a wake-up of the task in between.
async fn driven<F: Future + Unpin>(
    link: &mut Option<Link>,
    tally: &Tally,
    progress: &Progress,
    mut fut: F,
) -> F::Output {
    std::future::poll_fn(|cx: &mut Context<'_>| {
        if let Poll::Ready(out) = Pin::new(&mut fut).poll(cx) {
            note(tally, progress);
            return Poll::Ready(out);
        }
        if let Some(l) = link.as_mut() {
            if Pin::new(l).poll(cx).is_ready() {
                *link = None;
            }
        }
        let out = Pin::new(&mut fut).poll(cx);
        note(tally, progress);
        out
    })
    .await
}

/// Raise `progress` to what the stream saw: a final status line, a byte of the answer, a byte
/// of the request.
fn note(tally: &Tally, progress: &Progress) {
    let stage = progress.stage();
    if stage == Stage::Answered {
        return;
    }
    let seen = if tally.status_line() {
        Stage::Answered
    } else if tally.read() > 0 {
        Stage::Started
    } else if tally.written() > 0 {
        Stage::Writing
    } else {
        return;
    };
    if seen > stage {
        progress.set(seen);
    }
}

impl Conn {
    /// Whether a kept connection can carry the next request: not idle too long, hyper ready
    /// for one, and not closed (or written to) by the server meanwhile. One non-blocking peek,
    /// no read from the driver.
    fn usable(&self) -> bool {
        if self.idle_since.elapsed() > IDLE_LIMIT || self.link.is_none() || !self.sender.is_ready()
        {
            return false;
        }
        let mut byte = [MaybeUninit::<u8>::uninit(); 1];
        // SAFETY: the socket is open while its connection is (it is the connection's).
        #[cfg(unix)]
        let sock = unsafe { std::os::fd::BorrowedFd::borrow_raw(self.raw) };
        #[cfg(windows)]
        let sock = unsafe { std::os::windows::io::BorrowedSocket::borrow_raw(self.raw) };
        match socket2::SockRef::from(&sock).peek(&mut byte) {
            Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
            // End of stream, or bytes nobody asked for (a 408 before a close).
            Ok(_) => false,
        }
    }

    /// Send a request and read its whole answer, noting in `progress` how far it got; the
    /// connection comes back when it can carry another. A request that never went out (hyper
    /// found the connection closed before writing it) is left in `req`.
    pub async fn exchange(
        mut self,
        req: &mut Option<Message>,
        caps: Caps,
        progress: &Progress,
    ) -> Result<(Answer, Option<Conn>), Failure> {
        let Conn {
            sender,
            link,
            tally,
            ..
        } = &mut self;
        let tally: &Tally = tally;
        tally.start();
        let unsent = |_| Failure::Closed {
            received: 0,
            what: "before the request went out",
        };
        let ready = std::future::poll_fn(|cx| sender.poll_ready(cx));
        driven(link, tally, progress, ready).await.map_err(unsent)?;
        let Some(message) = req.take() else {
            return Err(Failure::Invalid("no request to send".into()));
        };
        let sending = std::pin::pin!(sender.try_send_request(message));
        let sent = driven(link, tally, progress, sending).await;
        let head = "before a complete answer";
        let resp = match sent {
            Ok(resp) => resp,
            Err(mut e) => {
                let failure = Failure::of(e.error(), tally, head);
                *req = e.take_message();
                return Err(failure);
            }
        };
        let status = resp.status().as_u16();
        if status == 101 {
            return Err(Failure::Invalid("101 Switching Protocols".into()));
        }
        progress.set(Stage::Answered);
        let what = if resp.headers().contains_key(header::TRANSFER_ENCODING) {
            "in the middle of a chunked body"
        } else {
            "before the whole body"
        };
        let location = resp
            .headers()
            .get(header::LOCATION)
            .map(|l| l.as_bytes().to_vec());
        let cap = caps.of(status);
        let mut incoming = resp.into_body();
        let announced = incoming.size_hint().exact();
        if announced.is_some_and(|len| len > cap as u64) {
            return Err(Failure::TooLarge { status });
        }
        let mut body = Vec::with_capacity(announced.unwrap_or(0) as usize);
        while let Some(frame) = driven(link, tally, progress, incoming.frame()).await {
            let frame = frame.map_err(|e| Failure::of(&e, tally, what))?;
            if let Ok(data) = frame.into_data() {
                if body.len() + data.len() > cap {
                    return Err(Failure::TooLarge { status });
                }
                body.extend_from_slice(&data);
            }
        }
        tally.settle();
        // One more turn of the connection: hyper reads the end of a connection that ended with
        // its answer, and gets ready for the next request.
        std::future::poll_fn(|cx| {
            if let Some(l) = link.as_mut() {
                if Pin::new(l).poll(cx).is_ready() {
                    *link = None;
                }
            }
            Poll::Ready(())
        })
        .await;
        // An answer that came while the request could not be written whole (a `413` before
        // the server closed) is the outcome; its connection is not used again.
        let again = link.is_some() && sender.is_ready() && tally.write_failure().is_none();
        let answer = Answer {
            status,
            location,
            body,
        };
        Ok((answer, again.then_some(self)))
    }
}

/// Kept connections, by authority: a lane's, or the process runtime's.
pub(super) struct Kept {
    idle: Vec<Idle>,
    per_authority: usize,
    /// The process runtime's (any of its calls can use one): see [`Lease::park`].
    shared: bool,
}

/// A kept connection and its lease (see [`super::gate`]).
struct Idle {
    authority: String,
    /// Both taken out together when the connection is used again.
    lease: Option<Lease>,
    conn: Option<Conn>,
}

impl Drop for Idle {
    /// The lease is given back under its lock before the socket closes (a waiter may be about
    /// to shut it down), and the permit freed after it (the server counts it open until then).
    fn drop(&mut self) {
        let permit = self.lease.as_ref().and_then(Lease::retire);
        drop(self.conn.take());
        drop(permit);
    }
}

impl Kept {
    /// A lane's: one thread, one call at a time.
    pub fn for_lane() -> Self {
        Kept {
            idle: Vec::new(),
            per_authority: KEEP_PER_AUTHORITY,
            shared: false,
        }
    }

    /// The process runtime's: any of its threads, many requests at once.
    pub fn for_process() -> Self {
        Kept {
            idle: Vec::new(),
            per_authority: KEEP_PER_AUTHORITY_SHARED,
            shared: true,
        }
    }

    /// How many connections are kept (for tests).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.idle.len()
    }

    /// A usable kept connection to `authority` and its lease (the unusable ones met on the
    /// way, and those a waiter closed, are closed).
    pub fn take(&mut self, authority: &str) -> Option<(Conn, Lease)> {
        while let Some(i) = self.idle.iter().rposition(|k| k.authority == authority) {
            let mut kept = self.idle.swap_remove(i);
            let ready = kept.lease.as_ref().is_some_and(Lease::unpark)
                && kept.conn.as_ref().is_some_and(Conn::usable);
            if ready {
                if let (Some(conn), Some(lease)) = (kept.conn.take(), kept.lease.take()) {
                    return Some((conn, lease));
                }
            }
        }
        None
    }

    /// Keep a connection for the next call to `authority` (see [`Lease::park`]: a lane's is
    /// closed while calls wait for one of `gate`'s permits).
    pub fn put(&mut self, authority: &str, mut conn: Conn, lease: Lease, gate: &Gate) {
        self.idle.retain(|k| {
            k.conn
                .as_ref()
                .is_some_and(|c| c.idle_since.elapsed() <= IDLE_LIMIT)
        });
        let full = self
            .idle
            .iter()
            .filter(|k| k.authority == authority)
            .count()
            >= self.per_authority;
        if full || !lease.park(gate, conn.raw, self.shared) {
            let permit = lease.retire();
            drop(conn);
            drop(permit);
            return;
        }
        conn.idle_since = Instant::now();
        self.idle.push(Idle {
            authority: authority.to_string(),
            lease: Some(lease),
            conn: Some(conn),
        });
    }
}

/// Connect to a target (see [`stream::open`]: its addresses raced, each with a share of
/// `limit`; TLS when `tls` is given), ready for hyper.
pub(super) async fn connect(
    address: &Address,
    tls: Option<&Arc<rustls::ClientConfig>>,
    limit: Duration,
) -> Result<Conn, Failure> {
    let stream = stream::open(address, tls, limit).await?;
    #[cfg(unix)]
    let raw = std::os::fd::AsRawFd::as_raw_fd(stream.tcp());
    #[cfg(windows)]
    let raw = std::os::windows::io::AsRawSocket::as_raw_socket(stream.tcp());
    let tally = Arc::new(Tally::default());
    let (sender, link) = h1::Builder::new()
        .max_header_size(MAX_HEAD)
        .handshake(TokioIo::new(Wire::new(stream, tally.clone())))
        .await
        .map_err(|e| Failure::Invalid(crate::error::chain(&e)))?;
    Ok(Conn {
        sender,
        link: Some(link),
        tally,
        raw,
        idle_since: Instant::now(),
    })
}

#[cfg(test)]
mod tests;
