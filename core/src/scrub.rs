//! The one function that keeps a secret (the API key) out of everything showctl writes or
//! serves: error messages and logs, `record`'s files, the feed's documents, events and files.
//!
//! An application may echo the key it was sent (a debug page listing the request's headers, a
//! scoreboard operator typing it into a team name), and not always as sent: its JSON writer may
//! escape `/` as `\/` and any character as `\uXXXX` (upper or lower hex; some writers escape
//! `+`, `<`, `>`, `&` and `'` by default), and a URL echoed back carries it percent-encoded
//! (`%2F` or `%2f`). [`scrub`] finds the key in any of these forms, in any mix within one
//! occurrence, and replaces each occurrence with `***` (which needs no escaping in JSON, XML,
//! CSV or a URL, so a scrubbed JSON document stays valid JSON).
//!
//! Only text is scrubbed, never a document's structure or its other values: a key that happens
//! to spell JSON syntax or data (`1`, `true`, `name`) must not turn `{"opacity":1}` into
//! `{"opacity":***}`. So [`scrub`] first tells JSON from other text:
//!
//! - **JSON** (a document, or the start of one, as an error keeps it): only the contents of its
//!   strings are searched. Numbers, `true`, `false`, `null` and the syntax are never touched. An
//!   object's keys (the application's field names) are searched only for a key of at least
//!   [`SHORT_KEY`] characters: a shorter key equal to a field name would erase the field.
//! - **Other text** (an HTML error page, a message): searched whole.
//!
//! Within a text, a key of at least [`SHORT_KEY`] characters is masked wherever it appears; a
//! shorter one only where it stands alone (no letter or digit just before or after it), so the
//! key `name` masks `Bearer name` but not `Surname`. Such a key is also warned about once (see
//! `Target::new`): GitLab refuses to mask variables that short.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// What replaces each occurrence of the secret.
pub const MASK: &[u8] = b"***";

/// The longest form one byte of the secret can take (`\u002F`).
pub const WIDEST_FORM: usize = 6;

/// A key shorter than this is masked only where it stands alone, and never in an object's key
/// (see the module documentation).
pub const SHORT_KEY: usize = 8;

fn hex(b: u8) -> Option<u32> {
    (b as char).to_digit(16)
}

/// The ends (exclusive) of every way the secret's byte `c` can be written at `text[i..]`.
fn forms(text: &[u8], i: usize, c: u8, out: &mut Vec<usize>) {
    let Some(&b) = text.get(i) else { return };
    if b == c {
        out.push(i + 1);
    }
    match b {
        b'\\' => match text.get(i + 1) {
            Some(&e) if e == c && matches!(e, b'/' | b'"' | b'\\') => out.push(i + 2),
            Some(b'u') => {
                let code = text
                    .get(i + 2..i + 6)
                    .and_then(|h| h.iter().try_fold(0u32, |acc, &d| Some(acc * 16 + hex(d)?)));
                if code == Some(u32::from(c)) {
                    out.push(i + 6);
                }
            }
            _ => {}
        },
        b'%' => {
            let code = text
                .get(i + 1..i + 3)
                .and_then(|h| Some(hex(h[0])? * 16 + hex(h[1])?));
            if code == Some(u32::from(c)) {
                out.push(i + 3);
            }
        }
        _ => {}
    }
}

/// The end of the longest occurrence of `secret` starting at `text[start]`, in any mix of its
/// forms.
fn occurrence(text: &[u8], start: usize, secret: &[u8]) -> Option<usize> {
    let mut at = vec![start];
    let mut next = Vec::new();
    for &c in secret {
        next.clear();
        for &i in &at {
            forms(text, i, c, &mut next);
        }
        if next.is_empty() {
            return None;
        }
        next.sort_unstable();
        next.dedup();
        std::mem::swap(&mut at, &mut next);
    }
    at.last().copied()
}

/// Whether an occurrence at `text[start..end]` may be masked: always for a long secret; for a
/// short one only when no letter or digit touches it.
fn stands_alone(text: &[u8], start: usize, end: usize, secret: &[u8]) -> bool {
    if secret.len() >= SHORT_KEY {
        return true;
    }
    let before = start.checked_sub(1).and_then(|i| text.get(i));
    let after = text.get(end);
    !before.is_some_and(u8::is_ascii_alphanumeric) && !after.is_some_and(u8::is_ascii_alphanumeric)
}

