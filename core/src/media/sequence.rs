//! Ordered sequences: commands, waits of a fixed time and waits on a layer's transport, run one
//! after the other. Every step is checked when it is built ([`wait`], [`Until::new`]; a
//! command by its builder); [`check`] looks every identifier up in the application before the
//! first step is sent; [`run`] runs the steps in order and says, for each step that ran, what it
//! met and how long it took, and where it stopped.
//!
//! Stopping ([`Stop::stop`]: a Ctrl-C, a cancelled task) takes effect between steps and ends a
//! wait at once; a command in flight is let finish (never abandoned half-way), and nothing is
//! sent after it. The run says so in its [`Run::cancelled`] and on the log.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::StreamExt;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::builders::Confirmable;
use super::client::MediaClient;
use super::table::consts::LAYER_TRANSPORT_STATE;
use super::watch::{play_state, PlayState};
use crate::error::{Error, Result};
use crate::ident::Ident;
use crate::transport::Request;

/// Longest wait (a fixed one, or the bound of a wait on the transport), in seconds.
pub const MAX_WAIT: f64 = 3600.0;
/// Shortest interval between the reads of a wait on the transport, in seconds.
pub const MIN_INTERVAL: f64 = 0.05;
/// Interval between the reads of a wait on the transport when none is given, in seconds.
pub const DEFAULT_INTERVAL: f64 = 0.1;
/// Most steps in one sequence.
pub const MAX_STEPS: usize = 10_000;
/// The log target of what a sequence says besides its commands' records (a cancel).
pub const LOG_TARGET: &str = "showctl::sequence";

/// What a wait on the transport waits for, on one layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum State {
    /// The layer plays (media loaded and playing; a still image or a live input too).
    Playing,
    /// Media is loaded and does not play (paused, or stopped at its end).
    Stopped,
    /// No media on the layer (cleared).
    Empty,
    /// Media is loaded, it is not a still image and its time remaining is at most this many
    /// seconds.
    Remaining(f64),
}

impl State {
    /// `"playing"`, `"stopped"` or `"empty"`; or `remaining` seconds (0 to [`MAX_WAIT`]).
    pub fn new(state: Option<&str>, remaining: Option<f64>) -> Result<State> {
        match (state, remaining) {
            (Some("playing"), None) => Ok(State::Playing),
            (Some("stopped"), None) => Ok(State::Stopped),
            (Some("empty"), None) => Ok(State::Empty),
            (None, Some(s)) if s.is_finite() && (0.0..=MAX_WAIT).contains(&s) => {
                Ok(State::Remaining(s))
            }
            (None, Some(s)) => Err(Error::invalid(format!(
                "remaining: must be a number of seconds from 0 to {MAX_WAIT}, got {s}"
            ))),
            (Some(_), Some(_)) => Err(Error::invalid(
                "give either a state or remaining=, not both".to_string(),
            )),
            (None, None) => Err(Error::invalid(
                "state: give \"playing\", \"stopped\" or \"empty\", or remaining=seconds"
                    .to_string(),
            )),
            (Some(other), None) => Err(Error::invalid(format!(
                "state: must be \"playing\", \"stopped\" or \"empty\", got {other:?}"
            ))),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            State::Playing => "playing".into(),
            State::Stopped => "stopped".into(),
            State::Empty => "empty".into(),
            State::Remaining(s) => format!("at most {s} s remaining"),
        }
    }

    /// Whether a layer in `state` (with `remaining` seconds) is what is waited for.
    fn reached(&self, state: PlayState, remaining: Option<f64>) -> bool {
        match self {
            State::Playing => state.playing(),
            State::Stopped => state == PlayState::Paused,
            State::Empty => state == PlayState::Empty,
            State::Remaining(s) => {
                matches!(state, PlayState::Playing | PlayState::Paused)
                    && remaining.is_some_and(|r| r <= *s)
            }
        }
    }
}

/// A wait on one layer's transport: read it every `interval` until it is in `state`, for at
/// most `timeout`.
#[derive(Debug, Clone, PartialEq)]
pub struct Until {
    pub layer: Ident,
    pub state: State,
    pub timeout: Duration,
    pub interval: Duration,
}

