//! [`_operations`]: the operation tables as data with their Python types. (The tables' methods
//! of `MediaPlayer`, `Layer`, `Scoreboard` and the `Command` constructors are made with the
//! tables, by `operation_table!` in `crate::media::table` and `crate::score::table`.)

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::convert::serialize_to_py;
use crate::operation::{describe_table, Scope};

/// The operation tables as data: one dict per operation (name, async_name, classes, scope,
/// command, ids, arg, arg_type, default, confirm, returns, doc, endpoints), for the stub
/// generator and the tests.
#[pyfunction]
pub(crate) fn _operations(py: Python<'_>) -> PyResult<Py<PyList>> {
    let mut all = describe_table(
        crate::media::builders::operations(),
        &crate::media::table::python_types(),
        Scope::media_classes,
    )
    .map_err(PyRuntimeError::new_err)?;
    let score = describe_table(
        crate::score::builders::operations(),
        &crate::score::table::python_types(),
        |_| &["Scoreboard"],
    );
    all.extend(score.map_err(PyRuntimeError::new_err)?);
    Ok(serialize_to_py(py, &all)?
        .into_bound(py)
        .cast_into()?
        .unbind())
}
