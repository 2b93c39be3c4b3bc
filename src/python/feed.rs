//! Binding of the feed: `Feed`, a context manager like `Simulator`. The work is in the core
//! (`crate::feed`).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::convert::json_to_py;
use super::options::client_config;
use super::rt;
use crate::feed::{Feed, Options};
use crate::transport::{ENV_MEDIA_URL, ENV_SCOREBOARD_URL};

/// One poller serving the media application's transport state and the scoreboard's score to
/// any number of readers: a page, JSON, XML, CSV, Server-Sent Events and files.
#[pyclass(module = "showctl._core", name = "Feed", frozen)]
pub struct PyFeed {
    feed: Arc<Feed>,
}

#[pymethods]
impl PyFeed {
    #[new]
    #[pyo3(signature = (media=None, scoreboard=None, *, interval=0.5, port=0, host="127.0.0.1", write=None, api_key=None, timeout=5.0, verify=true, ca_cert=None, tls_fingerprint=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        media: Option<String>,
        scoreboard: Option<String>,
        interval: f64,
        port: i64,
        host: &str,
        write: Option<PathBuf>,
        api_key: Option<String>,
        timeout: f64,
        verify: bool,
        ca_cert: Option<PathBuf>,
        tls_fingerprint: Option<String>,
    ) -> PyResult<Self> {
        let port = u16::try_from(port).map_err(|_| {
            PyValueError::new_err(format!(
                "port: must be from 0 (pick a free port) to 65535, got {port}"
            ))
        })?;
        let interval = crate::score::watch_interval(interval)?;
        let config = |url: Option<String>, env: &str| {
            url.map(|u| {
                client_config(
                    Some(u),
                    api_key.clone(),
                    env,
                    timeout,
                    verify,
                    ca_cert.clone(),
                    tls_fingerprint.clone(),
                    0,
                    false,
                    None,
                )
            })
            .transpose()
        };
        let options = Options {
            media: config(media, ENV_MEDIA_URL)?,
            scoreboard: config(scoreboard, ENV_SCOREBOARD_URL)?,
            interval,
            host: host.to_string(),
            port,
            write,
        };
        let feed = Feed::new(options)?;
        Ok(PyFeed {
            feed: Arc::new(feed),
        })
    }

    /// Start polling and serving (a no-op when running); returns the feed.
    fn start(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().feed.start()?;
        Ok(slf)
    }

    /// Stop polling and serving, closing every connection (a no-op when stopped); a file being
    /// written (`write=`) is finished first, for at most 2 s.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        let feed = self.feed.clone();
        rt::wait(py, async move {
            feed.stop().await;
            Ok(())
        })
    }

    #[getter]
    fn running(&self) -> bool {
        self.feed.addr().is_some()
    }

    /// `http://HOST:PORT/`: the page; the documents are under it (`transport.json`, …).
    #[getter]
    fn url(&self) -> PyResult<String> {
        self.feed
            .url()
            .ok_or_else(|| PyRuntimeError::new_err("the feed is not running: call start()"))
    }

    /// The port listened on (the requested one until started).
    #[getter]
    fn port(&self) -> u16 {
        self.feed
            .addr()
            .map_or(self.feed.options().port, |a| a.port())
    }

    /// Seconds between polls.
    #[getter]
    fn interval(&self) -> f64 {
        self.feed.options().interval.as_secs_f64()
    }

    /// The `/transport.json` document now, as a dict (None when stopped or without `media`).
    fn transport(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.feed.transport() {
            Some(doc) => Ok(json_to_py(py, &doc)?.unbind()),
            None => Ok(py.None()),
        }
    }

    /// The `/scores.json` document now, as a dict (None when stopped or without `scoreboard`).
    fn scores(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.feed.scores() {
            Some(doc) => Ok(json_to_py(py, &doc)?.unbind()),
            None => Ok(py.None()),
        }
    }

    /// Server-Sent Events clients connected now.
    #[getter]
    fn sse_clients(&self) -> usize {
        self.feed.sse_clients()
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
        let feed = self.feed.clone();
        rt::spawn(
            py,
            async move {
                feed.stop().await;
                Ok(())
            },
            |_, ()| Ok(()),
        )
    }

    fn __repr__(&self) -> String {
        let o = self.feed.options();
        let sources: Vec<String> = [("media", &o.media), ("scoreboard", &o.scoreboard)]
            .into_iter()
            .filter_map(|(k, c)| c.as_ref().map(|c| format!("{k}='{}'", c.url)))
            .collect();
        match self.feed.url() {
            Some(url) => format!("Feed(url='{url}', {})", sources.join(", ")),
            None => format!("Feed({}, running=False)", sources.join(", ")),
        }
    }
}
