//! The scoreboard client: sends the calls of the scoreboard's operation table.

use std::future::Future;
use std::sync::Arc;

use super::builders;
use super::record::ScoreRecord;
use crate::error::Result;
use crate::operation::{Call, Client};
use crate::transport::Transport;

/// The scoreboard client.
#[derive(Debug, Clone)]
pub struct Scoreboard {
    transport: Arc<Transport>,
}

impl Scoreboard {
    pub fn new(transport: Arc<Transport>) -> Self {
        Scoreboard { transport }
    }
    pub fn transport(&self) -> &Arc<Transport> {
        &self.transport
    }

    /// GET /data/scores.
    pub async fn scores(&self) -> Result<ScoreRecord> {
        self.call(builders::workspace::scores()?).await
    }

    /// Send a call of the operation table and decode its reply.
    pub async fn call<T>(&self, call: Call<T>) -> Result<T> {
        let body = self.transport.send(&call.request).await?;
        (call.decode)(&body).map_err(|e| self.transport.decode_error(&call.request, &body, e))
    }
}

impl Client for Scoreboard {
    fn run<T: Send + 'static>(&self, call: Call<T>) -> impl Future<Output = Result<T>> + Send {
        self.call(call)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::error::Error;
    use crate::score::Sport;
    use crate::transport::test_server::{start, Reply};
    use crate::transport::Config;
    use std::time::Duration;

    pub(in crate::score) fn board(url: &str, timeout_ms: u64) -> Scoreboard {
        let mut c = Config::new(url);
        c.timeout = Duration::from_millis(timeout_ms);
        c.retries = 0;
        Scoreboard::new(Arc::new(Transport::new(&c).unwrap()))
    }

    #[tokio::test]
    async fn scores_decodes_the_body() {
        let server = start(vec![Reply::Status(
            200,
            r#"{"uuid":"u","version":"1","sportMode":"Hockey","team1Shots":"12"}"#,
        )])
        .await;
        let r = board(&server.url, 2000).scores().await.unwrap();
        assert_eq!(r.sport(), Some(Sport::Hockey));
        assert_eq!(r.uuid().as_deref(), Some("u"));
        assert_eq!(server.seen()[0].target, "/api/0/data/scores");
    }

    #[tokio::test]
    async fn scores_reports_garbage_as_a_decode_error() {
        for body in ["", "not json", r#"{"uuid":"#, "[1,2]"] {
            let server = start(vec![Reply::Status(200, body)]).await;
            let err = board(&server.url, 2000).scores().await.unwrap_err();
            match &err {
                Error::Decode {
                    method,
                    url,
                    body: b,
                    ..
                } => {
                    assert_eq!(method, "GET");
                    assert!(url.ends_with("/api/0/data/scores"));
                    assert_eq!(b, body);
                }
                other => panic!("{body:?}: {other:?}"),
            }
        }
    }
}
