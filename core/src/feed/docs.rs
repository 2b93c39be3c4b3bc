//! What the feed serves, rendered from a source's state: the transport document, the scores
//! document, and the flat key/value form of the scores for XML and CSV readers.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use crate::media::watch::{play_state, PlayState, TransportEvent};
use crate::media::TransportState;
use crate::score::{ScoreEvent, ScoreRecord, ScoreView, Val};

/// The state of one polled application, as the last polls left it.
#[derive(Debug, Clone)]
pub struct SourceState<T> {
    /// The application's API URL.
    pub url: String,
    /// The last good answer (`None` before the first).
    pub data: Option<T>,
    /// When the last good answer arrived.
    pub polled_at: Option<SystemTime>,
    /// Since when the polls fail or go unanswered (`None` while they work).
    pub stale_since: Option<SystemTime>,
    /// Why the data is stale.
    pub error: Option<String>,
}

impl<T> SourceState<T> {
    pub fn new(url: String) -> Self {
        SourceState {
            url,
            data: None,
            polled_at: None,
            stale_since: None,
            error: None,
        }
    }

    /// Seconds since the last good answer (`None` before the first).
    pub fn age(&self, now: SystemTime) -> Option<f64> {
        self.polled_at
            .map(|t| round(now.duration_since(t).unwrap_or_default().as_secs_f64()))
    }

    /// The fields every document starts with: where from, how old, stale or not.
    fn header(&self, source: &str, interval: Duration, now: SystemTime) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("source".into(), json!(source));
        m.insert("url".into(), json!(self.url));
        m.insert("interval".into(), json!(interval.as_secs_f64()));
        m.insert("polled_at".into(), json!(self.polled_at.map(iso)));
        m.insert("age".into(), json!(self.age(now)));
        m.insert("stale".into(), json!(self.stale_since.is_some()));
        m.insert("stale_since".into(), json!(self.stale_since.map(iso)));
        m.insert("error".into(), json!(self.error));
        m
    }

    /// The `status` event: whether this source is stale, since when and why.
    pub fn status(&self, source: &str, interval: Duration, now: SystemTime) -> Value {
        Value::Object(self.header(source, interval, now))
    }
}

/// The layers of a workspace poll.
pub type Layers = Vec<Arc<TransportState>>;
/// The score record of a poll.
pub type Scores = Arc<ScoreRecord>;

/// Milliseconds are enough for a clock.
fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `2026-11-23T10:35:38.123Z`.
pub fn iso(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        d.subsec_millis()
    )
}

/// One layer of `/transport.json`.
pub fn layer_json(index: usize, t: &TransportState) -> Value {
    let state = play_state(t);
    let loaded = state != PlayState::Empty;
    let media = t.playing_media.as_ref().filter(|_| loaded);
    let timed = matches!(
        state,
        PlayState::Playing | PlayState::Paused | PlayState::Still
    );
    let remaining = t.time_remaining.filter(|_| timed);
    let elapsed = t.time_elapsed.filter(|_| loaded);
    let duration = match (elapsed, remaining) {
        (Some(e), Some(r)) => Some(round(e + r)),
        _ => None,
    };
    let layer = t.layer.as_deref();
    json!({
        "index": index,
        "name": layer.and_then(|l| l.name.clone()),
        "uuid": layer.and_then(|l| l.uuid.clone()),
        "state": state.as_str(),
        "media": media.and_then(|m| m.name.clone()),
        "media_uuid": media.and_then(|m| m.uuid.clone()),
        // playingItem is never cleared: it only names what plays while media is loaded.
        "cue": t.playing_item.as_ref().filter(|_| loaded).and_then(|c| c.name.clone()),
        "elapsed": elapsed.map(round),
        "remaining": remaining.map(round),
        "duration": duration,
        "rate": t.playback_rate.filter(|_| loaded),
    })
}

/// `/transport.json` of a feed with one media source.
pub fn transport_doc(state: &SourceState<Layers>, interval: Duration, now: SystemTime) -> Value {
    transport_doc_of(state, "media", interval, now)
}

/// The transport document of the media source named `source` (`/transport/NAME.json`).
pub fn transport_doc_of(
    state: &SourceState<Layers>,
    source: &str,
    interval: Duration,
    now: SystemTime,
) -> Value {
    let mut m = state.header(source, interval, now);
    let layers: Vec<Value> = state
        .data
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, t)| layer_json(i, t))
        .collect();
    m.insert("layers".into(), Value::Array(layers));
    Value::Object(m)
}

