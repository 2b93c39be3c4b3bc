//! `ScoreRecord` and the per-sport record classes.

use std::sync::Arc;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

use super::convert::{json_to_py, py_to_json, Reply};
use super::score_view::PyScoreView;
use crate::score::{fields_of, FieldValue, ScoreRecord, Sport};

/// The live score record of the active game.
#[pyclass(module = "showctl._core", name = "ScoreRecord", frozen, subclass)]
pub struct PyScoreRecord {
    pub rec: Arc<ScoreRecord>,
}

fn field_to_py<'py>(py: Python<'py>, v: FieldValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        FieldValue::Missing => py.None().into_bound(py),
        FieldValue::Str(s) => s.into_pyobject(py)?.into_any(),
        FieldValue::Int(i) => i.into_pyobject(py)?.into_any(),
        FieldValue::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        FieldValue::Series(items) => PyList::new(py, items)?.into_any(),
    })
}

impl PyScoreRecord {
    /// The typed value of attribute `attr` of this record's sport.
    fn typed<'py>(&self, py: Python<'py>, attr: &str) -> PyResult<Bound<'py, PyAny>> {
        let field = self
            .rec
            .sport()
            .and_then(|s| fields_of(s).iter().find(|f| f.attr == attr));
        match field {
            Some(f) => field_to_py(py, self.rec.field(f)),
            None => Ok(py.None().into_bound(py)),
        }
    }

    fn fields_repr(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::new();
        for (name, v) in [
            ("uuid", self.rec.uuid()),
            ("version", self.rec.version()),
            ("sport_mode", self.rec.sport_mode()),
        ] {
            parts.push(format!("{name}={}", v.into_pyobject(py)?.repr()?));
        }
        if let Some(sport) = self.rec.sport() {
            for f in fields_of(sport) {
                let v = field_to_py(py, self.rec.field(f))?;
                parts.push(format!("{}={}", f.attr, v.repr()?));
            }
            if sport == Sport::Custom {
                let games = self.games_list(py)?;
                parts.push(format!("games={}", games.repr()?));
            }
        }
        Ok(parts.join(", "))
    }

    fn games_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for game in self.rec.games() {
            let d = PyDict::new(py);
            for (k, v) in game {
                d.set_item(k, v)?;
            }
            list.append(d)?;
        }
        Ok(list)
    }
}

/// The value under a wire name, when `key` is a `str` the record holds.
fn lookup<'a>(rec: &'a ScoreRecord, key: &Bound<'_, PyAny>) -> Option<&'a serde_json::Value> {
    let key = key.cast::<PyString>().ok()?;
    rec.raw().get(&*key.to_cow().ok()?)
}

/// One board of the HTML view: (title, game notes, score columns, team rows).
type BoardRows = (
    String,
    Vec<(String, String)>,
    Vec<String>,
    Vec<(String, Vec<String>)>,
);

