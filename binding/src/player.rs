//! `MediaPlayer`: the client of the media application. Its methods that talk to the
//! application come from the workspace groups of the operation table
//! (`showctl::media::table`, made in [`super::table`]); name lookups, batches, raw requests and
//! the transport watch are written here. Options, closing and the context managers are the
//! base class's ([`super::client`]).

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use showctl_macros::twins;

use super::args::{self, ident, params_arg, MirrorArgs};
use super::client::PyClient;
use super::command::PyCommand;
use super::command::{batch_commands, BatchOut};
use super::convert::expected;
use super::convert::py_to_json;
use super::events::{PyMirrorStatus, PyTransportWatch};
use super::jobs::{Handle, Work};
use super::layer::PyLayer;
use super::look::{PyLook, Sent};
use super::options::{self, convert as opt, ClientArgs};
use super::sequence::{self, SequenceOut};
use super::watch::Shared;
use showctl::ident::Kind;
use showctl::media::endpoints as ep;
use showctl::media::look::Look;
use showctl::media::{automation, cooldown, watch, MediaClient};
use showctl::operation::Call;
use showctl::transport::{Transport, ENV_MEDIA_URL};

/// Client for the media playback application.
#[pyclass(module = "showctl._core", name = "MediaPlayer", frozen, extends = PyClient)]
pub struct PyMediaPlayer {
    pub(super) client: MediaClient,
}

type FutureWork<T> = Work<BoxFuture<'static, showctl::Result<T>>>;

/// An error about `layers[i]`.
fn named_at(i: usize, e: PyErr) -> PyErr {
    Python::attach(|py| {
        let message = e.value(py).to_string();
        let message = message.strip_prefix("layer: ").unwrap_or(&message);
        if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) {
            pyo3::exceptions::PyTypeError::new_err(format!("layers[{i}]: {message}"))
        } else {
            pyo3::exceptions::PyValueError::new_err(format!("layers[{i}]: {message}"))
        }
    })
}

fn halt_arg(o: &Bound<'_, PyAny>) -> PyResult<bool> {
    args::flag(o, "halt_on_failure")
}
fn seq_name(o: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    args::optional(o, "name", args::text)
}
fn cooldown_arg(o: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
    args::optional(o, "cooldown", args::number)
}

#[pymethods]
impl PyMediaPlayer {
    // The options: see `super::options` (their data and conversion) and `Config`'s setters.
    #[new]
    #[pyo3(signature = (
        url=None, api_key=None, *, timeout=5.0, verify=true, ca_cert=None, tls_fingerprint=None,
        retries=2, retry_commands=false, max_body=None, max_connections=8, confirm_timeout=0.5,
        cooldown=None, mirrors=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = opt::url)] url: Option<String>,
        #[pyo3(from_py_with = opt::api_key)] api_key: Option<String>,
        #[pyo3(from_py_with = opt::timeout)] timeout: f64,
        #[pyo3(from_py_with = opt::verify)] verify: bool,
        #[pyo3(from_py_with = opt::ca_cert)] ca_cert: Option<PathBuf>,
        #[pyo3(from_py_with = opt::tls_fingerprint)] tls_fingerprint: Option<String>,
        #[pyo3(from_py_with = opt::retries)] retries: i64,
        #[pyo3(from_py_with = opt::retry_commands)] retry_commands: bool,
        #[pyo3(from_py_with = opt::max_body)] max_body: Option<i64>,
        #[pyo3(from_py_with = opt::max_connections)] max_connections: i64,
        #[pyo3(from_py_with = opt::confirm_timeout)] confirm_timeout: f64,
        #[pyo3(from_py_with = cooldown_arg)] cooldown: Option<f64>,
        mirrors: Option<MirrorArgs>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let given = ClientArgs {
            url,
            api_key,
            timeout,
            verify,
            ca_cert,
            tls_fingerprint,
            retries,
            retry_commands,
            max_body,
            max_connections,
            confirm_timeout,
        };
        let config = options::config(given, ENV_MEDIA_URL).map_err(crate::errors::to_py)?;
        let mirrors = mirrors
            .unwrap_or_default()
            .targets(config.api_key.as_deref())?;
        let transport = Transport::new(&config).map_err(crate::errors::to_py)?;
        let cooldown = cooldown::window(cooldown).map_err(crate::errors::to_py)?;
        let client = MediaClient::with_mirrors(Arc::new(transport), mirrors)
            .map_err(crate::errors::to_py)?;
        client.set_cooldown(cooldown);
        Ok(PyClassInitializer::from(PyClient::new(client.clone()))
            .add_subclass(PyMediaPlayer { client }))
    }
}

impl Handle for PyMediaPlayer {
    type Client = MediaClient;
    fn client(&self) -> &MediaClient {
        &self.client
    }
}

#[twins(PyClient: aclose, probe_async, record_async)]
#[pymethods]
impl PyMediaPlayer {
    /// A handle on one layer (an index, a name or a UUID). Sends nothing; a negative index or
    /// an empty name is refused here.
    fn layer(&self, id: &Bound<'_, PyAny>) -> PyResult<PyLayer> {
        let ident = ident(id, "id")?;
        ident
            .segment(Kind::Layer, "id")
            .map_err(crate::errors::to_py)?;
        Ok(PyLayer {
            client: self.client.clone(),
            ident,
        })
    }

