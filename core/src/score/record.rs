//! One score record: kept as the JSON object the application sent (so `to_dict()` returns
//! exactly that, unknown fields included, duplicate keys resolved last-wins as the
//! usual JSON readers do), with the typed value of each field of its sport's table.

use serde_json::{Map, Value};

use super::sports::{Field, FieldKind::*, Sport, SERIES_LEN};
use crate::json::{as_text, json_kind};

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
    /// The JSON text of the object as sent (duplicate keys resolved), which `from_slice` reads
    /// back into an equal record: what a pickled record keeps.
    pub fn to_json(&self) -> String {
        Value::Object(self.raw.clone()).to_string()
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

    /// The typed value of every field of the record's sport, by attribute name, as JSON (null
    /// when missing; a series as a list of text or null); empty for an unknown sport.
    pub fn typed(&self) -> Map<String, Value> {
        let fields = self.sport().map_or(&[][..], super::fields_of);
        fields
            .iter()
            .map(|f| (f.attr.to_string(), self.field(f).into()))
            .collect()
    }

    /// The attribute names of the record's class in the binding: `uuid`, `version`, `sport_mode`, its
    /// sport's typed attributes and `games` for Custom.
    pub fn attr_names(&self) -> Vec<&'static str> {
        let mut names = vec!["uuid", "version", "sport_mode"];
        if let Some(sport) = self.sport() {
            names.extend(super::fields_of(sport).iter().map(|f| f.attr));
            if sport == Sport::Custom {
                names.push("games");
            }
        }
        names
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

    /// The Custom games as JSON objects, `game1`, `game2`, … in numeric order.
    pub(crate) fn game_objects(&self) -> Vec<(u32, &Map<String, Value>)> {
        let mut games: Vec<(u32, &Map<String, Value>)> = self
            .raw()
            .iter()
            .filter_map(|(k, v)| {
                let n: u32 = k.strip_prefix("game")?.parse().ok()?;
                Some((n, v.as_object()?))
            })
            .collect();
        games.sort_by_key(|(n, _)| *n);
        games
    }
}

impl From<FieldValue> for Value {
    fn from(v: FieldValue) -> Value {
        match v {
            FieldValue::Missing => Value::Null,
            FieldValue::Str(s) => Value::String(s),
            FieldValue::Int(i) => Value::from(i),
            FieldValue::Bool(b) => Value::Bool(b),
            FieldValue::Series(items) => items.into_iter().map(Value::from).collect(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::fields_of;

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
    fn the_json_text_reads_back_into_an_equal_record_in_the_order_sent() {
        let body = br#"{"sportMode":"Hockey","zeta":[1,{"b":null}],"sportMode":"Custom","a":"x"}"#;
        let r = ScoreRecord::from_slice(body).unwrap();
        let text = r.to_json();
        assert_eq!(
            text,
            r#"{"sportMode":"Custom","zeta":[1,{"b":null}],"a":"x"}"#
        );
        assert_eq!(ScoreRecord::from_slice(text.as_bytes()).unwrap(), r);
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
    fn typed_fields_by_attribute_and_the_class_attribute_names() {
        let r = ScoreRecord::from_slice(
            br#"{"sportMode":"Basketball","possession":"2","team1Bonus1":true,"team2Fouls":3}"#,
        )
        .unwrap();
        let t = r.typed();
        assert_eq!(t.len(), fields_of(Sport::Basketball).len());
        assert_eq!(t["possession"], serde_json::json!(2));
        assert_eq!(t["team1_bonus1"], serde_json::json!(true));
        assert_eq!(t["team2_fouls"], serde_json::json!("3"));
        assert_eq!(t["period"], Value::Null);
        assert_eq!(
            r.attr_names()[..4],
            ["uuid", "version", "sport_mode", "period"]
        );
        let tennis = ScoreRecord::from_slice(br#"{"sportMode":"Tennis","team1Set1":"6"}"#).unwrap();
        let sets = &tennis.typed()["team1_set_scores"];
        assert_eq!(sets[0], serde_json::json!("6"));
        assert_eq!(sets.as_array().unwrap().len(), SERIES_LEN);
        let custom = ScoreRecord::from_slice(br#"{"sportMode":"Custom"}"#).unwrap();
        assert_eq!(custom.attr_names().last(), Some(&"games"));
        let none = ScoreRecord::from_slice(br#"{"sportMode":"Darts"}"#).unwrap();
        assert!(none.typed().is_empty());
        assert_eq!(none.attr_names(), ["uuid", "version", "sport_mode"]);
    }

    #[test]
    fn non_object_is_an_error() {
        assert!(ScoreRecord::from_slice(b"[1]").is_err());
        assert!(ScoreRecord::from_slice(b"{\"a\":").is_err());
    }
}
