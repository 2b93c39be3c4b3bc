//! Property-based fuzzing of every reply decoder, the identifier encoder, `request()`'s path
//! and params, and key scrubbing (see `fuzz/harness.rs` for the properties).
//!
//! Bodies come from the recorded exchanges in `tests/recordings/`, mutated byte-wise and
//! structurally (types swapped, wrappers added, deep nesting, duplicated and renamed keys),
//! plus arbitrary bytes. Each decode must end in a value or an error, never a panic, and
//! allocate at most [`ALLOC_PER_BYTE`] bytes per body byte (plus [`ALLOC_SLACK`]), measured by
//! a counting allocator.
//!
//! `cargo test` runs a bounded number of cases; `SHOWCTL_FUZZ_CASES=N` runs more (see
//! `scripts/fuzz.sh`), and the summary line of each property is printed with `--nocapture`.

#[path = "../../fuzz/harness.rs"]
mod harness;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------------------------------------
// A counting allocator: the peak of live bytes allocated by this thread
// ---------------------------------------------------------------------------------------------

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn account(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        account(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        account(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        account(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes live at once while `f` ran, above what was live before.
fn peak_of(f: impl FnOnce()) -> usize {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    f();
    (PEAK.with(Cell::get) - base).max(0) as usize
}

/// Allocation bound of one decode: linear in the body (a JSON value of a few bytes becomes a
/// model of a few hundred, and its `Debug` text is built too).
const ALLOC_PER_BYTE: usize = 1024;
const ALLOC_SLACK: usize = 256 * 1024;

// ---------------------------------------------------------------------------------------------
// The corpus and its mutations
// ---------------------------------------------------------------------------------------------

/// The response bodies of every recording (JSON bodies serialized, text bodies as they are).
/// One recorded exchange: the request's method and path, the answer's status and body.
struct Recording {
    file: String,
    method: String,
    path: String,
    status: u64,
    body: Vec<u8>,
}

fn recordings() -> &'static [Recording] {
    static RECORDINGS: OnceLock<Vec<Recording>> = OnceLock::new();
    RECORDINGS.get_or_init(|| {
        let mut out = Vec::new();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/recordings");
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("tests/recordings") {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    let rec: Value = serde_json::from_slice(&std::fs::read(&path).unwrap())
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    let resp = &rec["response"];
                    let body = if let Some(text) = resp["body_text"].as_str() {
                        text.as_bytes().to_vec()
                    } else if !resp["body"].is_null() {
                        serde_json::to_vec(&resp["body"]).unwrap()
                    } else {
                        Vec::new()
                    };
                    out.push(Recording {
                        file: path.display().to_string(),
                        method: rec["request"]["method"].as_str().unwrap_or("").into(),
                        path: rec["request"]["path"].as_str().unwrap_or("").into(),
                        status: resp["status"].as_u64().unwrap_or(0),
                        body,
                    });
                }
            }
        }
        out.sort_by(|a, b| a.body.cmp(&b.body));
        out
    })
}

fn corpus() -> &'static [Vec<u8>] {
    static CORPUS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    CORPUS.get_or_init(|| recordings().iter().map(|r| r.body.clone()).collect())
}

/// Keys the decoders look for, to make renamed keys meaningful.
const KEYS: &[&str] = &[
    "data",
    "transitions",
    "value",
    "opacity",
    "transitionDuration",
    "playlist",
    "layer",
    "cue",
    "items",
    "children",
    "uuid",
    "name",
    "effect",
    "variables",
    "base",
    "type",
    "transportState",
    "playingMedia",
    "sportMode",
    "game1",
    "game10",
    "team1Score",
    "LineScore1",
];

/// Odd scalars: the text "null", numbers as text, huge and negative numbers, HTML, Unicode.
fn odd(n: i64) -> Value {
    match n.rem_euclid(12) {
        0 => Value::Null,
        1 => json!("null"),
        2 => json!(""),
        3 => json!(n),
        4 => json!(-1),
        5 => json!(1e308),
        6 => json!(u64::MAX),
        7 => json!("1e999"),
        8 => json!(" 0.5 "),
        9 => json!("<html><title>x</title>"),
        10 => json!("é😀\u{202e}"),
        _ => json!(true),
    }
}

