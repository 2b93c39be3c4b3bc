//! Conversion of Python arguments shared by the clients.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

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

/// The name of an object's type, for messages (`int`, `numpy.int64` shows as `int64`).
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

static INDEX: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static REAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `operator.index(obj)` for an object that is not an `int` but has `__index__` (numpy's
/// integers): the int, or `None` when it has none or refuses (numpy's bool does).
pub fn as_index<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyInt>>> {
    let py = obj.py();
    if obj.is_instance_of::<PyBool>() || !obj.get_type().hasattr(intern!(py, "__index__"))? {
        return Ok(None);
    }
    let index = INDEX.import(py, "operator", "index")?;
    match index.call1((obj,)) {
        Ok(i) => Ok(Some(i.cast_into::<PyInt>()?)),
        Err(e) if e.is_instance_of::<PyTypeError>(py) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `isinstance(obj, numbers.Real)`: numpy's floats and ints, `fractions.Fraction`; not numpy's
/// bool, which is no number.
pub fn is_real(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let real = REAL.import(obj.py(), "numbers", "Real")?;
    obj.is_instance(real)
}

/// An identifier argument: an `int` (or an integer with `__index__`, such as numpy's; not a
/// `bool`) or a `str`.
pub fn ident(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Ident> {
    if obj.is_instance_of::<PyString>() {
        return Ok(Ident::Name(obj.extract::<String>()?));
    }
    match int_arg(
        obj,
        arg,
        "an identifier; pass an int index, a name or a UUID",
    )? {
        Some(i) => Ok(Ident::Index(i64_of(&i, arg)?)),
        None => Err(PyTypeError::new_err(format!(
            "{arg}: expected an int index, a name or a UUID string, got {}",
            type_name(obj)
        ))),
    }
}

/// A whole-number argument: an `int` or an integer with `__index__` (numpy's), not a `bool`.
/// The range is checked by the caller, which names the allowed range.
pub fn integer(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<i64> {
    match int_arg(obj, arg, "a whole number; pass an int")? {
        Some(i) => i64_of(&i, arg),
        None => Err(PyTypeError::new_err(format!(
            "{arg}: expected an int, got {}",
            type_name(obj)
        ))),
    }
}

/// A number argument: an `int` or `float`, an integer with `__index__` or any `numbers.Real`
/// (numpy's numbers); not a `bool` (numpy's bool neither: it is no `numbers.Real`). Range and
/// finiteness are checked by the core, which names the allowed range.
pub fn number(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<f64> {
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(f.value());
    }
    if let Some(i) = int_arg(obj, arg, "a number; pass an int or a float")? {
        return i.extract::<f64>().map_err(|_| {
            PyValueError::new_err(format!("{arg}: the int is out of range for a number"))
        });
    }
    if is_real(obj)? {
        return obj.extract::<f64>();
    }
    Err(PyTypeError::new_err(format!(
        "{arg}: expected an int or a float, got {}",
        type_name(obj)
    )))
}

/// The int an argument holds (an `int` or an integer with `__index__`), or `None` for anything
/// else but a bool (numpy's too), which is refused with a `ValueError`: a bool is not `not_a`.
fn int_arg<'py>(
    obj: &Bound<'py, PyAny>,
    arg: &str,
    not_a: &str,
) -> PyResult<Option<Bound<'py, PyInt>>> {
    let numpy_bool = || !obj.is_instance_of::<PyInt>() && obj.extract::<bool>().is_ok();
    if obj.is_instance_of::<PyBool>() || numpy_bool() {
        return Err(PyValueError::new_err(format!(
            "{arg}: a bool is not {not_a}"
        )));
    }
    match obj.cast::<PyInt>() {
        Ok(i) => Ok(Some(i.clone())),
        Err(_) => as_index(obj),
    }
}

fn i64_of(i: &Bound<'_, PyInt>, arg: &str) -> PyResult<i64> {
    i.extract::<i64>().map_err(|_| {
        PyValueError::new_err(format!(
            "{arg}: the int is out of range (-2**63 to 2**63-1)"
        ))
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

/// A flag argument: `True` or `False` (numpy's bool too); an int is refused.
pub fn flag(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<bool> {
    obj.extract::<bool>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{arg}: expected True or False, got {}",
            type_name(obj)
        ))
    })
}

/// A text argument: a `str`.
pub fn text(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{arg}: expected a str, got {}",
            type_name(obj)
        ))),
    }
}

/// A file path argument: a `str` or an `os.PathLike`.
pub fn path(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<PathBuf> {
    obj.extract::<PathBuf>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{arg}: expected a path (str or os.PathLike), got {}",
            type_name(obj)
        ))
    })
}

/// The `params` argument of `request()`: `None` or a dict.
pub fn params<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyDict>>> {
    if obj.is_none() {
        return Ok(None);
    }
    match obj.cast::<PyDict>() {
        Ok(d) => Ok(Some(d.clone())),
        Err(_) => Err(PyTypeError::new_err(format!(
            "params: expected a dict, got {}",
            type_name(obj)
        ))),
    }
}

/// `None`, or what `convert` makes of the argument.
pub fn optional<T>(
    obj: &Bound<'_, PyAny>,
    arg: &str,
    convert: fn(&Bound<'_, PyAny>, &str) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if obj.is_none() {
        return Ok(None);
    }
    convert(obj, arg).map(Some)
}

/// A list of numbers (`thresholds`), each checked as [`number`] (`arg[i]` in messages).
pub fn numbers(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Vec<f64>> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{arg}: expected a list of numbers, got str"
        )));
    }
    let items = obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{arg}: expected a list of numbers, got {}",
            type_name(obj)
        ))
    })?;
    items
        .enumerate()
        .map(|(i, item)| number(&item?, &format!("{arg}[{i}]")))
        .collect()
}

/// Converters for `#[pyo3(from_py_with = ...)]`: one per argument name, so that every message
/// names the argument (PyO3's own conversions only add a note to the exception).
macro_rules! named {
    ($($f:ident: $t:ty = $convert:expr, $name:literal;)*) => {$(
        #[doc = concat!("The `", $name, "` argument.")]
        pub fn $f(obj: &Bound<'_, PyAny>) -> PyResult<$t> {
            $convert(obj, $name)
        }
    )*};
}

named! {
    confirm: bool = flag, "confirm";
    target: bool = flag, "target";
    verify: bool = flag, "verify";
    retry_commands: bool = flag, "retry_commands";
    timeout: f64 = number, "timeout";
    interval: f64 = number, "interval";
    seconds: f64 = number, "seconds";
    retries: i64 = integer, "retries";
    concurrency: i64 = integer, "concurrency";
    port: i64 = integer, "port";
    status: i64 = integer, "status";
    times: i64 = integer, "times";
    thresholds: Vec<f64> = numbers, "thresholds";
    max_body: Option<i64> = |o, a| optional(o, a, integer), "max_body";
    steps: Option<i64> = |o, a| optional(o, a, integer), "steps";
    url: Option<String> = |o, a| optional(o, a, text), "url";
    api_key: Option<String> = |o, a| optional(o, a, text), "api_key";
    ca_cert: Option<PathBuf> = |o, a| optional(o, a, path), "ca_cert";
    tls_fingerprint: Option<String> = |o, a| optional(o, a, text), "tls_fingerprint";
    name: String = text, "name";
    kind: Option<String> = |o, a| optional(o, a, text), "kind";
    method: String = text, "method";
    request_path: String = text, "path";
    field: String = text, "field";
    mode: String = text, "mode";
}
