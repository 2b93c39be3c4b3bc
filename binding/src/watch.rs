//! The Python side of a core watch (a poller with an async "next" method): every watch class
//! holds its watch in a [`Shared`], so every watch blocks, awaits and is shared the same way,
//! and is made by [`watch_class!`], so every one iterates the same way.

use std::future::Future;
use std::sync::Arc;

use pyo3::prelude::*;
use tokio::sync::{Mutex, OwnedMutexGuard};

use super::jobs::Work;
use showctl::error::Result;
use showctl::poll::Watch;

/// A core watch behind an async mutex: callers on several threads or tasks take items one at
/// a time, and a poll is never run twice at once. Each method runs `f` (which takes the lock's
/// guard and returns a future) on the locked watch.
pub struct Shared<W>(Arc<Mutex<W>>);

impl<W: Send + 'static> Shared<W> {
    pub fn new(w: W) -> Self {
        Shared(Arc::new(Mutex::new(w)))
    }

    /// Run `f` on the locked watch and wait for it with the GIL released (Ctrl-C aware): what
    /// `__next__` does.
    pub fn locked<T, F, Fut>(&self, py: Python<'_>, f: F) -> PyResult<T>
    where
        T: Send,
        F: FnOnce(OwnedMutexGuard<W>) -> Fut + Send,
        Fut: Future<Output = Result<T>> + Send,
    {
        let inner = self.0.clone();
        super::rt::wait(py, async move { f(inner.lock_owned().await).await })
    }

    /// Run `f` on the locked watch as an asyncio awaitable; `convert` makes its result: what
    /// `__anext__` does.
    pub fn locked_async<'py, T, F, Fut, C, R>(
        &self,
        py: Python<'py>,
        f: F,
        convert: C,
    ) -> PyResult<Bound<'py, PyAny>>
    where
        T: Send + 'static,
        F: FnOnce(OwnedMutexGuard<W>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T>> + Send + 'static,
        C: FnOnce(Python<'_>, T) -> PyResult<R> + Send + 'static,
        R: for<'a> IntoPyObject<'a> + Send + 'static,
        for<'a> <R as IntoPyObject<'a>>::Error: Into<PyErr>,
    {
        let inner = self.0.clone();
        let job = async move { f(inner.lock_owned().await).await };
        super::rt::spawn(py, job, convert)
    }

    /// `f` run on the locked watch, as the job of a `#[twin]` method.
    pub fn job<T, F, Fut>(&self, f: F) -> Work<impl Future<Output = Result<T>> + Send + 'static>
    where
        T: Send + 'static,
        F: FnOnce(OwnedMutexGuard<W>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T>> + Send + 'static,
    {
        let inner = self.0.clone();
        Work(async move { f(inner.lock_owned().await).await })
    }
}

impl<W: Watch> Shared<W> {
    /// The next item, waited for with the GIL released (`__next__`).
    pub fn next<R>(
        &self,
        py: Python<'_>,
        convert: fn(Python<'_>, W::Item) -> PyResult<R>,
    ) -> PyResult<R> {
        let item = self.locked(py, |mut w| async move { w.next_item().await })?;
        convert(py, item)
    }

    /// The next item as an asyncio awaitable (`__anext__`).
    pub fn anext<'py, R>(
        &self,
        py: Python<'py>,
        convert: fn(Python<'_>, W::Item) -> PyResult<R>,
    ) -> PyResult<Bound<'py, PyAny>>
    where
        R: for<'a> IntoPyObject<'a> + Send + 'static,
        for<'a> <R as IntoPyObject<'a>>::Error: Into<PyErr>,
    {
        self.locked_async(py, |mut w| async move { w.next_item().await }, convert)
    }
}

/// A watch class: `$py`, the Python class `$name`, holds a `Shared<$watch>` and is an iterator
/// and an async iterator of what `$convert` makes of each item.
macro_rules! watch_class {
    ($(#[$doc:meta])* $py:ident($name:literal) over $watch:ty, each $convert:path) => {
        $(#[$doc])*
        #[pyclass(module = "showctl._core", name = $name, frozen)]
        pub struct $py(pub(crate) $crate::watch::Shared<$watch>);

        #[pymethods]
        impl $py {
            fn __iter__(slf: Py<Self>) -> Py<Self> {
                slf
            }
            fn __next__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                Ok(self.0.next(py, $convert)?.into_any())
            }
            fn __aiter__(slf: Py<Self>) -> Py<Self> {
                slf
            }
            fn __anext__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                self.0.anext(py, $convert)
            }
        }
    };
}
pub(crate) use watch_class;
