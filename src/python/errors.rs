//! Core errors become the exception classes of `showctl.exceptions` (defined in Python): one
//! typed handle per class, one `From<Error> for PyErr`, and the status table of the core
//! (`crate::error::meaning`) picking the class of an HTTP failure.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};
use pyo3::PyTypeInfo;

use crate::error::{meaning, Error, StatusKind};

mod classes {
    pyo3::import_exception!(showctl.exceptions, ShowctlError);
    pyo3::import_exception!(showctl.exceptions, ApiError);
    pyo3::import_exception!(showctl.exceptions, BadRequestError);
    pyo3::import_exception!(showctl.exceptions, UnauthorizedError);
    pyo3::import_exception!(showctl.exceptions, ForbiddenError);
    pyo3::import_exception!(showctl.exceptions, NotFoundError);
    pyo3::import_exception!(showctl.exceptions, MethodNotAllowedError);
    pyo3::import_exception!(showctl.exceptions, ServerError);
    pyo3::import_exception!(showctl.exceptions, ServiceUnavailableError);
    pyo3::import_exception!(showctl.exceptions, ConnectError);
    pyo3::import_exception!(showctl.exceptions, Timeout);
    pyo3::import_exception!(showctl.exceptions, DecodeError);
    pyo3::import_exception!(showctl.exceptions, NotConfirmedError);
    pyo3::import_exception!(showctl.exceptions, NameLookupError);
    pyo3::import_exception!(showctl.exceptions, ClientClosedError);
}

use classes::*;

/// The exception class of an HTTP failure.
fn class_for_status(py: Python<'_>, status: u16) -> Bound<'_, PyType> {
    match meaning(status).kind {
        StatusKind::BadRequest => BadRequestError::type_object(py),
        StatusKind::Unauthorized => UnauthorizedError::type_object(py),
        StatusKind::Forbidden => ForbiddenError::type_object(py),
        StatusKind::NotFound => NotFoundError::type_object(py),
        StatusKind::MethodNotAllowed => MethodNotAllowedError::type_object(py),
        StatusKind::ServiceUnavailable => ServiceUnavailableError::type_object(py),
        StatusKind::Server => ServerError::type_object(py),
        StatusKind::Other => ApiError::type_object(py),
    }
}

/// An instance of `class` with `message` and the keyword attributes `kwargs`.
fn build<'py>(
    class: Bound<'py, PyType>,
    message: &str,
    kwargs: &[(&str, Bound<'py, PyAny>)],
) -> PyResult<PyErr> {
    let kw = PyDict::new(class.py());
    for (k, v) in kwargs {
        kw.set_item(*k, v)?;
    }
    Ok(PyErr::from_value(class.call((message,), Some(&kw))?))
}

fn exception(py: Python<'_>, err: &Error) -> PyResult<PyErr> {
    let s = |v: &str| -> PyResult<Bound<'_, PyAny>> { Ok(v.into_pyobject(py)?.into_any()) };
    let json = |v: &serde_json::Value| -> PyResult<Bound<'_, PyAny>> {
        Ok(crate::python::convert::json_to_py(py, v).unwrap_or_else(|_| py.None().into_bound(py)))
    };
    match err {
        Error::InvalidInput(msg) => Ok(PyValueError::new_err(msg.clone())),
        Error::Api {
            status,
            method,
            url,
            body,
            message,
        } => build(
            class_for_status(py, *status),
            message,
            &[
                ("status", status.into_pyobject(py)?.into_any()),
                ("method", s(method)?),
                ("url", s(url)?),
                ("body", s(body)?),
            ],
        ),
        Error::Connect {
            method,
            url,
            message,
            delivery,
        } => build(
            ConnectError::type_object(py),
            message,
            &[
                ("method", s(method)?),
                ("url", s(url)?),
                ("delivery", s(delivery.as_str())?),
            ],
        ),
        Error::Timeout {
            method,
            url,
            message,
            delivery,
        } => build(
            Timeout::type_object(py),
            message,
            &[
                ("method", s(method)?),
                ("url", s(url)?),
                ("delivery", s(delivery.as_str())?),
            ],
        ),
        Error::Decode {
            method,
            url,
            body,
            message,
        } => build(
            DecodeError::type_object(py),
            message,
            &[("method", s(method)?), ("url", s(url)?), ("body", s(body)?)],
        ),
        Error::NotConfirmed {
            method,
            url,
            message,
            expected,
            actual,
        } => build(
            NotConfirmedError::type_object(py),
            message,
            &[
                ("method", s(method)?),
                ("url", s(url)?),
                ("expected", json(expected)?),
                ("actual", json(actual)?),
            ],
        ),
        Error::Lookup(msg) => build(NameLookupError::type_object(py), msg, &[]),
        Error::Closed => build(ClientClosedError::type_object(py), &err.to_string(), &[]),
        Error::Internal(msg) => build(ShowctlError::type_object(py), msg, &[]),
    }
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

impl From<Error> for PyErr {
    fn from(err: Error) -> PyErr {
        Python::attach(|py| to_pyerr(py, err))
    }
}
