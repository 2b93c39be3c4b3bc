//! How a failed exchange becomes the core's [`Error`] (with the operating system's words and a
//! hint at the likely fix), and answers larger than the caps or with a head beyond the limits. How far an attempt got is [`super::progress`].

use super::http1::Failure;
use crate::error::{shown_url, Cause, Delivery, Error};

pub(super) fn too_large(method: &str, url: &str, max: usize) -> Error {
    Error::Decode {
        method: method.to_string(),
        url: url.to_string(),
        body: String::new(),
        message: format!(
            "the answer to {method} {} is larger than max_body ({max} bytes); \
             raise max_body if this is expected",
            shown_url(url)
        ),
    }
}

pub(super) fn reply_too_large(method: &str, url: &str, cap: usize) -> Error {
    Error::Decode {
        method: method.to_string(),
        url: url.to_string(),
        body: String::new(),
        message: format!(
            "the answer to {method} {} is larger than {cap} bytes, the reply cap of this \
             endpoint (far above what its reply holds); refused without reading it whole",
            shown_url(url)
        ),
    }
}

pub(super) fn short(e: &Error) -> String {
    match e {
        Error::Api { status, .. } => format!("status {status}"),
        Error::Timeout { .. } => "timeout".into(),
        Error::Connect { .. } => "connection failed".into(),
        other => other.to_string(),
    }
}

/// The error for an answer whose head is beyond the limits (`what`) after its status line
/// came: the application answered, so it is no failure to connect.
pub(super) fn head_refused(method: &str, url: &str, what: &str) -> Error {
    Error::Decode {
        method: method.to_string(),
        url: url.to_string(),
        body: String::new(),
        message: format!(
            "the answer to {method} {} was refused: {what} (its status line came: the \
             application acted on the request)",
            shown_url(url)
        ),
    }
}

/// What to do when an `https://` URL meets a port that speaks plain HTTP: the same address
/// with `http://`.
pub(crate) fn plain_http_hint(url: &str) -> String {
    let origin = url::Url::parse(url)
        .ok()
        .and_then(|u| {
            let host = u.host_str()?.to_string();
            Some(format!("http://{host}:{}", u.port_or_known_default()?))
        })
        .unwrap_or_else(|| "an http:// URL".into());
    format!("the application speaks plain HTTP: use {origin}")
}

/// What a user can do about a failure of this cause.
fn hint(cause: Cause, url: &str) -> &'static str {
    match cause {
        Cause::Certificate => {
            " (the application's certificate is not trusted: pass ca_cert=PATH, or verify=False \
             for its self-signed certificate)"
        }
        Cause::Refused => " (is the application running, with its API enabled, on this port?)",
        Cause::Dropped if url.starts_with("http://") => {
            " (if the application is set to HTTPS, use an https:// URL)"
        }
        _ => "",
    }
}

/// Map a failure of an exchange, over TCP or TLS (see `http1`), to the core's error: what
/// failed, the operating system's words, and the hint; `delivery` is how far the attempt got.
pub(super) fn failure_error(
    method: &str,
    url: &str,
    host: &str,
    f: Failure,
    delivery: Delivery,
) -> Error {
    let (detail, cause) = match f {
        Failure::Resolve(e) => (
            format!("cannot resolve the host {host:?}: {e}"),
            Cause::Other,
        ),
        Failure::Connect(e) => {
            let cause = crate::error::cause(&e);
            (format!("cannot connect: {e}"), cause)
        }
        Failure::Tls(e) => match crate::tls::refusal(&e) {
            // The verifier said why and what would connect (see `crate::tls`).
            Some(why) => (format!("invalid peer certificate: {why}"), Cause::Other),
            None => match crate::error::cause(&e) {
                // The library's words ("received corrupt message of type InvalidContentType")
                // say nothing a user can act on: the fix alone, and what was seen.
                Cause::PlainHttp => (
                    format!(
                        "{} (the answer to the TLS handshake was not TLS)",
                        plain_http_hint(url)
                    ),
                    Cause::Other,
                ),
                cause => (format!("TLS handshake failed: {e}"), cause),
            },
        },
        Failure::Io(e) => {
            let cause = crate::error::cause(&e);
            (format!("connection broken: {e}"), cause)
        }
        Failure::Closed { received, what } => (
            format!("connection closed {what} ({received} bytes of the answer received)"),
            Cause::Dropped,
        ),
        Failure::Invalid(what) | Failure::HeadTooLarge(what) => {
            (format!("invalid HTTP answer: {what}"), Cause::Other)
        }
        Failure::TooLarge { status } => (
            format!("the answer (status {status}) is larger than the reply cap"),
            Cause::Other,
        ),
    };
    Error::Connect {
        method: method.into(),
        url: url.into(),
        message: format!(
            "{method} {} failed: {detail}{}",
            shown_url(url),
            hint(cause, url)
        ),
        delivery,
    }
}
