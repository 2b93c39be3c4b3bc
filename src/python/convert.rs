//! The conversion toolbox of the binding: JSON to and from Python, the traits that turn core
//! models ([`Wrapped`], [`Attr`]) and replies ([`Reply`]) into Python objects, and the
//! dataclass-like repr. It knows no class of its own.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::types::{PyDict, PyFloat, PyList, PyTuple};
use pyo3::{IntoPyObjectExt, PyClass};
use serde_json::Value;

use crate::media::{LayerList, Model};

pub(crate) fn json_to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
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

pub(crate) fn py_to_json(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Value> {
    finite_only(obj, arg)?;
    pythonize::depythonize(obj)
        .map_err(|e| PyValueError::new_err(format!("{arg}: cannot be sent as JSON: {e}")))
}

/// The name of the class of `obj` (for refusals).
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

/// A core model and its Python class.
pub(crate) trait Wrapped: Model {
    type Class: PyClass<Frozen = True> + Sync;
    fn wrap(py: Python<'_>, inner: Arc<Self>) -> PyResult<Py<PyAny>>;
    fn of(class: &Self::Class) -> &Self;
}

/// A typed field of a model as a Python value, and its type as written in the stubs.
pub(crate) trait Attr {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>>;
    fn py_type() -> String
    where
        Self: Sized;
}

/// The stub type of the field `pick` reads (`field_type(|m: &Model| &m.field)`).
pub(crate) fn field_type<M, T: Attr>(_pick: fn(&M) -> &T) -> String {
    T::py_type()
}

macro_rules! plain_attr {
    ($($t:ty => $py:literal),*) => {$(
        impl Attr for $t {
            fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                self.clone().into_py_any(py)
            }
            fn py_type() -> String {
                $py.into()
            }
        }
    )*};
}
plain_attr!(
    Option<String> => "str | None",
    Option<f64> => "float | None",
    Option<bool> => "bool | None",
    Option<i64> => "int | None"
);

impl Attr for Value {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_to_py(py, self)
    }
    fn py_type() -> String {
        "dict[str, Any] | None".into()
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
    fn py_type() -> String {
        format!("list[{}]", X::NAME)
    }
}

impl<X: Wrapped> Attr for Option<Arc<X>> {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Some(x) => X::wrap(py, x.clone()),
            None => Ok(py.None()),
        }
    }
    fn py_type() -> String {
        format!("{} | None", X::NAME)
    }
}

/// What a call returns, as a Python value, and its type as written in the stubs.
pub(crate) trait Reply: Send + 'static {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
    fn py_type() -> String {
        "Any".into()
    }
}

impl Reply for () {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py.None())
    }
    fn py_type() -> String {
        "None".into()
    }
}

impl Reply for f64 {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.into_py_any(py)
    }
    fn py_type() -> String {
        "float".into()
    }
}

impl Reply for String {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.into_py_any(py)
    }
    fn py_type() -> String {
        "str".into()
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
    fn py_type() -> String {
        "LayerList".into()
    }
}

// A model, an optional model and a list of models, as their classes.
impl<M: Wrapped + Send + 'static> Reply for M {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Self::wrap(py, Arc::new(self))
    }
    fn py_type() -> String {
        M::NAME.into()
    }
}

impl<M: Wrapped + Send + 'static> Reply for Option<M> {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.map(Arc::new).attr(py)
    }
    fn py_type() -> String {
        format!("{} | None", M::NAME)
    }
}

impl<M: Wrapped + Send + Sync + 'static> Reply for Vec<Arc<M>> {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.attr(py)
    }
    fn py_type() -> String {
        format!("list[{}]", M::NAME)
    }
}

impl<M: Wrapped + Send + Sync + 'static> Reply for Arc<M> {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        M::wrap(py, self)
    }
    fn py_type() -> String {
        M::NAME.into()
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
pub(crate) fn dataclass_repr(
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
