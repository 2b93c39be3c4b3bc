//! What the automation reports: `TransportEvent` and `TransportWatch` (from
//! `MediaPlayer.watch_transport()`) and `MirrorStatus`. The work itself is in the core
//! (`crate::media::{watch, mirror}`); this only converts.

use std::future::Future;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::IntoPyObjectExt;
use showctl_macros::twins;

use super::convert::{dataclass_repr, Attr};
use super::errors::to_pyerr;
use super::ops::Work;
use super::watch::watch_class;
use crate::error::Error;
use crate::media::mirror::MirrorStatus;
use crate::media::watch::{TransportEvent, TransportWatch};
use crate::media::TransportState;

pub(crate) fn seconds_since_epoch(t: Option<SystemTime>) -> Option<f64> {
    t.and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64())
}

pub(crate) fn error_value(py: Python<'_>, e: &Option<Error>) -> Py<PyAny> {
    match e {
        Some(e) => to_pyerr(py, e.clone()).into_value(py).into_any(),
        None => py.None(),
    }
}

// ---------------------------------------------------------------------------------------------
// Transport watch
// ---------------------------------------------------------------------------------------------

/// A change seen by `MediaPlayer.watch_transport()` on one layer (or, for `poll_failed` and
/// `poll_recovered`, about the watch itself).
#[pyclass(module = "showctl._core", name = "TransportEvent", frozen)]
pub struct PyTransportEvent {
    inner: TransportEvent,
}

#[pymethods]
impl PyTransportEvent {
    /// "started", "stopped", "media_changed", "time_remaining", "emptied", "poll_failed" or
    /// "poll_recovered".
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind.as_str()
    }
    /// Position of the layer in the workspace (None for a layer that is gone, and for the
    /// watch's own events).
    #[getter]
    fn layer_index(&self) -> Option<usize> {
        self.inner.layer_index
    }
    /// The layer's name (None for the watch's own events).
    #[getter]
    fn layer_name(&self) -> Option<String> {
        self.inner.layer_name.clone()
    }
    /// The layer's UUID (None for the watch's own events).
    #[getter]
    fn layer_uuid(&self) -> Option<String> {
        self.inner.layer_uuid.clone()
    }
    /// The layer's transport state in the previous poll (None: the layer was not there).
    #[getter]
    fn previous(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.inner.previous.attr(py)
    }
    /// The layer's transport state in this poll (None: the layer is gone).
    #[getter]
    fn current(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.inner.current.attr(py)
    }
    /// The threshold crossed, in seconds ("time_remaining" only).
    #[getter]
    fn threshold(&self) -> Option<f64> {
        self.inner.threshold
    }
    /// The failure ("poll_failed" only): a `ShowctlError`.
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
        } else {
            fields.push(("layer_index", self.layer_index().into_py_any(py)?));
            fields.push(("layer_name", self.layer_name().into_py_any(py)?));
        }
        if self.inner.threshold.is_some() {
            fields.push(("threshold", self.threshold().into_py_any(py)?));
        }
        dataclass_repr(py, "TransportEvent", &fields)
    }
}

fn event_to_py(py: Python<'_>, inner: TransportEvent) -> PyResult<Py<PyTransportEvent>> {
    Py::new(py, PyTransportEvent { inner })
}

watch_class!(
    /// Iterator (and async iterator) over transport events, from `MediaPlayer.watch_transport()`.
    PyTransportWatch,
    "TransportWatch",
    TransportWatch,
    next_event,
    event_to_py,
    Py<PyTransportEvent>
);

#[twins]
#[pymethods]
impl PyTransportWatch {
    /// The layers as the watch's first answered poll saw them, polling once now if none
    /// has answered yet: events are changes from this baseline, so a command sent after
    /// `baseline()` returns is reported. A failed poll raises its error (a transient one
    /// is also yielded as "poll_failed" when iterating, and the next poll that answers is
    /// the baseline).
    #[twin]
    fn baseline(
        &self,
    ) -> PyResult<
        Work<impl Future<Output = crate::Result<Vec<Arc<TransportState>>>> + Send + 'static>,
    > {
        Ok(self.job(|mut w| async move { w.baseline().await }))
    }
}

// ---------------------------------------------------------------------------------------------
// Mirrors
// ---------------------------------------------------------------------------------------------

/// What one mirror did so far (from `MediaPlayer.mirror_status()`).
#[pyclass(module = "showctl._core", name = "MirrorStatus", frozen)]
pub(crate) struct PyMirrorStatus {
    inner: MirrorStatus,
}

impl PyMirrorStatus {
    pub(crate) fn list(py: Python<'_>, all: Vec<MirrorStatus>) -> PyResult<Py<PyList>> {
        let items = all
            .into_iter()
            .map(|inner| Py::new(py, PyMirrorStatus { inner }))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.unbind())
    }
}

#[pymethods]
impl PyMirrorStatus {
    /// The mirror's base URL (`scheme://host:port/api/0`; never a key).
    #[getter]
    fn url(&self) -> String {
        self.inner.url.clone()
    }
    /// False from a failed or dropped command until the mirror accepts one again.
    #[getter]
    fn healthy(&self) -> bool {
        self.inner.healthy
    }
    /// Commands the mirror answered with a 2xx.
    #[getter]
    fn sent(&self) -> u64 {
        self.inner.sent
    }
    /// Commands that failed on the mirror.
    #[getter]
    fn failed(&self) -> u64 {
        self.inner.failed
    }
    /// Commands never sent to the mirror (its queue was full, or the client was closed).
    #[getter]
    fn dropped(&self) -> u64 {
        self.inner.dropped
    }
    /// Commands queued or in flight.
    #[getter]
    fn pending(&self) -> u64 {
        self.inner.pending
    }
    /// The last failure (a `ShowctlError`), or None.
    #[getter]
    fn last_error(&self, py: Python<'_>) -> Py<PyAny> {
        error_value(py, &self.inner.last_error)
    }
    /// When the last failure happened (seconds since the epoch), or None.
    #[getter]
    fn last_error_at(&self) -> Option<f64> {
        seconds_since_epoch(self.inner.last_error_at)
    }
    /// When the mirror last accepted a command (seconds since the epoch), or None.
    #[getter]
    fn last_ok_at(&self) -> Option<f64> {
        seconds_since_epoch(self.inner.last_ok_at)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let st = &self.inner;
        dataclass_repr(
            py,
            "MirrorStatus",
            &[
                ("url", st.url.clone().into_py_any(py)?),
                ("healthy", st.healthy.into_py_any(py)?),
                ("sent", st.sent.into_py_any(py)?),
                ("failed", st.failed.into_py_any(py)?),
                ("dropped", st.dropped.into_py_any(py)?),
                ("pending", st.pending.into_py_any(py)?),
                ("last_error", self.last_error(py)),
            ],
        )
    }
}
