//! A sport-independent view of a score record: two teams with a name and a score (an integer
//! where the text is a number), the period, possession, and the sport's extras (team and game
//! fields, innings, sets, the games of a Custom record). The record itself is not changed.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value;

use super::board::team_of;
use super::record::ScoreRecord;
use super::sports::{fields_of, FieldKind, Sport, SERIES_LEN};

/// A scalar score value: an integer where the wire text is a whole number, a flag, or the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Val {
    Int(i64),
    Bool(bool),
    Text(String),
}

impl Val {
    /// An integer when the text (spaces around it ignored) is a whole number, else the text.
    pub fn from_text(s: &str) -> Val {
        match s.trim().parse::<i64>() {
            Ok(i) => Val::Int(i),
            Err(_) => Val::Text(s.to_string()),
        }
    }

    /// A JSON value as sent: numbers, flags and texts; `None` for null. Anything else (an
    /// object or an array) is kept as its JSON text.
    pub fn from_json(v: &Value) -> Option<Val> {
        Some(match v {
            Value::Null => return None,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Val::Int(i),
                None => Val::Text(n.to_string()),
            },
            Value::String(s) => Val::from_text(s),
            other => Val::Text(other.to_string()),
        })
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The value as text (`true`/`false` for a flag).
    pub fn text(&self) -> String {
        match self {
            Val::Int(i) => i.to_string(),
            Val::Bool(b) => b.to_string(),
            Val::Text(s) => s.clone(),
        }
    }
}

/// Named values, serialized as a JSON object in their order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(pub Vec<(String, Val)>);

impl Serialize for Fields {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Fields {
    pub fn get(&self, key: &str) -> Option<&Val> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// One team of the view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Team {
    /// The team's name field (`team1Name`), when the sport has one.
    pub name: Option<String>,
    /// The score: `team{n}Score`; Baseball's runs; a Custom game's `team{n}Score`, else its
    /// first team property.
    pub score: Option<Val>,
    /// The team's other fields, in snake case without the team prefix (`time_outs`, `fouls`).
    pub stats: Fields,
    /// Baseball runs per inning (`LineScore1..9`); `None` for an inning not played.
    pub line_score: Vec<Option<Val>>,
    /// Tennis and Volleyball points per set (`Set1..9`); `None` for a set not played.
    pub sets: Vec<Option<Val>>,
}

/// The sport-independent view of a record (or of one Custom game).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ScoreView {
    /// The wire `sportMode`.
    pub sport: Option<String>,
    /// Team 1 and team 2 (none for an unknown sport; for Custom, those of the first game).
    pub teams: Vec<Team>,
    /// `period`; Australian football's `quarter`; Baseball's `inning`; a Custom game's
    /// `period`, else its `quarter`.
    pub period: Option<Val>,
    /// `possession` (the team that has the ball, as the application numbers it).
    pub possession: Option<Val>,
    /// The other game fields in snake case (`down`, `to_go`, `current_set`, `top_bottom`).
    pub fields: Fields,
    /// A Custom record's games (`game1`, `game2`, … in order), each a view of its own.
    pub games: Vec<ScoreView>,
    /// Wire names of the fields read as score, period and possession (for the events).
    #[serde(skip)]
    pub(crate) wires: Wires,
}

/// Which wire fields the view read as team scores, period and possession.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Wires {
    pub score: [Option<String>; 2],
    pub period: Option<String>,
    pub possession: Option<String>,
}

