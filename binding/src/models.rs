//! The media model classes: typed read-only attributes, `to_dict()`, `from_dict()`, `==`, a
//! dataclass-like repr and pickling, each over its core model (`showctl::media::models`).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::{IntoPyObjectExt, PyClass};
use serde_json::Value;

use pyo3::types::{PyDict, PyList};

use super::convert::{html, json_to_py, Attr, Wrapped};
use showctl::media::*;

impl Attr for VariableBase {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            VariableBase::Float(b) => FloatBase::wrap(py, b.clone()),
            VariableBase::Color(b) => ColorBase::wrap(py, b.clone()),
            VariableBase::Other(v) => Ok(json_to_py(py, v)?.unbind()),
        }
    }
    fn py_type() -> String {
        "FloatBase | ColorBase | dict[str, Any] | None".into()
    }
}

/// `to_dict(mode="python")` of a model: its attributes by name, each as `python_value` gives it.
pub(crate) fn python_dict(obj: &Bound<'_, PyAny>, fields: &[&str]) -> PyResult<Py<PyAny>> {
    let py = obj.py();
    let out = PyDict::new(py);
    for field in fields {
        let name = field.trim_start_matches("r#");
        out.set_item(name, python_value(&obj.getattr(name)?)?)?;
    }
    Ok(out.into_any().unbind())
}

/// An attribute's value for `to_dict(mode="python")`: a model becomes its own Python dict, a
/// list is converted item by item, anything else (None, numbers, text, a dict as sent) stays.
fn python_value(v: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let py = v.py();
    if let Ok(list) = v.cast::<PyList>() {
        let items = list
            .iter()
            .map(|item| python_value(&item))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(PyList::new(py, items)?.into_any().unbind());
    }
    if v.is_instance_of::<PyDict>() || !v.hasattr("to_dict")? {
        return Ok(v.clone().unbind());
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("mode", "python")?;
    Ok(v.call_method("to_dict", (), Some(&kwargs))?.unbind())
}

/// A model class: the core model it holds, which its `to_dict()`, `==`, hash and pickling are of.
pub(crate) trait ModelClass: PyClass<Frozen = True> + Sync {
    type Core: Model;
    fn model(&self) -> &Self::Core;
    /// The class holding `inner` (what `from_dict` and a reply make).
    fn of_model(py: Python<'_>, inner: Arc<Self::Core>) -> PyResult<Self>;
}

/// `to_dict(mode)` of a model class whose attributes are `fields`.
pub(crate) fn to_dict<C: ModelClass>(
    slf: &Bound<'_, C>,
    mode: &str,
    fields: &[&str],
) -> PyResult<Py<PyAny>> {
    if super::convert::python_mode(mode)? {
        return python_dict(slf.as_any(), fields);
    }
    let raw = Value::Object(slf.get().model().raw().clone());
    Ok(json_to_py(slf.py(), &raw)?.unbind())
}

/// `==` of a frozen class: `same` of both, `NotImplemented` for another class.
pub(crate) fn eq<C: PyClass<Frozen = True> + Sync>(
    slf: &C,
    other: &Bound<'_, PyAny>,
    same: impl FnOnce(&C, &C) -> bool,
) -> PyResult<Py<PyAny>> {
    let py = other.py();
    match other.cast::<C>() {
        Ok(o) => same(slf, o.get()).into_py_any(py),
        Err(_) => Ok(py.NotImplemented()),
    }
}

/// Whether two model classes hold the same JSON object.
pub(crate) fn same<C: ModelClass>(a: &C, b: &C) -> bool {
    a.model().raw() == b.model().raw()
}

/// `__reduce__`: rebuilt by `from_dict` from the JSON object.
pub(crate) fn reduce<'py, C: ModelClass>(
    slf: &Bound<'py, C>,
) -> PyResult<(Bound<'py, PyAny>, (Py<PyAny>,))> {
    let from_dict = slf.as_any().get_type().getattr("from_dict")?;
    Ok((from_dict, (to_dict(slf, "wire", &[])?,)))
}

/// A model class as data: its Python name and its fields with their stub types.
pub(crate) type ModelInfo = (&'static str, Vec<(&'static str, String)>);

/// How a `pymodel!` class describes itself, for [`_models`] (each class submits one).
pub(crate) struct Described(fn() -> ModelInfo);
inventory::collect!(Described);

