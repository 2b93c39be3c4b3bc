//! [`_operations`]: the operation tables as data with their Python types. (The tables' methods
//! of `MediaPlayer`, `Layer`, `Scoreboard` and the `Command` constructors are made with the
//! tables, by `operation_table!` in `crate::media::table` and `crate::score::table`.)

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::ops::Types;
use crate::operation::OpInfo;

fn describe(
    py: Python<'_>,
    out: &Bound<'_, PyList>,
    ops: Vec<OpInfo>,
    types: &Types,
    classes: &dyn Fn(&OpInfo) -> Vec<&'static str>,
) -> PyResult<()> {
    for op in ops {
        let (_, _, arg_type, returns) = types
            .iter()
            .find(|(scope, name, _, _)| *scope == op.scope.as_str() && *name == op.name)
            .ok_or_else(|| {
                pyo3::exceptions::PyRuntimeError::new_err(format!("no types for {}", op.name))
            })?;
        let d = PyDict::new(py);
        d.set_item("name", op.name)?;
        d.set_item("async_name", op.async_name)?;
        d.set_item("classes", classes(&op))?;
        d.set_item("scope", op.scope.as_str())?;
        d.set_item("command", op.command)?;
        d.set_item("ids", op.ids.clone())?;
        d.set_item("arg", op.arg)?;
        d.set_item("arg_type", arg_type.clone())?;
        d.set_item("default", op.default)?;
        d.set_item("confirm", op.confirm)?;
        d.set_item("returns", returns.clone())?;
        d.set_item("doc", op.doc)?;
        d.set_item("endpoints", op.endpoints.clone())?;
        out.append(d)?;
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
        py,
        &out,
        crate::media::builders::operations(),
        &crate::media::table::python_types(),
        &|op| match op.scope.as_str() {
            "workspace" => vec!["MediaPlayer"],
            "layer" => vec!["Layer"],
            _ => vec!["MediaPlayer", "Layer"],
        },
    )?;
    describe(
        py,
        &out,
        crate::score::builders::operations(),
        &crate::score::table::python_types(),
        &|_| vec!["Scoreboard"],
    )?;
    Ok(out.unbind())
}
