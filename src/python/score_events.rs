//! Binding of the score view and the score events: `ScoreView`, `TeamScore`, `ScoreEvent` and
//! `ScoreEventWatch`. The work is in the core (`crate::score::{view, events}`).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use serde::Serialize;

use super::automation::{error_value, seconds_since_epoch};
use super::media::dataclass_repr;
use super::scoreboard::score_to_py;
use crate::python::watch::watch_class;
use crate::score::{ScoreEvent, ScoreEventWatch, ScoreView, Team, Val};

/// Any serializable core value as plain Python objects (int, str, bool, None, dict, list).
fn plain<T: Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    super::convert::serialize_to_py(py, v)
}

/// One team of a `ScoreView`.
#[pyclass(module = "showctl._core", name = "TeamScore", frozen)]
pub struct PyTeamScore {
    team: Team,
}

#[pymethods]
impl PyTeamScore {
    /// The team's name field, when the sport has one (`team1Name`).
    #[getter]
    fn name(&self) -> Option<String> {
        self.team.name.clone()
    }
    /// The score: an `int` where the wire text is a whole number, else the text.
    #[getter]
    fn score(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.team.score)
    }
    /// The team's other fields in snake case (`fouls`, `time_outs`, `hits`), typed the same way.
    #[getter]
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.team.stats)
    }
    /// Baseball runs per inning (None for an inning not played); empty for other sports.
    #[getter]
    fn line_score(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.team.line_score)
    }
    /// Tennis and Volleyball points per set (None for a set not played); empty otherwise.
    #[getter]
    fn sets(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.team.sets)
    }
    /// The team as a dict (the shape of the feed's `/scores.json`).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.team)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyTeamScore>()
            .is_ok_and(|o| o.get().team == self.team)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        dataclass_repr(
            py,
            "TeamScore",
            &[
                ("name", self.name().into_py_any(py)?),
                ("score", self.score(py)?),
            ],
        )
    }
}

/// The sport-independent view of a score record, from `ScoreRecord.view()`.
#[pyclass(module = "showctl._core", name = "ScoreView", frozen)]
pub struct PyScoreView {
    view: Arc<ScoreView>,
}

impl PyScoreView {
    pub fn new(view: ScoreView) -> Self {
        PyScoreView {
            view: Arc::new(view),
        }
    }
}

#[pymethods]
impl PyScoreView {
    /// The wire `sportMode`.
    #[getter]
    fn sport(&self) -> Option<String> {
        self.view.sport.clone()
    }
    /// Team 1 and team 2 (empty for an unknown sport; the first game's for Custom).
    #[getter]
    fn teams(&self) -> Vec<PyTeamScore> {
        self.view
            .teams
            .iter()
            .map(|t| PyTeamScore { team: t.clone() })
            .collect()
    }
    /// The period (Australian football's quarter, Baseball's inning): int or text.
    #[getter]
    fn period(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.view.period)
    }
    /// Possession: int or text (None when the sport has none).
    #[getter]
    fn possession(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.view.possession)
    }
    /// The other game fields in snake case (`down`, `to_go`, `current_set`, `top_bottom`).
    #[getter]
    fn fields(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.view.fields)
    }
    /// A Custom record's games in order, each a `ScoreView`; empty for other sports.
    #[getter]
    fn games(&self) -> Vec<PyScoreView> {
        self.view.games.iter().cloned().map(Self::new).collect()
    }
    /// The view as a dict (the `view` of the feed's `/scores.json`).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &*self.view)
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyScoreView>()
            .is_ok_and(|o| o.get().view == self.view)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let teams: Vec<String> = self
            .teams()
            .iter()
            .map(|t| t.__repr__(py))
            .collect::<PyResult<_>>()?;
        Ok(format!(
            "ScoreView(sport={}, teams=[{}], period={}, possession={})",
            self.sport().into_py_any(py)?.bind(py).repr()?,
            teams.join(", "),
            self.period(py)?.bind(py).repr()?,
            self.possession(py)?.bind(py).repr()?,
        ))
    }
}

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

watch_class!(
    /// Iterator (and async iterator) over score events, from `Scoreboard.watch_events()`.
    PyScoreEventWatch,
    "ScoreEventWatch",
    ScoreEventWatch,
    next_event,
    event_to_py,
    Py<PyScoreEvent>
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyScoreView>()?;
    m.add_class::<PyTeamScore>()?;
    m.add_class::<PyScoreEvent>()?;
    m.add_class::<PyScoreEventWatch>()?;
    Ok(())
}
