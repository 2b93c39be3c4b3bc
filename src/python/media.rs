//! `MediaPlayer`, its `Layer` handle and the media models.
//!
//! Every method that talks to the application is declared once in `twins!`, which makes the
//! blocking method and its `_async` twin; both build the same core call from the endpoint
//! table and run it on the same core client.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use pyo3::{IntoPyObjectExt, PyClass};
use serde_json::{Map, Value};

use crate::error::Result;
use crate::ident::{Ident, Kind};
use crate::media::automation;
use crate::media::confirm::{self, Expect, Flag};
use crate::media::endpoints::{self as ep, BlendSpec, Call};
use crate::media::names::NameKind;
use crate::media::tree::PlaylistTree;
use crate::media::watch;
use crate::media::*;
use crate::python::args::{client_config, ident, number};
use crate::python::automation::{
    batch_commands, BatchOut, MirrorArgs, PyMirrorStatus, PyTransportWatch,
};
use crate::python::errors::IntoPy;
use crate::python::rt;
use crate::python::tree::{PyCue, PyPlaylist};
use crate::transport::{Transport, ENV_MEDIA_URL};

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

pub(super) fn json_to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    pythonize::pythonize(py, v)
        .map(Bound::unbind)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Refuse NaN and infinities anywhere in `obj` (JSON has no such numbers; they would
/// otherwise become null).
fn finite_only(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<()> {
    if let Ok(f) = obj.cast::<PyFloat>() {
        if !f.value().is_finite() {
            return Err(PyValueError::new_err(format!(
                "{arg}: {} cannot be sent as JSON",
                f.value()
            )));
        }
    } else if let Ok(d) = obj.cast::<PyDict>() {
        for v in d.values() {
            finite_only(&v, arg)?;
        }
    } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        for v in obj.try_iter()? {
            finite_only(&v?, arg)?;
        }
    }
    Ok(())
}

pub(super) fn py_to_json(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Value> {
    finite_only(obj, arg)?;
    pythonize::depythonize(obj)
        .map_err(|e| PyValueError::new_err(format!("{arg}: cannot be sent as JSON: {e}")))
}

/// A core model and its Python class.
pub(super) trait Wrapped: Model {
    type Class: PyClass<Frozen = True> + Sync;
    fn wrap(py: Python<'_>, inner: Arc<Self>) -> PyResult<Py<PyAny>>;
    fn of(class: &Self::Class) -> &Self;
}

/// A typed field of a model as a Python value.
pub(super) trait Attr {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

macro_rules! plain_attr {
    ($($t:ty),*) => {$(
        impl Attr for $t {
            fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                self.clone().into_py_any(py)
            }
        }
    )*};
}
plain_attr!(Option<String>, Option<f64>, Option<bool>, Option<i64>);

impl Attr for Value {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_to_py(py, self)
    }
}

impl<X: Wrapped> Attr for Vec<Arc<X>> {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = self
            .iter()
            .map(|x| X::wrap(py, x.clone()))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any().unbind())
    }
}

impl<X: Wrapped> Attr for Option<Arc<X>> {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Some(x) => X::wrap(py, x.clone()),
            None => Ok(py.None()),
        }
    }
}

impl Attr for VariableBase {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            VariableBase::Float(b) => FloatBase::wrap(py, b.clone()),
            VariableBase::Color(b) => ColorBase::wrap(py, b.clone()),
            VariableBase::Other(v) => json_to_py(py, v),
        }
    }
}

/// What a call returns, as a Python value.
pub(super) trait Reply: Send + 'static {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl Reply for () {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py.None())
    }
}

impl Reply for f64 {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.into_py_any(py)
    }
}

impl Reply for String {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.into_py_any(py)
    }
}

impl Reply for PyLayer {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, self)?.into_any())
    }
}

impl Reply for Option<Value> {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Some(v) => json_to_py(py, &v),
            None => Ok(py.None()),
        }
    }
}

impl Reply for LayerList {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = self.0.attr(py)?;
        let cls = py.import("showctl._html")?.getattr("LayerList")?;
        Ok(cls.call1((items,))?.unbind())
    }
}

// A model, an optional model and a list of models, as their classes.
impl<M: Wrapped + Send + 'static> Reply for M {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Self::wrap(py, Arc::new(self))
    }
}

impl<M: Wrapped + Send + 'static> Reply for Option<M> {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.map(Arc::new).attr(py)
    }
}

impl<M: Wrapped + Send + Sync + 'static> Reply for Vec<Arc<M>> {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.attr(py)
    }
}

impl<M: Wrapped + Send + Sync + 'static> Reply for Arc<M> {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        M::wrap(py, self)
    }
}

/// Render a model with a function of `showctl._html` (for Jupyter).
pub(crate) fn html(slf: &Bound<'_, PyAny>, render: &str) -> PyResult<String> {
    slf.py()
        .import("showctl._html")?
        .getattr(render)?
        .call1((slf,))?
        .extract()
}

