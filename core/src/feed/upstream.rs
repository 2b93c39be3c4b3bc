//! How the feed reads an application: each answer capped at [`FEED_REPLY`] bytes (the memory one
//! answer can cost the feed, whatever the application sends), and with the key scrubbed from it
//! in every form (an operator may type it into a team name; the application may echo it
//! JSON-escaped or percent-encoded) before anything is decoded, so no document, event or file
//! the feed makes from it can carry the key. And how each application is polled: one task per
//! source ([`run_source`]) keeps its state in a watch channel and publishes what changed.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::sync::watch;

use super::cache::{Made, Render};
use super::docs::{self, Layers, Scores, SourceState};
use super::{Batch, Shared};
use crate::error::Result;
use crate::media::table::consts::TRANSPORT_STATES;
use crate::media::MediaClient;
use crate::operation::Call;
use crate::poll::{Polled, Poller};
use crate::score::{score_changes, Scoreboard};
use crate::transport::Transport;

/// The largest answer the feed reads from either application: 1 MiB, about ten times the
/// transport state of a 100-layer workspace. A longer answer is refused as soon as it is seen
/// (the source goes stale with that error) instead of being read and decoded whole.
pub const FEED_REPLY: usize = 1024 * 1024;

/// Send `call` with its answer capped at [`FEED_REPLY`], scrub the key from the answer, decode it.
pub(crate) async fn read_clean<T>(transport: &Transport, mut call: Call<T>) -> Result<T> {
    let cap = call
        .request
        .max_reply
        .map_or(FEED_REPLY, |m| m.min(FEED_REPLY));
    call.request.max_reply = Some(cap);
    let body = transport.send(&call.request).await?;
    let clean = transport.target().scrub_all(&body);
    (call.decode)(&clean).map_err(|e| transport.decode_error(&call.request, &clean, e))
}

/// One polled application: how to poll it, what its changes and its document are.
pub(super) trait Source: Send + Sync + 'static {
    type Data: Clone + PartialEq + Render;
    /// Names the poller in log lines.
    const LABEL: &'static str;
    /// The SSE event carrying the whole document.
    const DOC_EVENT: &'static str;
    /// The SSE event carrying one change.
    const CHANGE_EVENT: &'static str;
    fn url(&self) -> String;
    fn poll(&self) -> impl Future<Output = Result<Self::Data>> + Send;
    fn changes(prev: &Self::Data, cur: &Self::Data, at: SystemTime) -> Vec<Value>;
}

pub(super) struct MediaSource(pub(super) MediaClient);

impl Source for MediaSource {
    type Data = Layers;
    const LABEL: &'static str = "feed (media)";
    const DOC_EVENT: &'static str = "transport";
    const CHANGE_EVENT: &'static str = "layer";
    fn url(&self) -> String {
        self.0.transport().base_url().to_string()
    }
    async fn poll(&self) -> Result<Layers> {
        read_clean(self.0.transport(), TRANSPORT_STATES.at(&[])?).await
    }
    fn changes(prev: &Layers, cur: &Layers, at: SystemTime) -> Vec<Value> {
        crate::media::watch::changes(prev, cur, &[], at)
            .iter()
            .map(docs::layer_event_json)
            .collect()
    }
}

pub(super) struct ScoreSource(pub(super) Scoreboard);

impl Source for ScoreSource {
    type Data = Scores;
    const LABEL: &'static str = "feed (scoreboard)";
    const DOC_EVENT: &'static str = "scores";
    const CHANGE_EVENT: &'static str = "score";
    fn url(&self) -> String {
        self.0.transport().base_url().to_string()
    }
    async fn poll(&self) -> Result<Scores> {
        let call = crate::score::builders::workspace::scores()?;
        read_clean(self.0.transport(), call).await.map(Arc::new)
    }
    fn changes(prev: &Scores, cur: &Scores, at: SystemTime) -> Vec<Value> {
        score_changes(prev, cur, at)
            .iter()
            .map(docs::score_event_json)
            .collect()
    }
}

/// Mark a source stale (keeping its last data); tell the SSE clients when it was not already.
/// The channel is touched either way, so the documents are made again with the age they say
/// (served and written).
fn mark_stale<S: Source>(
    tx: &watch::Sender<Arc<SourceState<S::Data>>>,
    made: &Made<S::Data>,
    shared: &Shared,
    (name, interval): (&str, Duration),
    error: String,
) {
    let now = SystemTime::now();
    let mut newly = false;
    tx.send_modify(|s| {
        let s = Arc::make_mut(s);
        if s.stale_since.is_none() {
            s.stale_since = Some(now);
            newly = true;
        }
        s.error = Some(error);
    });
    if newly {
        let state = tx.borrow().clone();
        let mut batch = Batch::default();
        batch.push("status", &state.status(name, interval, now));
        batch.push_text(S::DOC_EVENT, made.parts().json.text());
        shared.publish(batch);
    }
}

/// Poll one application forever. A poll that has not answered two intervals after the last
/// good answer marks the data stale at once (and again each interval, for the writer), without
/// waiting for the request's own timeout; a failed poll marks it stale too. A good answer makes
/// it fresh again.
pub(super) async fn run_source<S: Source>(
    src: S,
    (name, interval): (String, Duration),
    tx: watch::Sender<Arc<SourceState<S::Data>>>,
    made: Arc<Made<S::Data>>,
    shared: Arc<Shared>,
) {
    let url = src.url();
    let me = (name.as_str(), interval);
    let mut poller = Poller::new(S::LABEL, interval);
    let mut last_ok = tokio::time::Instant::now();
    loop {
        poller.wait().await;
        let poll = src.poll();
        tokio::pin!(poll);
        let mut mark_at = (last_ok + interval * 2).max(tokio::time::Instant::now());
        let result = loop {
            tokio::select! {
                r = &mut poll => break r,
                _ = tokio::time::sleep_until(mark_at) => {
                    let quiet = last_ok.elapsed().as_secs_f64();
                    mark_stale::<S>(&tx, &made, &shared, me, format!("no answer from {url} for {quiet:.1} s"));
                    mark_at += interval;
                }
            }
        };
        match poller.settle(&url, result) {
            Polled::Fresh { value, at, .. } => {
                last_ok = tokio::time::Instant::now();
                let prev = tx.borrow().clone();
                let changed = prev.data.as_ref() != Some(&value);
                let was_stale = prev.stale_since.is_some();
                let events = match &prev.data {
                    Some(p) if changed => S::changes(p, &value, at),
                    _ => Vec::new(),
                };
                let state = Arc::new(SourceState {
                    url: url.clone(),
                    data: Some(value),
                    polled_at: Some(at),
                    stale_since: None,
                    error: None,
                });
                tx.send_replace(state.clone());
                let now = SystemTime::now();
                let mut batch = Batch::default();
                if was_stale {
                    batch.push("status", &state.status(&name, interval, now));
                }
                for e in &events {
                    batch.push_of(S::CHANGE_EVENT, &name, e);
                }
                if changed || was_stale {
                    // The document every reader gets, made once for this state.
                    batch.push_text(S::DOC_EVENT, made.parts().json.text());
                }
                shared.publish(batch);
            }
            Polled::Failed { error, .. } => {
                mark_stale::<S>(&tx, &made, &shared, me, error.to_string())
            }
        }
    }
}
