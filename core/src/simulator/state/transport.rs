//! What a layer plays and its clock; the transport-state reads and the commands that move it.

use super::*;
use crate::simulator::answers::{
    self as answer, list, to_value, Extended, Keyed, LiveLayerDoc, LiveTransition, TransportDoc,
    TransportState,
};
use crate::simulator::workspace::TransportSeed;

/// What a layer plays: the cue that touched it last, the media, and the clock.
#[derive(Debug, Clone, Default)]
pub struct PlaybackClock {
    pub(super) item: Option<Named>,
    pub(super) media: Option<Named>,
    /// Seconds; 0 for a still image.
    pub(super) duration: f64,
    /// A video input: no end, no remaining time.
    pub(super) live: bool,
    /// Position when `since` was set (or the position while paused).
    pub(super) position: f64,
    /// Playing since this instant.
    pub(super) since: Option<Instant>,
    /// Keys of a recorded transport state beyond the documented ones.
    pub(super) extra: Extra,
}

impl PlaybackClock {
    pub(super) fn seeded(seed: &TransportSeed, now: Instant) -> Self {
        PlaybackClock {
            item: seed.playing_item.clone(),
            media: seed.playing_media.clone(),
            duration: (seed.time_elapsed + seed.time_remaining).max(0.0),
            live: seed.live,
            position: seed.time_elapsed.max(0.0),
            since: (seed.is_playing && seed.playing_media.is_some()).then_some(now),
            extra: seed.extra.clone(),
        }
    }

    pub(super) fn load(&mut self, cue: &Cue, live: bool, now: Instant) {
        let summary = Named {
            name: cue.name.clone(),
            uuid: cue.uuid.clone(),
            extra: Extra::new(),
        };
        self.media = Some(cue.media.clone().unwrap_or_else(|| summary.clone()));
        self.item = Some(summary);
        self.duration = if live { 0.0 } else { cue.duration.max(0.0) };
        self.live = live;
        self.position = 0.0;
        self.since = Some(now);
    }

    pub(super) fn elapsed(&self, now: Instant) -> f64 {
        let run = self
            .since
            .map_or(0.0, |s| now.saturating_duration_since(s).as_secs_f64());
        let t = self.position + run;
        if self.live {
            t
        } else {
            t.min(self.duration)
        }
    }

    pub(super) fn still(&self) -> bool {
        !self.live && self.duration == 0.0
    }

    /// A still image reports playing at rate 0; a clip that reached its end stops.
    pub(super) fn is_playing(&self, now: Instant) -> bool {
        self.media.is_some()
            && self.since.is_some()
            && (self.live || self.still() || self.elapsed(now) < self.duration)
    }

    pub(super) fn play(&mut self, now: Instant) {
        if self.media.is_none() || self.since.is_some() {
            return;
        }
        if !self.live && !self.still() && self.position >= self.duration {
            self.position = 0.0;
        }
        self.since = Some(now);
    }

    pub(super) fn pause(&mut self, now: Instant) {
        self.position = self.elapsed(now);
        self.since = None;
    }

    pub(super) fn seek(&mut self, to: f64, now: Instant) {
        if self.media.is_none() {
            return;
        }
        self.position = if self.live {
            to.max(0.0)
        } else {
            to.clamp(0.0, self.duration)
        };
        if self.since.is_some() {
            self.since = Some(now);
        }
    }

    /// Empty the layer; `playingItem` stays (the application never clears it).
    pub(super) fn clear(&mut self) {
        *self = PlaybackClock {
            item: self.item.take(),
            extra: std::mem::take(&mut self.extra),
            ..PlaybackClock::default()
        };
    }

    /// The transport state's own fields and extra keys (the layer is added by the caller).
    pub(super) fn answer(&self, now: Instant) -> Extended<'_, TransportDoc<'_>> {
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        let elapsed = self.elapsed(now);
        let playing = self.is_playing(now);
        let remaining = if self.live || self.media.is_none() {
            0.0
        } else {
            self.duration - elapsed
        };
        let rate = if playing && !self.still() { 1.0 } else { 0.0 };
        let doc = TransportDoc {
            time_elapsed: round(elapsed),
            time_remaining: round(remaining),
            playback_rate: rate,
            is_playing: playing,
            is_scrubbing: false,
            playing_item: self.item.as_ref().map(answer::named),
            playing_media: self.media.as_ref().map(answer::named),
        };
        Extended(doc, &self.extra)
    }
}

impl World {
    /// The transition a transport-state layer reports: its own, else the workspace's, with
    /// the layer's `duration` and the transition's `favoriteUUID`.
    fn live_transition<'a>(&'a self, l: &'a Layer) -> Option<LiveTransition<'a>> {
        let t = l
            .settings
            .transition
            .as_ref()
            .or(self.workspace.transition.as_ref())?;
        Some(LiveTransition {
            fx: answer::fx(t),
            duration: l.settings.transition_duration,
            favorite_uuid: t.favorite_uuid.as_deref().unwrap_or(&t.uuid),
        })
    }

    fn transport_of<'a>(&'a self, l: &'a Layer, now: Instant) -> TransportState<'a> {
        let layer = LiveLayerDoc {
            layer: self.layer_doc(l),
            layer_blend: self.layer_blend(l),
            transition: self.live_transition(l),
        };
        TransportState {
            state: l.transport.answer(now),
            layer: Extended(layer, &l.extra),
        }
    }

    pub fn transport_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let now = Instant::now();
        Ok(match scope {
            Scope::Workspace => list(
                "transportState",
                self.layers.iter().map(|l| self.transport_of(l, now)),
            ),
            Scope::Layer(id) => {
                let l = &self.layers[self.layer_index(id)?];
                to_value(Keyed("transportState", self.transport_of(l, now)))
            }
        })
    }

    // --- commands -------------------------------------------------------------------------

    pub(super) fn apply(layer: &mut Layer, op: Op, now: Instant) {
        match op {
            Op::Clear => layer.transport.clear(),
            Op::Mute => layer.muted = true,
            Op::Unmute => layer.muted = false,
            Op::Hide => layer.hidden = true,
            Op::Unhide => layer.hidden = false,
            Op::Play => layer.transport.play(now),
            Op::Pause => layer.transport.pause(now),
        }
    }

    /// A command on one layer.
    pub fn layer_op(&mut self, id: &str, op: Op) -> Outcome<()> {
        let i = self.layer_index(id)?;
        Self::apply(&mut self.layers[i], op, Instant::now());
        Ok(())
    }

    /// A command on the workspace: it applies to every layer.
    pub fn workspace_op(&mut self, op: Op) {
        let now = Instant::now();
        for l in &mut self.layers {
            Self::apply(l, op, now);
        }
    }

    /// Move the play head of a layer: `to(elapsed, duration)` gives the new position.
    pub fn seek(&mut self, id: &str, to: impl Fn(f64, f64) -> f64) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let now = Instant::now();
        let t = &mut self.layers[i].transport;
        let target = to(t.elapsed(now), t.duration);
        t.seek(target, now);
        Ok(())
    }
}