/// `Name(field=repr, ...)`.
pub(super) fn dataclass_repr(
    py: Python<'_>,
    name: &str,
    fields: &[(&str, Py<PyAny>)],
) -> PyResult<String> {
    let parts = fields
        .iter()
        .map(|(k, v)| {
            Ok(format!(
                "{}={}",
                k.trim_start_matches("r#"),
                v.bind(py).repr()?
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(format!("{name}({})", parts.join(", ")))
}

pub(crate) fn model_from_py<M: Model>(data: &Bound<'_, PyAny>) -> PyResult<M> {
    M::from_value(py_to_json(data, "data")?)
        .map_err(|e| PyValueError::new_err(format!("data: {e}")))
}

/// A model class: typed read-only attributes, `to_dict()`, `from_dict()`, `==`, a
/// dataclass-like repr and pickling.
macro_rules! pymodel {
    (
        $(#[$doc:meta])*
        $py:ident($name:literal) wraps $core:ident [$($field:ident),* $(,)?]
        $({ $($extra:tt)* })?
    ) => {
        $(#[$doc])*
        #[pyclass(module = "showctl._core", name = $name, frozen)]
        pub struct $py {
            pub inner: Arc<$core>,
        }

        impl Wrapped for $core {
            type Class = $py;
            fn wrap(py: Python<'_>, inner: Arc<Self>) -> PyResult<Py<PyAny>> {
                Ok(Py::new(py, $py { inner })?.into_any())
            }
            fn of(class: &$py) -> &Self {
                &class.inner
            }
        }

        #[pymethods]
        impl $py {
            $(
                #[getter]
                fn $field(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    self.inner.$field.attr(py)
                }
            )*

            /// The JSON object as the application sent it (wire names, unknown fields kept).
            fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                json_to_py(py, &Value::Object(self.inner.raw().clone()))
            }

            /// Read one from a dict shaped like the application's JSON.
            #[classmethod]
            fn from_dict(_cls: &Bound<'_, PyType>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
                Ok($py { inner: Arc::new(model_from_py::<$core>(data)?) })
            }

            fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let py = other.py();
                match other.cast::<$py>() {
                    Ok(o) => (self.inner.raw() == o.get().inner.raw()).into_py_any(py),
                    Err(_) => Ok(py.NotImplemented()),
                }
            }

            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                dataclass_repr(py, $name, &[$((stringify!($field), self.inner.$field.attr(py)?)),*])
            }

            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, PyAny>, (Py<PyAny>,))> {
                let py = slf.py();
                Ok((slf.get_type().getattr("from_dict")?, (slf.get().to_dict(py)?,)))
            }

            $($($extra)*)?
        }
    };
}

pymodel! {
    /// The media playing on a layer (`TransportState.playing_media`).
    PyMedia("Media") wraps Media [uuid, name]
}

pymodel! {
    /// The base of a `Float` variable.
    PyFloatBase("FloatBase") wraps FloatBase [value, max_value, min_value, name]
}

pymodel! {
    /// The base of a `Color` variable (`color` is `#RRGGBB`).
    PyColorBase("ColorBase") wraps ColorBase [name, color]
}

pymodel! {
    /// A variable of an effect or transition. `base` is a `FloatBase` for type Float, a
    /// `ColorBase` for type Color, and the base as sent (a dict) for the other types.
    PyVariable("Variable") wraps Variable [r#type, base]
}

pymodel! {
    /// An effect.
    PyEffect("Effect") wraps Effect [uuid, name, enabled, variables]
}

pymodel! {
    /// A transition.
    PyTransition("Transition") wraps Transition [uuid, name, enabled, variables]
}

pymodel! {
    /// An effects preset.
    PyEffectPreset("EffectPreset") wraps EffectPreset [uuid, name, effects]
}

pymodel! {
    /// A blend mode.
    PyBlendMode("BlendMode") wraps BlendMode [name, id]
}

pymodel! {
    /// A layer blend: `type` and `base` as sent, and the typed fields of the base.
    PyLayerBlend("LayerBlend") wraps LayerBlend [
        r#type, base, name, mode_index, opacity, is_inverted,
    ]
}

pymodel! {
    /// A layer preset.
    PyLayerPreset("LayerPreset") wraps LayerPreset [id, name]
}

pymodel! {
    /// A target set.
    PyTargetSet("TargetSet") wraps TargetSet [name, uuid]
}

pymodel! {
    /// The state of a layer.
    PyLayerState("LayerState") wraps LayerState [
        uuid, name, is_hidden, is_muted, opacity, effects, effect_preset_uuid, target_set_uuid,
        transition_duration, transition,
    ] {
        fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
            html(slf.as_any(), "layer_state_html")
        }
    }
}

pymodel! {
    /// The transport state of a layer.
    PyTransportState("TransportState") wraps TransportState [
        time_elapsed, time_remaining, playback_rate, is_playing, is_scrubbing, playing_item,
        playing_media, layer,
    ] {
        fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
            html(slf.as_any(), "transport_state_html")
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

pub(super) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

/// A text argument, or the text a model of class `M` carries (`pick`).
pub(super) fn text_or<M: Wrapped>(
    obj: &Bound<'_, PyAny>,
    arg: &str,
    pick: impl Fn(&M) -> Option<String>,
) -> PyResult<String> {
    if obj.is_instance_of::<PyString>() {
        return obj.extract();
    }
    match obj.cast::<M::Class>() {
        Ok(m) => pick(M::of(m.get())).ok_or_else(|| {
            PyValueError::new_err(format!("{arg}: this {} carries no value to send", M::NAME))
        }),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{arg}: expected a str or a {}, got {}",
            M::NAME,
            type_name(obj)
        ))),
    }
}

/// `text_or`, with `None` kept.
pub(super) fn opt_text_or<M: Wrapped>(
    obj: Option<&Bound<'_, PyAny>>,
    arg: &str,
    pick: impl Fn(&M) -> Option<String>,
) -> PyResult<Option<String>> {
    obj.map(|o| text_or(o, arg, pick)).transpose()
}

/// An effect to send: an `Effect` (its documented fields) or a dict with a `uuid`.
pub(super) fn effect_arg(obj: &Bound<'_, PyAny>) -> PyResult<Map<String, Value>> {
    if let Ok(e) = obj.cast::<PyEffect>() {
        return Ok(ep::effect_fields(&e.get().inner));
    }
    if !obj.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(format!(
            "effect: expected an Effect or a dict with a \"uuid\", got {}",
            type_name(obj)
        )));
    }
    match py_to_json(obj, "effect")? {
        Value::Object(m) => Ok(m),
        _ => Err(PyTypeError::new_err("effect: expected a dict")),
    }
}

/// A layer blend to send: a `LayerBlend` or a dict `{"type": ..., "base": {...}}`.
pub(super) fn blend_arg(obj: &Bound<'_, PyAny>) -> PyResult<BlendSpec> {
    let py = obj.py();
    if let Ok(b) = obj.cast::<PyLayerBlend>() {
        return BlendSpec::from_model("blend", &b.get().inner).py_err(py);
    }
    if !obj.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(format!(
            "blend: expected a LayerBlend or a dict {{\"type\": ..., \"base\": {{...}}}}, got {}",
            type_name(obj)
        )));
    }
    BlendSpec::from_value("blend", &py_to_json(obj, "blend")?).py_err(py)
}

