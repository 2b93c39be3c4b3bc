//! Binding of the feed: `Feed`, a context manager like `Simulator`. The work is in the core
//! (`showctl::feed`).

use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString, PyTuple};

use super::args::connection_dict;
use super::convert::{expected, json_to_py, serialize_to_py};
use super::rt;
use showctl::feed::{
    Feed, Kind, Options, Serving, SharedOptions, SourceArg, SourceSpec, SOURCE_KEYS,
};

/// `media=` / `scoreboard=` of the feed (`None` when not given).
fn source_arg(obj: Option<&Bound<'_, PyAny>>, arg: &str) -> PyResult<Option<SourceArg>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if obj.is_instance_of::<PyString>() {
        return Ok(Some(SourceArg {
            url: obj.extract()?,
            ..SourceArg::default()
        }));
    }
    let Ok(dict) = obj.cast::<PyDict>() else {
        let what = format!("a URL or a dict with {}", SOURCE_KEYS.join(", "));
        return Err(expected(arg, &what, obj));
    };
    let url = connection_dict(dict, arg, SOURCE_KEYS)?;
    Ok(Some(SourceArg {
        ca_cert: item(dict, arg, "ca_cert", "a path")?,
        verify: item(dict, arg, "verify", "a bool")?,
        url: url
            .extract()
            .map_err(|_| wrong(arg, "url", "a URL string", &url))?,
        api_key: item(dict, arg, "api_key", "a string")?,
        tls_fingerprint: item(dict, arg, "tls_fingerprint", "a string")?,
    }))
}

/// `dict[key]` of the source `arg` refused: it is not `what`.
fn wrong(arg: &str, key: &str, what: &str, v: &Bound<'_, PyAny>) -> PyErr {
    expected(&format!("{arg}[{key:?}]"), what, v)
}

/// `dict[key]` of a source's dict as a `T`, refused naming the key and `what` it takes (a
/// `verify` only as a bool). A key given as None is as if not given: the feed's own option
/// applies.
fn item<'py, T: FromPyObjectOwned<'py>>(
    dict: &Bound<'py, PyDict>,
    arg: &str,
    key: &str,
    what: &str,
) -> PyResult<Option<T>> {
    let Some(v) = dict.get_item(key)?.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let t = v.extract::<T>().ok();
    match t.filter(|_| key != "verify" || v.is_instance_of::<PyBool>()) {
        Some(t) => Ok(Some(t)),
        None => Err(wrong(arg, key, what, &v)),
    }
}

/// One poller serving the media application's transport state and the scoreboard's score to
/// any number of readers: a page, JSON, XML, CSV, Server-Sent Events and files.
///
/// `Feed(media=None, scoreboard=None, *, interval=None, port=0, host="127.0.0.1", write=None,
/// api_key=None, timeout=None, verify=None, ca_cert=None, tls_fingerprint=None,
/// header_timeout=30.0, venue=None, sources=None, defaults=None)`:
///
/// - `media`, `scoreboard`: the applications polled, each a URL or a dict with its own `url`,
///   `api_key`, `tls_fingerprint`, `ca_cert` and `verify`. Or every source of a venue:
///   `venue="venue.toml"`, or its sources as
///   dicts, `sources={"court1": {"kind": "scoreboard", "url": ...}}`, with `defaults` (the
///   file's `[defaults]` table as a dict); each source's options are then its own.
/// - `interval`: seconds between polls of each source (0.05 at least; 0.5 by default). Beside
///   `sources=` it is the default of every source that sets none (as `defaults={"interval":
///   ...}` is); beside `venue=` it is refused (set it in the file's `[defaults]`).
/// - `port`: the port the feed serves on (0, the default, picks a free one: see `url`);
///   `host`: the address it listens on (`"127.0.0.1"`: this machine only; `"0.0.0.0"` for
///   every screen on the network).
/// - `write`: a folder the feed also writes its documents into (`scores.json`, `scores.xml`,
///   `scores.csv`, `transport.json`, ...), each replaced atomically at every change, for
///   readers that take files (vMix, CasparCG); `None` writes nothing.
/// - `api_key`, `timeout` (seconds per request, 5.0 by default), `verify` (True),
///   `ca_cert`, `tls_fingerprint`: the connection options of every source, as the clients
///   take them (a source's own dict wins); refused beside a venue, whose sources set them.
/// - `header_timeout`: seconds a reader has to send its request's headers before the feed
///   closes the connection (30.0), so idle or slow connections cannot pile up.
#[pyclass(module = "showctl._core", name = "Feed", frozen)]
pub struct PyFeed {
    feed: Arc<Feed>,
}

