//! Binding of the simulator: `Simulator` and the `RecordedRequest` records of its log.

use std::sync::Arc;

use futures::FutureExt;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyBytes, PyDict, PyFloat, PyTuple};

use crate::args;
use crate::convert::{json_to_py, py_to_json, serialize_to_py};
use crate::rt;
use showctl::serve::Limits;
use showctl::simulator::{Given, LoadError, Options, Record, Simulator, Workspace};

/// One request the simulator received.
#[pyclass(module = "showctl._core", name = "RecordedRequest", frozen, eq, hash)]
#[derive(PartialEq, Hash)]
pub struct PyRecordedRequest {
    rec: Record,
}

#[pymethods]
impl PyRecordedRequest {
    /// `GET` or `POST` (or whatever was sent).
    #[getter]
    fn method(&self) -> &str {
        &self.rec.method
    }
    /// The path as sent (percent-encoded), with the /api/0 prefix, without the query.
    #[getter]
    fn path(&self) -> &str {
        &self.rec.path
    }
    /// Decoded query parameters (the last value of a repeated key).
    #[getter]
    fn query<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.rec.query.iter().into_py_dict(py)
    }
    /// Headers with lower-case names; `authorization` is never kept.
    #[getter]
    fn headers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.rec.headers.iter().into_py_dict(py)
    }
    /// The body as sent (its first 4096 bytes: the log keeps no more of a body; see
    /// `body_length`).
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.rec.body)
    }
    /// The length of the body as sent (`len(body)` unless it was longer than the log keeps).
    #[getter]
    fn body_length(&self) -> usize {
        self.rec.body_len
    }
    /// The status answered; `None` when the connection was dropped (`drop_next`).
    #[getter]
    fn status(&self) -> Option<u16> {
        self.rec.status
    }
    /// The body decoded as JSON; `None` when empty.
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let body = self.rec.json().map_err(crate::errors::to_py)?;
        json_to_py(py, &body.unwrap_or_default())
    }
    fn __repr__(&self) -> String {
        self.rec.to_string()
    }
}