/// `text` as one run of text (no JSON structure): each occurrence of `secret` (raw,
/// JSON-escaped or percent-encoded, in any mix) replaced by `***`, a short secret's only where
/// it stands alone; borrowed when there is none.
pub fn scrub_text<'a>(text: &'a [u8], secret: &[u8]) -> Cow<'a, [u8]> {
    let Some(&first) = secret.first() else {
        return Cow::Borrowed(text);
    };
    let could_start = |b: u8| b == first || b == b'\\' || b == b'%';
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < text.len() {
        if could_start(text[i]) {
            if let Some(end) =
                occurrence(text, i, secret).filter(|&e| stands_alone(text, i, e, secret))
            {
                // An occurrence that starts on an escaped character (the second byte of `\\`,
                // the `u` of `\u0041`) takes its escape's backslash along: left alone, that
                // backslash would escape the mask (`\***`), which no JSON reader accepts.
                let run = text[copied..i]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                let from = i - run % 2;
                let o = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
                o.extend_from_slice(&text[copied..from]);
                o.extend_from_slice(MASK);
                copied = end;
                i = end;
                continue;
            }
        }
        i += 1;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.extend_from_slice(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// One string literal of a JSON text: where its contents start and end, whether it was closed
/// (an error's excerpt may cut the last one), and whether it is an object's key.
struct Literal {
    start: usize,
    end: usize,
    closed: bool,
    is_key: bool,
}

/// The string literals of `text` when it is JSON (or the start of JSON), else `None`: outside
/// its strings there may be only JSON's syntax, whitespace, numbers and `true`, `false`,
/// `null`, so a secret outside the strings can only be a number or one of those words.
fn json_literals(text: &[u8]) -> Option<Vec<Literal>> {
    let first = text.iter().position(|b| !b.is_ascii_whitespace())?;
    if !matches!(text[first], b'{' | b'[') {
        return None;
    }
    let mut literals: Vec<Literal> = Vec::new();
    let mut i = first;
    while i < text.len() {
        match text[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < text.len() && text[j] != b'"' {
                    j += if text[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(text.len());
                literals.push(Literal {
                    start,
                    end,
                    closed: j < text.len(),
                    is_key: false,
                });
                i = end + 1;
            }
            b':' => {
                if let Some(last) = literals.last_mut() {
                    // A string followed by `:` (only whitespace between) is an object's key.
                    if text[last.end + 1..i].iter().all(u8::is_ascii_whitespace) {
                        last.is_key = true;
                    }
                }
                i += 1;
            }
            b'{' | b'}' | b'[' | b']' | b',' => i += 1,
            b if b.is_ascii_whitespace() => i += 1,
            b if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.') => {
                let word_end = text[i..]
                    .iter()
                    .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.')))
                    .map_or(text.len(), |n| i + n);
                let word = &text[i..word_end];
                let number = (word[0].is_ascii_digit() || word[0] == b'-')
                    && word.iter().all(|c| {
                        c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E')
                    });
                let literal = [&b"true"[..], b"false", b"null"]
                    .iter()
                    .any(|w| *w == word || (word_end == text.len() && w.starts_with(word)));
                if !(number || literal) {
                    return None;
                }
                i = word_end;
            }
            _ => return None,
        }
    }
    Some(literals)
}

/// The contents of one string literal, scrubbed: decoded (so every escape is read as the
/// character it stands for), searched as text, and written back as JSON when anything was
/// masked. A literal that does not decode (cut by an excerpt, a lone surrogate) is searched as
/// it is written.
fn scrub_literal(raw: &[u8], closed: bool, secret: &[u8], out: &mut Vec<u8>) -> bool {
    if matches!(scrub_text(raw, secret), Cow::Borrowed(_)) {
        return false; // no form of the secret at all: nothing to decode
    }
    let decoded = closed
        .then(|| {
            let mut quoted = Vec::with_capacity(raw.len() + 2);
            quoted.push(b'"');
            quoted.extend_from_slice(raw);
            quoted.push(b'"');
            serde_json::from_slice::<String>(&quoted).ok()
        })
        .flatten();
    match decoded {
        Some(text) => match scrub_text(text.as_bytes(), secret) {
            Cow::Borrowed(_) => false,
            Cow::Owned(clean) => {
                let clean = String::from_utf8_lossy(&clean);
                let json = serde_json::to_string(&clean).expect("a string always serializes");
                out.extend_from_slice(&json.as_bytes()[1..json.len() - 1]);
                true
            }
        },
        None => match scrub_text(raw, secret) {
            Cow::Borrowed(_) => false,
            Cow::Owned(clean) => {
                out.extend_from_slice(&clean);
                true
            }
        },
    }
}

/// `text` with the secret masked (see the module documentation: in JSON, only within its
/// strings; in other text, throughout; a short secret only where it stands alone); borrowed
/// when nothing was masked. An empty secret changes nothing.
pub fn scrub<'a>(text: &'a [u8], secret: &[u8]) -> Cow<'a, [u8]> {
    if secret.is_empty() {
        return Cow::Borrowed(text);
    }
    let Some(literals) = json_literals(text) else {
        return scrub_text(text, secret);
    };
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    for lit in literals {
        if lit.is_key && secret.len() < SHORT_KEY {
            continue;
        }
        let mut clean = Vec::new();
        if scrub_literal(&text[lit.start..lit.end], lit.closed, secret, &mut clean) {
            let o = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
            o.extend_from_slice(&text[copied..lit.start]);
            o.extend_from_slice(&clean);
            copied = lit.end;
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.extend_from_slice(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// [`scrub`] for text. Every form of an ASCII secret (an API key is visible ASCII) is ASCII, so
/// only ASCII runs are replaced and the text stays valid UTF-8.
pub fn scrub_str<'a>(text: &'a str, secret: &[u8]) -> Cow<'a, str> {
    match scrub(text.as_bytes(), secret) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(o) => Cow::Owned(String::from_utf8_lossy(&o).into_owned()),
    }
}

/// [`scrub_text`] for text.
fn scrub_text_str<'a>(text: &'a str, secret: &[u8]) -> Cow<'a, str> {
    match scrub_text(text.as_bytes(), secret) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(o) => Cow::Owned(String::from_utf8_lossy(&o).into_owned()),
    }
}

