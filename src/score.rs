//! The scoreboard application: the score record model and its client.
//!
//! A record is kept as the JSON object the application sent (so `to_dict()` returns exactly
//! that, unknown fields included, duplicate keys resolved last-wins as Python's `json` does);
//! the typed view of each sport comes from [`fields_of`], one table per sport mode of the
//! API document.

use std::sync::Arc;

use serde_json::{Map, Value};

use std::future::Future;

use crate::endpoint::{endpoint_consts, get, Call, Client, Endpoint};
use crate::error::{Error, Result};
use crate::transport::Transport;

pub mod events;
pub mod view;

pub use events::{score_changes, ScoreEvent, ScoreEventKind, ScoreEventWatch};
pub use view::{Fields, ScoreView, Team, Val};

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

    /// A record from a JSON value: an object nested at most
    /// [`MAX_DEPTH`](crate::json::MAX_DEPTH) deep.
    pub fn from_value(value: Value) -> std::result::Result<Self, String> {
        crate::json::check_depth(&value)?;
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
        self.game_objects()
            .into_iter()
            .map(|(_, g)| {
                g.iter()
                    .map(|(k, v)| (k.clone(), as_text(v).unwrap_or_default()))
                    .collect()
            })
            .collect()
    }
}

/// A scoreboard-like view of a record (or of one Custom game): one row per team, one column
/// per team field, plus the fields of the game itself (period, possession, …) as notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    /// The sport mode, and `game N` for a Custom game.
    pub title: String,
    /// Fields that belong to no team, as (wire name, text), in table order.
    pub notes: Vec<(String, String)>,
    /// Column headings: numbered series first (innings, sets), then the team fields.
    pub columns: Vec<String>,
    /// One row per team: its label (the team's name field when sent) and one cell per column.
    pub rows: Vec<(String, Vec<String>)>,
}

/// Cells of one column, for team 1 and team 2 (None: not sent).
struct Column {
    key: String,
    label: String,
    series: bool,
    cells: [Option<String>; 2],
}

/// Split `team1Score` / `teamTwoRuns` into (team index, rest of the name).
fn team_of(wire: &str) -> Option<(usize, &str)> {
    let rest = wire.strip_prefix("team")?;
    for (prefix, team) in [("1", 0), ("2", 1), ("One", 0), ("Two", 1)] {
        if let Some(name) = rest.strip_prefix(prefix) {
            if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                return Some((team, name));
            }
        }
    }
    None
}

