//! The constructors' signatures on CPython 3.9. Before 3.10, CPython drops a class's text
//! signature from the docstring of a type made from a spec (pyo3's classes), and an `abi3`
//! build cannot put it back; so there `inspect.signature(showctl.MediaPlayer)` raised
//! `ValueError` and `help()` and Jupyter's `?` showed no parameters. Each class with
//! constructor parameters gets `__signature__` (which `inspect` reads first), made when asked
//! for from the same text pyo3 puts in the docstring on 3.10 and later, by the function
//! `inspect` itself uses for a `__text_signature__`; `import showctl` still does not import
//! `inspect`.

use pyo3::impl_::pyclass::PyClassImpl;
use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::PyTypeInfo;

use super::feed::PyFeed;
use super::player::PyMediaPlayer;
use super::scoreboard::PyScoreboard;
use super::simulator::PySimulator;

/// A class's `__signature__` on CPython 3.9: the `inspect.Signature` of its parameters.
#[pyclass(module = "showctl._core", name = "constructor_signature", frozen)]
pub(crate) struct LazySignature {
    parameters: &'static str,
}

#[pymethods]
impl LazySignature {
    fn __get__<'py>(
        &self,
        py: Python<'py>,
        obj: Option<Bound<'py, PyAny>>,
        cls: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let owner = match (cls, obj) {
            (Some(cls), _) => cls,
            (None, Some(obj)) => obj.get_type().into_any(),
            (None, None) => py.None().into_bound(py),
        };
        let inspect = py.import("inspect")?;
        let signature = inspect.getattr("Signature")?;
        inspect.call_method1("_signature_fromstr", (signature, owner, self.parameters))
    }
}

/// The parameters, `(url=None, ...)`, of `T`'s text signature: its docstring's first line up to
/// `\n--\n\n` (pyo3's form), without the class name.
fn parameters<T: PyClassImpl>() -> Option<&'static str> {
    let doc = T::DOC.to_str().ok()?;
    let (head, _) = doc.split_once("\n--\n\n")?;
    head.find('(').map(|start| &head[start..])
}

fn install<T: PyClassImpl + PyTypeInfo>(py: Python<'_>) -> PyResult<()> {
    if let Some(parameters) = parameters::<T>() {
        let cls: Bound<'_, PyType> = py.get_type::<T>();
        cls.setattr("__signature__", LazySignature { parameters })?;
    }
    Ok(())
}

/// On CPython before 3.10 only: `__signature__` on the classes whose constructors take
/// parameters (3.10 and later read the docstring's text signature themselves).
pub(crate) fn install_before_3_10(py: Python<'_>) -> PyResult<()> {
    if py.version_info() >= (3, 10) {
        return Ok(());
    }
    install::<PyMediaPlayer>(py)?;
    install::<PyScoreboard>(py)?;
    install::<PySimulator>(py)?;
    install::<PyFeed>(py)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameters_are_the_constructors_text_signature() {
        assert_eq!(
            parameters::<PyScoreboard>(),
            Some(
                "(url=None, api_key=None, *, timeout=5.0, verify=True, ca_cert=None, \
                 tls_fingerprint=None, retries=2, retry_commands=False, max_body=None, \
                 max_connections=8)"
            )
        );
        assert!(parameters::<PyFeed>().is_some_and(|p| p.starts_with("(media=None, ")));
    }
}
