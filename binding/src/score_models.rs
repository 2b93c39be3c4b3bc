//! `ScoreRecord` and the per-sport record classes: each sport's class holds the typed values
//! the core reads from the record (`ScoreRecord::typed`), one attribute per field of its table.
//! The classes with fields are made from the core's sport table (`showctl::sports!`, handed
//! to `sport_classes!` below); `CustomScore` is written here.

use std::sync::Arc;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyDict, PyList, PyString, PyType};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::convert::{json_to_py, py_to_json, Reply};
use super::score_view::PyScoreView;
use showctl::score::board::Display;
use showctl::score::sports::{fields_of, mismatch, FieldKind, Sport};
use showctl::score::ScoreRecord;

/// The live score record of the active game.
#[pyclass(module = "showctl._core", name = "ScoreRecord", frozen, subclass, eq)]
#[derive(PartialEq)]
pub struct PyScoreRecord {
    pub rec: Arc<ScoreRecord>,
}

/// The value under a wire name, when `key` is a `str` the record holds.
fn lookup<'a>(rec: &'a ScoreRecord, key: &Bound<'_, PyAny>) -> Option<&'a serde_json::Value> {
    let key = key.cast::<PyString>().ok()?;
    rec.raw().get(&*key.to_cow().ok()?)
}

impl Reply for ScoreRecord {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        score_to_py(py, self)
    }
    fn py_type() -> String {
        "ScoreRecord".into()
    }
}

/// Build the Python object of the class of the record's sport (`ScoreRecord` when unknown).
pub fn score_to_py(py: Python<'_>, rec: ScoreRecord) -> PyResult<Py<PyAny>> {
    let (sport, typed) = (rec.sport(), serde_json::Value::Object(rec.typed()));
    let init = PyClassInitializer::from(PyScoreRecord { rec: Arc::new(rec) });
    match sport {
        Some(sport) => sport_class(py, sport, init, typed),
        None => Ok(Py::new(py, init)?.into_any()),
    }
}

showctl::sports!(showctl_macros::sport_classes {
    binding(record = PyScoreRecord, build = sub);
});

/// A sport's class, its attributes read from the record's typed values.
pub(crate) fn sub<S>(
    py: Python<'_>,
    init: PyClassInitializer<PyScoreRecord>,
    typed: serde_json::Value,
) -> PyResult<Py<PyAny>>
where
    S: pyo3::PyClass<BaseType = PyScoreRecord> + DeserializeOwned,
{
    let fields: S = serde_json::from_value(typed)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    Ok(Py::new(py, init.add_subclass(fields))?.into_any())
}

#[pymethods]
impl PyScoreRecord {
    /// Record identifier (`None` when absent or the text "null").
    #[getter]
    fn uuid(&self) -> Option<String> {
        self.rec.uuid()
    }
    /// Record format version.
    #[getter]
    fn version(&self) -> Option<String> {
        self.rec.version()
    }
    /// The wire `sportMode` (the last one, when the record carries the key twice).
    #[getter]
    fn sport_mode(&self) -> Option<String> {
        self.rec.sport_mode()
    }

    /// The value under a wire field name, as sent.
    fn __getitem__<'py>(&self, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let value = lookup(&self.rec, key).ok_or_else(|| PyKeyError::new_err(key.clone().unbind()));
        json_to_py(key.py(), value?)
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> bool {
        lookup(&self.rec, key).is_some()
    }

