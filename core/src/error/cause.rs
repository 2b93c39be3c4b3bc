//! Why a connection failed ([`Cause`]), read from an error's source chain (not from its text):
//! the hint of a transport error is chosen by it.

/// Why a connection failed, read from the error's source chain (not from its text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The server's certificate was not accepted.
    Certificate,
    /// Nothing listens on the port.
    Refused,
    /// The connection was reset or closed before a full answer.
    Dropped,
    /// A TLS handshake was answered with something that is not TLS: the port speaks plain
    /// HTTP (an `https://` URL for an `http://` application).
    PlainHttp,
    Other,
}

/// The cause of a transport failure: the first certificate error (rustls), refused or dropped
/// connection (`std::io::Error` kinds, hyper's closed or incomplete message) in the chain.
pub fn cause(err: &(dyn std::error::Error + 'static)) -> Cause {
    use std::io::ErrorKind;
    let mut pending: Vec<&(dyn std::error::Error + 'static)> = vec![err];
    while let Some(e) = pending.pop() {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            match tls {
                rustls::Error::InvalidCertificate(_) | rustls::Error::NoCertificatesPresented => {
                    return Cause::Certificate;
                }
                // The first byte of the answer is no TLS record type: a plain HTTP answer
                // ("HTTP/1.1 400 ...") to the client's hello.
                rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => {
                    return Cause::PlainHttp;
                }
                _ => {}
            }
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            match io.kind() {
                ErrorKind::ConnectionRefused => return Cause::Refused,
                ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::BrokenPipe
                | ErrorKind::UnexpectedEof => return Cause::Dropped,
                _ => {}
            }
            // An I/O error's `source()` skips the error it wraps (a TLS error, for one).
            if let Some(inner) = io.get_ref() {
                pending.push(inner);
            }
        }
        if let Some(h) = e.downcast_ref::<hyper::Error>() {
            if h.is_incomplete_message() || h.is_closed() || h.is_canceled() {
                return Cause::Dropped;
            }
        }
        if let Some(next) = e.source() {
            pending.push(next);
        }
    }
    Cause::Other
}
