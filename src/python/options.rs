//! The client options of `MediaPlayer(...)` and `Scoreboard(...)`: one converter per option
//! (a refusal names the option), [`ClientArgs`] (the values as given, set on the core's
//! [`Config`] through its validating setters, which check each range once for every caller:
//! constructors, venue, feed, command line), and [`OPTIONS`], the options as data, from which
//! `_core._client_options()` gives the stubs, docs/cli.md and the command line's connection
//! options.
//!
//! Adding an option: its setter on [`Config`], its converter and [`ClientArgs`] field here, its
//! entry in [`OPTIONS`], and its parameter in the `#[new]` of `MediaPlayer` and `Scoreboard`
//! (their `signature` is what `__text_signature__` shows; a test compares it with [`OPTIONS`]).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::args;
use crate::error::Result;
use crate::tls::ENV_TLS_FINGERPRINT;
use crate::transport::{
    resolve_key, resolve_url, Config, CONFIRM_TIMEOUT_RANGE, ENV_API_KEY, ENV_MEDIA_URL,
    ENV_SCOREBOARD_URL, MAX_BODY_RANGE, MAX_CONNECTIONS_RANGE, RETRIES_RANGE, TIMEOUT_RANGE,
};

/// The converters of the constructors' `#[pyo3(from_py_with = ...)]`: one per option, the
/// option named in a refusal (`timeout: expected an int or a float, got str`).
pub(crate) mod convert {
    use super::*;

    type Conversion<T> = fn(&Bound<'_, PyAny>, &str) -> PyResult<T>;

    fn optional<T>(obj: &Bound<'_, PyAny>, name: &str, f: Conversion<T>) -> PyResult<Option<T>> {
        if obj.is_none() {
            return Ok(None);
        }
        f(obj, name).map(Some)
    }

    pub(crate) fn url(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        optional(obj, "url", args::text)
    }
    pub(crate) fn api_key(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        optional(obj, "api_key", args::text)
    }
    pub(crate) fn timeout(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
        args::number(obj, "timeout")
    }
    pub(crate) fn verify(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
        args::flag(obj, "verify")
    }
    pub(crate) fn ca_cert(obj: &Bound<'_, PyAny>) -> PyResult<Option<PathBuf>> {
        optional(obj, "ca_cert", args::path)
    }
    pub(crate) fn tls_fingerprint(obj: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        optional(obj, "tls_fingerprint", args::text)
    }
    pub(crate) fn retries(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
        args::integer(obj, "retries")
    }
    pub(crate) fn retry_commands(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
        args::flag(obj, "retry_commands")
    }
    pub(crate) fn max_body(obj: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
        optional(obj, "max_body", args::integer)
    }
    pub(crate) fn max_connections(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
        args::integer(obj, "max_connections")
    }
    pub(crate) fn confirm_timeout(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
        args::number(obj, "confirm_timeout")
    }
}

/// The options as given to a constructor (or to `Feed`, which takes some of them), before
/// their checks. `confirm_timeout` is `MediaPlayer`'s only: elsewhere it keeps its default.
pub(crate) struct ClientArgs {
    pub url: Option<String>,
    pub api_key: Option<String>,
    pub timeout: f64,
    pub verify: bool,
    pub ca_cert: Option<PathBuf>,
    pub tls_fingerprint: Option<String>,
    pub retries: i64,
    pub retry_commands: bool,
    pub max_body: Option<i64>,
    pub max_connections: i64,
    pub confirm_timeout: f64,
}

impl Default for ClientArgs {
    /// The core's defaults (those the constructors' signatures show).
    fn default() -> Self {
        let c = Config::new(String::new());
        ClientArgs {
            url: None,
            api_key: None,
            timeout: c.timeout.as_secs_f64(),
            verify: c.verify,
            ca_cert: None,
            tls_fingerprint: None,
            retries: c.retries.into(),
            retry_commands: c.retry_commands,
            max_body: None,
            max_connections: c.max_connections as i64,
            confirm_timeout: c.confirm_timeout.as_secs_f64(),
        }
    }
}

impl ClientArgs {
    /// The [`Config`]: each value set through its checking setter, in signature order (the URL
    /// first: the pin's check reads it); the URL and key read from the environment when not
    /// given (`url_env`: the class's variable). Also makes the next log records follow
    /// Python's current logging configuration.
    pub(crate) fn config(self, url_env: &str) -> Result<Config> {
        crate::python::rt::refresh_logging();
        let mut c = Config::new(resolve_url(self.url, url_env)?);
        c.api_key = resolve_key(self.api_key);
        c.set_timeout(self.timeout)?;
        c.verify = self.verify;
        c.ca_cert = self.ca_cert;
        c.set_tls_fingerprint(self.tls_fingerprint)?;
        c.set_retries(self.retries)?;
        c.retry_commands = self.retry_commands;
        c.set_max_body(self.max_body)?;
        c.set_max_connections(self.max_connections)?;
        c.set_confirm_timeout(self.confirm_timeout)?;
        Ok(c)
    }
}

/// One client option as data, for `_client_options()`: its Python type and default as the
/// stubs write them, the classes that take it, its command-line flag and metavariable (empty:
/// not on the command line), the environment variables read when it is not given, what its
/// range allows (the setter's own text) and its documentation.
struct ClientOption {
    name: &'static str,
    python_type: &'static str,
    default: &'static str,
    positional: bool,
    classes: &'static [&'static str],
    cli: &'static str,
    metavar: &'static str,
    env: &'static [&'static str],
    range: Option<&'static str>,
    doc: &'static str,
}

