//! What the automation reports: `TransportEvent` and `TransportWatch` (from
//! `MediaPlayer.watch_transport()`) and `MirrorStatus`. The work itself is in the core
//! (`showctl::media::{watch, mirror}`); this only converts.

use std::future::Future;
use std::sync::Arc;
use std::time::SystemTime;

use pyo3::prelude::*;
use showctl_macros::twins;

use super::convert::{repr_of, Wrapped};
use super::errors::exception_of;
use super::jobs::{Handle, Work};
use super::watch::watch_class;
use showctl::media::mirror::MirrorStatus;
use showctl::media::watch::{TransportEvent, TransportWatch};
use showctl::media::TransportState;

pub(crate) fn seconds_since_epoch(t: Option<SystemTime>) -> Option<f64> {
    t.and_then(showctl::poll::epoch_seconds)
}

// ---------------------------------------------------------------------------------------------
// Transport watch
// ---------------------------------------------------------------------------------------------

/// A change seen by `MediaPlayer.watch_transport()` on one layer (or, for `poll_failed` and
/// `poll_recovered`, about the watch itself).
#[pyclass(module = "showctl._core", name = "TransportEvent", frozen, get_all)]
pub struct PyTransportEvent {
    /// "started", "stopped", "media_changed", "time_remaining", "emptied", "poll_failed" or
    /// "poll_recovered".
    kind: &'static str,
    /// Position of the layer in the workspace (None for a layer that is gone, and for the
    /// watch's own events).
    layer_index: Option<usize>,
    /// The layer's name (None for the watch's own events).
    layer_name: Option<String>,
    /// The layer's UUID (None for the watch's own events).
    layer_uuid: Option<String>,
    /// The layer's transport state in the previous poll (None: the layer was not there).
    previous: Option<Py<PyAny>>,
    /// The layer's transport state in this poll (None: the layer is gone).
    current: Option<Py<PyAny>>,
    /// The threshold crossed, in seconds ("time_remaining" only).
    threshold: Option<f64>,
    /// The failure ("poll_failed" only): a `ShowctlError`.
    error: Option<Py<PyAny>>,
    /// When the poll was answered (seconds since the epoch, like `time.time()`).
    timestamp: f64,
}

#[pymethods]
impl PyTransportEvent {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let e = slf.get();
        let fields = TransportEvent::shown_fields(e.error.is_some(), e.threshold.is_some());
        repr_of(slf.as_any(), &fields)
    }
}

fn event_to_py(py: Python<'_>, e: TransportEvent) -> PyResult<Py<PyTransportEvent>> {
    let event = PyTransportEvent {
        kind: e.kind.as_str(),
        layer_index: e.layer_index,
        layer_name: e.layer_name,
        layer_uuid: e.layer_uuid,
        previous: e
            .previous
            .map(|s| TransportState::wrap(py, s))
            .transpose()?,
        current: e.current.map(|s| TransportState::wrap(py, s)).transpose()?,
        threshold: e.threshold,
        error: e.error.map(|e| exception_of(py, e)),
        timestamp: showctl::poll::epoch_seconds(e.at).unwrap_or(0.0),
    };
    Py::new(py, event)
}

watch_class! {
    /// Iterator (and async iterator) over transport events, from `MediaPlayer.watch_transport()`.
    PyTransportWatch("TransportWatch") over TransportWatch, each event_to_py
}

impl Handle for PyTransportWatch {
    type Client = ();
    fn client(&self) -> &() {
        &()
    }
}

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
        Work<impl Future<Output = showctl::Result<Vec<Arc<TransportState>>>> + Send + 'static>,
    > {
        Ok(self.0.job(|mut w| async move { w.baseline().await }))
    }
}

// ---------------------------------------------------------------------------------------------
// Mirrors
// ---------------------------------------------------------------------------------------------

/// What one mirror did so far (from `MediaPlayer.mirror_status()`).
#[pyclass(module = "showctl._core", name = "MirrorStatus", frozen, get_all)]
pub(crate) struct PyMirrorStatus {
    /// The mirror's base URL (`scheme://host:port/api/0`; never a key).
    url: String,
    /// False from a failed or dropped command until the mirror accepts one again.
    healthy: bool,
    /// Commands the mirror answered with a 2xx.
    sent: u64,
    /// Commands that failed on the mirror without running (an error status, no connection).
    failed: u64,
    /// Commands sent to the mirror that got no answer (a timeout, a reset, given up at close
    /// once written): the mirror may have run them.
    unanswered: u64,
    /// Commands never sent to the mirror (its queue was full, or the client was closed).
    dropped: u64,
    /// Commands queued or in flight.
    pending: u64,
    /// The last failure (a `ShowctlError`), or None.
    last_error: Option<Py<PyAny>>,
    /// When the last failure happened (seconds since the epoch), or None.
    last_error_at: Option<f64>,
    /// When the mirror last accepted a command (seconds since the epoch), or None.
    last_ok_at: Option<f64>,
}

impl PyMirrorStatus {
    pub(crate) fn of(py: Python<'_>, st: MirrorStatus) -> Self {
        PyMirrorStatus {
            last_error: st.last_error.map(|e| exception_of(py, e)),
            last_error_at: seconds_since_epoch(st.last_error_at),
            last_ok_at: seconds_since_epoch(st.last_ok_at),
            url: st.url,
            healthy: st.healthy,
            sent: st.sent,
            failed: st.failed,
            unanswered: st.unanswered,
            dropped: st.dropped,
            pending: st.pending,
        }
    }
}

#[pymethods]
impl PyMirrorStatus {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), &MirrorStatus::SHOWN)
    }
}
