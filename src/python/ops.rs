//! The operation machinery of the binding: a [`Job`] is what a method runs on its core client
//! (a call of an operation table, a confirmable command, or other core work); [`block`] runs
//! one with the GIL released and [`awaitable`] hands it to asyncio. The consumer macros turn
//! an operation table (`crate::media::table`, the scoreboard's in `crate::score`) into the
//! sync methods, their `_async` twins and the `Command` constructors; [`_operations`] lists
//! the tables with their Python types, for the stub generator and the tests.

use std::future::Future;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::Reply;
use super::rt;
use crate::error::Result;
use crate::media::builders::Confirmable;
use crate::media::MediaClient;
use crate::operation::{Call, Client, OpInfo};

/// What a method runs on its core client `C`.
pub(crate) trait Job<C>: Send + 'static {
    type Out: Reply;
    fn run(self, client: C) -> impl Future<Output = Result<Self::Out>> + Send + 'static;
}

impl<C: Client, T: Reply> Job<C> for Call<T> {
    type Out = T;
    async fn run(self, client: C) -> Result<T> {
        client.run(self).await
    }
}

impl Job<MediaClient> for Confirmable {
    type Out = ();
    async fn run(self, client: MediaClient) -> Result<()> {
        self.send(&client).await
    }
}

/// Any core future (it holds what it needs).
pub(crate) struct Work<F>(pub F);

impl<C, F, T> Job<C> for Work<F>
where
    F: Future<Output = Result<T>> + Send + 'static,
    T: Reply,
{
    type Out = T;
    fn run(self, _: C) -> impl Future<Output = Result<T>> + Send + 'static {
        self.0
    }
}

/// Run `job` on `client` and wait for it with the GIL released (Ctrl-C aware).
pub(crate) fn block<C: Clone, J: Job<C>>(
    py: Python<'_>,
    client: &C,
    job: J,
) -> PyResult<Py<PyAny>> {
    rt::wait(py, job.run(client.clone()))?.into_py(py)
}

/// Run `job` on `client` as an asyncio awaitable.
pub(crate) fn awaitable<'py, C: Clone, J: Job<C>>(
    py: Python<'py>,
    client: &C,
    job: J,
) -> PyResult<Bound<'py, PyAny>> {
    rt::spawn(py, job.run(client.clone()), |py, v: J::Out| v.into_py(py))
}

