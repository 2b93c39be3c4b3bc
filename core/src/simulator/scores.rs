//! The scoreboard part of the simulator: its own description of each sport, written from the
//! scoreboard API document (not from the client's models), one record per sport mode (so
//! switching sports keeps each game's score), and the workspace seed on top.

use serde_json::{Map, Value};

use super::workspace::{new_uuid, ScoreboardSeed};

/// What a field holds, per the document's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A string carrying a number or a text.
    Text,
    /// An integer (possession, currentSet).
    Int,
    /// A boolean (the basketball bonus flags).
    Bool,
}

/// One field of a sport's table: `team{n}` stands for `team1` and `team2`; `{i}` for 1 to 9.
struct Field(&'static str, Kind);

const T: Kind = Kind::Text;
const I: Kind = Kind::Int;
const B: Kind = Kind::Bool;

/// The sport modes of the document, in its order, with their fields.
const SPORTS: &[(&str, &[Field])] = &[
    (
        "AustralianFootball",
        &[
            Field("quarter", T),
            Field("team{n}Behinds", T),
            Field("team{n}Goals", T),
            Field("team{n}Name", T),
            Field("team{n}Score", T),
        ],
    ),
    (
        "Baseball",
        &[
            Field("balls", T),
            Field("errors", T),
            Field("hits", T),
            Field("inning", T),
            Field("outs", T),
            Field("period", T),
            Field("runs", T),
            Field("strikes", T),
            Field("possession", I),
            Field("topBottom", T),
            Field("teamOneRuns", T),
            Field("teamOneErrors", T),
            Field("teamOneHits", T),
            Field("teamOneLineScore{i}", T),
            Field("teamTwoRuns", T),
            Field("teamTwoErrors", T),
            Field("teamTwoHits", T),
            Field("teamTwoLineScore{i}", T),
        ],
    ),
    (
        "Basketball",
        &[
            Field("period", T),
            Field("possession", I),
            Field("team{n}Bonus1", B),
            Field("team{n}Bonus2", B),
            Field("team{n}Fouls", T),
            Field("team{n}Score", T),
            Field("team{n}TimeOuts", T),
        ],
    ),
    (
        "Football",
        &[
            Field("ballLocation", T),
            Field("down", T),
            Field("period", T),
            Field("toGo", T),
            Field("possession", I),
            Field("team{n}Score", T),
            Field("team{n}TimeOuts", T),
        ],
    ),
    (
        "Hockey",
        &[
            Field("period", T),
            Field("team{n}Saves", T),
            Field("team{n}Score", T),
            Field("team{n}Shots", T),
            Field("team{n}TimeOuts", T),
        ],
    ),
    (
        "Lacrosse",
        &[
            Field("period", T),
            Field("possession", I),
            Field("team{n}Saves", T),
            Field("team{n}Score", T),
            Field("team{n}Shots", T),
            Field("team{n}TimeOuts", T),
        ],
    ),
    (
        "Soccer",
        &[
            Field("extraTime", T),
            Field("period", T),
            Field("team{n}Corner", T),
            Field("team{n}Saves", T),
            Field("team{n}Score", T),
            Field("team{n}Shots", T),
            Field("team{n}TimeOuts", T),
        ],
    ),
    (
        "Tennis",
        &[
            Field("currentSet", I),
            Field("period", T),
            Field("possession", I),
            Field("team{n}Games", T),
            Field("team{n}Score", T),
            Field("team{n}Sets", T),
            Field("team{n}TimeOuts", T),
            Field("team{n}Set{i}", T),
        ],
    ),
    (
        "Volleyball",
        &[
            Field("currentSet", I),
            Field("period", T),
            Field("possession", I),
            Field("team{n}Games", T),
            Field("team{n}Score", T),
            Field("team{n}TimeOuts", T),
            Field("team{n}Set{i}", T),
        ],
    ),
    ("Custom", &[]),
];

/// The properties of the document's sample Custom game.
const CUSTOM_GAME: &[&str] = &[
    "possession",
    "quarter",
    "team1Goals",
    "team1Name",
    "team1Saves",
    "team1TimeOuts",
    "team2Goals",
    "team2Name",
    "team2Saves",
    "team2TimeOuts",
];

/// Every wire name of a sport with its kind, `team{n}` and `{i}` expanded.
fn fields(sport: &str) -> Vec<(String, Kind)> {
    let table = SPORTS
        .iter()
        .find(|(s, _)| *s == sport)
        .map_or(&[][..], |(_, f)| f);
    let mut out = Vec::new();
    for Field(name, kind) in table {
        let teams: Vec<String> = if name.contains("{n}") {
            ["1", "2"].iter().map(|n| name.replace("{n}", n)).collect()
        } else {
            vec![name.to_string()]
        };
        for t in teams {
            if t.contains("{i}") {
                out.extend((1..=9).map(|i| (t.replace("{i}", &i.to_string()), *kind)));
            } else {
                out.push((t, *kind));
            }
        }
    }
    out
}

/// Starting value of a field: names for the teams, "1" for periods, "0" for counts, and
/// per the document "" for an inning not yet played and " " for a set not played.
fn default_value(name: &str, kind: Kind) -> Value {
    match kind {
        Kind::Int => Value::from(1),
        Kind::Bool => Value::Bool(false),
        Kind::Text => Value::from(match name {
            n if n.contains("LineScore") => "",
            n if n.starts_with("team") && n.contains("Set") && !n.ends_with("Sets") => " ",
            "team1Name" => "Home",
            "team2Name" => "Away",
            "period" | "quarter" | "inning" | "down" => "1",
            "topBottom" => "Top",
            "toGo" => "10",
            "ballLocation" => "50",
            _ => "0",
        }),
    }
}

fn default_record(sport: &str) -> Map<String, Value> {
    let mut rec = Map::new();
    rec.insert("uuid".into(), Value::from(new_uuid()));
    rec.insert("version".into(), Value::from("1"));
    rec.insert("sportMode".into(), Value::from(sport));
    if sport == "Custom" {
        let game: Map<String, Value> = CUSTOM_GAME
            .iter()
            .map(|p| (p.to_string(), default_value(p, Kind::Text)))
            .collect();
        rec.insert("game1".into(), Value::Object(game));
    }
    for (name, kind) in fields(sport) {
        let v = default_value(&name, kind);
        rec.insert(name, v);
    }
    rec
}

fn sport_of(mode: &str) -> Result<usize, String> {
    SPORTS.iter().position(|(s, _)| *s == mode).ok_or_else(|| {
        let all: Vec<&str> = SPORTS.iter().map(|(s, _)| *s).collect();
        format!(
            "sport mode {mode:?} is not one of the document's: {}",
            all.join(", ")
        )
    })
}

#[derive(Debug, Clone)]
pub struct Scores {
    sport: usize,
    /// One record per entry of [`SPORTS`].
    records: Vec<Map<String, Value>>,
    /// Ticks of play so far in each sport ([`Scores::tick`]) (per sport, as the records).
    ticks: Vec<u64>,
}

impl Scores {
    pub fn new(seed: &ScoreboardSeed) -> Result<Self, String> {
        let sport = sport_of(&seed.sport).map_err(|e| format!("at scoreboard.sport: {e}"))?;
        let mut records: Vec<Map<String, Value>> =
            SPORTS.iter().map(|(s, _)| default_record(s)).collect();
        for (mode, fields) in &seed.records {
            let s = sport_of(mode).map_err(|e| format!("at scoreboard.records.{mode}: {e}"))?;
            let Value::Object(fields) = fields else {
                return Err(format!(
                    "at scoreboard.records.{mode}: expected an object of fields"
                ));
            };
            if fields.contains_key("sportMode") {
                return Err(format!(
                    "at scoreboard.records.{mode}.sportMode: the sport mode comes from the key"
                ));
            }
            records[s].extend(fields.clone());
        }
        Ok(Scores {
            sport,
            records,
            ticks: vec![0; SPORTS.len()],
        })
    }

    /// The record of the active sport, as GET /data/scores answers it.
    pub fn current(&self) -> &Map<String, Value> {
        &self.records[self.sport]
    }

    /// Switch the active sport (its record keeps the values it had).
    pub fn set_sport(&mut self, mode: &str) -> Result<(), String> {
        self.sport = sport_of(mode)?;
        Ok(())
    }

    /// Set a field of the active record; `game1.team1Goals` reaches into a Custom game. The
    /// field must be one of the sport's (or already in the record); the value must suit it:
    /// an integer for `possession` and `currentSet`, a boolean for the bonus flags, text or a
    /// finite number (sent as text, as the application does) elsewhere.
    pub fn set_field(&mut self, field: &str, value: Value) -> Result<(), String> {
        let sport = SPORTS[self.sport].0;
        if field == "sportMode" {
            return Err("field: use set_sport() to change the sport mode".into());
        }
        let rec = &mut self.records[self.sport];
        if let Some((game, key)) = field.split_once('.') {
            if sport != "Custom" || !is_game(game) || key.is_empty() || key.contains('.') {
                return Err(format!(
                    "field: {field:?} is not a field of the {sport} record (GAME.NAME, such \
                     as game1.team1Goals, is for a Custom game)"
                ));
            }
            let value = text_value(field, value)?;
            let slot = rec
                .entry(game.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            match slot {
                Value::Object(obj) => {
                    obj.insert(key.into(), value);
                    return Ok(());
                }
                _ => {
                    return Err(format!(
                        "field: {game:?} is not a game object of the record"
                    ))
                }
            }
        }
        let kind = fields(sport)
            .into_iter()
            .find(|(n, _)| n == field)
            .map(|(_, k)| k);
        let kind = match kind {
            Some(k) => k,
            None if field != "uuid" && field != "version" && !rec.contains_key(field) => {
                let known: Vec<String> = fields(sport).into_iter().map(|(n, _)| n).collect();
                return Err(format!(
                    "field: {field:?} is not a field of the {sport} record (fields: {})",
                    if known.is_empty() {
                        "GAME.NAME such as game1.team1Goals".into()
                    } else {
                        known.join(", ")
                    }
                ));
            }
            None => Kind::Text,
        };
        let value = match kind {
            Kind::Text => text_value(field, value)?,
            Kind::Int => match value {
                Value::Number(n) if n.is_i64() || n.is_u64() => Value::Number(n),
                other => {
                    return Err(format!(
                        "value: {field} holds an integer, got {}",
                        describe(&other)
                    ))
                }
            },
            Kind::Bool => match value {
                Value::Bool(b) => Value::Bool(b),
                other => {
                    return Err(format!(
                        "value: {field} holds true or false, got {}",
                        describe(&other)
                    ))
                }
            },
        };
        rec.insert(field.into(), value);
        Ok(())
    }
}

/// Every this many ticks of play a period ends (see [`Scores::tick`]).
pub const PERIOD_TICKS: u64 = 5;

/// Periods in a game of each sport (half-innings for Baseball are counted in innings, sets
/// for Tennis and Volleyball); after the last one a new game starts.
fn periods(sport: &str) -> i64 {
    match sport {
        "Baseball" => 9,
        "Hockey" | "Tennis" => 3,
        "Soccer" => 2,
        "Volleyball" => 5,
        _ => 4,
    }
}

/// What one score is worth per sport where it varies (the others score one at a time).
fn points(sport: &str) -> &'static [i64] {
    match sport {
        "Basketball" => &[2, 2, 1, 3],
        "Football" => &[7, 3, 7, 2],
        _ => &[1],
    }
}

/// A number kept as text (0 when empty or not a number).
fn count_of(rec: &Map<String, Value>, field: &str) -> i64 {
    match rec.get(field) {
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
        Some(Value::Number(n)) => n.as_i64().unwrap_or(0),
        _ => 0,
    }
}

fn put(rec: &mut Map<String, Value>, field: &str, n: i64) {
    rec.insert(field.to_string(), Value::String(n.to_string()));
}

fn bump(rec: &mut Map<String, Value>, field: &str, by: i64) -> i64 {
    let n = count_of(rec, field) + by;
    put(rec, field, n);
    n
}

/// A well-mixed number from the tick's count (splitmix64): which team scores and how, the
/// same sequence in every run.
fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Scores {
    /// One tick of play in the active sport (`score_tick`): one team scores, and every
    /// [`PERIOD_TICKS`]th tick the period ends (the quarter in AustralianFootball and a
    /// Custom game, the half-inning in Baseball, the set in Tennis and Volleyball). After the
    /// last period of a game a new one starts: period 1, scores 0, the team names kept.
    pub fn tick(&mut self) {
        self.ticks[self.sport] += 1;
        let played = self.ticks[self.sport];
        let r = mix(played);
        let team = 1 + (r & 1) as i64;
        let sport = SPORTS[self.sport].0;
        let rec = &mut self.records[self.sport];
        match sport {
            "AustralianFootball" => {
                let kind = if (r >> 8) % 3 == 0 {
                    "Goals"
                } else {
                    "Behinds"
                };
                bump(rec, &format!("team{team}{kind}"), 1);
                let total = 6 * count_of(rec, &format!("team{team}Goals"))
                    + count_of(rec, &format!("team{team}Behinds"));
                put(rec, &format!("team{team}Score"), total);
            }
            "Baseball" => {
                let side = if is_bottom(rec) { "Two" } else { "One" };
                let inning = count_of(rec, "inning").clamp(1, 9);
                bump(rec, &format!("team{side}Runs"), 1);
                bump(rec, &format!("team{side}Hits"), 1);
                bump(rec, &format!("team{side}LineScore{inning}"), 1);
            }
            "Tennis" => {
                let set = current_set(rec);
                let games = bump(rec, &format!("team{team}Games"), 1);
                put(rec, &format!("team{team}Set{set}"), games);
            }
            "Custom" => {
                if let Some(Value::Object(game)) = rec.get_mut("game1") {
                    bump(game, &format!("team{team}Goals"), 1);
                }
            }
            _ => {
                let worth = points(sport);
                let by = worth[((r >> 8) % worth.len() as u64) as usize];
                bump(rec, &format!("team{team}Score"), by);
                if sport != "Volleyball" && rec.contains_key("possession") {
                    rec.insert("possession".into(), Value::from(3 - team));
                }
            }
        }
        if played % PERIOD_TICKS == 0 {
            self.end_period();
        }
    }

    /// The period of the active sport ends: the next one starts, or after the last a new game.
    fn end_period(&mut self) {
        let sport = SPORTS[self.sport].0;
        let last = periods(sport);
        let rec = &mut self.records[self.sport];
        let next = match sport {
            "AustralianFootball" => bump(rec, "quarter", 1),
            "Custom" => match rec.get_mut("game1") {
                Some(Value::Object(game)) => bump(game, "quarter", 1),
                _ => return,
            },
            "Baseball" => {
                let inning = count_of(rec, "inning").clamp(1, 9);
                let side = if is_bottom(rec) { "Two" } else { "One" };
                let line = format!("team{side}LineScore{inning}");
                if count_of(rec, &line) == 0 {
                    put(rec, &line, 0);
                }
                for f in ["balls", "strikes", "outs"] {
                    put(rec, f, 0);
                }
                if !is_bottom(rec) {
                    rec.insert("topBottom".into(), Value::from("Bottom"));
                    return;
                }
                rec.insert("topBottom".into(), Value::from("Top"));
                put(rec, "period", inning + 1);
                bump(rec, "inning", 1)
            }
            "Tennis" | "Volleyball" => {
                let set = current_set(rec);
                // Tennis counts games in a set and sets won; Volleyball points and sets won.
                let (unit, won) = if sport == "Tennis" {
                    ("Games", "Sets")
                } else {
                    ("Score", "Games")
                };
                let [a, b] = [1, 2].map(|t| count_of(rec, &format!("team{t}{unit}")));
                for (t, n) in [(1, a), (2, b)] {
                    put(rec, &format!("team{t}Set{set}"), n);
                    put(rec, &format!("team{t}{unit}"), 0);
                }
                if a != b {
                    bump(rec, &format!("team{}{won}", if a > b { 1 } else { 2 }), 1);
                }
                rec.insert("currentSet".into(), Value::from(set + 1));
                put(rec, "period", set + 1);
                set + 1
            }
            _ => bump(rec, "period", 1),
        };
        if next > last {
            self.new_game();
        }
    }

    /// A new game of the active sport: every field as at the start but the names and the
    /// record's UUID.
    fn new_game(&mut self) {
        let sport = SPORTS[self.sport].0;
        let rec = &mut self.records[self.sport];
        for (key, fresh) in default_record(sport) {
            if key == "uuid" || key.ends_with("Name") {
                continue;
            }
            if let (Some(Value::Object(game)), Value::Object(fresh)) = (rec.get_mut(&key), &fresh) {
                for (k, v) in fresh.iter().filter(|(k, _)| !k.ends_with("Name")) {
                    game.insert(k.clone(), v.clone());
                }
                continue;
            }
            rec.insert(key, fresh);
        }
    }
}

fn is_bottom(rec: &Map<String, Value>) -> bool {
    rec.get("topBottom").and_then(Value::as_str) == Some("Bottom")
}

/// The set being played (1 to 9).
fn current_set(rec: &Map<String, Value>) -> i64 {
    rec.get("currentSet")
        .and_then(Value::as_i64)
        .unwrap_or(1)
        .clamp(1, 9)
}

fn is_game(key: &str) -> bool {
    key.strip_prefix("game")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::String(s) => format!("the text {s:?}"),
        other => other.to_string(),
    }
}