impl Until {
    /// Checked: `timeout` (the bound every wait needs) above 0 and at most [`MAX_WAIT`],
    /// `interval` from [`MIN_INTERVAL`] to `timeout`.
    pub fn new(layer: Ident, state: State, timeout: Option<f64>, interval: f64) -> Result<Self> {
        layer.segment(crate::ident::Kind::Layer, "layer")?;
        let Some(timeout) = timeout else {
            return Err(Error::invalid(
                "timeout: a wait on the transport needs a bound (seconds above 0, at most \
                 3600)"
                    .to_string(),
            ));
        };
        if !(timeout.is_finite() && timeout > 0.0 && timeout <= MAX_WAIT) {
            return Err(Error::invalid(format!(
                "timeout: must be a number of seconds above 0, at most {MAX_WAIT}, got {timeout}"
            )));
        }
        if !(interval.is_finite() && (MIN_INTERVAL..=MAX_WAIT).contains(&interval)) {
            return Err(Error::invalid(format!(
                "interval: must be a number of seconds from {MIN_INTERVAL} to {MAX_WAIT}, got \
                 {interval}"
            )));
        }
        Ok(Until {
            layer,
            state,
            timeout: Duration::from_secs_f64(timeout),
            interval: Duration::from_secs_f64(interval),
        })
    }
}

/// A fixed wait, checked: 0 to [`MAX_WAIT`] seconds.
pub fn wait(seconds: f64) -> Result<Duration> {
    if !(seconds.is_finite() && (0.0..=MAX_WAIT).contains(&seconds)) {
        return Err(Error::invalid(format!(
            "seconds: must be a number from 0 to {MAX_WAIT}, got {seconds}"
        )));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// One step of a sequence.
#[derive(Clone)]
pub enum Step {
    /// Boxed: a command is much bigger than a wait.
    Command(Box<Confirmable>),
    Wait(Duration),
    Until(Until),
}

impl Step {
    /// What the step does, in one line (`POST /mute/layer/Main`, `wait 2 s`, `wait until layer
    /// Main is playing (at most 10 s)`).
    pub fn describe(&self) -> String {
        match self {
            Step::Command(c) => c.describe(),
            Step::Wait(d) => format!("wait {} s", d.as_secs_f64()),
            Step::Until(u) => format!(
                "wait until layer {} is {} (at most {} s)",
                u.layer,
                u.state.describe(),
                u.timeout.as_secs_f64()
            ),
        }
    }
}

/// The steps of a sequence, checked: at least one, at most [`MAX_STEPS`].
pub fn steps(steps: Vec<Step>) -> Result<Arc<[Step]>> {
    if steps.is_empty() || steps.len() > MAX_STEPS {
        return Err(Error::invalid(format!(
            "steps: a sequence has 1 to {MAX_STEPS} steps, got {}",
            steps.len()
        )));
    }
    Ok(steps.into())
}

/// What one step met.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub index: usize,
    /// The value read back by a command sent with `confirm=True` (`None` otherwise).
    pub result: Result<Option<Value>>,
    pub elapsed: Duration,
}

/// What a sequence did: one [`Outcome`] per step that ran, in order.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub outcomes: Vec<Outcome>,
    /// The step it stopped at: the failed step (with `halt_on_failure`), or the next step not
    /// run when it was cancelled; `None` when every step ran.
    pub stopped_at: Option<usize>,
    pub cancelled: bool,
}

/// Stops a running sequence between steps (shared by the run and whoever cancels it).
#[derive(Debug, Default, Clone)]
pub struct Stop(Arc<(AtomicBool, Notify)>);

impl Stop {
    pub fn stop(&self) {
        self.0 .0.store(true, Ordering::SeqCst);
        self.0 .1.notify_waiters();
    }

    pub fn stopped(&self) -> bool {
        self.0 .0.load(Ordering::SeqCst)
    }

    /// Wait until stopped.
    async fn wait(&self) {
        loop {
            let notified = self.0 .1.notified();
            if self.stopped() {
                return;
            }
            notified.await;
        }
    }
}

/// The steps run so far, kept up to date while the sequence runs (for a message when it is
/// cancelled from outside).
pub type Progress = Arc<Mutex<Run>>;

