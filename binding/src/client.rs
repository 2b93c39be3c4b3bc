//! The base class of `MediaPlayer` and `Scoreboard`: the client options (`url`, `timeout`,
//! `closed`), `close()`/`aclose()`, `probe()` and `record()` with their twins, `with` and
//! `async with`, and the repr. A client class `extends` it and hands it its core client (a
//! [`Closer`]); its own methods are written in its file or come from an operation table.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use showctl_macros::twins;

use super::jobs::{Handle, Work};
use super::rt;
use showctl::capture::{self, Recorded};
use showctl::client::Closer;
use showctl::error::Result;
use showctl::probe::{self, Report};

/// The base of the client classes (`MediaPlayer`, `Scoreboard`): options, closing and the
/// context managers.
#[pyclass(module = "showctl._core", name = "_Client", subclass, frozen)]
pub struct PyClient {
    inner: Arc<dyn Closer>,
}

impl PyClient {
    pub(crate) fn new(inner: impl Closer) -> Self {
        PyClient {
            inner: Arc::new(inner),
        }
    }
}

impl Handle for PyClient {
    type Client = ();
    fn client(&self) -> &() {
        &()
    }
}

#[twins]
#[pymethods]
impl PyClient {
    /// The base URL of the API (`scheme://host:port/api/0`).
    #[getter]
    fn url(&self) -> String {
        self.inner.transport().base_url().to_string()
    }

    /// Per-attempt timeout in seconds.
    #[getter]
    fn timeout(&self) -> f64 {
        self.inner.transport().timeout().as_secs_f64()
    }

    /// True once `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.transport().is_closed()
    }

    /// Close the client: later calls raise `ClientClosedError`. A media player's mirrors get
    /// up to `timeout` seconds to send what they still have queued; what is left is dropped
    /// (and counted in `mirror_status()`).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        if !self.inner.close_waits() {
            self.inner.close_now();
            return Ok(());
        }
        let waited = rt::wait(py, self.inner.shutdown());
        self.inner.close_now();
        waited
    }

    /// Close the client: later calls raise `ClientClosedError`. A media player's mirrors get
    /// up to `timeout` seconds to send what they still have queued; what is left is dropped
    /// (and counted in `mirror_status()`).
    ///
    /// Awaitable twin of `close`.
    fn aclose<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        rt::spawn(py, self.inner.shutdown(), |_, ()| Ok(()))
    }

    /// A read-only pre-show check (GET requests only, each sent once; no command):
    /// reachability, HTTP or HTTPS, the certificate and the exact `tls_fingerprint=` to pin
    /// it, the key, every documented read with its status, time and variant, counts, and a
    /// verdict.
    #[twin]
    fn probe(&self) -> PyResult<Work<impl Future<Output = Result<Report>> + Send + 'static>> {
        let (transport, app) = (self.inner.transport().clone(), self.inner.app());
        Ok(Work(async move { probe::probe(&transport, app).await }))
    }

    /// Record every documented read (GET only) into the new or empty directory `dir`, in the
    /// recording format, with `workspace.json` for `Simulator(workspace=dir)`. Returns the
    /// number of recordings written (a `Recorded`: an `int` whose `.limits` says which bound
    /// of the reads was reached, if any).
    #[twin]
    fn record(
        &self,
        dir: PathBuf,
    ) -> PyResult<Work<impl Future<Output = Result<Recorded>> + Send + 'static>> {
        let (transport, app) = (self.inner.transport().clone(), self.inner.app());
        Ok(Work(
            async move { capture::record(&transport, app, &dir).await },
        ))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>) -> PyResult<()> {
        self.close(py)
    }

    fn __aenter__<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        rt::ready(py, slf.unbind())
    }

    #[pyo3(signature = (*_args))]
    fn __aexit__<'py>(
        &self,
        py: Python<'py>,
        _args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.aclose(py)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!(
            "{}(url='{}')",
            slf.get_type().name()?,
            slf.get().inner.transport().base_url()
        ))
    }
}
