//! The scoreboard application: the score record model and its client.
//!
//! A record is kept as the JSON object the application sent (so `to_dict()` returns exactly
//! that, unknown fields included, duplicate keys resolved last-wins as Python's `json` does);
//! the typed view of each sport comes from [`fields_of`], one table per sport mode of the
//! API document.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::transport::{Request, Transport};

/// The sport modes of the API document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sport {
    AustralianFootball,
    Baseball,
    Basketball,
    Football,
    Hockey,
    Lacrosse,
    Soccer,
    Tennis,
    Volleyball,
    Custom,
}

impl Sport {
    pub const ALL: [Sport; 10] = [
        Sport::AustralianFootball,
        Sport::Baseball,
        Sport::Basketball,
        Sport::Football,
        Sport::Hockey,
        Sport::Lacrosse,
        Sport::Soccer,
        Sport::Tennis,
        Sport::Volleyball,
        Sport::Custom,
    ];

    pub fn wire_name(self) -> &'static str {
        match self {
            Sport::AustralianFootball => "AustralianFootball",
            Sport::Baseball => "Baseball",
            Sport::Basketball => "Basketball",
            Sport::Football => "Football",
            Sport::Hockey => "Hockey",
            Sport::Lacrosse => "Lacrosse",
            Sport::Soccer => "Soccer",
            Sport::Tennis => "Tennis",
            Sport::Volleyball => "Volleyball",
            Sport::Custom => "Custom",
        }
    }

    pub fn from_wire(s: &str) -> Option<Sport> {
        Sport::ALL.into_iter().find(|m| m.wire_name() == s)
    }
}

/// How a field reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A string (numbers are given as text by the application).
    Str,
    /// An integer (the document types `possession` and `currentSet` as integers).
    Int,
    /// A boolean (Basketball bonus flags).
    Bool,
    /// A numbered series `{wire}1` .. `{wire}9`, read as a list of strings.
    Series,
}

/// One typed attribute of a sport: the Python name, the wire name (or series prefix) and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub attr: &'static str,
    pub wire: &'static str,
    pub kind: FieldKind,
}

const fn f(attr: &'static str, wire: &'static str, kind: FieldKind) -> Field {
    Field { attr, wire, kind }
}

use FieldKind::{Bool, Int, Series, Str};

/// Length of a numbered series (LineScore1..9, Set1..9).
pub const SERIES_LEN: usize = 9;

static AUSTRALIAN_FOOTBALL: &[Field] = &[
    f("quarter", "quarter", Str),
    f("team1_behinds", "team1Behinds", Str),
    f("team1_goals", "team1Goals", Str),
    f("team1_name", "team1Name", Str),
    f("team1_score", "team1Score", Str),
    f("team2_behinds", "team2Behinds", Str),
    f("team2_goals", "team2Goals", Str),
    f("team2_name", "team2Name", Str),
    f("team2_score", "team2Score", Str),
];

static BASEBALL: &[Field] = &[
    f("balls", "balls", Str),
    f("errors", "errors", Str),
    f("hits", "hits", Str),
    f("inning", "inning", Str),
    f("outs", "outs", Str),
    f("period", "period", Str),
    f("runs", "runs", Str),
    f("strikes", "strikes", Str),
    f("possession", "possession", Int),
    f("top_bottom", "topBottom", Str),
    f("team_one_runs", "teamOneRuns", Str),
    f("team_one_errors", "teamOneErrors", Str),
    f("team_one_hits", "teamOneHits", Str),
    f("team_one_line_score", "teamOneLineScore", Series),
    f("team_two_runs", "teamTwoRuns", Str),
    f("team_two_errors", "teamTwoErrors", Str),
    f("team_two_hits", "teamTwoHits", Str),
    f("team_two_line_score", "teamTwoLineScore", Series),
];

static BASKETBALL: &[Field] = &[
    f("period", "period", Str),
    f("possession", "possession", Int),
    f("team1_bonus1", "team1Bonus1", Bool),
    f("team1_bonus2", "team1Bonus2", Bool),
    f("team1_fouls", "team1Fouls", Str),
    f("team1_score", "team1Score", Str),
    f("team1_time_outs", "team1TimeOuts", Str),
    f("team2_bonus1", "team2Bonus1", Bool),
    f("team2_bonus2", "team2Bonus2", Bool),
    f("team2_fouls", "team2Fouls", Str),
    f("team2_score", "team2Score", Str),
    f("team2_time_outs", "team2TimeOuts", Str),
];

