//! Running core futures from Python: blocking (GIL released, Ctrl-C honoured, on the calling
//! thread's own lane: see `runtime`) and asyncio (a coroutine whose future runs on the process
//! runtime, which is rebuilt after `fork()`, and is settled by the loop's completion queue:
//! see `bridge`; pyo3-async-runtimes' generic bridge for loops that cannot watch a socket).
//! Panics are caught (`showctl::error::guarded`) and become `ShowctlError`, never `PanicException`.
//! The plain way (`block_on` on the process runtime, `future_into_py` for every loop) was
//! measured against this and misses the latency goal: see
//! docs/decisions/0004-lanes-and-completion-queue.md.

use std::cell::OnceCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, OnceLock};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyCFunction;
use pyo3_async_runtimes::generic::{self, ContextExt, Runtime as GenericRuntime};
use pyo3_async_runtimes::TaskLocals;

use crate::errors::{finished, to_pyerr, Finished};
use showctl::embedder::{self, EmbedderLog};
use showctl::error::{guarded, Error};

fn register_at_exit(py: Python<'_>) -> PyResult<()> {
    // Mark the interpreter's exit and wait for the sections in progress (see `showctl::embedder`).
    let handler = PyCFunction::new_closure(py, Some(c"_showctl_at_exit"), None, |args, _| {
        args.py().detach(embedder::exit)
    })?;
    py.import("atexit")?.call_method1("register", (handler,))?;
    let after_fork = PyCFunction::new_closure(py, Some(c"_showctl_after_fork"), None, |_, _| {
        embedder::after_fork()
    })?;
    // (POSIX only: there is no fork elsewhere.)
    if let Ok(register) = py.import("os")?.getattr("register_at_fork") {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("after_in_child", after_fork)?;
        register.call((), Some(&kwargs))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Logging
// ---------------------------------------------------------------------------------------------

static LOG_RESET: OnceLock<pyo3_log::ResetHandle> = OnceLock::new();

/// After a record went to Python's `logging`: pyo3-log leaves an exception raised inside
/// `logging` (a failing handler or filter, or Ctrl-C arriving while Python code of the logging
/// module runs) set on the thread, where it would surface later as a SystemError from an
/// unrelated call. A KeyboardInterrupt becomes a pending interrupt again (raised at Python's
/// next check); anything else is reported as unraisable: a log line never breaks a call.
fn clear_log_error() {
    Python::attach(|py| {
        if let Some(err) = PyErr::take(py) {
            if err.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                // SAFETY: PyErr_SetInterrupt only sets a flag; the GIL is held.
                unsafe { pyo3::ffi::PyErr_SetInterrupt() };
            } else {
                err.write_unraisable(py, None);
            }
        }
    });
}

/// Send the core's `log` records to Python's `logging` (called at import). The platform
/// certificate verifier is silenced: it logs every refused certificate at ERROR, which the
/// `ConnectError` raised for it already says (with the remedy).
fn init_logging(py: Python<'_>) {
    let Ok(logger) = pyo3_log::Logger::new(py, pyo3_log::Caching::LoggersAndLevels) else {
        return;
    };
    let mut logger = logger.filter_target("rustls_platform_verifier".into(), log::LevelFilter::Off);
    // The noisy libraries' warnings still come through. Decided here, so their records never
    // ask Python (or wait for the GIL) about their level.
    for quiet in embedder::QUIET_LOG_TARGETS {
        logger = logger.filter_target((*quiet).into(), log::LevelFilter::Info);
    }
    let handle = logger.reset_handle();
    // Records below the level Python's `logging` wants are dropped by pyo3-log's cache,
    // without the GIL (fan-out was 2.4× slower when every request waited for it).
    if log::set_boxed_logger(Box::new(EmbedderLog::new(logger, clear_log_error))).is_ok() {
        log::set_max_level(log::LevelFilter::Debug);
        let _ = LOG_RESET.set(handle);
    }
}

/// Forget the logging levels cached on the Rust side, so a configuration made after import
/// (`logging.basicConfig(level=logging.DEBUG)` after `import showctl`) applies to the next
/// client. Called whenever a client is built.
pub fn refresh_logging() {
    if let Some(handle) = LOG_RESET.get() {
        handle.reset();
    }
}

/// Set up the binding at import: logging, the exit guard, the main thread.
pub fn init(py: Python<'_>) -> PyResult<()> {
    init_logging(py);
    register_at_exit(py)?;
    let threading = py.import("threading")?;
    let main = threading.call_method0("main_thread")?;
    let current = threading.call_method0("current_thread")?;
    embedder::set_main_thread(main.is(&current));
    Ok(())
}

/// Run a core future to completion with the GIL released, on the calling thread's lane (see
/// `runtime`): a task it starts with `tokio::spawn` runs only while this thread is in a call,
/// so background work goes to `runtime::get().spawn`. On the main thread a pending signal
/// (Ctrl-C) is checked every 50 ms and ends the call with its exception (KeyboardInterrupt);
/// the request is dropped, which closes its connection.
pub fn wait<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    T: Send,
    F: Future<Output = Result<T, Error>> + Send,
{
    let every = embedder::signal_poll();
    let outcome =
        py.detach(|| embedder::block_on(fut, every, || Python::attach(|py| py.check_signals())));
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
        embedder::spawn(fut)
    }

    fn spawn_blocking<F>(f: F) -> Self::JoinHandle
    where
        F: FnOnce() + Send + 'static,
    {
        embedder::spawn_blocking(f)
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

/// `showctl._awaitable.run`, `async def run(start): return await start()`: turns the asyncio
/// future that `start` makes into a real coroutine, so the `_async` methods behave as the
/// `async def` of their stubs (`asyncio.run(board.scores_async())` works, nothing starts before
/// the first `await`). A file of the package, so a traceback through it names a file that is
/// there.
static RUN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn run_helper(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    RUN.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("showctl._awaitable")?.getattr("run")?.unbind())
    })
    .map(|f| f.bind(py))
}

