//! Running core futures from Python: blocking (GIL released, Ctrl-C honoured) and asyncio
//! (through pyo3-async-runtimes' generic bridge on the process runtime, which is rebuilt after
//! `fork()`). Panics are caught here and become `ShowctlError`, never `PanicException`.

use std::cell::OnceCell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::Duration;

use futures::FutureExt;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use pyo3_async_runtimes::generic::{self, ContextExt, Runtime as GenericRuntime};
use pyo3_async_runtimes::TaskLocals;

use crate::error::Error;
use crate::python::errors::to_pyerr;
use crate::runtime;

/// How often a blocking call on the main thread looks for a pending signal (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

static MAIN_THREAD: OnceLock<Option<std::thread::ThreadId>> = OnceLock::new();

/// Remember the main thread (called at import).
pub fn init(py: Python<'_>) -> PyResult<()> {
    let threading = py.import("threading")?;
    let main = threading.call_method0("main_thread")?;
    let current = threading.call_method0("current_thread")?;
    let on_main = main.is(&current);
    let _ = MAIN_THREAD.set(on_main.then(|| std::thread::current().id()));
    Ok(())
}

fn on_main_thread() -> bool {
    match MAIN_THREAD.get() {
        Some(Some(id)) => *id == std::thread::current().id(),
        // Imported off the main thread: check signals everywhere (harmless elsewhere).
        _ => true,
    }
}

pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> Error {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::Internal(format!("internal error in showctl (please report): {msg}"))
}

/// Catch a panic inside a core future and turn it into an error.
pub async fn guarded<T, F>(fut: F) -> Result<T, Error>
where
    F: Future<Output = Result<T, Error>>,
{
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(p) => Err(panic_message(p)),
    }
}

/// Run a core future to completion with the GIL released, on the calling thread's lane (see
/// `runtime`). On the main thread a pending signal (Ctrl-C) is checked every 50 ms and ends the
/// call with its exception (KeyboardInterrupt); the request is dropped, which closes its
/// connection.
pub fn wait<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    T: Send,
    F: Future<Output = Result<T, Error>> + Send,
{
    if runtime::inside_runtime() {
        return Err(to_pyerr(
            py,
            Error::Internal(
                "a blocking showctl call was made from inside its own runtime thread; \
                 use the _async method there"
                    .into(),
            ),
        ));
    }
    let check_signals = on_main_thread();
    let outcome: Result<Result<T, Error>, PyErr> = py.detach(|| {
        runtime::block_on_here(async {
            let fut = guarded(fut);
            if !check_signals {
                return Ok(fut.await);
            }
            tokio::pin!(fut);
            loop {
                tokio::select! {
                    r = &mut fut => return Ok(r),
                    _ = tokio::time::sleep(SIGNAL_POLL) => {
                        Python::attach(|py| py.check_signals())?;
                    }
                }
            }
        })
    });
    match outcome {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_pyerr(py, e)),
        Err(signal) => Err(signal),
    }
}

/// The pyo3-async-runtimes bridge, spawning on the fork-aware process runtime.
pub struct ShowRuntime;

tokio::task_local! {
    static TASK_LOCALS: OnceCell<TaskLocals>;
}

impl GenericRuntime for ShowRuntime {
    type JoinError = tokio::task::JoinError;
    type JoinHandle = tokio::task::JoinHandle<()>;

    fn spawn<F>(fut: F) -> Self::JoinHandle
    where
        F: Future<Output = ()> + Send + 'static,
    {
        runtime::get().spawn(fut)
    }

    fn spawn_blocking<F>(f: F) -> Self::JoinHandle
    where
        F: FnOnce() + Send + 'static,
    {
        runtime::get().spawn_blocking(f)
    }
}

impl ContextExt for ShowRuntime {
    fn scope<F, R>(locals: TaskLocals, fut: F) -> Pin<Box<dyn Future<Output = R> + Send>>
    where
        F: Future<Output = R> + Send + 'static,
    {
        let cell = OnceCell::new();
        let _ = cell.set(locals);
        Box::pin(TASK_LOCALS.scope(cell, fut))
    }

    fn get_task_locals() -> Option<TaskLocals> {
        TASK_LOCALS
            .try_with(|c| c.get().cloned())
            .unwrap_or_default()
    }
}

/// Return an asyncio awaitable for a core future. `convert` builds the Python value once the
/// future is done (with the GIL held, on the loop's thread). Cancelling the awaitable drops the
/// Rust future. The running loop's completion queue (`bridge`) settles it; loops that cannot
/// watch a socket go through pyo3-async-runtimes.
pub fn spawn<'py, T, F, C, R>(py: Python<'py>, fut: F, convert: C) -> PyResult<Bound<'py, PyAny>>
where
    T: Send + 'static,
    F: Future<Output = Result<T, Error>> + Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<R> + Send + 'static,
    R: for<'a> IntoPyObject<'a> + Send + 'static,
    for<'a> <R as IntoPyObject<'a>>::Error: Into<PyErr>,
{
    #[cfg(unix)]
    let (fut, convert) = match crate::python::bridge::spawn(py, fut, convert)? {
        Ok(awaitable) => return Ok(awaitable),
        Err(unstarted) => unstarted,
    };
    generic::future_into_py::<ShowRuntime, _, Converted<R>>(py, async move {
        let value = guarded(fut).await;
        Ok(Converted::new(value, convert))
    })
}

type Convert<R> = Box<dyn FnOnce(Python<'_>) -> PyResult<R> + Send>;

/// A finished result whose conversion to Python waits until the GIL is held.
pub struct Converted<R> {
    make: Convert<R>,
}

impl<R> Converted<R> {
    fn new<T, C>(value: Result<T, Error>, convert: C) -> Self
    where
        T: Send + 'static,
        C: FnOnce(Python<'_>, T) -> PyResult<R> + Send + 'static,
    {
        Converted {
            make: Box::new(move |py| match value {
                Ok(v) => convert(py, v),
                Err(e) => Err(to_pyerr(py, e)),
            }),
        }
    }
}

impl<'py, R> IntoPyObject<'py> for Converted<R>
where
    R: IntoPyObject<'py>,
    R::Error: Into<PyErr>,
{
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> Result<Self::Output, Self::Error> {
        let value = (self.make)(py)?;
        value.into_bound_py_any(py)
    }
}
