//! The media playback application: models ([`models`]), the endpoint table ([`endpoints`])
//! and the client ([`client`]).

pub mod client;
pub mod endpoints;
pub mod models;
pub mod tree;

pub use client::MediaClient;
pub use endpoints::{Call, Endpoint};
pub use models::*;
