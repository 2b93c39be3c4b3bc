//! The record of what was sent: one `log` record per command (every POST the client sends,
//! the mirrors' included) on the target `showctl::commands`, which the binding forwards to the
//! embedding interpreter's logger `showctl.commands`. Its message is one JSON object (a line of a
//! JSON-lines file): what was sent (`operation`, `method`, `path`), to which application and layer,
//! when, its `outcome` and `delivery`, how many `attempts`, its latency and, for `confirm=True`,
//! what was read back. The key is never in it: the base URL never holds one, and the whole line is
//! scrubbed of it (an application may echo it in an error body or a value read back).
//!
//! A command runs inside [`record`] (a mirror's copy inside a [`Copy`]), which gathers
//! what happened below it through a tokio task local: the transport names each POST as it goes
//! out and says how far it got after every step ([`noting`]: path, application, delivery), and
//! adds it once finished ([`sent`]: attempts); the read-back adds the value it read ([`read`]).
//! Nothing of this runs unless the logger is enabled for INFO ([`enabled`], a level check the
//! logging bridge answers from its cache).
//!
//! A command has exactly one record: written when it has its outcome, or, when the caller
//! gives it up first (an `asyncio` task cancelled by `wait_for`, Ctrl-C in a blocking call, a
//! mirror's copy abandoned at close), when its future is dropped: `outcome` `abandoned`, with
//! `delivery` as it stood (`sent_no_answer` once any byte of the command went out). So a cue
//! fired once is one record, whatever happened to the call.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use serde_json::{json, Value};

use crate::error::{Delivery, Error, Result};

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
    /// `"primary"` or `"mirror"`: which application the command went to.
    target: &'static str,
    /// How far the command's POSTs got, as they go (what a record written on drop says).
    reached: Delivery,
    /// A POST started and not finished (an attempt a dropped command leaves in flight).
    in_flight: bool,
}

tokio::task_local! {
    static TALLY: Arc<Mutex<Tally>>;
    /// The sequence (its name) and the step a command runs as (see [`in_sequence`]).
    static STEP: (Arc<str>, usize);
    /// Who the commands sent below are sent for (the OSC bridge's sender), when not the caller.
    static ORIGIN: String;
}

/// Run `fut` as step `index` of the sequence `name`: the records of its commands carry both
/// (`sequence`, `step`).
pub async fn in_sequence<T>(name: Arc<str>, index: usize, fut: impl Future<Output = T>) -> T {
    STEP.scope((name, index), fut).await
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
        t.in_flight = false;
    });
}

