//! Completing asyncio futures from the runtime without taking the GIL there.
//!
//! Each event loop gets a completion queue (`showctl::wake`). A finished call pushes its result
//! (still a Rust value) onto the queue and, when the queue was empty, writes one byte to a
//! socket pair whose other end the loop watches (`loop.add_reader`). The loop thread then drains the queue: it
//! converts each result to a Python object and sets it on its future, with the GIL it already
//! holds. No runtime thread ever waits for the GIL, and a burst of completions costs the loop one
//! wake-up, not one thread hand-off each.
//!
//! Loops that cannot watch a socket (the Windows proactor loop) use the generic bridge of
//! pyo3-async-runtimes instead (see `rt::spawn`).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use crate::errors::{finished, to_pyerr, Finished};
use showctl::error::Error;
use showctl::error::{guarded, panic_error as panic_message};
use showctl::runtime;
use showctl::wake::WakeQueue;

/// A finished call waiting for the loop thread: its future and how to build its result.
struct Completion {
    future: Py<PyAny>,
    make: Finished,
}

/// The loop's side: registered with `loop.add_reader`, and kept on the loop.
#[pyclass(module = "showctl._core", frozen)]
pub struct Bridge {
    queue: Arc<WakeQueue<Completion>>,
}

#[pymethods]
impl Bridge {
    /// Called by the event loop when a wake-up byte arrives: settle every finished call.
    fn drain(&self, py: Python<'_>) {
        for c in self.queue.drain() {
            settle(py, c);
        }
    }
}

fn settle(py: Python<'_>, c: Completion) {
    let fut = c.future.bind(py);
    if fut
        .call_method0(intern!(py, "cancelled"))
        .and_then(|r| r.is_truthy())
        .unwrap_or(true)
    {
        return;
    }
    let result = match std::panic::catch_unwind(AssertUnwindSafe(|| (c.make)(py))) {
        Ok(r) => r,
        Err(p) => Err(to_pyerr(py, panic_message(p))),
    };
    let outcome = match result {
        Ok(v) => fut.call_method1(intern!(py, "set_result"), (v,)),
        Err(e) => fut.call_method1(intern!(py, "set_exception"), (e.into_value(py),)),
    };
    if let Err(e) = outcome {
        e.write_unraisable(py, Some(fut));
    }
}

/// Cancels the Rust side when its asyncio future is cancelled.
#[pyclass(module = "showctl._core", frozen)]
pub struct CancelOnDone {
    task: tokio::task::AbortHandle,
}

#[pymethods]
impl CancelOnDone {
    fn __call__(&self, fut: &Bound<'_, PyAny>) -> PyResult<()> {
        if fut
            .call_method0(intern!(fut.py(), "cancelled"))?
            .is_truthy()?
        {
            self.task.abort();
        }
        Ok(())
    }
}

static GET_RUNNING_LOOP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
/// Bridges of loops that take no attributes (uvloop), by weak reference.
static BY_LOOP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

const ATTR: &str = "_showctl_bridge";

/// The bridge of the running loop (made on first use), or `None` when there is no running loop
/// or it cannot watch a socket.
fn bridge_of<'py>(py: Python<'py>) -> PyResult<Option<(Bound<'py, PyAny>, Bound<'py, Bridge>)>> {
    let get = GET_RUNNING_LOOP.get_or_try_init(py, || {
        py.import("asyncio")?
            .getattr("get_running_loop")
            .map(Bound::unbind)
    })?;
    let Ok(event_loop) = get.bind(py).call0() else {
        return Ok(None);
    };
    let attr = intern!(py, ATTR);
    let by_loop = || -> PyResult<&Bound<'py, PyAny>> {
        Ok(BY_LOOP
            .get_or_try_init(py, || {
                py.import("weakref")?
                    .getattr("WeakKeyDictionary")?
                    .call0()
                    .map(Bound::unbind)
            })?
            .bind(py))
    };
    let found = match event_loop.getattr_opt(attr)? {
        Some(b) => Some(b),
        None => by_loop()?.call_method1("get", (&event_loop,))?.into(),
    };
    if let Some(found) = found.filter(|b| !b.is_none()) {
        return Ok(found.cast_into::<Bridge>().ok().map(|b| (event_loop, b)));
    }
    let made = make_bridge(py, &event_loop)?;
    let stored: Bound<'py, PyAny> = match &made {
        Some(b) => b.clone().into_any(),
        None => py.None().into_bound(py), // remembered: this loop uses the generic bridge
    };
    if event_loop.setattr(attr, &stored).is_err() {
        by_loop()?.set_item(&event_loop, &stored)?;
    }
    Ok(made.map(|b| (event_loop, b)))
}

fn make_bridge<'py>(
    py: Python<'py>,
    event_loop: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, Bridge>>> {
    let queue = WakeQueue::new().map_err(|e| to_pyerr(py, e))?;
    let fd = queue.fd();
    let bridge = Bound::new(
        py,
        Bridge {
            queue: Arc::new(queue),
        },
    )?;
    let drain = bridge.getattr("drain")?;
    match event_loop.call_method1(intern!(py, "add_reader"), (fd, drain)) {
        Ok(_) => Ok(Some(bridge)),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyNotImplementedError>(py) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Start `fut` on the process runtime and return an asyncio future of the running loop that
/// the loop thread completes (see the module documentation). `None` when the running loop
/// (or the lack of one) needs the generic bridge.
pub fn spawn<'py, T, F, C, R>(
    py: Python<'py>,
    fut: F,
    convert: C,
) -> PyResult<Result<Bound<'py, PyAny>, (F, C)>>
where
    T: Send + 'static,
    F: Future<Output = Result<T, Error>> + Send + 'static,
    C: FnOnce(Python<'_>, T) -> PyResult<R> + Send + 'static,
    R: for<'a> IntoPyObject<'a> + Send + 'static,
    for<'a> <R as IntoPyObject<'a>>::Error: Into<PyErr>,
{
    let Some((event_loop, bridge)) = bridge_of(py)? else {
        return Ok(Err((fut, convert)));
    };
    let future = event_loop.call_method0(intern!(py, "create_future"))?;
    let queue = bridge.get().queue.clone();
    let target = future.clone().unbind();
    let task = runtime::get().spawn(async move {
        let make = finished(guarded(fut).await, convert);
        queue.push(Completion {
            future: target,
            make,
        });
    });
    let cancel = CancelOnDone {
        task: task.abort_handle(),
    };
    future.call_method1(intern!(py, "add_done_callback"), (cancel,))?;
    Ok(Ok(future))
}
