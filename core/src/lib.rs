//! showctl's core: a client for the HTTP APIs of a media playback application and a scoreboard
//! application, with its simulator, feed, venue checks and probe. Pure Rust, tested with
//! `cargo test`; the extension crate (`binding/`) depends on it and only converts.

pub mod capture;
pub mod client;
pub mod embedder;
pub mod error;
pub mod feed;
pub mod ident;
pub mod journal;
pub mod json;
pub mod media;
pub mod memory;
pub mod operation;
pub mod osc;
pub mod poll;
pub mod probe;
pub mod runtime;
pub mod score;
pub mod scrub;
pub mod serve;
pub mod simulator;
pub mod tls;
pub mod transport;
pub mod venue;
pub mod wake;

pub use error::{Error, Result};
