//! Binding of the score view: `ScoreView` and `TeamScore` (from `ScoreRecord.view()`). The
//! work is in the core (`showctl::score::view`).

use pyo3::prelude::*;

use super::convert::{repr_of, serialize_to_py as plain};
use showctl::score::{ScoreView, Team};

/// One team of a `ScoreView`.
#[pyclass(module = "showctl._core", name = "TeamScore", frozen, eq)]
#[derive(PartialEq)]
pub struct PyTeamScore(Team);

#[pymethods]
impl PyTeamScore {
    /// The team's name field, when the sport has one (`team1Name`).
    #[getter]
    fn name(&self) -> Option<String> {
        self.0.name.clone()
    }
    /// The score: an `int` where the wire text is a whole number, else the text.
    #[getter]
    fn score(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0.score)
    }
    /// The team's other fields in snake case (`fouls`, `time_outs`, `hits`), typed the same way.
    #[getter]
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0.stats)
    }
    /// Baseball runs per inning (None for an inning not played); empty for other sports.
    #[getter]
    fn line_score(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0.line_score)
    }
    /// Tennis and Volleyball points per set (None for a set not played); empty otherwise.
    #[getter]
    fn sets(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0.sets)
    }
    /// The team as a dict (the shape of the feed's `/scores.json`).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), &["name", "score"])
    }
}

/// The sport-independent view of a score record, from `ScoreRecord.view()`.
#[pyclass(module = "showctl._core", name = "ScoreView", frozen, eq)]
#[derive(PartialEq)]
pub struct PyScoreView(pub(crate) ScoreView);

#[pymethods]
impl PyScoreView {
    /// The wire `sportMode`.
    #[getter]
    fn sport(&self) -> Option<String> {
        self.0.sport.clone()
    }
    /// Team 1 and team 2 (empty for an unknown sport; the first game's for Custom).
    #[getter]
    fn teams(&self) -> Vec<PyTeamScore> {
        self.0.teams.iter().cloned().map(PyTeamScore).collect()
    }
    /// The period (Australian football's quarter, Baseball's inning): int or text.
    #[getter]
    fn period(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0.period)
    }
    /// Possession: int or text (None when the sport has none).
    #[getter]
    fn possession(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0.possession)
    }
    /// The other game fields in snake case (`down`, `to_go`, `current_set`, `top_bottom`).
    #[getter]
    fn fields(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0.fields)
    }
    /// A Custom record's games in order, each a `ScoreView`; empty for other sports.
    #[getter]
    fn games(&self) -> Vec<PyScoreView> {
        self.0.games.iter().cloned().map(Self).collect()
    }
    /// The view as a dict (the `view` of the feed's `/scores.json`).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.0)
    }
    /// A compact table for Jupyter: a row per team (name, score, stats, sets or line score),
    /// then the period, possession and other fields.
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        super::convert::html(slf.as_any(), "score_view_html")
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), &["sport", "teams", "period", "possession"])
    }
}
