//! The binding of the read-only show-day tools' results: the report of `probe()` /
//! `probe_async()` of both clients becomes a `showctl.ProbeReport`, what `record()` wrote a
//! `showctl.Recorded` (the methods are the base class's, [`super::client`]).

use pyo3::prelude::*;

use super::convert::{report_to_py, Reply};
use showctl::capture::Recorded;
use showctl::probe::Report;

/// The report as a `showctl.ProbeReport` (a frozen dataclass).
impl Reply for Report {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        report_to_py(py, &self, "showctl._reports", "ProbeReport")
    }
    fn py_type() -> String {
        "ProbeReport".into()
    }
}

/// The number of recordings written as a `showctl.Recorded` (an `int`, with the bounds the
/// reads reached as `.limits`).
impl Reply for Recorded {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let class = py.import("showctl._reports")?.getattr("Recorded")?;
        Ok(class.call1((self.count, self.limits))?.unbind())
    }
    fn py_type() -> String {
        "Recorded".into()
    }
}
