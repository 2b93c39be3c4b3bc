//! `Layer`: a handle on one layer of the media application. Its methods come from the layer
//! groups of the operation table (`showctl::media::table`, made in [`super::table`]); the fade
//! and the relative opacity change are written here.

use std::future::Future;

use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use showctl_macros::twins;

use super::args::{self, number};
use super::convert::{hash_of, Reply};
use super::jobs::{Handle, Work};
use super::models::eq;
use showctl::ident::Ident;
use showctl::media::{automation, MediaClient};

/// A handle on one layer of the media application (from `MediaPlayer.layer(id)`).
#[pyclass(module = "showctl._core", name = "Layer", frozen)]
pub struct PyLayer {
    pub(crate) client: MediaClient,
    pub(crate) ident: Ident,
}

impl Reply for PyLayer {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, self)?.into_any())
    }
    fn py_type() -> String {
        "Layer".into()
    }
}

impl Handle for PyLayer {
    type Client = MediaClient;
    fn client(&self) -> &MediaClient {
        &self.client
    }
}

#[twins]
#[pymethods]
impl PyLayer {
    /// Read the opacity, add `delta` (-1.0 to 1.0), clamp to 0.0–1.0 and set it; returns the
    /// value set. Two requests: another controller may change the opacity between them.
    /// `confirm=True`: read back until the new value shows.
    #[twin]
    #[pyo3(signature = (delta, *, confirm=false))]
    fn adjust_opacity(
        &self,
        delta: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = args::confirm)] confirm: bool,
    ) -> PyResult<Work<impl Future<Output = showctl::Result<f64>>>> {
        let delta = number(delta, "delta")?;
        let job = automation::adjusting(&self.client, &self.ident, delta, confirm)
            .map_err(crate::errors::to_py)?;
        Ok(Work(job))
    }

    /// Fade the opacity from its current value to `to` (0.0–1.0) over `seconds`, in `steps`
    /// evenly spaced in time (20 a second when None, 50 a second at most); the last lands
    /// exactly on `to` at `seconds`. Steps the application answers too late for are skipped so
    /// the fade ends on time. Cancel with asyncio cancellation or Ctrl-C: the opacity stays
    /// where the fade was.
    #[twin]
    #[pyo3(signature = (to, seconds, steps=None))]
    fn fade(
        &self,
        to: &Bound<'_, PyAny>,
        seconds: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = args::steps)] steps: Option<i64>,
    ) -> PyResult<Work<impl Future<Output = showctl::Result<()>>>> {
        let (to, seconds) = (number(to, "to")?, number(seconds, "seconds")?);
        let job = automation::fading(&self.client, &self.ident, to, seconds, steps)
            .map_err(crate::errors::to_py)?;
        Ok(Work(job))
    }
    /// The identifier this handle was made with (an index, a name or a UUID).
    #[getter]
    fn id(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.ident {
            Ident::Index(i) => i.into_py_any(py),
            Ident::Name(n) => n.into_py_any(py),
        }
    }

    /// The base URL of the API of the player this layer belongs to.
    #[getter]
    fn url(&self) -> String {
        self.client.transport().base_url().to_string()
    }

    /// Two handles are equal when they address the same identifier on the same client.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        eq(self, other, |a, b| {
            a.client.same(&b.client) && a.ident == b.ident
        })
    }

    /// The hash of what `==` compares.
    fn __hash__(&self) -> u64 {
        hash_of(&(self.client.identity(), &self.ident))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let id = self.id(py)?;
        Ok(format!(
            "Layer(id={}, url='{}')",
            id.bind(py).repr()?,
            self.client.transport().base_url()
        ))
    }
}