static FOOTBALL: &[Field] = &[
    f("ball_location", "ballLocation", Str),
    f("down", "down", Str),
    f("period", "period", Str),
    f("to_go", "toGo", Str),
    f("possession", "possession", Int),
    f("team1_score", "team1Score", Str),
    f("team1_time_outs", "team1TimeOuts", Str),
    f("team2_score", "team2Score", Str),
    f("team2_time_outs", "team2TimeOuts", Str),
];

static HOCKEY: &[Field] = &[
    f("period", "period", Str),
    f("team1_saves", "team1Saves", Str),
    f("team1_score", "team1Score", Str),
    f("team1_shots", "team1Shots", Str),
    f("team1_time_outs", "team1TimeOuts", Str),
    f("team2_saves", "team2Saves", Str),
    f("team2_score", "team2Score", Str),
    f("team2_shots", "team2Shots", Str),
    f("team2_time_outs", "team2TimeOuts", Str),
];

static LACROSSE: &[Field] = &[
    f("period", "period", Str),
    f("possession", "possession", Int),
    f("team1_saves", "team1Saves", Str),
    f("team1_score", "team1Score", Str),
    f("team1_shots", "team1Shots", Str),
    f("team1_time_outs", "team1TimeOuts", Str),
    f("team2_saves", "team2Saves", Str),
    f("team2_score", "team2Score", Str),
    f("team2_shots", "team2Shots", Str),
    f("team2_time_outs", "team2TimeOuts", Str),
];

static SOCCER: &[Field] = &[
    f("extra_time", "extraTime", Str),
    f("period", "period", Str),
    f("team1_corner", "team1Corner", Str),
    f("team1_saves", "team1Saves", Str),
    f("team1_score", "team1Score", Str),
    f("team1_shots", "team1Shots", Str),
    f("team1_time_outs", "team1TimeOuts", Str),
    f("team2_corner", "team2Corner", Str),
    f("team2_saves", "team2Saves", Str),
    f("team2_score", "team2Score", Str),
    f("team2_shots", "team2Shots", Str),
    f("team2_time_outs", "team2TimeOuts", Str),
];

static TENNIS: &[Field] = &[
    f("current_set", "currentSet", Int),
    f("period", "period", Str),
    f("possession", "possession", Int),
    f("team1_games", "team1Games", Str),
    f("team1_score", "team1Score", Str),
    f("team1_sets", "team1Sets", Str),
    f("team1_time_outs", "team1TimeOuts", Str),
    f("team1_set_scores", "team1Set", Series),
    f("team2_games", "team2Games", Str),
    f("team2_score", "team2Score", Str),
    f("team2_sets", "team2Sets", Str),
    f("team2_time_outs", "team2TimeOuts", Str),
    f("team2_set_scores", "team2Set", Series),
];

static VOLLEYBALL: &[Field] = &[
    f("current_set", "currentSet", Int),
    f("period", "period", Str),
    f("possession", "possession", Int),
    f("team1_games", "team1Games", Str),
    f("team1_score", "team1Score", Str),
    f("team1_time_outs", "team1TimeOuts", Str),
    f("team1_set_scores", "team1Set", Series),
    f("team2_games", "team2Games", Str),
    f("team2_score", "team2Score", Str),
    f("team2_time_outs", "team2TimeOuts", Str),
    f("team2_set_scores", "team2Set", Series),
];

/// The typed fields of a sport (Custom has none: its games are user-defined).
pub fn fields_of(sport: Sport) -> &'static [Field] {
    match sport {
        Sport::AustralianFootball => AUSTRALIAN_FOOTBALL,
        Sport::Baseball => BASEBALL,
        Sport::Basketball => BASKETBALL,
        Sport::Football => FOOTBALL,
        Sport::Hockey => HOCKEY,
        Sport::Lacrosse => LACROSSE,
        Sport::Soccer => SOCCER,
        Sport::Tennis => TENNIS,
        Sport::Volleyball => VOLLEYBALL,
        Sport::Custom => &[],
    }
}

/// A typed field value.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    Missing,
    Str(String),
    Int(i64),
    Bool(bool),
    Series(Vec<Option<String>>),
}

/// One score record, as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRecord {
    raw: Map<String, Value>,
}