/// The node that `path` leads to: each step takes four bits to pick a child, or stops.
fn pick(node: &mut Value, path: u32) -> &mut Value {
    let choice = (path & 0xf) as usize;
    let len = match node {
        Value::Array(a) => a.len(),
        Value::Object(o) => o.len(),
        _ => 0,
    };
    if choice == 0 || path >> 4 == 0 || len == 0 {
        return node;
    }
    match node {
        Value::Array(a) => pick(&mut a[choice % len], path >> 4),
        Value::Object(o) => pick(o.values_mut().nth(choice % len).unwrap(), path >> 4),
        _ => unreachable!("only containers have children"),
    }
}

/// One structural mutation at the node chosen by `path`.
fn mutate(v: &mut Value, path: u32, op: u8, n: i64) {
    let node = pick(v, path);
    let key = KEYS[n.unsigned_abs() as usize % KEYS.len()];
    match op % 12 {
        0 => *node = odd(n),
        1 => *node = json!([]),
        2 => *node = json!({}),
        3 => *node = json!({ "value": node.take() }),
        4 => *node = json!([node.take()]),
        5 => *node = json!({ key: node.take() }),
        6 => {
            // Deeper than serde_json's recursion limit (128) or just deep.
            let depth = if n % 2 == 0 { 130 } else { 100 };
            let mut deep = node.take();
            for _ in 0..depth {
                deep = json!([deep]);
            }
            *node = deep;
        }
        7 => {
            if let Value::Object(o) = node {
                let first = o.values().next().cloned().unwrap_or(Value::Null);
                o.insert(key.to_string(), first);
            }
        }
        8 => match node {
            Value::Object(o) if !o.is_empty() => {
                let i = n.unsigned_abs() as usize % o.len();
                let k = o.keys().nth(i).unwrap().clone();
                o.shift_remove(&k);
            }
            Value::Array(a) if !a.is_empty() => {
                a.remove(n.unsigned_abs() as usize % a.len());
            }
            _ => *node = odd(n),
        },
        9 => {
            if let Value::Array(a) = node {
                let copies = a.clone();
                for _ in 0..(n.unsigned_abs() % 8) {
                    a.extend(copies.iter().cloned());
                }
            }
        }
        10 => {
            if let Value::Object(o) = node {
                let renamed: Map<String, Value> = std::mem::take(o)
                    .into_iter()
                    .enumerate()
                    .map(|(i, (k, v))| if i == 0 { (key.to_string(), v) } else { (k, v) })
                    .collect();
                *o = renamed;
            }
        }
        _ => *node = odd(n.wrapping_add(op as i64)),
    }
}

/// One byte-level mutation.
fn bytes_mutate(b: &mut Vec<u8>, op: u8, at: usize, len: usize, byte: u8) {
    let at = if b.is_empty() { 0 } else { at % (b.len() + 1) };
    match op % 6 {
        0 if at < b.len() => b[at] ^= byte | 1,
        1 => b.insert(at, byte),
        2 => {
            let end = (at + len % 64).min(b.len());
            b.drain(at..end);
        }
        3 => b.truncate(at),
        4 => {
            let end = (at + len % 64).min(b.len());
            let part = b[at..end].to_vec();
            b.splice(at..at, part);
        }
        _ => {
            let other = &corpus()[len % corpus().len()];
            let from = (byte as usize) % (other.len() + 1);
            let end = (from + len % 256).min(other.len());
            b.splice(at..at, other[from..end].iter().copied());
        }
    }
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    let n = corpus().len();
    let structural = (
        0..n,
        prop::collection::vec((any::<u32>(), any::<u8>(), any::<i64>()), 1..6),
    )
        .prop_map(|(i, ops)| {
            let mut v: Value =
                serde_json::from_slice(&corpus()[i]).unwrap_or_else(|_| json!({"data": []}));
            for (path, op, n) in ops {
                mutate(&mut v, path, op, n);
            }
            serde_json::to_vec(&v).unwrap()
        });
    let bytewise = (
        0..n,
        prop::collection::vec(
            (any::<u8>(), any::<usize>(), any::<usize>(), any::<u8>()),
            1..8,
        ),
    )
        .prop_map(|(i, ops)| {
            let mut b = corpus()[i].clone();
            for (op, at, len, byte) in ops {
                bytes_mutate(&mut b, op, at, len, byte);
            }
            b
        });
    prop_oneof![
        4 => structural,
        4 => bytewise,
        1 => prop::collection::vec(any::<u8>(), 0..256),
        1 => (0..n).prop_map(|i| corpus()[i].clone()),
    ]
}

