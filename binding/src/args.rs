// The `from_py_with` readers are constants named after their arguments (`args::port`).
#![allow(non_upper_case_globals)]
//! Conversion of Python arguments: the client options, identifiers, numbers, and one
//! [`FromPyArg`] conversion per argument kind of the operation tables
//! (`showctl::media::arg_kinds::ArgKind`). Ranges and forms are checked by the core encoders.

use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use serde_json::{Map, Value};

use super::convert::{as_index, expected, is_real, py_to_json, type_name, Wrapped};
use super::models::{PyEffect, PyLayerBlend};

use showctl::ident::Ident;
use showctl::media::arg_kinds::{
    ArgKind, BlendArg, EffectArg, LabelOf, Labelled, NameOf, Number, OrNone, UuidOf,
};
use showctl::media::endpoints::{self as ep, BlendSpec};
use showctl::media::mirror::{self, MirrorSpec, MIRROR_FORMS, MIRROR_KEYS};
use showctl::transport::Target;

/// An identifier argument: an `int` (or an integer with `__index__`, such as numpy's; not a
/// `bool`) or a `str`.
pub fn ident(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Ident> {
    if obj.is_instance_of::<PyString>() {
        return Ok(Ident::Name(obj.extract::<String>()?));
    }
    let not_a = "an identifier; pass an int index, a name or a UUID";
    match int_arg(obj, arg, not_a)? {
        Some(i) => Ok(Ident::Index(i64_of(&i, arg)?)),
        None => Err(expected(arg, "an int index, a name or a UUID string", obj)),
    }
}

/// A whole-number argument: an `int` or an integer with `__index__` (numpy's), not a `bool`.
/// The range is checked by the caller, which names the allowed range.
pub fn integer(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<i64> {
    match int_arg(obj, arg, "a whole number; pass an int")? {
        Some(i) => i64_of(&i, arg),
        None => Err(expected(arg, "an int", obj)),
    }
}

/// A number argument: an `int` or `float`, an integer with `__index__` or any `numbers.Real`
/// (numpy's numbers); not a `bool` (numpy's bool neither: it is no `numbers.Real`). Range and
/// finiteness are checked by the core, which names the allowed range.
pub fn number(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<f64> {
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(f.value());
    }
    if let Some(i) = int_arg(obj, arg, "a number; pass an int or a float")? {
        return i.extract::<f64>().map_err(|_| {
            PyValueError::new_err(format!("{arg}: the int is out of range for a number"))
        });
    }
    if is_real(obj)? {
        return obj.extract::<f64>();
    }
    Err(expected(arg, "an int or a float", obj))
}

/// The int an argument holds (an `int` or an integer with `__index__`), or `None` for anything
/// else but a bool (numpy's too), which is refused with a `ValueError`: a bool is not `not_a`.
fn int_arg<'py>(
    obj: &Bound<'py, PyAny>,
    arg: &str,
    not_a: &str,
) -> PyResult<Option<Bound<'py, PyInt>>> {
    let numpy_bool = || !obj.is_instance_of::<PyInt>() && obj.extract::<bool>().is_ok();
    if obj.is_instance_of::<PyBool>() || numpy_bool() {
        let message = format!("{arg}: a bool is not {not_a}");
        return Err(PyValueError::new_err(message));
    }
    match obj.cast::<PyInt>() {
        Ok(i) => Ok(Some(i.clone())),
        Err(_) => as_index(obj),
    }
}

fn i64_of(i: &Bound<'_, PyInt>, arg: &str) -> PyResult<i64> {
    let message = || format!("{arg}: the int is out of range (-2**63 to 2**63-1)");
    i.extract::<i64>()
        .map_err(|_| PyValueError::new_err(message()))
}

/// A flag argument: `True` or `False` (numpy's bool too); an int is refused.
pub fn flag(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<bool> {
    obj.extract::<bool>()
        .map_err(|_| expected(arg, "True or False", obj))
}

/// A text argument: a `str`.
pub fn text(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(expected(arg, "a str", obj)),
    }
}

