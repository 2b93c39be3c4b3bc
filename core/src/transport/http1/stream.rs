//! The connection under an exchange, plain TCP or TLS over it, and how it is made: every
//! address of the name tried as a browser does (RFC 8305, "Happy Eyeballs"), then the TLS
//! handshake for an `https://` target.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

use super::{Address, Failure};

/// How long an attempt to connect to one address runs alone before the next address is tried
/// beside it (RFC 8305's "Connection Attempt Delay", its recommended value).
pub(in crate::transport) const ATTEMPT_DELAY: Duration = Duration::from_millis(250);

/// A connection: plain TCP, or TLS over it.
pub(in crate::transport) enum Stream {
    Tcp(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl Stream {
    /// The TCP connection under it.
    pub(super) fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Tcp(s) => s,
            Stream::Tls(s) => s.get_ref().0,
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => match Pin::new(s.as_mut()).poll_read(cx, buf) {
                // A server that closes its TCP connection without `close_notify` (many do)
                // ends it as a plain-HTTP server would: the end of the stream, which is the end
                // of a close-delimited body and a cut-short answer for any other framing.
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    Poll::Ready(Ok(()))
                }
                other => other,
            },
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Tcp(s) => s.is_write_vectored(),
            Stream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// Addresses given to a host name by a test instead of the resolver.
#[cfg(test)]
static RESOLVED: std::sync::Mutex<Vec<(String, Vec<SocketAddr>)>> =
    std::sync::Mutex::new(Vec::new());

/// Resolve `host` to `addrs` in this process's tests (a name whose first address is silent).
#[cfg(test)]
pub(in crate::transport) fn resolve_as(host: &str, addrs: Vec<SocketAddr>) {
    let mut names = RESOLVED.lock().unwrap();
    names.retain(|(h, _)| h != host);
    names.push((host.to_string(), addrs));
}

/// Every address of the target's host, both families interleaved from the first one's.
async fn addresses(address: &Address) -> Result<Vec<SocketAddr>, Failure> {
    if let Ok(ip) = address.host.parse::<IpAddr>() {
        return Ok(vec![(ip, address.port).into()]);
    }
    #[cfg(test)]
    if let Some((_, addrs)) = RESOLVED
        .lock()
        .unwrap()
        .iter()
        .find(|(h, _)| *h == address.host)
    {
        return Ok(interleave(addrs.clone()));
    }
    let found = tokio::net::lookup_host((address.host.as_str(), address.port))
        .await
        .map_err(Failure::Resolve)?
        .collect();
    Ok(interleave(found))
}

/// The addresses in the order RFC 8305 tries them: the first one's family, then the other,
/// alternating, each family in the resolver's order.
pub(in crate::transport) fn interleave(addrs: Vec<SocketAddr>) -> Vec<SocketAddr> {
    let Some(first) = addrs.first() else {
        return addrs;
    };
    let v6_first = first.is_ipv6();
    let (mut firsts, mut others): (Vec<SocketAddr>, Vec<SocketAddr>) =
        addrs.iter().partition(|a| a.is_ipv6() == v6_first);
    let mut out = Vec::with_capacity(addrs.len());
    firsts.reverse();
    others.reverse();
    while !firsts.is_empty() || !others.is_empty() {
        out.extend(firsts.pop());
        out.extend(others.pop());
    }
    out
}

/// One connection attempt, bounded by `limit`.
async fn attempt(addr: SocketAddr, limit: Duration) -> io::Result<TcpStream> {
    match tokio::time::timeout(limit, TcpStream::connect(addr)).await {
        Ok(done) => done,
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("{addr} did not accept within {:.3}s", limit.as_secs_f64()),
        )),
    }
}

/// Connect to the first of `addrs` that accepts: an attempt starts [`ATTEMPT_DELAY`] after the
/// one before it, or at once when that one fails; each is bounded by `per_address`; the first
/// connection made wins and the other attempts are dropped (their sockets closed).
pub(in crate::transport) async fn race(
    addrs: Vec<SocketAddr>,
    per_address: Duration,
) -> io::Result<TcpStream> {
    let mut waiting = addrs.into_iter();
    let mut running = FuturesUnordered::new();
    let mut last = None;
    if let Some(addr) = waiting.next() {
        running.push(attempt(addr, per_address));
    }
    let mut next = waiting.next();
    while !running.is_empty() {
        let stagger = tokio::time::sleep(ATTEMPT_DELAY);
        tokio::select! {
            Some(done) = running.next() => match done {
                Ok(stream) => return Ok(stream),
                Err(e) => {
                    last = Some(e);
                    if let Some(addr) = next.take() {
                        running.push(attempt(addr, per_address));
                        next = waiting.next();
                    }
                }
            },
            () = stagger, if next.is_some() => {
                if let Some(addr) = next.take() {
                    running.push(attempt(addr, per_address));
                    next = waiting.next();
                }
            }
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no address to connect to")))
}

/// Connect to a target: its addresses raced (see [`race`]), each given an equal share of
/// `limit` (the attempt's timeout), then the TLS handshake when `tls` is given (an `https://`
/// target; the configuration of [`crate::tls::client_config`] with ALPN `http/1.1` only).
pub(in crate::transport) async fn open(
    address: &Address,
    tls: Option<&Arc<rustls::ClientConfig>>,
    limit: Duration,
) -> Result<Stream, Failure> {
    let addrs = addresses(address).await?;
    if addrs.is_empty() {
        return Err(Failure::Connect(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} resolved to no address", address.host),
        )));
    }
    let share = u32::try_from(addrs.len()).unwrap_or(u32::MAX);
    let per_address = (limit / share).max(ATTEMPT_DELAY);
    let tcp = race(addrs, per_address).await.map_err(Failure::Connect)?;
    tcp.set_nodelay(true).map_err(Failure::Connect)?;
    let Some(config) = tls else {
        return Ok(Stream::Tcp(tcp));
    };
    let name = rustls::pki_types::ServerName::try_from(address.host.clone())
        .map_err(|e| Failure::Tls(io::Error::new(io::ErrorKind::InvalidInput, e)))?;
    let connector = tokio_rustls::TlsConnector::from(config.clone());
    let stream = connector.connect(name, tcp).await.map_err(Failure::Tls)?;
    Ok(Stream::Tls(Box::new(stream)))
}
