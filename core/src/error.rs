//! The error type of the core. The binding maps each variant to one exception class of its
//! own.

use std::fmt::Write as _;

/// Longest part of a response body kept in an error (bytes of UTF-8, cut on a char boundary).
pub const BODY_EXCERPT: usize = 512;

#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The application answered with a status outside 2xx.
    #[error("{message}")]
    Api {
        status: u16,
        method: String,
        url: String,
        body: String,
        message: String,
    },
    /// No connection could be made, or it broke before a full answer arrived.
    #[error("{message}")]
    Connect {
        method: String,
        url: String,
        message: String,
        /// Whether the request went out before the failure.
        delivery: Delivery,
    },
    /// No complete answer within the timeout.
    #[error("{message}")]
    Timeout {
        method: String,
        url: String,
        message: String,
        /// Whether the request went out before the time ran out.
        delivery: Delivery,
    },
    /// The answer was not the JSON the endpoint returns.
    #[error("{message}")]
    Decode {
        method: String,
        url: String,
        body: String,
        message: String,
    },
    /// Refused on the client side before anything was sent.
    #[error("{0}")]
    InvalidInput(String),
    /// A command was answered with 200 but reading back never showed the expected value
    /// (`expected` and `actual` as JSON; `actual` is null when the read itself failed).
    #[error("{message}")]
    NotConfirmed {
        method: String,
        url: String,
        message: String,
        expected: Box<serde_json::Value>,
        actual: Box<serde_json::Value>,
    },
    /// A name looked up in the application's lists matched nothing, or more than one thing.
    #[error("{0}")]
    Lookup(String),
    /// The client was closed; no request is sent.
    #[error("the client is closed: create a new client to send requests")]
    Closed,
    /// Any other failure of the library itself (a bug, never a hang or a crash).
    #[error("{0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Whether a failed call's request reached the application: what automation needs to know
/// before it fires a command again. Ordered by how far the request got (`NotSent` first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Delivery {
    /// Nothing of the request left this process (refused before sending, no connection, the
    /// time ran out waiting for one): firing it again cannot run it twice.
    NotSent,
    /// The request went out and no answer came: the application may or may not have acted.
    SentNoAnswer,
    /// The application answered (an error status, an answer that could not be read, or a
    /// read-back that did not confirm).
    Answered,
}

impl Delivery {
    /// How far a call got: `Answered` when it succeeded, else its error's delivery.
    pub fn of<T>(result: &Result<T>) -> Delivery {
        result
            .as_ref()
            .err()
            .map_or(Delivery::Answered, Error::delivery)
    }

    /// `"not_sent"`, `"sent_no_answer"` or `"answered"` (as the error attribute and JSON spell it).
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::NotSent => "not_sent",
            Delivery::SentNoAnswer => "sent_no_answer",
            Delivery::Answered => "answered",
        }
    }
}