/// What the HTML view of a record shows, laid out by the core (drawn by
/// `showctl._html.score_record_html`): its boards, or for a record of an unknown sport (no
/// board) its title and every field but `sportMode` as text.
fn record_display(rec: &ScoreRecord) -> (Vec<BoardRows>, String, Vec<(String, String)>) {
    let boards: Vec<BoardRows> = rec
        .boards()
        .into_iter()
        .map(|b| (b.title, b.notes, b.columns, b.rows))
        .collect();
    let title = rec.sport_mode().unwrap_or_else(|| "score record".into());
    let fields = if boards.is_empty() {
        rec.raw()
            .iter()
            .filter(|(k, _)| k.as_str() != "sportMode")
            .map(|(k, v)| {
                let text = crate::json::as_text(v).unwrap_or_else(|| v.to_string());
                (k.clone(), text)
            })
            .collect()
    } else {
        Vec::new()
    };
    (boards, title, fields)
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
    let sport = rec.sport();
    let init = PyClassInitializer::from(PyScoreRecord { rec: Arc::new(rec) });
    macro_rules! sub {
        ($ty:ident) => {
            Ok(Py::new(py, init.add_subclass($ty))?.into_any())
        };
    }
    match sport {
        Some(Sport::AustralianFootball) => sub!(AustralianFootballScore),
        Some(Sport::Baseball) => sub!(BaseballScore),
        Some(Sport::Basketball) => sub!(BasketballScore),
        Some(Sport::Football) => sub!(FootballScore),
        Some(Sport::Hockey) => sub!(HockeyScore),
        Some(Sport::Lacrosse) => sub!(LacrosseScore),
        Some(Sport::Soccer) => sub!(SoccerScore),
        Some(Sport::Tennis) => sub!(TennisScore),
        Some(Sport::Volleyball) => sub!(VolleyballScore),
        Some(Sport::Custom) => sub!(CustomScore),
        None => Ok(Py::new(py, init)?.into_any()),
    }
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
        match lookup(&self.rec, key) {
            Some(v) => json_to_py(key.py(), v),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
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
        let py = key.py();
        match lookup(&self.rec, key) {
            Some(v) => json_to_py(py, v),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
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
        let py = slf.py();
        let rec = &slf.get().rec;
        if super::models::python_mode(mode)? {
            let mut names = vec!["uuid", "version", "sport_mode"];
            if let Some(sport) = rec.sport() {
                names.extend(fields_of(sport).iter().map(|f| f.attr));
                if sport == Sport::Custom {
                    names.push("games");
                }
            }
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
        let value = py_to_json(data, "data")?;
        let rec = ScoreRecord::from_value(value)
            .map_err(|e| PyValueError::new_err(format!("data: {e}")))?;
        let record = score_to_py(py, rec)?;
        if let Some(sport) = other_sport(record.bind(py), cls)? {
            return Err(PyValueError::new_err(format!(
                "data: {sport}: {}.from_dict() reads only its own sport's records \
                 (ScoreRecord.from_dict() reads any)",
                cls.name()?
            )));
        }
        Ok(record)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = other.py();
        match other.cast::<PyScoreRecord>() {
            Ok(o) => Ok((self.rec.raw() == o.get().rec.raw())
                .into_pyobject(py)?
                .to_owned()
                .into_any()
                .unbind()),
            Err(_) => Ok(py.NotImplemented()),
        }
    }

    /// The hash of the JSON object `==` compares.
    fn __hash__(&self) -> u64 {
        crate::json::hash_object(self.rec.raw())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let name = slf.get_type().name()?;
        Ok(format!("{}({})", name, slf.get().fields_repr(slf.py())?))
    }

    /// The sport-independent view: teams (name, score as int), period, possession, extras.
    fn view(&self) -> PyScoreView {
        PyScoreView::new(self.rec.view())
    }

    /// A compact scoreboard table for Jupyter: team rows by score fields, escaped.
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        super::convert::html(slf.as_any(), "score_record_html")
    }

    /// What the HTML view shows, as the core lays it out: `(boards, title, fields)`, each board
    /// `(title, notes, columns, rows)` (see `showctl._html.score_record_html`).
    #[allow(clippy::type_complexity)]
    fn _display(&self) -> (Vec<BoardRows>, String, Vec<(String, String)>) {
        record_display(&self.rec)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let json = serde_json::to_string(slf.get().rec.raw())
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let ctor = py.import("showctl._core")?.getattr("_score_from_json")?;
        PyTuple::new(py, [ctor, PyTuple::new(py, [json])?.into_any()])
    }
}

/// When `cls` is a sport's class and `record` is not of it: what the record's sport is, for
/// the message (`None` when `cls` is `ScoreRecord` itself, or the record's class).
pub(crate) fn other_sport(
    record: &Bound<'_, PyAny>,
    cls: &Bound<'_, PyType>,
) -> PyResult<Option<String>> {
    let py = record.py();
    if cls.is(py.get_type::<PyScoreRecord>()) || record.get_type().is(cls) {
        return Ok(None);
    }
    let mode = record.cast::<PyScoreRecord>()?.get().rec.sport_mode();
    Ok(Some(match mode {
        Some(m) => format!("the record's sportMode is {}", m.into_pyobject(py)?.repr()?),
        None => "the record has no sportMode".to_string(),
    }))
}

/// Rebuild a record from its JSON text (used by pickle).
#[pyfunction]
pub fn _score_from_json(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    let rec = ScoreRecord::from_slice(json.as_bytes())
        .map_err(pyo3::exceptions::PyValueError::new_err)?;
    score_to_py(py, rec)
}

macro_rules! sport_class {
    ($ty:ident, $name:literal, [$($attr:ident),* $(,)?]) => {
        /// The score record of one sport, with a typed attribute for each of its wire fields.
        #[pyclass(module = "showctl._core", name = $name, frozen, extends = PyScoreRecord)]
        pub struct $ty;

        #[pymethods]
        impl $ty {
            $(
                #[doc = concat!(
                    "The `", stringify!($attr), "` field of the ", $name,
                    " record, typed (None when absent)."
                )]
                #[getter]
                fn $attr<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                    let py = slf.py();
                    slf.as_super().typed(py, stringify!($attr))
                }
            )*
        }
    };
}