const BOTH: &[&str] = &["MediaPlayer", "Scoreboard"];
const MEDIA: &[&str] = &["MediaPlayer"];

/// Every client option, in signature order.
const OPTIONS: &[ClientOption] = &[
    ClientOption {
        name: "url",
        python_type: "str | None",
        default: "None",
        positional: true,
        classes: BOTH,
        cli: "--url",
        metavar: "URL",
        env: &[ENV_MEDIA_URL, ENV_SCOREBOARD_URL],
        range: None,
        doc: "The application's address: `http://host:port`, `https://host:port` or \
              `host:port` (`/api/0` is added). Without it, the environment variable (one per \
              application).",
    },
    ClientOption {
        name: "api_key",
        python_type: "str | None",
        default: "None",
        positional: true,
        classes: BOTH,
        cli: "--api-key",
        metavar: "KEY",
        env: &[ENV_API_KEY],
        range: None,
        doc: "The API key, sent as `Authorization: Bearer KEY`. Without it, the environment \
              variable; never printed, logged or shown in a repr.",
    },
    ClientOption {
        name: "timeout",
        python_type: "float",
        default: "5.0",
        positional: false,
        classes: BOTH,
        cli: "--timeout",
        metavar: "SECONDS",
        env: &[],
        range: Some(TIMEOUT_RANGE),
        doc: "Seconds each attempt may take (connecting, sending and reading the answer).",
    },
    ClientOption {
        name: "verify",
        python_type: "bool",
        default: "True",
        positional: false,
        classes: BOTH,
        cli: "--insecure",
        metavar: "",
        env: &[],
        range: None,
        doc: "Check the application's certificate (HTTPS); `verify=False` turns the check off \
              and accepts any certificate: a last resort; prefer `tls_fingerprint=` or \
              `ca_cert=`.",
    },
    ClientOption {
        name: "ca_cert",
        python_type: "str | os.PathLike[str] | None",
        default: "None",
        positional: false,
        classes: BOTH,
        cli: "--ca-cert",
        metavar: "PEM",
        env: &[],
        range: None,
        doc: "A PEM file with the CA (or the application's own self-signed certificate) to \
              trust, besides the system's.",
    },
    ClientOption {
        name: "tls_fingerprint",
        python_type: "str | None",
        default: "None",
        positional: false,
        classes: BOTH,
        cli: "--tls-fingerprint",
        metavar: "PIN",
        env: &[ENV_TLS_FINGERPRINT],
        range: None,
        doc: "Accept the certificate whose SHA-256 is this pin (`\"sha256:<hex>\"`, as `probe` \
              prints it), even self-signed or expired, and only it. `https://` URLs only. \
              Without it, the environment variable (ignored for `http://` URLs).",
    },
    ClientOption {
        name: "retries",
        python_type: "int",
        default: "2",
        positional: false,
        classes: BOTH,
        cli: "--retries",
        metavar: "N",
        env: &[],
        range: Some(RETRIES_RANGE),
        doc: "How many times a read is retried after a connection failure, a timeout, a 500 \
              or a 503 (with backoff); commands are sent once unless `retry_commands=True`.",
    },
    ClientOption {
        name: "retry_commands",
        python_type: "bool",
        default: "False",
        positional: false,
        classes: BOTH,
        cli: "--retry-commands",
        metavar: "",
        env: &[],
        range: None,
        doc: "Retry commands too, as reads are (`retry_commands=True`; every documented \
              command sets a state, so repeating one is safe).",
    },
    ClientOption {
        name: "max_body",
        python_type: "int | None",
        default: "None",
        positional: false,
        classes: BOTH,
        cli: "--max-body",
        metavar: "BYTES",
        env: &[],
        range: Some(MAX_BODY_RANGE),
        doc: "The largest answer accepted, in bytes (64 MiB when not given); a bigger one \
              raises `DecodeError`.",
    },
    ClientOption {
        name: "max_connections",
        python_type: "int",
        default: "8",
        positional: false,
        classes: BOTH,
        cli: "--max-connections",
        metavar: "N",
        env: &[],
        range: Some(MAX_CONNECTIONS_RANGE),
        doc: "Connections open at once to the application, in use or kept idle, across every \
              thread and the event loop; calls beyond it wait for a free one within their \
              `timeout` (one whose time runs out raises `TimeoutError` with `delivery` \
              `\"not_sent\"`). Small embedded servers have few workers: see \
              docs/reliability.md.",
    },
    ClientOption {
        name: "confirm_timeout",
        python_type: "float",
        default: "0.5",
        positional: false,
        classes: MEDIA,
        cli: "",
        metavar: "",
        env: &[],
        range: Some(CONFIRM_TIMEOUT_RANGE),
        doc: "How long `confirm=True` reads the value back after the command's 200 (five \
              reads, evenly spaced, the first at once) before raising `NotConfirmedError`: \
              half a second when not given.",
    },
    ClientOption {
        name: "mirrors",
        python_type: "Iterable[str | tuple[str, str | None] | tuple[str, str | None, str | \
                      None] | MirrorSpec] | None",
        default: "None",
        positional: false,
        classes: MEDIA,
        cli: "",
        metavar: "",
        env: &[],
        range: None,
        doc: "Extra targets that receive every command the primary accepted, in the \
              background: URLs, `(url, api_key[, tls_fingerprint])` tuples or dicts with those \
              keys (a URL alone takes the primary's key); `None` or `()`: none. See \
              `mirror_status()`.",
    },
];

