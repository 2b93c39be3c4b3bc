//! Core errors become the exception classes of `showctl.exceptions` (defined in Python): each
//! variant of the core's `Error` names its class here (a status's kind names the `ApiError`
//! subclass), with its message and attributes. The module is imported once and kept (as
//! pyreqwest keeps its exception classes). This converts a finished call's outcome (its value
//! or its error) with them too.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule};
use pyo3::IntoPyObjectExt;
use serde_json::Value;

use showctl::error::{meaning, Error, StatusKind};

/// The class of `showctl.exceptions` a failed status of this kind raises.
fn status_class(kind: StatusKind) -> &'static str {
    match kind {
        StatusKind::BadRequest => "BadRequestError",
        StatusKind::Unauthorized => "UnauthorizedError",
        StatusKind::Forbidden => "ForbiddenError",
        StatusKind::NotFound => "NotFoundError",
        StatusKind::MethodNotAllowed => "MethodNotAllowedError",
        StatusKind::ServiceUnavailable => "ServiceUnavailableError",
        StatusKind::Server => "ServerError",
        StatusKind::Other => "ApiError",
    }
}

/// How an error is raised: the class of `showctl.exceptions` (`None`: a plain `ValueError`) and
/// the class's attributes as JSON values (the message is the error's text).
fn class_of(err: &Error) -> (Option<&'static str>, Vec<(&'static str, Value)>) {
    let text = |v: &str| Value::String(v.to_string());
    let sent = |method: &str, url: &str| vec![("method", text(method)), ("url", text(url))];
    match err {
        Error::InvalidInput(_) => (None, vec![]),
        Error::Api {
            status,
            method,
            url,
            body,
            ..
        } => {
            let mut attrs = vec![("status", Value::from(*status))];
            attrs.extend(sent(method, url));
            attrs.push(("body", text(body)));
            (Some(status_class(meaning(*status).kind)), attrs)
        }
        Error::Connect {
            method,
            url,
            delivery,
            ..
        }
        | Error::Timeout {
            method,
            url,
            delivery,
            ..
        } => {
            let mut attrs = sent(method, url);
            attrs.push(("delivery", text(delivery.as_str())));
            let class = match err {
                Error::Connect { .. } => "ConnectError",
                _ => "Timeout",
            };
            (Some(class), attrs)
        }
        Error::Decode {
            method, url, body, ..
        } => {
            let mut attrs = sent(method, url);
            attrs.push(("body", text(body)));
            (Some("DecodeError"), attrs)
        }
        Error::NotConfirmed {
            method,
            url,
            expected,
            actual,
            ..
        } => {
            let mut attrs = sent(method, url);
            attrs.push(("expected", (**expected).clone()));
            attrs.push(("actual", (**actual).clone()));
            (Some("NotConfirmedError"), attrs)
        }
        Error::Lookup(_) => (Some("NameLookupError"), vec![]),
        Error::Closed => (Some("ClientClosedError"), vec![]),
        Error::DoublePress { method, url, .. } => (Some("DoublePressError"), sent(method, url)),
        Error::Internal(_) => (Some("ShowctlError"), vec![]),
    }
}

/// `showctl.exceptions`, imported once.
static EXCEPTIONS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn exception(py: Python<'_>, err: &Error) -> PyResult<PyErr> {
    let (class, attrs) = class_of(err);
    let Some(class) = class else {
        return Ok(PyValueError::new_err(err.to_string()));
    };
    let kwargs = PyDict::new(py);
    for (name, value) in &attrs {
        let value =
            super::convert::json_to_py(py, value).unwrap_or_else(|_| py.None().into_bound(py));
        kwargs.set_item(name, value)?;
    }
    let module = EXCEPTIONS.get_or_try_init(py, || {
        PyResult::Ok(py.import("showctl.exceptions")?.unbind())
    })?;
    let class = module.bind(py).getattr(class)?;
    let exception = class.call((err.to_string(),), Some(&kwargs))?;
    Ok(PyErr::from_value(exception))
}

/// Convert a core error into the matching Python exception.
pub fn to_pyerr(py: Python<'_>, err: Error) -> PyErr {
    match exception(py, &err) {
        Ok(e) => e,
        // The exceptions module itself failed to load: still never a panic.
        Err(import_err) => PyRuntimeError::new_err(format!(
            "{err} (and showctl.exceptions failed: {import_err})"
        )),
    }
}

/// A core error as the Python exception object it raises as (a value to hand to Python).
pub(crate) fn exception_of(py: Python<'_>, err: Error) -> Py<PyAny> {
    to_pyerr(py, err).into_value(py).into_any()
}

/// A core error as its Python exception, the GIL taken for it (for `.map_err(to_py)`: the
/// orphan rule keeps `From<Error> for PyErr` out of this crate, as polars' `PyPolarsErr` and
/// pyreqwest's error wrappers do).
pub fn to_py(err: Error) -> PyErr {
    Python::attach(|py| to_pyerr(py, err))
}

/// A Python exception, or a core error made one: the error of a core function generic over
/// its caller's error (`E: From<Error>`), given the binding's.
pub(crate) struct PyError(pub PyErr);

impl From<Error> for PyError {
    fn from(err: Error) -> Self {
        PyError(to_py(err))
    }
}

impl From<PyError> for PyErr {
    fn from(err: PyError) -> Self {
        err.0
    }
}

/// A finished call's result, made a Python value once the GIL is held.
pub(crate) type Finished = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// `value` and how it becomes Python: `convert` for a result, the exception for an error.
pub(crate) fn finished<T, C, R>(value: Result<T, Error>, convert: C) -> Finished
where
    T: Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<R> + Send + 'static,
    R: for<'a> IntoPyObject<'a> + Send + 'static,
    for<'a> <R as IntoPyObject<'a>>::Error: Into<PyErr>,
{
    Box::new(move |py| match value {
        Ok(v) => convert(py, v)?.into_py_any(py),
        Err(e) => Err(to_pyerr(py, e)),
    })
}