/// Run `steps` in order. With `halt`, the first failing step ends the sequence; without it,
/// every step runs (a failed command is reported, never sent again). `name` is given to each
/// command's record. A [`Stop`] ends the run between steps.
pub async fn run(
    client: &MediaClient,
    steps: Arc<[Step]>,
    halt: bool,
    name: Option<Arc<str>>,
    stop: Stop,
    progress: Progress,
) -> Run {
    let label = name.as_deref().unwrap_or("(unnamed)").to_string();
    for (index, step) in steps.iter().enumerate() {
        if stop.stopped() {
            return cancelled(&progress, index, steps.len(), &label);
        }
        let started = Instant::now();
        let result = match step {
            Step::Command(c) => command(client, c, name.clone(), index).await,
            Step::Wait(d) => {
                tokio::select! {
                    _ = tokio::time::sleep(*d) => Ok(None),
                    _ = stop.wait() => {
                        return cancelled(&progress, index, steps.len(), &label);
                    }
                }
            }
            Step::Until(u) => {
                tokio::select! {
                    r = boxed_until(client, u) => r.map(|_| None),
                    _ = stop.wait() => {
                        return cancelled(&progress, index, steps.len(), &label);
                    }
                }
            }
        };
        let failed = result.is_err();
        let mut run = progress.lock().unwrap_or_else(|p| p.into_inner());
        run.outcomes.push(Outcome {
            index,
            result,
            elapsed: started.elapsed(),
        });
        if failed && halt {
            run.stopped_at = Some(index);
            return run.clone();
        }
    }
    let run = progress.lock().unwrap_or_else(|p| p.into_inner());
    run.clone()
}

/// A command step's future, on the heap. A command's future nests deep (the send, its
/// read-back, its record): built inside the sequence's own body, an unoptimised build kept
/// several copies of it in the sequence's poll frame (200 KiB each) and a 2 MiB thread's stack
/// overflowed. Built here, the copies live only until this returns.
fn command<'a>(
    client: &'a MediaClient,
    c: &Confirmable,
    name: Option<Arc<str>>,
    index: usize,
) -> BoxFuture<'a, Result<Option<Value>>> {
    let send = super::confirm::reading(c.clone().send(client));
    match name {
        Some(n) => Box::pin(crate::journal::in_sequence(n, index, send)),
        None => Box::pin(send),
    }
}

/// [`until`]'s future on the heap, for the same reason as [`command`]'s.
fn boxed_until<'a>(client: &'a MediaClient, u: &'a Until) -> BoxFuture<'a, Result<()>> {
    Box::pin(until(client, u))
}

fn cancelled(progress: &Progress, next: usize, total: usize, label: &str) -> Run {
    let mut run = progress.lock().unwrap_or_else(|p| p.into_inner());
    run.stopped_at = Some(next);
    run.cancelled = true;
    log::warn!(
        target: LOG_TARGET,
        "sequence {label} cancelled: {}; steps {next} to {} were not run (nothing of them was \
         sent)",
        ran(next),
        total - 1
    );
    run.clone()
}

/// "steps 0 to 3 ran" / "no step ran".
pub fn ran(next: usize) -> String {
    match next {
        0 => "no step ran".into(),
        1 => "step 0 ran".into(),
        n => format!("steps 0 to {} ran", n - 1),
    }
}

/// Read the layer's transport every `interval` until it is in the state waited for; a
/// `Timeout` (nothing sent) when it is not within the bound. A failed read ends the wait.
pub async fn until(client: &MediaClient, u: &Until) -> Result<()> {
    let call = || LAYER_TRANSPORT_STATE.at(&[&u.layer]);
    let deadline = Instant::now() + u.timeout;
    let (state, remaining) = loop {
        let t = client.run(call()?).await?;
        let state = play_state(&t);
        if u.state.reached(state, t.time_remaining) {
            return Ok(());
        }
        let next = Instant::now() + u.interval;
        if next > deadline {
            break (state, t.time_remaining);
        }
        tokio::time::sleep_until(next).await;
    };
    let request = call()?.request;
    let seen = match remaining {
        Some(r) => format!("{}, {r} s remaining", state.as_str()),
        None => state.as_str().to_string(),
    };
    Err(Error::Timeout {
        method: "GET".into(),
        url: client.transport().url_of(&request),
        message: format!(
            "layer {} was not {} within {} s (last read: {seen}); the wait ended, nothing was \
             sent",
            u.layer,
            u.state.describe(),
            u.timeout.as_secs_f64()
        ),
        delivery: crate::error::Delivery::NotSent,
    })
}

