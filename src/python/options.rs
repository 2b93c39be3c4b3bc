//! The client options of `MediaPlayer(...)` and `Scoreboard(...)`: one converter per option
//! (a refusal names the option), [`config`] (the core's [`ClientArgs`], the values as given,
//! set on its [`Config`] through the validating setters, which check each range once for every
//! caller: constructors, venue, feed, command line), and `_core._client_options()`, the core's
//! [`OPTIONS`] (the options as data) for the stubs, docs/cli.md and the command line's
//! connection options.
//!
//! Adding an option: its setter on [`Config`] and its [`ClientArgs`] field
//! (`src/transport/config.rs`), its entry in [`OPTIONS`] (`src/transport/options.rs`), its
//! converter here, and its parameter in the `#[new]` of `MediaPlayer` and `Scoreboard` (their
//! `signature` is what `__text_signature__` shows; a test compares it with [`OPTIONS`]).

use std::path::PathBuf;

use pyo3::prelude::*;

use super::args;
use crate::error::Result;
pub(crate) use crate::transport::ClientArgs;
use crate::transport::{url_env, Config, OPTIONS};

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

/// The [`Config`] of the options as given (see [`ClientArgs::config`]); also makes the next
/// log records follow Python's current logging configuration.
pub(crate) fn config(args: ClientArgs, url_env: &str) -> Result<Config> {
    crate::python::rt::refresh_logging();
    args.config(url_env)
}

/// The client options as data, in signature order: one dict per option (`name`, `type`,
/// `default` as Python writes it, `positional`, `classes`, `cli`, `metavar`, `env` (a list),
/// `range` (text or None), `doc`), for the stub generator, the docs and the command line.
#[pyfunction]
pub(crate) fn _client_options(py: Python<'_>) -> PyResult<Py<PyAny>> {
    super::convert::serialize_to_py(py, &OPTIONS)
}

/// The environment variable the URL is read from, by class (for the command line, which
/// resolves nothing itself).
#[pyfunction]
pub(crate) fn _url_env(app: &str) -> Result<&'static str> {
    url_env(app)
}

/// `text` with the API key `key` replaced by `***` as showctl masks it everywhere it writes
/// (raw, JSON-escaped or percent-encoded; in JSON only within strings; a key shorter than 8
/// characters only where it stands alone). For the command line's output.
#[pyfunction]
pub(crate) fn _scrub(text: &str, key: &str) -> String {
    crate::scrub::scrub_str(text, key.as_bytes()).into_owned()
}
