//! The reads of one `probe` or `record`: every documented GET, sent once, at most
//! [`CONCURRENT_READS`] at a time, bounded by [`MAX_READS`], [`MAX_HELD`] and [`DEADLINE`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::StreamExt as _;
use serde_json::Value;

use super::{App, CONCURRENT_READS, DEADLINE, MAX_HELD, MAX_READS};
use crate::error::Error;
use crate::ident::Ident;
use crate::media::endpoints::Call;
use crate::media::table::consts as ep;
use crate::transport::{Request, Transport};

/// Decodes a 2xx body as showctl reads it.
type Check = Arc<dyn Fn(&[u8]) -> Result<(), String> + Send + Sync>;

/// One GET and its answer, as `record` keeps it.
#[derive(Clone)]
pub struct Exchange {
    pub request: Request,
    /// 200 for a 2xx answer, the status of an error answer, `None` when none came.
    pub status: Option<u16>,
    /// The body of a 2xx answer, or the start of an error's body (key scrubbed).
    pub body: Bytes,
    pub seconds: f64,
    pub error: Option<Error>,
    /// The documented path that answered 404 or 405 before this one (`/blend` before
    /// `/layerBlend`).
    pub instead_of: Option<Box<Exchange>>,
    pub(super) check: Option<Check>,
    /// Refused as larger than what was left of [`MAX_HELD`].
    pub(super) over_budget: bool,
}

impl Exchange {
    /// The body as JSON (2xx answers).
    pub fn json(&self) -> Option<Value> {
        if self.error.is_some() || self.body.is_empty() {
            return None;
        }
        serde_json::from_slice(&self.body).ok()
    }
}

fn check_of<T: 'static>(call: &Call<T>) -> Check {
    let decode = call.decode;
    Arc::new(move |body: &[u8]| decode(body).map(drop))
}

/// What the reads of one `probe` or `record` may still use.
pub(super) struct Budget {
    within: Duration,
    deadline: tokio::time::Instant,
    held: AtomicUsize,
}

impl Budget {
    fn new(within: Duration) -> Self {
        Budget {
            within,
            deadline: tokio::time::Instant::now() + within,
            held: AtomicUsize::new(0),
        }
    }
    fn left(&self) -> usize {
        MAX_HELD.saturating_sub(self.held.load(Ordering::Relaxed))
    }
}

/// Send one GET, once, and keep what came back (the key scrubbed wherever the application
/// echoed it, in any form).
pub(super) async fn read(
    transport: &Transport,
    mut request: Request,
    check: Option<Check>,
    budget: Option<&Budget>,
) -> Exchange {
    let left = budget.map(Budget::left);
    let cap = request.max_reply;
    if let Some(left) = left {
        request.max_reply = Some(cap.map_or(left, |c| c.min(left)));
    }
    let started = Instant::now();
    let result = transport.attempt(&request).await;
    let seconds = started.elapsed().as_secs_f64();
    let lowered = request.max_reply != cap;
    let over_budget =
        lowered && matches!(&result, Err(Error::Decode { body, .. }) if body.is_empty());
    request.max_reply = cap;
    let (status, body, error) = match result {
        Ok(body) => (Some(200), body, None),
        Err(e) => match &e {
            Error::Api { status, body, .. } => (
                Some(*status),
                Bytes::from(body.clone().into_bytes()),
                Some(e),
            ),
            _ => (None, Bytes::new(), Some(e)),
        },
    };
    let body = match transport.target().scrub_all(&body) {
        std::borrow::Cow::Owned(clean) => Bytes::from(clean),
        std::borrow::Cow::Borrowed(_) => body,
    };
    if let Some(b) = budget {
        b.held.fetch_add(body.len(), Ordering::Relaxed);
    }
    Exchange {
        request,
        status,
        body,
        seconds,
        error,
        instead_of: None,
        check,
        over_budget,
    }
}

async fn read_call<T: 'static>(
    transport: &Transport,
    call: Call<T>,
    budget: Option<&Budget>,
) -> Exchange {
    let check = check_of(&call);
    let first = read(transport, call.request, Some(check.clone()), budget).await;
    match (call.fallback, first.status) {
        (Some(fallback), Some(404 | 405)) => {
            let mut second = read(transport, fallback, Some(check), budget).await;
            second.instead_of = Some(Box::new(first));
            second
        }
        _ => first,
    }
}

/// How a layer or playlist is addressed in reads: its UUID, else its index.
fn ident_of(obj: &Value, index: usize) -> Ident {
    match obj.get("uuid").and_then(Value::as_str) {
        Some(u) if !u.is_empty() && u != "null" => Ident::Name(u.to_string()),
        _ => Ident::Index(index as i64),
    }
}

/// The layer objects of a `/data/layers` answer (`{"data": [{"layer": {...}}]}` or bare).
pub fn layer_objects(body: &Value) -> Vec<Value> {
    let items = match body {
        Value::Object(o) => o.get("data").and_then(Value::as_array).cloned(),
        Value::Array(a) => Some(a.clone()),
        _ => None,
    };
    items
        .unwrap_or_default()
        .into_iter()
        .map(|item| match item {
            Value::Object(mut o) if o.contains_key("layer") => {
                o.remove("layer").unwrap_or(Value::Null)
            }
            other => other,
        })
        .collect()
}

