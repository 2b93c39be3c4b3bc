//! Core errors become the exception classes of `showctl.exceptions` (defined in Python): the
//! core says which class, message and attributes (`crate::error::Raised`); this converts them,
//! and a finished call's outcome (its value or its error) with them.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use crate::error::Error;

fn exception(py: Python<'_>, err: &Error) -> PyResult<PyErr> {
    let raised = err.raised();
    let Some(class) = raised.class else {
        return Ok(PyValueError::new_err(raised.message));
    };
    let kwargs = PyDict::new(py);
    for (name, value) in &raised.attrs {
        let value =
            super::convert::json_to_py(py, value).unwrap_or_else(|_| py.None().into_bound(py));
        kwargs.set_item(name, value)?;
    }
    let class = py.import("showctl.exceptions")?.getattr(class)?;
    let exception = class.call((raised.message,), Some(&kwargs))?;
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

impl From<Error> for PyErr {
    fn from(err: Error) -> PyErr {
        Python::attach(|py| to_pyerr(py, err))
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