/// Query parameters of `request()`: str, int, float or bool values.
pub(super) fn params_arg(params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let Some(params) = params else {
        return Ok(Vec::new());
    };
    params
        .iter()
        .map(|(k, v)| {
            let key: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("params: keys must be str"))?;
            let value = if v.is_instance_of::<PyBool>() {
                v.extract::<bool>()?.to_string()
            } else if v.is_instance_of::<PyString>() {
                v.extract::<String>()?
            } else if v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>() {
                v.str()?.to_string()
            } else {
                return Err(PyTypeError::new_err(format!(
                    "params[{key:?}]: expected str, int, float or bool, got {}",
                    type_name(&v)
                )));
            };
            Ok((key, value))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Sync and async twins
// ---------------------------------------------------------------------------------------------

/// A playlist call whose reply is read in one pass, straight into Python objects.
fn tree(call: crate::Result<Call<Playlist>>) -> crate::Result<Call<PlaylistTree>> {
    call.map(|c| Call {
        request: c.request,
        fallback: c.fallback,
        decode: crate::media::tree::decode,
    })
}

/// What a twin runs on the core client: a call of the endpoint table, or other core work
/// ([`Work`], [`Confirmable`]).
pub(super) trait Job: Send + 'static {
    type Out: Reply;
    fn run(self, client: MediaClient) -> impl Future<Output = Result<Self::Out>> + Send + 'static;
}

impl<T: Reply> Job for Call<T> {
    type Out = T;
    async fn run(self, client: MediaClient) -> Result<T> {
        client.run(self).await
    }
}

/// Any core future (it holds what it needs).
pub(super) struct Work<F>(pub F);

impl<F, T> Job for Work<F>
where
    F: Future<Output = Result<T>> + Send + 'static,
    T: Reply,
{
    type Out = T;
    fn run(self, _: MediaClient) -> impl Future<Output = Result<T>> + Send + 'static {
        self.0
    }
}

/// A command, read back until it shows when an expectation is given (`confirm=True`).
pub(super) struct Confirmable {
    call: Call<()>,
    expect: Option<Expect>,
}

impl Confirmable {
    fn new(call: Call<()>, confirm: bool, expect: impl FnOnce() -> Expect) -> Self {
        Confirmable {
            call,
            expect: confirm.then(expect),
        }
    }
}

impl Job for Confirmable {
    type Out = ();
    async fn run(self, client: MediaClient) -> Result<()> {
        confirm::send(&client, self.call, self.expect.as_ref()).await
    }
}

pub(super) fn block<J: Job>(py: Python<'_>, client: &MediaClient, job: J) -> PyResult<Py<PyAny>> {
    rt::wait(py, job.run(client.clone()))?.into_py(py)
}

pub(super) fn awaitable<'py, J: Job>(
    py: Python<'py>,
    client: &MediaClient,
    job: J,
) -> PyResult<Bound<'py, PyAny>> {
    rt::spawn(py, job.run(client.clone()), |py, v: J::Out| v.into_py(py))
}

