//! Reading the playlist tree in one pass, without a model per cue.
//!
//! `/data/playlists` holds the whole tree: thousands of cues. [`decode`] checks the reply and
//! records, in two flat arrays, where each playlist and cue is in the body, with its `uuid` and
//! `name` (a span of the body when the text has no escape). A caller builds its own objects from
//! that (the binding builds its classes directly, with no intermediate model or map);
//! the full model of any node (`to_dict()`, unknown fields, `==`) is read from its span when it
//! is asked for ([`Flat::model`]).
//!
//! Only the plain shape is read this way: objects whose `uuid` and `name` are text or null,
//! whose `items` and `children` are arrays of objects (or null), each key once. Anything else
//! (wrapped items, numbers for names, duplicate keys, invalid JSON, ...) is read by the
//! endpoint's own decoder, so both ways give the same models and the same errors.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::de::IgnoredAny;

use super::endpoints::one;
use super::models::{Model, Playlist};
use crate::json::MAX_DEPTH;

/// How deep the one-pass reader goes (arrays and objects): it recurses a few frames per level,
/// so a tree nested deeper (playlists 19 deep; real ones nest a few) goes to the full decoder,
/// which reads up to [`MAX_DEPTH`] like every reply, and the reader's stack stays shallow.
const FLAT_MAX_DEPTH: usize = 40;

/// A text field of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Text {
    /// Absent, null, or (for a UUID) empty or the text "null".
    #[default]
    None,
    /// The text is this byte range of the body (it has no escape).
    Span(u32, u32),
    /// The text had an escape: it is this entry of [`Flat::decoded`].
    Decoded(u32),
}

/// A cue: its fields and its JSON object in the body.
#[derive(Debug, Clone, PartialEq)]
pub struct CueNode {
    pub uuid: Text,
    pub name: Text,
    pub span: Range<u32>,
}

/// A playlist: its fields, its cues (a range of [`Flat::cues`]), its nested playlists (indices
/// of [`Flat::playlists`]) and its JSON object in the body.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaylistNode {
    pub uuid: Text,
    pub name: Text,
    pub items: Range<u32>,
    pub children: Vec<u32>,
    pub span: Range<u32>,
}

/// A playlist tree read in one pass; `playlists[0]` is the root, every playlist comes before
/// its nested ones.
#[derive(Debug, Clone)]
pub struct Flat {
    pub body: Arc<str>,
    pub playlists: Vec<PlaylistNode>,
    pub cues: Vec<CueNode>,
    /// The texts that had an escape, decoded.
    pub decoded: Vec<String>,
}

/// A decoded `{"playlist": ...}` reply.
#[derive(Debug, Clone)]
pub enum PlaylistTree {
    /// The plain shape, read in one pass.
    Flat(Flat),
    /// Any other shape, read by the endpoint's decoder.
    Model(Playlist),
}

impl Flat {
    /// The value of a text field.
    pub fn text<'a>(&'a self, t: &'a Text) -> Option<&'a str> {
        (*t != Text::None).then(|| str_in(&self.body, &self.decoded, t))
    }

    /// The JSON text of a node.
    pub fn json(&self, span: &Range<u32>) -> &str {
        &self.body[span.start as usize..span.end as usize]
    }

    /// The full model of a node (unknown fields and all).
    pub fn model<M: Model>(&self, span: &Range<u32>) -> Result<M, String> {
        model_of(self.json(span))
    }
}

/// The model of a node handed out: a model, or a span of a reply read in one pass, whose model
/// is read when first asked for.
pub enum NodeModel<M> {
    Model(Arc<M>),
    Span {
        body: Arc<str>,
        span: Range<u32>,
        model: OnceLock<Arc<M>>,
    },
}

impl<M: Model> NodeModel<M> {
    /// The node at `span` of `flat`.
    pub fn span(flat: &Flat, span: &Range<u32>) -> Self {
        NodeModel::Span {
            body: flat.body.clone(),
            span: span.clone(),
            model: OnceLock::new(),
        }
    }

    /// The model (read from the span on first use).
    pub fn model(&self) -> &Arc<M> {
        match self {
            NodeModel::Model(m) => m,
            NodeModel::Span { body, span, model } => model.get_or_init(|| {
                let json = &body[span.start as usize..span.end as usize];
                // The one-pass reader checked this object; serde_json reads it the same way.
                Arc::new(model_of(json).unwrap_or_else(|e| {
                    log::error!("showctl: cannot re-read a {} ({e}): {json}", M::NAME);
                    M::from_raw(Default::default())
                }))
            }),
        }
    }
}