/// An awaitable that resolves at once to `value` (for `__aenter__` and the like).
pub fn ready<R>(py: Python<'_>, value: R) -> PyResult<Bound<'_, PyAny>>
where
    R: for<'a> IntoPyObject<'a> + Send + 'static,
    for<'a> <R as IntoPyObject<'a>>::Error: Into<PyErr>,
{
    spawn(py, async { Ok(()) }, move |_, ()| Ok(value))
}

/// Refuse, with a message saying what to do, an awaitable awaited outside a running asyncio
/// (or uvloop) event loop: under trio, curio or a hand-made coroutine driver there is none.
fn require_asyncio(py: Python<'_>) -> PyResult<()> {
    let running = py
        .import(pyo3::intern!(py, "asyncio"))?
        .call_method0(pyo3::intern!(py, "get_running_loop"));
    match running {
        Ok(_) => Ok(()),
        Err(_) => Err(PyRuntimeError::new_err(
            "showctl's _async calls need asyncio (or uvloop): await them in code run by an \
             asyncio event loop (asyncio.run()); under another event loop (trio, curio) call \
             the blocking methods from a worker thread instead (trio.to_thread.run_sync)",
        )),
    }
}

/// Return a coroutine for a core future. The future is spawned on the process runtime when the
/// coroutine is first awaited (in the running event loop); `convert` builds the Python value
/// once the future is done (with the GIL held, on the loop's thread). Cancelling the awaiting
/// task drops the Rust future. The running loop's completion queue (`bridge`) settles the
/// future; loops that cannot watch a socket go through pyo3-async-runtimes.
pub fn spawn<'py, T, F, C, R>(py: Python<'py>, fut: F, convert: C) -> PyResult<Bound<'py, PyAny>>
where
    T: Send + 'static,
    F: Future<Output = Result<T, Error>> + Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<R> + Send + 'static,
    R: for<'a> IntoPyObject<'a> + Send + 'static,
    for<'a> <R as IntoPyObject<'a>>::Error: Into<PyErr>,
{
    let slot = Mutex::new(Some((fut, convert)));
    let start = PyCFunction::new_closure(
        py,
        Some(c"start"),
        None,
        move |args, _kwargs| -> PyResult<Py<PyAny>> {
            let py = args.py();
            require_asyncio(py)?;
            let taken = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
            let (fut, convert) = taken.ok_or_else(|| {
                PyRuntimeError::new_err("this showctl awaitable was already awaited")
            })?;
            #[cfg(unix)]
            let (fut, convert) = match crate::bridge::spawn(py, fut, convert)? {
                Ok(awaitable) => return Ok(awaitable.unbind()),
                Err(unstarted) => unstarted,
            };
            let awaitable = generic::future_into_py::<ShowRuntime, _, Converted>(py, async move {
                Ok(Converted(finished(guarded(fut).await, convert)))
            })?;
            Ok(awaitable.unbind())
        },
    )?;
    run_helper(py)?.call1((start,))
}

/// A finished result on the generic bridge, made a Python value when it hands it over.
pub struct Converted(Finished);

impl<'py> IntoPyObject<'py> for Converted {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> Result<Self::Output, Self::Error> {
        Ok((self.0)(py)?.into_bound(py))
    }
}
