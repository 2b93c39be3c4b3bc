//! What changed between two score records, as typed events, and the watch that polls for them.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::client::Scoreboard;
use super::record::ScoreRecord;
use super::view::{ScoreView, Val};
use crate::error::{Error, Result};
use crate::poll::{transient, Polled, Poller};

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreEventKind {
    /// A team's score (`team`, `old`, `new`, `delta` when both are numbers).
    ScoreChanged,
    /// The period (quarter, inning) changed.
    PeriodChanged,
    /// Possession changed.
    PossessionChanged,
    /// The scoreboard switched to another sport (`old` and `new` are the sport modes); the
    /// fields of two sports are not compared.
    SportChanged,
    /// Any other field (`field` is its wire name; `gameN.name` inside a Custom game).
    FieldChanged,
    /// A poll failed with a transient error; the watch goes on polling.
    PollFailed,
    /// A poll succeeded after failures.
    PollRecovered,
}

impl ScoreEventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ScoreEventKind::ScoreChanged => "score_changed",
            ScoreEventKind::PeriodChanged => "period_changed",
            ScoreEventKind::PossessionChanged => "possession_changed",
            ScoreEventKind::SportChanged => "sport_changed",
            ScoreEventKind::FieldChanged => "field_changed",
            ScoreEventKind::PollFailed => "poll_failed",
            ScoreEventKind::PollRecovered => "poll_recovered",
        }
    }
}

/// One change seen between two polls.
#[derive(Debug, Clone)]
pub struct ScoreEvent {
    pub kind: ScoreEventKind,
    /// The wire field that changed (`None` for sport and poll events).
    pub field: Option<String>,
    /// Team 1 or 2 (`ScoreChanged`).
    pub team: Option<usize>,
    /// The Custom game (1 for `game1`), for changes inside a game.
    pub game: Option<usize>,
    /// Values before and after (`None`: not sent).
    pub old: Option<Val>,
    pub new: Option<Val>,
    /// `new - old` when both are numbers (`ScoreChanged`).
    pub delta: Option<i64>,
    /// The record that showed the change (`None` for poll events).
    pub record: Option<Arc<ScoreRecord>>,
    /// The failure (`PollFailed`).
    pub error: Option<Error>,
    /// When the poll that showed the change was answered.
    pub at: SystemTime,
}

impl ScoreEvent {
    fn new(kind: ScoreEventKind, at: SystemTime) -> Self {
        ScoreEvent {
            kind,
            field: None,
            team: None,
            game: None,
            old: None,
            new: None,
            delta: None,
            record: None,
            error: None,
            at,
        }
    }
}

/// Every field of a record as (wire name, value), Custom games flattened as `gameN.name`;
/// `sportMode` left out.
fn flat(rec: &ScoreRecord) -> Vec<(String, Option<Val>)> {
    let mut out = Vec::new();
    for (k, v) in rec.raw() {
        match v {
            _ if k == "sportMode" => {}
            Value::Object(game) if k.starts_with("game") => {
                for (gk, gv) in game {
                    out.push((format!("{k}.{gk}"), Val::from_json(gv)));
                }
            }
            v => out.push((k.clone(), Val::from_json(v))),
        }
    }
    out
}

