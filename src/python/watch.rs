//! The Python side of a core watch (a poller with an async "next" method): one macro builds
//! the iterator class, so every watch blocks, awaits, converts and is shared the same way.

/// Declare a frozen pyclass `$class` (Python name `$name`) over the core watch `$watch`: an
/// iterator (`__next__` blocks with the GIL released, Ctrl-C aware) and an async iterator
/// (`__anext__` on the runtime), both taking the next item from `$watch::$next()` and turning
/// it into `$item` with `$convert(py, item)`. The watch sits behind an async mutex, so callers
/// on several threads or tasks take items one at a time and a poll is never run twice at once.
/// `$class::new(watch)` wraps a watch; `self.locked(py, f)` and
/// `self.locked_async(py, f, convert)` run `f` on the locked watch (`f` takes the lock's guard
/// and returns a future), as `__next__` and `__anext__` do, and `self.job(f)` makes of `f` the
/// job of a `#[twin]` method (methods of the class's own are written in an ordinary
/// `#[pymethods]` block).
macro_rules! watch_class {
    (
        $(#[$doc:meta])*
        $class:ident, $name:tt, $watch:ty, $next:ident, $convert:path, $item:ty
    ) => {
        $(#[$doc])*
        #[::pyo3::pyclass(module = "showctl._core", name = $name, frozen)]
        pub struct $class {
            inner: ::std::sync::Arc<::tokio::sync::Mutex<$watch>>,
        }

        impl $class {
            pub fn new(w: $watch) -> Self {
                $class {
                    inner: ::std::sync::Arc::new(::tokio::sync::Mutex::new(w)),
                }
            }

            /// Run `f` on the locked watch and wait for it with the GIL released.
            fn locked<T, F, Fut>(&self, py: ::pyo3::Python<'_>, f: F) -> ::pyo3::PyResult<T>
            where
                T: Send,
                F: FnOnce(::tokio::sync::OwnedMutexGuard<$watch>) -> Fut + Send,
                Fut: ::std::future::Future<Output = $crate::error::Result<T>> + Send,
            {
                let inner = self.inner.clone();
                $crate::python::rt::wait(py, async move { f(inner.lock_owned().await).await })
            }

            /// Run `f` on the locked watch as an asyncio awaitable; `convert` makes its result.
            fn locked_async<'py, T, F, Fut, C, R>(
                &self,
                py: ::pyo3::Python<'py>,
                f: F,
                convert: C,
            ) -> ::pyo3::PyResult<::pyo3::Bound<'py, ::pyo3::PyAny>>
            where
                T: Send + 'static,
                F: FnOnce(::tokio::sync::OwnedMutexGuard<$watch>) -> Fut + Send + 'static,
                Fut: ::std::future::Future<Output = $crate::error::Result<T>> + Send + 'static,
                C: FnOnce(::pyo3::Python<'_>, T) -> ::pyo3::PyResult<R> + Send + 'static,
                R: for<'a> ::pyo3::IntoPyObject<'a> + Send + 'static,
                for<'a> <R as ::pyo3::IntoPyObject<'a>>::Error: Into<::pyo3::PyErr>,
            {
                let inner = self.inner.clone();
                $crate::python::rt::spawn(
                    py,
                    async move { f(inner.lock_owned().await).await },
                    convert,
                )
            }

            /// `f` run on the locked watch, as the job of a `#[twin]` method.
            #[allow(dead_code)] // not every watch has a method of its own
            fn job<T, F, Fut>(
                &self,
                f: F,
            ) -> $crate::python::ops::Work<
                impl ::std::future::Future<Output = $crate::error::Result<T>> + Send + 'static,
            >
            where
                T: Send + 'static,
                F: FnOnce(::tokio::sync::OwnedMutexGuard<$watch>) -> Fut + Send + 'static,
                Fut: ::std::future::Future<Output = $crate::error::Result<T>> + Send + 'static,
            {
                let inner = self.inner.clone();
                $crate::python::ops::Work(async move { f(inner.lock_owned().await).await })
            }
        }

        impl $crate::python::ops::Handle for $class {
            type Client = ();
            fn client(&self) -> &() {
                &()
            }
        }

        #[::pyo3::pymethods]
        impl $class {
            fn __iter__(slf: ::pyo3::Py<Self>) -> ::pyo3::Py<Self> {
                slf
            }
            fn __next__(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<$item> {
                let item = self.locked(py, |mut w| async move { w.$next().await })?;
                $convert(py, item)
            }
            fn __aiter__(slf: ::pyo3::Py<Self>) -> ::pyo3::Py<Self> {
                slf
            }
            fn __anext__<'py>(
                &self,
                py: ::pyo3::Python<'py>,
            ) -> ::pyo3::PyResult<::pyo3::Bound<'py, ::pyo3::PyAny>> {
                self.locked_async(py, |mut w| async move { w.$next().await }, $convert)
            }
        }
    };
}

pub(crate) use watch_class;
