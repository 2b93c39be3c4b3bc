//! `Scoreboard`: the client of the scoreboard application. `scores()` comes from the
//! scoreboard's operation table (`crate::score`); options, closing and the context managers
//! are the base class's ([`super::client`]).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;

use super::args::client_config;
use super::client::PyClient;
use super::ops::workspace_methods;
use super::score_models::score_to_py;
use super::watch::watch_class;
use crate::score::ops as core_ops;
use crate::score::{self, score_ops, ScoreWatch};
use crate::transport::{Transport, ENV_SCOREBOARD_URL};

/// Client for the scoreboard application.
#[pyclass(module = "showctl._core", name = "Scoreboard", frozen, extends = PyClient)]
pub struct PyScoreboard {
    client: score::Scoreboard,
}

score_ops!(workspace_methods! { PyScoreboard, core_ops, {
    #[new]
    #[pyo3(signature = (url=None, api_key=None, *, timeout=5.0, verify=true, ca_cert=None, retries=2, retry_commands=false, max_body=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        url: Option<String>,
        api_key: Option<String>,
        timeout: f64,
        verify: bool,
        ca_cert: Option<PathBuf>,
        retries: i64,
        retry_commands: bool,
        max_body: Option<i64>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let config = client_config(
            url,
            api_key,
            ENV_SCOREBOARD_URL,
            timeout,
            verify,
            ca_cert,
            retries,
            retry_commands,
            max_body,
        )?;
        let transport = Transport::new(&config)?;
        let client = score::Scoreboard::new(Arc::new(transport));
        Ok(PyClassInitializer::from(PyClient::new(client.clone()))
            .add_subclass(PyScoreboard { client }))
    }

    /// Poll every `interval` seconds; yield the first record, then each one that differs. The
    /// watch is an iterator and an async iterator: `watch_async` is the same method under its
    /// async name.
    #[pyo3(signature = (interval=0.5))]
    fn watch(&self, interval: f64) -> PyResult<PyScoreWatch> {
        let interval = score::watch_interval(interval)?;
        Ok(PyScoreWatch::new(ScoreWatch::new(
            self.client.clone(),
            interval,
        )))
    }
} });

watch_class!(
    /// Iterator (and async iterator) over changed score records.
    PyScoreWatch,
    "ScoreWatch",
    ScoreWatch,
    next_change,
    score_to_py,
    Py<PyAny>
);
