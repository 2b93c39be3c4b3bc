//! JSON values as the core handles them: one nesting limit for everything that goes in or comes
//! out, and a hash consistent with `==`.
//!
//! Every step that walks a JSON value (reading a reply, reading a model, converting to or from
//! the caller's objects, dropping a `serde_json::Value`) recurses once per level of nesting, so a
//! value nested thousands deep would overflow the stack of the thread that handles it: a crash, not
//! an error. [`MAX_DEPTH`] bounds that: a value is checked (without recursion) before anything
//! recurses into it, and anything deeper is refused with an error.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Map, Value};

mod build;
pub use build::{build, Builder};

/// The most arrays and objects nested in one another that a JSON value may have (a number or a
/// text is depth 0, `[]` is 1, `[[1]]` is 2). It is what serde_json's parser reads (its limit
/// of 128 counts the level it refuses), so every value that can be sent can also be read back,
/// and a reply or an argument nested deeper is refused, the same way on every path. A real
/// reply of the applications nests fewer than ten levels. Measured: reading and converting the
/// deepest values (serde_json's own recursive parser included) and refusing deeper ones fits in
/// a 192 KiB thread stack in a release build, 512 KiB in a debug build; macOS gives a thread
/// 512 KiB.
pub const MAX_DEPTH: usize = 127;

/// The message of a value nested deeper than [`MAX_DEPTH`].
pub fn too_deep() -> String {
    format!("nested deeper than {MAX_DEPTH} levels of arrays and objects")
}

/// Why a value cannot be sent as JSON (what a conversion to JSON refuses), or the converter's
/// own failure (`Other`).
#[derive(Debug)]
pub enum Unsendable<E> {
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A value of this type, which is none of JSON's.
    NotJson(String),
    /// An object key of this type (JSON's keys are text).
    Key(String),
    /// A float that is not finite.
    NotFinite(f64),
    /// An integer outside -2**63 to 2**64-1.
    IntRange,
    Other(E),
}

/// The error of the caller's own kind met on the way (`?` on it in a walk).
impl<E> From<E> for Unsendable<E> {
    fn from(e: E) -> Self {
        Unsendable::Other(e)
    }
}

impl<E> Unsendable<E> {
    /// Refused for its type (`NotJson`, `Key`) rather than its value.
    pub fn is_type(&self) -> bool {
        matches!(self, Unsendable::NotJson(_) | Unsendable::Key(_))
    }

    /// The message for argument `arg`, where `at` is the refused item (`arg` and the path into
    /// it: `data["a"][0]`); empty for `Other`, which says its own.
    pub fn message(&self, arg: &str, at: &str) -> String {
        match self {
            Unsendable::TooDeep => format!("{arg}: {}", too_deep()),
            Unsendable::NotJson(kind) => format!(
                "{at}: a {kind} cannot be sent as JSON (send None, bool, int, float, str, list, \
                 tuple or dict)"
            ),
            Unsendable::Key(kind) => format!("{at}: JSON object keys are str, got a {kind} key"),
            Unsendable::NotFinite(f) => format!("{at}: {f} cannot be sent as JSON"),
            Unsendable::IntRange => {
                format!("{at}: the int cannot be sent as JSON (-2**63 to 2**64-1)")
            }
            Unsendable::Other(_) => String::new(),
        }
    }
}

/// The nesting depth of `value`, counted without recursion, stopping once it passes `limit`
/// (so the cost is bounded by the size of the value, whatever its depth).
pub fn depth(value: &Value, limit: usize) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((v, d)) = stack.pop() {
        let d = d + 1;
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|c| (c, d))),
            Value::Object(o) => stack.extend(o.values().map(|c| (c, d))),
            _ => continue,
        }
        deepest = deepest.max(d);
        if deepest > limit {
            return deepest;
        }
    }
    deepest
}

/// Refuse a value nested deeper than [`MAX_DEPTH`] (see [`too_deep`]).
pub fn check_depth(value: &Value) -> Result<(), String> {
    if depth(value, MAX_DEPTH) > MAX_DEPTH {
        return Err(too_deep());
    }
    Ok(())
}

/// A hash of `value` consistent with `==` on `serde_json::Value`: the order of an object's keys
/// does not count (as for `==`), `1` and `1.0` differ (as for `==`), `0.0` and `-0.0` do not.
/// The value must be at most [`MAX_DEPTH`] deep (every value the core holds is).
pub fn hash(value: &Value) -> u64 {
    let mut h = DefaultHasher::new();
    hash_into(value, &mut h);
    h.finish()
}

/// [`hash`] of `Value::Object(object)`, without building it.
pub fn hash_object(object: &Map<String, Value>) -> u64 {
    let mut h = DefaultHasher::new();
    std::mem::discriminant(&Value::Object(Map::new())).hash(&mut h);
    hash_entries(object, &mut h);
    h.finish()
}