sport_class!(
    AustralianFootballScore,
    "AustralianFootballScore",
    [
        quarter,
        team1_behinds,
        team1_goals,
        team1_name,
        team1_score,
        team2_behinds,
        team2_goals,
        team2_name,
        team2_score,
    ]
);
sport_class!(
    BaseballScore,
    "BaseballScore",
    [
        balls,
        errors,
        hits,
        inning,
        outs,
        period,
        runs,
        strikes,
        possession,
        top_bottom,
        team_one_runs,
        team_one_errors,
        team_one_hits,
        team_one_line_score,
        team_two_runs,
        team_two_errors,
        team_two_hits,
        team_two_line_score,
    ]
);
sport_class!(
    BasketballScore,
    "BasketballScore",
    [
        period,
        possession,
        team1_bonus1,
        team1_bonus2,
        team1_fouls,
        team1_score,
        team1_time_outs,
        team2_bonus1,
        team2_bonus2,
        team2_fouls,
        team2_score,
        team2_time_outs,
    ]
);
sport_class!(
    FootballScore,
    "FootballScore",
    [
        ball_location,
        down,
        period,
        to_go,
        possession,
        team1_score,
        team1_time_outs,
        team2_score,
        team2_time_outs,
    ]
);
sport_class!(
    HockeyScore,
    "HockeyScore",
    [
        period,
        team1_saves,
        team1_score,
        team1_shots,
        team1_time_outs,
        team2_saves,
        team2_score,
        team2_shots,
        team2_time_outs,
    ]
);
sport_class!(
    LacrosseScore,
    "LacrosseScore",
    [
        period,
        possession,
        team1_saves,
        team1_score,
        team1_shots,
        team1_time_outs,
        team2_saves,
        team2_score,
        team2_shots,
        team2_time_outs,
    ]
);
sport_class!(
    SoccerScore,
    "SoccerScore",
    [
        extra_time,
        period,
        team1_corner,
        team1_saves,
        team1_score,
        team1_shots,
        team1_time_outs,
        team2_corner,
        team2_saves,
        team2_score,
        team2_shots,
        team2_time_outs,
    ]
);
sport_class!(
    TennisScore,
    "TennisScore",
    [
        current_set,
        period,
        possession,
        team1_games,
        team1_score,
        team1_sets,
        team1_time_outs,
        team1_set_scores,
        team2_games,
        team2_score,
        team2_sets,
        team2_time_outs,
        team2_set_scores,
    ]
);
sport_class!(
    VolleyballScore,
    "VolleyballScore",
    [
        current_set,
        period,
        possession,
        team1_games,
        team1_score,
        team1_time_outs,
        team1_set_scores,
        team2_games,
        team2_score,
        team2_time_outs,
        team2_set_scores,
    ]
);

/// A Custom score record: user-defined games.
#[pyclass(module = "showctl._core", name = "CustomScore", frozen, extends = PyScoreRecord)]
pub struct CustomScore;

#[pymethods]
impl CustomScore {
    /// The games (`game1`, `game2`, … in order), each a dict of its properties as text.
    #[getter]
    fn games<'py>(slf: PyRef<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        let py = slf.py();
        slf.as_super().games_list(py)
    }
}

/// The sport classes as data: (class name, [(attribute, stub type)]), for the stub generator.
#[pyfunction]
pub(crate) fn _sports(py: Python<'_>) -> PyResult<Py<PyList>> {
    use crate::score::FieldKind;
    let out = PyList::empty(py);
    for sport in Sport::ALL {
        let fields: Vec<(&str, &str)> = fields_of(sport)
            .iter()
            .map(|f| {
                let ty = match f.kind {
                    FieldKind::Str => "str | None",
                    FieldKind::Int => "int | None",
                    FieldKind::Bool => "bool | None",
                    FieldKind::Series => "list[str | None]",
                };
                (f.attr, ty)
            })
            .collect();
        out.append((format!("{}Score", sport.wire_name()), fields))?;
    }
    Ok(out.unbind())
}