/// The methods of a client class over the workspace groups of an operation table:
/// `table!(workspace_methods! { Class, core_builders_module, { other methods } })`.
/// Identifiers and arguments are checked when the method is called, so the `_async` twin
/// refuses bad input before anything is awaited.
macro_rules! workspace_methods {
    ({ $cls:ident, $ops:ident, { $($extra:tt)* } }
     workspace_reads { $(
        $(#[doc = $rd:literal])+
        $rn:ident / $ran:ident [$($rid:ident),*] () -> $rret:ty { $($rtt:tt)* } $(=> $rcall:block)?
     )* }
     layer_reads { $($ltt:tt)* }
     workspace_commands { $(
        $(#[doc = $wd:literal])+
        $wn:ident / $wan:ident [$($wid:ident),*]
            ($($wp:ident : $wt:ty)? $(; $wdp:ident : $wdt:ty = $wdd:tt)?)
            { $($wtt:tt)* } $(=> $wcall:block)? $($wconfirm:ident $wexpect:block)?
     )* }
     layer_commands { $($ctt:tt)* }
     both_commands { $(
        $(#[doc = $bd:literal])+
        $bn:ident / $ban:ident [$bl:ident] { $($btt:tt)* } $($bconfirm:ident $bexpect:block)?
     )* }
    ) => {
        #[pymethods]
        impl $cls {
            $(
                $(#[doc = $rd])+
                #[pyo3(signature = ($($rid),*))]
                fn $rn(&self, py: Python<'_>, $($rid: &Bound<'_, PyAny>),*) -> PyResult<Py<PyAny>> {
                    $(let $rid = $crate::python::args::ident($rid, stringify!($rid))?;)*
                    let job = $ops::workspace::$rn($(&$rid),*)?;
                    $crate::python::ops::block(py, &self.client, job)
                }
                $(#[doc = $rd])+
                #[doc = ""]
                #[doc = "Awaitable twin."]
                #[pyo3(signature = ($($rid),*))]
                fn $ran<'py>(
                    &self, py: Python<'py>, $($rid: &Bound<'_, PyAny>),*
                ) -> PyResult<Bound<'py, PyAny>> {
                    $(let $rid = $crate::python::args::ident($rid, stringify!($rid))?;)*
                    let job = $ops::workspace::$rn($(&$rid),*)?;
                    $crate::python::ops::awaitable(py, &self.client, job)
                }
            )*
            $(
                $(#[doc = $wd])+
                #[pyo3(signature = ($($wid,)* $($wp,)? $($wdp = $wdd,)? $(*, $wconfirm = false)?))]
                fn $wn(
                    &self, py: Python<'_>, $($wid: &Bound<'_, PyAny>,)* $($wp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$wdp)] $wdp: $wdt,)? $(#[pyo3(from_py_with = $crate::python::args::confirm)] $wconfirm: bool)?
                ) -> PyResult<Py<PyAny>> {
                    $(let $wid = $crate::python::args::ident($wid, stringify!($wid))?;)*
                    $(let $wp = <$wt as $crate::python::args::FromPyArg>::from_py($wp, stringify!($wp))?;)?
                    let job = $ops::workspace::$wn($(&$wid,)* $($wp,)? $($wdp,)? $($wconfirm)?)?;
                    $crate::python::ops::block(py, &self.client, job)
                }
                $(#[doc = $wd])+
                #[doc = ""]
                #[doc = "Awaitable twin."]
                #[pyo3(signature = ($($wid,)* $($wp,)? $($wdp = $wdd,)? $(*, $wconfirm = false)?))]
                fn $wan<'py>(
                    &self, py: Python<'py>, $($wid: &Bound<'_, PyAny>,)* $($wp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$wdp)] $wdp: $wdt,)? $(#[pyo3(from_py_with = $crate::python::args::confirm)] $wconfirm: bool)?
                ) -> PyResult<Bound<'py, PyAny>> {
                    $(let $wid = $crate::python::args::ident($wid, stringify!($wid))?;)*
                    $(let $wp = <$wt as $crate::python::args::FromPyArg>::from_py($wp, stringify!($wp))?;)?
                    let job = $ops::workspace::$wn($(&$wid,)* $($wp,)? $($wdp,)? $($wconfirm)?)?;
                    $crate::python::ops::awaitable(py, &self.client, job)
                }
            )*
            $(
                $(#[doc = $bd])+
                #[pyo3(signature = ($(*, $bconfirm = false)?))]
                fn $bn(&self, py: Python<'_>, $(#[pyo3(from_py_with = $crate::python::args::confirm)] $bconfirm: bool)?) -> PyResult<Py<PyAny>> {
                    let job = $ops::both::$bn(None $(, $bconfirm)?)?;
                    $crate::python::ops::block(py, &self.client, job)
                }
                $(#[doc = $bd])+
                #[doc = ""]
                #[doc = "Awaitable twin."]
                #[pyo3(signature = ($(*, $bconfirm = false)?))]
                fn $ban<'py>(&self, py: Python<'py>, $(#[pyo3(from_py_with = $crate::python::args::confirm)] $bconfirm: bool)?) -> PyResult<Bound<'py, PyAny>> {
                    let job = $ops::both::$bn(None $(, $bconfirm)?)?;
                    $crate::python::ops::awaitable(py, &self.client, job)
                }
            )*

            $($extra)*
        }
    };
}

