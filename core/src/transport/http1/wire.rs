//! The connection as hyper reads and writes it ([`Wire`]): the [`Stream`] under it, noting in a
//! [`Tally`] how far the exchange under way got (bytes written, bytes of the answer read, a
//! final status line seen), and ending a connection whose request was given up with a reset.
//!
//! hyper says when an answer's head was parsed; the delivery stages need to know more: whether
//! a byte of the request went out (`sent_no_answer` from then on), whether a byte of the answer
//! came back (a kept connection's request is then never sent again), and whether a final status
//! line arrived before the head was complete (the application acted on the request even if the
//! rest of the head is refused). The stream is where those facts are, so it counts them.
//!
//! A connection dropped while its request is under way (written, its answer not read to the
//! end: a timeout, a cancelled future, Ctrl-C of a blocking call, a client closing, a failure)
//! is aborted with a reset (`SO_LINGER` 0) instead of closed: a normal close would leave the
//! request in the kernel's send queue, delivered later if the path comes back. A connection
//! dropped between requests (idle, or after a complete answer) closes normally, and a call that
//! succeeds makes no system call for this.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::Stream;

/// How far the exchange under way on a connection got, as its stream saw it.
#[derive(Default)]
pub(in crate::transport) struct Tally {
    /// Bytes of the request written (0 between requests: nothing is under way).
    written: AtomicUsize,
    /// Bytes of the answer read.
    read: AtomicUsize,
    /// The answer's first line: [`LINE_OPEN`], [`LINE_FINAL`] or [`LINE_INFORMATIONAL`].
    line: AtomicU8,
    /// The tenth byte of the answer was `1` (a `1xx` status).
    informational: AtomicBool,
    /// How many of the answer's first bytes were `HTTP/`'s (5: the first line may be a status
    /// line; fewer: it is not, whenever it ends).
    prefix: AtomicU8,
    /// Writing failed because the server closed or reset the connection: the operating
    /// system's error number (0: no failure; -1: one without a number).
    write_failed: AtomicI32,
}

const LINE_OPEN: u8 = 0;
/// The first line of the answer ended, and it is a final status (not `1xx`).
const LINE_FINAL: u8 = 1;
/// The first line ended and is a `1xx`: the final status line is hyper's to find.
const LINE_INFORMATIONAL: u8 = 2;
/// The first line ended and is not a status line (it does not begin with `HTTP/`).
const LINE_NOT_HTTP: u8 = 3;

impl Tally {
    /// A new request goes out on the connection.
    pub(super) fn start(&self) {
        self.written.store(0, Ordering::Relaxed);
        self.read.store(0, Ordering::Relaxed);
        self.line.store(LINE_OPEN, Ordering::Relaxed);
        self.informational.store(false, Ordering::Relaxed);
        self.prefix.store(0, Ordering::Relaxed);
        self.write_failed.store(0, Ordering::Relaxed);
    }

    /// The error of a write that failed because the server closed or reset the connection.
    pub(super) fn write_failure(&self) -> Option<io::Error> {
        match self.write_failed.load(Ordering::Relaxed) {
            0 => None,
            -1 => Some(io::ErrorKind::BrokenPipe.into()),
            code => Some(io::Error::from_raw_os_error(code)),
        }
    }

    /// The answer was read to its end: nothing is under way any more.
    pub(super) fn settle(&self) {
        self.written.store(0, Ordering::Relaxed);
    }

    pub(super) fn written(&self) -> usize {
        self.written.load(Ordering::Relaxed)
    }

    pub(super) fn read(&self) -> usize {
        self.read.load(Ordering::Relaxed)
    }

    /// Whether a final status line (`HTTP/1.x NNN ...`, not `1xx`) arrived.
    pub(super) fn status_line(&self) -> bool {
        self.line.load(Ordering::Relaxed) == LINE_FINAL
    }

