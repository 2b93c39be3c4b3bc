//! Core errors become the exception classes of `showctl.exceptions` (defined in Python).

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

use crate::error::Error;

static EXCEPTIONS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    let module =
        EXCEPTIONS.get_or_try_init(py, || py.import("showctl.exceptions").map(|m| m.unbind()))?;
    Ok(module.bind(py).getattr(name)?.cast_into::<PyType>()?)
}

/// The exception class name for an HTTP status.
pub fn class_for_status(status: u16) -> &'static str {
    match status {
        400 => "BadRequestError",
        401 => "UnauthorizedError",
        403 => "ForbiddenError",
        404 => "NotFoundError",
        405 => "MethodNotAllowedError",
        503 => "ServiceUnavailableError",
        500..=599 => "ServerError",
        _ => "ApiError",
    }
}

fn build(
    py: Python<'_>,
    name: &str,
    message: &str,
    kwargs: &[(&str, Py<PyAny>)],
) -> PyResult<PyErr> {
    let cls = class(py, name)?;
    let kw = PyDict::new(py);
    for (k, v) in kwargs {
        kw.set_item(*k, v)?;
    }
    let exc = cls.call((message,), Some(&kw))?;
    Ok(PyErr::from_value(exc))
}

/// Convert a core error into the matching Python exception.
pub fn to_pyerr(py: Python<'_>, err: Error) -> PyErr {
    let s = |v: &str| -> Py<PyAny> {
        v.into_pyobject(py)
            .map(|o| o.into_any().unbind())
            .unwrap_or_else(|_| py.None())
    };
    let result = match &err {
        Error::InvalidInput(msg) => return PyValueError::new_err(msg.clone()),
        Error::Api {
            status,
            method,
            url,
            body,
            message,
        } => {
            let st = status.into_pyobject(py).map(|o| o.into_any().unbind());
            match st {
                Ok(st) => build(
                    py,
                    class_for_status(*status),
                    message,
                    &[
                        ("status", st),
                        ("method", s(method)),
                        ("url", s(url)),
                        ("body", s(body)),
                    ],
                ),
                Err(e) => Err(e.into()),
            }
        }
        Error::Connect {
            method,
            url,
            message,
        } => build(
            py,
            "ConnectError",
            message,
            &[("method", s(method)), ("url", s(url))],
        ),
        Error::Timeout {
            method,
            url,
            message,
        } => build(
            py,
            "Timeout",
            message,
            &[("method", s(method)), ("url", s(url))],
        ),
        Error::Decode {
            method,
            url,
            body,
            message,
        } => build(
            py,
            "DecodeError",
            message,
            &[("method", s(method)), ("url", s(url)), ("body", s(body))],
        ),
        Error::NotConfirmed {
            method,
            url,
            message,
            expected,
            actual,
        } => {
            let value = |v: &serde_json::Value| {
                pythonize::pythonize(py, v)
                    .map(Bound::unbind)
                    .unwrap_or_else(|_| py.None())
            };
            build(
                py,
                "NotConfirmedError",
                message,
                &[
                    ("method", s(method)),
                    ("url", s(url)),
                    ("expected", value(expected)),
                    ("actual", value(actual)),
                ],
            )
        }
        Error::Lookup(msg) => build(py, "NameLookupError", msg, &[]),
        Error::Closed => build(py, "ClientClosedError", &err.to_string(), &[]),
        Error::Internal(msg) => build(py, "ShowctlError", msg, &[]),
    };
    match result {
        Ok(e) => e,
        // The exceptions module itself failed to load: still never a panic.
        Err(import_err) => PyRuntimeError::new_err(format!(
            "{err} (and showctl.exceptions failed: {import_err})"
        )),
    }
}

impl From<Error> for PyErr {
    fn from(err: Error) -> PyErr {
        Python::attach(|py| to_pyerr(py, err))
    }
}

/// `Result<T, Error>` to `PyResult<T>`.
pub trait IntoPy<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_pyerr(py, e))
    }
}