/// Check a key of a connection dict (a mirror's, a feed source's; `None` for a key that is no
/// text) against `allowed`; the message names the argument (`arg`) and the keys allowed.
pub fn known_key(arg: &str, key: Option<&str>, allowed: &[&str]) -> Result<(), String> {
    let allowed_keys = allowed.join(", ");
    match key {
        None => Err(format!(
            "{arg}: the dict's keys must be strings ({allowed_keys})"
        )),
        Some(key) if !allowed.contains(&key) => Err(format!(
            "{arg}: unknown key {key:?} (expected {allowed_keys})"
        )),
        Some(_) => Ok(()),
    }
}

/// The hash of any hashable `data` (the `__hash__` of a class whose `==` compares it).
pub fn hash_of<T: Hash + ?Sized>(data: &T) -> u64 {
    let mut h = DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}

fn hash_into(value: &Value, h: &mut DefaultHasher) {
    std::mem::discriminant(value).hash(h);
    match value {
        Value::Null => {}
        Value::Bool(b) => b.hash(h),
        Value::Number(n) => n.hash(h),
        Value::String(s) => s.hash(h),
        Value::Array(a) => {
            a.len().hash(h);
            for v in a {
                hash_into(v, h);
            }
        }
        Value::Object(o) => hash_entries(o, h),
    }
}

/// Each entry hashed alone and the hashes added: the same for any order of the keys.
fn hash_entries(o: &Map<String, Value>, h: &mut DefaultHasher) {
    let sum = o.iter().fold(0u64, |acc, (k, v)| {
        let mut e = DefaultHasher::new();
        k.hash(&mut e);
        hash_into(v, &mut e);
        acc.wrapping_add(e.finish())
    });
    o.len().hash(h);
    sum.hash(h);
}

/// A reply body with its odd characters made readable: invalid UTF-8 becomes U+FFFD, and so does
/// a lone surrogate escape (`"\ud83d"` without its pair, or a trailing half alone), which is
/// valid JSON syntax that serde_json refuses. One such character in a text field (a team name
/// typed with a broken keyboard layout, half an emoji cut by the application) then costs that
/// character, not the whole answer. Anything else (malformed JSON) is left as it is and still
/// fails to decode. Returns the body unchanged (borrowed) when there is nothing to repair, and
/// whether something was repaired.
pub fn repair_text(body: &[u8]) -> (std::borrow::Cow<'_, [u8]>, bool) {
    use std::borrow::Cow;
    let mut text: Cow<'_, [u8]> = match String::from_utf8_lossy(body) {
        Cow::Borrowed(_) => Cow::Borrowed(body),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    };
    let mut repaired = matches!(text, Cow::Owned(_));
    let lone = lone_surrogates(&text);
    if !lone.is_empty() {
        let b = text.to_mut();
        for at in lone {
            // `\uD83D` -> `\uFFFD`: the same length, so the offsets found stay right.
            b[at + 2..at + 6].copy_from_slice(b"FFFD");
        }
        repaired = true;
    }
    (text, repaired)
}

/// The 4 hex digits of a `\uXXXX` escape starting at `b[i]`.
fn escape_code(b: &[u8], i: usize) -> Option<u32> {
    if b.get(i + 1) != Some(&b'u') {
        return None;
    }
    let digits = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// Where each `\uXXXX` escape of a surrogate without its pair starts.
fn lone_surrogates(b: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'\\', &b[i..]) {
        let at = i + found;
        match escape_code(b, at) {
            Some(0xD800..=0xDBFF) => match escape_code(b, at + 6) {
                Some(0xDC00..=0xDFFF) => i = at + 12,
                _ => {
                    out.push(at);
                    i = at + 6;
                }
            },
            Some(0xDC00..=0xDFFF) => {
                out.push(at);
                i = at + 6;
            }
            Some(_) => i = at + 6,
            // `\\`, `\"`, ...: the escaped character is skipped with it.
            None => i = at + 2,
        }
        if i >= b.len() {
            break;
        }
    }
    out
}

