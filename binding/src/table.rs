//! The operation tables' Python side. The core writes each table once
//! (`showctl::media_operations!`, `showctl::score_operations!`) and hands it here to
//! `binding_methods!` (`showctl_macros`), which makes the methods of `MediaPlayer`, `Layer` and
//! `Scoreboard` with their `_async` twins, the `Command` constructors and each operation's
//! Python types; each method converts its arguments, calls the core builder of the same name
//! and runs the job it returns (`super::jobs`). [`_operations`] lists the tables as data.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::convert::serialize_to_py;
use showctl::operation::{OpInfo, Scope};

/// The media table's methods (`MediaPlayer`, `Layer`) and `Command` constructors.
mod media {
    #[allow(unused_imports)]
    use showctl::media::builders::prelude::*;

    showctl::media_operations!(showctl_macros::binding_methods {
        binding(
            client = crate::player::PyMediaPlayer,
            layer = crate::layer::PyLayer,
            command = crate::command::PyCommand,
            core = showctl::media::table,
        );
    });
}

/// The scoreboard table's methods (`Scoreboard`).
mod score {
    use showctl::score::ScoreRecord;

    showctl::score_operations!(showctl_macros::binding_methods {
        binding(client = crate::scoreboard::PyScoreboard, core = showctl::score::table);
    });
}

/// The Python types of each operation of a table: (scope, name, argument type, return type).
pub(crate) type Types = Vec<(&'static str, &'static str, Option<String>, String)>;

/// The classes of the media client that have an operation of `scope`.
fn media_classes(scope: Scope) -> &'static [&'static str] {
    match scope {
        Scope::Workspace => &["MediaPlayer"],
        Scope::Layer => &["Layer"],
        Scope::Both => &["MediaPlayer", "Layer"],
    }
}

/// One operation as the stubs, the docs and the tests read it: its [`OpInfo`], its `_async`
/// twin, the classes that have it, and the Python types of its argument and reply.
#[derive(Debug, Clone, serde::Serialize)]
struct OpDescription {
    name: &'static str,
    async_name: String,
    classes: &'static [&'static str],
    scope: &'static str,
    command: bool,
    ids: Vec<&'static str>,
    arg: Option<&'static str>,
    arg_type: Option<String>,
    default: Option<&'static str>,
    confirm: bool,
    returns: String,
    doc: &'static str,
    endpoints: Vec<(&'static str, &'static str)>,
}

/// The operations of a table described: each with the classes that have it (`classes`) and
/// its types (found in `types` by scope and name). An operation without types is an error
/// naming it.
fn describe_table(
    ops: Vec<OpInfo>,
    types: &Types,
    classes: fn(Scope) -> &'static [&'static str],
) -> Result<Vec<OpDescription>, String> {
    ops.into_iter()
        .map(|op| {
            let (_, _, arg_type, returns) = types
                .iter()
                .find(|(scope, name, _, _)| *scope == op.scope.as_str() && *name == op.name)
                .ok_or_else(|| format!("no types for {}", op.name))?;
            Ok(OpDescription {
                name: op.name,
                async_name: format!("{}_async", op.name),
                classes: classes(op.scope),
                scope: op.scope.as_str(),
                command: op.command,
                ids: op.ids,
                arg: op.arg,
                arg_type: arg_type.clone(),
                default: op.default,
                confirm: op.confirm,
                returns: returns.clone(),
                doc: op.doc,
                endpoints: op.endpoints,
            })
        })
        .collect()
}

/// The operation tables as data: one dict per operation (name, async_name, classes, scope,
/// command, ids, arg, arg_type, default, confirm, returns, doc, endpoints), for the stub
/// generator and the tests.
#[pyfunction]
pub(crate) fn _operations(py: Python<'_>) -> PyResult<Py<PyList>> {
    let mut all = describe_table(
        showctl::media::table::operations(),
        &media::python_types(),
        media_classes,
    )
    .map_err(PyRuntimeError::new_err)?;
    let score = describe_table(
        showctl::score::builders::operations(),
        &score::python_types(),
        |_| &["Scoreboard"],
    );
    all.extend(score.map_err(PyRuntimeError::new_err)?);
    Ok(serialize_to_py(py, &all)?
        .into_bound(py)
        .cast_into()?
        .unbind())
}
