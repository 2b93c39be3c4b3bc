//! Watching the transport: poll `GET /transportState/workspace` and turn the difference
//! between two polls into typed events per layer.
//!
//! The facts from the field decide what a state means: a layer is empty when `playingMedia` is
//! absent (`playingItem` is the last cue that touched the layer and is never cleared, so it says
//! nothing about what plays); a layer plays when it is not empty and `isPlaying` is true, which
//! includes a still image (it plays at rate 0, and its time remaining does not move).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::client::MediaClient;
use super::models::TransportState;
use super::table::consts::TRANSPORT_STATES;
use crate::error::{Error, Result};
use crate::poll::{transient, Polled, Poller};

/// Most thresholds a watch takes.
pub const MAX_THRESHOLDS: usize = 16;

/// What happened on a layer (or to the watch itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The layer began to play: from stopped or empty, or a different media plays now.
    Started,
    /// The layer stopped playing (paused or at its end) and still holds its media.
    Stopped,
    /// Different media is loaded on the layer (it was empty, or held other media).
    MediaChanged,
    /// The time remaining went from above a threshold to at or below it (same media).
    TimeRemaining,
    /// The media left the layer (cleared), or the layer left the workspace.
    Emptied,
    /// A poll failed with a transient error; the watch goes on polling.
    PollFailed,
    /// A poll succeeded after failures.
    PollRecovered,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Started => "started",
            EventKind::Stopped => "stopped",
            EventKind::MediaChanged => "media_changed",
            EventKind::TimeRemaining => "time_remaining",
            EventKind::Emptied => "emptied",
            EventKind::PollFailed => "poll_failed",
            EventKind::PollRecovered => "poll_recovered",
        }
    }
}

/// One change seen between two polls.
#[derive(Debug, Clone)]
pub struct TransportEvent {
    pub kind: EventKind,
    /// Position of the layer in the workspace (in the poll that showed the change).
    pub layer_index: Option<usize>,
    pub layer_name: Option<String>,
    pub layer_uuid: Option<String>,
    /// The layer's state in the previous and in this poll (`None`: not there).
    pub previous: Option<Arc<TransportState>>,
    pub current: Option<Arc<TransportState>>,
    /// The threshold crossed (`TimeRemaining` only), in seconds.
    pub threshold: Option<f64>,
    /// The failure (`PollFailed` only).
    pub error: Option<Error>,
    /// When the poll that showed the change was answered.
    pub at: SystemTime,
}

impl TransportEvent {
    /// The fields its repr shows, in order: the kind, then the layer (or the error of a failed
    /// poll), and the threshold crossed if any.
    pub fn shown_fields(has_error: bool, has_threshold: bool) -> Vec<&'static str> {
        let mut fields = vec!["kind"];
        match has_error {
            false => fields.extend(["layer_index", "layer_name"]),
            true => fields.push("error"),
        }
        if has_threshold {
            fields.push("threshold");
        }
        fields
    }
}

/// Validate thresholds: finite seconds above 0, at most [`MAX_THRESHOLDS`]; returned highest
/// first, without duplicates.
pub fn thresholds(values: &[f64]) -> Result<Vec<f64>> {
    if values.len() > MAX_THRESHOLDS {
        return Err(Error::invalid(format!(
            "thresholds: at most {MAX_THRESHOLDS} values, got {}",
            values.len()
        )));
    }
    let mut out = Vec::with_capacity(values.len());
    for &v in values {
        if !v.is_finite() || v <= 0.0 || v > 86_400.0 {
            return Err(Error::invalid(format!(
                "thresholds: each must be a number of seconds above 0 and at most 86400, got {}",
                crate::media::endpoints::shown(v)
            )));
        }
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out.sort_by(|a, b| b.total_cmp(a));
    Ok(out)
}

/// The identity of what plays on a layer: its media UUID (any case), else its name; `None`
/// when the layer is empty.
fn media(t: Option<&TransportState>) -> Option<String> {
    let m = t?.playing_media.as_ref()?;
    Some(
        m.uuid
            .as_deref()
            .map(str::to_ascii_lowercase)
            .or_else(|| m.name.clone())
            .unwrap_or_default(),
    )
}

fn playing(t: Option<&TransportState>) -> bool {
    t.is_some_and(|t| play_state(t).playing())
}

/// A still image: playing at rate 0 (its time does not move).
fn still(t: &TransportState) -> bool {
    t.is_playing == Some(true) && t.playback_rate == Some(0.0)
}

/// What a layer is doing, read the way the field reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayState {
    /// Media plays and its time moves.
    Playing,
    /// Media is loaded and does not play (paused, or stopped at its end).
    Paused,
    /// A still image: it reports playing at rate 0, its time does not move.
    Still,
    /// Plays at a non-zero rate with no time remaining: a video input, which has no end. (How
    /// the application reports a live input is not documented; this is the simulator's model.)
    LiveInput,
    /// No `playingMedia` (whatever `playingItem` says: it is never cleared).
    Empty,
}