/// The client options as data, in signature order: one dict per option (`name`, `type`,
/// `default` as Python writes it, `positional`, `classes`, `cli`, `metavar`, `env` (a list),
/// `range` (text or None), `doc`), for the stub generator, the docs and the command line.
#[pyfunction]
pub(crate) fn _client_options(py: Python<'_>) -> PyResult<Py<PyList>> {
    let out = PyList::empty(py);
    for o in OPTIONS {
        let item = PyDict::new(py);
        item.set_item("name", o.name)?;
        item.set_item("type", o.python_type)?;
        item.set_item("default", o.default)?;
        item.set_item("positional", o.positional)?;
        item.set_item("classes", o.classes)?;
        item.set_item("cli", o.cli)?;
        item.set_item("metavar", o.metavar)?;
        item.set_item("env", o.env)?;
        item.set_item("range", o.range)?;
        item.set_item("doc", o.doc)?;
        out.append(item)?;
    }
    Ok(out.unbind())
}
/// The environment variable the URL is read from, by class (for the command line, which
/// resolves nothing itself).
#[pyfunction]
pub(crate) fn _url_env(app: &str) -> PyResult<&'static str> {
    match app {
        "media" => Ok(ENV_MEDIA_URL),
        "scoreboard" => Ok(ENV_SCOREBOARD_URL),
        other => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "app: expected \"media\" or \"scoreboard\", got {other:?}"
        ))),
    }
}

/// `text` with the API key `key` replaced by `***` as showctl masks it everywhere it writes
/// (raw, JSON-escaped or percent-encoded; in JSON only within strings; a key shorter than 8
/// characters only where it stands alone). For the command line's output.
#[pyfunction]
pub(crate) fn _scrub(text: &str, key: &str) -> String {
    crate::scrub::scrub_str(text, key.as_bytes()).into_owned()
}
