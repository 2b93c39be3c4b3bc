//! showctl's own HTTP/1.1 exchange, for `http://` and `https://` targets
//! (docs/decisions/0007-http1-of-its-own.md).
//!
//! A paced call's CPU on a show machine is mostly the code it must fetch into a cold cache
//! (`benches/cold_calls.py`): through reqwest a call touched about 4,200 lines, 1,900 of them
//! in reqwest, hyper-util's pool, hyper, http, url and idna (the URL alone was parsed three
//! times per request). A request to a plain-HTTP application needs none of that machinery:
//! one request at a time per connection, no redirects, no proxy. So the transport writes the
//! request itself (the same bytes reqwest wrote) and reads the answer with `httparse` (hyper's
//! own parser), on connections it keeps per authority: a lane keeps its own (its blocking
//! calls), the process runtime keeps one set for its threads (awaitable calls, mirrors,
//! the feed). An `https://` target is the same exchange over tokio-rustls (see [`stream`]), so both
//! schemes follow one set of rules (docs/reliability.md, "One set of rules").
//!
//! What it reads: a status line and at most [`MAX_HEADERS`] headers in at most [`MAX_HEAD`]
//! bytes, however TCP or TLS split them (`1xx` skipped), then a body framed by
//! `Transfer-Encoding: chunked`, `Content-Length`, or the end of the connection; `204` and
//! `304` carry none. A connection is kept for the next request only when the answer was
//! HTTP/1.1, did not say `Connection: close`, was framed by its length or chunks, and nothing
//! followed it. A kept connection is checked before it is used (a server may have closed it
//! meanwhile: over TLS, any byte that arrived, `close_notify` included) and dropped after
//! [`IDLE_LIMIT`]. An answer that arrives while the request's body is still being written (a
//! `413` before the server closes) is read and returned as that answer.

use std::mem::MaybeUninit;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod stream;
#[cfg(test)]
pub(super) use stream::resolve_as;
pub(super) use stream::Stream;

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
/// The largest status line plus headers read.
pub(super) const MAX_HEAD: usize = 64 * 1024;
/// Headers read of one answer (hyper's limit, which reqwest applies).
pub(super) const MAX_HEADERS: usize = 100;
/// A connection's read buffer larger than this after an answer is not kept with it.
const KEEP_BUFFER: usize = 64 * 1024;

/// Where a target is (its authority, host, port and scheme), taken from its base URL once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Address {
    /// `host[:port]` as the `Host` header carries it (IPv6 in brackets).
    pub authority: String,
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

/// Whether a path and query is sent exactly as reqwest would send it: only the characters the
/// core's encoders produce, and no dot segment (which reqwest's URL parser would resolve).
pub(super) fn sent_as_is(path_and_query: &str) -> bool {
    let plain = path_and_query.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'/' | b'?'
                    | b'&'
                    | b'='
                    | b'%'
                    | b'-'
                    | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b':'
                    | b'@'
            )
    });
    let path = path_and_query.split('?').next().unwrap_or_default();
    plain && !path.split('/').any(dot_segment)
}

/// `.` or `..`, each dot as it is or as `%2e` (which reqwest's URL parser resolves too).
fn dot_segment(segment: &str) -> bool {
    let (mut rest, mut dots) = (segment.as_bytes(), 0);
    while !rest.is_empty() {
        rest = match rest {
            [b'.', tail @ ..] => tail,
            [b'%', b'2', e, tail @ ..] if e.eq_ignore_ascii_case(&b'e') => tail,
            _ => return false,
        };
        dots += 1;
    }
    dots == 1 || dots == 2
}

/// A request as written on the wire.
pub(super) struct Outgoing<'a> {
    pub method: &'static str,
    /// The request target: the base's path, the request's path and its query.
    pub target: &'a str,
    pub authority: &'a str,
    /// The `Authorization` header's value.
    pub auth: Option<&'a [u8]>,
    /// A JSON body.
    pub body: Option<&'a [u8]>,
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
    /// The body is larger than its cap (announced or as read).
    TooLarge { status: u16 },
}

/// A connection kept between requests.
pub(super) struct Conn {
    stream: Stream,
    buf: Vec<u8>,
    idle_since: Instant,
}

impl Conn {
    /// The socket, for its gate to shut down while it is kept idle (see [`Lease::park`]).
    fn raw(&self) -> RawSock {
        #[cfg(unix)]
        return std::os::fd::AsRawFd::as_raw_fd(self.stream.tcp());
        #[cfg(windows)]
        return std::os::windows::io::AsRawSocket::as_raw_socket(self.stream.tcp());
    }