impl PlayState {
    pub fn as_str(self) -> &'static str {
        match self {
            PlayState::Playing => "playing",
            PlayState::Paused => "paused",
            PlayState::Still => "still",
            PlayState::LiveInput => "live input",
            PlayState::Empty => "empty",
        }
    }

    /// True for every state that reports playing (a still image and a live input included).
    pub fn playing(self) -> bool {
        matches!(
            self,
            PlayState::Playing | PlayState::Still | PlayState::LiveInput
        )
    }
}

/// The state of a layer from its transport state.
pub fn play_state(t: &TransportState) -> PlayState {
    if media(Some(t)).is_none() {
        PlayState::Empty
    } else if t.is_playing != Some(true) {
        PlayState::Paused
    } else if still(t) {
        PlayState::Still
    } else if t.time_remaining.is_none_or(|r| r <= 0.0) && t.time_elapsed.is_some_and(|e| e > 0.0) {
        PlayState::LiveInput
    } else {
        PlayState::Playing
    }
}

/// The events of one layer, in order: emptied, or media_changed, stopped, started, then one
/// time_remaining per threshold crossed (highest first).
pub fn layer_changes(
    prev: Option<&TransportState>,
    cur: Option<&TransportState>,
    thresholds: &[f64],
) -> Vec<(EventKind, Option<f64>)> {
    let (was, now) = (media(prev), media(cur));
    let mut out = Vec::new();
    if now.is_none() {
        if was.is_some() {
            out.push((EventKind::Emptied, None));
        }
        return out;
    }
    let changed = was != now;
    if changed {
        out.push((EventKind::MediaChanged, None));
    }
    if playing(prev) && !playing(cur) {
        out.push((EventKind::Stopped, None));
    }
    if playing(cur) && (changed || !playing(prev)) {
        out.push((EventKind::Started, None));
    }
    if let (false, Some(p), Some(c)) = (changed, prev, cur) {
        if let (Some(before), Some(after), false) = (p.time_remaining, c.time_remaining, still(c)) {
            for &t in thresholds {
                if before > t && after <= t {
                    out.push((EventKind::TimeRemaining, Some(t)));
                }
            }
        }
    }
    out
}

/// How a layer is matched from one poll to the next: its UUID, else its name, else position.
fn key(i: usize, t: &TransportState) -> String {
    let layer = t.layer.as_deref();
    match (
        layer.and_then(|l| l.uuid.as_deref()),
        layer.and_then(|l| l.name.as_deref()),
    ) {
        (Some(u), _) => format!("u:{}", u.to_ascii_lowercase()),
        (None, Some(n)) => format!("n:{n}"),
        (None, None) => format!("i:{i}"),
    }
}

/// The events between two polls of the workspace, layer by layer in the order of the current
/// poll, then layers that are gone.
pub fn changes(
    prev: &[Arc<TransportState>],
    cur: &[Arc<TransportState>],
    thresholds: &[f64],
    at: SystemTime,
) -> Vec<TransportEvent> {
    let mut before: HashMap<String, &Arc<TransportState>> = prev
        .iter()
        .enumerate()
        .map(|(i, t)| (key(i, t), t))
        .collect();
    type Row<'a> = (
        Option<usize>,
        Option<&'a Arc<TransportState>>,
        Option<&'a Arc<TransportState>>,
    );
    let mut rows: Vec<Row> = Vec::new();
    for (i, t) in cur.iter().enumerate() {
        rows.push((Some(i), before.remove(&key(i, t)), Some(t)));
    }
    for (i, t) in prev.iter().enumerate() {
        if before.remove(&key(i, t)).is_some() {
            rows.push((None, Some(t), None));
        }
    }
    let mut out = Vec::new();
    for (index, p, c) in rows {
        let layer = c.or(p).and_then(|t| t.layer.clone());
        for (kind, threshold) in layer_changes(p.map(|t| &**t), c.map(|t| &**t), thresholds) {
            out.push(TransportEvent {
                kind,
                layer_index: index,
                layer_name: layer.as_ref().and_then(|l| l.name.clone()),
                layer_uuid: layer.as_ref().and_then(|l| l.uuid.clone()),
                previous: p.cloned(),
                current: c.cloned(),
                threshold,
                error: None,
                at,
            });
        }
    }
    out
}