/// Declare methods that talk to the application once each: `fn name / name_async (this, py,
/// args...) { body }`, where the body checks the arguments and evaluates to a [`Job`] (most
/// often the core `Call`).
/// Arguments are checked when the method is called, so the `_async` twin refuses bad input
/// before anything is awaited.
macro_rules! twins {
    (
        impl $cls:ident {
            $(
                $(#[$attr:meta])*
                fn $name:ident / $aname:ident (
                    $this:ident, $py:ident $(, $arg:ident : $aty:ty)* $(,)?
                ) $body:block
            )*
        }
        $($extra:tt)*
    ) => {
        #[pymethods]
        impl $cls {
            $(
                $(#[$attr])*
                #[allow(unused_variables, unused_braces)]
                fn $name(&self, py: Python<'_>, $($arg: $aty),*) -> PyResult<Py<PyAny>> {
                    let ($this, $py) = (self, py);
                    let job = $body;
                    block(py, &self.client, job)
                }

                $(#[$attr])*
                #[doc = ""]
                #[doc = "Awaitable twin."]
                #[allow(unused_variables, unused_braces)]
                fn $aname<'py>(
                    &self, py: Python<'py>, $($arg: $aty),*
                ) -> PyResult<Bound<'py, PyAny>> {
                    let ($this, $py) = (self, py);
                    let job = $body;
                    awaitable(py, &self.client, job)
                }
            )*

            $($extra)*
        }
    };
}

/// Client for the media playback application.
#[pyclass(module = "showctl._core", name = "MediaPlayer", frozen)]
pub struct PyMediaPlayer {
    client: MediaClient,
}

twins! {
    impl PyMediaPlayer {
        /// GET /data/playlists: the root of the playlist tree.
        fn playlists / playlists_async (this, py) { tree(ep::PLAYLISTS.at(&[])).py_err(py)? }

        /// GET /data/playlist/{id}: one playlist (index -1 is the video input playlist).
        fn playlist / playlist_async (this, py, id: &Bound<'_, PyAny>) {
            tree(ep::PLAYLIST.at(&[&ident(id, "id")?])).py_err(py)?
        }

        /// GET /data/playlist/{p}/cue/{c}: a cue summary.
        fn cue / cue_async (this, py, playlist_id: &Bound<'_, PyAny>, cue_id: &Bound<'_, PyAny>) {
            let p = ident(playlist_id, "playlist_id")?;
            ep::CUE.at(&[&p, &ident(cue_id, "cue_id")?]).py_err(py)?
        }

        /// GET /data/layers: the state of every layer (a `LayerList`).
        fn layers / layers_async (this, py) { ep::LAYERS.at(&[]).py_err(py)? }

        /// POST /clear/workspace. `confirm=True`: read back until no layer plays media.
        #[pyo3(signature = (*, confirm=false))]
        fn clear / clear_async (this, py, confirm: bool) {
            let call = ep::CLEAR_WORKSPACE.at(&[]).py_err(py)?;
            Confirmable::new(call, confirm, || Expect::Empty { layer: None })
        }
        /// POST /mute/workspace. `confirm=True`: read back until every layer is muted.
        #[pyo3(signature = (*, confirm=false))]
        fn mute / mute_async (this, py, confirm: bool) {
            workspace_flag(py, &ep::MUTE_WORKSPACE, Flag::Muted, true, confirm)?
        }
        /// POST /unmute/workspace. `confirm=True`: read back until no layer is muted.
        #[pyo3(signature = (*, confirm=false))]
        fn unmute / unmute_async (this, py, confirm: bool) {
            workspace_flag(py, &ep::UNMUTE_WORKSPACE, Flag::Muted, false, confirm)?
        }
        /// POST /hide/workspace. `confirm=True`: read back until every layer is hidden.
        #[pyo3(signature = (*, confirm=false))]
        fn hide / hide_async (this, py, confirm: bool) {
            workspace_flag(py, &ep::HIDE_WORKSPACE, Flag::Hidden, true, confirm)?
        }
        /// POST /unhide/workspace. `confirm=True`: read back until no layer is hidden.
        #[pyo3(signature = (*, confirm=false))]
        fn unhide / unhide_async (this, py, confirm: bool) {
            workspace_flag(py, &ep::UNHIDE_WORKSPACE, Flag::Hidden, false, confirm)?
        }

        /// POST /select/playlist/{id} (the index counts top-level playlists only).
        fn select_playlist / select_playlist_async (this, py, id: &Bound<'_, PyAny>) {
            ep::SELECT_PLAYLIST.at(&[&ident(id, "id")?]).py_err(py)?
        }

        /// POST /trigger/cue/{id}: a cue of the selected playlist. In the field the
        /// application takes an index here (a name is answered with 400).
        fn trigger_cue / trigger_cue_async (this, py, id: &Bound<'_, PyAny>) {
            ep::TRIGGER_CUE.at(&[&ident(id, "id")?]).py_err(py)?
        }

        /// POST /trigger/playlist/{id}: the first cue of the playlist. `confirm=True`: read
        /// back until some layer plays that cue (its `playingItem`, with `playingMedia`).
        #[pyo3(signature = (id, *, confirm=false))]
        fn trigger_playlist / trigger_playlist_async (this, py, id: &Bound<'_, PyAny>, confirm: bool) {
            let p = ident(id, "id")?;
            let call = ep::TRIGGER_PLAYLIST.at(&[&p]).py_err(py)?;
            Confirmable::new(call, confirm, || Expect::Playing { layer: None, playlist: p, cue: None })
        }

        /// POST /trigger/playlist/{p}/cue/{c}. `confirm=True`: read back until some layer
        /// plays the cue.
        #[pyo3(signature = (playlist_id, cue_id, *, confirm=false))]
        fn trigger_playlist_cue / trigger_playlist_cue_async (
            this, py, playlist_id: &Bound<'_, PyAny>, cue_id: &Bound<'_, PyAny>, confirm: bool
        ) {
            let p = ident(playlist_id, "playlist_id")?;
            let c = ident(cue_id, "cue_id")?;
            let call = ep::TRIGGER_PLAYLIST_CUE.at(&[&p, &c]).py_err(py)?;
            Confirmable::new(call, confirm, || Expect::Playing { layer: None, playlist: p, cue: Some(c) })
        }

        /// GET /blendMode: the blend modes.
        fn blend_modes / blend_modes_async (this, py) { ep::BLEND_MODES.at(&[]).py_err(py)? }

        /// GET /layerPreset: the layer presets.
        fn layer_presets / layer_presets_async (this, py) { ep::LAYER_PRESETS.at(&[]).py_err(py)? }

        /// GET /targetSet: the target sets.
        fn target_sets / target_sets_async (this, py) { ep::TARGET_SETS.at(&[]).py_err(py)? }

        /// GET /effects: all available effects.
        fn effects / effects_async (this, py) { ep::EFFECTS.at(&[]).py_err(py)? }

        /// GET /effects/workspace: the effects active on the workspace.
        fn workspace_effects / workspace_effects_async (this, py) {
            ep::WORKSPACE_EFFECTS.at(&[]).py_err(py)?
        }

        /// POST /effects/workspace with {"effect": {...}}: an `Effect` (its uuid, name,
        /// enabled and variables) or a dict with a "uuid".
        fn set_workspace_effect / set_workspace_effect_async (this, py, effect: &Bound<'_, PyAny>) {
            ep::SET_WORKSPACE_EFFECT.with(&[], "effect", effect_arg(effect)?).py_err(py)?
        }

        /// GET /effectsPreset: the effects presets.
        fn effect_presets / effect_presets_async (this, py) {
            ep::EFFECT_PRESETS.at(&[]).py_err(py)?
        }

        /// GET /effectsPreset/workspace: the workspace's effects preset, or None.
        fn workspace_effect_preset / workspace_effect_preset_async (this, py) {
            ep::WORKSPACE_EFFECT_PRESET.at(&[]).py_err(py)?
        }

        /// POST /effectsPreset/workspace with {"value": uuid} ({"value": null} for None).
        #[pyo3(signature = (uuid_or_none, *, confirm=false))]
        fn set_workspace_effect_preset / set_workspace_effect_preset_async (
            this, py, uuid_or_none: Option<&Bound<'_, PyAny>>, confirm: bool
        ) {
            let v = opt_text_or(uuid_or_none, "uuid_or_none", |p: &EffectPreset| p.uuid.clone())?;
            let call = ep::SET_WORKSPACE_EFFECT_PRESET.with(&[], "uuid_or_none", v.clone()).py_err(py)?;
            Confirmable::new(call, confirm, || Expect::EffectPreset { layer: None, name: v })
        }

        /// GET /transition: the transitions.
        fn transitions / transitions_async (this, py) { ep::TRANSITIONS.at(&[]).py_err(py)? }

        /// GET /transition/workspace: the workspace transition, or None.
        fn workspace_transition / workspace_transition_async (this, py) {
            ep::WORKSPACE_TRANSITION.at(&[]).py_err(py)?
        }

        /// POST /transition/workspace with {"value": uuid}: a `Transition` or its UUID.
        #[pyo3(signature = (transition, *, confirm=false))]
        fn set_workspace_transition / set_workspace_transition_async (
            this, py, transition: &Bound<'_, PyAny>, confirm: bool
        ) {
            let v = text_or(transition, "transition", |t: &Transition| t.uuid.clone())?;
            let call = ep::SET_WORKSPACE_TRANSITION.with(&[], "transition", v.clone()).py_err(py)?;
            Confirmable::new(call, confirm, || Expect::Transition { layer: None, uuid: Some(v) })
        }

        /// GET /transitionDuration/workspace: seconds.
        fn workspace_transition_duration / workspace_transition_duration_async (this, py) {
            ep::WORKSPACE_TRANSITION_DURATION.at(&[]).py_err(py)?
        }

        /// POST /transitionDuration/workspace with {"value": seconds}, 0.0 to 5.0.
        #[pyo3(signature = (seconds, *, confirm=false))]
        fn set_workspace_transition_duration / set_workspace_transition_duration_async (
            this, py, seconds: &Bound<'_, PyAny>, confirm: bool
        ) {
            let v = number(seconds, "seconds")?;
            let call = ep::SET_WORKSPACE_TRANSITION_DURATION.with(&[], "seconds", v).py_err(py)?;
            Confirmable::new(call, confirm, || Expect::TransitionDuration { layer: None, seconds: v })
        }

        /// GET /transportState/workspace: the transport state of every layer.
        fn transport_state / transport_state_async (this, py) {
            ep::TRANSPORT_STATES.at(&[]).py_err(py)?
        }

        /// POST /play/workspace (observed in the field, 3.3+; not in the API document).
        fn play / play_async (this, py) { ep::PLAY_WORKSPACE.at(&[]).py_err(py)? }

        /// POST /pause/workspace (observed in the field, 3.3+; not in the API document).
        fn pause / pause_async (this, py) { ep::PAUSE_WORKSPACE.at(&[]).py_err(py)? }

        /// The layer named `name` (or with that UUID), as a handle addressed by its UUID: a
        /// layer named with digits only ("10"), which the application would read as an index,
        /// is reached this way. The layer list is read once and kept (see `refresh()`); a name
        /// missing from the kept list is looked up once more in a fresh one. No layer, or more
        /// than one, with that name: `NameLookupError`.
        fn resolve_layer / resolve_layer_async (this, py, name: String) {
            let name = ep::non_empty(name, "name").py_err(py)?;
            let client = this.client.clone();
            Work(async move {
                let layer = client.resolve_layer(&name).await?;
                Ok(PyLayer { client, ident: Ident::Name(layer.uuid.clone().unwrap_or_default()) })
            })
        }

        /// The playlist named `name` (or with that UUID), anywhere in the tree, with its UUID,
        /// cues and nested playlists; kept like `resolve_layer`.
        fn resolve_playlist / resolve_playlist_async (this, py, name: String) {
            let name = ep::non_empty(name, "name").py_err(py)?;
            let client = this.client.clone();
            Work(async move { client.resolve_playlist(&name).await })
        }

        /// The UUID of the one layer, playlist or cue named `name` (only among `kind`:
        /// "layer", "playlist" or "cue"), to pass wherever an id is taken. Kept like
        /// `resolve_layer`; none or several: `NameLookupError` (the message lists them).
        #[pyo3(signature = (name, kind=None))]
        fn by_name / by_name_async (this, py, name: String, kind: Option<String>) {
            let name = ep::non_empty(name, "name").py_err(py)?;
            let kind = kind.map(|k| NameKind::parse(&k)).transpose().py_err(py)?;
            let client = this.client.clone();
            Work(async move { client.by_name(&name, kind).await })
        }

        /// Send many commands (`showctl.Command`, see `showctl.cmd`) at most `concurrency` at
        /// a time, in one call. Returns a `BatchResult` per command, in order: one failure
        /// never stops or hides another. No order is kept between the commands.
        #[pyo3(signature = (commands, concurrency=16))]
        fn batch / batch_async (this, py, commands: &Bound<'_, PyAny>, concurrency: i64) {
            let limit = automation::concurrency(concurrency).py_err(py)?;
            let (commands, calls) = batch_commands(commands)?;
            let client = this.client.clone();
            Work(async move {
                let results = automation::batch(&client, calls, limit).await;
                Ok(BatchOut { commands, results })
            })
        }

        /// Any request: `path` relative to /api/0 (names are encoded, `%XX` kept), `json` a
        /// body to send, `params` the query. Returns the decoded JSON, or None for an empty
        /// body. A POST is sent as a command.
        #[pyo3(signature = (method, path, json=None, params=None))]
        fn request / request_async (
            this, py, method: String, path: String, json: Option<&Bound<'_, PyAny>>,
            params: Option<&Bound<'_, PyDict>>
        ) {
            let body = json.map(|j| py_to_json(j, "json")).transpose()?;
            ep::raw(&method, &path, body, params_arg(params)?).py_err(py)?
        }
    }

    #[new]
    #[pyo3(signature = (
        url=None, api_key=None, *, timeout=5.0, verify=true, ca_cert=None, retries=2,
        retry_commands=false, max_body=None, mirrors=MirrorArgs::default()
    ), text_signature = "(url=None, api_key=None, *, timeout=5.0, verify=True, ca_cert=None, \
        retries=2, retry_commands=False, max_body=None, mirrors=())")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        url: Option<String>,
        api_key: Option<String>,
        timeout: f64,
        verify: bool,
        ca_cert: Option<PathBuf>,
        retries: i64,
        retry_commands: bool,
        max_body: Option<i64>,
        mirrors: MirrorArgs,
    ) -> PyResult<Self> {
        let config = client_config(
            url,
            api_key,
            ENV_MEDIA_URL,
            timeout,
            verify,
            ca_cert,
            retries,
            retry_commands,
            max_body,
        )
        .py_err(py)?;
        let mirrors = mirrors.targets(config.api_key.as_deref())?;
        let transport = Transport::new(&config).py_err(py)?;
        Ok(PyMediaPlayer {
            client: MediaClient::with_mirrors(Arc::new(transport), mirrors).py_err(py)?,
        })
    }

    /// What each mirror did so far (no request is sent), in the order given.
    fn mirror_status(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        PyMirrorStatus::list(py, self.client.mirror_status())
    }

    /// Forget the layer list and playlist tree kept for name lookups (no request is sent); the
    /// next lookup reads them again.
    fn refresh(&self) {
        self.client.refresh();
    }

    /// Poll GET /transportState/workspace every `interval` seconds (0.05 at least) and yield a
    /// `TransportEvent` per change on a layer: "started", "stopped", "media_changed",
    /// "emptied", and "time_remaining" when the time remaining crosses one of `thresholds`
    /// (seconds). The first poll is the baseline. A transient failure yields one
    /// "poll_failed" event and the watch goes on ("poll_recovered" when it answers again);
    /// other failures end it with their exception.
    #[pyo3(signature = (interval=0.5, thresholds=vec![10.0]))]
    fn watch_transport(
        &self,
        py: Python<'_>,
        interval: f64,
        thresholds: Vec<f64>,
    ) -> PyResult<PyTransportWatch> {
        let interval = crate::score::watch_interval(interval).py_err(py)?;
        let thresholds = watch::thresholds(&thresholds).py_err(py)?;
        Ok(PyTransportWatch::new(watch::TransportWatch::new(
            self.client.clone(),
            interval,
            thresholds,
        )))
    }

    /// Async twin of `watch_transport`: the same watch, an async iterator too.
    #[pyo3(signature = (interval=0.5, thresholds=vec![10.0]))]
    fn watch_transport_async(
        &self,
        py: Python<'_>,
        interval: f64,
        thresholds: Vec<f64>,
    ) -> PyResult<PyTransportWatch> {
        self.watch_transport(py, interval, thresholds)
    }

    /// The base URL of the API (`scheme://host:port/api/0`).
    #[getter]
    fn url(&self) -> String {
        self.client.transport().base_url().to_string()
    }

    /// Per-attempt timeout in seconds.
    #[getter]
    fn timeout(&self) -> f64 {
        self.client.transport().timeout().as_secs_f64()
    }

    /// True once `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.client.transport().is_closed()
    }

    /// A handle on one layer (an index, a name or a UUID). Sends nothing; a negative index or
    /// an empty name is refused here.
    fn layer(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<PyLayer> {
        let ident = ident(id, "id")?;
        ident.segment(Kind::Layer, "id").py_err(py)?;
        Ok(PyLayer {
            client: self.client.clone(),
            ident,
        })
    }

    /// Close the client: later calls raise `ClientClosedError`. Mirrors get up to `timeout`
    /// seconds to send what they still have queued; what is left is dropped (and counted in
    /// `mirror_status()`).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        if !self.client.mirrors_busy() || crate::runtime::inside_runtime() {
            self.client.close();
            return Ok(());
        }
        let client = self.client.clone();
        let waited = rt::wait(py, async move {
            client.shutdown().await;
            Ok(())
        });
        self.client.close();
        waited
    }

    /// Async twin of `close`.
    fn aclose<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let client = self.client.clone();
        rt::spawn(
            py,
            async move {
                client.shutdown().await;
                Ok(())
            },
            |_, ()| Ok(()),
        )
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>) -> PyResult<()> {
        self.close(py)
    }

    fn __aenter__<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let obj = slf.unbind();
        rt::ready(py, obj)
    }

    #[pyo3(signature = (*_args))]
    fn __aexit__<'py>(
        &self,
        py: Python<'py>,
        _args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.aclose(py)
    }

    fn __repr__(&self) -> String {
        format!("MediaPlayer(url='{}')", self.client.transport().base_url())
    }
}