/// A model class: typed read-only attributes, `to_dict()`, `from_dict()`, `==`, a
/// dataclass-like repr, pickling, and in Jupyter the view of `showctl._html` it is `shown by`.
/// `@common` makes what a class written by hand (the playlist tree's, over a [`ModelClass`]
/// impl) shares with these: the core model's [`Wrapped`], `FIELDS`, `from_dict()`, `==`, the
/// hash, the repr, `to_dict()` and pickling (these two with the docs given).
macro_rules! pymodel {
    (
        $(#[$doc:meta])*
        $py:ident($name:literal) wraps $core:ident $(listed as $list:literal)?
        $(shown by $html:literal)? [$($field:ident),* $(,)?]
    ) => {
        $(#[$doc])*
        #[pyclass(module = "showctl._core", name = $name, frozen)]
        pub struct $py {
            pub inner: Arc<$core>,
        }

        inventory::submit! {
            Described(|| (
                $name,
                vec![$((
                    stringify!($field).trim_start_matches("r#"),
                    $crate::convert::field_type(|m: &$core| &m.$field),
                )),*],
            ))
        }

        impl ModelClass for $py {
            type Core = $core;
            fn model(&self) -> &$core {
                &self.inner
            }
            fn of_model(_py: Python<'_>, inner: Arc<$core>) -> PyResult<Self> {
                Ok($py { inner })
            }
        }

        $crate::models::pymodel!(@common $py wraps $core $(listed as $list)? [$($field),*]
            to_dict:
            /// The JSON object as the application sent it (`mode="wire"`: wire names, unknown
            /// fields kept), or the attributes by name with their Python values
            /// (`mode="python"`: `None` for a `"null"` UUID, nested models as such dicts).
            reduce:
            /// Pickled as its JSON object.
        );

        #[pymethods]
        impl $py {
            $(
                #[doc = concat!(
                    "The `", stringify!($field), "` field of the ", $name, " (None when absent)."
                )]
                #[getter]
                fn $field(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    self.inner.$field.attr(py)
                }
            )*

            $(
                /// An HTML table of the fields, for Jupyter.
                fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
                    html(slf.as_any(), $html)
                }
            )?

        }
    };
    (
        @common $py:ident wraps $core:ident $(listed as $list:literal)? [$($field:ident),*]
        to_dict: $(#[$to_dict:meta])* reduce: $(#[$reduce:meta])*
    ) => {
        impl $crate::convert::Wrapped for $core {
            type Class = $py;
            $(const LIST_CLASS: Option<&'static str> = Some($list);)?
            fn wrap(py: Python<'_>, inner: std::sync::Arc<Self>) -> PyResult<Py<PyAny>> {
                let class = <$py as $crate::models::ModelClass>::of_model(py, inner)?;
                Ok(Py::new(py, class)?.into_any())
            }
            fn of(class: &$py) -> &Self {
                $crate::models::ModelClass::model(class)
            }
        }

        impl $py {
            /// The attributes `repr()` and `to_dict(mode="python")` show, in order.
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];
        }

        #[pymethods]
        impl $py {
            /// Read one from a dict shaped like the application's JSON.
            #[classmethod]
            fn from_dict(
                cls: &Bound<'_, pyo3::types::PyType>,
                data: &Bound<'_, PyAny>,
            ) -> PyResult<Self> {
                let core = $crate::convert::model_from_py::<$core>(data)?;
                <Self as $crate::models::ModelClass>::of_model(cls.py(), core.into())
            }

            /// Equal when the JSON objects are equal.
            fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                $crate::models::eq(self, other, $crate::models::same)
            }

            /// The hash of the JSON object `==` compares.
            fn __hash__(&self) -> u64 {
                let model = $crate::models::ModelClass::model(self);
                ::showctl::json::hash_object(::showctl::media::Model::raw(model))
            }

            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                $crate::convert::repr_of(slf.as_any(), Self::FIELDS)
            }

            $(#[$to_dict])*
            #[pyo3(signature = (mode = "wire"))]
            fn to_dict(slf: &Bound<'_, Self>, mode: &str) -> PyResult<Py<PyAny>> {
                $crate::models::to_dict(slf, mode, Self::FIELDS)
            }

            $(#[$reduce])*
            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, PyAny>, (Py<PyAny>,))> {
                $crate::models::reduce(slf)
            }
        }
    };
}
pub(crate) use pymodel;

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
    PyLayerState("LayerState") wraps LayerState shown by "layer_state_html" [
        uuid, name, is_hidden, is_muted, opacity, effects, effect_preset_uuid, target_set_uuid,
        transition_duration, transition,
    ]
}

pymodel! {
    /// The transport state of a layer.
    PyTransportState("TransportState") wraps TransportState listed as "TransportList"
    shown by "transport_state_html" [
        time_elapsed, time_remaining, playback_rate, is_playing, is_scrubbing, playing_item,
        playing_media, layer,
    ]
}

/// The media model classes made here as data (name, fields and their stub types), for the
/// stub generator.
#[pyfunction]
pub(crate) fn _models(py: Python<'_>) -> PyResult<Py<PyList>> {
    let mut all: Vec<ModelInfo> = inventory::iter::<Described>().map(|d| (d.0)()).collect();
    all.sort_by_key(|(name, _)| *name); // (the link order is no order)
    Ok(PyList::new(py, all)?.unbind())
}