/// The changes from `prev` to `cur`: sport, then per game the team scores, period and
/// possession, then every other field in the order of `cur` (fields gone last).
pub fn score_changes(
    prev: &ScoreRecord,
    cur: &Arc<ScoreRecord>,
    at: SystemTime,
) -> Vec<ScoreEvent> {
    let event = |kind: ScoreEventKind| ScoreEvent {
        record: Some(cur.clone()),
        ..ScoreEvent::new(kind, at)
    };
    let mut out = Vec::new();
    if prev.sport_mode() != cur.sport_mode() {
        out.push(ScoreEvent {
            old: prev.sport_mode().map(Val::Text),
            new: cur.sport_mode().map(Val::Text),
            ..event(ScoreEventKind::SportChanged)
        });
        return out;
    }
    let (before, after) = (prev.view(), cur.view());
    // Custom: compare game by game (prefixing the wire names); otherwise the record itself.
    let pairs: Vec<(Option<usize>, &ScoreView, &ScoreView)> = if after.games.is_empty() {
        vec![(None, &before, &after)]
    } else {
        after
            .games
            .iter()
            .enumerate()
            .filter_map(|(i, g)| before.games.get(i).map(|b| (Some(i + 1), b, g)))
            .collect()
    };
    let mut seen: HashSet<String> = HashSet::new();
    for (game, b, a) in pairs {
        let wire = |name: &Option<String>| {
            name.as_ref().map(|n| match game {
                Some(g) => format!("game{g}.{n}"),
                None => n.clone(),
            })
        };
        for t in 0..a.teams.len().min(b.teams.len()) {
            seen.extend(wire(&b.wires.score[t]));
            seen.extend(wire(&a.wires.score[t]));
            let (old, new) = (&b.teams[t].score, &a.teams[t].score);
            if old != new {
                let delta = match (
                    old.as_ref().and_then(Val::as_int),
                    new.as_ref().and_then(Val::as_int),
                ) {
                    (Some(o), Some(n)) => n.checked_sub(o),
                    _ => None,
                };
                out.push(ScoreEvent {
                    field: wire(&a.wires.score[t]).or_else(|| wire(&b.wires.score[t])),
                    team: Some(t + 1),
                    game,
                    old: old.clone(),
                    new: new.clone(),
                    delta,
                    ..event(ScoreEventKind::ScoreChanged)
                });
            }
        }
        for (kind, (bw, old), (aw, new)) in [
            (
                ScoreEventKind::PeriodChanged,
                (&b.wires.period, &b.period),
                (&a.wires.period, &a.period),
            ),
            (
                ScoreEventKind::PossessionChanged,
                (&b.wires.possession, &b.possession),
                (&a.wires.possession, &a.possession),
            ),
        ] {
            seen.extend(wire(bw));
            seen.extend(wire(aw));
            if old != new {
                out.push(ScoreEvent {
                    field: wire(aw).or_else(|| wire(bw)),
                    game,
                    old: old.clone(),
                    new: new.clone(),
                    ..event(kind)
                });
            }
        }
    }
    let (before, after) = (flat(prev), flat(cur));
    let old_of = |k: &str| {
        before
            .iter()
            .find(|(bk, _)| bk == k)
            .map(|(_, v)| v.clone())
    };
    let mut keys: Vec<&String> = after.iter().map(|(k, _)| k).collect();
    keys.extend(
        before
            .iter()
            .map(|(k, _)| k)
            .filter(|k| !after.iter().any(|(a, _)| a == *k)),
    );
    for key in keys {
        if seen.contains(key.as_str()) {
            continue;
        }
        let old = old_of(key).flatten();
        let new = after
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.clone());
        if old != new {
            let game = key
                .split_once('.')
                .and_then(|(g, _)| g.strip_prefix("game")?.parse().ok());
            out.push(ScoreEvent {
                field: Some(key.clone()),
                game,
                old,
                new,
                ..event(ScoreEventKind::FieldChanged)
            });
        }
    }
    out
}

/// Polls the score record every `interval` and yields the changes as events. The first poll is
/// the baseline (no events). A transient failure yields one `PollFailed` event, the watch goes
/// on polling and yields `PollRecovered` when a poll works again, followed by the changes
/// since the last good poll. Other failures (401, 404, a reply that is not a score record, a
/// closed client) end the watch with their error.
pub struct ScoreEventWatch {
    board: Scoreboard,
    poller: Poller,
    last: Option<Arc<ScoreRecord>>,
    pending: VecDeque<ScoreEvent>,
}

impl ScoreEventWatch {
    /// `interval` from [`crate::poll::watch_interval`].
    pub fn new(board: Scoreboard, interval: Duration) -> Self {
        ScoreEventWatch {
            board,
            poller: Poller::new("score watch", interval),
            last: None,
            pending: VecDeque::new(),
        }
    }

    /// The next event (polling as long as nothing changes).
    pub async fn next_event(&mut self) -> Result<ScoreEvent> {
        loop {
            if let Some(ev) = self.pending.pop_front() {
                return Ok(ev);
            }
            self.poller.wait().await;
            let url = self.board.transport().base_url().to_string();
            let result = self.board.scores().await;
            match self.poller.settle(&url, result) {
                Polled::Fresh {
                    value,
                    recovered,
                    at,
                } => {
                    let cur = Arc::new(value);
                    if recovered {
                        self.pending.push_back(ScoreEvent {
                            record: Some(cur.clone()),
                            ..ScoreEvent::new(ScoreEventKind::PollRecovered, at)
                        });
                    }
                    if let Some(prev) = &self.last {
                        self.pending.extend(score_changes(prev, &cur, at));
                    }
                    self.last = Some(cur);
                }
                Polled::Failed { error, first } if transient(&error) => {
                    if first {
                        self.pending.push_back(ScoreEvent {
                            error: Some(error),
                            ..ScoreEvent::new(ScoreEventKind::PollFailed, SystemTime::now())
                        });
                    }
                }
                Polled::Failed { error, .. } => return Err(error),
            }
        }
    }
}