    /// Note what a write of `len` bytes did (a failure because the server is gone is noted
    /// and reported as done: see [`Wire`]).
    fn note_write(&self, out: Poll<io::Result<usize>>, len: usize) -> Poll<io::Result<usize>> {
        match out {
            Poll::Ready(Ok(n)) => {
                self.written.fetch_add(n, Ordering::Relaxed);
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) if peer_gone(&e) => {
                let code = e.raw_os_error().filter(|c| *c != 0).unwrap_or(-1);
                let _ = self.write_failed.compare_exchange(
                    0,
                    code,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
                Poll::Ready(Ok(len))
            }
            other => other,
        }
    }

    /// Note `bytes` of the answer, read after `before` others.
    fn note_read(&self, before: usize, bytes: &[u8]) {
        self.read.store(before + bytes.len(), Ordering::Relaxed);
        if self.line.load(Ordering::Relaxed) != LINE_OPEN {
            return;
        }
        if before <= 9 && bytes.len() > 9 - before && bytes[9 - before] == b'1' {
            self.informational.store(true, Ordering::Relaxed);
        }
        // Whether the line begins with `HTTP/`: garbage that ends a line is no status line,
        // whether hyper refuses it at its first byte or after the line ended (TCP may bring
        // the line in one read or in several).
        let mut prefix = self.prefix.load(Ordering::Relaxed);
        for (at, byte) in (before..).zip(bytes.iter()).take_while(|(at, _)| *at < 5) {
            if usize::from(prefix) == at && *byte == b"HTTP/"[at] {
                prefix += 1;
            }
        }
        self.prefix.store(prefix, Ordering::Relaxed);
        if memchr::memchr(b'\n', bytes).is_some() {
            let line = if prefix < 5 {
                LINE_NOT_HTTP
            } else if self.informational.load(Ordering::Relaxed) {
                LINE_INFORMATIONAL
            } else {
                LINE_FINAL
            };
            self.line.store(line, Ordering::Relaxed);
        }
    }
}

/// Whether a write failed because the server closed or reset the connection.
fn peer_gone(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
    )
}

/// The stream under hyper's connection, counting into its [`Tally`].
///
/// A write that fails because the server closed or reset the connection is noted and reported
/// to hyper as done: the server may have answered before it stopped reading (a `413` to a
/// large body, then a close), and hyper then reads that answer, which is the outcome. When no
/// answer comes, the exchange fails with the write's error (see [`Tally::write_failure`]).
pub(in crate::transport) struct Wire {
    stream: Stream,
    tally: Arc<Tally>,
}

impl Wire {
    pub(super) fn new(stream: Stream, tally: Arc<Tally>) -> Self {
        Wire { stream, tally }
    }
}

impl Drop for Wire {
    /// A request under way is given up: reset the connection rather than close it (see the
    /// module documentation).
    fn drop(&mut self) {
        if self.tally.written() > 0 {
            let _ = socket2::SockRef::from(self.stream.tcp()).set_linger(Some(Duration::ZERO));
        }
    }
}

impl AsyncRead for Wire {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let start = buf.filled().len();
        let out = Pin::new(&mut me.stream).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = out {
            let new = &buf.filled()[start..];
            if !new.is_empty() {
                me.tally.note_read(me.tally.read(), new);
            }
        }
        out
    }
}

impl AsyncWrite for Wire {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let out = Pin::new(&mut me.stream).poll_write(cx, buf);
        me.tally.note_write(out, buf.len())
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let out = Pin::new(&mut me.stream).poll_write_vectored(cx, bufs);
        me.tally.note_write(out, bufs.iter().map(|b| b.len()).sum())
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let out = Pin::new(&mut me.stream).poll_flush(cx);
        me.tally.note_write(out.map_ok(|()| 0), 0).map_ok(|_| ())
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::Tally;

    /// A first line is a status line when it begins with `HTTP/`, however the reads cut it.
    #[test]
    fn a_status_line_is_told_from_garbage_however_the_answer_arrives() {
        for (answer, status) in [
            (&b"HTTP/1.1 200 OK\r\n\r\n"[..], true),
            (b"\0this is not HTTP\r\n\r\n", false),
            (b"HTTX/1.1 200 OK\r\n\r\n", false),
            (b"HTTP/1.1 100 Continue\r\n\r\n", false),
        ] {
            for piece in [1, 2, 4, 7, answer.len()] {
                let t = Tally::default();
                t.start();
                let mut before = 0;
                for chunk in answer.chunks(piece) {
                    t.note_read(before, chunk);
                    before += chunk.len();
                }
                assert_eq!(
                    t.status_line(),
                    status,
                    "{:?} in pieces of {piece}",
                    String::from_utf8_lossy(answer)
                );
            }
        }
    }
}