/// The model of one JSON object.
pub fn model_of<M: Model>(json: &str) -> Result<M, String> {
    let value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    M::from_value(value)
}

impl PlaylistTree {
    /// The root as a model (reading the whole body into models when it was read in one pass).
    pub fn into_playlist(self) -> Result<Playlist, String> {
        match self {
            PlaylistTree::Flat(f) => one::<Playlist>(f.body.as_bytes()),
            PlaylistTree::Model(p) => Ok(p),
        }
    }
}

/// Read a `{"playlist": ...}` reply (the reply of `/data/playlists` and `/data/playlist/{id}`).
pub fn decode(body: &[u8]) -> Result<PlaylistTree, String> {
    match flat(body) {
        Some(f) => Ok(PlaylistTree::Flat(f)),
        None => one::<Playlist>(body).map(PlaylistTree::Model),
    }
}

/// The bytes that end the plain part of a string: the closing quote, a backslash, and the
/// control characters JSON does not allow in a string.
static STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The plain shape in one pass, or `None`.
pub fn flat(body: &[u8]) -> Option<Flat> {
    let text = std::str::from_utf8(body).ok()?;
    let mut s = Scan {
        text,
        b: body,
        i: 0,
        depth: 0,
        playlists: Vec::new(),
        // About one cue per 70 bytes in the usual shape.
        cues: Vec::with_capacity(body.len() / 64),
        decoded: Vec::new(),
    };
    let mut root = false;
    s.object(|s, key| match key {
        "playlist" if !root => {
            root = true;
            s.playlist().map(drop)
        }
        "playlist" => None,
        _ => s.skip_value(),
    })?;
    s.ws();
    if !root || s.i != body.len() {
        return None;
    }
    Some(Flat {
        body: Arc::from(text),
        playlists: s.playlists,
        cues: s.cues,
        decoded: s.decoded,
    })
}