    /// The layer named `name` (or with that UUID), as a handle addressed by its UUID: a layer
    /// named with digits only ("10"), which the application would read as an index, is
    /// reached this way. The layer list is read once and kept (see `refresh()`); a name missing
    /// from the kept list is looked up once more in a fresh one. No layer, or more than one,
    /// with that name: `NameLookupError`.
    #[twin]
    fn resolve_layer(
        &self,
        #[pyo3(from_py_with = args::name)] name: String,
    ) -> PyResult<FutureWork<PyLayer>> {
        let (found, client) = (
            self.client
                .layer_named(name)
                .map_err(crate::errors::to_py)?,
            self.client.clone(),
        );
        Ok(Work(
            async move {
                let ident = found.await?;
                Ok(PyLayer { client, ident })
            }
            .boxed(),
        ))
    }

    /// The playlist named `name` (or with that UUID), anywhere in the tree, with its UUID,
    /// cues and nested playlists; kept like `resolve_layer`.
    #[twin]
    fn resolve_playlist(
        &self,
        #[pyo3(from_py_with = args::name)] name: String,
    ) -> PyResult<FutureWork<Arc<showctl::media::Playlist>>> {
        Ok(Work(
            self.client
                .playlist_named(name)
                .map_err(crate::errors::to_py)?
                .boxed(),
        ))
    }

    /// The UUID of the one layer, playlist or cue named `name` (only among `kind`: "layer",
    /// "playlist" or "cue"), to pass wherever an id is taken. Kept like `resolve_layer`; none
    /// or several: `NameLookupError` (the message lists them).
    #[twin]
    #[pyo3(signature = (name, kind=None))]
    fn by_name(
        &self,
        #[pyo3(from_py_with = args::name)] name: String,
        #[pyo3(from_py_with = args::kind)] kind: Option<String>,
    ) -> PyResult<FutureWork<String>> {
        Ok(Work(
            self.client
                .uuid_named(name, kind.as_deref())
                .map_err(crate::errors::to_py)?
                .boxed(),
        ))
    }