impl std::fmt::Display for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidInput(msg.into())
    }

    /// A 401 saying whether a key was sent and how to give one (`env`: the variable the key
    /// is read from); any other error as it is.
    pub fn key_hint(self, key_sent: bool, env: &str) -> Self {
        match self {
            Error::Api {
                status: 401,
                method,
                url,
                body,
                message,
            } => {
                let hint = if key_sent {
                    format!(
                        "authorization failed: the API key sent was refused; check it against \
                         the application's preferences (api_key= or {env})"
                    )
                } else {
                    format!(
                        "authorization failed: no API key was sent; pass api_key=\"KEY\" or set \
                         {env}"
                    )
                };
                Error::Api {
                    status: 401,
                    method,
                    url,
                    body,
                    message: message.replacen(UNAUTHORIZED, &hint, 1),
                }
            }
            other => other,
        }
    }

    /// The error of the last of `attempts` attempts, saying so: a timeout after retries
    /// `(3 attempts of 5.0 s)`, so that it does not read as one wait of `timeout`; a
    /// connection failure `(3 attempts)`.
    pub fn after_attempts(self, attempts: u32, timeout: std::time::Duration) -> Self {
        match self {
            Error::Timeout {
                method,
                url,
                message,
                delivery,
            } => Error::Timeout {
                method,
                url,
                delivery,
                message: format!(
                    "{message} ({attempts} attempts of {:.1} s)",
                    timeout.as_secs_f64()
                ),
            },
            Error::Connect {
                method,
                url,
                message,
                delivery,
            } => Error::Connect {
                method,
                url,
                delivery,
                message: format!("{message} ({attempts} attempts)"),
            },
            other => other,
        }
    }

    /// Whether the request of the failed call went out (see [`Delivery`]). A failure of the
    /// library itself cannot say, so it reads as sent without an answer.
    pub fn delivery(&self) -> Delivery {
        match self {
            Error::Connect { delivery, .. } | Error::Timeout { delivery, .. } => *delivery,
            Error::Api { .. } | Error::Decode { .. } | Error::NotConfirmed { .. } => {
                Delivery::Answered
            }
            Error::InvalidInput(_) | Error::Lookup(_) | Error::Closed => Delivery::NotSent,
            Error::Internal(_) => Delivery::SentNoAnswer,
        }
    }

    /// This error, saying the request got at least as far as `delivery` (an earlier attempt of
    /// the same call went out, or was answered: the last one failing before it was sent does
    /// not make the call unsent).
    pub fn delivered_at_least(mut self, delivery: Delivery) -> Self {
        if let Error::Connect { delivery: d, .. } | Error::Timeout { delivery: d, .. } = &mut self {
            *d = (*d).max(delivery);
        }
        self
    }

    /// Status of an `Api` error.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// True for the failures a GET is retried on: connection failure, timeout, 500, 503.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Connect { .. } | Error::Timeout { .. } => true,
            Error::Api { status, .. } => *status == 500 || *status == 503,
            _ => false,
        }
    }

    pub fn api(status: u16, method: &str, url: &str, body: &[u8]) -> Self {
        let body = excerpt(body);
        let meaning = meaning(status);
        let mut message = format!(
            "{status} {} for {method} {}",
            meaning.reason,
            shown_url(url)
        );
        if let Some(hint) = meaning.hint {
            let _ = write!(message, ": {hint}");
        }
        if !body.trim().is_empty() {
            let _ = write!(message, "; body: {}", body_summary(&body));
        }
        Error::Api {
            status,
            method: method.to_string(),
            url: url.to_string(),
            body,
            message,
        }
    }

    pub fn decode(method: &str, url: &str, body: &[u8], what: impl std::fmt::Display) -> Self {
        let body = excerpt(body);
        let mut message = format!(
            "could not decode the answer to {method} {}: {what}",
            shown_url(url)
        );
        if is_html(&body) {
            let _ = write!(
                message,
                "; body: {} (is this the documentation port rather than the API port?)",
                body_summary(&body)
            );
        } else if !body.trim().is_empty() {
            let _ = write!(message, "; body: {}", body_summary(&body));
        } else {
            message.push_str("; the body was empty");
        }
        Error::Decode {
            method: method.to_string(),
            url: url.to_string(),
            body,
            message,
        }
    }
}

/// The first [`BODY_EXCERPT`] bytes of a body as text, lossy, cut on a character boundary;
/// a longer body ends with `… (N more bytes)`.
pub fn excerpt(body: &[u8]) -> String {
    if body.len() <= BODY_EXCERPT {
        return String::from_utf8_lossy(body).into_owned();
    }
    // Only the head is decoded: a huge body is never copied whole into an error.
    let mut end = BODY_EXCERPT;
    while end > 0 && (body[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    format!(
        "{}… ({} more bytes)",
        String::from_utf8_lossy(&body[..end]),
        body.len() - end
    )
}

/// Longest URL shown in an error message (a request to a huge name says how much was cut).
pub const URL_SHOWN: usize = 256;

/// A URL as shown in an error message: at most [`URL_SHOWN`] bytes, then `… (N more bytes)`.
pub fn shown_url(url: &str) -> String {
    capped(url, URL_SHOWN, "bytes")
}

/// `text` cut to at most `max` bytes on a character boundary; what was cut is counted.
pub fn capped(text: &str, max: usize, unit: &str) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more {unit})", &text[..end], text.len() - end)
}