/// Text made of the pieces that try to break out of a path segment or a query.
fn hostile_text() -> impl Strategy<Value = String> {
    const PIECES: &[&str] = &[
        "/", "?", "#", "%", "%2e", "%2F", "%zz", ".", "..", "\r", "\n", "\0", "\\", " ", "&", "=",
        "+", "-", "1", "a", "é", "日本", "😀", "\u{202e}", "~", ";", "@", ":",
    ];
    prop_oneof![
        prop::collection::vec(prop::sample::select(PIECES), 0..8).prop_map(|p| p.concat()),
        any::<String>(),
    ]
}

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

fn cases(default: u32) -> u32 {
    std::env::var("SHOWCTL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(default: u32) -> Config {
    Config {
        cases: cases(default),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/fuzz_decoders.proptest-regressions",
        ))),
        ..Config::default()
    }
}

static DECODED: AtomicUsize = AtomicUsize::new(0);
static DECODED_BYTES: AtomicUsize = AtomicUsize::new(0);
/// The largest allocation per body byte seen, in thousandths.
static WORST_RATIO: AtomicU64 = AtomicU64::new(0);

#[test]
fn every_decoder_survives_mutated_recordings() {
    let started = Instant::now();
    proptest!(config(1500), |(body in body())| {
        let peak = peak_of(|| harness::decode_all(&body));
        let allowed = ALLOC_PER_BYTE * body.len() + ALLOC_SLACK;
        prop_assert!(peak <= allowed, "{} bytes allocated for a body of {}", peak, body.len());
        DECODED.fetch_add(1, Ordering::Relaxed);
        DECODED_BYTES.fetch_add(body.len(), Ordering::Relaxed);
        if body.len() >= 64 {
            let ratio = (peak as u64 * 1000) / body.len() as u64;
            WORST_RATIO.fetch_max(ratio, Ordering::Relaxed);
        }
    });
    eprintln!(
        "fuzz decoders: {} bodies ({} bytes) through {} decoders in {:.1?}, no panic; \
         worst allocation {:.0} bytes per body byte (bodies of 64 bytes or more)",
        DECODED.load(Ordering::Relaxed),
        DECODED_BYTES.load(Ordering::Relaxed),
        harness::decoders().len(),
        started.elapsed(),
        WORST_RATIO.load(Ordering::Relaxed) as f64 / 1000.0
    );
}

#[test]
fn a_huge_body_costs_a_bounded_multiple_of_its_size() {
    // Many small objects: the costliest shape per byte for the list decoders.
    let items = vec![json!({}); 20_000];
    let body = serde_json::to_vec(&json!({ "data": items })).unwrap();
    let peak = peak_of(|| harness::decode_all(&body));
    assert!(
        peak <= ALLOC_PER_BYTE * body.len(),
        "{peak} for {}",
        body.len()
    );
}

#[test]
fn identifiers_stay_one_segment() {
    let started = Instant::now();
    proptest!(config(3000), |(name in hostile_text(), i in any::<i64>())| {
        harness::ident(&name);
        harness::index(i);
    });
    eprintln!(
        "fuzz identifiers: {} names and indices in {:.1?}",
        cases(3000),
        started.elapsed()
    );
}

#[test]
fn osc_packets_are_read_or_refused() {
    let started = Instant::now();
    let prefix = prop_oneof![
        Just(Vec::new()),
        Just(b"/showctl/layer/".to_vec()),
        Just(b"#bundle\0".to_vec()),
    ];
    let packet =
        (prefix, proptest::collection::vec(any::<u8>(), 0..512)).prop_map(|(mut p, rest)| {
            p.extend(rest);
            p
        });
    proptest!(config(3000), |(data in packet)| harness::osc_packet(&data));
    eprintln!(
        "fuzz osc: {} packets in {:.1?}",
        cases(3000),
        started.elapsed()
    );
}

#[test]
fn request_paths_and_params_stay_in_place() {
    static ACCEPTED: AtomicUsize = AtomicUsize::new(0);
    static TRIED: AtomicUsize = AtomicUsize::new(0);
    proptest!(config(2000), |(
        path in hostile_text(),
        params in prop::collection::vec((hostile_text(), hostile_text()), 0..3),
    )| {
        TRIED.fetch_add(1, Ordering::Relaxed);
        if harness::raw_request(&path, &params) {
            ACCEPTED.fetch_add(1, Ordering::Relaxed);
        }
    });
    // The property says nothing about a path that is refused: most must be accepted for it to
    // have been checked at all, and the plain ones always are.
    let (accepted, tried) = (
        ACCEPTED.load(Ordering::Relaxed),
        TRIED.load(Ordering::Relaxed),
    );
    assert!(accepted * 2 > tried, "{accepted} of {tried} paths accepted");
    for plain in [
        "/data/layers",
        "data/layers",
        "/effects/layer/Main Layer",
        "/x/100%",
    ] {
        assert!(harness::raw_request(plain, &[]), "{plain:?} refused");
        assert!(harness::raw_request(plain, &[("a".into(), "b=c&d".into())]));
    }
}