/// A file path argument: a `str` or an `os.PathLike`.
pub fn path(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<PathBuf> {
    obj.extract::<PathBuf>()
        .map_err(|_| expected(arg, "a path (str or os.PathLike)", obj))
}

/// The `params` argument of `request()`: `None` or a dict.
pub fn params<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyDict>>> {
    if obj.is_none() {
        return Ok(None);
    }
    match obj.cast::<PyDict>() {
        Ok(d) => Ok(Some(d.clone())),
        Err(_) => Err(expected("params", "a dict", obj)),
    }
}

/// `None`, or what `convert` makes of the argument.
pub fn optional<T>(
    obj: &Bound<'_, PyAny>,
    arg: &str,
    convert: fn(&Bound<'_, PyAny>, &str) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if obj.is_none() {
        return Ok(None);
    }
    convert(obj, arg).map(Some)
}

/// A list of numbers (`thresholds`), each checked as [`number`] (`arg[i]` in messages).
pub fn numbers(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Vec<f64>> {
    if obj.is_instance_of::<PyString>() {
        let message = format!("{arg}: expected a list of numbers, got str");
        return Err(PyTypeError::new_err(message));
    }
    let items = obj
        .try_iter()
        .map_err(|_| expected(arg, "a list of numbers", obj))?;
    items
        .enumerate()
        .map(|(i, item)| number(&item?, &format!("{arg}[{i}]")))
        .collect()
}

/// A converter for `#[pyo3(from_py_with = ...)]`.
pub type Reader<T> = for<'py> fn(&Bound<'py, PyAny>) -> PyResult<T>;

// Converters for `#[pyo3(from_py_with = ...)]`, each for the argument it is named after (the
// `request()` path for `request_path`), so that every message names the argument (PyO3's own
// conversions only add a note to the exception).

pub const confirm: Reader<bool> = |o| flag(o, "confirm");
pub const target: Reader<bool> = |o| flag(o, "target");
pub const interval: Reader<f64> = |o| number(o, "interval");
pub const seconds: Reader<f64> = |o| number(o, "seconds");
pub const concurrency: Reader<i64> = |o| integer(o, "concurrency");
pub const port: Reader<i64> = |o| integer(o, "port");
pub const status: Reader<i64> = |o| integer(o, "status");
pub const times: Reader<i64> = |o| integer(o, "times");
pub const thresholds: Reader<Vec<f64>> = |o| numbers(o, "thresholds");
pub const steps: Reader<Option<i64>> = |o| optional(o, "steps", integer);
pub const score_tick: Reader<Option<f64>> = |o| optional(o, "score_tick", number);
pub const api_key: Reader<Option<String>> = |o| optional(o, "api_key", text);
pub const name: Reader<String> = |o| text(o, "name");
pub const kind: Reader<Option<String>> = |o| optional(o, "kind", text);
pub const method: Reader<String> = |o| text(o, "method");
pub const request_path: Reader<String> = |o| text(o, "path");
pub const field: Reader<String> = |o| text(o, "field");
pub const mode: Reader<String> = |o| text(o, "mode");

/// Query parameters of `request()`: str, int, float or bool values.
pub(crate) fn params_arg(params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let Some(params) = params else {
        return Ok(Vec::new());
    };
    params
        .items()
        .iter()
        .map(|pair| {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract()?;
            let key: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("params: keys must be str"))?;
            let arg = format!("params[{key:?}]");
            let value = ep::query_value(py_to_json(&v, &arg)?)
                .ok_or_else(|| expected(&arg, "str, int, float or bool", &v))?;
            Ok((key, value))
        })
        .collect()
}

/// The Python side of an argument kind of the operation tables: its conversion (named `arg` in
/// a refusal) and its type as written in the stubs.
pub(crate) trait FromPyArg: ArgKind {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Self::Value>;
    fn py_type() -> String;
}