impl crate::poll::Watch for ScoreEventWatch {
    type Item = ScoreEvent;
    fn next_item(&mut self) -> impl std::future::Future<Output = Result<ScoreEvent>> + Send {
        self.next_event()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(json: &str) -> Arc<ScoreRecord> {
        Arc::new(ScoreRecord::from_slice(json.as_bytes()).unwrap())
    }

    fn kinds(events: &[ScoreEvent]) -> Vec<&'static str> {
        events.iter().map(|e| e.kind.as_str()).collect()
    }

    #[test]
    fn score_period_possession_and_other_fields() {
        let a = rec(
            r#"{"sportMode":"Basketball","period":"1","possession":1,"team1Score":"48",
            "team2Score":"50","team1Fouls":"2"}"#,
        );
        let b = rec(
            r#"{"sportMode":"Basketball","period":"2","possession":2,"team1Score":"51",
            "team2Score":"50","team1Fouls":"3"}"#,
        );
        let ev = score_changes(&a, &b, SystemTime::now());
        assert_eq!(
            kinds(&ev),
            [
                "score_changed",
                "period_changed",
                "possession_changed",
                "field_changed"
            ]
        );
        assert_eq!(ev[0].team, Some(1));
        assert_eq!(ev[0].field.as_deref(), Some("team1Score"));
        assert_eq!(
            (ev[0].old.clone(), ev[0].new.clone()),
            (Some(Val::Int(48)), Some(Val::Int(51)))
        );
        assert_eq!(ev[0].delta, Some(3));
        assert_eq!(ev[3].field.as_deref(), Some("team1Fouls"));
        assert!(score_changes(&a, &a, SystemTime::now()).is_empty());
    }

    #[test]
    fn sport_change_is_one_event_and_text_scores_have_no_delta() {
        let a = rec(r#"{"sportMode":"Hockey","team1Score":"1"}"#);
        let b = rec(r#"{"sportMode":"Soccer","team1Score":"0"}"#);
        let ev = score_changes(&a, &b, SystemTime::now());
        assert_eq!(kinds(&ev), ["sport_changed"]);
        assert_eq!(ev[0].new, Some(Val::Text("Soccer".into())));
        let c = rec(r#"{"sportMode":"Hockey","team1Score":"-"}"#);
        let ev = score_changes(&a, &c, SystemTime::now());
        assert_eq!(ev[0].delta, None);
        assert_eq!(ev[0].new, Some(Val::Text("-".into())));
    }

    #[test]
    fn custom_games_are_compared_game_by_game() {
        let a = rec(
            r#"{"sportMode":"Custom","game1":{"quarter":"1","team1Goals":"0","team1Saves":"1"},
            "game2":{"team1Goals":"5"}}"#,
        );
        let b = rec(
            r#"{"sportMode":"Custom","game1":{"quarter":"1","team1Goals":"1","team1Saves":"2"},
            "game2":{"team1Goals":"7"}}"#,
        );
        let ev = score_changes(&a, &b, SystemTime::now());
        assert_eq!(
            kinds(&ev),
            ["score_changed", "score_changed", "field_changed"]
        );
        assert_eq!((ev[0].game, ev[0].delta), (Some(1), Some(1)));
        assert_eq!(ev[0].field.as_deref(), Some("game1.team1Goals"));
        assert_eq!((ev[1].game, ev[1].delta), (Some(2), Some(2)));
        assert_eq!(ev[2].field.as_deref(), Some("game1.team1Saves"));
        assert_eq!(ev[2].game, Some(1));
    }

    use crate::transport::test_server::{start, Reply};
    use crate::transport::{Config, Transport};

    #[tokio::test]
    async fn the_watch_reports_failure_and_recovery_then_the_change() {
        const A: &str = r#"{"sportMode":"Hockey","team1Score":"0"}"#;
        const B: &str = r#"{"sportMode":"Hockey","team1Score":"2"}"#;
        let server = start(vec![
            Reply::Status(200, A),
            Reply::Status(503, ""),
            Reply::Status(503, ""),
            Reply::Status(200, B),
            Reply::Status(404, ""),
        ])
        .await;
        let mut c = Config::new(&server.url);
        c.retries = 0;
        let board = Scoreboard::new(Arc::new(Transport::new(&c).unwrap()));
        let mut w = ScoreEventWatch::new(board, Duration::from_millis(50));
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push(w.next_event().await.unwrap());
        }
        assert_eq!(
            kinds(&got),
            ["poll_failed", "poll_recovered", "score_changed"]
        );
        assert_eq!(got[0].error.as_ref().and_then(Error::status), Some(503));
        assert_eq!(got[2].delta, Some(2));
        assert_eq!(w.next_event().await.unwrap_err().status(), Some(404));
    }
}