/// What the application is asked, per identifier, to prove it exists: a read of the layer, the
/// playlist or the cue as the step names it.
fn probes(index: usize, step: &Step) -> Vec<(usize, String, Request)> {
    let (operation, path) = match step {
        Step::Command(c) => (c.operation, c.call.request.path.as_str()),
        Step::Until(u) => {
            let Ok(seg) = u.layer.segment(crate::ident::Kind::Layer, "layer") else {
                return Vec::new();
            };
            let what = format!("layer {}", u.layer);
            return vec![(index, what, Request::get(format!("/data/layer/{seg}")))];
        }
        Step::Wait(_) => return Vec::new(),
    };
    let Some(op) = super::table::operations()
        .into_iter()
        .find(|o| o.name == operation)
    else {
        return Vec::new(); // a raw request: nothing named to look up
    };
    let mut out = Vec::new();
    for (_, template) in op.endpoints {
        let Some(ids) = captures(template, path) else {
            continue;
        };
        let decoded = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        };
        let playlist = ids.iter().find(|(k, _)| *k == "playlist").map(|(_, s)| *s);
        for (kind, seg) in &ids {
            let probe = match (*kind, playlist) {
                ("layer", _) => Some(format!("/data/layer/{seg}")),
                ("playlist", _) => Some(format!("/data/playlist/{seg}")),
                ("cue", Some(p)) => Some(format!("/data/playlist/{p}/cue/{seg}")),
                _ => None, // a cue of the selected playlist: the API does not say which it is
            };
            if let Some(p) = probe {
                out.push((index, format!("{kind} {:?}", decoded(seg)), Request::get(p)));
            }
        }
        break;
    }
    out
}

/// The identifiers of `path` where `template` has `{kind:arg}` segments, when it matches.
fn captures<'a>(template: &'a str, path: &'a str) -> Option<Vec<(&'a str, &'a str)>> {
    let (t, p): (Vec<&str>, Vec<&str>) = (template.split('/').collect(), path.split('/').collect());
    if t.len() != p.len() {
        return None;
    }
    let mut out = Vec::new();
    for (ts, ps) in t.iter().zip(&p) {
        match ts.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(spec) => out.push((spec.split(':').next().unwrap_or_default(), *ps)),
            None if ts == ps => {}
            None => return None,
        }
    }
    Some(out)
}

/// Look up every layer, playlist and cue the steps name, in the application, before anything
/// is sent (at most 8 reads at a time, each identifier once). One missing: `NameLookupError`
/// naming the first step that names it. A cue of `trigger_cue` (of the selected playlist,
/// which the API does not report) cannot be looked up; it is left to the application.
pub async fn check(client: &MediaClient, steps: &[Step]) -> Result<()> {
    let mut seen = BTreeSet::new();
    let mut asks = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        for (index, what, req) in probes(i, step) {
            if seen.insert(req.path.clone()) {
                asks.push((index, what, req));
            }
        }
    }
    let mut answers = futures::stream::iter(asks)
        .map(|(index, what, req)| async move {
            let r = client.read(&req).await;
            (index, what, req, r)
        })
        .buffer_unordered(8);
    let mut missing: Option<(usize, Error)> = None;
    while let Some((index, what, req, r)) = answers.next().await {
        let err = match r {
            Ok(_) => continue,
            Err(e) if e.status() == Some(400) => Error::Lookup(format!(
                "steps[{index}]: {what} is not in the application (GET {} answered {}); \
                 nothing was sent",
                client.transport().url_of(&req),
                400
            )),
            Err(e) => e,
        };
        if missing.as_ref().is_none_or(|(i, _)| index < *i) {
            missing = Some((index, err));
        }
    }
    match missing {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
