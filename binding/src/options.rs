//! The client options of `MediaPlayer(...)` and `Scoreboard(...)`: one reader per option
//! (a refusal names the option), [`config`] (the core's [`ClientArgs`], the values as given,
//! set on its [`Config`] through the validating setters, which check each range once for every
//! caller: constructors, venue, feed, command line), and `_core._client_options()`, the core's
//! [`OPTIONS`] (the options as data) for the stubs, docs/cli.md and the command line's
//! connection options.
//!
//! Adding an option: its setter on [`Config`] and its [`ClientArgs`] field
//! (`core/src/transport/config.rs`), its entry in [`OPTIONS`] (`binding/src/option_table.rs`), its
//! reader here, and its parameter in the `#[new]` of `MediaPlayer` and `Scoreboard` (their
//! `signature` is what `__text_signature__` shows; a test compares it with [`OPTIONS`]).

use pyo3::prelude::*;

use super::args;
use super::option_table::OPTIONS;
use showctl::error::Result;
pub(crate) use showctl::transport::ClientArgs;
use showctl::transport::{url_env, Config};

/// The readers of the constructors' `#[pyo3(from_py_with = ...)]`: one per option, the
/// option named in a refusal (`timeout: expected an int or a float, got str`). Named after the
/// options, as `args::port` is after its argument.
#[allow(non_upper_case_globals)]
pub(crate) mod convert {
    use super::args::{flag, integer, number, optional, path, text, Reader};
    use std::path::PathBuf;

    pub(crate) use super::args::api_key;
    pub(crate) const url: Reader<Option<String>> = |o| optional(o, "url", text);
    pub(crate) const timeout: Reader<f64> = |o| number(o, "timeout");
    pub(crate) const verify: Reader<bool> = |o| flag(o, "verify");
    pub(crate) const ca_cert: Reader<Option<PathBuf>> = |o| optional(o, "ca_cert", path);
    pub(crate) const tls_fingerprint: Reader<Option<String>> =
        |o| optional(o, "tls_fingerprint", text);
    pub(crate) const retries: Reader<i64> = |o| integer(o, "retries");
    pub(crate) const retry_commands: Reader<bool> = |o| flag(o, "retry_commands");
    pub(crate) const max_body: Reader<Option<i64>> = |o| optional(o, "max_body", integer);
    pub(crate) const max_connections: Reader<i64> = |o| integer(o, "max_connections");
    pub(crate) const confirm_timeout: Reader<f64> = |o| number(o, "confirm_timeout");
}

/// The [`Config`] of the options as given (see [`ClientArgs::config`]); also makes the next
/// log records follow Python's current logging configuration.
pub(crate) fn config(args: ClientArgs, url_env: &str) -> Result<Config> {
    crate::rt::refresh_logging();
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
pub(crate) fn _url_env(app: &str) -> PyResult<&'static str> {
    url_env(app).map_err(crate::errors::to_py)
}

/// `text` with the API key `key` replaced by `***` as showctl masks it everywhere it writes
/// (raw, JSON-escaped or percent-encoded; in JSON only within strings; a key shorter than 8
/// characters only where it stands alone). For the command line's output.
#[pyfunction]
pub(crate) fn _scrub(text: &str, key: &str) -> String {
    showctl::scrub::scrub_str(text, key.as_bytes()).into_owned()
}
