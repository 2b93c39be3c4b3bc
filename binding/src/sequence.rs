//! The steps of `MediaPlayer.sequence()` besides commands (`Wait`, `WaitUntil`, also reachable
//! as `showctl.cmd.wait` and `showctl.cmd.wait_until`), `SequenceResult` and `StepResult`, and
//! the conversion of a list of steps (`showctl::media::sequence` runs them).

use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::{self, number, optional, text};
use super::command::PyCommand;
use super::convert::{expected, json_to_py, repr_of, Reply};
use super::errors::exception_of;
use super::jobs::Work;
use showctl::error::Delivery;
use showctl::media::sequence::{self as seq, Outcome, Progress, Run, State, Step, Stop, Until};
use showctl::media::MediaClient;

/// A step of a sequence: wait `seconds` (0 to 3600). Sends nothing; bad input raises
/// `ValueError` here.
#[pyclass(module = "showctl._core", name = "Wait", frozen, eq)]
#[derive(PartialEq)]
pub struct PyWait {
    /// The wait, in seconds.
    #[pyo3(get)]
    seconds: f64,
}

#[pymethods]
impl PyWait {
    #[new]
    fn new(#[pyo3(from_py_with = args::seconds)] seconds: f64) -> PyResult<Self> {
        seq::wait(seconds).map_err(crate::errors::to_py)?;
        Ok(PyWait { seconds })
    }

    fn __repr__(&self) -> String {
        format!("Wait({})", self.seconds)
    }
}

/// A step of a sequence: read the layer's transport every `interval` seconds (0.05 at least)
/// until it is `state` ("playing", "stopped" or "empty") or, with `remaining=`, until media is
/// loaded with at most that many seconds remaining; for at most `timeout` seconds (required,
/// above 0, at most 3600), after which the step fails with `showctl.Timeout`. Sends nothing;
/// bad input raises `ValueError` here.
#[pyclass(module = "showctl._core", name = "WaitUntil", frozen)]
pub struct PyWaitUntil {
    pub(crate) until: Until,
}

#[pymethods]
impl PyWaitUntil {
    #[new]
    #[pyo3(signature = (layer, state=None, *, remaining=None, timeout=None, interval=0.1))]
    fn new(
        #[pyo3(from_py_with = PyCommand::layer_arg)] layer: showctl::ident::Ident,
        #[pyo3(from_py_with = state_arg)] state: Option<String>,
        #[pyo3(from_py_with = remaining_arg)] remaining: Option<f64>,
        #[pyo3(from_py_with = timeout_arg)] timeout: Option<f64>,
        #[pyo3(from_py_with = args::interval)] interval: f64,
    ) -> PyResult<Self> {
        let state = State::new(state.as_deref(), remaining).map_err(crate::errors::to_py)?;
        let until = Until::new(layer, state, timeout, interval).map_err(crate::errors::to_py)?;
        Ok(PyWaitUntil { until })
    }

    /// The layer, as given (an index or a name/UUID).
    #[getter]
    fn layer(&self) -> String {
        self.until.layer.to_string()
    }
    /// The bound, in seconds.
    #[getter]
    fn timeout(&self) -> f64 {
        self.until.timeout.as_secs_f64()
    }

    fn __repr__(&self) -> String {
        format!(
            "WaitUntil(layer {}, {}, timeout={})",
            self.until.layer,
            self.until.state.describe(),
            self.until.timeout.as_secs_f64()
        )
    }
}

fn state_arg(o: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    optional(o, "state", text)
}
fn remaining_arg(o: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
    optional(o, "remaining", number)
}
fn timeout_arg(o: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
    optional(o, "timeout", number)
}

/// The steps as given (to report) and as the core runs them.
pub(crate) struct Steps {
    objects: Vec<Py<PyAny>>,
    steps: Arc<[Step]>,
}

/// The steps of a sequence, checked: each a `Command`, a `Wait` or a `WaitUntil` (a refusal
/// names its index), 1 to 10,000 of them.
pub(crate) fn steps(items: &Bound<'_, PyAny>) -> PyResult<Steps> {
    let mut objects = Vec::new();
    let mut steps = Vec::new();
    for (i, item) in items.try_iter()?.enumerate() {
        let item = item?;
        let step = if let Ok(c) = item.cast::<PyCommand>() {
            Step::Command(Box::new(c.get().job.clone()))
        } else if let Ok(w) = item.cast::<PyWait>() {
            Step::Wait(seq::wait(w.get().seconds).map_err(crate::errors::to_py)?)
        } else if let Ok(u) = item.cast::<PyWaitUntil>() {
            Step::Until(u.get().until.clone())
        } else {
            let what = "a showctl.Command, cmd.wait(...) or cmd.wait_until(...)";
            return Err(expected(&format!("steps[{i}]"), what, &item));
        };
        steps.push(step);
        objects.push(item.unbind());
    }
    let steps = seq::steps(steps).map_err(crate::errors::to_py)?;
    Ok(Steps { objects, steps })
}

