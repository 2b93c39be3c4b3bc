//! What the fuzzers check, shared by the proptest suite (`tests/fuzz_decoders.rs`, run by
//! `cargo test`) and the cargo-fuzz targets (`fuzz/fuzz_targets/`, run by `scripts/fuzz.sh`).
//!
//! Every function panics when a property breaks; a decoder may refuse a body (an `Err`), never
//! panic.

#![allow(dead_code)] // each user takes the part it needs

use std::sync::Arc;

use serde_json::Value;
use showctl::error::Error;
use showctl::ident::{Ident, Kind, MAX_NAME};
use showctl::media::endpoints as ep;
use showctl::media::models::{
    BlendMode, Cue, Effect, EffectPreset, LayerBlend, LayerList, LayerPreset, LayerState, Model,
    Playlist, TargetSet, Transition, TransportState,
};
use showctl::media::table::consts;
use showctl::score::{fields_of, ScoreRecord, Sport};
use showctl::transport::Target;

/// A reply decoder, its result dropped after it was looked at.
pub type Decoder = fn(&[u8]) -> Result<(), String>;

/// A reply decoder that gives back the objects it keeps (what `to_dict()` returns in Python).
pub type WireDecoder = fn(&[u8]) -> Result<Vec<Value>, String>;

/// The objects a decoded reply keeps, each as it was sent.
pub trait Wire {
    fn wire(&self) -> Vec<Value>;
}

macro_rules! wire_models {
    ($($ty:ty),* $(,)?) => {$(
        impl Wire for $ty {
            fn wire(&self) -> Vec<Value> {
                vec![Value::Object(self.raw().clone())]
            }
        }
    )*};
}
wire_models![
    Playlist,
    Cue,
    LayerState,
    BlendMode,
    LayerBlend,
    LayerPreset,
    TargetSet,
    Effect,
    EffectPreset,
    Transition,
    TransportState,
];

impl<M: Wire> Wire for Vec<Arc<M>> {
    fn wire(&self) -> Vec<Value> {
        self.iter().flat_map(|m| m.wire()).collect()
    }
}
impl<M: Wire> Wire for Option<M> {
    fn wire(&self) -> Vec<Value> {
        self.iter().flat_map(Wire::wire).collect()
    }
}
impl Wire for LayerList {
    fn wire(&self) -> Vec<Value> {
        self.0.wire()
    }
}
impl Wire for f64 {
    fn wire(&self) -> Vec<Value> {
        Vec::new()
    }
}
impl Wire for () {
    fn wire(&self) -> Vec<Value> {
        Vec::new()
    }
}

/// [`MEDIA`]: every reply decoder of the media endpoint table (the commands' decoder reads
/// nothing), and [`WIRE`]: each with its path template and the objects it keeps.
macro_rules! decoders {
    ($($name:ident),* $(,)?) => {
        pub const MEDIA: &[(&str, Decoder)] = &[$((stringify!($name), |body: &[u8]| {
            (consts::$name.decode)(body).map(|v| {
                // Walk everything that was decoded, as the binding does when it converts.
                std::hint::black_box(format!("{v:?}"));
            })
        })),*];
        pub const WIRE: &[(&str, &str, WireDecoder)] = &[$((
            stringify!($name),
            consts::$name.path,
            |body: &[u8]| (consts::$name.decode)(body).map(|v| v.wire()),
        )),*];
    };
}

decoders![
    PLAYLISTS,
    PLAYLIST,
    CUE,
    LAYERS,
    LAYER_STATE,
    LAYER_OPACITY,
    BLEND_MODES,
    LAYER_BLEND_MODE,
    LAYER_BLEND,
    LAYER_PRESETS,
    LAYER_LAYER_PRESETS,
    TARGET_SETS,
    LAYER_TARGET_SET,
    EFFECTS,
    WORKSPACE_EFFECTS,
    LAYER_EFFECTS,
    EFFECT_PRESETS,
    WORKSPACE_EFFECT_PRESET,
    LAYER_EFFECT_PRESET,
    TRANSITIONS,
    WORKSPACE_TRANSITION,
    LAYER_TRANSITION,
    WORKSPACE_TRANSITION_DURATION,
    LAYER_TRANSITION_DURATION,
    TRANSPORT_STATES,
    LAYER_TRANSPORT_STATE,
    CLEAR_WORKSPACE,
];

