//! The scoreboard application: the score record model and its client.
//!
//! A record is kept as the JSON object the application sent (so `to_dict()` returns exactly
//! that, unknown fields included, duplicate keys resolved last-wins as the usual JSON readers do);
//! the typed view of each sport comes from [`fields_of`], one table per sport mode of the
//! API document.
//!
//! The sport tables ([`sports`]), the record ([`record`]) and its layouts ([`board`],
//! [`view`]), the client ([`client`]) and its operation table ([`table`]), and what watches it:
//! [`watch`] (each changed record) and [`events`] (typed change events).

pub mod board;
pub mod client;
pub mod events;
pub mod record;
pub mod sports;
pub mod table;
pub mod view;
pub mod watch;

pub use board::Board;
pub use client::Scoreboard;
pub use events::{score_changes, ScoreEvent, ScoreEventKind, ScoreEventWatch};
pub use record::{FieldValue, ScoreRecord};
pub use sports::{fields_of, Field, FieldKind, Sport, SERIES_LEN};
/// The core builders of the table (`builders::workspace::scores`).
pub use table as builders;
pub use table::consts::SCORES;
pub use view::{Fields, ScoreView, Team, Val};
pub use watch::ScoreWatch;
