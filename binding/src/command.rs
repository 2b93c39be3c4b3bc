//! `Command` (the commands of a batch, built by its static methods from the command groups of
//! the operation table, made in [`super::table`], also reachable as `showctl.cmd`) and
//! `BatchResult`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::args::{self, ident, params_arg};
use super::convert::{expected, py_to_json, repr_of, Reply};
use super::errors::exception_of;
use super::layer::PyLayer;
use showctl::error::{Delivery, Result};
use showctl::ident::Ident;
use showctl::media::builders::Confirmable;

/// One command for `MediaPlayer.batch()`, checked when it is built (bad input raises
/// `ValueError` here, before anything is sent). Build it with the static methods, which take
/// the arguments of the `MediaPlayer` and `Layer` method of the same name (`layer` first for a
/// layer's command; `None` for the workspace where both exist), `confirm` included, or through
/// `showctl.cmd`.
#[pyclass(module = "showctl._core", name = "Command", frozen, eq, hash)]
#[derive(PartialEq, Hash)]
pub struct PyCommand {
    pub(crate) job: Confirmable,
}

impl PyCommand {
    /// A layer argument: an index, a name, a UUID or a `Layer` handle.
    pub(crate) fn layer_arg(obj: &Bound<'_, PyAny>) -> PyResult<Ident> {
        match obj.cast::<PyLayer>() {
            Ok(l) => Ok(l.get().ident.clone()),
            Err(_) => ident(obj, "layer"),
        }
    }
}

#[pymethods]
impl PyCommand {
    /// "POST".
    #[getter]
    fn method(&self) -> &'static str {
        self.job.call.request.method.as_str()
    }
    /// The path below /api/0 as sent, with its query.
    #[getter]
    fn path(&self) -> String {
        self.job.call.request.path_and_query()
    }
    /// The JSON body as sent (decoded), or None.
    #[getter]
    fn body(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.job.body().into_py(py)
    }
    /// True when the command is read back after it is sent (built with `confirm=True`).
    #[getter]
    fn confirm(&self) -> bool {
        self.job.expect.is_some()
    }

    fn __repr__(&self) -> String {
        self.job.describe()
    }

    /// Any POST: `path` relative to /api/0, `json` a body, `params` the query.
    #[staticmethod]
    #[pyo3(signature = (path, json=None, params=None))]
    fn request(
        #[pyo3(from_py_with = args::request_path)] path: String,
        json: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = args::params)] params: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let body = json.map(|j| py_to_json(j, "json")).transpose()?;
        let job = Confirmable::request(&path, body, params_arg(params.as_ref())?)
            .map_err(crate::errors::to_py)?;
        Ok(PyCommand { job })
    }
}

/// The commands of a batch (to report) and their jobs (to send).
type Commands = (Vec<Py<PyCommand>>, Vec<Confirmable>);

/// The commands of a batch, checked.
pub(crate) fn batch_commands(commands: &Bound<'_, PyAny>) -> PyResult<Commands> {
    let mut objects = Vec::new();
    let mut jobs = Vec::new();
    for (i, item) in commands.try_iter()?.enumerate() {
        let item = item?;
        let what = "a showctl.Command (see showctl.cmd)";
        let cmd = item
            .cast::<PyCommand>()
            .map_err(|_| expected(&format!("commands[{i}]"), what, &item))?;
        jobs.push(cmd.get().job.clone());
        objects.push(cmd.clone().unbind());
    }
    Ok((objects, jobs))
}

/// The outcome of one command of `MediaPlayer.batch()`.
#[pyclass(module = "showctl._core", name = "BatchResult", frozen)]
pub struct PyBatchResult {
    /// Position of the command in the batch.
    #[pyo3(get)]
    index: usize,
    /// The command.
    #[pyo3(get)]
    command: Py<PyCommand>,
    /// The exception the command met (a `ShowctlError`), or None.
    #[pyo3(get)]
    error: Option<Py<PyAny>>,
    delivery: Delivery,
}

#[pymethods]
impl PyBatchResult {
    /// True when the command was answered with a 2xx.
    #[getter]
    fn ok(&self) -> bool {
        self.error.is_none()
    }
    /// Whether the command reached the application: `"answered"` when it is `ok`, else its
    /// error's `delivery` (`"not_sent"`: safe to send again; `"sent_no_answer"`: the
    /// application may have acted; `"answered"`: it answered with an error, or a read-back
    /// did not confirm).
    #[getter]
    fn delivery(&self) -> &'static str {
        self.delivery.as_str()
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(
            slf.as_any(),
            &["index", "ok", "delivery", "error", "command"],
        )
    }
}

/// A batch's commands and what each met.
pub(crate) struct BatchOut {
    pub commands: Vec<Py<PyCommand>>,
    pub results: Vec<Result<()>>,
}

impl Reply for BatchOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = self
            .commands
            .into_iter()
            .zip(self.results)
            .enumerate()
            .map(|(index, (command, result))| {
                let delivery = Delivery::of(&result);
                let error = result.err().map(|e| exception_of(py, e));
                Py::new(
                    py,
                    PyBatchResult {
                        index,
                        command,
                        error,
                        delivery,
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any().unbind())
    }
    fn py_type() -> String {
        "list[BatchResult]".into()
    }
}
