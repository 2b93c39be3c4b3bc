//! The operation machinery of the binding: a [`Job`] is what a method runs on its core client
//! (a call of an operation table, a confirmable command, or other core work); [`block`] runs
//! one with the GIL released and [`awaitable`] hands it to asyncio (the methods a `#[twin]`
//! declaration makes call them: see `showctl_macros`; `operation_table!` makes the methods of
//! the operation tables, `showctl::media::table` and `showctl::score::table`, the same way).

use std::future::Future;

use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule, PyString, PyTuple, PyType};

use super::convert::Reply;
use super::rt;
use showctl::error::Result;
use showctl::media::builders::Confirmable;
use showctl::media::MediaClient;
use showctl::operation::{Call, Client};

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

/// An `_async` method: the native function (its job made and handed to asyncio at the call, so
/// bad arguments raise there, before anything is awaited), seen by `inspect` as the `async def`
/// of the stubs. A class attribute, made by `#[twins]` and `operation_table!`
/// (`#[classattr]`). `inspect.iscoroutinefunction` reads, on the twin or its bound method,
/// what it reads of a function-like object (CPython 3.10 and later): `__code__` with the
/// `CO_COROUTINE` flag, with `__name__`, `__defaults__`, `__kwdefaults__` and `__annotations__`.
/// `inspect.signature` and `help()` follow `__wrapped__` to the native function's
/// `__text_signature__`. Each coroutine it returns is named after the class and method, so a
/// forgotten `await` warns "coroutine 'Layer.set_opacity_async' was never awaited".
#[pyclass(module = "showctl._core", name = "async_method", frozen, dict)]
pub(crate) struct AsyncTwin {
    native: Py<PyAny>,
    name: Py<PyAny>,
    qualname: Py<PyAny>,
}

/// The code object of a coroutine function (it carries the `CO_COROUTINE` flag).
static CODE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static METHOD_TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

impl AsyncTwin {
    /// The twin of `native` (a function taking the instance first, or a method of a base
    /// class), as a class attribute of `owner`.
    pub(crate) fn new(
        py: Python<'_>,
        native: Bound<'_, PyAny>,
        owner: &Bound<'_, PyType>,
    ) -> PyResult<Py<AsyncTwin>> {
        let owner = owner.name()?;
        let name = native.getattr(intern!(py, "__name__"))?;
        let qualname = PyString::new(py, &format!("{owner}.{name}"));
        let code = CODE.get_or_try_init(py, || {
            let source = c"async def coroutine(): pass";
            let module = PyModule::from_code(py, source, c"showctl/_twin.py", c"showctl._twin")?;
            Ok::<_, PyErr>(module.getattr("coroutine")?.getattr("__code__")?.unbind())
        })?;
        let twin = Bound::new(
            py,
            AsyncTwin {
                native: native.clone().unbind(),
                name: name.clone().unbind(),
                qualname: qualname.clone().into_any().unbind(),
            },
        )?;
        let dict = twin.getattr(intern!(py, "__dict__"))?;
        dict.set_item("__wrapped__", &native)?;
        dict.set_item("__name__", name)?;
        dict.set_item("__qualname__", qualname)?;
        dict.set_item("__doc__", native.getattr(intern!(py, "__doc__"))?)?;
        dict.set_item("__code__", code)?;
        dict.set_item("__defaults__", py.None())?;
        dict.set_item("__kwdefaults__", py.None())?;
        dict.set_item("__annotations__", PyDict::new(py))?;
        Ok(twin.unbind())
    }

    /// The twin of the awaitable method `name` of `Base`, as a class attribute of `Owner`.
    pub(crate) fn inherited<Base: pyo3::PyTypeInfo, Owner: pyo3::PyTypeInfo>(
        py: Python<'_>,
        name: &str,
    ) -> PyResult<Py<AsyncTwin>> {
        let mut native = py.get_type::<Base>().getattr(name)?;
        if let Ok(twin) = native.cast::<AsyncTwin>() {
            native = twin.get().native.bind(py).clone(); // a `#[twin]` of the base
        }
        AsyncTwin::new(py, native, &py.get_type::<Owner>())
    }

    /// An argument error of the native function, named as the method is (`set_opacity_async()
    /// missing ...` → `Layer.set_opacity_async() missing ...`, as a method's own errors are).
    fn named(&self, py: Python<'_>, e: PyErr) -> PyErr {
        if !e.is_instance_of::<PyTypeError>(py) {
            return e;
        }
        let (name, qualname) = (self.name.bind(py), self.qualname.bind(py));
        let message = e.value(py).to_string();
        match message.strip_prefix(&format!("{name}()")) {
            Some(rest) => PyTypeError::new_err(format!("{qualname}(){rest}")),
            None => e,
        }
    }
}

#[pymethods]
impl AsyncTwin {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let call = self.native.bind(py).call(args, kwargs);
        let coroutine = call.map_err(|e| self.named(py, e))?;
        coroutine.setattr(intern!(py, "__name__"), self.name.bind(py))?;
        coroutine.setattr(intern!(py, "__qualname__"), self.qualname.bind(py))?;
        Ok(coroutine)
    }

    /// On the class, the twin; on an instance, a bound method (what `inspect` unwraps).
    fn __get__(
        slf: Bound<'_, Self>,
        obj: Option<Bound<'_, PyAny>>,
        _cls: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        match obj {
            Some(obj) if !obj.is_none() => {
                let method = METHOD_TYPE.import(py, "types", "MethodType")?;
                Ok(method.call1((slf, obj))?.unbind())
            }
            _ => Ok(slf.into_any().unbind()),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<async method {}>", self.qualname.bind(py))
    }

    /// `_is_coroutine`: asyncio's mark of a coroutine function that is not a Python function,
    /// which `asyncio.iscoroutinefunction` reads (its only way on CPython 3.9, whose `inspect`
    /// accepts real functions only; APScheduler asks asyncio). Looked up when asked for, so
    /// `import showctl` does not import asyncio.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        if name == "_is_coroutine" {
            let coroutines = py.import(intern!(py, "asyncio.coroutines"))?;
            return Ok(coroutines.getattr(intern!(py, "_is_coroutine"))?.unbind());
        }
        Err(pyo3::exceptions::PyAttributeError::new_err(format!(
            "'async_method' object has no attribute '{name}'"
        )))
    }
}
