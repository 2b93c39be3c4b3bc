//! Binding of the OSC bridge: `OscBridge`, a context manager like `Feed`. The work is in the
//! core (`showctl::osc`).

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::convert::json_to_py;
use super::player::PyMediaPlayer;
use super::rt;
use super::scoreboard::PyScoreboard;
use showctl::osc::{Allow, Bridge, Limits, Options, Passcode};

/// An OSC bridge: QLab, a lighting desk or TouchOSC drive the media application (and read the
/// scoreboard) over OSC, UDP or TCP (OSC 1.1 SLIP framing) on one port.
///
/// `OscBridge(player, scoreboard=None, *, port=53000, host="127.0.0.1", allow=None,
/// passcode=None, rate=100.0, reply=True, confirm=False)`:
///
/// - `player`: the `MediaPlayer` the commands go through (its options, mirrors and command
///   log); `scoreboard`: the `Scoreboard` that `/showctl/scores` reads, if any.
/// - `port`: UDP and TCP (0 picks a free port: see `port`); `host`: the address listened on.
/// - `allow`: the senders taken, addresses or networks (`["192.168.1.0/24", "10.0.0.5"]`);
///   `None`: this machine only. Others are dropped unread, logged once per sender.
/// - `passcode`: when given, every message carries it as its first argument (compared in
///   constant time, never shown); others are refused.
/// - `rate`: messages per second per sender address (a second's worth may come at once).
/// - `reply`: answer each message at `/reply` + its address with one JSON string (`status`,
///   `delivery`, `data` for a read, `error`).
/// - `confirm`: read back the commands that can be (the clients' `confirm=True`).
///
/// Addresses and examples: docs/osc.md.
#[pyclass(module = "showctl._core", name = "OscBridge", frozen)]
pub struct PyOscBridge {
    bridge: Arc<Bridge>,
}

#[pymethods]
impl PyOscBridge {
    #[new]
    #[pyo3(signature = (
        player, scoreboard=None, *, port=53000, host="127.0.0.1", allow=None, passcode=None,
        rate=100.0, reply=true, confirm=false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        player: PyRef<'_, PyMediaPlayer>,
        scoreboard: Option<PyRef<'_, PyScoreboard>>,
        port: i64,
        host: &str,
        allow: Option<Vec<String>>,
        passcode: Option<String>,
        rate: f64,
        reply: bool,
        confirm: bool,
    ) -> PyResult<Self> {
        let port = u16::try_from(port)
            .map_err(|_| PyValueError::new_err(format!("port: 0 to 65535, got {port}")))?;
        rt::refresh_logging();
        let options = Options {
            host: host.to_string(),
            port,
            allow: Allow::parse(allow.as_deref()).map_err(crate::errors::to_py)?,
            passcode: passcode
                .map(Passcode::new)
                .transpose()
                .map_err(crate::errors::to_py)?,
            rate,
            reply,
            confirm,
            limits: Limits::default(),
        };
        let board = scoreboard.map(|s| s.client.clone());
        let bridge =
            Bridge::new(options, player.client.clone(), board).map_err(crate::errors::to_py)?;
        Ok(PyOscBridge {
            bridge: Arc::new(bridge),
        })
    }

    /// Listen (a no-op when listening) and return the bridge.
    fn start(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().bridge.start().map_err(crate::errors::to_py)?;
        Ok(slf)
    }

    /// Stop listening: nothing is read after this; messages queued and not yet sent are
    /// refused (their records say so); a command being sent is waited for. A no-op when
    /// stopped.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        let bridge = self.bridge.clone();
        rt::wait(py, async move { bridge.stop().await }.map(Ok))
    }

    /// The same as `stop()`.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.stop(py)
    }

    #[getter]
    fn running(&self) -> bool {
        self.bridge.addr().is_some()
    }

    /// The port listened on, UDP and TCP (the requested one until started).
    #[getter]
    fn port(&self) -> u16 {
        self.bridge.port()
    }

    #[getter]
    fn host(&self) -> String {
        self.bridge.options().host.clone()
    }

    /// The senders allowed, as networks (`["127.0.0.0/8", "::1/128"]` by default).
    #[getter]
    fn allow(&self) -> Vec<String> {
        self.bridge.options().allow.describe()
    }

    /// The record of the next message received, oldest first (a dict: `when`, `transport`,
    /// `sender`, `address`, `args`, `status`, `delivery`, `data`, `error`, `elapsed_ms`), or
    /// None when none comes within `timeout` seconds. The last 1000 are kept.
    #[pyo3(signature = (timeout=1.0))]
    fn next_message(&self, py: Python<'_>, timeout: f64) -> PyResult<Option<Py<PyAny>>> {
        if !(timeout.is_finite() && (0.0..=86_400.0).contains(&timeout)) {
            let message = format!("timeout: seconds, 0 to 86400, got {timeout}");
            return Err(PyValueError::new_err(message));
        }
        let bridge = self.bridge.clone();
        let wait = Duration::from_secs_f64(timeout);
        let record = rt::wait(py, async move { Ok(bridge.next_record(wait).await) })?;
        record
            .map(|r| json_to_py(py, &r).map(Bound::unbind))
            .transpose()
    }

    /// What the bridge counted since it was made (a dict of counts: `received`, `commands`,
    /// `reads`, `ok`, `failed`, `refused`, `not_allowed`, `over_rate`, `malformed`,
    /// `oversized`, `connections_refused`, `records_lost`).
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(json_to_py(py, &self.bridge.stats())?.unbind())
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        Self::start(slf)
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>) -> PyResult<()> {
        self.stop(py)
    }

    fn __repr__(&self) -> String {
        self.bridge.describe()
    }
}
