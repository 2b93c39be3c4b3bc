//! The conversion toolbox of the binding: JSON to and from Python within the core's nesting
//! limit ([`MAX_DEPTH`](showctl::json::MAX_DEPTH)), the traits that turn core models
//! ([`Wrapped`], [`Attr`]) and replies ([`Reply`]) into Python objects, and the
//! dataclass-like repr. It knows no class of its own.
//!
//! Neither direction recurses: the open arrays and objects are kept on a heap stack (the core's
//! [`build`]), so the conversion takes the same few hundred bytes of thread stack at any depth.
//! Each level is counted before it is opened: a value nested deeper than the limit (a list
//! nested 20,000 deep, a list that holds itself) is a `ValueError`, on any thread. pythonize, used before,
//! recursed without a limit (a stack overflow, the interpreter killed) and took no numpy
//! integers. Measured again behind iterative depth checks (pythonize 0.29), it was slower
//! both ways or level with this code, and reading Python it would need a walk of its own for
//! what it does not refuse (NaN, sets, dataclasses): see
//! docs/decisions/0010-json-converter-not-pythonize.md.

use std::marker::PhantomData;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyIterator, PyList, PyMapping,
    PySequence, PyString, PyTuple,
};
use pyo3::{IntoPyObjectExt, PyClass};
use serde_json::{Map, Number, Value};

pub use showctl::json::hash_of;
use showctl::json::{build, too_deep, Builder, Unsendable};
use showctl::media::{LayerList, Model};

/// The name of an object's type, for messages (`int`, `numpy.int64` shows as `int64`).
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

/// The `TypeError` of argument `arg`: what was expected, and the type of what came (`obj`).
pub fn expected(arg: &str, what: &str, obj: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!("{arg}: expected {what}, got {}", type_name(obj)))
}

