//! The automation classes: `TransportEvent` and `TransportWatch`, `MirrorStatus`, `Command`
//! (the commands of a batch, built by its static methods, also reachable as `showctl.cmd`)
//! and `BatchResult`. The work itself is in the core (`crate::media::{watch, mirror,
//! automation}`); this only converts.

use std::time::{SystemTime, UNIX_EPOCH};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pyo3::IntoPyObjectExt;

use super::errors::{to_pyerr, IntoPy};
use super::media::{
    blend_arg, dataclass_repr, effect_arg, json_to_py, opt_text_or, params_arg, py_to_json,
    text_or, type_name, Attr, PyLayer, Reply,
};
use crate::error::{Error, Result};
use crate::ident::Ident;
use crate::media::endpoints::{self as ep, parse, Call};
use crate::media::mirror::MirrorStatus;
use crate::media::watch::{TransportEvent, TransportWatch};
use crate::media::*;
use crate::python::args::{self, ident, number};
use crate::python::watch::watch_class;
use crate::transport::Target;

pub(super) fn seconds_since_epoch(t: Option<SystemTime>) -> Option<f64> {
    t.and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64())
}

pub(super) fn error_value(py: Python<'_>, e: &Option<Error>) -> Py<PyAny> {
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
    #[getter]
    fn layer_name(&self) -> Option<String> {
        self.inner.layer_name.clone()
    }
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

// ---------------------------------------------------------------------------------------------
// Mirrors
// ---------------------------------------------------------------------------------------------

/// One mirror as given: its URL, its key (`None`: the primary's) and its own pin.
pub struct MirrorArg {
    url: String,
    api_key: Option<Option<String>>,
    tls_fingerprint: Option<String>,
}

/// `mirrors=` as given: URLs, `(url, api_key)` or `(url, api_key, tls_fingerprint)` tuples, or
/// dicts with the keys `url`, `api_key` and `tls_fingerprint` (all but `url` optional).
#[derive(Default)]
pub struct MirrorArgs(Vec<MirrorArg>);

const MIRROR_FORMS: &str =
    "a URL, a (url, api_key[, tls_fingerprint]) tuple or a dict with url, api_key, tls_fingerprint";

fn mirror_arg(i: usize, item: &Bound<'_, PyAny>) -> PyResult<MirrorArg> {
    let wrong = || {
        PyTypeError::new_err(format!(
            "mirrors[{i}]: expected {MIRROR_FORMS}, got {}",
            type_name(item)
        ))
    };
    if item.is_instance_of::<PyString>() {
        return Ok(MirrorArg {
            url: item.extract()?,
            api_key: None,
            tls_fingerprint: None,
        });
    }
    if let Ok(dict) = item.cast::<PyDict>() {
        for key in dict.keys() {
            let key: String = key.extract().map_err(|_| wrong())?;
            if !["url", "api_key", "tls_fingerprint"].contains(&key.as_str()) {
                return Err(PyValueError::new_err(format!(
                    "mirrors[{i}]: unknown key {key:?} (expected url, api_key, tls_fingerprint)"
                )));
            }
        }
        let url = dict.get_item("url")?.ok_or_else(|| {
            PyValueError::new_err(format!("mirrors[{i}]: the dict has no \"url\""))
        })?;
        let api_key = match dict.get_item("api_key")? {
            Some(k) => Some(k.extract::<Option<String>>().map_err(|_| wrong())?),
            None => None,
        };
        let pin = match dict.get_item("tls_fingerprint")? {
            Some(p) => p.extract::<Option<String>>().map_err(|_| wrong())?,
            None => None,
        };
        return Ok(MirrorArg {
            url: url.extract().map_err(|_| wrong())?,
            api_key,
            tls_fingerprint: pin,
        });
    }
    if let Ok((url, key, pin)) = item.extract::<(String, Option<String>, Option<String>)>() {
        return Ok(MirrorArg {
            url,
            api_key: Some(key),
            tls_fingerprint: pin,
        });
    }
    let (url, key) = item
        .extract::<(String, Option<String>)>()
        .map_err(|_| wrong())?;
    Ok(MirrorArg {
        url,
        api_key: Some(key),
        tls_fingerprint: None,
    })
}

impl<'a, 'py> FromPyObject<'a, 'py> for MirrorArgs {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyDict>() {
            return Err(PyTypeError::new_err(format!(
                "expected a list of mirrors ({MIRROR_FORMS}), got one {} (put it in a list)",
                type_name(&obj)
            )));
        }
        let mut out = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            out.push(mirror_arg(i, &item?)?);
        }
        Ok(MirrorArgs(out))
    }
}

