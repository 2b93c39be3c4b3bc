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

use std::borrow::Cow;

use serde_json::{Map, Value};

/// What replaces each occurrence of the secret.
pub const MASK: &[u8] = b"***";

/// The longest form one byte of the secret can take (`\u002F`).
pub const WIDEST_FORM: usize = 6;

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

/// `text` with every occurrence of `secret` (raw, JSON-escaped or percent-encoded, in any mix)
/// replaced by `***`; borrowed when there is none. An empty secret changes nothing.
pub fn scrub<'a>(text: &'a [u8], secret: &[u8]) -> Cow<'a, [u8]> {
    let Some(&first) = secret.first() else {
        return Cow::Borrowed(text);
    };
    let could_start = |b: u8| b == first || b == b'\\' || b == b'%';
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < text.len() {
        if could_start(text[i]) {
            if let Some(end) = occurrence(text, i, secret) {
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

/// [`scrub`] for text. Every form of an ASCII secret (an API key is visible ASCII) is ASCII, so
/// only ASCII runs are replaced and the text stays valid UTF-8.
pub fn scrub_str<'a>(text: &'a str, secret: &[u8]) -> Cow<'a, str> {
    match scrub(text.as_bytes(), secret) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(o) => Cow::Owned(String::from_utf8_lossy(&o).into_owned()),
    }
}

/// Scrub every text of a JSON value in place (strings and object keys); returns whether
/// anything changed.
pub fn scrub_value(value: &mut Value, secret: &[u8]) -> bool {
    if secret.is_empty() {
        return false;
    }
    let mut changed = false;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Cow::Owned(clean) = scrub_str(s, secret) {
                    *s = clean;
                    changed = true;
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            Value::Object(o) => {
                if o.keys()
                    .any(|k| matches!(scrub_str(k, secret), Cow::Owned(_)))
                {
                    let old = std::mem::take(o);
                    *o = old
                        .into_iter()
                        .map(|(k, v)| (scrub_str(&k, secret).into_owned(), v))
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
        assert_eq!(s(r#"{"n":"\\/A"}"#, "/A"), r#"{"n":"***"}"#);
        assert_eq!(s(r"C:\s3cret", "s3cret"), "C:***");
        assert_eq!(s(r#""\\\\s3cret""#, "s3cret"), r#""\\\\***""#);
        assert!(matches!(scrub(b"nothing", b"key"), Cow::Borrowed(_)));
        assert!(matches!(scrub(b"key", b""), Cow::Borrowed(_)));
    }

    #[test]
    fn values_are_scrubbed_keys_included() {
        let mut v = serde_json::json!({"team1Name": "s3cret!", "s3cret": [1, {"a": "xs3cretx"}]});
        assert!(scrub_value(&mut v, b"s3cret"));
        assert_eq!(
            v,
            serde_json::json!({"team1Name": "***!", "***": [1, {"a": "x***x"}]})
        );
        assert!(!scrub_value(&mut v, b"s3cret"));
    }

    /// A key as `auth_header` accepts it: visible ASCII, no surrounding whitespace (without `*`,
    /// the mask's own character, so a key found in the output was not scrubbed).
    fn key() -> impl Strategy<Value = String> {
        "[!-~][ -~]{0,30}[!-~]".prop_map(|k| k.replace('*', "#"))
    }

    /// A key in the alphabet of real keys (base64, base64url, hex, percent-escapes): a key
    /// holding JSON's own syntax (`"`, `\\`, `:`, `}`) may also match where a document's syntax
    /// happens to spell it, and the scrub favours the secret over the document's validity.
    fn plain_key() -> impl Strategy<Value = String> {
        "[A-Za-z0-9+/=_.~%-]{2,32}"
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
            let clean = scrub(text.as_bytes(), k.as_bytes());
            let clean = String::from_utf8(clean.into_owned()).unwrap();
            // Neither the key nor the form it was echoed in is left.
            prop_assert!(!clean.contains(&k), "{text} -> {clean}");
            prop_assert!(!clean.contains(&echoed), "{text} -> {clean}");
            prop_assert!(clean.contains("***"));
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
