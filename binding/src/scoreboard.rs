//! `Scoreboard`: the client of the scoreboard application. `scores()` comes from the
//! scoreboard's operation table (`showctl::score`, made in [`super::table`]); options, closing
//! and the context managers are the base class's ([`super::client`]).

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};
use showctl_macros::twins;

use super::args;
use super::client::PyClient;
use super::convert::Reply;
use super::jobs::{Handle, Work};
use super::options::{self, convert as opt, ClientArgs};
use super::score_events::PyScoreEventWatch;
use super::score_models::{other_sport, score_to_py, PyScoreRecord};
use super::watch::{watch_class, Shared};
use showctl::poll::watch_interval;
use showctl::score::{self, ScoreEventWatch, ScoreRecord, ScoreWatch};
use showctl::transport::{Transport, ENV_SCOREBOARD_URL};

/// Client for the scoreboard application.
#[pyclass(module = "showctl._core", name = "Scoreboard", frozen, extends = PyClient)]
pub struct PyScoreboard {
    pub(super) client: score::Scoreboard,
}

#[pymethods]
impl PyScoreboard {
    // The options: see `super::options` (their data and conversion) and `Config`'s setters.
    #[new]
    #[pyo3(signature = (
        url=None, api_key=None, *, timeout=5.0, verify=true, ca_cert=None, tls_fingerprint=None,
        retries=2, retry_commands=false, max_body=None, max_connections=8
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = opt::url)] url: Option<String>,
        #[pyo3(from_py_with = opt::api_key)] api_key: Option<String>,
        #[pyo3(from_py_with = opt::timeout)] timeout: f64,
        #[pyo3(from_py_with = opt::verify)] verify: bool,
        #[pyo3(from_py_with = opt::ca_cert)] ca_cert: Option<PathBuf>,
        #[pyo3(from_py_with = opt::tls_fingerprint)] tls_fingerprint: Option<String>,
        #[pyo3(from_py_with = opt::retries)] retries: i64,
        #[pyo3(from_py_with = opt::retry_commands)] retry_commands: bool,
        #[pyo3(from_py_with = opt::max_body)] max_body: Option<i64>,
        #[pyo3(from_py_with = opt::max_connections)] max_connections: i64,
    ) -> PyResult<PyClassInitializer<Self>> {
        let given = ClientArgs {
            url,
            api_key,
            timeout,
            verify,
            ca_cert,
            tls_fingerprint,
            retries,
            retry_commands,
            max_body,
            max_connections,
            ..ClientArgs::default()
        };
        let transport = Transport::new(
            &options::config(given, ENV_SCOREBOARD_URL).map_err(crate::errors::to_py)?,
        )
        .map_err(crate::errors::to_py)?;
        let client = score::Scoreboard::new(Arc::new(transport));
        Ok(PyClassInitializer::from(PyClient::new(client.clone()))
            .add_subclass(PyScoreboard { client }))
    }
}

impl Handle for PyScoreboard {
    type Client = score::Scoreboard;
    fn client(&self) -> &score::Scoreboard {
        &self.client
    }
}

#[twins(PyClient: aclose, probe_async, record_async)]
#[pymethods]
impl PyScoreboard {
    /// Poll every `interval` seconds; yield the first record, then each one that differs. The
    /// watch is an iterator and an async iterator: `watch_async` is the same method under its
    /// async name.
    #[pyo3(signature = (interval=0.5))]
    fn watch(
        &self,
        #[pyo3(from_py_with = args::interval)] interval: f64,
    ) -> PyResult<PyScoreWatch> {
        let watch = ScoreWatch::new(
            self.client.clone(),
            watch_interval(interval).map_err(crate::errors::to_py)?,
        );
        Ok(PyScoreWatch(Shared::new(watch)))
    }

    /// GET /data/scores as a record of class `cls` (`BasketballScore`, ...): typed for a type
    /// checker. A record of another sport raises `SportMismatchError` (its `record` holds the
    /// record read).
    #[twin]
    fn scores_as(
        &self,
        cls: &Bound<'_, PyAny>,
    ) -> PyResult<Work<impl Future<Output = showctl::Result<TypedRecord>>>> {
        let cls = record_class(cls)?.unbind();
        let board = self.client.clone();
        let url = format!("{}/data/scores", board.transport().base_url());
        Ok(Work(async move {
            let record = board.scores().await?;
            Ok(TypedRecord { record, cls, url })
        }))
    }

    /// Poll every `interval` seconds and yield typed changes: scores, period, possession,
    /// sport, other fields, poll failed and recovered. The watch is an iterator and an async
    /// iterator: `watch_events_async` is the same method under its async name.
    #[pyo3(signature = (interval=0.5))]
    fn watch_events(
        &self,
        #[pyo3(from_py_with = args::interval)] interval: f64,
    ) -> PyResult<PyScoreEventWatch> {
        let watch = ScoreEventWatch::new(
            self.client.clone(),
            watch_interval(interval).map_err(crate::errors::to_py)?,
        );
        Ok(PyScoreEventWatch(Shared::new(watch)))
    }
}

/// The record read by `scores_as`, with the class it was asked for.
struct TypedRecord {
    record: ScoreRecord,
    cls: Py<PyType>,
    url: String,
}

impl Reply for TypedRecord {
    /// The record, if it is of class `cls`; otherwise `SportMismatchError`.
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let (cls, url) = (self.cls.bind(py), &self.url);
        let record = score_to_py(py, self.record)?;
        let Some(message) = other_sport(record.bind(py), cls, Some(url))? else {
            return Ok(record);
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item("expected", cls)?;
        kwargs.set_item("record", record)?;
        kwargs.set_item("method", "GET")?;
        kwargs.set_item("url", url)?;
        let exc = py
            .import("showctl.exceptions")?
            .getattr("SportMismatchError")?
            .call((message,), Some(&kwargs))?;
        Err(PyErr::from_value(exc))
    }
    fn py_type() -> String {
        "ScoreRecord".into()
    }
}

/// `cls` as the class `scores_as` was asked for: `ScoreRecord` or one of its sport classes.
fn record_class<'py>(cls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyType>> {
    match cls.cast::<PyType>() {
        Ok(t) if t.is_subclass_of::<PyScoreRecord>()? => Ok(t.clone()),
        _ => Err(PyTypeError::new_err(format!(
            "cls: expected ScoreRecord or a sport's record class (BasketballScore, ...), got {}",
            cls.repr()?
        ))),
    }
}

watch_class! {
    /// Iterator (and async iterator) over changed score records.
    PyScoreWatch("ScoreWatch") over ScoreWatch, each score_to_py
}
