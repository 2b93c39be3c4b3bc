//! The record of what was sent: one `log` record per command (every POST the client sends,
//! the mirrors' included) on the target `showctl::commands`, which the binding forwards to the
//! embedding interpreter's logger `showctl.commands`. Its message is one JSON object (a line of a
//! JSON-lines file): what was sent (`operation`, `method`, `path`), to which application and layer,
//! when, its `outcome` and `delivery`, how many `attempts`, its latency and, for `confirm=True`,
//! what was read back. The key is never in it: the base URL never holds one, and the whole line is
//! scrubbed of it (an application may echo it in an error body or a value read back).
//!
//! A command runs inside [`record`], which gathers what happened below it through a tokio task
//! local: the transport adds each POST it sent ([`sent`]: attempts, path, application), the
//! read-back adds the value it read ([`read`]). Nothing of this runs unless the logger is
//! enabled for INFO ([`enabled`], a level check the logging bridge answers from its cache).

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use serde_json::{json, Value};

use crate::error::{Error, Result};

/// The `log` target of the records (the logger `showctl.commands` the binding forwards them to).
pub const TARGET: &str = "showctl::commands";

/// Whether a record would be kept: when not, no command pays for one.
pub fn enabled() -> bool {
    log::log_enabled!(target: TARGET, log::Level::Info)
}

/// What the requests of one command did, gathered while it runs.
struct Tally {
    operation: &'static str,
    /// POSTs sent and how many times each was tried, summed.
    attempts: u32,
    /// The last POST sent: its path and query, its application (base URL) and the key sent
    /// to it (to scrub the record of).
    path: Option<String>,
    application: Option<String>,
    secret: Vec<u8>,
    /// When the last POST's answer (or failure) came.
    answered: Option<Instant>,
    /// The last value read back (`confirm=True`).
    read: Option<Value>,
    confirm: bool,
}

tokio::task_local! {
    static TALLY: Arc<Mutex<Tally>>;
    /// Who the commands sent below are sent for (the OSC bridge's sender), when not the caller.
    static ORIGIN: String;
}

/// Run `fut` on behalf of `origin` (the OSC bridge names its sender: `osc udp 10.0.0.5:53001`):
/// the record of each command `fut` sends carries it as `origin`.
pub async fn on_behalf_of<T>(origin: String, fut: impl Future<Output = T>) -> T {
    ORIGIN.scope(origin, fut).await
}

fn with_tally(f: impl FnOnce(&mut Tally)) {
    let _ = TALLY.try_with(|t| f(&mut t.lock().unwrap_or_else(|p| p.into_inner())));
}

/// Called by the transport for each POST it finished sending (`attempts` tries) to the
/// application at `base` with the key `secret`: inside [`record`] it is added to the command.
/// Costs a task-local lookup otherwise.
pub fn sent(base: &str, secret: &[u8], path: impl FnOnce() -> String, attempts: u32) {
    with_tally(|t| {
        t.attempts += attempts;
        t.path = Some(path());
        t.application = Some(base.to_string());
        t.secret = secret.to_vec();
        t.answered = Some(Instant::now());
    });
}

/// Called by a confirmed command for each value it read back.
pub fn read(value: &Value) {
    with_tally(|t| t.read = Some(value.clone()));
}

/// Whether the caller runs inside a command's [`record`] already.
pub fn inside() -> bool {
    TALLY.try_with(|_| ()).is_ok()
}

/// The operation of the command the caller runs in (`"request"` outside one): what a mirror
/// records for the command it repeats.
pub fn operation() -> &'static str {
    TALLY
        .try_with(|t| t.lock().unwrap_or_else(|p| p.into_inner()).operation)
        .unwrap_or(RAW)
}

/// The operation of a command sent as a raw request.
pub const RAW: &str = "request";