/// `obj` converted as an argument of kind `K` (named `arg` in a refusal).
pub(crate) fn arg<K: FromPyArg>(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<K::Value> {
    K::from_py(obj, arg)
}

impl FromPyArg for Number {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<f64> {
        number(obj, arg)
    }
    fn py_type() -> String {
        "float".into()
    }
}

/// A text argument, or the text a model of the kind's class carries.
fn label<K: LabelOf<Model: Wrapped>>(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<String> {
    if obj.is_instance_of::<PyString>() {
        return obj.extract();
    }
    let model = <K::Model as showctl::media::Model>::NAME;
    match obj.cast::<<K::Model as Wrapped>::Class>() {
        Ok(m) => K::pick(K::Model::of(m.get())).ok_or_else(|| {
            PyValueError::new_err(format!("{arg}: this {model} carries no value to send"))
        }),
        Err(_) => Err(expected(arg, &format!("a str or a {model}"), obj)),
    }
}

impl<M: Labelled + Wrapped> FromPyArg for NameOf<M> {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<String> {
        label::<Self>(obj, arg)
    }
    fn py_type() -> String {
        format!("str | {}", M::NAME)
    }
}

impl<M: Labelled + Wrapped> FromPyArg for UuidOf<M> {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<String> {
        label::<Self>(obj, arg)
    }
    fn py_type() -> String {
        format!("str | {}", M::NAME)
    }
}

impl<K: FromPyArg> FromPyArg for OrNone<K> {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Option<K::Value>> {
        optional(obj, arg, K::from_py)
    }
    fn py_type() -> String {
        format!("{} | None", K::py_type())
    }
}

/// An effect to send: an `Effect` (its documented fields) or a dict with a `uuid`.
impl FromPyArg for EffectArg {
    fn from_py(obj: &Bound<'_, PyAny>, _: &str) -> PyResult<Map<String, Value>> {
        if let Ok(e) = obj.cast::<PyEffect>() {
            return Ok(ep::effect_fields(&e.get().inner));
        }
        if !obj.is_instance_of::<PyDict>() {
            let what = "an Effect or a dict with a \"uuid\"";
            return Err(expected("effect", what, obj));
        }
        match py_to_json(obj, "effect")? {
            Value::Object(m) => Ok(m),
            _ => Err(PyTypeError::new_err("effect: expected a dict")),
        }
    }
    fn py_type() -> String {
        "Effect | dict[str, Any]".into()
    }
}

/// A layer blend to send: a `LayerBlend` or a dict `{"type": ..., "base": {...}}`.
impl FromPyArg for BlendArg {
    fn from_py(obj: &Bound<'_, PyAny>, _: &str) -> PyResult<BlendSpec> {
        if let Ok(b) = obj.cast::<PyLayerBlend>() {
            return BlendSpec::from_model("blend", &b.get().inner).map_err(crate::errors::to_py);
        }
        if !obj.is_instance_of::<PyDict>() {
            let what = "a LayerBlend or a dict {\"type\": ..., \"base\": {...}}";
            return Err(expected("blend", what, obj));
        }
        BlendSpec::from_value("blend", &py_to_json(obj, "blend")?).map_err(crate::errors::to_py)
    }
    fn py_type() -> String {
        "LayerBlend | dict[str, Any]".into()
    }
}

/// `mirrors=` as given: URLs, `(url, api_key)` or `(url, api_key, tls_fingerprint)` tuples, or
/// dicts with the keys `url`, `api_key` and `tls_fingerprint` (all but `url` optional).
#[derive(Default)]
pub(crate) struct MirrorArgs(Vec<MirrorSpec>);

/// Check the keys of a connection dict (a mirror's, a feed source's) against `allowed` and
/// return its `url`; errors name the argument (`arg`).
pub(crate) fn connection_dict<'py>(
    dict: &Bound<'py, PyDict>,
    arg: &str,
    allowed: &[&str],
) -> PyResult<Bound<'py, PyAny>> {
    for key in dict.keys() {
        let key: Option<String> = key.extract().ok();
        showctl::json::known_key(arg, key.as_deref(), allowed).map_err(|e| match key {
            Some(_) => PyValueError::new_err(e),
            None => PyTypeError::new_err(e),
        })?;
    }
    dict.get_item("url")?
        .ok_or_else(|| PyValueError::new_err(format!("{arg}: the dict has no \"url\"")))
}

/// A mirror given as a URL or a tuple (a dict is read by [`mirror_arg`]).
#[derive(FromPyObject)]
enum MirrorForm {
    Url(String),
    Pinned(String, Option<String>, Option<String>),
    Keyed(String, Option<String>),
}

fn mirror_arg(i: usize, item: &Bound<'_, PyAny>) -> PyResult<MirrorSpec> {
    let wrong = |_| expected(&format!("mirrors[{i}]"), MIRROR_FORMS, item);
    if let Ok(dict) = item.cast::<PyDict>() {
        let url = connection_dict(dict, &format!("mirrors[{i}]"), MIRROR_KEYS)?;
        let get = |key| -> PyResult<Option<Option<String>>> {
            let value = dict.get_item(key)?;
            value.map(|v| v.extract().map_err(wrong)).transpose()
        };
        let pin = get("tls_fingerprint")?.flatten();
        return Ok(MirrorSpec::new(
            url.extract().map_err(wrong)?,
            get("api_key")?,
            pin,
        ));
    }
    Ok(match item.extract::<MirrorForm>().map_err(wrong)? {
        MirrorForm::Url(url) => MirrorSpec::new(url, None, None),
        MirrorForm::Pinned(url, key, pin) => MirrorSpec::new(url, Some(key), pin),
        MirrorForm::Keyed(url, key) => MirrorSpec::new(url, Some(key), None),
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
        mirror::targets(self.0, primary_key).map_err(crate::errors::to_py)
    }
}
