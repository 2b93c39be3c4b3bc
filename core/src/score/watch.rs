//! Watching the score record: poll it and yield each record that differs from the last.

use super::client::Scoreboard;
use super::record::ScoreRecord;
use crate::error::{Error, Result};

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

impl crate::poll::Watch for ScoreWatch {
    type Item = ScoreRecord;
    fn next_item(&mut self) -> impl std::future::Future<Output = Result<ScoreRecord>> + Send {
        self.next_change()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::client::tests::board;
    use crate::transport::test_server::{start, Reply};
    use std::time::{Duration, Instant};

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
}