/// A JSON scalar as text: strings as they are, numbers and booleans printed, null as None.
pub fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::Unsendable;

    #[test]
    fn a_refusal_names_the_item_and_says_whether_its_type_or_value_is_wrong() {
        let key = Unsendable::<()>::Key("int".into());
        assert!(key.is_type() && Unsendable::<()>::NotJson("set".into()).is_type());
        assert_eq!(
            key.message("d", "d[0]"),
            "d[0]: JSON object keys are str, got a int key"
        );
        let nan = Unsendable::<()>::NotFinite(f64::NAN);
        assert!(!nan.is_type());
        assert_eq!(nan.message("d", "d[1]"), "d[1]: NaN cannot be sent as JSON");
        let deep = Unsendable::<()>::TooDeep.message("d", "d[0][0]");
        assert_eq!(deep, format!("d: {}", super::too_deep()));
        assert!(Unsendable::<()>::IntRange
            .message("d", "d")
            .contains("-2**63 to 2**64-1"));
    }

    #[test]
    fn odd_characters_become_replacement_characters() {
        let read = |b: &[u8]| {
            let (t, repaired) = repair_text(b);
            (
                serde_json::from_slice::<Value>(&t).map_err(|e| e.to_string()),
                repaired,
            )
        };
        assert_eq!(
            read(br#"{"n":"a\ud83db"}"#),
            (Ok(json!({"n": "a\u{FFFD}b"})), true)
        );
        assert_eq!(
            read(br#"{"n":"\uDE00"}"#),
            (Ok(json!({"n": "\u{FFFD}"})), true)
        );
        assert_eq!(
            read(b"{\"n\":\"a\xffb\"}"),
            (Ok(json!({"n": "a\u{FFFD}b"})), true)
        );
        // A pair, an escaped backslash before `u`, and plain text are left alone.
        assert_eq!(
            read(br#"{"n":"\ud83d\ude00"}"#),
            (Ok(json!({"n": "\u{1F600}"})), false)
        );
        assert_eq!(
            read(br#"{"n":"\\ud83d"}"#),
            (Ok(json!({"n": "\\ud83d"})), false)
        );
        assert!(matches!(
            repair_text(b"{}").0,
            std::borrow::Cow::Borrowed(_)
        ));
        // Malformed JSON stays malformed.
        assert!(read(br#"{"n":"\ud83d"#).0.is_err());
        assert!(read(b"{\"n\": \xff}").0.is_err());
    }

    use super::*;

    use serde_json::json;

    #[test]
    fn a_connection_key_is_checked_against_the_allowed_keys() {
        let allowed = ["url", "api_key"];
        assert_eq!(known_key("m[0]", Some("api_key"), &allowed), Ok(()));
        assert_eq!(
            known_key("m[0]", Some("pin"), &allowed).unwrap_err(),
            "m[0]: unknown key \"pin\" (expected url, api_key)"
        );
        assert_eq!(
            known_key("m[0]", None, &allowed).unwrap_err(),
            "m[0]: the dict's keys must be strings (url, api_key)"
        );
    }

    fn nested_arrays(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn the_limit_is_what_serde_json_reads() {
        let deepest: Value = serde_json::from_str(&nested_arrays(MAX_DEPTH)).unwrap();
        assert_eq!(depth(&deepest, usize::MAX), MAX_DEPTH);
        assert!(check_depth(&deepest).is_ok());
        let err = serde_json::from_str::<Value>(&nested_arrays(MAX_DEPTH + 1)).unwrap_err();
        assert!(err.to_string().contains("recursion limit"), "{err}");
    }

    #[test]
    fn depth_counts_arrays_and_objects() {
        assert_eq!(depth(&json!(1), 10), 0);
        assert_eq!(depth(&json!([]), 10), 1);
        assert_eq!(depth(&json!({"a": [1, {"b": []}], "c": 2}), 10), 4);
        let mut v = json!(0);
        for _ in 0..MAX_DEPTH + 1 {
            v = json!({ "k": v });
        }
        assert_eq!(check_depth(&v).unwrap_err(), too_deep());
        // Dropping it recurses, but at this depth that is harmless.
    }

    #[test]
    fn depth_stops_early_on_a_very_deep_value() {
        // Built and dropped without recursion: a deep Value's own drop would recurse.
        let mut v = Value::Null;
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        assert_eq!(depth(&v, MAX_DEPTH), MAX_DEPTH + 1);
        let mut v = v;
        while let Value::Array(mut a) = v {
            v = a.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn hash_is_consistent_with_eq() {
        let a = json!({"x": 1, "y": [1, 2, {"z": null}], "w": "t"});
        let b: Value =
            serde_json::from_str(r#"{"w": "t", "y": [1, 2, {"z": null}], "x": 1}"#).unwrap();
        assert_eq!(a, b);
        assert_eq!(hash(&a), hash(&b));
        assert_eq!(hash(&json!(0.0)), hash(&json!(-0.0)));
        for other in [
            json!({"x": 1.0, "y": [1, 2, {"z": null}], "w": "t"}),
            json!({"x": 1, "y": [2, 1, {"z": null}], "w": "t"}),
            json!({"x": 1, "y": [1, 2, {"z": null}], "w": "t", "v": null}),
            json!({"x": "1", "y": [1, 2, {"z": null}], "w": "t"}),
        ] {
            assert_ne!(a, other);
            assert_ne!(hash(&a), hash(&other), "{other}");
        }
        assert_ne!(hash(&json!([[1], []])), hash(&json!([[], [1]])));
        assert_eq!(hash_object(b.as_object().unwrap()), hash(&a));
    }
}
