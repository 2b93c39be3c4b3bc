//! The media playback application: models ([`models`]), the operation table ([`table`]) with
//! its endpoint constants, body forms and reply decoders ([`endpoints`]), its argument kinds
//! ([`arg_kinds`]) and one core builder per operation ([`builders`]), the client ([`client`],
//! with its [`mirror`]s) and what automation builds on it: confirmed commands ([`confirm`]),
//! name lookups ([`names`]), the transport watch ([`watch`]), fades and batches
//! ([`automation`]).

pub mod arg_kinds;
pub mod automation;
pub mod builders;
pub mod client;
pub mod confirm;
pub mod cooldown;
pub mod endpoints;
pub mod expect;
pub mod look;
pub mod mirror;
pub mod models;
pub mod names;
pub mod sender;
pub mod sequence;
pub mod table;
pub mod tree;
pub mod watch;

#[cfg(test)]
mod mirror_tests;
#[cfg(test)]
mod names_tests;
#[cfg(test)]
pub(crate) mod test_server;

pub use client::MediaClient;
pub use endpoints::{Call, Endpoint};
pub use models::*;