/// The methods of `Layer` over the layer groups of the media table (the layer is the
/// handle's own): `media_ops!(layer_methods! { { other methods } })`.
macro_rules! layer_methods {
    ({ { $($extra:tt)* } }
     workspace_reads { $($rtt:tt)* }
     layer_reads { $(
        $(#[doc = $ld:literal])+
        $ln:ident / $lan:ident [$ll:ident $(, $lid:ident)*] () -> $lret:ty { $($ltt:tt)* }
            $(=> $lcall:block)?
     )* }
     workspace_commands { $($wtt:tt)* }
     layer_commands { $(
        $(#[doc = $cd:literal])+
        $cn:ident / $can:ident [$cl:ident $(, $cid:ident)*]
            ($($cp:ident : $ct:ty)? $(; $cdp:ident : $cdt:ty = $cdd:tt)?)
            { $($ctt:tt)* } $(=> $ccall:block)? $($cconfirm:ident $cexpect:block)?
     )* }
     both_commands { $(
        $(#[doc = $bd:literal])+
        $bn:ident / $ban:ident [$bl:ident] { $($btt:tt)* } $($bconfirm:ident $bexpect:block)?
     )* }
    ) => {
        #[pymethods]
        impl PyLayer {
            $(
                $(#[doc = $ld])+
                #[pyo3(signature = ($($lid),*))]
                fn $ln(&self, py: Python<'_>, $($lid: &Bound<'_, PyAny>),*) -> PyResult<Py<PyAny>> {
                    $(let $lid = $crate::python::args::ident($lid, stringify!($lid))?;)*
                    let job = core_ops::layer::$ln(&self.ident $(, &$lid)*)?;
                    $crate::python::ops::block(py, &self.client, job)
                }
                $(#[doc = $ld])+
                #[doc = ""]
                #[doc = "Awaitable twin."]
                #[pyo3(signature = ($($lid),*))]
                fn $lan<'py>(
                    &self, py: Python<'py>, $($lid: &Bound<'_, PyAny>),*
                ) -> PyResult<Bound<'py, PyAny>> {
                    $(let $lid = $crate::python::args::ident($lid, stringify!($lid))?;)*
                    let job = core_ops::layer::$ln(&self.ident $(, &$lid)*)?;
                    $crate::python::ops::awaitable(py, &self.client, job)
                }
            )*
            $(
                $(#[doc = $cd])+
                #[pyo3(signature = ($($cid,)* $($cp,)? $($cdp = $cdd,)? $(*, $cconfirm = false)?))]
                fn $cn(
                    &self, py: Python<'_>, $($cid: &Bound<'_, PyAny>,)* $($cp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$cdp)] $cdp: $cdt,)? $(#[pyo3(from_py_with = $crate::python::args::confirm)] $cconfirm: bool)?
                ) -> PyResult<Py<PyAny>> {
                    $(let $cid = $crate::python::args::ident($cid, stringify!($cid))?;)*
                    $(let $cp = <$ct as $crate::python::args::FromPyArg>::from_py($cp, stringify!($cp))?;)?
                    let job = core_ops::layer::$cn(
                        &self.ident, $(&$cid,)* $($cp,)? $($cdp,)? $($cconfirm)?
                    )?;
                    $crate::python::ops::block(py, &self.client, job)
                }
                $(#[doc = $cd])+
                #[doc = ""]
                #[doc = "Awaitable twin."]
                #[pyo3(signature = ($($cid,)* $($cp,)? $($cdp = $cdd,)? $(*, $cconfirm = false)?))]
                fn $can<'py>(
                    &self, py: Python<'py>, $($cid: &Bound<'_, PyAny>,)* $($cp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$cdp)] $cdp: $cdt,)? $(#[pyo3(from_py_with = $crate::python::args::confirm)] $cconfirm: bool)?
                ) -> PyResult<Bound<'py, PyAny>> {
                    $(let $cid = $crate::python::args::ident($cid, stringify!($cid))?;)*
                    $(let $cp = <$ct as $crate::python::args::FromPyArg>::from_py($cp, stringify!($cp))?;)?
                    let job = core_ops::layer::$cn(
                        &self.ident, $(&$cid,)* $($cp,)? $($cdp,)? $($cconfirm)?
                    )?;
                    $crate::python::ops::awaitable(py, &self.client, job)
                }
            )*
            $(
                $(#[doc = $bd])+
                #[pyo3(signature = ($(*, $bconfirm = false)?))]
                fn $bn(&self, py: Python<'_>, $(#[pyo3(from_py_with = $crate::python::args::confirm)] $bconfirm: bool)?) -> PyResult<Py<PyAny>> {
                    let job = core_ops::both::$bn(Some(&self.ident) $(, $bconfirm)?)?;
                    $crate::python::ops::block(py, &self.client, job)
                }
                $(#[doc = $bd])+
                #[doc = ""]
                #[doc = "Awaitable twin."]
                #[pyo3(signature = ($(*, $bconfirm = false)?))]
                fn $ban<'py>(&self, py: Python<'py>, $(#[pyo3(from_py_with = $crate::python::args::confirm)] $bconfirm: bool)?) -> PyResult<Bound<'py, PyAny>> {
                    let job = core_ops::both::$bn(Some(&self.ident) $(, $bconfirm)?)?;
                    $crate::python::ops::awaitable(py, &self.client, job)
                }
            )*

            $($extra)*
        }
    };
}