/// `TimeOuts` -> `Time Outs`.
fn words(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.char_indices() {
        if i > 0 && c.is_ascii_uppercase() {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

impl Board {
    fn build(title: String, entries: Vec<(String, Option<String>, Option<usize>)>) -> Board {
        let mut notes = Vec::new();
        let mut columns: Vec<Column> = Vec::new();
        for (wire, value, series_index) in entries {
            let Some((team, rest)) = team_of(&wire) else {
                if let Some(v) = value {
                    notes.push((wire, v));
                }
                continue;
            };
            let (key, label) = match series_index {
                Some(i) => (format!("{rest}#{i}"), i.to_string()),
                None => (rest.to_string(), words(rest)),
            };
            let pos = match columns.iter().position(|c| c.key == key) {
                Some(p) => p,
                None => {
                    columns.push(Column {
                        key,
                        label,
                        series: series_index.is_some(),
                        cells: [None, None],
                    });
                    columns.len() - 1
                }
            };
            columns[pos].cells[team] = value;
        }
        columns.retain(|c| c.cells.iter().any(Option::is_some));
        let mut names = [None, None];
        if let Some(p) = columns.iter().position(|c| c.key == "Name") {
            names = columns.remove(p).cells;
        }
        columns.sort_by_key(|c| !c.series); // stable: series first, table order kept
        let rows = (0..2)
            .map(|team| {
                let label = names[team]
                    .clone()
                    .filter(|n| !n.trim().is_empty())
                    .unwrap_or_else(|| format!("Team {}", team + 1));
                let cells = columns
                    .iter()
                    .map(|c| c.cells[team].clone().unwrap_or_default())
                    .collect();
                (label, cells)
            })
            .collect();
        Board {
            title,
            notes,
            columns: columns.into_iter().map(|c| c.label).collect(),
            rows,
        }
    }
}

impl ScoreRecord {
    /// The record as boards: one for a known sport, one per game for Custom, none for an
    /// unknown sport (it has no team fields to lay out).
    pub fn boards(&self) -> Vec<Board> {
        match self.sport() {
            None => Vec::new(),
            Some(Sport::Custom) => self
                .games()
                .into_iter()
                .enumerate()
                .map(|(i, game)| {
                    let entries = game.into_iter().map(|(k, v)| (k, Some(v), None)).collect();
                    Board::build(format!("Custom game {}", i + 1), entries)
                })
                .collect(),
            Some(sport) => {
                let mut entries = Vec::new();
                for field in fields_of(sport) {
                    match self.field(field) {
                        FieldValue::Series(items) => {
                            for (i, v) in items.into_iter().enumerate() {
                                entries.push((format!("{}{}", field.wire, i + 1), v, Some(i + 1)));
                            }
                        }
                        v => entries.push((field.wire.to_string(), v.as_text(), None)),
                    }
                }
                vec![Board::build(sport.wire_name().to_string(), entries)]
            }
        }
    }
}

impl FieldValue {
    /// A scalar value as text (a true flag is "●", a false one "○", so a table shows both);
    /// None when missing.
    pub fn as_text(&self) -> Option<String> {
        match self {
            FieldValue::Missing | FieldValue::Series(_) => None,
            FieldValue::Str(s) => Some(s.clone()),
            FieldValue::Int(i) => Some(i.to_string()),
            FieldValue::Bool(b) => Some(if *b { "●" } else { "○" }.to_string()),
        }
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
        self.call(ops::workspace::scores()?).await
    }

    /// Send a call of the operation table and decode its reply.
    pub async fn call<T>(&self, call: Call<T>) -> Result<T> {
        let body = self.transport.send(&call.request).await?;
        (call.decode)(&body).map_err(|e| self.transport.decode_error(&call.request, &body, e))
    }
}

impl Client for Scoreboard {
    fn run<T: Send + 'static>(&self, call: Call<T>) -> impl Future<Output = Result<T>> + Send {
        self.call(call)
    }
}

/// The operations of the scoreboard API, in the grammar of the media table
/// (`crate::media::table`): its consumers are the same.
macro_rules! score_ops {
    ($callback:ident ! { $($pass:tt)* }) => {
        $callback! {
            { $($pass)* }

            workspace_reads {
                /// GET /data/scores: the score record of the active game (of the class of its
                /// sport).
                scores / scores_async []() -> ScoreRecord {
                    SCORES: Endpoint<(), ScoreRecord> = get("/data/scores", ScoreRecord::from_slice);
                }
            }
            layer_reads {}
            workspace_commands {}
            layer_commands {}
            both_commands {}
        }
    };
}

#[allow(unused_imports)] // used by the binding
pub(crate) use score_ops;

score_ops!(endpoint_consts! {});

/// The core builders of the scoreboard's operations.
pub mod ops {
    use super::*;
    use crate::endpoint::builders;
    #[allow(unused_imports)]
    use crate::ident::Ident;

    score_ops!(builders! {});
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

    use crate::transport::test_server::{start, Reply};
    use crate::transport::Config;
    use std::time::{Duration, Instant};

    fn board(url: &str, timeout_ms: u64) -> Scoreboard {
        let mut c = Config::new(url);
        c.timeout = Duration::from_millis(timeout_ms);
        c.retries = 0;
        Scoreboard::new(Arc::new(Transport::new(&c).unwrap()))
    }

    #[test]
    fn baseball_board_puts_innings_first_and_keeps_unplayed_ones_blank() {
        let r = ScoreRecord::from_slice(
            br#"{"sportMode":"Baseball","inning":"3","possession":2,"teamOneRuns":"2",
                "teamOneHits":"5","teamOneErrors":"0","teamOneLineScore1":"1",
                "teamOneLineScore2":"1","teamOneLineScore3":"","teamTwoRuns":"0",
                "teamTwoLineScore1":"0","teamTwoLineScore2":"0","teamTwoLineScore3":""}"#,
        )
        .unwrap();
        let boards = r.boards();
        assert_eq!(boards.len(), 1);
        let b = &boards[0];
        assert_eq!(b.title, "Baseball");
        assert_eq!(b.columns, ["1", "2", "3", "Runs", "Errors", "Hits"]);
        assert_eq!(b.rows[0].0, "Team 1");
        assert_eq!(b.rows[0].1, ["1", "1", "", "2", "0", "5"]);
        assert_eq!(b.rows[1].1, ["0", "0", "", "0", "", ""]);
        assert_eq!(
            b.notes,
            [
                ("inning".to_string(), "3".to_string()),
                ("possession".to_string(), "2".to_string())
            ]
        );
    }

    #[test]
    fn team_names_label_the_rows_and_flags_show_as_marks() {
        let r = ScoreRecord::from_slice(
            br#"{"sportMode":"AustralianFootball","team1Name":"Hawks","team1Goals":"3",
                "team2Name":" ","team2Goals":"1"}"#,
        )
        .unwrap();
        let b = &r.boards()[0];
        assert_eq!(b.columns, ["Goals"]);
        assert_eq!(b.rows[0].0, "Hawks");
        assert_eq!(b.rows[1].0, "Team 2");
        let r = ScoreRecord::from_slice(
            br#"{"sportMode":"Basketball","team1Bonus1":true,"team2Bonus1":false,"team1TimeOuts":"2"}"#,
        )
        .unwrap();
        let b = &r.boards()[0];
        assert_eq!(b.columns, ["Bonus1", "Time Outs"]);
        assert_eq!(b.rows[0].1, ["●", "2"]);
        // A false flag shows as a mark of its own; a field not sent stays empty.
        assert_eq!(b.rows[1].1, ["○", ""]);
    }

    #[test]
    fn custom_gives_one_board_per_game_and_unknown_none() {
        let r = ScoreRecord::from_slice(
            br#"{"sportMode":"Custom","game1":{"quarter":"1","team1Name":"A","team1Goals":"2",
                "team2Name":"B","team2Goals":"0"},"game2":{"team1Saves":"4"}}"#,
        )
        .unwrap();
        let boards = r.boards();
        assert_eq!(boards.len(), 2);
        assert_eq!(boards[0].title, "Custom game 1");
        assert_eq!(boards[0].columns, ["Goals"]);
        assert_eq!(boards[0].rows[1], ("B".to_string(), vec!["0".to_string()]));
        assert_eq!(boards[0].notes, [("quarter".to_string(), "1".to_string())]);
        assert_eq!(boards[1].columns, ["Saves"]);
        let unknown = ScoreRecord::from_slice(br#"{"sportMode":"Curling","team1Score":"1"}"#);
        assert!(unknown.unwrap().boards().is_empty());
    }

    #[tokio::test]
    async fn scores_decodes_the_body() {
        let server = start(vec![Reply::Status(
            200,
            r#"{"uuid":"u","version":"1","sportMode":"Hockey","team1Shots":"12"}"#,
        )])
        .await;
        let r = board(&server.url, 2000).scores().await.unwrap();
        assert_eq!(r.sport(), Some(Sport::Hockey));
        assert_eq!(r.uuid().as_deref(), Some("u"));
        assert_eq!(server.seen()[0].target, "/api/0/data/scores");
    }

    #[tokio::test]
    async fn scores_reports_garbage_as_a_decode_error() {
        for body in ["", "not json", r#"{"uuid":"#, "[1,2]"] {
            let server = start(vec![Reply::Status(200, body)]).await;
            let err = board(&server.url, 2000).scores().await.unwrap_err();
            match &err {
                Error::Decode {
                    method,
                    url,
                    body: b,
                    ..
                } => {
                    assert_eq!(method, "GET");
                    assert!(url.ends_with("/api/0/data/scores"));
                    assert_eq!(b, body);
                }
                other => panic!("{body:?}: {other:?}"),
            }
        }
    }

    const A: &str = r#"{"sportMode":"Hockey","team1Score":"0"}"#;
    const B: &str = r#"{"sportMode":"Hockey","team1Score":"1"}"#;
    const C: &str = r#"{"sportMode":"Hockey","team1Score":"2"}"#;

    #[tokio::test]
    async fn watch_yields_changes_only_and_survives_a_transient_failure() {
        let server = start(vec![
            Reply::Status(200, A),
            Reply::Status(200, A),
            Reply::Status(200, B),
            Reply::Status(503, ""),
            Reply::Status(200, B),
            Reply::Status(200, C),
        ])
        .await;
        let mut w = ScoreWatch::new(board(&server.url, 2000), Duration::from_millis(50));
        for expected in [A, B, C] {
            let got = w.next_change().await.unwrap();
            assert_eq!(got, ScoreRecord::from_slice(expected.as_bytes()).unwrap());
        }
        assert_eq!(server.seen().len(), 6);
    }

    #[tokio::test]
    async fn watch_ends_when_failures_outlast_the_timeout() {
        let server = start(vec![Reply::Status(200, A), Reply::Status(500, "down")]).await;
        let mut w = ScoreWatch::new(board(&server.url, 300), Duration::from_millis(50));
        w.next_change().await.unwrap();
        let started = Instant::now();
        let err = w.next_change().await.unwrap_err();
        let took = started.elapsed();
        assert_eq!(err.status(), Some(500));
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < Duration::from_millis(1500), "{took:?}");
        assert!(server.seen().len() >= 4);
    }

    #[tokio::test]
    async fn watch_stops_at_once_on_a_closed_client() {
        let server = start(vec![Reply::Status(200, A)]).await;
        let b = board(&server.url, 2000);
        let mut w = ScoreWatch::new(b.clone(), Duration::from_millis(50));
        w.next_change().await.unwrap();
        b.transport().close();
        assert!(matches!(w.next_change().await, Err(Error::Closed)));
    }

    #[test]
    fn watch_interval_bounds() {
        assert!(watch_interval(0.05).is_ok());
        for bad in [0.0, 0.01, -1.0, f64::NAN, f64::INFINITY] {
            let e = watch_interval(bad).unwrap_err().to_string();
            assert!(e.starts_with("interval:"), "{e}");
        }
    }
}