    /// Whether a kept connection can carry the next request: not idle too long, and not closed
    /// (or written to) by the server meanwhile. One non-blocking peek, no read from the driver.
    fn usable(&self) -> bool {
        if self.idle_since.elapsed() > IDLE_LIMIT {
            return false;
        }
        let mut byte = [MaybeUninit::<u8>::uninit(); 1];
        match socket2::SockRef::from(self.stream.tcp()).peek(&mut byte) {
            Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
            // End of stream, or bytes nobody asked for (a 408 before a close).
            Ok(_) => false,
        }
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
        if full || !lease.park(gate, conn.raw(), self.shared) {
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

/// Note how much of the answer `buf` holds: a final status line (`HTTP/1.x NNN ...` and its end,
/// not `1xx`) means the application acted on the request.
fn note_answer(buf: &[u8], progress: &Progress) {
    if buf.is_empty() || progress.stage() == Stage::Answered {
        return;
    }
    let line_ended = memchr::memchr(b'\n', buf).is_some();
    let informational = buf.get(9) == Some(&b'1');
    progress.set(if line_ended && !informational {
        Stage::Answered
    } else {
        Stage::Started
    });
}

/// Connect to a target (see [`stream::open`]: its addresses raced, each with a share of
/// `limit`; TLS when `tls` is given).
pub(super) async fn connect(
    address: &Address,
    tls: Option<&std::sync::Arc<rustls::ClientConfig>>,
    limit: std::time::Duration,
) -> Result<Conn, Failure> {
    Ok(Conn {
        stream: stream::open(address, tls, limit).await?,
        buf: Vec::with_capacity(4096),
        idle_since: Instant::now(),
    })
}

/// The request's bytes: what reqwest wrote for the same request, header for header.
fn write_request(out: &mut Vec<u8>, req: &Outgoing<'_>) {
    out.clear();
    out.extend_from_slice(req.method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(req.target.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    if let Some(auth) = req.auth {
        out.extend_from_slice(b"authorization: ");
        out.extend_from_slice(auth);
        out.extend_from_slice(b"\r\n");
    }
    if req.body.is_some() {
        out.extend_from_slice(b"content-type: application/json\r\n");
    }
    out.extend_from_slice(b"accept: */*\r\nuser-agent: ");
    out.extend_from_slice(super::USER_AGENT_VALUE.as_bytes());
    out.extend_from_slice(b"\r\nhost: ");
    out.extend_from_slice(req.authority.as_bytes());
    out.extend_from_slice(b"\r\n");
    if let Some(body) = req.body {
        out.extend_from_slice(b"content-length: ");
        out.extend_from_slice(body.len().to_string().as_bytes());
        out.extend_from_slice(b"\r\n\r\n");
        out.extend_from_slice(body);
    } else {
        out.extend_from_slice(b"\r\n");
    }
}

/// How an answer's body ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    Empty,
    Length(u64),
    Chunked,
    /// Read to the end of the connection.
    Close,
}

/// What the head of an answer says.
struct Head {
    status: u16,
    location: Option<Vec<u8>>,
    framing: Framing,
    keep_alive: bool,
    /// Where the body starts in the buffer.
    len: usize,
}

/// Parse a complete head at the start of `buf`; `None` while it is incomplete.
fn parse_head(buf: &[u8]) -> Result<Option<Head>, Failure> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let too_large =
        || Failure::Invalid(format!("the answer's head is larger than {MAX_HEAD} bytes"));
    // The limit holds for the head's size, whether it came in one read or many.
    let len = match resp.parse(buf) {
        Ok(httparse::Status::Complete(len)) if len > MAX_HEAD => return Err(too_large()),
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD => return Err(too_large()),
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(Failure::Invalid(format!(
                "the answer has more than {MAX_HEADERS} headers"
            )))
        }
        Err(e) => return Err(Failure::Invalid(e.to_string())),
    };
    let status = resp.code.unwrap_or_default();
    let mut keep_alive = resp.version == Some(1);
    let (mut length, mut chunked, mut encoded, mut location) = (None, false, false, None);
    for h in resp.headers.iter() {
        let name = h.name;
        if name.eq_ignore_ascii_case("content-length") {
            // A list (`13, 13`) counts as that many headers: every value must be the same
            // (RFC 9110, 8.6; as hyper reads it).
            for item in h.value.split(|b| *b == b',') {
                let item = item.trim_ascii();
                let value = std::str::from_utf8(item)
                    .ok()
                    .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse::<u64>().ok())
                    .ok_or_else(|| Failure::Invalid("invalid Content-Length".into()))?;
                if length.is_some_and(|l| l != value) {
                    return Err(Failure::Invalid(
                        "conflicting Content-Length headers".into(),
                    ));
                }
                length = Some(value);
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            encoded = true;
            // Chunked only when it is the last coding applied.
            chunked = h
                .value
                .rsplit(|b| *b == b',')
                .next()
                .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if name.eq_ignore_ascii_case("connection") {
            if h.value
                .split(|b| *b == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"close"))
            {
                keep_alive = false;
            }
        } else if name.eq_ignore_ascii_case("location") {
            location = Some(h.value.to_vec());
        }
    }
    let framing = if status == 204 || status == 304 || (100..200).contains(&status) {
        Framing::Empty
    } else if encoded {
        // A Content-Length beside a Transfer-Encoding is ignored (RFC 9112, 6.3).
        if chunked {
            Framing::Chunked
        } else {
            Framing::Close
        }
    } else {
        length.map_or(Framing::Close, Framing::Length)
    };
    if framing == Framing::Close || (encoded && length.is_some()) {
        keep_alive = false;
    }
    Ok(Some(Head {
        status,
        location,
        framing,
        keep_alive,
        len,
    }))
}

impl Conn {
    /// Read more of the answer; `Ok(0)` at the end of the connection.
    async fn fill(&mut self) -> Result<usize, Failure> {
        if self.buf.capacity() - self.buf.len() < 2048 {
            self.buf.reserve(8192.max(self.buf.len()));
        }
        self.stream
            .read_buf(&mut self.buf)
            .await
            .map_err(Failure::Io)
    }

    /// Read until `buf` holds at least `want` bytes.
    async fn fill_to(&mut self, want: usize, what: &'static str) -> Result<(), Failure> {
        while self.buf.len() < want {
            if self.fill().await? == 0 {
                return Err(Failure::Closed {
                    received: self.buf.len(),
                    what,
                });
            }
        }
        Ok(())
    }

    /// Read the head of the answer (skipping `1xx` answers).
    async fn read_head(&mut self, progress: &Progress) -> Result<Head, Failure> {
        loop {
            note_answer(&self.buf, progress);
            if let Some(head) = parse_head(&self.buf)? {
                if head.status == 101 {
                    return Err(Failure::Invalid("101 Switching Protocols".into()));
                }
                if (100..200).contains(&head.status) {
                    self.buf.drain(..head.len);
                    continue;
                }
                return Ok(head);
            }
            if self.fill().await? == 0 {
                return Err(Failure::Closed {
                    received: self.buf.len(),
                    what: "before a complete answer",
                });
            }
        }
    }

    /// Read a body of `len` bytes that starts at `pos`; returns it and where the answer ends in
    /// the buffer. What came with the head is taken from the buffer; the rest is read straight
    /// into the body, sized once (a large answer, such as the playlist tree, is neither grown
    /// step by step nor copied out of the buffer).
    async fn read_length(&mut self, pos: usize, len: usize) -> Result<(Vec<u8>, usize), Failure> {
        let have = (self.buf.len() - pos).min(len);
        let mut body = Vec::with_capacity(len);
        body.extend_from_slice(&self.buf[pos..pos + have]);
        while body.len() < len {
            // The spare capacity is exactly what is missing: nothing past the body is read.
            let n = self.stream.read_buf(&mut body).await.map_err(Failure::Io)?;
            if n == 0 {
                return Err(Failure::Closed {
                    received: pos + body.len(),
                    what: "before the whole body",
                });
            }
        }
        if have < len {
            // The rest of the body was read past the buffer, which ends with the answer.
            self.buf.truncate(pos);
            return Ok((body, pos));
        }
        Ok((body, pos + len))
    }

    /// Read a chunked body that starts at `pos`; returns it and where the answer ends.
    async fn read_chunked(
        &mut self,
        mut pos: usize,
        cap: usize,
        status: u16,
    ) -> Result<(Vec<u8>, usize), Failure> {
        let mut body = Vec::new();
        loop {
            let (used, size) = loop {
                match httparse::parse_chunk_size(&self.buf[pos..]) {
                    Ok(httparse::Status::Complete(found)) => break found,
                    Ok(httparse::Status::Partial) if self.buf.len() - pos > 1024 => {
                        return Err(Failure::Invalid("invalid chunk size line".into()))
                    }
                    Ok(httparse::Status::Partial) => {
                        self.fill_to(self.buf.len() + 1, "in the middle of a chunked body")
                            .await?
                    }
                    Err(_) => return Err(Failure::Invalid("invalid chunk size line".into())),
                }
            };
            pos += used;
            if size == 0 {
                return Ok((body, self.read_trailers(pos).await?));
            }
            let size = usize::try_from(size)
                .ok()
                .filter(|s| body.len().saturating_add(*s) <= cap)
                .ok_or(Failure::TooLarge { status })?;
            self.fill_to(pos + size + 2, "in the middle of a chunked body")
                .await?;
            body.extend_from_slice(&self.buf[pos..pos + size]);
            pos += size;
            if &self.buf[pos..pos + 2] != b"\r\n" {
                return Err(Failure::Invalid("a chunk does not end in CRLF".into()));
            }
            pos += 2;
            // What was read is not kept: the buffer holds at most a chunk and a line ahead.
            self.buf.drain(..pos);
            pos = 0;
        }
    }

    /// Skip the trailer section that starts at `pos`; returns where the answer ends.
    async fn read_trailers(&mut self, pos: usize) -> Result<usize, Failure> {
        let mut line = pos;
        loop {
            let Some(nl) = memchr::memchr(b'\n', &self.buf[line..]) else {
                if self.buf.len() - pos > MAX_HEAD {
                    return Err(Failure::Invalid("the trailers are too large".into()));
                }
                self.fill_to(self.buf.len() + 1, "in the trailers of a chunked body")
                    .await?;
                continue;
            };
            let content = &self.buf[line..line + nl];
            let empty = content.is_empty() || content == b"\r";
            line += nl + 1;
            if empty {
                return Ok(line);
            }
            if line - pos > MAX_HEAD {
                return Err(Failure::Invalid("the trailers are too large".into()));
            }
        }
    }

    /// Send a request and read its whole answer; the connection comes back when it can carry
    /// another.
    #[cfg(test)]
    pub async fn exchange(
        self,
        req: &Outgoing<'_>,
        caps: Caps,
    ) -> Result<(Answer, Option<Conn>), Failure> {
        self.exchange_noting(req, caps, &Progress::default()).await
    }

    /// [`Conn::exchange`], noting in `progress` how far it got: written, part of the answer
    /// read, a final status line read.
    pub async fn exchange_noting(
        mut self,
        req: &Outgoing<'_>,
        caps: Caps,
        progress: &Progress,
    ) -> Result<(Answer, Option<Conn>), Failure> {
        // The read buffer is empty between answers; it carries the request out meanwhile.
        write_request(&mut self.buf, req);
        progress.set(Stage::Writing);
        let written = match self.stream.write_all(&self.buf).await {
            Ok(()) => self.stream.flush().await,
            Err(e) => Err(e),
        };
        self.buf.clear();
        let head = match written {
            Ok(()) => {
                progress.set(Stage::Sent);
                self.read_head(progress).await?
            }
            // The server may have answered before it stopped reading (a `413` to a large body,
            // then a close): that answer is the outcome, and the connection is not kept.
            Err(e) => match self.read_head(progress).await {
                Ok(head) => Head {
                    keep_alive: false,
                    ..head
                },
                Err(_) => return Err(Failure::Io(e)),
            },
        };
        let cap_here = caps.of(head.status);
        let (body, end) = match head.framing {
            Framing::Empty => (Vec::new(), head.len),
            Framing::Length(len) => {
                let len = usize::try_from(len).ok().filter(|l| *l <= cap_here).ok_or(
                    Failure::TooLarge {
                        status: head.status,
                    },
                )?;
                self.read_length(head.len, len).await?
            }
            Framing::Chunked => self.read_chunked(head.len, cap_here, head.status).await?,
            Framing::Close => {
                loop {
                    if self.buf.len() - head.len > cap_here {
                        return Err(Failure::TooLarge {
                            status: head.status,
                        });
                    }
                    if self.fill().await? == 0 {
                        break;
                    }
                }
                (self.buf[head.len..].to_vec(), self.buf.len())
            }
        };
        let again = head.keep_alive && end == self.buf.len() && self.stream.quiet();
        let answer = Answer {
            status: head.status,
            location: head.location,
            body,
        };
        if !again {
            return Ok((answer, None));
        }
        self.buf.clear();
        if self.buf.capacity() > KEEP_BUFFER {
            self.buf = Vec::with_capacity(4096);
        }
        Ok((answer, Some(self)))
    }
}

#[cfg(test)]
mod tests;
