//! Binding of the score events: `ScoreEvent` and `ScoreEventWatch` (from
//! `Scoreboard.watch_events()`). The work is in the core (`showctl::score::events`).

use pyo3::prelude::*;

use super::convert::repr_of;
use super::convert::serialize_to_py as plain;
use super::errors::exception_of;
use super::events::seconds_since_epoch;
use super::score_models::score_to_py;
use super::watch::watch_class;
use showctl::score::{ScoreEvent, ScoreEventWatch};

/// A change seen by `Scoreboard.watch_events()`.
#[pyclass(module = "showctl._core", name = "ScoreEvent", frozen, get_all)]
pub struct PyScoreEvent {
    /// `score_changed`, `period_changed`, `possession_changed`, `sport_changed`,
    /// `field_changed`, `poll_failed` or `poll_recovered`.
    kind: &'static str,
    /// The wire field that changed (`gameN.name` inside a Custom game); None for sport and
    /// poll events.
    field: Option<String>,
    /// 1 or 2 (`score_changed`).
    team: Option<usize>,
    /// The Custom game (1 for `game1`) of a change inside a game.
    game: Option<usize>,
    /// The value before (int where the text is a number; None: not sent).
    old: Option<Py<PyAny>>,
    /// The value after.
    new: Option<Py<PyAny>>,
    /// `new - old` when both are numbers (`score_changed`).
    delta: Option<i64>,
    /// The record that showed the change (None for `poll_failed`).
    record: Option<Py<PyAny>>,
    /// The failure (`poll_failed` only): a `ShowctlError`.
    error: Option<Py<PyAny>>,
    /// When the poll was answered (seconds since the epoch, like `time.time()`).
    timestamp: f64,
}

#[pymethods]
impl PyScoreEvent {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let e = slf.get();
        let values = e.old.is_some() || e.new.is_some();
        let shown = [
            ("kind", true),
            ("error", e.error.is_some()),
            ("field", e.field.is_some()),
            ("team", e.team.is_some()),
            ("old", values),
            ("new", values),
            ("delta", e.delta.is_some()),
        ];
        let names: Vec<&str> = shown.iter().filter(|s| s.1).map(|s| s.0).collect();
        repr_of(slf.as_any(), &names)
    }
}

fn event_to_py(py: Python<'_>, e: ScoreEvent) -> PyResult<Py<PyScoreEvent>> {
    let event = PyScoreEvent {
        kind: e.kind.as_str(),
        field: e.field,
        team: e.team,
        game: e.game,
        old: e.old.map(|v| plain(py, &v)).transpose()?,
        new: e.new.map(|v| plain(py, &v)).transpose()?,
        delta: e.delta,
        record: e
            .record
            .map(|r| score_to_py(py, (*r).clone()))
            .transpose()?,
        error: e.error.map(|e| exception_of(py, e)),
        timestamp: seconds_since_epoch(Some(e.at)).unwrap_or(0.0),
    };
    Py::new(py, event)
}

watch_class! {
    /// Iterator (and async iterator) over score events, from `Scoreboard.watch_events()`.
    PyScoreEventWatch("ScoreEventWatch") over ScoreEventWatch, each event_to_py
}