/// A playlist tree is walked and searched as `Playlist.walk()` and `find()` do.
fn tree(body: &[u8]) -> Result<(), String> {
    let root = Arc::new((consts::PLAYLISTS.decode)(body)?);
    std::hint::black_box((root.walk().len(), root.find("x"), root.find("")));
    Ok(())
}

/// The scoreboard's record, read through every field of every sport and as boards.
fn scores(body: &[u8]) -> Result<(), String> {
    let record = ScoreRecord::from_slice(body)?;
    for sport in Sport::ALL {
        for field in fields_of(sport) {
            std::hint::black_box(record.field(field));
        }
    }
    std::hint::black_box((
        record.sport(),
        record.uuid(),
        record.games(),
        record.boards(),
    ));
    Ok(())
}

/// `MediaPlayer.request()`'s reply.
fn raw_reply(body: &[u8]) -> Result<(), String> {
    ep::json_or_none(body).map(|v| drop(std::hint::black_box(v)))
}

/// Every reply decoder of the scoreboard's endpoint table, with its path template.
pub const SCORE: &[(&str, &str, Decoder)] = &[("SCORES", showctl::score::SCORES.path, scores)];

/// Every decoder of a body the applications send.
pub fn decoders() -> Vec<(&'static str, Decoder)> {
    let mut all = MEDIA.to_vec();
    all.extend(SCORE.iter().map(|(name, _, decode)| (*name, *decode)));
    all.extend([
        ("PLAYLISTS tree", tree as Decoder),
        ("request", raw_reply as Decoder),
    ]);
    all
}

/// Run every decoder on `body`, and build the errors that would carry it.
pub fn decode_all(body: &[u8]) {
    for (_, decode) in decoders() {
        if let Err(what) = decode(body) {
            let e = Error::decode("GET", "http://h:1/api/0/x", body, what);
            std::hint::black_box(e.to_string());
        }
    }
    for status in [302, 404, 500] {
        std::hint::black_box(Error::api(status, "GET", "u", body).to_string());
    }
}

const UNRESERVED: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";

/// Percent-decode, panicking on a malformed escape.
fn decode_percent(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).expect("two hex digits after %");
            out.push(u8::from_str_radix(hex, 16).expect("two hex digits after %"));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// The identifier rule: a name becomes exactly one path segment (only unreserved characters
/// and `%XX`) that decodes back to the name, or is refused with a message naming the argument;
/// a negative number given as text follows the index rule.
pub fn ident(name: &str) {
    for (kind, min) in [(Kind::Layer, 0i64), (Kind::Cue, 0), (Kind::Playlist, -1)] {
        let got = Ident::Name(name.to_string()).segment(kind, "arg");
        // "-3" is read as an index by the application, so it follows the index rule.
        let negative = name
            .strip_prefix('-')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        if negative {
            match name.parse::<i64>() {
                Ok(i) if i >= min => assert_eq!(got.unwrap(), i.to_string()),
                _ => assert!(matches!(got, Err(Error::InvalidInput(m)) if m.starts_with("arg: "))),
            }
            continue;
        }
        match got {
            Ok(seg) => {
                assert!(!seg.is_empty() && seg != "." && seg != "..");
                assert!(
                    seg.bytes().all(|b| b == b'%' || UNRESERVED.contains(&b)),
                    "{seg:?}"
                );
                let mut escapes = seg.split('%').skip(1);
                assert!(escapes.all(|e| e.bytes().take(2).all(|c| !c.is_ascii_lowercase())));
                assert_eq!(decode_percent(&seg), name.as_bytes(), "{name:?} -> {seg:?}");
            }
            Err(Error::InvalidInput(m)) => {
                let too_long = name.chars().count() > MAX_NAME && m.contains("at most");
                assert!(
                    name.is_empty() || name == "." || name == ".." || too_long,
                    "{name:?} refused: {m}"
                );
                assert!(m.starts_with("arg: "), "{m}");
            }
            Err(other) => panic!("{name:?}: {other:?}"),
        }
    }
}