/// A handle on one layer of the media application (from `MediaPlayer.layer(id)`).
#[pyclass(module = "showctl._core", name = "Layer", frozen)]
pub struct PyLayer {
    client: MediaClient,
    pub(super) ident: Ident,
}

impl PyLayer {
    fn at<T>(&self, py: Python<'_>, endpoint: &ep::Endpoint<(), T>) -> PyResult<Call<T>> {
        endpoint.at(&[&self.ident]).py_err(py)
    }

    fn with<A, T>(
        &self,
        py: Python<'_>,
        endpoint: &ep::Endpoint<A, T>,
        arg: &str,
        value: A,
    ) -> PyResult<Call<T>> {
        endpoint.with(&[&self.ident], arg, value).py_err(py)
    }

    /// Mute/unmute or hide/unhide, confirmed by the layer's flag.
    fn flag(
        &self,
        py: Python<'_>,
        endpoint: &ep::Endpoint<(), ()>,
        flag: Flag,
        value: bool,
        confirm: bool,
    ) -> PyResult<Confirmable> {
        let call = self.at(py, endpoint)?;
        Ok(Confirmable::new(call, confirm, || Expect::Flag {
            layer: Some(self.ident.clone()),
            flag,
            value,
        }))
    }
}

/// Mute/unmute or hide/unhide of the workspace, confirmed by every layer's flag.
fn workspace_flag(
    py: Python<'_>,
    endpoint: &ep::Endpoint<(), ()>,
    flag: Flag,
    value: bool,
    confirm: bool,
) -> PyResult<Confirmable> {
    let call = endpoint.at(&[]).py_err(py)?;
    Ok(Confirmable::new(call, confirm, || Expect::Flag {
        layer: None,
        flag,
        value,
    }))
}