/// Stops the run when the call is dropped (a cancelled task, Ctrl-C): the run ends between
/// steps, in the background, and says so on the log.
struct StopOnDrop(Stop);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The work of `sequence()`: look every identifier up, then run the steps in order. The run
/// is a task of its own, so that a cancelled call never abandons a command half-way: the
/// command in flight finishes, and nothing is sent after it.
pub(crate) fn run(
    client: &MediaClient,
    given: Steps,
    halt: bool,
    name: Option<String>,
) -> Work<BoxFuture<'static, showctl::Result<SequenceOut>>> {
    let client = client.clone();
    Work(
        async move {
            seq::check(&client, &given.steps).await?;
            let stop = Stop::default();
            let guard = StopOnDrop(stop.clone());
            let label: Option<Arc<str>> = name.clone().map(Into::into);
            let steps = given.steps.clone();
            let (tx, rx) = tokio::sync::oneshot::channel();
            showctl::embedder::spawn(async move {
                let run = seq::run(&client, steps, halt, label, stop, Progress::default()).await;
                let _ = tx.send(run);
            });
            let run = rx.await.map_err(|_| {
                showctl::Error::Internal("the sequence's task ended without a result".into())
            })?;
            drop(guard);
            Ok(SequenceOut {
                objects: given.objects,
                run,
                name,
            })
        }
        .boxed(),
    )
}

/// The work of `check_sequence()`.
pub(crate) fn check(
    client: &MediaClient,
    given: Steps,
) -> Work<BoxFuture<'static, showctl::Result<()>>> {
    let client = client.clone();
    Work(async move { seq::check(&client, &given.steps).await }.boxed())
}

/// What one step of a sequence met.
#[pyclass(module = "showctl._core", name = "StepResult", frozen)]
pub struct PyStepResult {
    /// Position of the step in the sequence.
    #[pyo3(get)]
    index: usize,
    /// The step as given (a `Command`, `Wait` or `WaitUntil`).
    #[pyo3(get)]
    step: Py<PyAny>,
    /// The exception the step met (a `ShowctlError`), or None.
    #[pyo3(get)]
    error: Option<Py<PyAny>>,
    /// Seconds the step took.
    #[pyo3(get)]
    elapsed: f64,
    /// The value read back by a command sent with `confirm=True` (as read from JSON), else
    /// None.
    #[pyo3(get)]
    value: Py<PyAny>,
    delivery: Option<Delivery>,
}

#[pymethods]
impl PyStepResult {
    /// True when the step did what it asked (a command answered, and confirmed when asked; a
    /// wait on the transport saw its state in time).
    #[getter]
    fn ok(&self) -> bool {
        self.error.is_none()
    }
    /// For a command: `"answered"` when it is `ok`, else its error's (`"not_sent"`: nothing
    /// went out; `"sent_no_answer"`: the application may have acted). None for a wait (it
    /// sends nothing).
    #[getter]
    fn delivery(&self) -> Option<&'static str> {
        self.delivery.map(Delivery::as_str)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(
            slf.as_any(),
            &["index", "ok", "delivery", "elapsed", "error", "step"],
        )
    }
}

/// What `sequence()` did.
#[pyclass(module = "showctl._core", name = "SequenceResult", frozen)]
pub struct PySequenceResult {
    /// One `StepResult` per step that ran, in order.
    #[pyo3(get)]
    steps: Py<PyList>,
    /// The index of the step it stopped at (the failed step with `halt_on_failure`), or None
    /// when every step ran.
    #[pyo3(get)]
    stopped_at: Option<usize>,
    /// The sequence's name, or None.
    #[pyo3(get)]
    name: Option<String>,
    ok: bool,
}

#[pymethods]
impl PySequenceResult {
    /// True when every step ran and each was ok.
    #[getter]
    fn ok(&self) -> bool {
        self.ok
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), &["ok", "stopped_at", "name", "steps"])
    }
}

/// A finished sequence's steps and what they met.
pub(crate) struct SequenceOut {
    objects: Vec<Py<PyAny>>,
    run: Run,
    name: Option<String>,
}

impl Reply for SequenceOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let ok =
            self.run.stopped_at.is_none() && self.run.outcomes.iter().all(|o| o.result.is_ok());
        let steps = self
            .run
            .outcomes
            .into_iter()
            .map(|o| step_result(py, &self.objects, o))
            .collect::<PyResult<Vec<_>>>()?;
        let result = PySequenceResult {
            steps: PyList::new(py, steps)?.unbind(),
            stopped_at: self.run.stopped_at,
            name: self.name,
            ok,
        };
        Ok(Py::new(py, result)?.into_any())
    }
    fn py_type() -> String {
        "SequenceResult".into()
    }
}

fn step_result(py: Python<'_>, objects: &[Py<PyAny>], o: Outcome) -> PyResult<Py<PyStepResult>> {
    let step = objects[o.index].clone_ref(py);
    let is_command = step.bind(py).cast::<PyCommand>().is_ok();
    let delivery = is_command.then(|| Delivery::of(&o.result));
    let (value, error) = match o.result {
        Ok(Some(v)) => (json_to_py(py, &v)?.unbind(), None),
        Ok(None) => (py.None(), None),
        Err(e) => (py.None(), Some(exception_of(py, e))),
    };
    Py::new(
        py,
        PyStepResult {
            index: o.index,
            step,
            error,
            elapsed: o.elapsed.as_secs_f64(),
            value,
            delivery,
        },
    )
}

/// The TOML file `path` as a dict (a sequence file of `showctl run`); a refusal says where.
#[pyfunction]
pub(crate) fn _read_toml(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Py<PyAny>> {
    let text = std::fs::read_to_string(&path)
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display())))?;
    let value = showctl::venue::toml_value(&text, &path.display().to_string())
        .map_err(crate::errors::to_py)?;
    Ok(json_to_py(py, &value)?.unbind())
}
