//! What a status outside 2xx means: its kind (the binding gives each kind its exception class),
//! its reason phrase and the hint an error message gives.

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
/// The hint of a 401 when it is not known whether a key was sent (see
/// [`super::Error::key_hint`]).
pub(super) const UNAUTHORIZED: &str = "authorization failed (check the API key)";

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

/// The reason phrase of a status.
pub fn reason_phrase(status: u16) -> &'static str {
    meaning(status).reason
}