twins! {
    impl PyLayer {
        /// GET /data/layer/{id}: the layer's state.
        fn state / state_async (this, py) { this.at(py, &ep::LAYER_STATE)? }

        /// POST /clear/layer/{id}. `confirm=True`: read back until the layer plays nothing
        /// (`playingMedia` absent).
        #[pyo3(signature = (*, confirm=false))]
        fn clear / clear_async (this, py, confirm: bool) {
            let call = this.at(py, &ep::CLEAR_LAYER)?;
            Confirmable::new(call, confirm, || Expect::Empty { layer: Some(this.ident.clone()) })
        }
        /// POST /mute/layer/{id}. `confirm=True`: read back until the layer is muted.
        #[pyo3(signature = (*, confirm=false))]
        fn mute / mute_async (this, py, confirm: bool) {
            this.flag(py, &ep::MUTE_LAYER, Flag::Muted, true, confirm)?
        }
        /// POST /unmute/layer/{id}. `confirm=True`: read back until the layer is not muted.
        #[pyo3(signature = (*, confirm=false))]
        fn unmute / unmute_async (this, py, confirm: bool) {
            this.flag(py, &ep::UNMUTE_LAYER, Flag::Muted, false, confirm)?
        }
        /// POST /hide/layer/{id}. `confirm=True`: read back until the layer is hidden.
        #[pyo3(signature = (*, confirm=false))]
        fn hide / hide_async (this, py, confirm: bool) {
            this.flag(py, &ep::HIDE_LAYER, Flag::Hidden, true, confirm)?
        }
        /// POST /unhide/layer/{id}. `confirm=True`: read back until the layer is not hidden.
        #[pyo3(signature = (*, confirm=false))]
        fn unhide / unhide_async (this, py, confirm: bool) {
            this.flag(py, &ep::UNHIDE_LAYER, Flag::Hidden, false, confirm)?
        }

        /// POST /select/layer/{id}?target=true|false: select the layer for the preview and
        /// layer options; with `target=True` it is also targeted.
        #[pyo3(signature = (target=false))]
        fn select / select_async (this, py, target: bool) {
            this.with(py, &ep::SELECT_LAYER, "target", target)?
        }

        /// POST /trigger/layer/{id}/playlist/{p}/cue/{c}: a cue on this layer.
        /// `confirm=True`: read back until the layer plays the cue (its `playingItem` is the
        /// cue and `playingMedia` is present).
        #[pyo3(signature = (playlist_id, cue_id, *, confirm=false))]
        fn trigger / trigger_async (
            this, py, playlist_id: &Bound<'_, PyAny>, cue_id: &Bound<'_, PyAny>, confirm: bool
        ) {
            let p = ident(playlist_id, "playlist_id")?;
            let c = ident(cue_id, "cue_id")?;
            let call = ep::TRIGGER_LAYER.at(&[&this.ident, &p, &c]).py_err(py)?;
            Confirmable::new(call, confirm, || Expect::Playing {
                layer: Some(this.ident.clone()), playlist: p, cue: Some(c),
            })
        }

        /// GET /opacity/layer/{id}: the opacity, 0.0 to 1.0.
        fn opacity / opacity_async (this, py) { this.at(py, &ep::LAYER_OPACITY)? }

        /// POST /opacity/layer/{id} with {"value": value}; 0.0 to 1.0 (the application
        /// would clamp silently, so anything else is refused). `confirm=True`: read back until
        /// the opacity is the value (within 0.005).
        #[pyo3(signature = (value, *, confirm=false))]
        fn set_opacity / set_opacity_async (this, py, value: &Bound<'_, PyAny>, confirm: bool) {
            let v = number(value, "value")?;
            let call = this.with(py, &ep::SET_LAYER_OPACITY, "value", v)?;
            Confirmable::new(call, confirm, || Expect::Opacity { layer: this.ident.clone(), value: v })
        }

        /// GET /blendMode/layer/{id}.
        fn blend_mode / blend_mode_async (this, py) { this.at(py, &ep::LAYER_BLEND_MODE)? }

        /// POST /blendMode/layer/{id} with {"value": name}: a name or a `BlendMode`.
        #[pyo3(signature = (name, *, confirm=false))]
        fn set_blend_mode / set_blend_mode_async (this, py, name: &Bound<'_, PyAny>, confirm: bool) {
            let v = text_or(name, "name", |m: &BlendMode| m.name.clone())?;
            let call = this.with(py, &ep::SET_LAYER_BLEND_MODE, "name", v.clone())?;
            Confirmable::new(call, confirm, || Expect::BlendMode { layer: this.ident.clone(), name: v })
        }

        /// GET /blend/layer/{id} (or /layerBlend/layer/{id} where /blend answers 404 or 405).
        fn blend / blend_async (this, py) { this.at(py, &ep::LAYER_BLEND)? }

        /// POST /blend/layer/{id} with {"type": ..., "base": {...}}: a `LayerBlend` or a
        /// dict, checked against the layer blend table (Standard: modeIndex, opacity, name;
        /// Alpha Matte and Luma Matte: isInverted; White Matte: nothing). Where /blend answers
        /// 404 or 405, /layerBlend/layer/{id} is used, and remembered by the client.
        #[pyo3(signature = (blend, *, confirm=false))]
        fn set_blend / set_blend_async (this, py, blend: &Bound<'_, PyAny>, confirm: bool) {
            let b = blend_arg(blend)?;
            let call = this.with(py, &ep::SET_LAYER_BLEND, "blend", b.clone())?;
            Confirmable::new(call, confirm, || Expect::Blend { layer: this.ident.clone(), blend: b })
        }

        /// GET /layerPreset/layer/{id}.
        fn presets / presets_async (this, py) { this.at(py, &ep::LAYER_LAYER_PRESETS)? }

        /// POST /layerPreset/layer/{id} with {"value": name}: a name or a `LayerPreset`.
        fn apply_preset / apply_preset_async (this, py, name: &Bound<'_, PyAny>) {
            let v = text_or(name, "name", |p: &LayerPreset| p.name.clone())?;
            this.with(py, &ep::APPLY_LAYER_PRESET, "name", v)?
        }

        /// GET /targetSet/layer/{id}: the layer's target set, or None.
        fn target_set / target_set_async (this, py) { this.at(py, &ep::LAYER_TARGET_SET)? }

        /// POST /targetSet/layer/{id} with {"value": name}; None sends no body (no target set).
        #[pyo3(signature = (name_or_none, *, confirm=false))]
        fn set_target_set / set_target_set_async (
            this, py, name_or_none: Option<&Bound<'_, PyAny>>, confirm: bool
        ) {
            let v = opt_text_or(name_or_none, "name_or_none", |t: &TargetSet| t.name.clone())?;
            let call = this.with(py, &ep::SET_LAYER_TARGET_SET, "name_or_none", v.clone())?;
            Confirmable::new(call, confirm, || Expect::TargetSet { layer: this.ident.clone(), name: v })
        }

        /// GET /effects/layer/{id}: the effects of the layer.
        fn effects / effects_async (this, py) { this.at(py, &ep::LAYER_EFFECTS)? }

        /// POST /effects/layer/{id} with {"effect": {...}}: an `Effect` or a dict with a "uuid".
        fn set_effect / set_effect_async (this, py, effect: &Bound<'_, PyAny>) {
            this.with(py, &ep::SET_LAYER_EFFECT, "effect", effect_arg(effect)?)?
        }

        /// GET /effectsPreset/layer/{id}: the layer's effects preset, or None.
        fn effect_preset / effect_preset_async (this, py) { this.at(py, &ep::LAYER_EFFECT_PRESET)? }

        /// POST /effectsPreset/layer/{id} with {"value": name} ({"value": null} for None).
        #[pyo3(signature = (name_or_none, *, confirm=false))]
        fn set_effect_preset / set_effect_preset_async (
            this, py, name_or_none: Option<&Bound<'_, PyAny>>, confirm: bool
        ) {
            let v = opt_text_or(name_or_none, "name_or_none", |p: &EffectPreset| p.name.clone())?;
            let call = this.with(py, &ep::SET_LAYER_EFFECT_PRESET, "name_or_none", v.clone())?;
            Confirmable::new(call, confirm, || Expect::EffectPreset {
                layer: Some(this.ident.clone()), name: v,
            })
        }

        /// GET /transition/layer/{id}: the layer's transition, or None (the master is used).
        fn transition / transition_async (this, py) { this.at(py, &ep::LAYER_TRANSITION)? }

        /// POST /transition/layer/{id} with {"value": uuid}: a `Transition` or its UUID; None
        /// sends {"value": null}, which returns the layer to the master transition.
        #[pyo3(signature = (transition_or_none, *, confirm=false))]
        fn set_transition / set_transition_async (
            this, py, transition_or_none: Option<&Bound<'_, PyAny>>, confirm: bool
        ) {
            let v = opt_text_or(transition_or_none, "transition_or_none", |t: &Transition| {
                t.uuid.clone()
            })?;
            let call = this.with(py, &ep::SET_LAYER_TRANSITION, "transition_or_none", v.clone())?;
            Confirmable::new(call, confirm, || Expect::Transition {
                layer: Some(this.ident.clone()), uuid: v,
            })
        }

        /// GET /transitionDuration/layer/{id}: seconds.
        fn transition_duration / transition_duration_async (this, py) {
            this.at(py, &ep::LAYER_TRANSITION_DURATION)?
        }

        /// POST /transitionDuration/layer/{id} with {"value": seconds}, 0.0 to 5.0.
        #[pyo3(signature = (seconds, *, confirm=false))]
        fn set_transition_duration / set_transition_duration_async (
            this, py, seconds: &Bound<'_, PyAny>, confirm: bool
        ) {
            let v = number(seconds, "seconds")?;
            let call = this.with(py, &ep::SET_LAYER_TRANSITION_DURATION, "seconds", v)?;
            Confirmable::new(call, confirm, || Expect::TransitionDuration {
                layer: Some(this.ident.clone()), seconds: v,
            })
        }

        /// GET /transportState/layer/{id}.
        fn transport_state / transport_state_async (this, py) {
            this.at(py, &ep::LAYER_TRANSPORT_STATE)?
        }

        /// Read the opacity, add `delta` (-1.0 to 1.0), clamp to 0.0–1.0 and set it; returns
        /// the value set. Two requests: another controller may change the opacity between
        /// them. `confirm=True`: read back until the new value shows.
        #[pyo3(signature = (delta, *, confirm=false))]
        fn adjust_opacity / adjust_opacity_async (this, py, delta: &Bound<'_, PyAny>, confirm: bool) {
            let delta = automation::delta(number(delta, "delta")?).py_err(py)?;
            let (client, layer) = (this.client.clone(), this.ident.clone());
            Work(async move { automation::adjust_opacity(&client, &layer, delta, confirm).await })
        }

        /// Fade the opacity from its current value to `to` (0.0–1.0) over `seconds`, in
        /// `steps` evenly spaced in time (20 a second when None, 50 a second at most); the
        /// last lands exactly on `to` at `seconds`. Steps the application answers too late
        /// for are skipped so the fade ends on time. Cancel with asyncio cancellation or
        /// Ctrl-C: the opacity stays where the fade was.
        #[pyo3(signature = (to, seconds, steps=None))]
        fn fade / fade_async (
            this, py, to: &Bound<'_, PyAny>, seconds: &Bound<'_, PyAny>, steps: Option<i64>
        ) {
            let plan = automation::Fade::new(number(to, "to")?, number(seconds, "seconds")?, steps)
                .py_err(py)?;
            let (client, layer) = (this.client.clone(), this.ident.clone());
            Work(async move { automation::fade(&client, &layer, plan).await })
        }

        /// POST /play/layer/{id} (observed in the field, 3.3+; not in the API document).
        fn play / play_async (this, py) { this.at(py, &ep::PLAY_LAYER)? }

        /// POST /pause/layer/{id} (observed in the field, 3.3+; not in the API document).
        fn pause / pause_async (this, py) { this.at(py, &ep::PAUSE_LAYER)? }

        /// Move the playhead (observed in the field, 3.3+; not in the API document): `seconds`
        /// ≥ 0 from the start (POST /goToStart/layer/{id}?offset=S), below 0 from the end
        /// (POST /goToEnd/layer/{id}?offset=|S|); -0.0 is the very end.
        fn go_to / go_to_async (this, py, seconds: &Bound<'_, PyAny>) {
            ep::go_to(&this.ident, number(seconds, "seconds")?).py_err(py)?
        }

        /// Skip forwards (seconds > 0) or backwards (seconds < 0) (observed in the field,
        /// 3.3+; not in the API document): POST /skip/layer/{id}?forwards=true|false&offset=|S|.
        fn skip / skip_async (this, py, seconds: &Bound<'_, PyAny>) {
            this.with(py, &ep::SKIP, "seconds", number(seconds, "seconds")?)?
        }
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

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let id = self.id(py)?;
        Ok(format!(
            "Layer(id={}, url='{}')",
            id.bind(py).repr()?,
            self.client.transport().base_url()
        ))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMediaPlayer>()?;
    m.add_class::<PyLayer>()?;
    m.add_class::<PyPlaylist>()?;
    m.add_class::<PyCue>()?;
    m.add_class::<PyMedia>()?;
    m.add_class::<PyLayerState>()?;
    m.add_class::<PyEffect>()?;
    m.add_class::<PyVariable>()?;
    m.add_class::<PyFloatBase>()?;
    m.add_class::<PyColorBase>()?;
    m.add_class::<PyEffectPreset>()?;
    m.add_class::<PyTransition>()?;
    m.add_class::<PyBlendMode>()?;
    m.add_class::<PyLayerBlend>()?;
    m.add_class::<PyLayerPreset>()?;
    m.add_class::<PyTargetSet>()?;
    m.add_class::<PyTransportState>()?;
    Ok(())
}