/// Does a path template (`/data/playlist/{playlist:id}`) match a recorded path?
fn matches_template(template: &str, path: &str) -> bool {
    let path = path.strip_prefix("/api/0").unwrap_or(path);
    let (t, p): (Vec<&str>, Vec<&str>) = (template.split('/').collect(), path.split('/').collect());
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| t == p || (t.starts_with('{') && !p.is_empty()))
}

/// Does `part` occur in `whole` (itself, or anywhere inside it)?
fn occurs(whole: &Value, part: &Value) -> bool {
    whole == part
        || match whole {
            Value::Array(items) => items.iter().any(|v| occurs(v, part)),
            Value::Object(fields) => fields.values().any(|v| occurs(v, part)),
            _ => false,
        }
}

/// Every recorded 2xx JSON answer to a read of the media table decodes with its endpoint's decoder,
/// and every object the result keeps (`to_dict()` in the binding) is an object of the reply exactly
/// as it was sent.
#[test]
fn every_recording_decodes_and_keeps_the_wire_json() {
    let mut checked = 0;
    let mut refused = Vec::new();
    for rec in recordings() {
        // (Recordings of a 200 that is not JSON, an HTML page, are there to be refused.)
        let is_json = serde_json::from_slice::<Value>(&rec.body).is_ok() || rec.body.is_empty();
        if rec.method != "GET" || !(200..300).contains(&rec.status) || !is_json {
            continue;
        }
        let endpoints: Vec<_> = harness::WIRE
            .iter()
            .filter(|(_, template, _)| matches_template(template, &rec.path))
            .collect();
        let Some((name, _, decode)) = endpoints
            .iter()
            .find(|(_, t, _)| !t.contains('{'))
            .or(endpoints.first())
        else {
            continue; // the scoreboard's, or a path outside the table
        };
        let kept = match decode(&rec.body) {
            Ok(kept) => kept,
            Err(e) => {
                refused.push(format!("{}: {name}: {e}", rec.file));
                continue;
            }
        };
        let sent: Value = serde_json::from_slice(&rec.body).unwrap_or(Value::Null);
        for object in &kept {
            assert!(
                occurs(&sent, object),
                "{}: {name} keeps {object}, which is not in the reply",
                rec.file
            );
        }
        checked += 1;
    }
    assert!(refused.is_empty(), "{refused:#?}");
    assert!(checked >= 40, "only {checked} recordings of media reads");
}

#[test]
fn an_echoed_key_is_always_scrubbed() {
    proptest!(config(1000), |(
        key in "[A-Za-z0-9]{8,24}",
        parts in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..6),
    )| {
        let body = parts.join(key.as_bytes());
        harness::scrub(&key, &body);
    });
}

/// Every read of the operation tables (media and scoreboard, as `operations()` lists them from
/// the tables themselves) is fuzzed: its GET path is the path of a decoder of the harness. A new
/// read must be added to `decoders![...]` (or `SCORE`) in `fuzz/harness.rs`.
#[test]
fn the_harness_covers_every_reply_decoder() {
    let fuzzed: Vec<&str> = harness::WIRE
        .iter()
        .map(|(_, path, _)| *path)
        .chain(harness::SCORE.iter().map(|(_, path, _)| *path))
        .collect();
    // Each table with the list of fuzz/harness.rs its reads belong in.
    let tables = [
        (
            "media",
            "decoders![...]",
            showctl::media::table::operations(),
        ),
        (
            "scoreboard",
            "SCORE",
            showctl::score::builders::operations(),
        ),
    ];
    let mut reads = 0;
    let mut missing = Vec::new();
    for (table, list, ops) in &tables {
        for op in ops {
            for (method, path) in &op.endpoints {
                if *method != "GET" {
                    continue;
                }
                reads += 1;
                if !fuzzed.contains(path) {
                    missing.push(format!(
                        "{table} `{}` (GET {path}): add its endpoint constant to {list} in \
                         fuzz/harness.rs",
                        op.name
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "not fuzzed:\n{}", missing.join("\n"));
    // The tables were read: every read of both (26 media reads and the score record).
    assert!(
        reads >= 27,
        "only {reads} reads found in the operation tables"
    );
    assert!(corpus().len() > 100, "the recordings are the corpus");
}