    /// Send many commands (`showctl.Command`, see `showctl.cmd`) at most `concurrency` at a
    /// time, in one call. Returns a `BatchResult` per command, in order: one failure never
    /// stops or hides another. No order is kept between the commands. A command built with
    /// `confirm=True` is read back like the method of the same name.
    #[twin]
    #[pyo3(signature = (commands, concurrency=16))]
    fn batch(
        &self,
        commands: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = args::concurrency)] concurrency: i64,
    ) -> PyResult<FutureWork<BatchOut>> {
        let limit = automation::concurrency(concurrency).map_err(crate::errors::to_py)?;
        let (commands, jobs) = batch_commands(commands)?;
        let client = self.client.clone();
        Ok(Work(
            async move {
                let results = automation::batch(&client, jobs, limit).await;
                Ok(BatchOut { commands, results })
            }
            .boxed(),
        ))
    }

    /// Run `steps` (`showctl.Command`s, `cmd.wait(seconds)`, `cmd.wait_until(...)`) in order,
    /// one after the other. Every layer, playlist and cue the steps name is first looked up in
    /// the application (`NameLookupError` naming the step; nothing sent). With
    /// `halt_on_failure` the first failing step ends the sequence; without it every step runs
    /// (a failed command is reported, never sent again). `name` goes into each command's
    /// record (the `showctl.commands` log). Cancelling stops between steps: a command in
    /// flight finishes, nothing is sent after it, and the log (`showctl.sequence`) says which
    /// steps ran. Returns a `SequenceResult`.
    #[twin]
    #[pyo3(signature = (steps, *, halt_on_failure=true, name=None))]
    fn sequence(
        &self,
        steps: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = halt_arg)] halt_on_failure: bool,
        #[pyo3(from_py_with = seq_name)] name: Option<String>,
    ) -> PyResult<FutureWork<SequenceOut>> {
        let steps = sequence::steps(steps)?;
        Ok(sequence::run(&self.client, steps, halt_on_failure, name))
    }

    /// Look up in the application every layer, playlist and cue `steps` name, as `sequence()`
    /// does first, and send nothing: `NameLookupError` names the first step that names one
    /// that is not there.
    #[twin]
    fn check_sequence(&self, steps: &Bound<'_, PyAny>) -> PyResult<FutureWork<()>> {
        let steps = sequence::steps(steps)?;
        Ok(sequence::check(&self.client, steps))
    }

    /// The look of `layers` (indexes, names or UUIDs; None: every layer): opacity, hidden,
    /// muted, layer blend, target set, effects preset, transition and its duration, read from
    /// the application. A layer that is not there: `NameLookupError`.
    #[twin]
    #[pyo3(signature = (layers=None))]
    fn look(&self, layers: Option<&Bound<'_, PyAny>>) -> PyResult<FutureWork<Look>> {
        let ids = match layers {
            None => None,
            Some(l) => Some(
                l.try_iter()?
                    .enumerate()
                    .map(|(i, x)| {
                        let id = PyCommand::layer_arg(&x?).map_err(|e| named_at(i, e))?;
                        id.segment(Kind::Layer, "layer")
                            .map_err(|e| named_at(i, crate::errors::to_py(e)))?;
                        Ok(id)
                    })
                    .collect::<PyResult<Vec<_>>>()?,
            ),
        };
        let client = self.client.clone();
        Ok(Work(
            async move { showctl::media::look::read(&client, ids.as_deref()).await }.boxed(),
        ))
    }

    /// Make the workspace look like `look` (a `Look`; `only`: the fields to apply, of
    /// "hidden", "muted", "preset", "target_set", "effect_preset", "transition",
    /// "transition_duration", "opacity", "blend"; None: all). Reads what is there and sends
    /// only what differs, each command confirmed, one at a time in a safe order: hide and mute
    /// first, unhide and unmute last, the blend after the opacity (see docs/automation.md).
    /// A layer, target set, effects preset or transition the look names that this workspace
    /// does not have: `NameLookupError` listing them all, nothing sent. Returns the `Command`s
    /// sent.
    #[twin]
    #[pyo3(signature = (look, only=None))]
    fn apply(
        &self,
        look: &Bound<'_, PyAny>,
        only: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<FutureWork<Sent>> {
        let look = look
            .cast::<PyLook>()
            .map_err(|_| expected("look", "a showctl.Look", look))?
            .get()
            .look
            .clone();
        let only = match only {
            None => None,
            Some(o) => Some(
                o.try_iter()?
                    .map(|x| args::text(&x?, "only"))
                    .collect::<PyResult<Vec<_>>>()?,
            ),
        };
        let client = self.client.clone();
        Ok(Work(
            async move {
                let sent = showctl::media::look::apply(&client, &look, only.as_deref()).await?;
                Ok(Sent(sent))
            }
            .boxed(),
        ))
    }

    /// The same player (the same connections, mirrors and cooldown) whose commands pass the
    /// cooldown on purpose: `player.without_cooldown().layer("Main").trigger(...)`. What it
    /// sends still starts the cooldown for the other handles.
    fn without_cooldown(&self, py: Python<'_>) -> PyResult<Py<PyMediaPlayer>> {
        let client = self.client.without_cooldown();
        let init = PyClassInitializer::from(PyClient::new(client.clone()))
            .add_subclass(PyMediaPlayer { client });
        Py::new(py, init)
    }

    /// The cooldown in seconds, or None when it is off.
    #[getter]
    fn cooldown(&self) -> Option<f64> {
        self.client.cooldown().map(|d| d.as_secs_f64())
    }

    /// Any request: `path` relative to /api/0 (names are encoded, `%XX` kept), `json` a body
    /// to send, `params` the query. Returns the decoded JSON, or None for an empty body. A
    /// POST is sent as a command.
    #[twin]
    #[pyo3(signature = (method, path, json=None, params=None))]
    fn request(
        &self,
        #[pyo3(from_py_with = args::method)] method: String,
        #[pyo3(from_py_with = args::request_path)] path: String,
        json: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = args::params)] params: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Call<Option<Value>>> {
        let body = json.map(|j| py_to_json(j, "json")).transpose()?;
        ep::raw(&method, &path, body, params_arg(params.as_ref())?).map_err(crate::errors::to_py)
    }

    /// What each mirror did so far (no request is sent), in the order given.
    fn mirror_status(&self, py: Python<'_>) -> Vec<PyMirrorStatus> {
        let all = self.client.mirror_status().into_iter();
        all.map(|st| PyMirrorStatus::of(py, st)).collect()
    }

    /// Forget the layer list and playlist tree kept for name lookups (no request is sent); the
    /// next lookup reads them again.
    fn refresh(&self) {
        self.client.refresh();
    }

    /// Poll GET /transportState/workspace every `interval` seconds (0.05 at least) and yield a
    /// `TransportEvent` per change on a layer: "started", "stopped", "media_changed",
    /// "emptied", and "time_remaining" when the time remaining crosses one of `thresholds`
    /// (seconds). The first poll is the baseline. A transient failure yields one "poll_failed"
    /// event and the watch goes on ("poll_recovered" when it answers again); other failures
    /// end it with their exception. The watch is an iterator and an async iterator:
    /// `watch_transport_async` is the same method under its async name.
    #[pyo3(
        signature = (interval=0.5, thresholds=vec![10.0]),
        text_signature = "($self, interval=0.5, thresholds=[10.0])"
    )]
    fn watch_transport(
        &self,
        #[pyo3(from_py_with = args::interval)] interval: f64,
        #[pyo3(from_py_with = args::thresholds)] thresholds: Vec<f64>,
    ) -> PyResult<PyTransportWatch> {
        let watch = watch::TransportWatch::start(self.client.clone(), interval, &thresholds)
            .map_err(crate::errors::to_py)?;
        Ok(PyTransportWatch(Shared::new(watch)))
    }
}
