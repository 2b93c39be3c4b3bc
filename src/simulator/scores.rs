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
        Ok(Scores { sport, records })
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
