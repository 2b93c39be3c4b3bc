//! The error type of the core. The binding maps each variant to one exception class of its
//! own. Here: [`Error`], [`Result`], [`Delivery`] and the messages an error builds. Beside it,
//! each re-exported here: what a message shows of a body or a URL (`shown.rs`), what a status
//! means (`status.rs`), the panic guard (`panic_guard.rs`) and why a connection failed
//! (`cause.rs`).

use std::fmt::Write as _;

mod cause;
mod panic_guard;
mod shown;
mod status;
#[cfg(test)]
mod tests;

pub use cause::{cause, Cause};
pub use panic_guard::{guarded, panic_error};
pub use shown::{
    body_summary, capped, chain, excerpt, is_html, shown_url, BODY_EXCERPT, URL_SHOWN,
};
use status::UNAUTHORIZED;
pub use status::{meaning, reason_phrase, Meaning, StatusKind};

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
    /// Refused by the client's cooldown: an identical command was answered less than the
    /// cooldown ago, or is in flight. Nothing was sent.
    #[error("{message}")]
    DoublePress {
        method: String,
        url: String,
        message: String,
    },
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
            Error::InvalidInput(_)
            | Error::Lookup(_)
            | Error::Closed
            | Error::DoublePress { .. } => Delivery::NotSent,
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
