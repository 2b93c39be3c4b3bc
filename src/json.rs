//! JSON values as the core handles them: one nesting limit for everything that goes in or comes
//! out, and a hash consistent with `==`.
//!
//! Every step that walks a JSON value (reading a reply, reading a model, converting to or from
//! Python, dropping a `serde_json::Value`) recurses once per level of nesting, so a value nested
//! thousands deep would overflow the stack of the thread that handles it: a crash, not an error.
//! [`MAX_DEPTH`] bounds that: a value is checked (without recursion) before anything recurses
//! into it, and anything deeper is refused with an error.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Map, Value};

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