/// A text field takes text, or a finite number that is sent as text.
fn text_value(field: &str, value: Value) -> Result<Value, String> {
    match value {
        Value::String(s) => Ok(Value::String(s)),
        Value::Number(n) => Ok(Value::String(n.to_string())),
        other => Err(format!(
            "value: {field} holds text (or a number sent as text), got {}",
            describe(&other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sport_has_the_documents_fields() {
        let s = Scores::new(&ScoreboardSeed::default()).unwrap();
        // Field counts straight from the document's tables (teams and 1..9 expanded).
        let expected = [
            ("AustralianFootball", 9),
            ("Baseball", 10 + 2 * (3 + 9)),
            ("Basketball", 2 + 2 * 5),
            ("Football", 5 + 2 * 2),
            ("Hockey", 1 + 2 * 4),
            ("Lacrosse", 2 + 2 * 4),
            ("Soccer", 2 + 2 * 5),
            ("Tennis", 3 + 2 * (4 + 9)),
            ("Volleyball", 3 + 2 * (3 + 9)),
            ("Custom", 1),
        ];
        for (i, (sport, n)) in expected.iter().enumerate() {
            let rec = &s.records[i];
            assert_eq!(rec["sportMode"], *sport);
            assert_eq!(rec.len(), 3 + n, "{sport}: {:?}", rec.keys());
        }
        assert_eq!(s.records[1]["teamOneLineScore9"], "");
        assert_eq!(s.records[7]["team2Set9"], " ");
        assert_eq!(s.records[7]["team2Sets"], "0");
        assert_eq!(s.records[2]["team1Bonus2"], false);
        assert_eq!(s.records[9]["game1"]["team2Name"], "Away");
    }

    #[test]
    fn records_persist_per_sport() {
        let mut s = Scores::new(&ScoreboardSeed::default()).unwrap();
        s.set_field("team1Score", Value::from(7)).unwrap();
        s.set_field("possession", Value::from(2)).unwrap();
        assert_eq!(s.current()["possession"], 2);
        assert_eq!(s.current()["team1Score"], "7");
        s.set_sport("Hockey").unwrap();
        assert_eq!(s.current()["team1Score"], "0");
        s.set_sport("Basketball").unwrap();
        assert_eq!(s.current()["team1Score"], "7");
        assert!(s.set_sport("Curling").unwrap_err().contains("Basketball"));
        assert!(s.set_field("sportMode", Value::from("x")).is_err());
    }

    #[test]
    fn values_must_suit_the_field() {
        let mut s = Scores::new(&ScoreboardSeed::default()).unwrap();
        for bad in [
            Value::Null,
            Value::from("abc"),
            Value::from(1.5),
            Value::Bool(true),
        ] {
            let err = s.set_field("possession", bad).unwrap_err();
            assert!(err.contains("possession"), "{err}");
        }
        let err = s.set_field("team1Score", Value::Null).unwrap_err();
        assert!(err.contains("team1Score") && err.contains("None"), "{err}");
        let err = s.set_field("team1Bonus1", Value::from("yes")).unwrap_err();
        assert!(err.contains("team1Bonus1"), "{err}");
        let err = s.set_field("team3Score", Value::from("1")).unwrap_err();
        assert!(
            err.contains("team3Score") && err.contains("team2Score"),
            "{err}"
        );
        let err = s
            .set_field("game1.team1Goals", Value::from("1"))
            .unwrap_err();
        assert!(err.contains("Custom"), "{err}");
    }

    /// The period-like field of a record (as a reader of each sport follows it).
    fn period_of(rec: &Map<String, Value>) -> String {
        let v = match rec["sportMode"].as_str().unwrap() {
            "AustralianFootball" => &rec["quarter"],
            "Baseball" => &rec["inning"],
            "Custom" => &rec["game1"]["quarter"],
            _ => &rec["period"],
        };
        v.as_str().unwrap().to_string()
    }

    /// Both teams' score as a reader sums it (runs in Baseball, games in Tennis, goals in a
    /// Custom game).
    fn total_of(rec: &Map<String, Value>) -> i64 {
        let (a, b) = match rec["sportMode"].as_str().unwrap() {
            "Baseball" => ("teamOneRuns", "teamTwoRuns"),
            "Tennis" => ("team1Games", "team2Games"),
            "Custom" => {
                return count_of(rec["game1"].as_object().unwrap(), "team1Goals")
                    + count_of(rec["game1"].as_object().unwrap(), "team2Goals")
            }
            _ => ("team1Score", "team2Score"),
        };
        count_of(rec, a) + count_of(rec, b)
    }

    #[test]
    fn the_tick_plays_every_sport_through_its_periods_and_starts_a_new_game() {
        for (sport, _) in SPORTS {
            let mut s = Scores::new(&ScoreboardSeed::default()).unwrap();
            s.set_sport(sport).unwrap();
            let names = s
                .current()
                .get("game1")
                .and_then(|g| g.get("team1Name"))
                .cloned();
            assert_eq!(period_of(s.current()), "1", "{sport}");
            let last = periods(sport);
            // Baseball's period is the half-inning: two per inning.
            let per_period = if *sport == "Baseball" { 2 } else { 1 };
            for period in 1..=last {
                let before = total_of(s.current());
                for _ in 0..PERIOD_TICKS * per_period - 1 {
                    s.tick();
                }
                assert_eq!(period_of(s.current()), period.to_string(), "{sport}");
                if !matches!(*sport, "Tennis" | "Volleyball") {
                    assert!(total_of(s.current()) > before, "{sport} did not score");
                }
                s.tick();
                if period < last {
                    assert_eq!(period_of(s.current()), (period + 1).to_string(), "{sport}");
                }
            }
            // After the last period: a new game, the names kept.
            let rec = s.current();
            assert_eq!(period_of(rec), "1", "{sport}: {rec:?}");
            assert_eq!(total_of(rec), 0, "{sport}: {rec:?}");
            let kept = rec.get("game1").and_then(|g| g.get("team1Name")).cloned();
            assert_eq!(kept, names, "{sport}");
        }
    }

    #[test]
    fn the_tick_keeps_each_sports_own_bookkeeping() {
        let mut s = Scores::new(&ScoreboardSeed::default()).unwrap();
        s.set_sport("Baseball").unwrap();
        for _ in 0..PERIOD_TICKS {
            s.tick();
        }
        // The top of the first inning is over: team one's line score holds its runs.
        assert_eq!(s.current()["topBottom"], "Bottom");
        assert_eq!(s.current()["teamOneLineScore1"], "5");
        assert_eq!(s.current()["teamOneRuns"], "5");
        assert_eq!(s.current()["teamTwoLineScore1"], "");
        s.set_sport("AustralianFootball").unwrap();
        for _ in 0..7 {
            s.tick();
        }
        for t in [1, 2] {
            let rec = s.current();
            let expect = 6 * count_of(rec, &format!("team{t}Goals"))
                + count_of(rec, &format!("team{t}Behinds"));
            assert_eq!(count_of(rec, &format!("team{t}Score")), expect);
        }
        assert_eq!(s.current()["team1Name"], "Home");
        s.set_sport("Volleyball").unwrap();
        for _ in 0..PERIOD_TICKS {
            s.tick();
        }
        let rec = s.current();
        assert_eq!(rec["currentSet"], 2);
        assert_eq!(rec["period"], "2");
        assert_eq!(
            count_of(rec, "team1Set1") + count_of(rec, "team2Set1"),
            PERIOD_TICKS as i64
        );
        assert_eq!(count_of(rec, "team1Games") + count_of(rec, "team2Games"), 1);
        assert_eq!(rec["team1Score"], "0");
    }

    #[test]
    fn custom_game_fields() {
        let mut s = Scores::new(&ScoreboardSeed::default()).unwrap();
        s.set_sport("Custom").unwrap();
        s.set_field("game2.team1Goals", Value::from(3)).unwrap();
        assert_eq!(s.current()["game2"]["team1Goals"], "3");
        assert!(s.set_field("game2.team1Goals", Value::Null).is_err());
        assert!(s.set_field(".x", Value::from("1")).is_err());
        assert!(s.set_field("team1Score", Value::from("1")).is_err());
    }
}
