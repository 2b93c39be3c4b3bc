//! The binding of the read-only show-day tools: `probe()` / `probe_async()` of both clients
//! (the report becomes a `showctl.ProbeReport`) and `record` (used by `showctl record`).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;

use super::rt;
use crate::probe::{self, App, Report};
use crate::record::Recorded;
use crate::transport::Transport;

/// The report as a `showctl.ProbeReport` (a frozen dataclass).
fn report_to_py(py: Python<'_>, report: Report) -> PyResult<Py<PyAny>> {
    let data = super::convert::serialize_to_py(py, &report)?;
    let class = py.import("showctl._reports")?.getattr("ProbeReport")?;
    Ok(class.call_method1("from_dict", (data,))?.unbind())
}

/// Probe the application behind `transport` and wait for the report.
pub fn probe(py: Python<'_>, transport: Arc<Transport>, app: App) -> PyResult<Py<PyAny>> {
    let report = rt::wait(py, async move { probe::probe(&transport, app).await })?;
    report_to_py(py, report)
}

/// Probe the application behind `transport`: an awaitable of the report.
pub fn probe_async(
    py: Python<'_>,
    transport: Arc<Transport>,
    app: App,
) -> PyResult<Bound<'_, PyAny>> {
    rt::spawn(
        py,
        async move { probe::probe(&transport, app).await },
        report_to_py,
    )
}

/// What `record` wrote as a `showctl.Recorded` (the number of recordings, an `int`, with the
/// bounds the reads reached as `.limits`).
fn recorded_to_py(py: Python<'_>, recorded: Recorded) -> PyResult<Py<PyAny>> {
    let class = py.import("showctl._reports")?.getattr("Recorded")?;
    Ok(class.call1((recorded.count, recorded.limits))?.unbind())
}

/// Record every documented read of the application behind `transport` into `dir`; returns the
/// number of recordings written (a `showctl.Recorded`).
pub fn record(
    py: Python<'_>,
    transport: Arc<Transport>,
    app: App,
    dir: PathBuf,
) -> PyResult<Py<PyAny>> {
    let recorded = rt::wait(py, async move {
        crate::record::record(&transport, app, &dir).await
    })?;
    recorded_to_py(py, recorded)
}

/// Async twin of [`record`].
pub fn record_async(
    py: Python<'_>,
    transport: Arc<Transport>,
    app: App,
    dir: PathBuf,
) -> PyResult<Bound<'_, PyAny>> {
    rt::spawn(
        py,
        async move { crate::record::record(&transport, app, &dir).await },
        recorded_to_py,
    )
}
