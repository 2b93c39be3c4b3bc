//! The sport modes of the API document and, per sport, its typed fields: the Python attribute,
//! the wire name (or the prefix of a numbered series) and how the field reads.

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

impl FieldKind {
    /// The attribute's type in the stubs.
    pub fn stub_type(self) -> &'static str {
        match self {
            FieldKind::Str => "str | None",
            FieldKind::Int => "int | None",
            FieldKind::Bool => "bool | None",
            FieldKind::Series => "list[str | None]",
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