/// The `Command` constructors over the command groups of the media table: each takes the
/// arguments of the method of the same name, the layer first for a layer's command
/// (`layer=None`: the workspace, where both exist), and `confirm` where the method does.
macro_rules! command_methods {
    ({ { $($extra:tt)* } }
     workspace_reads { $($rtt:tt)* }
     layer_reads { $($ltt:tt)* }
     workspace_commands { $(
        $(#[doc = $wd:literal])+
        $wn:ident / $wan:ident [$($wid:ident),*]
            ($($wp:ident : $wt:ty)? $(; $wdp:ident : $wdt:ty = $wdd:tt)?)
            { $($wtt:tt)* } $(=> $wcall:block)? $($wconfirm:ident $wexpect:block)?
     )* }
     layer_commands { $(
        $(#[doc = $cd:literal])+
        $cn:ident / $can:ident [$cl:ident $(, $cid:ident)*]
            ($($cp:ident : $ct:ty)? $(; $cdp:ident : $cdt:ty = $cdd:tt)?)
            { $($ctt:tt)* } $(=> $ccall:block)? $($cconfirm:ident $cexpect:block)?
     )* }
     both_commands { $(
        $(#[doc = $bd:literal])+
        $bn:ident / $ban:ident [$bl:ident] { $($btt:tt)* } $($bconfirm:ident $bexpect:block)?
     )* }
    ) => {
        #[pymethods]
        impl PyCommand {
            $(
                $(#[doc = $wd])+
                #[staticmethod]
                #[pyo3(signature = ($($wid,)* $($wp,)? $($wdp = $wdd,)? $(*, $wconfirm = false)?))]
                fn $wn(
                    $($wid: &Bound<'_, PyAny>,)* $($wp: &Bound<'_, PyAny>,)? $(#[pyo3(from_py_with = $crate::python::args::$wdp)] $wdp: $wdt,)?
                    $(#[pyo3(from_py_with = $crate::python::args::confirm)] $wconfirm: bool)?
                ) -> PyResult<Self> {
                    $(let $wid = $crate::python::args::ident($wid, stringify!($wid))?;)*
                    $(let $wp = <$wt as $crate::python::args::FromPyArg>::from_py($wp, stringify!($wp))?;)?
                    let job = core_ops::workspace::$wn($(&$wid,)* $($wp,)? $($wdp,)? $($wconfirm)?)?;
                    Ok(PyCommand { job })
                }
            )*
            $(
                $(#[doc = $cd])+
                #[staticmethod]
                #[pyo3(signature = ($cl, $($cid,)* $($cp,)? $($cdp = $cdd,)? $(*, $cconfirm = false)?))]
                fn $cn(
                    $cl: &Bound<'_, PyAny>, $($cid: &Bound<'_, PyAny>,)* $($cp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$cdp)] $cdp: $cdt,)? $(#[pyo3(from_py_with = $crate::python::args::confirm)] $cconfirm: bool)?
                ) -> PyResult<Self> {
                    let $cl = layer_arg($cl)?;
                    $(let $cid = $crate::python::args::ident($cid, stringify!($cid))?;)*
                    $(let $cp = <$ct as $crate::python::args::FromPyArg>::from_py($cp, stringify!($cp))?;)?
                    let job = core_ops::layer::$cn(
                        &$cl, $(&$cid,)* $($cp,)? $($cdp,)? $($cconfirm)?
                    )?;
                    Ok(PyCommand { job })
                }
            )*
            $(
                $(#[doc = $bd])+
                #[staticmethod]
                #[pyo3(signature = ($bl = None $(, *, $bconfirm = false)?))]
                fn $bn($bl: Option<&Bound<'_, PyAny>> $(, #[pyo3(from_py_with = $crate::python::args::confirm)] $bconfirm: bool)?) -> PyResult<Self> {
                    let $bl = $bl.map(layer_arg).transpose()?;
                    let job = core_ops::both::$bn($bl.as_ref() $(, $bconfirm)?)?;
                    Ok(PyCommand { job })
                }
            )*

            $($extra)*
        }
    };
}

/// The Python types of each operation of a table: (scope, name, argument type, return type).
macro_rules! python_types {
    ({ $out:ident }
     workspace_reads { $(
        $(#[doc = $rd:literal])+
        $rn:ident / $ran:ident [$($rid:ident),*] () -> $rret:ty { $($rtt:tt)* } $(=> $rcall:block)?
     )* }
     layer_reads { $(
        $(#[doc = $ld:literal])+
        $ln:ident / $lan:ident [$ll:ident $(, $lid:ident)*] () -> $lret:ty { $($ltt:tt)* }
            $(=> $lcall:block)?
     )* }
     workspace_commands { $(
        $(#[doc = $wd:literal])+
        $wn:ident / $wan:ident [$($wid:ident),*]
            ($($wp:ident : $wt:ty)? $(; $wdp:ident : $wdt:ty = $wdd:tt)?)
            { $($wtt:tt)* } $(=> $wcall:block)? $($wconfirm:ident $wexpect:block)?
     )* }
     layer_commands { $(
        $(#[doc = $cd:literal])+
        $cn:ident / $can:ident [$cl:ident $(, $cid:ident)*]
            ($($cp:ident : $ct:ty)? $(; $cdp:ident : $cdt:ty = $cdd:tt)?)
            { $($ctt:tt)* } $(=> $ccall:block)? $($cconfirm:ident $cexpect:block)?
     )* }
     both_commands { $(
        $(#[doc = $bd:literal])+
        $bn:ident / $ban:ident [$bl:ident] { $($btt:tt)* } $($bconfirm:ident $bexpect:block)?
     )* }
    ) => {
        $($out.push((
            "workspace", stringify!($rn), None, <$rret as $crate::python::convert::Reply>::py_type(),
        ));)*
        $($out.push((
            "layer", stringify!($ln), None, <$lret as $crate::python::convert::Reply>::py_type(),
        ));)*
        $($out.push((
            "workspace", stringify!($wn),
            $crate::operation::first!(
                $(Some(<$wt as $crate::python::args::FromPyArg>::py_type()),)?
                $(Some(stringify!($wdt).to_string()),)? None
            ),
            "None".to_string(),
        ));)*
        $($out.push((
            "layer", stringify!($cn),
            $crate::operation::first!(
                $(Some(<$ct as $crate::python::args::FromPyArg>::py_type()),)?
                $(Some(stringify!($cdt).to_string()),)? None
            ),
            "None".to_string(),
        ));)*
        $($out.push(("both", stringify!($bn), None, "None".to_string()));)*
    };
}

pub(crate) use {command_methods, layer_methods, workspace_methods};

type Types = Vec<(&'static str, &'static str, Option<String>, String)>;

fn describe(
    py: Python<'_>,
    out: &Bound<'_, PyList>,
    ops: Vec<OpInfo>,
    types: &Types,
    classes: &dyn Fn(&OpInfo) -> Vec<&'static str>,
) -> PyResult<()> {
    for op in ops {
        let (_, _, arg_type, returns) = types
            .iter()
            .find(|(scope, name, _, _)| *scope == op.scope.as_str() && *name == op.name)
            .ok_or_else(|| {
                pyo3::exceptions::PyRuntimeError::new_err(format!("no types for {}", op.name))
            })?;
        let d = PyDict::new(py);
        d.set_item("name", op.name)?;
        d.set_item("async_name", op.async_name)?;
        d.set_item("classes", classes(&op))?;
        d.set_item("scope", op.scope.as_str())?;
        d.set_item("command", op.command)?;
        d.set_item("ids", op.ids.clone())?;
        d.set_item("arg", op.arg)?;
        d.set_item("arg_type", arg_type.clone())?;
        d.set_item("default", op.default)?;
        d.set_item("confirm", op.confirm)?;
        d.set_item("returns", returns.clone())?;
        d.set_item("doc", op.doc)?;
        d.set_item("endpoints", op.endpoints.clone())?;
        out.append(d)?;
    }
    Ok(())
}

/// The operation tables as data: one dict per operation (name, async_name, classes, scope,
/// command, ids, arg, arg_type, default, confirm, returns, doc, endpoints), for the stub
/// generator and the tests.
#[pyfunction]
#[allow(clippy::vec_init_then_push)]
pub(crate) fn _operations(py: Python<'_>) -> PyResult<Py<PyList>> {
    use crate::media::builders::prelude::*;
    use crate::media::table::media_ops;
    use crate::score::{score_ops, ScoreRecord};
    let out = PyList::empty(py);
    let mut media: Types = Vec::new();
    media_ops!(python_types! { media });
    describe(
        py,
        &out,
        crate::media::builders::operations(),
        &media,
        &|op| match op.scope.as_str() {
            "workspace" => vec!["MediaPlayer"],
            "layer" => vec!["Layer"],
            _ => vec!["MediaPlayer", "Layer"],
        },
    )?;
    let mut score: Types = Vec::new();
    score_ops!(python_types! { score });
    describe(
        py,
        &out,
        crate::score::builders::operations(),
        &score,
        &|_| vec!["Scoreboard"],
    )?;
    Ok(out.unbind())
}