/// A `layer` event.
pub fn layer_event_json(e: &TransportEvent) -> Value {
    let layer = e.layer_index.zip(e.current.as_deref());
    json!({
        "kind": e.kind.as_str(),
        "layer_index": e.layer_index,
        "layer_name": e.layer_name,
        "layer_uuid": e.layer_uuid,
        "layer": layer.map(|(i, t)| layer_json(i, t)),
        "at": iso(e.at),
    })
}

/// `/scores.json` of a feed with one scoreboard.
pub fn scores_doc(state: &SourceState<Scores>, interval: Duration, now: SystemTime) -> Value {
    scores_doc_of(state, "scoreboard", interval, now)
}

/// The scores document of the scoreboard named `source` (`/scores/NAME.json`).
pub fn scores_doc_of(
    state: &SourceState<Scores>,
    source: &str,
    interval: Duration,
    now: SystemTime,
) -> Value {
    let mut m = state.header(source, interval, now);
    let rec = state.data.as_deref();
    m.insert("sport".into(), json!(rec.and_then(ScoreRecord::sport_mode)));
    m.insert("view".into(), json!(rec.map(ScoreRecord::view)));
    m.insert(
        "record".into(),
        rec.map_or(Value::Null, |r| Value::Object(r.raw().clone())),
    );
    Value::Object(m)
}

/// A `score` event.
pub fn score_event_json(e: &ScoreEvent) -> Value {
    json!({
        "kind": e.kind.as_str(),
        "field": e.field,
        "team": e.team,
        "game": e.game,
        "old": e.old,
        "new": e.new,
        "delta": e.delta,
        "at": iso(e.at),
    })
}

fn text(v: &Option<Val>) -> String {
    v.as_ref().map(Val::text).unwrap_or_default()
}

/// A view as flat names and texts: `sport`, `period`, `possession`, `team1_name`,
/// `team1_score`, `team1_<stat>`, `team1_set1`…, `team1_inning1`…, then the game fields.
fn flat_view(v: &ScoreView, prefix: &str, out: &mut Vec<(String, String)>) {
    let mut put = |k: &str, v: String| out.push((format!("{prefix}{k}"), v));
    put("period", text(&v.period));
    put("possession", text(&v.possession));
    for (i, team) in v.teams.iter().enumerate() {
        let t = format!("team{}_", i + 1);
        put(&format!("{t}name"), team.name.clone().unwrap_or_default());
        put(&format!("{t}score"), text(&team.score));
        for (k, val) in &team.stats.0 {
            put(&format!("{t}{k}"), val.text());
        }
        for (series, list) in [("inning", &team.line_score), ("set", &team.sets)] {
            for (n, val) in list.iter().enumerate() {
                put(&format!("{t}{series}{}", n + 1), text(val));
            }
        }
    }
    for (k, val) in &v.fields.0 {
        put(k, val.text());
    }
}

/// The flat form of `/scores.xml` and `/scores.csv`: the score, then Custom games as
/// `game1_…`, then the status (`stale`, `stale_since`, `age`, `polled_at`).
pub fn scores_flat(state: &SourceState<Scores>, now: SystemTime) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let rec = state.data.as_deref();
    let sport = rec.and_then(ScoreRecord::sport_mode).unwrap_or_default();
    out.push(("sport".to_string(), sport));
    if let Some(rec) = rec {
        let view = rec.view();
        flat_view(&view, "", &mut out);
        for (i, game) in view.games.iter().enumerate() {
            flat_view(game, &format!("game{}_", i + 1), &mut out);
        }
    }
    out.push(("stale".into(), state.stale_since.is_some().to_string()));
    out.push((
        "stale_since".into(),
        state.stale_since.map(iso).unwrap_or_default(),
    ));
    out.push((
        "age".into(),
        state
            .age(now)
            .map(|a| format!("{a:.1}"))
            .unwrap_or_default(),
    ));
    out.push((
        "polled_at".into(),
        state.polled_at.map(iso).unwrap_or_default(),
    ));
    out
}

