//! Stable addressing: look a name up in the application's lists and address the thing by its
//! UUID. A layer or playlist named only with digits ("10", "2024") cannot be addressed by name,
//! since the application reads digits as an index; its UUID always works.
//!
//! The lists are read once and kept ([`Names`], one per client); [`Names::refresh`] forgets
//! them. A name that is not in the kept lists is looked up once more in fresh ones before it is
//! reported missing. Reads go to the primary ([`Sender`]).

use std::sync::{Arc, Mutex, MutexGuard};

use super::endpoints::Endpoint;
use super::models::{Cue, LayerList, LayerState, Playlist};
use super::sender::Sender;
use super::table::consts::{LAYERS, PLAYLISTS};
use crate::error::{Error, Result};

/// The lists kept for lookups.
#[derive(Default)]
pub struct NameCache {
    layers: Option<Arc<LayerList>>,
    playlists: Option<Arc<Playlist>>,
}

/// What a name is looked up among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    Layer,
    Playlist,
    Cue,
}

impl NameKind {
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "layer" => Ok(NameKind::Layer),
            "playlist" => Ok(NameKind::Playlist),
            "cue" => Ok(NameKind::Cue),
            other => Err(Error::invalid(format!(
                "kind: must be \"layer\", \"playlist\", \"cue\" or None, got {other:?}"
            ))),
        }
    }
    fn noun(self) -> &'static str {
        match self {
            NameKind::Layer => "layer",
            NameKind::Playlist => "playlist",
            NameKind::Cue => "cue",
        }
    }
}

/// One thing found under a name.
#[derive(Debug, Clone)]
enum Hit {
    Layer(Arc<LayerState>),
    Playlist(Arc<Playlist>),
    Cue(Arc<Cue>),
}

impl Hit {
    fn kind(&self) -> NameKind {
        match self {
            Hit::Layer(_) => NameKind::Layer,
            Hit::Playlist(_) => NameKind::Playlist,
            Hit::Cue(_) => NameKind::Cue,
        }
    }
    fn uuid(&self) -> Option<&str> {
        match self {
            Hit::Layer(l) => l.uuid.as_deref(),
            Hit::Playlist(p) => p.uuid.as_deref(),
            Hit::Cue(c) => c.uuid.as_deref(),
        }
    }
    fn name(&self) -> &str {
        match self {
            Hit::Layer(l) => l.name.as_deref(),
            Hit::Playlist(p) => p.name.as_deref(),
            Hit::Cue(c) => c.name.as_deref(),
        }
        .unwrap_or("")
    }
}

/// True when `key` is the thing's name, or its UUID in any case.
fn is(key: &str, uuid: &Option<String>, name: &Option<String>) -> bool {
    name.as_deref() == Some(key) || uuid.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(key))
}

/// Everything called `key` (the same UUID counted once per kind).
fn hits(key: &str, layers: Option<&LayerList>, tree: Option<&Arc<Playlist>>) -> Vec<Hit> {
    let mut out: Vec<Hit> = Vec::new();
    let mut push = |hit: Hit| {
        let dup = hit.uuid().is_some()
            && out
                .iter()
                .any(|h| h.kind() == hit.kind() && h.uuid() == hit.uuid());
        if !dup {
            out.push(hit);
        }
    };
    for l in layers.iter().flat_map(|l| l.0.iter()) {
        if is(key, &l.uuid, &l.name) {
            push(Hit::Layer(l.clone()));
        }
    }
    for p in tree.map(|t| t.walk()).unwrap_or_default() {
        if is(key, &p.uuid, &p.name) {
            push(Hit::Playlist(p.clone()));
        }
        for c in p.items.iter().filter(|c| is(key, &c.uuid, &c.name)) {
            push(Hit::Cue(c.clone()));
        }
    }
    out
}

/// Names listed in a miss's message, per kind (the rest are counted).
const LISTED: usize = 20;

