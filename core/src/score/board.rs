//! A record laid out as a scoreboard (the rows and columns its HTML display shows).

use super::record::{FieldValue, ScoreRecord};
use super::sports::{fields_of, Sport};

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

/// One board as plain data: (title, game notes, score columns, team rows).
pub type BoardRows = (
    String,
    Vec<(String, String)>,
    Vec<String>,
    Vec<(String, Vec<String>)>,
);

/// What the HTML view of a record shows: (boards, title, fields of a record of no sport).
pub type Display = (Vec<BoardRows>, String, Vec<(String, String)>);

/// Cells of one column, for team 1 and team 2 (None: not sent).
struct Column {
    key: String,
    label: String,
    series: bool,
    cells: [Option<String>; 2],
}

/// Split `team1Score` / `teamTwoRuns` into (team index, rest of the name).
pub(crate) fn team_of(wire: &str) -> Option<(usize, &str)> {
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

    /// What the HTML view of a record shows: its boards as `(title, notes, columns, rows)`,
    /// or for a record of an unknown sport (no board) its title and every field but
    /// `sportMode` as text.
    pub fn display(&self) -> Display {
        let boards: Vec<BoardRows> = self
            .boards()
            .into_iter()
            .map(|b| (b.title, b.notes, b.columns, b.rows))
            .collect();
        let title = self.sport_mode().unwrap_or_else(|| "score record".into());
        let fields = if boards.is_empty() {
            self.raw()
                .iter()
                .filter(|(k, _)| k.as_str() != "sportMode")
                .map(|(k, v)| {
                    let text = crate::json::as_text(v).unwrap_or_else(|| v.to_string());
                    (k.clone(), text)
                })
                .collect()
        } else {
            Vec::new()
        };
        (boards, title, fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn the_display_of_an_unknown_sport_lists_its_fields_as_text() {
        let r = ScoreRecord::from_slice(
            br#"{"sportMode":"Curling","team1Score":"1","ends":[1,2],"n":null}"#,
        )
        .unwrap();
        let (boards, title, fields) = r.display();
        assert!(boards.is_empty());
        assert_eq!(title, "Curling");
        let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["team1Score", "ends", "n"]);
        assert_eq!(fields[1].1, "[1,2]");
        let hockey = ScoreRecord::from_slice(br#"{"sportMode":"Hockey","team1Score":"2"}"#);
        let (boards, title, fields) = hockey.unwrap().display();
        assert_eq!(
            (boards.len(), title.as_str(), fields.len()),
            (1, "Hockey", 0)
        );
        let nameless = ScoreRecord::from_slice(br#"{"a":"1"}"#).unwrap().display();
        assert_eq!(nameless.1, "score record");
    }
}