/// Run the command `fut` (named `operation`; `confirm`: read back) and log its record, when
/// the logger wants one; else just run it.
pub async fn record<T>(
    operation: &'static str,
    confirm: bool,
    fut: impl Future<Output = Result<T>>,
) -> Result<T> {
    if !enabled() || inside() {
        return fut.await;
    }
    let when = SystemTime::now();
    let started = Instant::now();
    let tally = Arc::new(Mutex::new(Tally {
        operation,
        attempts: 0,
        path: None,
        application: None,
        secret: Vec::new(),
        answered: None,
        read: None,
        confirm,
    }));
    let out = TALLY.scope(tally.clone(), fut).await;
    let tally = tally.lock().unwrap_or_else(|p| p.into_inner());
    log::info!(target: TARGET, "{}", line(&tally, when, started, out.as_ref().err()));
    out
}

/// A time as RFC 3339 in UTC, to the microsecond (`2026-11-27T01:02:03.456789Z`).
fn utc(at: SystemTime) -> String {
    let at = time::OffsetDateTime::from(at);
    let at = at.replace_nanosecond(at.microsecond() * 1000).unwrap_or(at);
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// The layer a path targets (`/opacity/layer/2` → 2, `/clear/layer/Main` → "Main"), as sent:
/// an index as a number, a name or UUID as text.
fn layer_of(path: &str) -> Value {
    let path = path.split('?').next().unwrap_or_default();
    let mut segments = path.split('/');
    while let Some(s) = segments.next() {
        if s == "layer" {
            let Some(id) = segments.next() else { break };
            let id = percent_encoding::percent_decode_str(id).decode_utf8_lossy();
            return match id.parse::<i64>() {
                Ok(i) if !id.starts_with('+') => json!(i),
                _ => json!(id),
            };
        }
    }
    Value::Null
}

/// The record of a finished command, as one line of JSON.
fn line(t: &Tally, when: SystemTime, started: Instant, err: Option<&Error>) -> String {
    let path = t.path.clone();
    let (delivery, status) = match err {
        None => ("answered", None),
        Some(e) => (e.delivery().as_str(), e.status()),
    };
    let confirm = match (t.confirm, err) {
        (false, _) => Value::Null,
        (true, None) => json!("confirmed"),
        (true, Some(Error::NotConfirmed { .. })) => json!("not_confirmed"),
        (true, Some(_)) => json!("not_read"),
    };
    let latency = t.answered.unwrap_or_else(Instant::now) - started;
    let mut record = json!({
        "when": utc(when),
        "operation": t.operation,
        "method": "POST",
        "path": path,
        "application": t.application,
        "layer": path.as_deref().map(layer_of).unwrap_or(Value::Null),
        "outcome": if err.is_none() { "ok" } else { "error" },
        "delivery": delivery,
        "status": status,
        "attempts": t.attempts,
        "latency_ms": (latency.as_secs_f64() * 1e6).round() / 1e3,
        "confirm": confirm,
        "read": t.read.clone(),
        "error": err.map(ToString::to_string),
    });
    if let Ok(origin) = ORIGIN.try_with(Clone::clone) {
        record["origin"] = json!(origin);
    }
    crate::scrub::scrub_value(&mut record, &t.secret);
    record.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layer_is_read_from_the_path_as_sent() {
        assert_eq!(layer_of("/opacity/layer/2"), json!(2));
        assert_eq!(layer_of("/trigger/layer/0/playlist/1/cue/3"), json!(0));
        assert_eq!(layer_of("/clear/layer/Lower%20Third"), json!("Lower Third"));
        assert_eq!(layer_of("/goToStart/layer/1?offset=2"), json!(1));
        assert_eq!(layer_of("/clear/workspace"), Value::Null);
        assert_eq!(layer_of("/clear/layer/"), json!(""));
    }

    #[tokio::test]
    async fn nothing_is_gathered_when_no_logger_wants_the_record() {
        // No logger is installed in the core's tests: `enabled()` is false.
        assert!(!enabled());
        let ran = record("mute", false, async { Ok(inside()) }).await.unwrap();
        assert!(!ran, "a command ran inside a record no logger wants");
    }

    #[test]
    fn times_are_utc_to_the_microsecond() {
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_micros(1_790_000_000_123_456);
        assert_eq!(utc(at), "2026-09-21T14:13:20.123456Z");
    }
}
