//! The sport modes of the API document and, per sport, its typed fields: the attribute name,
//! the wire name (or the prefix of a numbered series) and how the field reads.
//!
//! The table is written once, in `sports!`, and read by `sport_table!` (`showctl_macros`, whose
//! `sports.rs` has the grammar): it makes the `Sport` enum and [`fields_of`]. The binding makes
//! each sport's record class from the same table.

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

/// One typed attribute of a sport: the attribute's name, the wire name (or series prefix) and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub attr: &'static str,
    pub wire: &'static str,
    pub kind: FieldKind,
}

/// Length of a numbered series (LineScore1..9, Set1..9).
pub const SERIES_LEN: usize = 9;

/// The table, handed to a generator: `sports!(showctl_macros::sport_table)` below makes the
/// core's part; the binding hands it to its own generator (`showctl_macros::sport_classes`)
/// with a head naming its record class (`sports!(generator { head })`).
#[macro_export]
macro_rules! sports {
    ($($generator:ident)::+ $({ $($head:tt)* })?) => {
        $($generator)::+! {
            $($($head)*)?

            AustralianFootball {
                "quarter" => quarter: Str,
                "team1Behinds" => team1_behinds: Str,
                "team1Goals" => team1_goals: Str,
                "team1Name" => team1_name: Str,
                "team1Score" => team1_score: Str,
                "team2Behinds" => team2_behinds: Str,
                "team2Goals" => team2_goals: Str,
                "team2Name" => team2_name: Str,
                "team2Score" => team2_score: Str,
            }

            Baseball {
                "balls" => balls: Str,
                "errors" => errors: Str,
                "hits" => hits: Str,
                "inning" => inning: Str,
                "outs" => outs: Str,
                "period" => period: Str,
                "runs" => runs: Str,
                "strikes" => strikes: Str,
                "possession" => possession: Int,
                "topBottom" => top_bottom: Str,
                "teamOneRuns" => team_one_runs: Str,
                "teamOneErrors" => team_one_errors: Str,
                "teamOneHits" => team_one_hits: Str,
                "teamOneLineScore" => team_one_line_score: Series,
                "teamTwoRuns" => team_two_runs: Str,
                "teamTwoErrors" => team_two_errors: Str,
                "teamTwoHits" => team_two_hits: Str,
                "teamTwoLineScore" => team_two_line_score: Series,
            }

            Basketball {
                "period" => period: Str,
                "possession" => possession: Int,
                "team1Bonus1" => team1_bonus1: Bool,
                "team1Bonus2" => team1_bonus2: Bool,
                "team1Fouls" => team1_fouls: Str,
                "team1Score" => team1_score: Str,
                "team1TimeOuts" => team1_time_outs: Str,
                "team2Bonus1" => team2_bonus1: Bool,
                "team2Bonus2" => team2_bonus2: Bool,
                "team2Fouls" => team2_fouls: Str,
                "team2Score" => team2_score: Str,
                "team2TimeOuts" => team2_time_outs: Str,
            }

            Football {
                "ballLocation" => ball_location: Str,
                "down" => down: Str,
                "period" => period: Str,
                "toGo" => to_go: Str,
                "possession" => possession: Int,
                "team1Score" => team1_score: Str,
                "team1TimeOuts" => team1_time_outs: Str,
                "team2Score" => team2_score: Str,
                "team2TimeOuts" => team2_time_outs: Str,
            }

            Hockey {
                "period" => period: Str,
                "team1Saves" => team1_saves: Str,
                "team1Score" => team1_score: Str,
                "team1Shots" => team1_shots: Str,
                "team1TimeOuts" => team1_time_outs: Str,
                "team2Saves" => team2_saves: Str,
                "team2Score" => team2_score: Str,
                "team2Shots" => team2_shots: Str,
                "team2TimeOuts" => team2_time_outs: Str,
            }

            Lacrosse {
                "period" => period: Str,
                "possession" => possession: Int,
                "team1Saves" => team1_saves: Str,
                "team1Score" => team1_score: Str,
                "team1Shots" => team1_shots: Str,
                "team1TimeOuts" => team1_time_outs: Str,
                "team2Saves" => team2_saves: Str,
                "team2Score" => team2_score: Str,
                "team2Shots" => team2_shots: Str,
                "team2TimeOuts" => team2_time_outs: Str,
            }

            Soccer {
                "extraTime" => extra_time: Str,
                "period" => period: Str,
                "team1Corner" => team1_corner: Str,
                "team1Saves" => team1_saves: Str,
                "team1Score" => team1_score: Str,
                "team1Shots" => team1_shots: Str,
                "team1TimeOuts" => team1_time_outs: Str,
                "team2Corner" => team2_corner: Str,
                "team2Saves" => team2_saves: Str,
                "team2Score" => team2_score: Str,
                "team2Shots" => team2_shots: Str,
                "team2TimeOuts" => team2_time_outs: Str,
            }

            Tennis {
                "currentSet" => current_set: Int,
                "period" => period: Str,
                "possession" => possession: Int,
                "team1Games" => team1_games: Str,
                "team1Score" => team1_score: Str,
                "team1Sets" => team1_sets: Str,
                "team1TimeOuts" => team1_time_outs: Str,
                "team1Set" => team1_set_scores: Series,
                "team2Games" => team2_games: Str,
                "team2Score" => team2_score: Str,
                "team2Sets" => team2_sets: Str,
                "team2TimeOuts" => team2_time_outs: Str,
                "team2Set" => team2_set_scores: Series,
            }

            Volleyball {
                "currentSet" => current_set: Int,
                "period" => period: Str,
                "possession" => possession: Int,
                "team1Games" => team1_games: Str,
                "team1Score" => team1_score: Str,
                "team1TimeOuts" => team1_time_outs: Str,
                "team1Set" => team1_set_scores: Series,
                "team2Games" => team2_games: Str,
                "team2Score" => team2_score: Str,
                "team2TimeOuts" => team2_time_outs: Str,
                "team2Set" => team2_set_scores: Series,
            }

            Custom;
        }
    };
}

sports!(showctl_macros::sport_table);

impl Sport {
    pub fn from_wire(s: &str) -> Option<Sport> {
        Sport::ALL.into_iter().find(|m| m.wire_name() == s)
    }
}

/// The refusal when a record of another sport (`found`: what the record's sport is) is given
/// to the record class `class`: read by `Scoreboard.scores_as` from `url`, or (no `url`) given
/// to `class.from_dict`.
pub fn mismatch(found: &str, class: &str, url: Option<&str>) -> String {
    match url {
        Some(url) => format!(
            "GET {url}: {found}, not {}",
            class.trim_end_matches("Score")
        ),
        None => format!(
            "data: {found}: {class}.from_dict() reads only its own sport's records \
             (ScoreRecord.from_dict() reads any)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatch_names_the_class_asked_for_and_what_was_read() {
        let found = "the record's sportMode is 'Hockey'";
        assert_eq!(
            mismatch(found, "BasketballScore", Some("http://h/data/scores")),
            "GET http://h/data/scores: the record's sportMode is 'Hockey', not Basketball"
        );
        assert_eq!(
            mismatch(found, "BasketballScore", None),
            "data: the record's sportMode is 'Hockey': BasketballScore.from_dict() reads only \
             its own sport's records (ScoreRecord.from_dict() reads any)"
        );
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
                    FieldKind::Series if field.wire.ends_with("Set") => format!("{snake}_scores"),
                    _ => snake,
                };
                assert_eq!(field.attr, expected, "{sport:?}");
            }
        }
    }
}