impl ScoreRecord {
    /// Decode a body. Duplicate keys: the last value wins.
    pub fn from_slice(body: &[u8]) -> std::result::Result<Self, String> {
        let value: Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        Self::from_value(value)
    }

    pub fn from_value(value: Value) -> std::result::Result<Self, String> {
        match value {
            Value::Object(raw) => Ok(ScoreRecord { raw }),
            other => Err(format!(
                "a score record is a JSON object, got {}",
                json_kind(&other)
            )),
        }
    }

    pub fn raw(&self) -> &Map<String, Value> {
        &self.raw
    }
    pub fn into_raw(self) -> Map<String, Value> {
        self.raw
    }

    fn text(&self, key: &str) -> Option<String> {
        self.raw.get(key).and_then(as_text)
    }
    pub fn uuid(&self) -> Option<String> {
        self.text("uuid").filter(|u| u != "null")
    }
    pub fn version(&self) -> Option<String> {
        self.text("version")
    }
    pub fn sport_mode(&self) -> Option<String> {
        self.text("sportMode")
    }
    pub fn sport(&self) -> Option<Sport> {
        self.sport_mode().as_deref().and_then(Sport::from_wire)
    }

    /// The typed value of one field of the table.
    pub fn field(&self, field: &Field) -> FieldValue {
        match field.kind {
            Str => self
                .text(field.wire)
                .map_or(FieldValue::Missing, FieldValue::Str),
            Int => match self.raw.get(field.wire) {
                Some(Value::Number(n)) => n
                    .as_i64()
                    .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                    .map_or(FieldValue::Missing, FieldValue::Int),
                Some(Value::String(s)) => s
                    .trim()
                    .parse()
                    .map_or(FieldValue::Missing, FieldValue::Int),
                _ => FieldValue::Missing,
            },
            Bool => match self.raw.get(field.wire) {
                Some(Value::Bool(b)) => FieldValue::Bool(*b),
                Some(Value::String(s)) if s.eq_ignore_ascii_case("true") || s == "1" => {
                    FieldValue::Bool(true)
                }
                Some(Value::String(s)) if s.eq_ignore_ascii_case("false") || s == "0" => {
                    FieldValue::Bool(false)
                }
                Some(Value::Number(n)) => FieldValue::Bool(n.as_f64() != Some(0.0)),
                _ => FieldValue::Missing,
            },
            Series => FieldValue::Series(
                (1..=SERIES_LEN)
                    .map(|i| self.text(&format!("{}{i}", field.wire)))
                    .collect(),
            ),
        }
    }

    /// Custom games, `game1`, `game2`, … in numeric order, each as text properties.
    pub fn games(&self) -> Vec<Vec<(String, String)>> {
        let mut games: Vec<(u32, &Map<String, Value>)> = self
            .raw
            .iter()
            .filter_map(|(k, v)| {
                let n: u32 = k.strip_prefix("game")?.parse().ok()?;
                Some((n, v.as_object()?))
            })
            .collect();
        games.sort_by_key(|(n, _)| *n);
        games
            .into_iter()
            .map(|(_, g)| {
                g.iter()
                    .map(|(k, v)| (k.clone(), as_text(v).unwrap_or_default()))
                    .collect()
            })
            .collect()
    }
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

/// The scoreboard client.
#[derive(Debug, Clone)]
pub struct Scoreboard {
    transport: Arc<Transport>,
}

impl Scoreboard {
    pub fn new(transport: Arc<Transport>) -> Self {
        Scoreboard { transport }
    }
    pub fn transport(&self) -> &Arc<Transport> {
        &self.transport
    }

