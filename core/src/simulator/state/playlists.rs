//! Playlists and cues: the reads, the selection and the triggers.

use super::*;
use crate::simulator::answers::{self as answer, to_value, Keyed};

/// What is selected in the workspace (`Simulator.selection`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Selection {
    /// The selected layer's index.
    pub layer: usize,
    /// The targeted layer's index: where untargeted media plays.
    pub target: usize,
    /// The selected playlist's UUID.
    pub playlist: Option<String>,
}

impl World {
    pub fn playlists_json(&self) -> Value {
        to_value(Keyed("playlist", answer::playlist(&self.playlists)))
    }

    pub fn playlist_by_id_json(&self, id: &str) -> Outcome<Value> {
        Ok(to_value(Keyed(
            "playlist",
            answer::playlist(self.playlist(id)?),
        )))
    }

    pub fn cue_json(&self, playlist: &str, cue: &str) -> Outcome<Value> {
        let (cue, _) = self.cue(self.playlist(playlist)?, cue)?;
        Ok(to_value(Keyed("playlistItem", answer::cue(&cue))))
    }

    /// Select a layer; with `target` it also becomes the layer untargeted media plays on.
    pub fn select_layer(&mut self, id: &str, target: bool) -> Outcome<()> {
        let i = self.layer_index(id)?;
        self.selected_layer = i;
        if target {
            self.targeted_layer = i;
        }
        Ok(())
    }

    pub fn select_playlist(&mut self, id: &str) -> Outcome<()> {
        self.selected_playlist = Some(self.playlist(id)?.uuid.clone());
        Ok(())
    }

    /// The selected layer (index), the targeted one and the selected playlist's UUID.
    pub fn selection(&self) -> Selection {
        Selection {
            layer: self.selected_layer,
            target: self.targeted_layer,
            playlist: self.selected_playlist.clone(),
        }
    }

    /// Play a cue: on its configured layer when it has one, else on the targeted layer.
    pub(super) fn play(&mut self, (cue, live): (Cue, bool)) -> Outcome<()> {
        let layer = match &cue.layer {
            Some(l) => self.layer_index(l)?,
            None => self.targeted_layer,
        };
        match self.layers.get_mut(layer) {
            Some(l) => {
                l.transport.load(&cue, live, Instant::now());
                Ok(())
            }
            None => bad("the workspace has no layer to play on"),
        }
    }

    /// POST /trigger/cue/{id}: a cue of the selected playlist, by index or UUID (a UUID works
    /// only when the cue's playlist is selected; a name is refused, as in the field).
    pub fn trigger_cue(&mut self, cue: &str) -> Outcome<()> {
        let selected = self.selected_playlist.clone().unwrap_or_default();
        let p = self.playlist(&selected)?;
        let found = match parse_id(cue) {
            Id::Index(_) => self.cue(p, cue)?,
            Id::Key(k) => match p.items.iter().find(|c| c.uuid == k) {
                Some(c) => (c.clone(), p.video_input),
                None => return bad(self.not_in_selected(p, k)),
            },
        };
        self.play(found)
    }

    /// Why `/trigger/cue/{k}` found no cue `k` in the selected playlist `p`.
    pub(super) fn not_in_selected(&self, p: &Playlist, k: &str) -> String {
        if p.items.iter().any(|c| c.name == k) {
            return format!(
                "this endpoint takes a cue index or UUID, not a name ({k:?}); send the cue's \
                 index or UUID"
            );
        }
        let elsewhere = self
            .playlists
            .all()
            .into_iter()
            .find(|q| q.items.iter().any(|c| c.uuid == k));
        match elsewhere {
            Some(q) => format!(
                "cue {k} is in playlist {:?}, not in the selected playlist {:?}: select its \
                 playlist first",
                q.name, p.name
            ),
            None => format!(
                "no cue with the index or UUID {k:?} in the selected playlist {:?}",
                p.name
            ),
        }
    }

    /// POST /trigger/playlist/{id}: the first cue of the playlist.
    pub fn trigger_playlist(&mut self, playlist: &str) -> Outcome<()> {
        let p = self.playlist(playlist)?;
        if p.items.is_empty() {
            return bad(format!("playlist {:?} has no cues", p.name));
        }
        let found = self.cue(p, "0")?;
        self.play(found)
    }

    /// POST /trigger/playlist/{p}/cue/{c} and /trigger/layer/{l}/playlist/{p}/cue/{c}: the
    /// layer must exist but is ignored, as in the field (the cue plays on its own layer).
    pub fn trigger_playlist_cue(
        &mut self,
        layer: Option<&str>,
        playlist: &str,
        cue: &str,
    ) -> Outcome<()> {
        if let Some(id) = layer {
            self.layer_index(id)?;
        }
        let found = self.cue(self.playlist(playlist)?, cue)?;
        self.play(found)
    }
}
