//! The media model classes: typed read-only attributes, `to_dict()`, `from_dict()`, `==`, a
//! dataclass-like repr and pickling, each over its core model (`crate::media::models`).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::IntoPyObjectExt;
use serde_json::Value;

use pyo3::types::PyList;

use super::convert::{dataclass_repr, html, json_to_py, model_from_py, Attr, Wrapped};
use crate::media::*;

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

/// A model class as data: its Python name and its fields with their stub types.
pub(crate) type ModelInfo = (&'static str, Vec<(&'static str, String)>);

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

        impl $py {
            /// This class as data, for the stub generator.
            pub(crate) fn describe() -> ModelInfo {
                (
                    $name,
                    vec![$((
                        stringify!($field).trim_start_matches("r#"),
                        $crate::python::convert::field_type(|m: &$core| &m.$field),
                    )),*],
                )
            }
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
                #[doc = concat!("The `", stringify!($field), "` field of the ", $name, " (None when absent).")]
                #[getter]
                fn $field(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                    self.inner.$field.attr(py)
                }
            )*

            /// The JSON object as the application sent it (wire names, unknown fields kept).
            fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                Ok(json_to_py(py, &Value::Object(self.inner.raw().clone()))?.unbind())
            }

            /// Read one from a dict shaped like the application's JSON.
            #[classmethod]
            fn from_dict(_cls: &Bound<'_, PyType>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
                Ok($py { inner: Arc::new(model_from_py::<$core>(data)?) })
            }

            /// Equal when the JSON objects are equal.
            fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let py = other.py();
                match other.cast::<$py>() {
                    Ok(o) => (self.inner.raw() == o.get().inner.raw()).into_py_any(py),
                    Err(_) => Ok(py.NotImplemented()),
                }
            }

            /// The hash of the JSON object `==` compares.
            fn __hash__(&self) -> u64 {
                crate::json::hash_object(self.inner.raw())
            }

            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                dataclass_repr(py, $name, &[$((stringify!($field), self.inner.$field.attr(py)?)),*])
            }

            /// Pickled as its JSON object.
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
        /// An HTML table of the fields, for Jupyter.
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
        /// An HTML table of the fields, for Jupyter.
        fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
            html(slf.as_any(), "transport_state_html")
        }
    }
}

/// The media model classes made here as data (name, fields and their stub types), for the
/// stub generator.
#[pyfunction]
pub(crate) fn _models(py: Python<'_>) -> PyResult<Py<PyList>> {
    let all = [
        PyMedia::describe(),
        PyFloatBase::describe(),
        PyColorBase::describe(),
        PyVariable::describe(),
        PyEffect::describe(),
        PyTransition::describe(),
        PyEffectPreset::describe(),
        PyBlendMode::describe(),
        PyLayerBlend::describe(),
        PyLayerPreset::describe(),
        PyTargetSet::describe(),
        PyLayerState::describe(),
        PyTransportState::describe(),
    ];
    Ok(PyList::new(py, all)?.unbind())
}
