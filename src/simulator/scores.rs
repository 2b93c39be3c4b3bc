//! The scoreboard part of the simulator: one record per sport mode (so switching sports keeps
//! each game's score), built from the field tables of `crate::score` and the workspace seed.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::score::{fields_of, FieldKind, Sport, SERIES_LEN};

use super::workspace::ScoreboardSeed;

#[derive(Debug, Clone)]
pub struct Scores {
    sport: Sport,
    records: HashMap<Sport, Map<String, Value>>,
}

fn sport_of(mode: &str) -> Result<Sport, String> {
    Sport::from_wire(mode).ok_or_else(|| {
        let all: Vec<&str> = Sport::ALL.iter().map(|s| s.wire_name()).collect();
        format!(
            "sport mode {mode:?} is not one of the document's: {}",
            all.join(", ")
        )
    })
}

/// Starting value of a field: names for the teams, "1" for periods, "0" for counts.
fn default_value(wire: &str, kind: FieldKind, sport: Sport) -> Vec<(String, Value)> {
    let text = |s: &str| Value::String(s.into());
    match kind {
        FieldKind::Int => vec![(wire.into(), Value::from(1))],
        FieldKind::Bool => vec![(wire.into(), Value::Bool(false))],
        FieldKind::Series => {
            // An inning not yet played is "", a set not played is " " (per the document).
            let blank = if sport == Sport::Baseball { "" } else { " " };
            (1..=SERIES_LEN)
                .map(|i| (format!("{wire}{i}"), text(blank)))
                .collect()
        }
        FieldKind::Str => {
            let v = match wire {
                "team1Name" => "Home",
                "team2Name" => "Away",
                "period" | "quarter" | "inning" | "down" => "1",
                "topBottom" => "Top",
                "toGo" => "10",
                "ballLocation" => "50",
                _ => "0",
            };
            vec![(wire.into(), text(v))]
        }
    }
}

fn default_record(sport: Sport) -> Map<String, Value> {
    let mut rec = Map::new();
    let id: u64 = rand::random();
    rec.insert(
        "uuid".into(),
        Value::String(format!(
            "{:08X}-0000-4000-8000-{:012X}",
            sport as u32,
            id & 0xFFFF_FFFF_FFFF
        )),
    );
    rec.insert("version".into(), Value::String("1".into()));
    rec.insert("sportMode".into(), Value::String(sport.wire_name().into()));
    for f in fields_of(sport) {
        rec.extend(default_value(f.wire, f.kind, sport));
    }
    rec
}

impl Scores {
    pub fn new(seed: &ScoreboardSeed) -> Result<Self, String> {
        let sport = sport_of(&seed.sport).map_err(|e| format!("scoreboard.sport: {e}"))?;
        let mut records: HashMap<Sport, Map<String, Value>> =
            Sport::ALL.iter().map(|&s| (s, default_record(s))).collect();
        for (mode, fields) in &seed.records {
            let s = sport_of(mode).map_err(|e| format!("scoreboard.records: {e}"))?;
            let Value::Object(fields) = fields else {
                return Err(format!(
                    "scoreboard.records.{mode}: must be an object of fields"
                ));
            };
            if fields.contains_key("sportMode") {
                return Err(format!(
                    "scoreboard.records.{mode}: sportMode comes from the key"
                ));
            }
            let rec = records.get_mut(&s).expect("every sport has a record");
            rec.extend(fields.clone());
        }
        Ok(Scores { sport, records })
    }

    /// The record of the active sport, as GET /data/scores answers it.
    pub fn current(&self) -> &Map<String, Value> {
        &self.records[&self.sport]
    }

    /// Switch the active sport (its record keeps the values it had).
    pub fn set_sport(&mut self, mode: &str) -> Result<(), String> {
        self.sport = sport_of(mode)?;
        Ok(())
    }

    /// Set a field of the active record; `game1.team1Goals` reaches into a Custom game.
    pub fn set_field(&mut self, field: &str, value: Value) -> Result<(), String> {
        if field.is_empty() {
            return Err("field: must not be empty".into());
        }
        if field == "sportMode" {
            return Err("field: use set_sport() to change the sport mode".into());
        }
        // The application sends numbers as text in its string fields (all but a few typed
        // ones, and every property of a Custom game).
        let typed = fields_of(self.sport)
            .iter()
            .any(|f| f.wire == field && matches!(f.kind, FieldKind::Int | FieldKind::Bool));
        let value = match value {
            Value::Number(n) if !typed => Value::String(n.to_string()),
            other => other,
        };
        let rec = self
            .records
            .get_mut(&self.sport)
            .expect("every sport has a record");
        match field.split_once('.') {
            None => {
                rec.insert(field.into(), value);
            }
            Some((game, key)) if !game.is_empty() && !key.is_empty() => {
                let slot = rec
                    .entry(game.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                match slot {
                    Value::Object(obj) => {
                        obj.insert(key.into(), value);
                    }
                    _ => return Err(format!("field: {game:?} is not an object of the record")),
                }
            }
            Some(_) => return Err(format!("field: {field:?} is not NAME or GAME.NAME")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{FieldValue, ScoreRecord};

    #[test]
    fn every_sport_has_all_its_fields() {
        let mut scores = Scores::new(&ScoreboardSeed::default()).unwrap();
        for sport in Sport::ALL {
            scores.set_sport(sport.wire_name()).unwrap();
            let rec = ScoreRecord::from_value(Value::Object(scores.current().clone())).unwrap();
            assert_eq!(rec.sport(), Some(sport));
            for f in fields_of(sport) {
                assert_ne!(rec.field(f), FieldValue::Missing, "{sport:?} {}", f.wire);
            }
        }
    }

    #[test]
    fn records_persist_per_sport() {
        let mut s = Scores::new(&ScoreboardSeed::default()).unwrap();
        s.set_field("team1Score", Value::from(7)).unwrap();
        s.set_field("possession", Value::from(2)).unwrap();
        assert_eq!(s.current()["possession"], 2);
        s.set_sport("Hockey").unwrap();
        assert_eq!(s.current()["team1Score"], "0");
        s.set_sport("Basketball").unwrap();
        assert_eq!(s.current()["team1Score"], "7");
        assert!(s.set_sport("Curling").unwrap_err().contains("Basketball"));
        assert!(s.set_field("sportMode", Value::from("x")).is_err());
    }

    #[test]
    fn custom_game_fields() {
        let mut s = Scores::new(&ScoreboardSeed::default()).unwrap();
        s.set_sport("Custom").unwrap();
        s.set_field("game2.team1Goals", Value::from("3")).unwrap();
        assert_eq!(s.current()["game2"]["team1Goals"], "3");
        assert!(s.set_field("sportMode", Value::Null).is_err());
        assert!(s.set_field(".x", Value::Null).is_err());
    }
}
