//! The PyO3 binding layer: argument conversion, GIL release, sync/async twins, errors and
//! model classes. No logic of its own beyond conversion.

use pyo3::prelude::*;

pub mod args;
pub mod automation;
#[cfg(unix)]
pub mod bridge;
pub mod convert;
pub mod errors;
pub mod feed;
pub mod media;
pub mod probe;
pub mod rt;
pub mod score_events;
pub mod scoreboard;
pub mod simulator;
pub mod tree;
mod watch;

#[pymodule]
#[pyo3(name = "_core")]
fn core_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    rt::init(py)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<scoreboard::PyScoreboard>()?;
    m.add_class::<scoreboard::PyScoreWatch>()?;
    m.add_class::<scoreboard::PyScoreRecord>()?;
    m.add_class::<scoreboard::AustralianFootballScore>()?;
    m.add_class::<scoreboard::BaseballScore>()?;
    m.add_class::<scoreboard::BasketballScore>()?;
    m.add_class::<scoreboard::FootballScore>()?;
    m.add_class::<scoreboard::HockeyScore>()?;
    m.add_class::<scoreboard::LacrosseScore>()?;
    m.add_class::<scoreboard::SoccerScore>()?;
    m.add_class::<scoreboard::TennisScore>()?;
    m.add_class::<scoreboard::VolleyballScore>()?;
    m.add_class::<scoreboard::CustomScore>()?;
    m.add_function(wrap_pyfunction!(scoreboard::_score_from_json, m)?)?;
    // The media playback client, its Layer handle and models.
    media::register(m)?;
    automation::register(m)?;
    // The built-in simulator.
    simulator::register(m)?;
    // Score views and events, and the feed.
    score_events::register(m)?;
    feed::register(m)?;
    Ok(())
}