    /// GET /data/scores.
    pub async fn scores(&self) -> Result<ScoreRecord> {
        let req = Request::get("/data/scores");
        let body = self.transport.send(&req).await?;
        ScoreRecord::from_slice(&body)
            .map_err(|e| Error::decode("GET", &self.transport.url_of(&req), &body, e))
    }
}

/// Polls the score record and yields the first record, then each one that differs from the
/// previous. A failed poll is retried at the next tick; failures that last longer than the
/// client's timeout end the watch with the last error.
pub struct ScoreWatch {
    board: Scoreboard,
    interval: std::time::Duration,
    last: Option<ScoreRecord>,
    next_poll: Option<tokio::time::Instant>,
    failing_since: Option<tokio::time::Instant>,
}

/// Smallest polling interval accepted by the watchers (20 polls a second).
pub const MIN_WATCH_INTERVAL: f64 = 0.05;

/// Validate a watch interval in seconds.
pub fn watch_interval(seconds: f64) -> Result<std::time::Duration> {
    if !seconds.is_finite() || seconds < MIN_WATCH_INTERVAL {
        return Err(Error::invalid(format!(
            "interval: must be a finite number of seconds, at least {MIN_WATCH_INTERVAL}, got {seconds}"
        )));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

impl ScoreWatch {
    pub fn new(board: Scoreboard, interval: std::time::Duration) -> Self {
        ScoreWatch {
            board,
            interval,
            last: None,
            next_poll: None,
            failing_since: None,
        }
    }

    /// The next record that differs from the last one yielded.
    pub async fn next_change(&mut self) -> Result<ScoreRecord> {
        loop {
            if let Some(at) = self.next_poll {
                tokio::time::sleep_until(at).await;
            }
            let started = tokio::time::Instant::now();
            self.next_poll = Some(started + self.interval);
            match self.board.scores().await {
                Ok(record) => {
                    if self.failing_since.take().is_some() {
                        log::info!(
                            "score watch: {} answers again",
                            self.board.transport().base_url()
                        );
                    }
                    if self.last.as_ref() != Some(&record) {
                        self.last = Some(record.clone());
                        return Ok(record);
                    }
                }
                Err(e @ (Error::Closed | Error::InvalidInput(_))) => return Err(e),
                Err(e) => {
                    let since = *self.failing_since.get_or_insert(started);
                    if since.elapsed() >= self.board.transport().timeout() {
                        return Err(e);
                    }
                    log::warn!("score watch: poll failed, retrying at the next tick: {e}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_sport_mode_last_wins() {
        let r = ScoreRecord::from_slice(
            br#"{"uuid":"u","version":"1","sportMode":"Hockey","sportMode":"Basketball","possession":1}"#,
        )
        .unwrap();
        assert_eq!(r.sport(), Some(Sport::Basketball));
        assert_eq!(r.raw().len(), 4);
    }

    #[test]
    fn typed_fields() {
        let r = ScoreRecord::from_slice(
            br#"{"sportMode":"Tennis","currentSet":"2","team1Set1":"6","team1Set2":" ","team1Sets":"1"}"#,
        )
        .unwrap();
        let t = fields_of(Sport::Tennis);
        let get = |a: &str| r.field(t.iter().find(|f| f.attr == a).unwrap());
        assert_eq!(get("current_set"), FieldValue::Int(2));
        assert_eq!(get("team1_sets"), FieldValue::Str("1".into()));
        match get("team1_set_scores") {
            FieldValue::Series(s) => {
                assert_eq!(s.len(), 9);
                assert_eq!(s[0].as_deref(), Some("6"));
                assert_eq!(s[1].as_deref(), Some(" "));
                assert_eq!(s[2], None);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(get("team2_games"), FieldValue::Missing);
    }

    #[test]
    fn attr_names_are_snake_case_of_wire() {
        for sport in Sport::ALL {
            for field in fields_of(sport) {
                let mut snake = String::new();
                for c in field.wire.chars() {
                    if c.is_ascii_uppercase() {
                        snake.push('_');
                        snake.push(c.to_ascii_lowercase());
                    } else {
                        snake.push(c);
                    }
                }
                let expected = match field.kind {
                    Series if field.wire.ends_with("Set") => format!("{snake}_scores"),
                    _ => snake,
                };
                assert_eq!(field.attr, expected, "{sport:?}");
            }
        }
    }

    #[test]
    fn custom_games_in_numeric_order() {
        let r = ScoreRecord::from_slice(
            br#"{"sportMode":"Custom","game10":{"a":"10"},"game2":{"a":"2"},"game1":{"a":"1","n":3}}"#,
        )
        .unwrap();
        let g = r.games();
        assert_eq!(g.len(), 3);
        assert_eq!(g[0][0], ("a".to_string(), "1".to_string()));
        assert_eq!(g[0][1], ("n".to_string(), "3".to_string()));
        assert_eq!(g[2][0].1, "10");
    }

    #[test]
    fn non_object_is_an_error() {
        assert!(ScoreRecord::from_slice(b"[1]").is_err());
        assert!(ScoreRecord::from_slice(b"{\"a\":").is_err());
    }
}