#[pymethods]
impl PyFeed {
    #[new]
    #[pyo3(signature = (
        media=None, scoreboard=None, *, interval=None, port=0, host="127.0.0.1", write=None,
        api_key=None, timeout=None, verify=None, ca_cert=None, tls_fingerprint=None,
        header_timeout=30.0, venue=None, sources=None, defaults=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        media: Option<&Bound<'_, PyAny>>,
        scoreboard: Option<&Bound<'_, PyAny>>,
        interval: Option<f64>,
        port: i64,
        host: &str,
        write: Option<PathBuf>,
        api_key: Option<String>,
        timeout: Option<f64>,
        verify: Option<bool>,
        ca_cert: Option<PathBuf>,
        tls_fingerprint: Option<String>,
        header_timeout: f64,
        venue: Option<PathBuf>,
        sources: Option<&Bound<'_, PyAny>>,
        defaults: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let serving =
            Serving::given(port, interval, header_timeout).map_err(crate::errors::to_py)?;
        let shared = SharedOptions {
            api_key,
            timeout,
            verify,
            ca_cert,
            tls_fingerprint,
        };
        let named = venue.is_some() || sources.is_some();
        let sources: Vec<SourceSpec> = if named {
            let given = |s: Option<&Bound<'_, PyAny>>| s.is_some_and(|s| !s.is_none());
            let every = shared
                .check_beside_venue(venue.is_some(), interval, given(media), given(scoreboard))
                .map_err(crate::errors::to_py)?;
            let v = super::venue::venue_of(venue, sources, defaults, every)?;
            v.sources.iter().map(SourceSpec::of_venue).collect()
        } else {
            if defaults.is_some() {
                let message = "defaults: only with sources= (a venue)";
                return Err(PyValueError::new_err(message));
            }
            rt::refresh_logging();
            let mut out = Vec::new();
            for (kind, given) in [(Kind::Media, media), (Kind::Scoreboard, scoreboard)] {
                if let Some(s) = source_arg(given, kind.as_str())? {
                    out.push(shared.source(kind, s).map_err(crate::errors::to_py)?);
                }
            }
            out
        };
        let options = Options {
            venue: named,
            sources,
            interval: serving.interval,
            host: host.to_string(),
            port: serving.port,
            write,
            limits: serving.limits,
        };
        let feed = Feed::new(options).map_err(crate::errors::to_py)?;
        Ok(PyFeed {
            feed: Arc::new(feed),
        })
    }

    /// Start polling and serving (a no-op when running), and return the feed once every
    /// source has answered once or failed (at most `timeout` seconds; a source that does not
    /// answer within two intervals is marked stale, with why).
    fn start(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().feed.start().map_err(crate::errors::to_py)?;
        slf.get().wait_ready(slf.py(), None)?;
        Ok(slf)
    }

    /// Wait until every source has answered once or failed, for at most `timeout` seconds (by
    /// default the feed's `timeout`); returns whether they all did. `start()` and `with`
    /// already wait.
    #[pyo3(signature = (timeout=None))]
    fn wait_ready(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        let timeout = self
            .feed
            .ready_timeout(timeout)
            .map_err(crate::errors::to_py)?;
        let feed = self.feed.clone();
        rt::wait(py, async move { Ok(feed.wait_ready(timeout).await) })
    }

    /// Stop polling and serving, closing every connection (a no-op when stopped); a file being
    /// written (`write=`) is finished first, for at most 2 s. Each Server-Sent Events reader
    /// gets a last `end` event first. In a child of `os.fork()` it returns at once and leaves
    /// the parent's feed serving.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        let feed = self.feed.clone();
        rt::wait(py, async move { feed.stop().await }.map(Ok))
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
        self.feed.port()
    }

    /// Seconds between polls.
    #[getter]
    fn interval(&self) -> f64 {
        self.feed.options().interval.as_secs_f64()
    }

    /// The `/transport.json` document now, as a dict (None when stopped or without `media`).
    fn transport(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        serialize_to_py(py, &self.feed.transport())
    }

    /// The `/scores.json` document now, as a dict (None when stopped or without `scoreboard`).
    fn scores(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        serialize_to_py(py, &self.feed.scores())
    }

    /// Every source polled: `[{"name", "kind", "documents"}, ...]` as in `/sources.json`
    /// (media players first), the documents' paths relative to `url`. Known before `start()`.
    #[getter]
    fn sources(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let doc = self.feed.options().sources_json();
        Ok(json_to_py(py, &doc["sources"])?.unbind())
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
        slf.get().feed.start().map_err(crate::errors::to_py)?;
        let feed = slf.get().feed.clone();
        let timeout = slf
            .get()
            .feed
            .ready_timeout(None)
            .map_err(crate::errors::to_py)?;
        let slf = slf.unbind();
        rt::spawn(
            py,
            async move { feed.wait_ready(timeout).await }.map(Ok),
            move |_, _| Ok(slf),
        )
    }

    #[pyo3(signature = (*_args))]
    fn __aexit__<'py>(
        &self,
        py: Python<'py>,
        _args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let feed = self.feed.clone();
        rt::spawn(py, async move { feed.stop().await }.map(Ok), |_, ()| Ok(()))
    }

    fn __repr__(&self) -> String {
        self.feed.describe()
    }
}