impl MirrorArgs {
    /// The targets; a plain URL takes `primary_key` (and the primary's TLS options).
    pub fn targets(self, primary_key: Option<&str>) -> PyResult<Vec<Target>> {
        self.0
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let key = m.api_key.unwrap_or_else(|| primary_key.map(str::to_string));
                let pin = match m.tls_fingerprint {
                    Some(text) => crate::python::args::resolve_pin(Some(text), &m.url)
                        .map_err(|e| PyValueError::new_err(format!("mirrors[{i}]: {e}")))?,
                    None => None,
                };
                Target::new(&m.url, key.as_deref())
                    .map(|t| t.pinned(pin))
                    .map_err(|e| PyValueError::new_err(format!("mirrors[{i}]: {e}")))
            })
            .collect()
    }
}

/// What one mirror did so far (from `MediaPlayer.mirror_status()`).
#[pyclass(module = "showctl._core", name = "MirrorStatus", frozen)]
pub struct PyMirrorStatus {
    inner: MirrorStatus,
}

impl PyMirrorStatus {
    pub fn list(py: Python<'_>, all: Vec<MirrorStatus>) -> PyResult<Py<PyList>> {
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

// ---------------------------------------------------------------------------------------------
// Commands and batches
// ---------------------------------------------------------------------------------------------

/// One command for `MediaPlayer.batch()`, checked when it is built (bad input raises
/// `ValueError` here, before anything is sent). Build it with the static methods, which take
/// the arguments of the `MediaPlayer` and `Layer` method of the same name (`layer` first for a
/// layer's command; `None` for the workspace where both exist), or through `showctl.cmd`.
#[pyclass(module = "showctl._core", name = "Command", frozen)]
pub struct PyCommand {
    call: Call<()>,
}

/// A layer argument: an index, a name, a UUID or a `Layer` handle.
fn layer_arg(obj: &Bound<'_, PyAny>) -> PyResult<Ident> {
    match obj.cast::<PyLayer>() {
        Ok(l) => Ok(l.get().ident.clone()),
        Err(_) => ident(obj, "layer"),
    }
}

fn command(py: Python<'_>, call: Result<Call<()>>) -> PyResult<PyCommand> {
    Ok(PyCommand {
        call: call.py_err(py)?,
    })
}

/// A command on the workspace (`layer=None`) or on a layer.
fn either(
    py: Python<'_>,
    layer: Option<&Bound<'_, PyAny>>,
    workspace: &ep::Endpoint<(), ()>,
    on_layer: &ep::Endpoint<(), ()>,
) -> PyResult<PyCommand> {
    command(
        py,
        match layer {
            None => workspace.at(&[]),
            Some(l) => on_layer.at(&[&layer_arg(l)?]),
        },
    )
}

/// A layer's command with one argument.
fn on_layer<A>(
    py: Python<'_>,
    layer: &Bound<'_, PyAny>,
    endpoint: &ep::Endpoint<A, ()>,
    arg: &str,
    value: A,
) -> PyResult<PyCommand> {
    command(py, endpoint.with(&[&layer_arg(layer)?], arg, value))
}

#[pymethods]
impl PyCommand {
    /// "POST".
    #[getter]
    fn method(&self) -> &'static str {
        self.call.request.method.as_str()
    }
    /// The path below /api/0 as sent, with its query.
    #[getter]
    fn path(&self) -> String {
        self.call.request.path_and_query()
    }
    /// The JSON body as sent (decoded), or None.
    #[getter]
    fn body(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.call.request.body.as_deref().map(parse) {
            Some(Ok(Some(v))) => json_to_py(py, &v),
            _ => Ok(py.None()),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = other.py();
        match other.cast::<PyCommand>() {
            Ok(o) => (self.call.request == o.get().call.request).into_py_any(py),
            Err(_) => Ok(py.NotImplemented()),
        }
    }

    /// The hash of the request `==` compares.
    fn __hash__(&self) -> u64 {
        crate::python::convert::hash_of(&self.call.request)
    }

    fn __repr__(&self) -> String {
        let body = self
            .call
            .request
            .body
            .as_deref()
            .map(|b| format!(" {}", String::from_utf8_lossy(b)))
            .unwrap_or_default();
        format!("Command('{} {}{body}')", self.method(), self.path())
    }

    /// POST /clear/workspace, or /clear/layer/{layer}.
    #[staticmethod]
    #[pyo3(signature = (layer=None))]
    fn clear(py: Python<'_>, layer: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        either(py, layer, &ep::CLEAR_WORKSPACE, &ep::CLEAR_LAYER)
    }
    /// POST /mute/workspace, or /mute/layer/{layer}.
    #[staticmethod]
    #[pyo3(signature = (layer=None))]
    fn mute(py: Python<'_>, layer: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        either(py, layer, &ep::MUTE_WORKSPACE, &ep::MUTE_LAYER)
    }
    /// POST /unmute/workspace, or /unmute/layer/{layer}.
    #[staticmethod]
    #[pyo3(signature = (layer=None))]
    fn unmute(py: Python<'_>, layer: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        either(py, layer, &ep::UNMUTE_WORKSPACE, &ep::UNMUTE_LAYER)
    }
    /// POST /hide/workspace, or /hide/layer/{layer}.
    #[staticmethod]
    #[pyo3(signature = (layer=None))]
    fn hide(py: Python<'_>, layer: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        either(py, layer, &ep::HIDE_WORKSPACE, &ep::HIDE_LAYER)
    }
    /// POST /unhide/workspace, or /unhide/layer/{layer}.
    #[staticmethod]
    #[pyo3(signature = (layer=None))]
    fn unhide(py: Python<'_>, layer: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        either(py, layer, &ep::UNHIDE_WORKSPACE, &ep::UNHIDE_LAYER)
    }
    /// POST /play/workspace, or /play/layer/{layer} (observed in the field).
    #[staticmethod]
    #[pyo3(signature = (layer=None))]
    fn play(py: Python<'_>, layer: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        either(py, layer, &ep::PLAY_WORKSPACE, &ep::PLAY_LAYER)
    }
    /// POST /pause/workspace, or /pause/layer/{layer} (observed in the field).
    #[staticmethod]
    #[pyo3(signature = (layer=None))]
    fn pause(py: Python<'_>, layer: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        either(py, layer, &ep::PAUSE_WORKSPACE, &ep::PAUSE_LAYER)
    }
    /// POST /select/layer/{layer}?target=true|false.
    #[staticmethod]
    #[pyo3(signature = (layer, target=false))]
    fn select(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = args::target)] target: bool,
    ) -> PyResult<Self> {
        on_layer(py, layer, &ep::SELECT_LAYER, "target", target)
    }
    /// POST /trigger/layer/{layer}/playlist/{p}/cue/{c}.
    #[staticmethod]
    fn trigger(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        playlist_id: &Bound<'_, PyAny>,
        cue_id: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let p = ident(playlist_id, "playlist_id")?;
        let c = ident(cue_id, "cue_id")?;
        command(py, ep::TRIGGER_LAYER.at(&[&layer_arg(layer)?, &p, &c]))
    }
    /// POST /opacity/layer/{layer} with {"value": value}, 0.0 to 1.0.
    #[staticmethod]
    fn set_opacity(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        on_layer(
            py,
            layer,
            &ep::SET_LAYER_OPACITY,
            "value",
            number(value, "value")?,
        )
    }
    /// POST /blendMode/layer/{layer} with {"value": name}.
    #[staticmethod]
    fn set_blend_mode(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        name: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let v = text_or(name, "name", |m: &BlendMode| m.name.clone())?;
        on_layer(py, layer, &ep::SET_LAYER_BLEND_MODE, "name", v)
    }
    /// POST /blend/layer/{layer} with {"type": ..., "base": {...}}.
    #[staticmethod]
    fn set_blend(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        blend: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        on_layer(py, layer, &ep::SET_LAYER_BLEND, "blend", blend_arg(blend)?)
    }
    /// POST /layerPreset/layer/{layer} with {"value": name}.
    #[staticmethod]
    fn apply_preset(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        name: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let v = text_or(name, "name", |p: &LayerPreset| p.name.clone())?;
        on_layer(py, layer, &ep::APPLY_LAYER_PRESET, "name", v)
    }
    /// POST /targetSet/layer/{layer} with {"value": name}; None sends no body.
    #[staticmethod]
    fn set_target_set(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        name_or_none: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let v = opt_text_or(name_or_none, "name_or_none", |t: &TargetSet| t.name.clone())?;
        on_layer(py, layer, &ep::SET_LAYER_TARGET_SET, "name_or_none", v)
    }
    /// POST /effects/layer/{layer} with {"effect": {...}}.
    #[staticmethod]
    fn set_effect(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        effect: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        on_layer(
            py,
            layer,
            &ep::SET_LAYER_EFFECT,
            "effect",
            effect_arg(effect)?,
        )
    }
    /// POST /effectsPreset/layer/{layer} with {"value": name} or {"value": null}.
    #[staticmethod]
    fn set_effect_preset(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        name_or_none: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let v = opt_text_or(name_or_none, "name_or_none", |p: &EffectPreset| {
            p.name.clone()
        })?;
        on_layer(py, layer, &ep::SET_LAYER_EFFECT_PRESET, "name_or_none", v)
    }
    /// POST /transition/layer/{layer} with {"value": uuid} or {"value": null}.
    #[staticmethod]
    fn set_transition(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        transition_or_none: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let v = opt_text_or(
            transition_or_none,
            "transition_or_none",
            |t: &Transition| t.uuid.clone(),
        )?;
        on_layer(
            py,
            layer,
            &ep::SET_LAYER_TRANSITION,
            "transition_or_none",
            v,
        )
    }
    /// POST /transitionDuration/layer/{layer} with {"value": seconds}, 0.0 to 5.0.
    #[staticmethod]
    fn set_transition_duration(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        seconds: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let v = number(seconds, "seconds")?;
        on_layer(py, layer, &ep::SET_LAYER_TRANSITION_DURATION, "seconds", v)
    }
    /// POST /goToStart or /goToEnd on the layer (observed in the field; see `Layer.go_to`).
    #[staticmethod]
    fn go_to(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        seconds: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        command(
            py,
            ep::go_to(&layer_arg(layer)?, number(seconds, "seconds")?),
        )
    }
    /// POST /skip/layer/{layer}?forwards=...&offset=... (observed in the field).
    #[staticmethod]
    fn skip(
        py: Python<'_>,
        layer: &Bound<'_, PyAny>,
        seconds: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        on_layer(py, layer, &ep::SKIP, "seconds", number(seconds, "seconds")?)
    }
    /// POST /select/playlist/{id}.
    #[staticmethod]
    fn select_playlist(py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Self> {
        command(py, ep::SELECT_PLAYLIST.at(&[&ident(id, "id")?]))
    }
    /// POST /trigger/cue/{id} (in the selected playlist).
    #[staticmethod]
    fn trigger_cue(py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Self> {
        command(py, ep::TRIGGER_CUE.at(&[&ident(id, "id")?]))
    }
    /// POST /trigger/playlist/{id}.
    #[staticmethod]
    fn trigger_playlist(py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Self> {
        command(py, ep::TRIGGER_PLAYLIST.at(&[&ident(id, "id")?]))
    }
    /// POST /trigger/playlist/{p}/cue/{c}.
    #[staticmethod]
    fn trigger_playlist_cue(
        py: Python<'_>,
        playlist_id: &Bound<'_, PyAny>,
        cue_id: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let p = ident(playlist_id, "playlist_id")?;
        command(
            py,
            ep::TRIGGER_PLAYLIST_CUE.at(&[&p, &ident(cue_id, "cue_id")?]),
        )
    }
    /// POST /effects/workspace with {"effect": {...}}.
    #[staticmethod]
    fn set_workspace_effect(py: Python<'_>, effect: &Bound<'_, PyAny>) -> PyResult<Self> {
        command(
            py,
            ep::SET_WORKSPACE_EFFECT.with(&[], "effect", effect_arg(effect)?),
        )
    }
    /// POST /effectsPreset/workspace with {"value": uuid} or {"value": null}.
    #[staticmethod]
    fn set_workspace_effect_preset(
        py: Python<'_>,
        uuid_or_none: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let v = opt_text_or(uuid_or_none, "uuid_or_none", |p: &EffectPreset| {
            p.uuid.clone()
        })?;
        command(
            py,
            ep::SET_WORKSPACE_EFFECT_PRESET.with(&[], "uuid_or_none", v),
        )
    }
    /// POST /transition/workspace with {"value": uuid}.
    #[staticmethod]
    fn set_workspace_transition(py: Python<'_>, transition: &Bound<'_, PyAny>) -> PyResult<Self> {
        let v = text_or(transition, "transition", |t: &Transition| t.uuid.clone())?;
        command(py, ep::SET_WORKSPACE_TRANSITION.with(&[], "transition", v))
    }
    /// POST /transitionDuration/workspace with {"value": seconds}, 0.0 to 5.0.
    #[staticmethod]
    fn set_workspace_transition_duration(
        py: Python<'_>,
        seconds: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let v = number(seconds, "seconds")?;
        command(
            py,
            ep::SET_WORKSPACE_TRANSITION_DURATION.with(&[], "seconds", v),
        )
    }
    /// Any POST: `path` relative to /api/0, `json` a body, `params` the query.
    #[staticmethod]
    #[pyo3(signature = (path, json=None, params=None))]
    fn request(
        py: Python<'_>,
        #[pyo3(from_py_with = args::request_path)] path: String,
        json: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = args::params)] params: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let body = json.map(|j| py_to_json(j, "json")).transpose()?;
        let raw = ep::raw("POST", &path, body, params_arg(params.as_ref())?).py_err(py)?;
        Ok(PyCommand {
            call: Call {
                request: raw.request,
                fallback: None,
                decode: |_| Ok(()),
            },
        })
    }
}

/// The commands of a batch (to report) and their calls (to send).
type Commands = (Vec<Py<PyCommand>>, Vec<Call<()>>);

/// The commands of a batch, checked.
pub fn batch_commands(commands: &Bound<'_, PyAny>) -> PyResult<Commands> {
    let mut objects = Vec::new();
    let mut calls = Vec::new();
    for (i, item) in commands.try_iter()?.enumerate() {
        let item = item?;
        let cmd = item.cast::<PyCommand>().map_err(|_| {
            PyTypeError::new_err(format!(
                "commands[{i}]: expected a showctl.Command (see showctl.cmd), got {}",
                type_name(&item)
            ))
        })?;
        calls.push(cmd.get().call.clone());
        objects.push(cmd.clone().unbind());
    }
    Ok((objects, calls))
}

/// The outcome of one command of `MediaPlayer.batch()`.
#[pyclass(module = "showctl._core", name = "BatchResult", frozen)]
pub struct PyBatchResult {
    /// Position of the command in the batch.
    #[pyo3(get)]
    index: usize,
    /// The command.
    #[pyo3(get)]
    command: Py<PyCommand>,
    /// The exception the command met (a `ShowctlError`), or None.
    #[pyo3(get)]
    error: Option<Py<PyAny>>,
}

#[pymethods]
impl PyBatchResult {
    /// True when the command was answered with a 2xx.
    #[getter]
    fn ok(&self) -> bool {
        self.error.is_none()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        dataclass_repr(
            py,
            "BatchResult",
            &[
                ("index", self.index.into_py_any(py)?),
                ("ok", self.ok().into_py_any(py)?),
                (
                    "error",
                    self.error
                        .as_ref()
                        .map(|e| e.clone_ref(py))
                        .into_py_any(py)?,
                ),
                ("command", self.command.clone_ref(py).into_any()),
            ],
        )
    }
}

/// A batch's commands and what each met.
pub struct BatchOut {
    pub commands: Vec<Py<PyCommand>>,
    pub results: Vec<Result<()>>,
}

impl Reply for BatchOut {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = self
            .commands
            .into_iter()
            .zip(self.results)
            .enumerate()
            .map(|(index, (command, result))| {
                let error = result
                    .err()
                    .map(|e| to_pyerr(py, e).into_value(py).into_any());
                Py::new(
                    py,
                    PyBatchResult {
                        index,
                        command,
                        error,
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any().unbind())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTransportEvent>()?;
    m.add_class::<PyTransportWatch>()?;
    m.add_class::<PyMirrorStatus>()?;
    m.add_class::<PyCommand>()?;
    m.add_class::<PyBatchResult>()?;
    Ok(())
}
