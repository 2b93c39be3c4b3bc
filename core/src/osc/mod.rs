//! The OSC bridge: QLab, a lighting desk or TouchOSC drive the media application (and read the
//! scoreboard) over OSC, through the same clients and command log as every other caller.
//!
//! - It listens on one port for UDP datagrams and for TCP connections framed with OSC 1.1's
//!   SLIP ([`slip`]); OSC itself is encoded and decoded by the `rosc` crate.
//! - Before a packet is read: the sender must be allowed ([`guard::Allow`]: this machine only
//!   unless told otherwise; others are dropped and logged once per sender) and under its rate
//!   ([`guard::Rate`]); a packet over [`Limits::max_frame`] is dropped. Then it is decoded
//!   (a bundle nested deeper than [`MAX_DEPTH`] is refused first: the decoder recurses), each
//!   message's passcode checked (the first argument, when the bridge has one) and its address
//!   turned into one command or read ([`address`]), all before anything is sent.
//! - Commands from one sender run one after another in the order received (one lane per
//!   sender address, [`run`]); a bundle with a time tag runs at that time, or is refused with
//!   why (too far ahead, or late).
//! - It says what happened: every message received from an allowed sender under its rate
//!   gives one record (JSON: [`Bridge::next_record`], the CLI's `--json` lines) and, unless
//!   turned off, a reply to the sender at `/reply` + the address with one JSON string
//!   (`status`, `delivery`, ...); every command goes to the command log (`journal`) with the
//!   sender as its `origin`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::media::MediaClient;
use crate::score::Scoreboard;

pub mod address;
pub mod decode;
pub mod guard;
mod listen;
mod run;
pub mod slip;

pub use guard::{Allow, Passcode};

/// The `log` target of the bridge's lines (the embedder names its logger after it: `showctl.osc`).
pub const TARGET: &str = "showctl::osc";

/// Bundles nested deeper than this are refused before decoding.
pub const MAX_DEPTH: usize = 8;

/// The bounds of a bridge.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// The largest packet read, in bytes (a UDP datagram, or a TCP frame once unescaped).
    pub max_frame: usize,
    /// TCP connections open at once; more are closed as they come (and logged).
    pub max_connections: usize,
    /// A TCP connection that sends nothing for this long is closed.
    pub idle: Duration,
    /// The furthest ahead a bundle's time tag may be.
    pub max_ahead: Duration,
    /// The latest a bundle may arrive after its time tag and still run (at once).
    pub max_late: Duration,
    /// Messages waiting in one sender's lane; more are refused as busy.
    pub queue: usize,
    /// Timed bundles waiting for their time, all senders together.
    pub max_timed: usize,
    /// Senders with a lane at once.
    pub max_lanes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame: 8192,
            max_connections: 32,
            idle: Duration::from_secs(300),
            max_ahead: Duration::from_secs(3600),
            max_late: Duration::from_millis(1000),
            queue: 64,
            max_timed: 256,
            max_lanes: 256,
        }
    }
}

/// What the bridge is told.
#[derive(Debug, Clone)]
pub struct Options {
    pub host: String,
    pub port: u16,
    pub allow: Allow,
    pub passcode: Option<Passcode>,
    /// Messages per second per sender address.
    pub rate: f64,
    /// Reply to each message at `/reply` + its address.
    pub reply: bool,
    /// Read back the commands that can be (the library's `confirm=True`).
    pub confirm: bool,
    pub limits: Limits,
}

/// What the bridge counted since it was made.
#[derive(Debug, Default)]
pub struct Stats {
    pub received: AtomicU64,
    pub commands: AtomicU64,
    pub reads: AtomicU64,
    pub ok: AtomicU64,
    pub failed: AtomicU64,
    pub refused: AtomicU64,
    pub not_allowed: AtomicU64,
    pub over_rate: AtomicU64,
    pub malformed: AtomicU64,
    pub oversized: AtomicU64,
    pub connections_refused: AtomicU64,
    pub records_lost: AtomicU64,
}

