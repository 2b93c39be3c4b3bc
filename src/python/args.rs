//! Conversion of Python arguments: the client options, identifiers, numbers, and one
//! [`FromPyArg`] conversion per argument kind of the operation tables
//! (`crate::media::ops::ArgKind`). Ranges and forms are checked by the core encoders.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use serde_json::{Map, Value};

use super::convert::{py_to_json, type_name, Wrapped};
use super::models::{PyEffect, PyLayerBlend};
use crate::error::{Error, Result};
use crate::ident::Ident;
use crate::media::endpoints::{self as ep, BlendSpec};
use crate::media::ops::{ArgKind, BlendArg, EffectArg, Labelled, NameOf, Number, OrNone, UuidOf};
use crate::transport::{resolve_key, resolve_url, Config, Target, DEFAULT_MAX_BODY};

/// Options every client takes, as given from Python. Also makes the next log records follow
/// Python's current logging configuration.
#[allow(clippy::too_many_arguments)]
pub fn client_config(
    url: Option<String>,
    api_key: Option<String>,
    env_var: &str,
    timeout: f64,
    verify: bool,
    ca_cert: Option<PathBuf>,
    retries: i64,
    retry_commands: bool,
    max_body: Option<i64>,
) -> Result<Config> {
    crate::python::rt::refresh_logging();
    let url = resolve_url(url, env_var)?;
    if !timeout.is_finite() || timeout <= 0.0 || timeout > 3600.0 {
        return Err(Error::invalid(format!(
            "timeout: must be a number of seconds above 0 and at most 3600, got {timeout}"
        )));
    }
    if !(0..=10).contains(&retries) {
        return Err(Error::invalid(format!(
            "retries: must be between 0 and 10, got {retries}"
        )));
    }
    let max_body = match max_body {
        None => DEFAULT_MAX_BODY,
        Some(n) if n > 0 => n as usize,
        Some(n) => {
            return Err(Error::invalid(format!(
                "max_body: must be a positive number of bytes, got {n}"
            )))
        }
    };
    let mut config = Config::new(url);
    config.api_key = resolve_key(api_key);
    config.timeout = Duration::from_secs_f64(timeout);
    config.verify = verify;
    config.ca_cert = ca_cert;
    config.retries = retries as u32;
    config.retry_commands = retry_commands;
    config.max_body = max_body;
    Ok(config)
}

/// An identifier argument: `int` (not `bool`) or `str`.
pub fn ident(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Ident> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyValueError::new_err(format!(
            "{arg}: a bool is not an identifier; pass an int index, a name or a UUID"
        )));
    }
    if obj.is_instance_of::<PyInt>() {
        let v: i64 = obj
            .extract()
            .map_err(|_| PyValueError::new_err(format!("{arg}: index out of range")))?;
        return Ok(Ident::Index(v));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Ident::Name(obj.extract::<String>()?));
    }
    Err(PyTypeError::new_err(format!(
        "{arg}: expected an int index, a name or a UUID string, got {}",
        obj.get_type().name()?
    )))
}

/// A number argument: an `int` or `float` (not a `bool`). Range and finiteness are checked by
/// the core, which names the allowed range.
pub fn number(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<f64> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyValueError::new_err(format!(
            "{arg}: a bool is not a number; pass an int or a float"
        )));
    }
    obj.extract::<f64>().map_err(|_| {
        if obj.is_instance_of::<PyInt>() {
            PyValueError::new_err(format!("{arg}: the int is out of range for a number"))
        } else {
            let kind = obj
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            PyTypeError::new_err(format!("{arg}: expected an int or a float, got {kind}"))
        }
    })
}