/// Polls the workspace transport state every `interval` and yields the changes. The first poll
/// is the baseline (no events). Polls never overlap: one that takes longer than the interval
/// is followed by the next at once. A transient failure yields one `PollFailed` event (and a
/// log line), the watch goes on at the next tick and yields `PollRecovered` when a poll works
/// again, followed by the changes since the last good poll. Other failures (401, 404, a reply
/// that is not the transport state, a closed client) end the watch with their error.
pub struct TransportWatch {
    client: MediaClient,
    poller: Poller,
    thresholds: Vec<f64>,
    last: Option<Vec<Arc<TransportState>>>,
    pending: VecDeque<TransportEvent>,
}

impl TransportWatch {
    /// A watch polling every `interval` seconds, checked by [`crate::poll::watch_interval`],
    /// for the `thresholds` checked by [`thresholds`].
    pub fn start(client: MediaClient, interval: f64, thresholds: &[f64]) -> Result<Self> {
        let interval = crate::poll::watch_interval(interval)?;
        Ok(Self::new(client, interval, self::thresholds(thresholds)?))
    }

    /// `interval` from [`crate::poll::watch_interval`], `thresholds` from [`thresholds`].
    pub fn new(client: MediaClient, interval: Duration, thresholds: Vec<f64>) -> Self {
        TransportWatch {
            client,
            poller: Poller::new("transport watch", interval),
            thresholds,
            last: None,
            pending: VecDeque::new(),
        }
    }

    /// The next event (polling as long as nothing changes).
    pub async fn next_event(&mut self) -> Result<TransportEvent> {
        loop {
            if let Some(ev) = self.pending.pop_front() {
                return Ok(ev);
            }
            // A transient failure is in `pending` now (once per run of failures): go on.
            if let Err(Failure::Fatal(e)) = self.poll().await {
                return Err(e);
            }
        }
    }

    /// The baseline: the layers as the first poll that answered saw them, polling once now
    /// when none has answered yet (so that a command sent after this is reported as a change).
    /// A failed poll raises its error here; a transient one is also queued as a `PollFailed`
    /// event, as iterating would have reported it, and the next poll that answers is the
    /// baseline.
    pub async fn baseline(&mut self) -> Result<Vec<Arc<TransportState>>> {
        if self.last.is_none() {
            self.poll().await.map_err(Failure::into_error)?;
        }
        Ok(self.last.clone().unwrap_or_default())
    }

    /// One poll, when it is due: its events are queued.
    async fn poll(&mut self) -> std::result::Result<(), Failure> {
        self.poller.wait().await;
        let url = self.client.transport().base_url().to_string();
        let call = TRANSPORT_STATES.at(&[]).map_err(Failure::Fatal)?;
        let result = self.client.run(call).await;
        match self.poller.settle(&url, result) {
            Polled::Fresh {
                value: states,
                recovered,
                at,
            } => {
                if recovered {
                    self.pending
                        .push_back(watch_event(EventKind::PollRecovered, None, at));
                }
                if let Some(prev) = &self.last {
                    self.pending
                        .extend(changes(prev, &states, &self.thresholds, at));
                }
                self.last = Some(states);
                Ok(())
            }
            Polled::Failed { error, first } if transient(&error) => {
                if first {
                    self.pending.push_back(watch_event(
                        EventKind::PollFailed,
                        Some(error.clone()),
                        SystemTime::now(),
                    ));
                }
                Err(Failure::Transient(error))
            }
            Polled::Failed { error, .. } => Err(Failure::Fatal(error)),
        }
    }
}

/// Why a poll gave no states: a transient failure (the watch goes on) or one that ends it.
enum Failure {
    Transient(Error),
    Fatal(Error),
}

impl Failure {
    fn into_error(self) -> Error {
        match self {
            Failure::Transient(e) | Failure::Fatal(e) => e,
        }
    }
}

fn watch_event(kind: EventKind, error: Option<Error>, at: SystemTime) -> TransportEvent {
    TransportEvent {
        kind,
        layer_index: None,
        layer_name: None,
        layer_uuid: None,
        previous: None,
        current: None,
        threshold: None,
        error,
        at,
    }
}

impl crate::poll::Watch for TransportWatch {
    type Item = TransportEvent;
    fn next_item(&mut self) -> impl std::future::Future<Output = Result<TransportEvent>> + Send {
        self.next_event()
    }
}

#[cfg(test)]
mod tests;