impl Stats {
    pub(crate) fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The counts, as a JSON object.
    pub fn to_json(&self) -> Value {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        json!({
            "received": g(&self.received),
            "commands": g(&self.commands),
            "reads": g(&self.reads),
            "ok": g(&self.ok),
            "failed": g(&self.failed),
            "refused": g(&self.refused),
            "not_allowed": g(&self.not_allowed),
            "over_rate": g(&self.over_rate),
            "malformed": g(&self.malformed),
            "oversized": g(&self.oversized),
            "connections_refused": g(&self.connections_refused),
            "records_lost": g(&self.records_lost),
        })
    }
}

/// The records of the messages received, kept for a reader ([`Bridge::next_record`]): at most
/// [`RECORDS`]; past that the oldest is dropped and counted (`records_lost`).
pub(crate) struct Records {
    queue: Mutex<std::collections::VecDeque<Value>>,
    added: tokio::sync::Notify,
}

/// Records kept for a reader at most.
pub const RECORDS: usize = 1000;

impl Records {
    pub(crate) fn push(&self, record: Value, stats: &Stats) {
        let mut q = lock(&self.queue);
        if q.len() >= RECORDS {
            q.pop_front();
            Stats::add(&stats.records_lost);
        }
        q.push_back(record);
        drop(q);
        self.added.notify_one();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// An OSC bridge: build it, [`Bridge::start`] it, send it OSC.
pub struct Bridge {
    options: Options,
    media: MediaClient,
    scoreboard: Option<Scoreboard>,
    running: Mutex<Option<listen::Running>>,
    records: Arc<Records>,
    stats: Arc<Stats>,
}

impl Bridge {
    /// Check the options (nothing is bound yet).
    pub fn new(
        options: Options,
        media: MediaClient,
        scoreboard: Option<Scoreboard>,
    ) -> Result<Self> {
        crate::serve::check_host(&options.host).map_err(Error::invalid)?;
        guard::Rate::new(options.rate)?;
        Ok(Bridge {
            options,
            media,
            scoreboard,
            running: Mutex::new(None),
            records: Arc::new(Records {
                queue: Mutex::new(Default::default()),
                added: tokio::sync::Notify::new(),
            }),
            stats: Arc::new(Stats::default()),
        })
    }

    /// Listen (a no-op when listening); returns the address, whose port serves UDP and TCP.
    pub fn start(&self) -> Result<SocketAddr> {
        let mut running = lock(&self.running);
        if let Some(r) = running.as_ref() {
            return Ok(r.addr);
        }
        let r = listen::start(
            &self.options,
            run::Shared::new(
                &self.options,
                self.media.clone(),
                self.scoreboard.clone(),
                self.records.clone(),
                self.stats.clone(),
            )?,
        )?;
        let addr = r.addr;
        log::info!(
            target: TARGET,
            "OSC bridge listening on {addr} (UDP and TCP), allowing {}",
            self.options.allow.describe().join(", ")
        );
        *running = Some(r);
        Ok(addr)
    }

    /// Stop listening: no message is read after this; what is queued and not yet sent is
    /// refused (its record says so); a command being sent is awaited (at most the client's
    /// timeout and a second). A no-op when stopped.
    pub async fn stop(&self) {
        let running = lock(&self.running).take();
        if let Some(r) = running {
            r.stop(self.media.transport().timeout() + Duration::from_secs(1))
                .await;
        }
    }

    pub fn addr(&self) -> Option<SocketAddr> {
        lock(&self.running).as_ref().map(|r| r.addr)
    }

    /// The port listened on (the requested one until started).
    pub fn port(&self) -> u16 {
        self.addr().map_or(self.options.port, |a| a.port())
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The record of the next message received (oldest first), waiting at most `timeout`.
    pub async fn next_record(&self, timeout: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let added = self.records.added.notified();
            if let Some(r) = lock(&self.records.queue).pop_front() {
                return Some(r);
            }
            if tokio::time::timeout_at(deadline, added).await.is_err() {
                return lock(&self.records.queue).pop_front();
            }
        }
    }

    pub fn stats(&self) -> Value {
        self.stats.to_json()
    }

    /// `OscBridge(udp+tcp 127.0.0.1:53000, running)`.
    pub fn describe(&self) -> String {
        match self.addr() {
            Some(a) => format!("OscBridge(udp+tcp {a}, running)"),
            None => format!(
                "OscBridge({}:{}, stopped)",
                self.options.host, self.options.port
            ),
        }
    }
}

#[cfg(test)]
mod tests;