/// A name usable as an XML element name: letters, digits and `_`, not starting with a digit.
fn xml_name(k: &str) -> String {
    let mut s: String = k
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, '_');
    }
    s
}

/// `v` as XML 1.0 text: markup escaped, and every character outside XML 1.0's range dropped
/// (control characters other than tab and newlines) or replaced by U+FFFD (the non-characters
/// U+FFFE and U+FFFF), so the document is well-formed for any input. A Rust string holds no
/// lone surrogate (one sent by the application was read as U+FFFD already).
fn xml_text(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

/// The start of `/scores.xml`, up to the first element of the row.
pub(crate) const XML_HEAD: &str =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<scores>\n  <score>\n";
/// The end of `/scores.xml`, after the last element of the row.
pub(crate) const XML_TAIL: &str = "  </score>\n</scores>\n";

/// The elements of the `/scores.xml` row for `flat`, each name prefixed with `prefix` (a named
/// source's part of the combined document).
pub(crate) fn xml_rows(flat: &[(String, String)], prefix: &str) -> String {
    let mut out = String::new();
    for (k, v) in flat {
        let name = xml_name(&format!("{prefix}{k}"));
        out.push_str(&format!("    <{name}>{}</{name}>\n", xml_text(v)));
    }
    out
}

/// `/scores.xml`: `<scores><score><sport>…</sport>…</score></scores>`, one element per flat
/// field (the row a vMix or CasparCG XML data source selects with `/scores/score`).
pub fn scores_xml(flat: &[(String, String)]) -> String {
    format!("{XML_HEAD}{}{XML_TAIL}", xml_rows(flat, ""))
}

/// One CSV cell (RFC 4180 quoting). A cell a spreadsheet would run as a formula (starting with
/// `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's list) gets a leading `'`, which
/// spreadsheets show as text; a plain number such as `-3` is left as it is.
fn csv_cell(v: &str) -> String {
    /// Whether `v` is a plain decimal number (`-3`, `+2.5`, `.5`, `1e-3`): a spreadsheet reads it
    /// as that number, never as a formula.
    fn plain_number(v: &str) -> bool {
        let v = v.strip_prefix(['+', '-']).unwrap_or(v);
        let (mantissa, exponent) = match v.find(['e', 'E']) {
            Some(i) => (&v[..i], Some(&v[i + 1..])),
            None => (v, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let mantissa_ok = match mantissa.split_once('.') {
            Some((int, frac)) => {
                (digits(int) || int.is_empty())
                    && (digits(frac) || frac.is_empty())
                    && !(int.is_empty() && frac.is_empty())
            }
            None => digits(mantissa),
        };
        let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
        mantissa_ok && exponent_ok
    }
    let formula = v.starts_with(['=', '+', '-', '@', '\t', '\r']) && !plain_number(v);
    let v: std::borrow::Cow<'_, str> = if formula {
        format!("'{v}").into()
    } else {
        v.into()
    };
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v.into_owned()
    }
}

/// One CSV line without its line break: the cells, each quoted where it must be.
pub(crate) fn csv_line<S: AsRef<str>>(cells: impl IntoIterator<Item = S>) -> String {
    let cells: Vec<String> = cells.into_iter().map(|c| csv_cell(c.as_ref())).collect();
    cells.join(",")
}

/// `/scores.csv`: a header row of the flat names and one row of values (RFC 4180).
pub fn scores_csv(flat: &[(String, String)]) -> String {
    format!(
        "{}\r\n{}\r\n",
        csv_line(flat.iter().map(|(k, _)| k)),
        csv_line(flat.iter().map(|(_, v)| v))
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::media::Model;

    #[test]
    fn iso_dates() {
        assert_eq!(iso(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(iso(t), "2024-02-29T12:34:56.789Z");
    }

    fn ts(v: Value) -> TransportState {
        TransportState::from_raw(v.as_object().unwrap().clone())
    }

    #[test]
    fn layer_states_follow_the_field_facts() {
        let still = ts(
            json!({"isPlaying": true, "playbackRate": 0, "timeElapsed": 0,
            "timeRemaining": 0, "playingMedia": {"name": "logo.png"}, "layer": {"name": "Bug"}}),
        );
        let j = layer_json(3, &still);
        assert_eq!(j["state"], "still");
        assert_eq!(j["name"], "Bug");
        assert_eq!(j["index"], 3);
        let empty = ts(json!({"isPlaying": false, "timeRemaining": 4,
            "playingItem": {"name": "Old cue"}}));
        let j = layer_json(0, &empty);
        assert_eq!(j["state"], "empty");
        assert_eq!(j["cue"], Value::Null);
        assert_eq!(j["remaining"], Value::Null);
        let playing = ts(
            json!({"isPlaying": true, "playbackRate": 1, "timeElapsed": 2.5,
            "timeRemaining": 7.5, "playingMedia": {"name": "clip"}, "playingItem": {"name": "Intro"}}),
        );
        let j = layer_json(0, &playing);
        assert_eq!(
            (j["state"].as_str(), j["duration"].as_f64()),
            (Some("playing"), Some(10.0))
        );
        assert_eq!(j["cue"], "Intro");
        let live = ts(
            json!({"isPlaying": true, "playbackRate": 1, "timeElapsed": 30,
            "timeRemaining": 0, "playingMedia": {"name": "Camera 1"}}),
        );
        assert_eq!(layer_json(0, &live)["state"], "live input");
        assert_eq!(layer_json(0, &live)["remaining"], Value::Null);
        let paused = ts(
            json!({"isPlaying": false, "playbackRate": 0, "timeElapsed": 3,
            "timeRemaining": 7, "playingMedia": {"name": "clip"}}),
        );
        assert_eq!(layer_json(0, &paused)["state"], "paused");
    }

    #[test]
    fn xml_and_csv_escape() {
        let flat = vec![
            ("team1_name".to_string(), "A & \"B\", <C>".to_string()),
            ("1st".to_string(), "x\ny".to_string()),
        ];
        let xml = scores_xml(&flat);
        assert!(xml.contains("<team1_name>A &amp; &quot;B&quot;, &lt;C&gt;</team1_name>"));
        assert!(xml.contains("<_1st>x\ny</_1st>"));
        assert_eq!(
            scores_csv(&flat),
            "team1_name,1st\r\n\"A & \"\"B\"\", <C>\",\"x\ny\"\r\n"
        );
    }

    /// What a spreadsheet runs as a formula at the start of a cell (OWASP's list).
    const FORMULA: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

    #[test]
    fn csv_formulas_are_defused_numbers_are_not() {
        let cells = [
            (
                "=HYPERLINK(\"http://x\",\"go\")",
                "\"'=HYPERLINK(\"\"http://x\"\",\"\"go\"\")\"",
            ),
            ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
            ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
            ("+1-1", "'+1-1"),
            ("\tx", "'\tx"),
            ("\rx", "\"'\rx\""),
            ("-3", "-3"),
            ("+2.5", "+2.5"),
            ("-.5e-3", "-.5e-3"),
            ("-", "'-"),
            ("-inf", "'-inf"),
            ("Home", "Home"),
            ("a=b", "a=b"),
        ];
        for (text, cell) in cells {
            let flat = vec![("n".to_string(), text.to_string())];
            assert_eq!(scores_csv(&flat), format!("n\r\n{cell}\r\n"), "{text:?}");
        }
    }

    /// A character XML 1.0 allows in a document.
    fn xml_char(c: char) -> bool {
        matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
            || c >= '\u{10000}'
    }

    /// The elements of `<scores><score>…</score></scores>` and their texts, read by a real XML
    /// parser; an error for a document that is not well-formed.
    pub(crate) fn parse_xml(xml: &str) -> Result<Vec<(String, String)>, String> {
        use quick_xml::events::Event;
        let mut reader = quick_xml::Reader::from_str(xml);
        let mut out = Vec::new();
        let mut depth = 0;
        loop {
            match reader.read_event().map_err(|e| e.to_string())? {
                Event::Start(e) => {
                    depth += 1;
                    if depth == 3 {
                        let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                        out.push((name, String::new()));
                    }
                }
                Event::End(_) => depth -= 1,
                Event::Text(t) if depth == 3 => {
                    let text = t.decode().map_err(|e| e.to_string())?;
                    out.last_mut().unwrap().1.push_str(&text);
                }
                Event::GeneralRef(r) if depth == 3 => {
                    let c = match r.decode().map_err(|e| e.to_string())?.as_ref() {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        other => return Err(format!("unknown entity {other}")),
                    };
                    out.last_mut().unwrap().1.push(c);
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if depth != 0 {
            return Err(format!("{depth} elements left open"));
        }
        if let Some(c) = xml.chars().find(|&c| !xml_char(c)) {
            return Err(format!(
                "U+{:04X} is outside XML 1.0's characters",
                c as u32
            ));
        }
        Ok(out)
    }

    #[test]
    fn xml_drops_what_xml_cannot_hold() {
        let flat = vec![(
            "team1_name".to_string(),
            "A\u{FFFE}B\u{FFFF}\u{1}C".to_string(),
        )];
        let xml = scores_xml(&flat);
        assert_eq!(
            parse_xml(&xml).unwrap(),
            [("team1_name".to_string(), "A\u{FFFD}B\u{FFFD}C".to_string())]
        );
    }

    /// Any text, with the characters that matter to XML and CSV often.
    fn text(max: usize) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let c = prop_oneof![
            any::<char>(),
            proptest::sample::select(vec![
                '\u{FFFE}',
                '\u{FFFF}',
                '\u{0}',
                '\u{1B}',
                '\u{7F}',
                '\u{85}',
                '<',
                '&',
                '"',
                ',',
                '\r',
                '\n',
                '\t',
                ']',
                '\u{1F600}',
                '\u{FFFD}',
            ]),
        ];
        proptest::collection::vec(c, 0..max).prop_map(|v| v.into_iter().collect())
    }

    proptest::proptest! {
        /// Whatever the names and values (any Unicode, controls and non-characters included),
        /// scores.xml is well-formed and holds every value (less what XML cannot hold),
        /// scores.csv has one header and one row of as many cells, and scores.json is JSON.
        #[test]
        fn documents_are_valid_for_any_text(
            fields in proptest::collection::vec((text(12), text(24)), 1..8),
        ) {
            let flat: Vec<(String, String)> = fields;
            let xml = scores_xml(&flat);
            let read = parse_xml(&xml);
            proptest::prop_assert!(read.is_ok(), "{:?}: {xml:?}", read);
            let read = read.unwrap();
            proptest::prop_assert_eq!(read.len(), flat.len());
            for ((k, v), (name, text)) in flat.iter().zip(&read) {
                proptest::prop_assert_eq!(name, &xml_name(k));
                let kept: String = v
                    .chars()
                    .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
                    .map(|c| if xml_char(c) { c } else { '\u{FFFD}' })
                    .collect();
                proptest::prop_assert_eq!(text, &kept);
            }
            let csv = scores_csv(&flat);
            let rows = parse_csv(&csv);
            proptest::prop_assert_eq!(rows.len(), 2, "{:?}", csv);
            // Every cell reads back as written, but a formula's leading `'`; no cell a
            // spreadsheet would run is left.
            let sent = flat.iter().map(|(k, _)| k).chain(flat.iter().map(|(_, v)| v));
            for (cell, text) in rows[0].iter().chain(&rows[1]).zip(sent) {
                proptest::prop_assert!(
                    cell == text || (*cell == format!("'{text}") && text.starts_with(FORMULA)),
                    "{text:?} -> {cell:?}"
                );
                proptest::prop_assert!(
                    !cell.starts_with(FORMULA) || cell.parse::<f64>().is_ok(),
                    "{cell:?}"
                );
            }
            let json = serde_json::to_string(&serde_json::json!({"v": flat})).unwrap();
            proptest::prop_assert!(serde_json::from_str::<Value>(&json).is_ok());
        }
    }

    /// RFC 4180 rows (quoted cells may hold commas, quotes and line breaks).
    pub(crate) fn parse_csv(text: &str) -> Vec<Vec<String>> {
        let mut rows = Vec::new();
        let mut row = Vec::new();
        let mut cell = String::new();
        let mut chars = text.chars().peekable();
        let mut quoted = false;
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                (true, '"') => quoted = false,
                (true, c) => cell.push(c),
                (false, '"') => quoted = true,
                (false, ',') => row.push(std::mem::take(&mut cell)),
                (false, '\r') if chars.peek() == Some(&'\n') => {
                    chars.next();
                    row.push(std::mem::take(&mut cell));
                    rows.push(std::mem::take(&mut row));
                }
                (false, c) => cell.push(c),
            }
        }
        rows
    }
}
