//! JSON values to Python objects and back, within the core's nesting limit
//! ([`MAX_DEPTH`](crate::json::MAX_DEPTH)).
//!
//! Both directions recurse once per level of nesting, and each level is counted before it is
//! entered: a value nested deeper (a list nested 20,000 deep, a list that holds itself) is a
//! `ValueError`, never a stack overflow, on any thread. The recursive functions handle only
//! the containers, so their frames stay small (the limit is met far within a 512 KiB stack).
//! pythonize, used before, recursed without a limit and took no numpy integers.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMapping, PySequence, PyString,
    PyTuple,
};
use pyo3::IntoPyObjectExt;
use serde_json::{Map, Number, Value};

use crate::json::{too_deep, MAX_DEPTH};
use crate::python::args::{as_index, is_real, type_name};

/// `__hash__` of a class whose `==` compares `data`.
pub fn hash_of<T: std::hash::Hash + ?Sized>(data: &T) -> u64 {
    use std::hash::Hasher;
    let mut h = std::hash::DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}

// ---------------------------------------------------------------------------------------------
// JSON to Python
// ---------------------------------------------------------------------------------------------

/// A JSON value as Python objects: `dict`, `list`, `str`, `int`, `float`, `bool` and `None`.
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, v, 0)
}

fn to_py<'py>(py: Python<'py>, v: &Value, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Value::Array(a) => {
            let depth = enter(depth).map_err(|_| PyValueError::new_err(too_deep()))?;
            let list = PyList::empty(py);
            for item in a {
                list.append(to_py(py, item, depth)?)?;
            }
            Ok(list.into_any())
        }
        Value::Object(o) => {
            let depth = enter(depth).map_err(|_| PyValueError::new_err(too_deep()))?;
            let dict = PyDict::new(py);
            for (k, item) in o {
                dict.set_item(k, to_py(py, item, depth)?)?;
            }
            Ok(dict.into_any())
        }
        scalar => scalar_to_py(py, scalar),
    }
}

fn scalar_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py),
            (None, Some(u)) => u.into_bound_py_any(py),
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py),
        },
        Value::String(s) => s.into_bound_py_any(py),
        _ => Ok(py.None().into_bound(py)),
    }
}

/// The depth inside one more array or object, or `Err` past the limit.
fn enter(depth: usize) -> Result<usize, ()> {
    if depth >= MAX_DEPTH {
        return Err(());
    }
    Ok(depth + 1)
}

// ---------------------------------------------------------------------------------------------
// Python to JSON
// ---------------------------------------------------------------------------------------------