/// Run `attempt`, one attempt of a request to the application at `base` (key `secret`) for
/// `path`, telling the command it runs in, when it is a command (`post`) inside a [`record`],
/// how far it got after each of its steps (`delivery`: the transport's own account). A command
/// dropped mid-way is then recorded with its delivery as it stood. Costs a task-local lookup
/// otherwise.
pub async fn noting<F: Future>(
    post: bool,
    base: &str,
    secret: &[u8],
    path: impl FnOnce() -> String,
    attempt: F,
    delivery: impl Fn() -> Delivery,
) -> F::Output {
    if !post || !inside() {
        return attempt.await;
    }
    with_tally(|t| {
        t.path = Some(path());
        t.application = Some(base.to_string());
        t.secret = secret.to_vec();
        t.in_flight = true;
    });
    let mut attempt = std::pin::pin!(attempt);
    std::future::poll_fn(|cx| {
        let polled = attempt.as_mut().poll(cx);
        let now = delivery();
        with_tally(|t| t.reached = t.reached.max(now));
        polled
    })
    .await
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

/// Run the command `fut` (named `operation`; `confirm`: read back) sent to the primary and log
/// its record, when the logger wants one; else just run it.
pub async fn record<T>(
    operation: &'static str,
    confirm: bool,
    fut: impl Future<Output = Result<T>>,
) -> Result<T> {
    if !enabled() || inside() {
        return fut.await;
    }
    run(tally("primary", operation, confirm), true, fut).await
}

/// A mirror's copy of a command: its record (`"target": "mirror"`, logged when the logger
/// wants it) and, whether logged or not, how far it got ([`Copy::reached`]), which its worker
/// reads when it gives the copy up.
pub struct Copy {
    tally: Arc<Mutex<Tally>>,
}

impl Copy {
    pub fn new(operation: &'static str) -> Self {
        Copy {
            tally: tally("mirror", operation, false),
        }
    }

    /// Send the copy (`fut`) inside its record.
    pub async fn run<T>(&self, fut: impl Future<Output = Result<T>>) -> Result<T> {
        run(self.tally.clone(), enabled(), fut).await
    }

    /// How far the copy got, as it stands (`NotSent` until a byte of it went out).
    pub fn reached(&self) -> Delivery {
        self.tally.lock().unwrap_or_else(|p| p.into_inner()).reached
    }
}

fn tally(target: &'static str, operation: &'static str, confirm: bool) -> Arc<Mutex<Tally>> {
    Arc::new(Mutex::new(Tally {
        operation,
        attempts: 0,
        path: None,
        application: None,
        secret: Vec::new(),
        answered: None,
        read: None,
        confirm,
        target,
        reached: Delivery::NotSent,
        in_flight: false,
    }))
}

/// Run `fut` gathering into `tally`; `log`: write its record (with the outcome, or on drop).
async fn run<T>(
    tally: Arc<Mutex<Tally>>,
    log: bool,
    fut: impl Future<Output = Result<T>>,
) -> Result<T> {
    let mut pending = Pending {
        tally: tally.clone(),
        when: SystemTime::now(),
        started: Instant::now(),
        written: !log,
    };
    let out = TALLY.scope(tally, fut).await;
    if log {
        pending.write(Some(out.as_ref().err()));
    }
    out
}

/// A command whose record is not written yet: written by [`Pending::write`] with the outcome,
/// or on drop (the future was dropped before its outcome) as `abandoned`.
struct Pending {
    tally: Arc<Mutex<Tally>>,
    when: SystemTime,
    started: Instant,
    written: bool,
}

impl Pending {
    /// Log the record: `Some(err)` the outcome (`None` ok), `None` abandoned.
    fn write(&mut self, outcome: Option<Option<&Error>>) {
        self.written = true;
        let tally = self.tally.lock().unwrap_or_else(|p| p.into_inner());
        let line = line(&tally, self.when, self.started, outcome);
        drop(tally);
        log::info!(target: TARGET, "{line}");
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.written {
            self.write(None);
        }
    }
}

/// A time as RFC 3339 in UTC, always to the microsecond (`2026-11-27T01:02:03.456780Z`: six
/// digits, trailing zeros kept, so every record has the same width, sorts as text in time order
/// and is read by `datetime.fromisoformat` on every supported interpreter version).
fn utc(at: SystemTime) -> String {
    let at = time::OffsetDateTime::from(at);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.microsecond()
    )
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

/// What a record written on drop says in `error`.
const ABANDONED: &str = "the call was given up (cancelled, interrupted or closed) before the \
                         command's outcome was known";

/// The record of a command, as one line of JSON: `outcome` `Some(None)` ok, `Some(Some(e))`
/// failed with `e`, `None` abandoned (its delivery as it stood when it was dropped).
fn line(t: &Tally, when: SystemTime, started: Instant, outcome: Option<Option<&Error>>) -> String {
    let path = t.path.clone();
    let (result, delivery, status, error) = match outcome {
        Some(None) => ("ok", Delivery::Answered, None, None),
        Some(Some(e)) => ("error", e.delivery(), e.status(), Some(e.to_string())),
        None => ("abandoned", t.reached, None, Some(ABANDONED.to_string())),
    };
    let confirm = match (t.confirm, outcome) {
        (false, _) => Value::Null,
        (true, Some(None)) => json!("confirmed"),
        (true, Some(Some(Error::NotConfirmed { .. }))) => json!("not_confirmed"),
        (true, _) => json!("not_read"),
    };
    // A dropped command's attempt in flight counts once any byte of it went out.
    let in_flight = outcome.is_none() && t.in_flight && t.reached > Delivery::NotSent;
    let attempts = t.attempts + u32::from(in_flight);
    let latency = match (t.answered, outcome) {
        (Some(at), _) => Some(at - started),
        (None, Some(_)) => Some(Instant::now() - started),
        (None, None) => None,
    };
    let latency = latency.map(|l| (l.as_secs_f64() * 1e6).round() / 1e3);
    let mut record = json!({
        "when": utc(when),
        "operation": t.operation,
        "method": "POST",
        "path": path,
        "application": t.application,
        "target": t.target,
        "layer": path.as_deref().map(layer_of).unwrap_or(Value::Null),
        "outcome": result,
        "delivery": delivery.as_str(),
        "status": status,
        "attempts": attempts,
        "latency_ms": latency,
        "confirm": confirm,
        "read": t.read.clone(),
        "error": error,
    });
    if let Ok((name, step)) = STEP.try_with(|s| s.clone()) {
        record["sequence"] = json!(&*name);
        record["step"] = json!(step);
    }
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

    #[test]
    fn times_keep_their_trailing_zeros() {
        let micros = |us: u64| SystemTime::UNIX_EPOCH + std::time::Duration::from_micros(us);
        assert_eq!(
            utc(micros(1_790_000_000_788_500)),
            "2026-09-21T14:13:20.788500Z"
        );
        assert_eq!(
            utc(micros(1_790_000_000_000_000)),
            "2026-09-21T14:13:20.000000Z"
        );
        assert_eq!(
            utc(micros(1_790_000_000_000_010)),
            "2026-09-21T14:13:20.000010Z"
        );
        // Fixed width: text order is time order.
        let texts: Vec<String> = [0, 10, 500_000, 788_500, 999_999]
            .map(|us| utc(micros(1_790_000_000_000_000 + us)))
            .to_vec();
        assert!(texts.iter().all(|t| t.len() == texts[0].len()), "{texts:?}");
        assert!(texts.windows(2).all(|w| w[0] < w[1]), "{texts:?}");
    }
}