fn workspace_from(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Workspace> {
    let given = match obj {
        None => Given::Builtin,
        Some(obj) if obj.is_instance_of::<PyDict>() => Given::Data(py_to_json(obj, "workspace")?),
        Some(obj) => Given::Path(obj.extract().map_err(|_| {
            PyTypeError::new_err(
                "workspace: expected a path to a JSON workspace file or a directory holding \
                 workspace.json, a dict, or None",
            )
        })?),
    };
    Workspace::given(given).map_err(|e| match e {
        LoadError::Io(e) => e.into(),
        LoadError::Invalid(e) => crate::errors::to_py(e),
    })
}

/// A stand-in for the media playback and scoreboard applications on a loopback port.
#[pyclass(module = "showctl._core", name = "Simulator", frozen)]
pub struct PySimulator {
    sim: Arc<Simulator>,
}

#[pymethods]
impl PySimulator {
    #[new]
    #[pyo3(signature = (
        port=0, api_key=None, workspace=None, *, strict=false, apply_delay=0.0, host="127.0.0.1",
        header_timeout=30.0, blend_route=false, read_content_type=None,
        score_tick=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = args::port)] port: i64,
        #[pyo3(from_py_with = args::api_key)] api_key: Option<String>,
        workspace: Option<&Bound<'_, PyAny>>,
        strict: bool,
        apply_delay: f64,
        host: &str,
        header_timeout: f64,
        blend_route: bool,
        read_content_type: Option<String>,
        #[pyo3(from_py_with = args::score_tick)] score_tick: Option<f64>,
    ) -> PyResult<Self> {
        let options = Options {
            host: host.to_string(),
            port: showctl::serve::port(port).map_err(crate::errors::to_py)?,
            api_key,
            workspace: workspace_from(workspace)?,
            strict,
            apply_delay,
            limits: Limits::with_header_timeout(header_timeout).map_err(crate::errors::to_py)?,
            blend_route,
            read_content_type,
            score_tick,
        };
        let sim = Simulator::new(options).map_err(crate::errors::to_py)?;
        Ok(PySimulator { sim: Arc::new(sim) })
    }

    /// Start listening (no-op when running); returns the simulator.
    fn start(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get()
            .sim
            .start(showctl::runtime::get().handle())
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(slf)
    }

    /// Stop listening and close every connection (no-op when stopped; an answer being written
    /// gets 1 s to finish). In a child of `os.fork()` it returns at once and leaves the parent's
    /// simulator serving.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        let sim = self.sim.clone();
        rt::wait(py, async move { sim.stop().await }.map(Ok))
    }

    /// True while the simulator serves.
    #[getter]
    fn running(&self) -> bool {
        self.sim.addr().is_some()
    }

    /// `http://127.0.0.1:PORT`, to pass to a client (which adds /api/0).
    #[getter]
    fn url(&self) -> PyResult<String> {
        self.sim
            .url()
            .ok_or_else(|| PyRuntimeError::new_err("the simulator is not running: call start()"))
    }

    /// The port listened on (the requested one until started; kept after stop()).
    #[getter]
    fn port(&self) -> u16 {
        self.sim.port()
    }

    /// Whether what the applications accept but the documents do not allow answers 400.
    #[getter]
    fn strict(&self) -> bool {
        self.sim.strict()
    }

    /// Seconds between a command's 200 and its change.
    #[getter]
    fn apply_delay(&self) -> f64 {
        self.sim.apply_delay()
    }

    /// Whether `/blend/layer/{id}` answers (as before 3.8); else only `/layerBlend/layer/{id}`.
    #[getter]
    fn blend_route(&self) -> bool {
        self.sim.blend_route()
    }

    /// The `Content-Type` of a read's answer (`None`: no `Content-Type`, the default).
    #[getter]
    fn read_content_type(&self) -> Option<String> {
        self.sim.read_content_type()
    }

    /// Seconds between two ticks of play while running (`None`: the score moves only when
    /// set). At each tick one team scores; every 5th tick the period ends (the quarter, the
    /// half-inning, the set, as the sport counts it); after the last period a new game starts.
    #[getter]
    fn score_tick(&self) -> Option<f64> {
        self.sim.score_tick()
    }

    /// Requests accepted (or, when strict, refused) that break the documents, oldest first.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.sim.warnings()
    }

    fn clear_warnings(&self) {
        self.sim.clear_warnings();
    }

    /// The key requests must carry, if any.
    #[getter]
    fn api_key(&self) -> Option<&str> {
        self.sim.api_key()
    }

    /// The requests received, oldest first (the last 10 000).
    #[getter]
    fn requests(&self) -> Vec<PyRecordedRequest> {
        self.sim
            .requests()
            .into_iter()
            .map(|rec| PyRecordedRequest { rec })
            .collect()
    }

    /// Forget the requests recorded so far (`requests` starts empty again).
    fn clear_requests(&self) {
        self.sim.clear_requests();
    }

    /// The next `times` requests answer `status` (300–599) instead; 0 cancels.
    #[pyo3(signature = (status, times=1))]
    fn fail_next(
        &self,
        #[pyo3(from_py_with = args::status)] status: i64,
        #[pyo3(from_py_with = args::times)] times: i64,
    ) -> PyResult<()> {
        self.sim
            .fail_next(status, times)
            .map_err(crate::errors::to_py)
    }

    /// Delay every answer by `seconds` (0 removes the delay).
    fn delay(&self, #[pyo3(from_py_with = args::seconds)] seconds: f64) -> PyResult<()> {
        self.sim.delay(seconds).map_err(crate::errors::to_py)
    }

    /// Close the connection of the next `times` requests without answering; 0 cancels.
    #[pyo3(signature = (times=1))]
    fn drop_next(&self, #[pyo3(from_py_with = args::times)] times: i64) -> PyResult<()> {
        self.sim.drop_next(times).map_err(crate::errors::to_py)
    }

    /// Set a field of the active score record (`"game1.team1Goals"` for a Custom game).
    fn set_score(
        &self,
        #[pyo3(from_py_with = args::field)] field: String,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if let Ok(f) = value.cast::<PyFloat>() {
            showctl::simulator::check_score_number(&field, f.value())
                .map_err(crate::errors::to_py)?;
        }
        let value = py_to_json(value, "value")?;
        self.sim
            .set_score(&field, value)
            .map_err(crate::errors::to_py)
    }

    /// Switch the scoreboard to a sport mode of the document (its record is kept per sport).
    fn set_sport(&self, #[pyo3(from_py_with = args::mode)] mode: String) -> PyResult<()> {
        self.sim.set_sport(&mode).map_err(crate::errors::to_py)
    }

    /// The selected layer index, the targeted layer index (where untargeted media plays) and
    /// the selected playlist's UUID.
    #[getter]
    fn selection(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        serialize_to_py(py, &self.sim.selection())
    }

    /// Back to the workspace as loaded: state, faults and the request log.
    fn reset(&self) {
        self.sim.reset();
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        Self::start(slf)
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>) -> PyResult<()> {
        self.stop(py)
    }

    fn __aenter__<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let slf = Self::start(slf)?.unbind();
        rt::ready(py, slf)
    }

    #[pyo3(signature = (*_args))]
    fn __aexit__<'py>(
        &self,
        py: Python<'py>,
        _args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let sim = self.sim.clone();
        rt::spawn(py, async move { sim.stop().await }.map(Ok), |_, ()| Ok(()))
    }

    fn __repr__(&self) -> String {
        self.sim.to_string()
    }
}
