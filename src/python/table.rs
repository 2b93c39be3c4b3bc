//! [`_operations`]: the operation tables as data with their Python types. (The tables' methods
//! of `MediaPlayer`, `Layer`, `Scoreboard` and the `Command` constructors are made with the
//! tables, by `operation_table!` in `crate::media::table` and `crate::score::table`.)

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::convert::serialize_to_py;
use super::ops::Types;
use crate::operation::{OpInfo, Scope};

fn describe(
    out: &Bound<'_, PyList>,
    ops: Vec<OpInfo>,
    types: &Types,
    classes: fn(Scope) -> &'static [&'static str],
) -> PyResult<()> {
    for op in ops {
        let (_, _, arg_type, returns) = types
            .iter()
            .find(|(scope, name, _, _)| *scope == op.scope.as_str() && *name == op.name)
            .ok_or_else(|| {
                pyo3::exceptions::PyRuntimeError::new_err(format!("no types for {}", op.name))
            })?;
        let classes = classes(op.scope);
        let op = op.describe(classes, arg_type.clone(), returns.clone());
        out.append(serialize_to_py(out.py(), &op)?)?;
    }
    Ok(())
}

/// The operation tables as data: one dict per operation (name, async_name, classes, scope,
/// command, ids, arg, arg_type, default, confirm, returns, doc, endpoints), for the stub
/// generator and the tests.
#[pyfunction]
pub(crate) fn _operations(py: Python<'_>) -> PyResult<Py<PyList>> {
    let out = PyList::empty(py);
    describe(
        &out,
        crate::media::builders::operations(),
        &crate::media::table::python_types(),
        Scope::media_classes,
    )?;
    describe(
        &out,
        crate::score::builders::operations(),
        &crate::score::table::python_types(),
        |_| &["Scoreboard"],
    )?;
    Ok(out.unbind())
}