/// True when a body is an HTML page (a web server's error page, a documentation site).
pub fn is_html(body: &str) -> bool {
    let head: String = body
        .trim_start()
        .chars()
        .take(64)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html") || head.starts_with("<head")
}

/// A body as shown in an error message: an HTML page becomes `HTML page "<title>"` (its
/// markup says nothing useful on one line); other text is trimmed with whitespace runs folded.
/// The full excerpt stays in the error's `body`.
pub fn body_summary(body: &str) -> String {
    if is_html(body) {
        return match html_title(body) {
            Some(title) => format!("HTML page {title:?}"),
            None => "an HTML page".to_string(),
        };
    }
    body.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of the first `<title>` (or else `<h1>`) element of an HTML page, whitespace folded.
fn html_title(body: &str) -> Option<String> {
    let lower = body.to_ascii_lowercase();
    ["title", "h1"].iter().find_map(|tag| {
        let open = lower.find(&format!("<{tag}"))?;
        let start = open + lower[open..].find('>')? + 1;
        let end = start + lower[start..].find(&format!("</{tag}"))?;
        let text = body[start..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        (!text.is_empty()).then_some(text)
    })
}

/// The whole `source()` chain of an error, joined with ": " (reqwest's top message alone says
/// little: "error sending request" hides "connection refused").
pub fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = err.to_string();
    let mut cur = err.source();
    while let Some(e) = cur {
        let s = e.to_string();
        if !out.contains(&s) {
            out.push_str(": ");
            out.push_str(&s);
        }
        cur = e.source();
    }
    out
}

/// Which kind of failure a status is (the binding gives each kind its exception class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKind {
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    ServiceUnavailable,
    /// Any other 5xx.
    Server,
    /// Anything else outside 2xx.
    Other,
}

/// What a status means: its kind, its reason phrase and the hint shown in the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meaning {
    pub kind: StatusKind,
    pub reason: &'static str,
    pub hint: Option<&'static str>,
}

const REDIRECT: &str = "the application answered with a redirect, which is not followed \
                        (is the scheme right? an application set to HTTPS needs an https:// URL)";
const SERVER: &str = "a server-side problem; retry later";
/// The hint of a 401 when it is not known whether a key was sent (see [`Error::key_hint`]).
const UNAUTHORIZED: &str = "authorization failed (check the API key)";

/// The one table of statuses: kind, reason phrase and hint (a status's own row comes before
/// the row of its class).
#[allow(clippy::match_overlapping_arm)]
pub fn meaning(status: u16) -> Meaning {
    use StatusKind::*;
    let (kind, reason, hint) = match status {
        301 => (Other, "Moved Permanently", Some(REDIRECT)),
        302 => (Other, "Found", Some(REDIRECT)),
        303 => (Other, "See Other", Some(REDIRECT)),
        307 => (Other, "Temporary Redirect", Some(REDIRECT)),
        308 => (Other, "Permanent Redirect", Some(REDIRECT)),
        300..=399 => (Other, "Error", Some(REDIRECT)),
        400 => (
            BadRequest,
            "Bad Request",
            Some(
                "the application rejected the request (an unknown layer, cue or playlist, or a \
                 malformed body)",
            ),
        ),
        401 => (Unauthorized, "Unauthorized", Some(UNAUTHORIZED)),
        403 => (
            Forbidden,
            "Forbidden",
            Some("the endpoint is reserved for administrators"),
        ),
        404 => (
            NotFound,
            "Not Found",
            Some(
                "the path may be wrong, the API may be disabled in the application's \
                 preferences, or this may be the documentation port rather than the API port",
            ),
        ),
        405 => (
            MethodNotAllowed,
            "Method Not Allowed",
            Some("the endpoint does not accept this method"),
        ),
        408 => (Other, "Request Timeout", None),
        409 => (Other, "Conflict", None),
        429 => (Other, "Too Many Requests", None),
        500 => (Server, "Internal Server Error", Some(SERVER)),
        501 => (Server, "Not Implemented", Some(SERVER)),
        502 => (Server, "Bad Gateway", Some(SERVER)),
        503 => (
            ServiceUnavailable,
            "Service Unavailable",
            Some("the application is temporarily unavailable; retry later"),
        ),
        504 => (Server, "Gateway Timeout", Some(SERVER)),
        500..=599 => (Server, "Error", Some(SERVER)),
        _ => (Other, "Error", None),
    };
    Meaning { kind, reason, hint }
}