/// A text argument, or the text a model of class `M` carries (`pick`).
pub(crate) fn text_or<M: Wrapped>(
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

/// An effect to send: an `Effect` (its documented fields) or a dict with a `uuid`.
pub(crate) fn effect_arg(obj: &Bound<'_, PyAny>) -> PyResult<Map<String, Value>> {
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
pub(crate) fn blend_arg(obj: &Bound<'_, PyAny>) -> PyResult<BlendSpec> {
    if let Ok(b) = obj.cast::<PyLayerBlend>() {
        return BlendSpec::from_model("blend", &b.get().inner).map_err(PyErr::from);
    }
    if !obj.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(format!(
            "blend: expected a LayerBlend or a dict {{\"type\": ..., \"base\": {{...}}}}, got {}",
            type_name(obj)
        )));
    }
    BlendSpec::from_value("blend", &py_to_json(obj, "blend")?).map_err(PyErr::from)
}

/// Query parameters of `request()`: str, int, float or bool values.
pub(crate) fn params_arg(params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
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

/// The Python side of an argument kind of the operation tables: its conversion (named `arg` in
/// a refusal) and its type as written in the stubs.
pub(crate) trait FromPyArg: ArgKind {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Self::Value>;
    fn py_type() -> String;
}

impl FromPyArg for Number {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<f64> {
        number(obj, arg)
    }
    fn py_type() -> String {
        "float".into()
    }
}

impl<M: Wrapped + Labelled> FromPyArg for NameOf<M> {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<String> {
        text_or(obj, arg, M::label_name)
    }
    fn py_type() -> String {
        format!("str | {}", M::NAME)
    }
}

impl<M: Wrapped + Labelled> FromPyArg for UuidOf<M> {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<String> {
        text_or(obj, arg, M::label_uuid)
    }
    fn py_type() -> String {
        format!("str | {}", M::NAME)
    }
}

impl<K: FromPyArg> FromPyArg for OrNone<K> {
    fn from_py(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Option<K::Value>> {
        if obj.is_none() {
            return Ok(None);
        }
        K::from_py(obj, arg).map(Some)
    }
    fn py_type() -> String {
        format!("{} | None", K::py_type())
    }
}

impl FromPyArg for EffectArg {
    fn from_py(obj: &Bound<'_, PyAny>, _: &str) -> PyResult<Map<String, Value>> {
        effect_arg(obj)
    }
    fn py_type() -> String {
        "Effect | dict[str, Any]".into()
    }
}

impl FromPyArg for BlendArg {
    fn from_py(obj: &Bound<'_, PyAny>, _: &str) -> PyResult<BlendSpec> {
        blend_arg(obj)
    }
    fn py_type() -> String {
        "LayerBlend | dict[str, Any]".into()
    }
}

/// `mirrors=` as given: URLs (`None`: the primary's key) or `(url, api_key)` tuples.
#[derive(Default)]
pub(crate) struct MirrorArgs(Vec<(String, Option<Option<String>>)>);

impl<'a, 'py> FromPyObject<'a, 'py> for MirrorArgs {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "expected a list of URLs or (url, api_key) tuples, got one str (put it in a list)",
            ));
        }
        let mut out = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            let item = item?;
            if item.is_instance_of::<PyString>() {
                out.push((item.extract::<String>()?, None));
                continue;
            }
            let (url, key) = item.extract::<(String, Option<String>)>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "mirrors[{i}]: expected a URL or a (url, api_key) tuple, got {}",
                    type_name(&item)
                ))
            })?;
            out.push((url, Some(key)));
        }
        Ok(MirrorArgs(out))
    }
}

impl MirrorArgs {
    /// The targets; a plain URL takes `primary_key`.
    pub(crate) fn targets(self, primary_key: Option<&str>) -> PyResult<Vec<Target>> {
        self.0
            .into_iter()
            .enumerate()
            .map(|(i, (url, key))| {
                let key = key.unwrap_or_else(|| primary_key.map(str::to_string));
                Target::new(&url, key.as_deref())
                    .map_err(|e| PyValueError::new_err(format!("mirrors[{i}]: {e}")))
            })
            .collect()
    }
}