/// A cursor over the body; every method returns `None` where the shape is not the plain one.
struct Scan<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    /// The arrays and objects open at `i`: past [`FLAT_MAX_DEPTH`] the body is left to the
    /// full decoder; a skipped value that ends past [`MAX_DEPTH`] too (the full decoder refuses
    /// it, like any reply nested that deep).
    depth: usize,
    playlists: Vec<PlaylistNode>,
    cues: Vec<CueNode>,
    decoded: Vec<String>,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// The next byte after whitespace (not consumed).
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    fn null(&mut self) -> Option<()> {
        self.ws();
        self.b[self.i..].starts_with(b"null").then(|| self.i += 4)
    }

    /// Any JSON value, checked and skipped by serde_json (whose own limit starts again at the
    /// value, so its nesting is added to the depth here).
    fn skip_value(&mut self) -> Option<()> {
        self.ws();
        let start = self.i;
        let mut values =
            serde_json::Deserializer::from_slice(&self.b[start..]).into_iter::<IgnoredAny>();
        values.next()?.ok()?;
        self.i += values.byte_offset();
        let skipped = &self.b[start..self.i];
        if matches!(skipped.first(), Some(b'[' | b'{')) && self.depth + nesting(skipped) > MAX_DEPTH
        {
            return None;
        }
        Some(())
    }

    /// Enter an array or an object (see `depth`).
    fn enter(&mut self, open: u8) -> Option<()> {
        self.eat(open)?;
        self.depth += 1;
        (self.depth <= FLAT_MAX_DEPTH).then_some(())
    }

    /// A string: the span of its contents, or its decoded text when it has an escape.
    #[inline]
    fn string(&mut self) -> Option<Text> {
        self.eat(b'"')?;
        let start = self.i;
        let len = self.b[start..].iter().position(|&c| STOPS[c as usize])?;
        self.i = start + len;
        match self.b[self.i] {
            b'"' => {
                self.i += 1;
                Some(Text::Span(start as u32, (start + len) as u32))
            }
            b'\\' => {
                let mut strings = serde_json::Deserializer::from_slice(&self.b[start - 1..])
                    .into_iter::<String>();
                self.decoded.push(strings.next()?.ok()?);
                self.i = start - 1 + strings.byte_offset();
                Some(Text::Decoded(self.decoded.len() as u32 - 1))
            }
            _ => None, // a control character: invalid JSON
        }
    }

    /// `{ "key": value, ... }`, handing each key to `field`, which reads its value.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &str) -> Option<()>) -> Option<()> {
        self.enter(b'{')?;
        if self.peek()? == b'}' {
            self.i += 1;
            self.depth -= 1;
            return Some(());
        }
        loop {
            self.ws();
            let key = self.string()?;
            self.eat(b':')?;
            let text = self.text;
            let key: Cow<'a, str> = match key {
                Text::Span(a, b) => Cow::Borrowed(&text[a as usize..b as usize]),
                other => Cow::Owned(str_in(text, &self.decoded, &other).to_owned()),
            };
            field(self, &key)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    self.depth -= 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// `[ value, ... ]`, each read by `item`.
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.enter(b'[')?;
        if self.peek()? == b']' {
            self.i += 1;
            self.depth -= 1;
            return Some(());
        }
        loop {
            item(self)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    self.depth -= 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A name: text or null.
    fn name(&mut self) -> Option<Text> {
        match self.peek()? {
            b'"' => self.string(),
            b'n' => self.null().map(|()| Text::None),
            _ => None,
        }
    }

    /// A UUID: like a name, and "" or "null" read as none.
    fn uuid(&mut self) -> Option<Text> {
        let t = self.name()?;
        Some(match str_in(self.text, &self.decoded, &t) {
            "" | "null" => Text::None,
            _ => t,
        })
    }

    fn cue(&mut self) -> Option<()> {
        if self.peek()? != b'{' {
            return None;
        }
        let start = self.i as u32;
        let mut f = Fields::default();
        self.object(|s, key| {
            if f.text_field(s, key)? {
                return Some(());
            }
            match key {
                // A wrapped item: the full decoder unwraps it.
                "playlistItem" => None,
                _ => s.skip_value(),
            }
        })?;
        self.cues.push(CueNode {
            uuid: f.uuid,
            name: f.name,
            span: start..self.i as u32,
        });
        Some(())
    }

    /// A playlist object and everything nested in it; returns its index.
    fn playlist(&mut self) -> Option<u32> {
        if self.peek()? != b'{' {
            return None;
        }
        let start = self.i as u32;
        let index = self.playlists.len();
        self.playlists.push(PlaylistNode {
            uuid: Text::None,
            name: Text::None,
            items: 0..0,
            children: Vec::new(),
            span: 0..0,
        });
        let mut f = Fields::default();
        let mut items = 0..0;
        let mut children = Vec::new();
        self.object(|s, key| match key {
            _ if f.text_field(s, key)? => Some(()),
            "items" => {
                f.once(4)?;
                let first = s.cues.len() as u32;
                if s.peek()? == b'n' {
                    s.null()?;
                } else {
                    s.array(Self::cue)?;
                }
                items = first..s.cues.len() as u32;
                Some(())
            }
            "children" => {
                f.once(8)?;
                if s.peek()? == b'n' {
                    return s.null();
                }
                s.array(|s| {
                    children.push(s.playlist()?);
                    Some(())
                })
            }
            // A wrapped playlist: the full decoder unwraps it.
            "playlist" => None,
            _ => s.skip_value(),
        })?;
        self.playlists[index] = PlaylistNode {
            uuid: f.uuid,
            name: f.name,
            items,
            children,
            span: start..self.i as u32,
        };
        Some(index as u32)
    }
}

/// The `uuid` and `name` of a node being read, and the keys seen so far.
#[derive(Default)]
struct Fields {
    uuid: Text,
    name: Text,
    seen: u8,
}

impl Fields {
    /// Records a key of the node, refusing a second one (the full decoder keeps the last).
    fn once(&mut self, bit: u8) -> Option<()> {
        (self.seen & bit == 0).then(|| self.seen |= bit)
    }

    /// Reads `uuid` or `name`; `false` for another key.
    fn text_field(&mut self, s: &mut Scan<'_>, key: &str) -> Option<bool> {
        match key {
            "uuid" => {
                self.once(1)?;
                self.uuid = s.uuid()?;
            }
            "name" => {
                self.once(2)?;
                self.name = s.name()?;
            }
            _ => return Some(false),
        }
        Some(true)
    }
}

/// The nesting depth of one valid JSON value (arrays and objects, outside strings).
fn nesting(json: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &c in json {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth -= 1,
            _ => {}
        }
    }
    deepest
}

/// The value of a text field of `body`.
fn str_in<'t>(body: &'t str, decoded: &'t [String], t: &Text) -> &'t str {
    match *t {
        Text::Span(a, b) => &body[a as usize..b as usize],
        Text::Decoded(k) => &decoded[k as usize],
        Text::None => "",
    }
}

#[cfg(test)]
mod tests;
