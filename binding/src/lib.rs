//! The extension module `showctl._core`: the PyO3 binding of the core crate (`showctl`), which
//! it only converts. The core cannot name Python (it has no PyO3 in its dependency tree); the
//! direction is binding -> core. In layers:
//! - [`convert`] (JSON to and from Python, the model and reply traits), [`args`] (argument
//!   conversion, one [`args::FromPyArg`] per argument kind of the operation tables) and
//!   [`options`] (the client options: readers, their setting on the core's `Config`, and
//!   the options as data);
//! - [`errors`] (core errors to the exception classes of `showctl.exceptions`);
//! - [`jobs`] (what a method runs, blocking or awaitable, and `AsyncTwin`, the `_async` twin
//!   as a coroutine function) on the runtime glue of [`rt`] (and [`bridge`]); the tables'
//!   methods, twins and `Command` constructors are made in [`table`] from the core's tables
//!   (`showctl::media_operations!` handed to `showctl_macros::binding_methods`), which also
//!   lists them; the `_async` twin of a
//!   hand-written method comes from its one `#[twin]` declaration (`showctl_macros::twins`);
//! - the classes: [`models`], [`tree`] and [`score_models`] (the models), [`client`] (the
//!   base of the clients), [`player`], [`layer`], [`command`], [`events`], [`scoreboard`],
//!   [`score_view`], [`score_events`], [`probe`] (what the clients' `probe()` and `record()`
//!   return), [`feed`], [`simulator`].
//!
//! The module `showctl._core` is declared below, class by class.

use pyo3::prelude::*;

pub mod args;
#[cfg(unix)]
pub mod bridge;
pub mod client;
pub mod command;
pub mod convert;
pub mod errors;
pub mod events;
pub mod feed;
pub mod jobs;
pub mod layer;
pub mod look;
pub mod models;
pub mod option_table;
pub mod options;
pub mod osc;
pub mod player;
pub mod probe;
pub mod rt;
pub mod score_events;
pub mod score_models;
pub mod score_view;
pub mod scoreboard;
pub mod sequence;
mod signatures;
pub mod simulator;
pub mod table;
pub mod tree;
pub mod venue;
mod watch;

#[pymodule]
mod _core {
    use super::*;

    #[pymodule_export]
    use super::client::PyClient;
    #[pymodule_export]
    use super::command::{PyBatchResult, PyCommand};
    #[pymodule_export]
    use super::events::{PyMirrorStatus, PyTransportEvent, PyTransportWatch};
    #[pymodule_export]
    use super::feed::PyFeed;
    #[pymodule_export]
    use super::layer::PyLayer;
    #[pymodule_export]
    use super::look::{PyLayerLook, PyLook};
    #[pymodule_export]
    use super::models::{
        _models, PyBlendMode, PyColorBase, PyEffect, PyEffectPreset, PyFloatBase, PyLayerBlend,
        PyLayerPreset, PyLayerState, PyMedia, PyTargetSet, PyTransition, PyTransportState,
        PyVariable,
    };
    #[pymodule_export]
    use super::options::{_client_options, _scrub, _url_env};
    #[pymodule_export]
    use super::osc::PyOscBridge;
    #[pymodule_export]
    use super::player::PyMediaPlayer;
    #[pymodule_export]
    use super::score_events::{PyScoreEvent, PyScoreEventWatch};
    #[pymodule_export]
    use super::score_models::{
        _score_from_json, _sports, AustralianFootballScore, BaseballScore, BasketballScore,
        CustomScore, FootballScore, HockeyScore, LacrosseScore, PyScoreRecord, SoccerScore,
        TennisScore, VolleyballScore,
    };
    #[pymodule_export]
    use super::score_view::{PyScoreView, PyTeamScore};
    #[pymodule_export]
    use super::scoreboard::{PyScoreWatch, PyScoreboard};
    #[pymodule_export]
    use super::sequence::{_read_toml, PySequenceResult, PyStepResult, PyWait, PyWaitUntil};
    #[pymodule_export]
    use super::simulator::{PyRecordedRequest, PySimulator};
    #[pymodule_export]
    use super::table::_operations;
    #[pymodule_export]
    use super::tree::{PyCue, PyPlaylist};
    #[pymodule_export]
    use super::venue::{_load_venue, _probe_venue, _probe_venue_async};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let py = m.py();
        rt::init(py)?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        // The watches are iterators and async iterators at once: the `_async` names are the
        // same methods.
        for (class, name) in [
            ("MediaPlayer", "watch_transport"),
            ("Scoreboard", "watch"),
            ("Scoreboard", "watch_events"),
        ] {
            let cls = m.getattr(class)?;
            cls.setattr(format!("{name}_async"), cls.getattr(name)?)?;
        }
        signatures::install_before_3_10(py)?;
        Ok(())
    }
}
