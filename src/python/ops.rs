//! The operation machinery of the binding: a [`Job`] is what a method runs on its core client
//! (a call of an operation table, a confirmable command, or other core work); [`block`] runs
//! one with the GIL released and [`awaitable`] hands it to asyncio (the methods a `#[twin]`
//! declaration makes call them: see `showctl_macros`). The table's one consumer, `binding!`,
//! turns an operation table (`crate::media::table`, the scoreboard's in `crate::score`) into
//! the methods, their `_async` twins, the `Command` constructors and the Python types of each
//! operation; it is expanded once per table, in [`super::table`].

use std::future::Future;

use pyo3::prelude::*;

use super::convert::Reply;
use super::rt;
use crate::error::Result;
use crate::media::builders::Confirmable;
use crate::media::MediaClient;
use crate::operation::{Call, Client};

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

/// A binding class whose methods run jobs: its core client (what a `#[twin]` method's job
/// runs on; `()` for a class whose jobs hold what they need).
pub(crate) trait Handle {
    type Client: Clone;
    fn client(&self) -> &Self::Client;
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

/// The binding of an operation table, in one expansion per table:
/// `table!(binding! { types_fn, core_builders_module, Client, Layer, Command })` makes
///
/// - the methods of the client class over the workspace groups (and `both_commands` with
///   `layer=None`), of `Layer` over the layer groups (and `both_commands` on its own layer),
///   each one declaration marked `#[twin]` from which `showctl_macros::twins` makes the method
///   and its `_async` twin;
/// - the `Command` constructors over the command groups: each takes the arguments of the
///   method of the same name, the layer first for a layer's command (`layer=None`: the
///   workspace, where both exist), and `confirm` where the method does;
/// - `fn types_fn() -> Types`: the Python types of each operation, for [`_operations`].
///
/// `_` for `Layer` or `Command` leaves out their methods (the scoreboard has neither).
/// Identifiers and arguments are checked when the method is called, so the `_async` twin
/// refuses bad input before anything is awaited.
macro_rules! binding {
    ({ $types:ident, $ops:ident, $client:ident, $layer:tt, $command:tt }
     workspace_reads { $(
        $(#[doc = $rd:literal])+
        $rn:ident / $ran:ident [$($rid:ident),*] () -> $rret:ty { $($rtt:tt)* }
            $(=> $rcall:block)?
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
        $crate::python::ops::methods_of!($client {
            $(
                $(#[doc = $rd])+
                #[twin]
                #[pyo3(signature = ($($rid),*))]
                fn $rn(
                    &self,
                    $($rid: &Bound<'_, PyAny>),*
                ) -> PyResult<$crate::operation::Call<$rret>> {
                    $(let $rid = $crate::python::args::ident($rid, stringify!($rid))?;)*
                    Ok($ops::workspace::$rn($(&$rid),*)?)
                }
            )*
            $(
                $(#[doc = $wd])+
                #[twin]
                #[pyo3(signature = (
                    $($wid,)* $($wp,)? $($wdp = $wdd,)? $(*, $wconfirm = false)?
                ))]
                fn $wn(
                    &self,
                    $($wid: &Bound<'_, PyAny>,)*
                    $($wp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$wdp)] $wdp: $wdt,)?
                    $(#[pyo3(from_py_with = $crate::python::args::confirm)] $wconfirm: bool)?
                ) -> PyResult<$crate::media::builders::Confirmable> {
                    $(let $wid = $crate::python::args::ident($wid, stringify!($wid))?;)*
                    $(let $wp = $crate::python::args::arg::<$wt>($wp, stringify!($wp))?;)?
                    Ok($ops::workspace::$wn($(&$wid,)* $($wp,)? $($wdp,)? $($wconfirm)?)?)
                }
            )*
            $(
                $(#[doc = $bd])+
                #[twin]
                #[pyo3(signature = ($(*, $bconfirm = false)?))]
                fn $bn(
                    &self,
                    $(#[pyo3(from_py_with = $crate::python::args::confirm)] $bconfirm: bool)?
                ) -> PyResult<$crate::media::builders::Confirmable> {
                    Ok($ops::both::$bn(None $(, $bconfirm)?)?)
                }
            )*
        });

        $crate::python::ops::methods_of!($layer {
            $(
                $(#[doc = $ld])+
                #[twin]
                #[pyo3(signature = ($($lid),*))]
                fn $ln(
                    &self,
                    $($lid: &Bound<'_, PyAny>),*
                ) -> PyResult<$crate::operation::Call<$lret>> {
                    $(let $lid = $crate::python::args::ident($lid, stringify!($lid))?;)*
                    Ok($ops::layer::$ln(&self.ident $(, &$lid)*)?)
                }
            )*
            $(
                $(#[doc = $cd])+
                #[twin]
                #[pyo3(signature = (
                    $($cid,)* $($cp,)? $($cdp = $cdd,)? $(*, $cconfirm = false)?
                ))]
                fn $cn(
                    &self,
                    $($cid: &Bound<'_, PyAny>,)*
                    $($cp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$cdp)] $cdp: $cdt,)?
                    $(#[pyo3(from_py_with = $crate::python::args::confirm)] $cconfirm: bool)?
                ) -> PyResult<$crate::media::builders::Confirmable> {
                    $(let $cid = $crate::python::args::ident($cid, stringify!($cid))?;)*
                    $(let $cp = $crate::python::args::arg::<$ct>($cp, stringify!($cp))?;)?
                    Ok($ops::layer::$cn(
                        &self.ident, $(&$cid,)* $($cp,)? $($cdp,)? $($cconfirm)?
                    )?)
                }
            )*
            $(
                $(#[doc = $bd])+
                #[twin]
                #[pyo3(signature = ($(*, $bconfirm = false)?))]
                fn $bn(
                    &self,
                    $(#[pyo3(from_py_with = $crate::python::args::confirm)] $bconfirm: bool)?
                ) -> PyResult<$crate::media::builders::Confirmable> {
                    Ok($ops::both::$bn(Some(&self.ident) $(, $bconfirm)?)?)
                }
            )*
        });

        $crate::python::ops::methods_of!($command {
            $(
                $(#[doc = $wd])+
                #[staticmethod]
                #[pyo3(signature = (
                    $($wid,)* $($wp,)? $($wdp = $wdd,)? $(*, $wconfirm = false)?
                ))]
                fn $wn(
                    $($wid: &Bound<'_, PyAny>,)*
                    $($wp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$wdp)] $wdp: $wdt,)?
                    $(#[pyo3(from_py_with = $crate::python::args::confirm)] $wconfirm: bool)?
                ) -> PyResult<Self> {
                    $(let $wid = $crate::python::args::ident($wid, stringify!($wid))?;)*
                    $(let $wp = $crate::python::args::arg::<$wt>($wp, stringify!($wp))?;)?
                    let job =
                        $ops::workspace::$wn($(&$wid,)* $($wp,)? $($wdp,)? $($wconfirm)?)?;
                    Ok(Self { job })
                }
            )*
            $(
                $(#[doc = $cd])+
                #[staticmethod]
                #[pyo3(signature = (
                    $cl, $($cid,)* $($cp,)? $($cdp = $cdd,)? $(*, $cconfirm = false)?
                ))]
                fn $cn(
                    $cl: &Bound<'_, PyAny>,
                    $($cid: &Bound<'_, PyAny>,)*
                    $($cp: &Bound<'_, PyAny>,)?
                    $(#[pyo3(from_py_with = $crate::python::args::$cdp)] $cdp: $cdt,)?
                    $(#[pyo3(from_py_with = $crate::python::args::confirm)] $cconfirm: bool)?
                ) -> PyResult<Self> {
                    let $cl = Self::layer_arg($cl)?;
                    $(let $cid = $crate::python::args::ident($cid, stringify!($cid))?;)*
                    $(let $cp = $crate::python::args::arg::<$ct>($cp, stringify!($cp))?;)?
                    let job = $ops::layer::$cn(
                        &$cl, $(&$cid,)* $($cp,)? $($cdp,)? $($cconfirm)?
                    )?;
                    Ok(Self { job })
                }
            )*
            $(
                $(#[doc = $bd])+
                #[staticmethod]
                #[pyo3(signature = ($bl = None $(, *, $bconfirm = false)?))]
                fn $bn(
                    $bl: Option<&Bound<'_, PyAny>>
                    $(, #[pyo3(from_py_with = $crate::python::args::confirm)] $bconfirm: bool)?
                ) -> PyResult<Self> {
                    let $bl = $bl.map(Self::layer_arg).transpose()?;
                    let job = $ops::both::$bn($bl.as_ref() $(, $bconfirm)?)?;
                    Ok(Self { job })
                }
            )*
        });

        /// The Python types of each operation of the table.
        #[allow(unused_imports)] // `Arg` for a table without commands
        fn $types() -> $crate::python::ops::Types {
            use $crate::python::args::FromPyArg as Arg;
            use $crate::python::convert::Reply;
            vec![
                $((
                    "workspace", stringify!($rn), None, <$rret as Reply>::py_type(),
                ),)*
                $(("layer", stringify!($ln), None, <$lret as Reply>::py_type()),)*
                $((
                    "workspace", stringify!($wn),
                    $crate::operation::first!(
                        $(Some(<$wt as Arg>::py_type()),)?
                        $(Some(stringify!($wdt).to_string()),)? None
                    ),
                    "None".to_string(),
                ),)*
                $((
                    "layer", stringify!($cn),
                    $crate::operation::first!(
                        $(Some(<$ct as Arg>::py_type()),)?
                        $(Some(stringify!($cdt).to_string()),)? None
                    ),
                    "None".to_string(),
                ),)*
                $(("both", stringify!($bn), None, "None".to_string()),)*
            ]
        }
    };
}

/// `#[pymethods]` (with `#[twins]`: see `showctl_macros`) on the class named first, or
/// nothing for `_`.
macro_rules! methods_of {
    (_ { $($items:tt)* }) => {};
    ($class:ident { $($items:tt)* }) => {
        #[::showctl_macros::twins]
        #[pymethods]
        impl $class {
            $($items)*
        }
    };
}

pub(crate) use {binding, methods_of};

/// The Python types of each operation of a table: (scope, name, argument type, return type).
pub(crate) type Types = Vec<(&'static str, &'static str, Option<String>, String)>;