    /// The wire field names, in the order sent.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        PyList::new(py, self.rec.raw().keys())?
            .try_iter()
            .map(|it| it.into_any())
    }

    fn __len__(&self) -> usize {
        self.rec.raw().len()
    }

    /// The value under a wire field name, or `default`.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(
        &self,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match lookup(&self.rec, key) {
            Some(v) => json_to_py(key.py(), v),
            None => Ok(default.unwrap_or_else(|| key.py().None().into_bound(key.py()))),
        }
    }

    /// The wire field names, in the order sent.
    fn keys(&self) -> Vec<String> {
        self.rec.raw().keys().cloned().collect()
    }

    /// The JSON object as the application sent it (`mode="wire"`: wire names, every field as
    /// sent), or the attributes by name with their Python values (`mode="python"`: `uuid`,
    /// `version`, `sport_mode` and the sport's typed attributes, `games` for Custom; a record
    /// of an unknown sport has only the first three), as the media models do.
    #[pyo3(signature = (mode = "wire"))]
    fn to_dict<'py>(slf: &Bound<'py, Self>, mode: &str) -> PyResult<Bound<'py, PyAny>> {
        let (py, rec) = (slf.py(), &slf.get().rec);
        if super::convert::python_mode(mode)? {
            let names = rec.attr_names();
            return Ok(super::models::python_dict(slf.as_any(), &names)?.into_bound(py));
        }
        json_to_py(py, &serde_json::Value::Object(rec.raw().clone()))
    }

    /// Build a record from a dict of wire fields: `ScoreRecord.from_dict` gives the class of
    /// the record's sport; a sport's class (`BasketballScore.from_dict`) refuses a record of
    /// another sport (or of none) with `ValueError`.
    #[classmethod]
    fn from_dict(cls: &Bound<'_, PyType>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = cls.py();
        let rec = ScoreRecord::from_value(py_to_json(data, "data")?)
            .map_err(|e| PyValueError::new_err(format!("data: {e}")))?;
        let record = score_to_py(py, rec)?;
        if let Some(message) = other_sport(record.bind(py), cls, None)? {
            return Err(PyValueError::new_err(message));
        }
        Ok(record)
    }

    /// The hash of the JSON object `==` compares.
    fn __hash__(&self) -> u64 {
        showctl::json::hash_object(self.rec.raw())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        super::convert::repr_of(slf.as_any(), &slf.get().rec.attr_names())
    }

    /// The sport-independent view: teams (name, score as int), period, possession, extras.
    fn view(&self) -> PyScoreView {
        PyScoreView(self.rec.view())
    }

    /// A compact scoreboard table for Jupyter: team rows by score fields, escaped.
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        super::convert::html(slf.as_any(), "score_record_html")
    }

    /// What the HTML view shows, as the core lays it out: `(boards, title, fields)`, each board
    /// `(title, notes, columns, rows)` (see `showctl._html.score_record_html`).
    fn _display(&self) -> Display {
        self.rec.display()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let core = slf.py().import("showctl._core")?;
        let ctor = core.getattr("_score_from_json")?;
        Ok((ctor, (slf.get().rec.to_json(),)))
    }
}

/// When `cls` is a sport's class and `record` is not of it: the refusal, naming what the
/// record's sport is (`None` when `cls` is `ScoreRecord` itself, or the record's class); `url`
/// as in [`mismatch`].
pub(crate) fn other_sport(
    record: &Bound<'_, PyAny>,
    cls: &Bound<'_, PyType>,
    url: Option<&str>,
) -> PyResult<Option<String>> {
    let py = record.py();
    if cls.is(py.get_type::<PyScoreRecord>()) || record.get_type().is(cls) {
        return Ok(None);
    }
    let mode = record.cast::<PyScoreRecord>()?.get().rec.sport_mode();
    let found = match mode {
        Some(m) => format!("the record's sportMode is {}", m.into_pyobject(py)?.repr()?),
        None => "the record has no sportMode".to_string(),
    };
    Ok(Some(mismatch(&found, &cls.name()?.to_cow()?, url)))
}

/// Rebuild a record from its JSON text (used by pickle).
#[pyfunction]
pub fn _score_from_json(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    let rec = ScoreRecord::from_slice(json.as_bytes())
        .map_err(pyo3::exceptions::PyValueError::new_err)?;
    score_to_py(py, rec)
}

/// A Custom score record: user-defined games.
#[pyclass(module = "showctl._core", name = "CustomScore", frozen, extends = PyScoreRecord)]
#[derive(Deserialize)]
pub struct CustomScore {}

#[pymethods]
impl CustomScore {
    /// The games (`game1`, `game2`, … in order), each a dict of its properties as text.
    #[getter]
    fn games<'py>(slf: PyRef<'py, Self>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let games = slf.as_super().rec.games().into_iter();
        games.map(|g| g.into_py_dict(slf.py())).collect()
    }
}

/// The attribute's type in the stubs.
fn stub_type(kind: FieldKind) -> &'static str {
    match kind {
        FieldKind::Str => "str | None",
        FieldKind::Int => "int | None",
        FieldKind::Bool => "bool | None",
        FieldKind::Series => "list[str | None]",
    }
}

/// The sport classes as data: (class name, [(attribute, stub type)]), for the stub generator.
#[pyfunction]
pub(crate) fn _sports() -> Vec<(String, Vec<(&'static str, &'static str)>)> {
    Sport::ALL
        .into_iter()
        .map(|sport| {
            let fields = fields_of(sport).iter().map(|f| (f.attr, stub_type(f.kind)));
            (format!("{}Score", sport.wire_name()), fields.collect())
        })
        .collect()
}