/// Scrub every text of a JSON value in place (its strings; its objects' keys for a secret of at
/// least [`SHORT_KEY`] characters); returns whether anything changed.
pub fn scrub_value(value: &mut Value, secret: &[u8]) -> bool {
    if secret.is_empty() {
        return false;
    }
    let keys_too = secret.len() >= SHORT_KEY;
    let mut changed = false;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Cow::Owned(clean) = scrub_text_str(s, secret) {
                    *s = clean;
                    changed = true;
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            Value::Object(o) => {
                if keys_too
                    && o.keys()
                        .any(|k| matches!(scrub_text_str(k, secret), Cow::Owned(_)))
                {
                    let old = std::mem::take(o);
                    *o = old
                        .into_iter()
                        .map(|(k, v)| (scrub_text_str(&k, secret).into_owned(), v))
                        .collect::<Map<String, Value>>();
                    changed = true;
                }
                stack.extend(o.values_mut());
            }
            _ => {}
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(text: &str, key: &str) -> String {
        String::from_utf8(scrub(text.as_bytes(), key.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn every_form_is_caught() {
        let key = "AbC/dEf+GhI==";
        assert_eq!(s("x AbC/dEf+GhI== y", key), "x *** y");
        assert_eq!(s(r#"{"k":"AbC\/dEf+GhI=="}"#, key), r#"{"k":"***"}"#);
        assert_eq!(s(r#""AbC\/dEf\u002BGhI\u003D\u003d""#, key), r#""***""#);
        assert_eq!(s(r#""\u0041\u0062C/dEf+GhI==""#, key), r#""***""#);
        assert_eq!(s("q=AbC%2FdEf%2bGhI%3D%3d&x", key), "q=***&x");
        assert_eq!(s("AbC%2fdEf+GhI==AbC/dEf+GhI==", key), "******");
        assert_eq!(s("AbC/dEf+GhI=", key), "AbC/dEf+GhI=");
        assert_eq!(s(r#"a\"b \\ c"#, r#"a"b"#), r#"*** \\ c"#);
        assert_eq!(s(r#"x\\y"#, r"x\y"), "***");
        // Found on an escaped character: the escape's backslash goes too (JSON stays valid).
        // (In a JSON string, `\\/A` reads as `\/A`: its `\/` is masked with the rest.)
        assert_eq!(s(r#"["\\/A"]"#, "/A"), r#"["***"]"#);
        assert_eq!(s(r#"x \\/A"#, "/A"), "x ***");
        assert_eq!(s(r"C:\s3cret", "s3cret"), "C:***");
        assert_eq!(s(r#""\\\\s3cret""#, "s3cret"), r#""\\\\***""#);
        assert!(matches!(scrub(b"nothing", b"key"), Cow::Borrowed(_)));
        assert!(matches!(scrub(b"key", b""), Cow::Borrowed(_)));
    }

    #[test]
    fn values_are_scrubbed_keys_included() {
        let mut v = serde_json::json!({"team1Name": "s3cret-key!", "s3cret-key": [1, {"a": "xs3cret-keyx"}]});
        assert!(scrub_value(&mut v, b"s3cret-key"));
        assert_eq!(
            v,
            serde_json::json!({"team1Name": "***!", "***": [1, {"a": "x***x"}]})
        );
        assert!(!scrub_value(&mut v, b"s3cret-key"));
        // A short key: only where it stands alone, never in a field's name.
        let mut v = serde_json::json!({"name": "Surname", "n": ["Bearer name", 1, true]});
        assert!(scrub_value(&mut v, b"name"));
        assert_eq!(
            v,
            serde_json::json!({"name": "Surname", "n": ["Bearer ***", 1, true]})
        );
    }

    /// A short or common key never touches a document's numbers, words or syntax, nor its
    /// field names; within its strings, it is masked where it stands alone.
    #[test]
    fn a_short_key_leaves_the_data_alone() {
        let doc = r#"{"opacity":1,"rate":-1.5e3,"isPlaying":true,"x":false,"y":null,"name":"Main 1","note":"key=1; 10"}"#;
        assert_eq!(
            s(doc, "1"),
            doc.replace("key=1;", "key=***;")
                .replace("Main 1", "Main ***")
        );
        assert_eq!(s(doc, "true"), doc);
        assert_eq!(s(doc, "null"), doc);
        assert_eq!(s(doc, "e3"), doc);
        assert_eq!(s(doc, "name"), doc);
        assert_eq!(s(doc, "Main"), doc.replace("Main 1", "*** 1"));
        // Pretty-printed (as `record` writes), and cut short (as an error keeps a body).
        let pretty = "{\n  \"opacity\": 1,\n  \"name\": \"1\"\n}";
        assert_eq!(
            s(pretty, "1"),
            "{\n  \"opacity\": 1,\n  \"name\": \"***\"\n}"
        );
        assert_eq!(
            s(r#"[{"opacity":1,"name":"1 is "#, "1"),
            r#"[{"opacity":1,"name":"*** is "#
        );
        assert_eq!(
            s(r#"[{"opacity":1,"is":tr"#, "1"),
            r#"[{"opacity":1,"is":tr"#
        );
        // Text that is not JSON: a short key only where it stands alone.
        assert_eq!(
            s("<h1>Error 1</h1> at 10:01", "1"),
            "<h1>Error ***</h1> at 10:01"
        );
        assert_eq!(s("{not json: name}", "name"), "{not json: ***}");
        assert_eq!(s("Bearer name; Surname", "name"), "Bearer ***; Surname");
        // A long key: everywhere in a text, and in field names too.
        assert_eq!(
            s(r#"{"k3y-long-1":"xk3y-long-1x","n":1}"#, "k3y-long-1"),
            r#"{"***":"x***x","n":1}"#
        );
        assert_eq!(s("xk3y-long-1x", "k3y-long-1"), "x***x");
    }

    /// A key as `auth_header` accepts it: visible ASCII, no surrounding whitespace (without `*`,
    /// the mask's own character, so a key found in the output was not scrubbed), at least
    /// [`SHORT_KEY`] long (a shorter one is masked only where it stands alone).
    fn key() -> impl Strategy<Value = String> {
        "[!-~][ -~]{6,30}[!-~]".prop_map(|k| k.replace('*', "#"))
    }

    /// A key in the alphabet of real keys (base64, base64url, hex, percent-escapes): a key
    /// holding JSON's own syntax (`"`, `\\`, `:`, `}`) may also match where a document's syntax
    /// happens to spell it, and the scrub favours the secret over the document's validity.
    fn plain_key() -> impl Strategy<Value = String> {
        "[A-Za-z0-9+/=_.~%-]{8,32}"
    }

    /// Every text of a JSON value, object keys included.
    fn texts(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|c| texts(c, out)),
            Value::Object(o) => o.iter().for_each(|(k, c)| {
                out.push(k.clone());
                texts(c, out);
            }),
            _ => {}
        }
    }

    /// Every form a JSON writer or a URL encoder gives one character, chosen per character.
    fn encoded(key: &str, choices: &[u8]) -> String {
        key.bytes()
            .zip(choices.iter().cycle())
            .map(|(b, choice)| match choice % 7 {
                0 => match b {
                    b'"' => "\\\"".to_string(),
                    b'\\' => "\\\\".to_string(),
                    _ => (b as char).to_string(),
                },
                1 if b == b'/' => "\\/".to_string(),
                1 | 2 => format!("\\u{:04x}", b),
                3 => format!("\\u{:04X}", b),
                4 => format!("%{:02X}", b),
                5 => format!("%{:02x}", b),
                _ => match b {
                    b'"' => "\\\"".to_string(),
                    b'\\' => "\\\\".to_string(),
                    b'/' => "\\/".to_string(),
                    _ => (b as char).to_string(),
                },
            })
            .collect()
    }

    proptest! {
        #[test]
        fn an_echoed_key_never_survives(
            k in key(),
            choices in proptest::collection::vec(any::<u8>(), 1..40),
            before in "[ -~]{0,20}",
            after in "[ -~]{0,20}",
        ) {
            let echoed = encoded(&k, &choices);
            let text = format!("{before}{echoed}{after}");
            // As text: `before` may start like JSON, where a key can hide in a number.
            let clean = scrub_text(text.as_bytes(), k.as_bytes());
            let clean = String::from_utf8(clean.into_owned()).unwrap();
            // Neither the key nor the form it was echoed in is left.
            prop_assert!(!clean.contains(&k), "{text} -> {clean}");
            prop_assert!(!clean.contains(&echoed), "{text} -> {clean}");
            prop_assert!(clean.contains("***"));
        }

        #[test]
        fn a_short_key_changes_no_number_word_or_field_name(
            k in "(true|false|null|name|[0-9]{1,7}|[a-z]{1,7}|-[0-9]{1,3}|[0-9]e[0-9])",
            numbers in proptest::collection::vec(-1000i64..1000, 1..6),
            floats in proptest::collection::vec(-1e6f64..1e6, 1..4),
            flags in proptest::collection::vec(any::<bool>(), 1..4),
        ) {
            let doc = serde_json::json!({
                // A string no generated key can spell: a key inside a string is masked.
                "name": "X Y", "id": numbers, "f": floats, "b": flags, "n": null,
                k.clone(): {"value": 1},
            });
            for text in [doc.to_string(), serde_json::to_string_pretty(&doc).unwrap()] {
                let clean = scrub(text.as_bytes(), k.as_bytes());
                let back: Value = serde_json::from_slice(&clean).unwrap();
                prop_assert_eq!(&back, &doc, "{} -> {}", text, String::from_utf8_lossy(&clean));
            }
        }

        #[test]
        fn a_json_document_echoing_the_key_stays_json_without_it(
            k in plain_key(),
            name in "\\PC{0,10}",
        ) {
            let doc = serde_json::json!({"team1Name": format!("{name}{k}"), "n": 1});
            // serde_json's own writing, and the `\/` and `\uXXXX` forms of other writers.
            let plain = doc.to_string();
            let slashed = plain.replace('/', "\\/");
            let unicode: String = serde_json::to_string(&doc).unwrap().chars().map(|c| match c {
                '+' | '<' | '>' | '&' | '\'' | '=' => format!("\\u{:04X}", c as u32),
                c => c.to_string(),
            }).collect();
            for text in [plain, slashed, unicode] {
                let clean = scrub(text.as_bytes(), k.as_bytes());
                let back: Value = serde_json::from_slice(&clean).unwrap();
                let mut all = Vec::new();
                texts(&back, &mut all);
                prop_assert!(all.iter().all(|t| !t.contains(&k)), "{text} -> {back}");
                prop_assert_eq!(&back["n"], &serde_json::json!(1));
            }
        }
    }
}