/// The root playlist of a `/data/playlists` answer.
pub fn root_playlist(body: &Value) -> Option<&Value> {
    match body.get("playlist") {
        Some(p) if p.is_object() => Some(p),
        _ if body.get("children").is_some() || body.get("items").is_some() => Some(body),
        _ => None,
    }
}

/// Every playlist below the root (depth first), and every playlist's cues.
pub(super) fn playlists_below(root: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    fn walk<'a>(p: &'a Value, out: &mut Vec<&'a Value>) {
        for child in p
            .get("children")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.push(child);
            walk(child, out);
        }
    }
    walk(root, &mut out);
    out
}

pub(super) fn items(p: &Value) -> &[Value] {
    p.get("items")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The reads of one `probe` or `record`, and the bounds they reached.
pub struct Reads {
    pub exchanges: Vec<Exchange>,
    /// One line per bound reached (see [`Report::limits`]).
    pub limits: Vec<String>,
}

/// Reads planned, not yet sent.
type Planned<'a> = Vec<BoxFuture<'a, Exchange>>;

/// Send `planned` ([`CONCURRENT_READS`] at a time, answers kept in order) until the deadline or
/// [`MAX_HELD`]; the limits reached are added to `limits`.
async fn run_reads(
    planned: Planned<'_>,
    budget: &Budget,
    out: &mut Vec<Exchange>,
    limits: &Mutex<Vec<String>>,
) {
    let total = planned.len();
    let mut answers = futures::stream::iter(planned).buffered(CONCURRENT_READS);
    let mut done = 0;
    loop {
        match tokio::time::timeout_at(budget.deadline, answers.next()).await {
            Ok(Some(ex)) => {
                done += 1;
                let over = ex.over_budget;
                out.push(ex);
                if over || budget.left() == 0 {
                    limit(
                        limits,
                        format!(
                        "{} of {total} planned reads not kept: the answers held reached {MAX_HELD} \
                         bytes (MAX_HELD)",
                        total - done + usize::from(over)
                    ),
                    );
                    return;
                }
            }
            Ok(None) => return,
            Err(_) => {
                limit(
                    limits,
                    format!(
                        "{} of {total} planned reads not answered within the deadline of {} s \
                     (DEADLINE)",
                        total - done,
                        budget.within.as_secs_f64()
                    ),
                );
                return;
            }
        }
    }
}

fn limit(limits: &Mutex<Vec<String>>, line: String) {
    log::warn!("probe/record: {line}");
    limits.lock().unwrap_or_else(|p| p.into_inner()).push(line);
}

/// Every documented read of the application, each layer's, playlist's and cue's included, in
/// order: the first read is the one whose answer decides the authentication. Bounded: at most
/// [`MAX_READS`] reads, [`CONCURRENT_READS`] at a time, [`MAX_HELD`] bytes of answers, and
/// [`DEADLINE`] in all; the result says which bound stopped it.
pub async fn read_everything(transport: &Transport, app: App) -> Reads {
    read_within(transport, app, DEADLINE).await
}

/// [`read_everything`] with another deadline.
async fn read_within(transport: &Transport, app: App, deadline: Duration) -> Reads {
    let budget = Budget::new(deadline);
    let limits = Mutex::new(Vec::new());
    let mut out = Vec::new();
    if app == App::Scoreboard {
        let req = Request::get("/data/scores");
        let check: Check = Arc::new(|b: &[u8]| crate::score::ScoreRecord::from_slice(b).map(drop));
        let planned: Planned = vec![Box::pin(read(transport, req, Some(check), Some(&budget)))];
        run_reads(planned, &budget, &mut out, &limits).await;
        return Reads {
            exchanges: out,
            limits: limits.into_inner().unwrap_or_else(|p| p.into_inner()),
        };
    }
    let budget = &budget;
    let mut planned: Planned = Vec::new();
    let mut skipped = 0usize;
    macro_rules! get {
        ($ep:expr) => {
            get!($ep, &[])
        };
        ($ep:expr, $ids:expr) => {
            match $ep.at($ids) {
                Ok(call) if out.len() + planned.len() < MAX_READS => {
                    planned.push(Box::pin(read_call(transport, call, Some(budget))))
                }
                Ok(_) => skipped += 1,
                Err(e) => log::debug!("probe: {e}"),
            }
        };
    }
    get!(ep::LAYERS);
    run_reads(std::mem::take(&mut planned), budget, &mut out, &limits).await;
    let stopped = |out: &Vec<Exchange>, limits: &Mutex<Vec<String>>| {
        out.is_empty() || !limits.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
    };
    if stopped(&out, &limits) || out[0].status.is_none() || matches!(out[0].status, Some(401 | 403))
    {
        return Reads {
            exchanges: out,
            limits: limits.into_inner().unwrap_or_else(|p| p.into_inner()),
        };
    }
    get!(ep::PLAYLISTS);
    get!(ep::BLEND_MODES);
    get!(ep::LAYER_PRESETS);
    get!(ep::TARGET_SETS);
    get!(ep::EFFECTS);
    get!(ep::WORKSPACE_EFFECTS);
    get!(ep::EFFECT_PRESETS);
    get!(ep::WORKSPACE_EFFECT_PRESET);
    get!(ep::TRANSITIONS);
    get!(ep::WORKSPACE_TRANSITION);
    get!(ep::WORKSPACE_TRANSITION_DURATION);
    get!(ep::TRANSPORT_STATES);
    run_reads(std::mem::take(&mut planned), budget, &mut out, &limits).await;
    if !stopped(&out, &limits) {
        let layers = out[0].json().map(|v| layer_objects(&v)).unwrap_or_default();
        for (i, layer) in layers.iter().enumerate() {
            let id = ident_of(layer, i);
            let ids: &[&Ident] = &[&id];
            get!(ep::LAYER_STATE, ids);
            get!(ep::LAYER_OPACITY, ids);
            get!(ep::LAYER_BLEND_MODE, ids);
            get!(ep::LAYER_BLEND, ids);
            get!(ep::LAYER_LAYER_PRESETS, ids);
            get!(ep::LAYER_TARGET_SET, ids);
            get!(ep::LAYER_EFFECTS, ids);
            get!(ep::LAYER_EFFECT_PRESET, ids);
            get!(ep::LAYER_TRANSITION, ids);
            get!(ep::LAYER_TRANSITION_DURATION, ids);
            get!(ep::LAYER_TRANSPORT_STATE, ids);
        }
        // The video input playlist, addressed as documented (index -1).
        get!(ep::PLAYLIST, &[&Ident::Index(-1)]);
        let tree = out.get(1).and_then(Exchange::json);
        if let Some(root) = tree.as_ref().and_then(root_playlist) {
            for (i, playlist) in playlists_below(root).into_iter().enumerate() {
                let pid = ident_of(playlist, i);
                get!(ep::PLAYLIST, &[&pid]);
                for (j, cue) in items(playlist).iter().enumerate() {
                    let cid = ident_of(cue, j);
                    get!(ep::CUE, &[&pid, &cid]);
                }
            }
        }
        if skipped > 0 {
            limit(&limits, format!(
                "{skipped} reads not sent: one probe or record sends at most {MAX_READS} (MAX_READS)"
            ));
        }
        run_reads(planned, budget, &mut out, &limits).await;
    }
    Reads {
        exchanges: out,
        limits: limits.into_inner().unwrap_or_else(|p| p.into_inner()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::test_server::{self, Reply};
    use crate::transport::Config;
    use serde_json::json;

    #[test]
    fn layers_and_playlists_are_found_in_every_form() {
        let wrapped = json!({"data": [{"layer": {"name": "A"}}, {"layer": {"name": "B"}}]});
        let bare = json!([{"name": "A"}]);
        assert_eq!(layer_objects(&wrapped).len(), 2);
        assert_eq!(layer_objects(&bare)[0]["name"], "A");
        let tree = json!({"playlist": {"name": "Root", "items": [{"name": "c"}], "children": [
            {"name": "P", "items": [], "children": [{"name": "Q", "items": [{"name": "d"}]}]}
        ]}});
        let root = root_playlist(&tree).unwrap();
        let below = playlists_below(root);
        assert_eq!(below.len(), 2);
        assert_eq!(
            items(root).len() + below.iter().map(|p| items(p).len()).sum::<usize>(),
            2
        );
        assert_eq!(ident_of(&json!({"uuid": "null"}), 3), Ident::Index(3));
    }

    /// A server that stalls after `/data/layers` costs one timeout per [`CONCURRENT_READS`]
    /// reads, not per read, and the reads end at the deadline, which the result reports.
    #[tokio::test]
    async fn a_stalling_server_costs_the_deadline_not_every_timeout() {
        let layers: String = format!(
            "{{\"data\": [{}]}}",
            (0..40)
                .map(|i| format!("{{\"layer\": {{\"name\": \"L{i}\"}}}}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let layers: &'static str = Box::leak(layers.into_boxed_str());
        let server = test_server::start(vec![
            Reply::Status(200, layers),
            Reply::Slow(Duration::from_secs(30), 200, "{}"),
        ])
        .await;
        let mut config = Config::new(server.url.clone());
        config.timeout = Duration::from_millis(500);
        let transport = Transport::new(&config).unwrap();
        let started = Instant::now();
        let reads = read_within(&transport, App::Media, Duration::from_millis(1800)).await;
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "{took:?}");
        assert_eq!(reads.limits.len(), 1, "{:?}", reads.limits);
        assert!(reads.limits[0].contains("(DEADLINE)"), "{:?}", reads.limits);
        // Three rounds of timeouts fit: one read after another, three reads would have.
        assert!(
            reads.exchanges.len() > 2 * CONCURRENT_READS,
            "{}",
            reads.exchanges.len()
        );
        assert!(reads.exchanges[1..].iter().all(|e| e.status.is_none()));
    }
}