/// The error a caught panic becomes.
pub fn panic_error(p: Box<dyn std::any::Any + Send>) -> Error {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::Internal(format!("internal error in showctl (please report): {msg}"))
}

/// Catch a panic inside a future and turn it into an error: panics stop at the caller's edge
/// (the binding's runtime glue), never an abort.
pub async fn guarded<T, F>(fut: F) -> Result<T, Error>
where
    F: std::future::Future<Output = Result<T, Error>>,
{
    use futures::FutureExt;
    match std::panic::AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(p) => Err(panic_error(p)),
    }
}

/// The reason phrase of a status.
pub fn reason_phrase(status: u16) -> &'static str {
    meaning(status).reason
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_was_answered_when_it_succeeded_else_as_far_as_its_error_got() {
        assert_eq!(Delivery::of(&Ok(())), Delivery::Answered);
        assert_eq!(Delivery::of::<()>(&Err(Error::Closed)), Delivery::NotSent);
        assert_eq!(
            Delivery::of::<()>(&Err(Error::Internal("x".into()))),
            Delivery::SentNoAnswer
        );
    }

    #[test]
    fn api_404_explains_the_likely_causes() {
        let e = Error::api(404, "GET", "http://h:1/api/0/x", b"nope");
        let msg = e.to_string();
        assert!(msg.contains("404 Not Found for GET http://h:1/api/0/x"));
        assert!(msg.contains("documentation port"));
        assert!(msg.contains("body: nope"));
        assert_eq!(e.status(), Some(404));
    }

    #[test]
    fn a_panic_in_a_future_becomes_an_internal_error() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let r: Result<()> = rt.block_on(guarded(async { panic!("boom") }));
        match r {
            Err(Error::Internal(m)) => {
                assert_eq!(m, "internal error in showctl (please report): boom")
            }
            other => panic!("{other:?}"),
        }
        let ok: Result<u8> = rt.block_on(guarded(async { Ok(3) }));
        assert_eq!(ok.unwrap(), 3);
    }

    #[test]
    fn excerpt_cuts_on_a_char_boundary() {
        let body = "é".repeat(600);
        let e = excerpt(body.as_bytes());
        let (head, cut) = e.split_once("… (").unwrap();
        assert!(head.len() <= BODY_EXCERPT);
        assert_eq!(cut, format!("{} more bytes)", body.len() - head.len()));
    }

    #[test]
    fn html_bodies_are_summarised_by_title() {
        let page = "<!DOCTYPE html>\n<html><head><title>404 -\n Not Found</title></head>\
                    <body><h1>Oops</h1></body></html>";
        let e = Error::api(404, "GET", "http://h:1/api/0/x", page.as_bytes());
        let msg = e.to_string();
        assert!(
            msg.ends_with("; body: HTML page \"404 - Not Found\""),
            "{msg}"
        );
        match e {
            Error::Api { body, .. } => assert_eq!(body, page),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            body_summary("<html><body><h1> Server\tError </h1></body></html>"),
            "HTML page \"Server Error\""
        );
        assert_eq!(body_summary("<html><body>x</body></html>"), "an HTML page");
        assert_eq!(body_summary("  not\n  found \n"), "not found");
        assert!(!is_html("{\"a\": \"<html>\"}"));
    }

    #[test]
    fn decode_of_an_html_page_hints_at_the_documentation_port() {
        let e = Error::decode("GET", "u", b"<html><title>API docs</title></html>", "bad");
        let msg = e.to_string();
        assert!(msg.contains("HTML page \"API docs\""), "{msg}");
        assert!(msg.contains("documentation port"), "{msg}");
        let empty = Error::decode("GET", "u", b"", "EOF").to_string();
        assert!(empty.ends_with("the body was empty"), "{empty}");
    }

    #[test]
    fn messages_per_status() {
        for (status, hint) in [
            (400, "rejected the request"),
            (401, "check the API key"),
            (403, "reserved for administrators"),
            (405, "does not accept this method"),
            (500, "server-side problem"),
            (502, "server-side problem"),
            (503, "temporarily unavailable"),
            (302, "redirect"),
        ] {
            let msg = Error::api(status, "GET", "u", b"").to_string();
            assert!(msg.contains(hint), "{status}: {msg}");
            assert!(!msg.contains("body:"), "{status}: {msg}");
        }
    }

    #[test]
    fn chain_joins_sources_and_skips_repeats() {
        #[derive(Debug, thiserror::Error)]
        #[error("{msg}")]
        struct Layer {
            msg: &'static str,
            #[source]
            source: Option<Box<Layer>>,
        }
        let l = |msg, source| Layer { msg, source };
        let err = l(
            "error sending request",
            Some(Box::new(l(
                "client error (Connect): connection refused",
                Some(Box::new(l("connection refused", None))),
            ))),
        );
        assert_eq!(
            chain(&err),
            "error sending request: client error (Connect): connection refused"
        );
    }

    #[test]
    fn one_table_gives_kind_reason_and_hint() {
        assert_eq!(meaning(404).kind, StatusKind::NotFound);
        assert_eq!(meaning(503).kind, StatusKind::ServiceUnavailable);
        assert_eq!(meaning(502).kind, StatusKind::Server);
        assert_eq!(meaning(599).reason, "Error");
        assert_eq!(meaning(418).kind, StatusKind::Other);
        assert_eq!(reason_phrase(405), "Method Not Allowed");
        assert!(meaning(418).hint.is_none());
    }

    #[test]
    fn the_cause_is_read_from_the_source_chain() {
        use std::io::{Error as Io, ErrorKind};
        #[derive(Debug, thiserror::Error)]
        #[error("error sending request")]
        struct Outer(#[source] Io);
        let refused = Outer(Io::new(ErrorKind::ConnectionRefused, "whatever the text"));
        assert_eq!(cause(&refused), Cause::Refused);
        let reset = Outer(Io::from(ErrorKind::ConnectionReset));
        assert_eq!(cause(&reset), Cause::Dropped);
        let tls = rustls::Error::InvalidCertificate(rustls::CertificateError::Expired);
        let wrapped = Outer(Io::new(ErrorKind::InvalidData, tls));
        assert_eq!(cause(&wrapped), Cause::Certificate);
        // The words alone are not a cause.
        let words = Outer(Io::other("certificate refused, connection reset"));
        assert_eq!(cause(&words), Cause::Other);
    }

    #[test]
    fn retryable_set() {
        assert!(Error::api(503, "GET", "u", b"").is_retryable());
        assert!(Error::api(500, "GET", "u", b"").is_retryable());
        assert!(!Error::api(502, "GET", "u", b"").is_retryable());
        assert!(!Error::api(404, "GET", "u", b"").is_retryable());
    }
}