/// `TimeOuts` -> `time_outs`, `ballLocation` -> `ball_location`.
fn snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.char_indices() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `LineScore3` -> (line score, 3); `Set2` -> (sets, 2).
fn series_of(rest: &str) -> Option<(bool, usize)> {
    let (line, digits) = match rest.strip_prefix("LineScore") {
        Some(d) => (true, d),
        None => (false, rest.strip_prefix("Set")?),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let i: usize = digits.parse().ok()?;
    (1..=64).contains(&i).then_some((line, i))
}

/// Build a view from wire entries in order. `period_keys`: the game fields read as the
/// period, first present wins; `score_rest`: the team field read as the score (`Score`).
fn build(
    sport: Option<String>,
    entries: &[(String, Option<&Value>)],
    period_keys: &[&str],
    score_rest: Option<&str>,
) -> ScoreView {
    let mut v = ScoreView {
        sport,
        teams: vec![Team::default(), Team::default()],
        ..ScoreView::default()
    };
    let period_key = period_keys
        .iter()
        .find(|k| entries.iter().any(|(w, val)| w == *k && val.is_some()));
    for (wire, value) in entries {
        let val = value.and_then(Val::from_json);
        if let Some((t, rest)) = team_of(wire) {
            let team = &mut v.teams[t];
            if let Some((line, i)) = series_of(rest) {
                let list = if line {
                    &mut team.line_score
                } else {
                    &mut team.sets
                };
                if list.len() < i {
                    list.resize(i, None);
                }
                list[i - 1] = val.filter(|x| !matches!(x, Val::Text(s) if s.trim().is_empty()));
                continue;
            }
            let Some(val) = val else { continue };
            if rest == "Name" {
                team.name = Some(val.text());
            } else if Some(rest) == score_rest {
                team.score = Some(val);
                v.wires.score[t] = Some(wire.clone());
            } else {
                team.stats.0.push((snake(rest), val));
            }
            continue;
        }
        let Some(val) = val else { continue };
        if wire == "possession" {
            v.possession = Some(val);
            v.wires.possession = Some(wire.clone());
        } else if period_key == Some(&wire.as_str()) {
            v.period = Some(val);
            v.wires.period = Some(wire.clone());
        } else {
            v.fields.0.push((snake(wire), val));
        }
    }
    v
}

/// The team property a Custom game scores in: `Score` when sent, else the first team property
/// that is not the name.
fn custom_score_rest(game: &serde_json::Map<String, Value>) -> Option<String> {
    let rests: Vec<&str> = game
        .keys()
        .filter_map(|k| team_of(k).map(|(_, r)| r))
        .filter(|r| *r != "Name" && series_of(r).is_none())
        .collect();
    rests
        .iter()
        .find(|r| **r == "Score")
        .or_else(|| rests.first())
        .map(|r| r.to_string())
}

/// The view of one Custom game.
pub(crate) fn game_view(game: &serde_json::Map<String, Value>) -> ScoreView {
    let entries: Vec<(String, Option<&Value>)> =
        game.iter().map(|(k, v)| (k.clone(), Some(v))).collect();
    let rest = custom_score_rest(game);
    build(
        Some(Sport::Custom.wire_name().to_string()),
        &entries,
        &["period", "quarter"],
        rest.as_deref(),
    )
}

impl ScoreRecord {
    /// The sport-independent view of this record.
    pub fn view(&self) -> ScoreView {
        let sport = self.sport();
        match sport {
            None => ScoreView {
                sport: self.sport_mode(),
                ..ScoreView::default()
            },
            Some(Sport::Custom) => {
                let games: Vec<ScoreView> = self
                    .game_objects()
                    .into_iter()
                    .map(|(_, g)| game_view(g))
                    .collect();
                let first = games.first().cloned().unwrap_or_default();
                ScoreView {
                    sport: self.sport_mode(),
                    teams: first.teams,
                    period: first.period,
                    possession: first.possession,
                    fields: first.fields,
                    games,
                    wires: Wires::default(),
                }
            }
            Some(sport) => {
                let mut entries = Vec::new();
                for field in fields_of(sport) {
                    if field.kind == FieldKind::Series {
                        for i in 1..=SERIES_LEN {
                            let wire = format!("{}{i}", field.wire);
                            let value = self.raw().get(&wire);
                            entries.push((wire, value));
                        }
                    } else {
                        entries.push((field.wire.to_string(), self.raw().get(field.wire)));
                    }
                }
                let (period, score) = match sport {
                    Sport::AustralianFootball => ("quarter", "Score"),
                    Sport::Baseball => ("inning", "Runs"),
                    _ => ("period", "Score"),
                };
                build(self.sport_mode(), &entries, &[period], Some(score))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(json: &str) -> ScoreRecord {
        ScoreRecord::from_slice(json.as_bytes()).unwrap()
    }

    #[test]
    fn numbers_become_ints_and_text_stays_text() {
        assert_eq!(Val::from_text("48"), Val::Int(48));
        assert_eq!(Val::from_text(" 7 "), Val::Int(7));
        assert_eq!(Val::from_text("OT"), Val::Text("OT".into()));
        assert_eq!(Val::from_text("1.5"), Val::Text("1.5".into()));
        assert_eq!(Val::from_json(&serde_json::json!(2)), Some(Val::Int(2)));
        assert_eq!(Val::from_json(&Value::Null), None);
    }

    #[test]
    fn baseball_runs_are_the_score_and_innings_a_list() {
        let v = rec(
            r#"{"sportMode":"Baseball","inning":"3","period":"1","possession":2,
            "topBottom":"Top","teamOneRuns":"2","teamOneHits":"5","teamOneLineScore1":"1",
            "teamOneLineScore2":"1","teamOneLineScore3":"","teamTwoRuns":"0"}"#,
        )
        .view();
        assert_eq!(v.teams[0].score, Some(Val::Int(2)));
        assert_eq!(v.teams[1].score, Some(Val::Int(0)));
        assert_eq!(v.period, Some(Val::Int(3)));
        assert_eq!(v.possession, Some(Val::Int(2)));
        assert_eq!(v.fields.get("period"), Some(&Val::Int(1)));
        assert_eq!(v.fields.get("top_bottom"), Some(&Val::Text("Top".into())));
        assert_eq!(v.teams[0].stats.get("hits"), Some(&Val::Int(5)));
        assert_eq!(v.teams[0].line_score.len(), 9);
        assert_eq!(
            v.teams[0].line_score[..3],
            [Some(Val::Int(1)), Some(Val::Int(1)), None]
        );
        assert!(v.teams[0].sets.is_empty());
    }

    #[test]
    fn tennis_sets_and_custom_games() {
        let v = rec(
            r#"{"sportMode":"Tennis","currentSet":2,"team1Sets":"1","team1Set1":"6",
            "team1Set2":" ","team1Score":"30"}"#,
        )
        .view();
        assert_eq!(v.teams[0].score, Some(Val::Int(30)));
        assert_eq!(v.teams[0].stats.get("sets"), Some(&Val::Int(1)));
        assert_eq!(v.teams[0].sets[..2], [Some(Val::Int(6)), None]);
        assert_eq!(v.fields.get("current_set"), Some(&Val::Int(2)));
        let v = rec(
            r#"{"sportMode":"Custom","game1":{"possession":"1","quarter":"2",
            "team1Name":"A","team1Goals":"3","team1Saves":"4","team2Name":"B","team2Goals":"1"},
            "game2":{"team1Score":"9","team1Goals":"1"}}"#,
        )
        .view();
        assert_eq!(v.games.len(), 2);
        assert_eq!(v.teams[0].name.as_deref(), Some("A"));
        assert_eq!(v.teams[0].score, Some(Val::Int(3)));
        assert_eq!(v.teams[0].stats.get("saves"), Some(&Val::Int(4)));
        assert_eq!(v.period, Some(Val::Int(2)));
        assert_eq!(v.possession, Some(Val::Int(1)));
        assert_eq!(v.games[1].teams[0].score, Some(Val::Int(9)));
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["teams"][0]["stats"]["saves"], 4);
        assert!(json.get("wires").is_none());
    }

    #[test]
    fn unknown_sport_has_no_teams() {
        let v = rec(r#"{"sportMode":"Curling","team1Score":"1"}"#).view();
        assert_eq!(v.sport.as_deref(), Some("Curling"));
        assert!(v.teams.is_empty());
    }
}
