//! Binding of the score events: `ScoreEvent` and `ScoreEventWatch` (from
//! `Scoreboard.watch_events()`). The work is in the core (`crate::score::events`).

use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use super::convert::dataclass_repr;
use super::events::{error_value, seconds_since_epoch};
use super::score_models::score_to_py;
use super::score_view::plain;
use super::watch::Shared;
use crate::score::{ScoreEvent, ScoreEventWatch, Val};

/// A change seen by `Scoreboard.watch_events()`.
#[pyclass(module = "showctl._core", name = "ScoreEvent", frozen)]
pub struct PyScoreEvent {
    inner: ScoreEvent,
}

fn val(py: Python<'_>, v: &Option<Val>) -> PyResult<Py<PyAny>> {
    plain(py, v)
}

#[pymethods]
impl PyScoreEvent {
    /// `score_changed`, `period_changed`, `possession_changed`, `sport_changed`,
    /// `field_changed`, `poll_failed` or `poll_recovered`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind.as_str()
    }
    /// The wire field that changed (`gameN.name` inside a Custom game); None for sport and
    /// poll events.
    #[getter]
    fn field(&self) -> Option<String> {
        self.inner.field.clone()
    }
    /// 1 or 2 (`score_changed`).
    #[getter]
    fn team(&self) -> Option<usize> {
        self.inner.team
    }
    /// The Custom game (1 for `game1`) of a change inside a game.
    #[getter]
    fn game(&self) -> Option<usize> {
        self.inner.game
    }
    /// The value before (int where the text is a number; None: not sent).
    #[getter]
    fn old(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        val(py, &self.inner.old)
    }
    /// The value after.
    #[getter]
    #[allow(clippy::wrong_self_convention, clippy::new_ret_no_self)]
    fn new(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        val(py, &self.inner.new)
    }
    /// `new - old` when both are numbers (`score_changed`).
    #[getter]
    fn delta(&self) -> Option<i64> {
        self.inner.delta
    }
    /// The record that showed the change (None for `poll_failed`).
    #[getter]
    fn record(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.inner.record {
            Some(r) => score_to_py(py, (**r).clone()),
            None => Ok(py.None()),
        }
    }
    /// The failure (`poll_failed` only): a `ShowctlError`.
    #[getter]
    fn error(&self, py: Python<'_>) -> Py<PyAny> {
        error_value(py, &self.inner.error)
    }
    /// When the poll was answered (seconds since the epoch, like `time.time()`).
    #[getter]
    fn timestamp(&self) -> f64 {
        seconds_since_epoch(Some(self.inner.at)).unwrap_or(0.0)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut fields = vec![("kind", self.kind().into_py_any(py)?)];
        if self.inner.error.is_some() {
            fields.push(("error", self.error(py)));
        }
        if self.inner.field.is_some() {
            fields.push(("field", self.field().into_py_any(py)?));
        }
        if self.inner.team.is_some() {
            fields.push(("team", self.team().into_py_any(py)?));
        }
        if self.inner.old.is_some() || self.inner.new.is_some() {
            fields.push(("old", self.old(py)?));
            fields.push(("new", self.new(py)?));
        }
        if self.inner.delta.is_some() {
            fields.push(("delta", self.delta().into_py_any(py)?));
        }
        dataclass_repr(py, "ScoreEvent", &fields)
    }
}

fn event_to_py(py: Python<'_>, inner: ScoreEvent) -> PyResult<Py<PyScoreEvent>> {
    Py::new(py, PyScoreEvent { inner })
}

/// Iterator (and async iterator) over score events, from `Scoreboard.watch_events()`.
#[pyclass(module = "showctl._core", name = "ScoreEventWatch", frozen)]
pub struct PyScoreEventWatch(pub(crate) Shared<ScoreEventWatch>);

#[pymethods]
impl PyScoreEventWatch {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __next__(&self, py: Python<'_>) -> PyResult<Py<PyScoreEvent>> {
        self.0.next(py, event_to_py)
    }
    fn __aiter__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __anext__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.0.anext(py, event_to_py)
    }
}