static INDEX: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static REAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `operator.index(obj)` for an object that is not an `int` but has `__index__` (numpy's
/// integers): the int, or `None` when it has none or refuses (numpy's bool does).
pub fn as_index<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyInt>>> {
    let py = obj.py();
    if obj.is_instance_of::<PyBool>() || !obj.get_type().hasattr(intern!(py, "__index__"))? {
        return Ok(None);
    }
    let index = INDEX.import(py, "operator", "index")?;
    match index.call1((obj,)) {
        Ok(i) => Ok(Some(i.cast_into::<PyInt>()?)),
        Err(e) if e.is_instance_of::<PyTypeError>(py) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `isinstance(obj, numbers.Real)`: numpy's floats and ints, `fractions.Fraction`; not numpy's
/// bool, which is no number.
pub fn is_real(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let real = REAL.import(obj.py(), "numbers", "Real")?;
    obj.is_instance(real)
}

// ---------------------------------------------------------------------------------------------
// JSON to Python
// ---------------------------------------------------------------------------------------------

/// An array or object being built: the rest of its items, and what is built so far.
enum OpenPy<'a, 'py> {
    List(std::slice::Iter<'a, Value>, Bound<'py, PyList>),
    Dict(
        serde_json::map::Iter<'a>,
        Bound<'py, PyDict>,
        Option<&'a str>,
    ),
}

/// Python objects from a JSON value.
struct ToPy<'a, 'py>(Python<'py>, PhantomData<&'a Value>);

/// A JSON value as Python objects: `dict`, `list`, `str`, `int`, `float`, `bool` and `None`.
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    build(&mut ToPy(py, PhantomData), v, &mut Vec::new())
}

impl<'a, 'py> Builder for ToPy<'a, 'py> {
    type Node = &'a Value;
    type Open = OpenPy<'a, 'py>;
    type Out = Bound<'py, PyAny>;
    type Error = PyErr;

    fn leaf(&mut self, v: &&'a Value) -> PyResult<Option<Self::Out>> {
        match v {
            Value::Array(_) | Value::Object(_) => Ok(None),
            scalar => scalar_to_py(self.0, scalar).map(Some),
        }
    }
    fn open(&mut self, v: &'a Value) -> PyResult<Self::Open> {
        Ok(match v {
            Value::Object(o) => OpenPy::Dict(o.iter(), PyDict::new(self.0), None),
            other => OpenPy::List(
                other.as_array().map_or(<&[Value]>::default(), |a| a).iter(),
                PyList::empty(self.0),
            ),
        })
    }
    fn next(
        &mut self,
        open: &mut Self::Open,
        done: Option<Self::Out>,
    ) -> PyResult<Option<&'a Value>> {
        Ok(match open {
            OpenPy::List(items, list) => {
                if let Some(v) = done {
                    list.append(v)?;
                }
                items.next()
            }
            OpenPy::Dict(items, dict, key) => {
                if let (Some(v), Some(k)) = (done, key.take()) {
                    dict.set_item(k, v)?;
                }
                items.next().map(|(k, v)| {
                    *key = Some(k.as_str());
                    v
                })
            }
        })
    }
    fn close(&mut self, open: Self::Open) -> Self::Out {
        match open {
            OpenPy::List(_, list) => list.into_any(),
            OpenPy::Dict(_, dict, _) => dict.into_any(),
        }
    }
    fn too_deep(&self) -> PyErr {
        PyValueError::new_err(too_deep())
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

// ---------------------------------------------------------------------------------------------
// Python to JSON
// ---------------------------------------------------------------------------------------------

/// An array or object being read: the rest of its items, where it is, and what is read so far.
enum Open<'py> {
    Array(Bound<'py, PyIterator>, usize, Vec<Value>),
    /// The `(key, value)` pairs (a list taken first, so a dict changed meanwhile is no danger)
    /// and the next one's index.
    Object(Bound<'py, PyList>, usize, Map<String, Value>, String),
}

/// Why a value cannot be sent, or the error of Python met on the way.
type Why = Unsendable<PyErr>;

/// A Python value to send as JSON, for argument `arg`: `None`, `bool`, `int` (and any integer
/// with `__index__`, such as numpy's), `float` (finite; any `numbers.Real`), `str`, and `list`,
/// `tuple`, `dict` (str keys) or any other sequence or mapping of these, nested at most
/// [`MAX_DEPTH`](showctl::json::MAX_DEPTH) deep. Anything else is refused, naming the argument
/// and where in it.
pub fn py_to_json(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Value> {
    let mut open: Vec<Open<'_>> = Vec::new();
    build(&mut ToJson(obj.py()), obj.clone(), &mut open).map_err(|why| refusal(arg, &open, why))
}

/// JSON from Python objects.
struct ToJson<'py>(Python<'py>);

impl<'py> Builder for ToJson<'py> {
    type Node = Bound<'py, PyAny>;
    type Open = Open<'py>;
    type Out = Value;
    type Error = Why;

    fn leaf(&mut self, obj: &Self::Node) -> Result<Option<Value>, Why> {
        scalar(obj)
    }
    fn open(&mut self, obj: Self::Node) -> Result<Open<'py>, Why> {
        container(&obj)
    }
    fn next(
        &mut self,
        open: &mut Open<'py>,
        done: Option<Value>,
    ) -> Result<Option<Self::Node>, Why> {
        Ok(match open {
            Open::Array(items, index, out) => {
                if let Some(v) = done {
                    out.push(v);
                    *index += 1;
                }
                items.next().transpose()?
            }
            Open::Object(items, index, out, key) => {
                if let Some(v) = done {
                    out.insert(std::mem::take(key), v);
                    *index += 1;
                }
                let Ok(pair) = items.get_item(*index) else {
                    return Ok(None);
                };
                let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = pair.extract()?;
                let Ok(k) = k.cast::<PyString>() else {
                    return Err(Why::Key(type_name(&k)));
                };
                *key = k.to_cow()?.into_owned();
                Some(v)
            }
        })
    }
    fn close(&mut self, open: Open<'py>) -> Value {
        match open {
            Open::Array(_, _, out) => Value::Array(out),
            Open::Object(_, _, out, _) => Value::Object(out),
        }
    }
    fn too_deep(&self) -> Why {
        Why::TooDeep
    }
}

/// Open a dict, list, tuple, or other mapping or sequence (not a text or bytes).
fn container<'py>(obj: &Bound<'py, PyAny>) -> Result<Open<'py>, Why> {
    let not_json = || Why::NotJson(type_name(obj));
    if let Ok(d) = obj.cast::<PyDict>() {
        return Ok(Open::Object(d.items(), 0, Map::new(), String::new()));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return Ok(Open::Array(obj.try_iter()?, 0, Vec::new()));
    }
    if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
        return Err(not_json());
    }
    if let Ok(m) = obj.cast::<PyMapping>() {
        return Ok(Open::Object(m.items()?, 0, Map::new(), String::new()));
    }
    if obj.cast::<PySequence>().is_ok() {
        return Ok(Open::Array(obj.try_iter()?, 0, Vec::new()));
    }
    Err(not_json())
}

/// The error for argument `arg`, naming where in it (from the containers still open).
fn refusal(arg: &str, open: &[Open<'_>], why: Why) -> PyErr {
    if let Why::Other(e) = why {
        return e;
    }
    // A bad key is the innermost object's own fault; anything else is at its item.
    let open = match why {
        Why::Key(_) => &open[..open.len().saturating_sub(1)],
        _ => open,
    };
    let at = open.iter().fold(arg.to_string(), |at, o| match o {
        Open::Array(_, index, _) => format!("{at}[{index}]"),
        Open::Object(_, _, _, key) => format!("{at}[{key:?}]"),
    });
    let message = why.message(arg, &at);
    if why.is_type() {
        return PyTypeError::new_err(message);
    }
    PyValueError::new_err(message)
}

/// A JSON scalar, or `None` when `obj` is not one.
fn scalar(obj: &Bound<'_, PyAny>) -> Result<Option<Value>, Why> {
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
    // The usual containers, before the slower checks of other numbers.
    if obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
    {
        return Ok(None);
    }
    // numpy's bool (`np.True_`) is JSON's `true`, as a bool is: before `__index__`, which
    // numpy 1.x and 2.0 give it (it went out as 1) and later numpys refuse.
    if let Ok(b) = obj.extract::<bool>() {
        return Ok(Some(Value::Bool(b)));
    }
    if let Some(i) = as_index(obj)? {
        return int(&i).map(Some);
    }
    if is_real(obj)? {
        return finite(obj.extract::<f64>()?).map(Some);
    }
    Ok(None)
}

fn int(i: &Bound<'_, PyInt>) -> Result<Value, Why> {
    if let Ok(v) = i.extract::<i64>() {
        return Ok(Value::from(v));
    }
    i.extract::<u64>()
        .map(Value::from)
        .map_err(|_| Why::IntRange)
}

fn finite(f: f64) -> Result<Value, Why> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or(Why::NotFinite(f))
}

