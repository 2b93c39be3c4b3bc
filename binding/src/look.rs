//! `Look` and `LayerLook` (what `MediaPlayer.look()` reads and `apply()` puts back; the core's
//! `showctl::media::look` does both), their dict and file forms, and the replies of `look()` and
//! `apply()`.

use std::path::PathBuf;

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyType};
use serde_json::Value;

use super::command::PyCommand;
use super::convert::{json_to_py, py_to_json, Reply};
use showctl::media::builders::Confirmable;
use showctl::media::look::{LayerLook, Look};

/// The look of some layers of a workspace: for each layer its opacity, hidden, muted, layer
/// blend, target set, effects preset, transition (None: the master) and transition duration.
/// `not_read_back` names what the API does not report and the look leaves out (the layer
/// preset, the effects). Saves to and loads from JSON (`to_dict`, `from_dict`, `save`,
/// `load`); two looks with the same content are `==`.
#[pyclass(module = "showctl._core", name = "Look", frozen, eq)]
#[derive(PartialEq)]
pub struct PyLook {
    pub(crate) look: Look,
}

/// One layer's look (see `Look`).
#[pyclass(module = "showctl._core", name = "LayerLook", frozen, get_all)]
pub struct PyLayerLook {
    /// The layer's name, or None.
    name: Option<String>,
    /// The layer's UUID, or None (a look is applied to the layer with this UUID, else with
    /// this name).
    uuid: Option<String>,
    /// The layer's opacity, 0.0 to 1.0.
    opacity: f64,
    /// Whether the layer is hidden.
    hidden: bool,
    /// Whether the layer is muted.
    muted: bool,
    /// The layer blend `{"type": ..., "base": {...}}`, or None (left as it is).
    blend: Py<PyAny>,
    /// The target set's name, or None (no target set).
    target_set: Option<String>,
    /// The effects preset's name, or None (none).
    effect_preset: Option<String>,
    /// The transition `{"name": ..., "uuid": ...}`, or None (the master transition).
    transition: Py<PyAny>,
    /// The layer's transition duration in seconds.
    transition_duration: f64,
    /// A layer preset to apply first (never read back: only in a look written by hand).
    preset: Option<String>,
}

fn layer_look(py: Python<'_>, l: &LayerLook) -> PyResult<PyLayerLook> {
    let json = |v: Option<Value>| -> PyResult<Py<PyAny>> {
        Ok(json_to_py(py, &v.unwrap_or(Value::Null))?.unbind())
    };
    Ok(PyLayerLook {
        name: l.name.clone(),
        uuid: l.uuid.clone(),
        opacity: l.opacity,
        hidden: l.hidden,
        muted: l.muted,
        blend: json(l.blend.clone())?,
        target_set: l.target_set.clone(),
        effect_preset: l.effect_preset.clone(),
        transition: json(l.transition.as_ref().map(|t| serde_json::json!(t)))?,
        transition_duration: l.transition_duration,
        preset: l.preset.clone(),
    })
}

#[pymethods]
impl PyLayerLook {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        super::convert::repr_of(slf.as_any(), &["name", "opacity", "hidden", "muted"])
    }
}

#[pymethods]
impl PyLook {
    /// The layers' looks, in the order read.
    #[getter]
    fn layers(&self, py: Python<'_>) -> PyResult<Vec<PyLayerLook>> {
        self.look.layers.iter().map(|l| layer_look(py, l)).collect()
    }

    /// What the look leaves out because the API does not report it.
    #[getter]
    fn not_read_back(&self) -> Vec<String> {
        self.look.not_read_back.clone()
    }

    /// The look as a dict of JSON values (what `save` writes).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(json_to_py(py, &self.look.to_value())?.unbind())
    }

    /// A look from its dict (as `to_dict` gives it), checked: a refusal (`ValueError`) names
    /// the field.
    #[classmethod]
    fn from_dict(_cls: &Bound<'_, PyType>, d: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = py_to_json(d, "d")?;
        let look = Look::from_value(value).map_err(crate::errors::to_py)?;
        Ok(PyLook { look })
    }

    /// Write the look to `path` as JSON.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        let text = serde_json::to_string_pretty(&self.look.to_value())
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        std::fs::write(&path, text + "\n")
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))
    }

    /// A look read from the JSON file `path` (as `save` writes it), checked like `from_dict`.
    #[classmethod]
    fn load(_cls: &Bound<'_, PyType>, path: PathBuf) -> PyResult<Self> {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            pyo3::exceptions::PyValueError::new_err(format!("{}: not JSON: {e}", path.display()))
        })?;
        let look = Look::from_value(value).map_err(crate::errors::to_py)?;
        Ok(PyLook { look })
    }

    fn __repr__(&self) -> String {
        let names: Vec<String> = self
            .look
            .layers
            .iter()
            .map(|l| format!("{:?}", l.name.clone().unwrap_or_default()))
            .collect();
        format!("Look(layers=[{}])", names.join(", "))
    }
}

impl Reply for Look {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, PyLook { look: self })?.into_any())
    }
    fn py_type() -> String {
        "Look".into()
    }
}

/// The commands `apply()` sent.
pub(crate) struct Sent(pub Vec<Confirmable>);

impl Reply for Sent {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = self
            .0
            .into_iter()
            .map(|job| Py::new(py, PyCommand { job }))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any().unbind())
    }
    fn py_type() -> String {
        "list[Command]".into()
    }
}
