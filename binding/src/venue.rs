//! The binding of venues: `showctl.probe_venue()` / `probe_venue_async()` (the report becomes a
//! `showctl.VenueReport`) and the venue check the CLI runs before anything connects.

use std::path::PathBuf;

use pyo3::prelude::*;

use super::convert::{py_to_json, report_to_py};
use super::rt;
use crate::errors::PyError;
use showctl::venue::probe::{probe_venue, VenueReport};
use showctl::venue::{self, Venue};

/// The venue from exactly one of a file (`venue`) or data (`sources`, the file's
/// `[sources.*]` tables as dicts): see [`venue::of_file_or_data`].
pub(crate) fn venue_of(
    venue: Option<PathBuf>,
    sources: Option<&Bound<'_, PyAny>>,
    defaults: Option<&Bound<'_, PyAny>>,
    interval: Option<f64>,
) -> PyResult<Venue> {
    let json = |obj, arg: &str| py_to_json(obj, arg).map_err(PyError);
    Ok(venue::of_file_or_data(
        venue, sources, defaults, interval, json,
    )?)
}

/// The report as a `showctl.VenueReport` (a frozen dataclass).
fn venue_report(py: Python<'_>, report: VenueReport) -> PyResult<Py<PyAny>> {
    report_to_py(py, &report, "showctl._venue", "VenueReport")
}

/// Check a venue file or sources without connecting: the sources as dicts
/// (`name`, `kind`, `url`, `interval`, `workspace`, `has_api_key`, and the connection
/// options `timeout`, `retries`, `verify`, `ca_cert`, `tls_fingerprint`; `api_key` too with
#[doc = concat!(
    "`reveal_keys`, for a simulator that must check the same key), or a `ValueError` naming",
    " the file, the source and the field."
)]
#[pyfunction]
#[pyo3(signature = (venue=None, *, sources=None, defaults=None, reveal_keys=false))]
pub fn _load_venue(
    py: Python<'_>,
    venue: Option<PathBuf>,
    sources: Option<&Bound<'_, PyAny>>,
    defaults: Option<&Bound<'_, PyAny>>,
    reveal_keys: bool,
) -> PyResult<Vec<Py<PyAny>>> {
    let v = venue_of(venue, sources, defaults, None)?;
    v.sources
        .iter()
        .map(|s| {
            let d = pyo3::types::PyDict::new(py);
            d.set_item("name", &s.name)?;
            d.set_item("kind", s.kind.as_str())?;
            d.set_item("url", showctl::error::shown_url(&s.config.url))?;
            d.set_item("interval", s.interval.as_secs_f64())?;
            d.set_item("workspace", s.workspace.as_ref())?;
            d.set_item("has_api_key", s.config.api_key.is_some())?;
            d.set_item("timeout", s.config.timeout.as_secs_f64())?;
            d.set_item("retries", s.config.retries)?;
            d.set_item("max_connections", s.config.max_connections)?;
            d.set_item("verify", s.config.verify)?;
            d.set_item("ca_cert", s.config.ca_cert.as_ref())?;
            d.set_item(
                "tls_fingerprint",
                s.config.tls_fingerprint.map(|f| f.to_string()),
            )?;
            if reveal_keys {
                d.set_item("api_key", s.config.api_key.as_deref())?;
            }
            Ok(d.into_any().unbind())
        })
        .collect()
}

/// Probe every source of a venue at once (at most `concurrency` at a time).
#[pyfunction]
#[pyo3(signature = (venue=None, *, sources=None, defaults=None, concurrency=8))]
pub fn _probe_venue(
    py: Python<'_>,
    venue: Option<PathBuf>,
    sources: Option<&Bound<'_, PyAny>>,
    defaults: Option<&Bound<'_, PyAny>>,
    concurrency: i64,
) -> PyResult<Py<PyAny>> {
    let n = showctl::venue::probe::concurrency(concurrency).map_err(crate::errors::to_py)?;
    let v = venue_of(venue, sources, defaults, None)?;
    let report = rt::wait(py, async move { Ok(probe_venue(&v, n).await) })?;
    venue_report(py, report)
}

/// Async twin of [`_probe_venue`].
#[pyfunction]
#[pyo3(signature = (venue=None, *, sources=None, defaults=None, concurrency=8))]
pub fn _probe_venue_async<'py>(
    py: Python<'py>,
    venue: Option<PathBuf>,
    sources: Option<&Bound<'py, PyAny>>,
    defaults: Option<&Bound<'py, PyAny>>,
    concurrency: i64,
) -> PyResult<Bound<'py, PyAny>> {
    let n = showctl::venue::probe::concurrency(concurrency).map_err(crate::errors::to_py)?;
    let v = venue_of(venue, sources, defaults, None)?;
    rt::spawn(
        py,
        async move { Ok(probe_venue(&v, n).await) },
        venue_report,
    )
}