/// A lookup that found nothing: what was searched, the nearest name ("did you mean"), and the
/// names there are (layers and playlists; cues only through the suggestion, a show has
/// thousands), as the command line lists them.
pub(super) fn miss(
    key: &str,
    kind: Option<NameKind>,
    layers: Option<&LayerList>,
    tree: Option<&Arc<Playlist>>,
) -> Error {
    let what = kind.map_or("layer, playlist or cue", NameKind::noun);
    let walk = tree.map(|t| t.walk()).unwrap_or_default();
    let layer_names: Vec<&str> = layers
        .iter()
        .flat_map(|l| l.0.iter())
        .filter_map(|l| l.name.as_deref())
        .collect();
    // The root of the tree is not a playlist one addresses.
    let playlist_names: Vec<&str> = walk
        .iter()
        .skip(1)
        .filter_map(|p| p.name.as_deref())
        .collect();
    let cue_names: Vec<&str> = walk
        .iter()
        .flat_map(|p| p.items.iter())
        .filter_map(|c| c.name.as_deref())
        .collect();
    let (layer_on, playlist_on, cue_on) = match kind {
        None => (true, true, true),
        Some(NameKind::Layer) => (true, false, false),
        Some(NameKind::Playlist) => (false, true, false),
        Some(NameKind::Cue) => (false, false, true),
    };
    let candidates = [
        (layer_on, &layer_names),
        (playlist_on, &playlist_names),
        (cue_on, &cue_names),
    ];
    let nearest = candidates
        .iter()
        .filter(|(on, _)| *on)
        .flat_map(|(_, names)| names.iter())
        .map(|n| {
            let d = if n.eq_ignore_ascii_case(key) {
                0
            } else {
                strsim::levenshtein(&key.to_lowercase(), &n.to_lowercase()).max(1)
            };
            (d, *n)
        })
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| format!("; did you mean {n:?}?"))
        .unwrap_or_default();
    let mut lists = Vec::new();
    for (on, noun, names) in [
        (layer_on, "layers", &layer_names),
        (playlist_on, "playlists", &playlist_names),
    ] {
        if !on {
            continue;
        }
        let mut unique: Vec<&str> = Vec::new();
        for n in names.iter() {
            if !unique.contains(n) {
                unique.push(n);
            }
        }
        let shown: Vec<String> = unique
            .iter()
            .take(LISTED)
            .map(|n| format!("{n:?}"))
            .collect();
        let more = unique.len().saturating_sub(LISTED);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        lists.push(if shown.is_empty() {
            format!("no {noun}")
        } else {
            format!("{noun}: {}{tail}", shown.join(", "))
        });
    }
    let listed = if lists.is_empty() {
        String::new()
    } else {
        format!(" ({})", lists.join("; "))
    };
    Error::Lookup(format!(
        "no {what} is named {key:?}{nearest}{listed}; names are matched exactly, UUIDs in any \
         case"
    ))
}

/// The one hit, or a lookup error saying what was searched and what was found.
fn only(key: &str, kind: Option<NameKind>, hits: Vec<Hit>) -> Result<Hit> {
    let what = kind.map_or("layer, playlist or cue", NameKind::noun);
    let mut hits = hits.into_iter();
    match (hits.next(), hits.len()) {
        (Some(hit), 0) if hit.uuid().is_none() => Err(Error::Lookup(format!(
            "the {} {key:?} has no UUID in the application's answer, so it cannot be \
             addressed by UUID",
            hit.kind().noun()
        ))),
        (Some(hit), 0) => Ok(hit),
        (None, _) => Err(Error::Lookup(format!(
            "no {what} is named {key:?} (names are matched exactly, UUIDs in any case)"
        ))),
        (Some(first), more) => {
            let found: Vec<String> = std::iter::once(first)
                .chain(hits)
                .map(|h| {
                    format!(
                        "{} {:?} ({})",
                        h.kind().noun(),
                        h.name(),
                        h.uuid().unwrap_or("no UUID")
                    )
                })
                .collect();
            Err(Error::Lookup(format!(
                "{} things are named {key:?}: {}; pass kind= or a UUID",
                more + 1,
                found.join(", ")
            )))
        }
    }
}

