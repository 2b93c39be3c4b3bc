//! Conversion of Python arguments shared by the clients.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

use crate::error::{Error, Result};
use crate::ident::Ident;
use crate::tls::{Fingerprint, ENV_TLS_FINGERPRINT};
use crate::transport::{resolve_key, resolve_url, Config, DEFAULT_MAX_BODY};

/// Options every client takes, as given from Python. Also makes the next log records follow
/// Python's current logging configuration.
#[allow(clippy::too_many_arguments)]
pub fn client_config(
    url: Option<String>,
    api_key: Option<String>,
    env_var: &str,
    timeout: f64,
    verify: bool,
    ca_cert: Option<PathBuf>,
    tls_fingerprint: Option<String>,
    retries: i64,
    retry_commands: bool,
    max_body: Option<i64>,
) -> Result<Config> {
    crate::python::rt::refresh_logging();
    let url = resolve_url(url, env_var)?;
    if !timeout.is_finite() || timeout <= 0.0 || timeout > 3600.0 {
        return Err(Error::invalid(format!(
            "timeout: must be a number of seconds above 0 and at most 3600, got {timeout}"
        )));
    }
    if !(0..=10).contains(&retries) {
        return Err(Error::invalid(format!(
            "retries: must be between 0 and 10, got {retries}"
        )));
    }
    let max_body = match max_body {
        None => DEFAULT_MAX_BODY,
        Some(n) if n > 0 => n as usize,
        Some(n) => {
            return Err(Error::invalid(format!(
                "max_body: must be a positive number of bytes, got {n}"
            )))
        }
    };
    let mut config = Config::new(url);
    config.api_key = resolve_key(api_key);
    config.timeout = Duration::from_secs_f64(timeout);
    config.verify = verify;
    config.ca_cert = ca_cert;
    config.tls_fingerprint = resolve_pin(tls_fingerprint, &config.url)?;
    config.retries = retries as u32;
    config.retry_commands = retry_commands;
    config.max_body = max_body;
    Ok(config)
}

/// An identifier argument: `int` (not `bool`) or `str`.
pub fn ident(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Ident> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyValueError::new_err(format!(
            "{arg}: a bool is not an identifier; pass an int index, a name or a UUID"
        )));
    }
    if obj.is_instance_of::<PyInt>() {
        let v: i64 = obj
            .extract()
            .map_err(|_| PyValueError::new_err(format!("{arg}: index out of range")))?;
        return Ok(Ident::Index(v));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Ident::Name(obj.extract::<String>()?));
    }
    Err(PyTypeError::new_err(format!(
        "{arg}: expected an int index, a name or a UUID string, got {}",
        obj.get_type().name()?
    )))
}

/// A number argument: an `int` or `float` (not a `bool`). Range and finiteness are checked by
/// the core, which names the allowed range.
pub fn number(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<f64> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyValueError::new_err(format!(
            "{arg}: a bool is not a number; pass an int or a float"
        )));
    }
    obj.extract::<f64>().map_err(|_| {
        if obj.is_instance_of::<PyInt>() {
            PyValueError::new_err(format!("{arg}: the int is out of range for a number"))
        } else {
            let kind = obj
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            PyTypeError::new_err(format!("{arg}: expected an int or a float, got {kind}"))
        }
    })
}

/// The pin from `tls_fingerprint`, else from `SHOWCTL_TLS_FINGERPRINT` (which plain-HTTP URLs
/// ignore: a pin given for an `http://` URL is refused, since nothing would be checked).
pub fn resolve_pin(given: Option<String>, url: &str) -> Result<Option<Fingerprint>> {
    let https = url
        .trim_start()
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
    match given {
        Some(text) => {
            let pin = Fingerprint::parse(&text)?;
            if !https {
                return Err(Error::invalid(format!(
                    "tls_fingerprint: {url:?} is not an https:// URL, so no certificate would be                      checked; use the application's https:// URL"
                )));
            }
            Ok(Some(pin))
        }
        None => match std::env::var(ENV_TLS_FINGERPRINT) {
            Ok(text) if !text.trim().is_empty() && https => Fingerprint::parse(&text)
                .map(Some)
                .map_err(|e| Error::invalid(format!("{e} (from {ENV_TLS_FINGERPRINT})"))),
            _ => Ok(None),
        },
    }
}