/// A Python value to send as JSON, for argument `arg`: `None`, `bool`, `int` (and any integer
/// with `__index__`, such as numpy's), `float` (finite; any `numbers.Real`), `str`, and `list`,
/// `tuple`, `dict` (str keys) or any other sequence or mapping of these, nested at most
/// [`MAX_DEPTH`] deep. Anything else is refused, naming the argument and where in it.
pub fn py_to_json(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Value> {
    to_json(obj, 0).map_err(|r| r.into_err(arg))
}

/// Why a value cannot be sent, and where: `path` is collected innermost first.
struct Refusal {
    path: Vec<String>,
    why: Why,
}

enum Why {
    TooDeep,
    NotJson(String),
    Key(String),
    NotFinite(f64),
    IntRange,
    Python(PyErr),
}

type Conv<T> = Result<T, Box<Refusal>>;

impl Refusal {
    fn new(why: Why) -> Box<Self> {
        Box::new(Refusal {
            path: Vec::new(),
            why,
        })
    }

    fn into_err(self, arg: &str) -> PyErr {
        let at = self.path.iter().rev().fold(arg.to_string(), |a, p| a + p);
        match self.why {
            Why::TooDeep => PyValueError::new_err(format!("{arg}: {}", too_deep())),
            Why::NotJson(kind) => PyTypeError::new_err(format!(
                "{at}: a {kind} cannot be sent as JSON (send None, bool, int, float, str, \
                 list, tuple or dict)"
            )),
            Why::Key(kind) => {
                PyTypeError::new_err(format!("{at}: JSON object keys are str, got a {kind} key"))
            }
            Why::NotFinite(f) => PyValueError::new_err(format!("{at}: {f} cannot be sent as JSON")),
            Why::IntRange => PyValueError::new_err(format!(
                "{at}: the int cannot be sent as JSON (-2**63 to 2**64-1)"
            )),
            Why::Python(e) => e,
        }
    }
}

impl From<PyErr> for Box<Refusal> {
    fn from(e: PyErr) -> Self {
        Refusal::new(Why::Python(e))
    }
}

/// Add a step of the path to a refusal from inside a container.
fn at<T>(r: Conv<T>, step: impl FnOnce() -> String) -> Conv<T> {
    r.map_err(|mut e| {
        e.path.push(step());
        e
    })
}

fn to_json(obj: &Bound<'_, PyAny>, depth: usize) -> Conv<Value> {
    if let Ok(d) = obj.cast::<PyDict>() {
        return object(&d.items(), depth);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return array(obj, depth);
    }
    if let Some(v) = scalar(obj)? {
        return Ok(v);
    }
    if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
        return Err(Refusal::new(Why::NotJson(type_name(obj))));
    }
    if let Ok(m) = obj.cast::<PyMapping>() {
        return object(&m.items()?, depth);
    }
    if obj.cast::<PySequence>().is_ok() {
        return array(obj, depth);
    }
    Err(Refusal::new(Why::NotJson(type_name(obj))))
}

/// A list, tuple or other sequence (iterated, so a list changed meanwhile is no danger).
fn array(obj: &Bound<'_, PyAny>, depth: usize) -> Conv<Value> {
    let depth = enter(depth).map_err(|()| Refusal::new(Why::TooDeep))?;
    let mut out = Vec::with_capacity(obj.len().unwrap_or(0));
    for (i, item) in obj.try_iter()?.enumerate() {
        out.push(at(to_json(&item?, depth), || format!("[{i}]"))?);
    }
    Ok(Value::Array(out))
}

/// The `(key, value)` pairs of a dict or mapping (a list taken first, so a dict changed
/// meanwhile is no danger either).
fn object(items: &Bound<'_, PyList>, depth: usize) -> Conv<Value> {
    let depth = enter(depth).map_err(|()| Refusal::new(Why::TooDeep))?;
    let mut out = Map::with_capacity(items.len());
    for pair in items.iter() {
        let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract()?;
        let Ok(key) = key.cast::<PyString>() else {
            return Err(Refusal::new(Why::Key(type_name(&key))));
        };
        let key = key.to_cow()?.into_owned();
        let value = at(to_json(&value, depth), || format!("[{key:?}]"))?;
        out.insert(key, value);
    }
    Ok(Value::Object(out))
}

/// A JSON scalar, or `None` when `obj` is not one.
fn scalar(obj: &Bound<'_, PyAny>) -> Conv<Option<Value>> {
    if obj.is_none() {
        return Ok(Some(Value::Null));
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Some(Value::Bool(b.is_true())));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Some(Value::String(s.to_cow()?.into_owned())));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return finite(f.value()).map(Some);
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return int(i).map(Some);
    }
    if let Some(i) = as_index(obj)? {
        return int(&i).map(Some);
    }
    if is_real(obj)? {
        return finite(obj.extract::<f64>()?).map(Some);
    }
    Ok(None)
}

fn int(i: &Bound<'_, PyInt>) -> Conv<Value> {
    if let Ok(v) = i.extract::<i64>() {
        return Ok(Value::from(v));
    }
    match i.extract::<u64>() {
        Ok(v) => Ok(Value::from(v)),
        Err(_) => Err(Refusal::new(Why::IntRange)),
    }
}

fn finite(f: f64) -> Conv<Value> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| Refusal::new(Why::NotFinite(f)))
}