/// Any serializable core value (a report, a view) as plain Python objects, through its JSON.
pub fn serialize_to_py<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let value = serde_json::to_value(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(json_to_py(py, &value)?.unbind())
}

/// `v` as the frozen dataclass `class` of the Python module `module`, made by its `from_dict`
/// from `v`'s serialized form (the reports: `ProbeReport`, `VenueReport`).
pub(crate) fn report_to_py<T: serde::Serialize>(
    py: Python<'_>,
    v: &T,
    module: &str,
    class: &str,
) -> PyResult<Py<PyAny>> {
    let data = serialize_to_py(py, v)?;
    let class = py.import(module)?.getattr(class)?;
    Ok(class.call_method1("from_dict", (data,))?.unbind())
}

/// A core model and its Python class.
pub(crate) trait Wrapped: Model {
    type Class: PyClass<Frozen = True> + Sync;
    /// The `showctl._lists` list class a call's list of these comes in (a `list` subclass with
    /// a Jupyter display), or `None` for a plain `list`.
    const LIST_CLASS: Option<&'static str> = None;
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

/// A plain field type (text, number, flag) and its name in the stubs.
pub(crate) trait Scalar: Clone + for<'py> IntoPyObject<'py> {
    const PY_TYPE: &'static str;
}

impl Scalar for String {
    const PY_TYPE: &'static str = "str";
}

impl Scalar for f64 {
    const PY_TYPE: &'static str = "float";
}

impl Scalar for bool {
    const PY_TYPE: &'static str = "bool";
}

impl Scalar for i64 {
    const PY_TYPE: &'static str = "int";
}

impl<T: Scalar> Attr for Option<T> {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.clone().into_py_any(py)
    }
    fn py_type() -> String {
        format!("{} | None", T::PY_TYPE)
    }
}

impl Attr for Value {
    fn attr(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(json_to_py(py, self)?.unbind())
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
            Some(v) => Ok(json_to_py(py, &v)?.unbind()),
            None => Ok(py.None()),
        }
    }
}

/// `items` as an instance of the `showctl._lists` class `class` (a `list` subclass with a
/// Jupyter display), or as they are for `None`.
fn listed(py: Python<'_>, class: Option<&str>, items: Py<PyAny>) -> PyResult<Py<PyAny>> {
    let Some(name) = class else {
        return Ok(items);
    };
    let cls = py.import("showctl._lists")?.getattr(name)?;
    Ok(cls.call1((items,))?.unbind())
}

impl Reply for LayerList {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        listed(py, Some("LayerList"), self.0.attr(py)?)
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
        listed(py, M::LIST_CLASS, self.attr(py)?)
    }
    fn py_type() -> String {
        M::LIST_CLASS.map_or_else(|| format!("list[{}]", M::NAME), String::from)
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

/// `Name(field=repr, ...)` of `obj`'s class name and the attributes `fields`.
pub(crate) fn repr_of(obj: &Bound<'_, PyAny>, fields: &[&str]) -> PyResult<String> {
    let values = fields
        .iter()
        .map(|f| Ok((*f, obj.getattr(f.trim_start_matches("r#"))?.unbind())))
        .collect::<PyResult<Vec<_>>>()?;
    dataclass_repr(obj.py(), &obj.get_type().name()?.to_cow()?, &values)
}

pub(crate) fn model_from_py<M: Model>(data: &Bound<'_, PyAny>) -> PyResult<M> {
    M::from_value(py_to_json(data, "data")?)
        .map_err(|e| PyValueError::new_err(format!("data: {e}")))
}

/// Whether `to_dict(mode)` gives the Python form (`"python"`: attribute names and values) or
/// the wire form (`"wire"`: the JSON as sent); anything else is refused, naming `mode`.
pub(crate) fn python_mode(mode: &str) -> PyResult<bool> {
    match mode {
        "wire" => Ok(false),
        "python" => Ok(true),
        other => Err(PyValueError::new_err(format!(
            "mode: must be \"wire\" (the JSON as sent) or \"python\" (attribute names and \
             values), got {other:?}"
        ))),
    }
}