/// An index follows the index rule and is sent as its digits.
pub fn index(i: i64) {
    for (kind, min) in [(Kind::Layer, 0), (Kind::Cue, 0), (Kind::Playlist, -1)] {
        match Ident::Index(i).segment(kind, "arg") {
            Ok(seg) => {
                assert!(i >= min);
                assert_eq!(seg, i.to_string());
            }
            Err(_) => assert!(i < min),
        }
    }
}

/// `request()`'s path and params: the request stays below `/api/0` on the same host, with
/// nothing leaking into the query, and each param stays one `key=value` pair. Returns whether
/// the request was accepted (a refusal is checked by the caller: not every path may be).
pub fn raw_request(path: &str, params: &[(String, String)]) -> bool {
    let call = match ep::raw("GET", path, None, params.to_vec()) {
        Ok(call) => call,
        Err(Error::InvalidInput(m)) => {
            assert!(m.starts_with("path: ") || m.starts_with("params["), "{m}");
            return false;
        }
        Err(other) => panic!("{path:?}: {other:?}"),
    };
    let p = &call.request.path;
    assert!(
        p.starts_with('/') && !p.starts_with("//"),
        "{path:?} -> {p:?}"
    );
    assert!(
        p.bytes()
            .all(|b| b.is_ascii_graphic() && b != b'?' && b != b'#'),
        "{path:?} -> {p:?}"
    );
    for seg in p.split('/') {
        let decoded = String::from_utf8_lossy(&decode_percent(seg)).into_owned();
        for part in decoded.split(['/', '\\']) {
            assert!(part != "." && part != "..", "{path:?} -> {p:?}");
        }
    }
    let full = call.request.path_and_query();
    let query = full.strip_prefix(p.as_str()).expect("the path comes first");
    if params.is_empty() {
        assert!(query.is_empty());
    } else {
        let pairs: Vec<&str> = query[1..].split('&').collect();
        assert_eq!(pairs.len(), params.len(), "{full:?}");
        for (pair, (k, v)) in pairs.iter().zip(params) {
            let (pk, pv) = pair.split_once('=').expect("key=value");
            assert!(!pv.contains('='), "{full:?}");
            assert_eq!(decode_percent(pk), k.as_bytes());
            assert_eq!(decode_percent(pv), v.as_bytes());
        }
    }
    true
}

/// An echoed key never survives into what an error keeps.
pub fn scrub(key: &str, body: &[u8]) {
    // ("***" would be found again in a key made of stars.) A key shorter than SHORT_KEY is
    // masked only where it stands alone, and one that could be a JSON number (digits and `e`)
    // is left in a JSON document's numbers: neither is asserted here (`scrub`'s own tests
    // cover them).
    if !key.bytes().all(|b| b.is_ascii_alphanumeric())
        || key.len() < showctl::scrub::SHORT_KEY
        || key
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'e' || b == b'E')
    {
        return;
    }
    let Ok(target) = Target::new("h:1", Some(key)) else {
        return;
    };
    let kept = target.scrub(body);
    let head = &kept[..kept.len().min(2048)];
    assert!(
        !head.windows(key.len()).any(|w| w == key.as_bytes()),
        "{key:?} in {:?}",
        String::from_utf8_lossy(head)
    );
}

/// The OSC bridge's decoding path on arbitrary bytes (`showctl::osc::decode::read`, then each
/// message through the address space): a packet is read or refused, never a panic; a message
/// the address space takes as a command names one request under /api/0's paths.
pub fn osc_packet(data: &[u8]) {
    use showctl::osc::address::{action, Action};
    for (_, messages) in showctl::osc::decode::read(data).unwrap_or_default() {
        for m in messages {
            if let Ok(Action::Command(c)) = action(&m.addr, &m.args, false) {
                let path = &c.call.request.path;
                assert!(path.starts_with('/') && !path.contains(".."), "{path}");
            }
        }
    }
}