/// The name lookups of one client: the lists kept for them.
#[derive(Default)]
pub struct Names {
    cache: Mutex<NameCache>,
}

impl Names {
    fn names(&self) -> MutexGuard<'_, NameCache> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forget the lists kept for name lookups; the next lookup reads them again.
    pub fn refresh(&self) {
        *self.names() = NameCache::default();
    }

    /// A kept list (`slot`), or a fresh one read from `endpoint` and kept.
    async fn kept<T>(
        &self,
        sender: &Sender,
        fresh: bool,
        slot: fn(&mut NameCache) -> &mut Option<Arc<T>>,
        endpoint: &Endpoint<(), T>,
    ) -> Result<Arc<T>> {
        if let (false, Some(kept)) = (fresh, slot(&mut self.names()).clone()) {
            return Ok(kept);
        }
        let read = Arc::new(sender.call(endpoint.at(&[])?).await?);
        *slot(&mut self.names()) = Some(read.clone());
        Ok(read)
    }

    /// Everything called `key` among `kind`, in the kept lists or fresh ones.
    async fn search(
        &self,
        sender: &Sender,
        key: &str,
        kind: Option<NameKind>,
        fresh: bool,
    ) -> Result<Vec<Hit>> {
        let layers = match kind {
            None | Some(NameKind::Layer) => {
                Some(self.kept(sender, fresh, |n| &mut n.layers, &LAYERS).await?)
            }
            _ => None,
        };
        let tree = match kind {
            Some(NameKind::Layer) => None,
            _ => Some(
                self.kept(sender, fresh, |n| &mut n.playlists, &PLAYLISTS)
                    .await?,
            ),
        };
        let mut found = hits(key, layers.as_deref(), tree.as_ref());
        found.retain(|h| kind.is_none_or(|k| h.kind() == k));
        Ok(found)
    }

    async fn lookup(&self, sender: &Sender, key: &str, kind: Option<NameKind>) -> Result<Hit> {
        if key.is_empty() {
            return Err(Error::invalid("name: must not be empty"));
        }
        let was_cached = {
            let names = self.names();
            names.layers.is_some() || names.playlists.is_some()
        };
        let mut found = self.search(sender, key, kind, false).await?;
        if found.is_empty() && was_cached {
            found = self.search(sender, key, kind, true).await?;
        }
        if found.is_empty() {
            let names = self.names();
            return Err(miss(
                key,
                kind,
                names.layers.as_deref(),
                names.playlists.as_ref(),
            ));
        }
        only(key, kind, found)
    }

    /// The state of the one layer named `name` (or with that UUID).
    pub async fn resolve_layer(&self, sender: &Sender, name: &str) -> Result<Arc<LayerState>> {
        match self.lookup(sender, name, Some(NameKind::Layer)).await? {
            Hit::Layer(l) => Ok(l),
            _ => Err(Error::Internal(
                "a layer lookup found something else".into(),
            )),
        }
    }

    /// The one playlist named `name` (or with that UUID), anywhere in the tree.
    pub async fn resolve_playlist(&self, sender: &Sender, name: &str) -> Result<Arc<Playlist>> {
        match self.lookup(sender, name, Some(NameKind::Playlist)).await? {
            Hit::Playlist(p) => Ok(p),
            _ => Err(Error::Internal(
                "a playlist lookup found something else".into(),
            )),
        }
    }

    /// The UUID of the one layer, playlist or cue named `name` (only among `kind` if given).
    pub async fn by_name(
        &self,
        sender: &Sender,
        name: &str,
        kind: Option<NameKind>,
    ) -> Result<String> {
        let hit = self.lookup(sender, name, kind).await?;
        Ok(hit.uuid().unwrap_or_default().to_string())
    }
}
