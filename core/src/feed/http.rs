//! The feed's HTTP side: the page, the documents and the Server-Sent Events stream.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::Method;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Router};
use futures::stream::{self, Stream};
use tokio::sync::{broadcast, watch};
use tower::ServiceExt;
use tower_http::cors::{Any, CorsLayer};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::serve::{Conn, Limits, Running};

use super::cache::{Doc, Format};
use super::{Message, Shared, SSE_BUFFER};

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/feed.js");
const STYLE: &str = include_str!("page/feed.css");

/// The kernel send buffer of a connection: small, so that a client that stops reading is
/// noticed (and dropped) after a bounded number of messages rather than megabytes.
const SEND_BUFFER: usize = 32 * 1024;

/// How long a reader that stopped reading gets, once dropped, to take its last event before
/// its connection is closed.
pub const DROP_GRACE: Duration = Duration::from_secs(5);

/// One connection's SSE stream, as its watchdog sees it.
#[derive(Debug, Default)]
pub(crate) struct Activity {
    /// An SSE stream is being served on the connection.
    sse: AtomicBool,
    /// The last message it took from the ring.
    delivered: AtomicU64,
    /// The watchdog dropped the reader: the stream sends its last event and ends.
    dropped: AtomicBool,
    /// The stream is counted in `Shared::clients`.
    counted: AtomicBool,
}

impl Activity {
    /// The reader no longer counts as a client (its stream ended or it was dropped).
    fn uncount(&self, shared: &Shared) {
        if self.counted.swap(false, Ordering::SeqCst) {
            shared.clients.send_modify(|n| *n = n.saturating_sub(1));
        }
    }
}

fn with_type(body: impl Into<Body>, content_type: &'static str) -> Response {
    let mut r = Response::new(body.into());
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

fn not_polled(what: &str, flag: &str) -> Response {
    let body = serde_json::json!({
        "error": format!("this feed polls no {what}: start it with {flag} URL"),
    });
    let mut r = with_type(body.to_string(), "application/json");
    *r.status_mut() = StatusCode::NOT_FOUND;
    r
}

/// A document as made, answered to this request (304, gzip: [`Doc::answer`]), or 404.
fn answer(
    doc: Option<Arc<Doc>>,
    request: &HeaderMap,
    missing: impl FnOnce() -> Response,
) -> Response {
    match doc {
        Some(doc) => doc.answer(request),
        None => missing(),
    }
}

async fn transport(State(shared): State<Arc<Shared>>, request: HeaderMap) -> Response {
    answer(shared.transport_doc(), &request, || {
        not_polled("media application", "--media")
    })
}

/// `/scores.json`, `/scores.xml`, `/scores.csv`.
async fn scores(shared: Arc<Shared>, format: Format, request: HeaderMap) -> Response {
    answer(shared.scores_doc(format), &request, || {
        not_polled("scoreboard", "--scoreboard")
    })
}

/// 404 for a source name this feed does not poll, listing the ones it does.
fn no_source(shared: &Shared, kind: &str, file: &str) -> Response {
    let names: Vec<&str> = match kind {
        "media" => shared.media.iter().map(|f| f.name.as_str()).collect(),
        _ => shared.scores.iter().map(|f| f.name.as_str()).collect(),
    };
    let body = serde_json::json!({
        "error": format!("no {kind} source for {file:?}; this feed polls: {}", names.join(", ")),
    });
    let mut r = with_type(body.to_string(), "application/json");
    *r.status_mut() = StatusCode::NOT_FOUND;
    r
}

/// `/transport/NAME.json`: one media source's document.
async fn transport_named(
    State(shared): State<Arc<Shared>>,
    Path(file): Path<String>,
    request: HeaderMap,
) -> Response {
    let doc = (file.strip_suffix(".json")).and_then(|name| shared.transport_named(name));
    answer(doc, &request, || no_source(&shared, "media", &file))
}

/// `/scores/NAME.json`, `/scores/NAME.xml`, `/scores/NAME.csv`: one scoreboard's documents.
async fn scores_named(
    State(shared): State<Arc<Shared>>,
    Path(file): Path<String>,
    request: HeaderMap,
) -> Response {
    let (name, ext) = file.rsplit_once('.').unwrap_or((file.as_str(), ""));
    let doc = Format::of(ext).and_then(|format| shared.scores_named(name, format));
    answer(doc, &request, || no_source(&shared, "scoreboard", &file))
}

/// `/sources.json`: every source of the feed, its kind and its documents.
async fn sources(State(shared): State<Arc<Shared>>, request: HeaderMap) -> Response {
    shared.sources_doc.answer(&request)
}

fn event(name: &str, data: &str) -> Event {
    Event::default().event(name).data(data)
}

/// The last event of a stream the feed ends: `end`, with why.
fn end(reason: &str) -> Event {
    event(
        END_EVENT,
        &serde_json::json!({ "reason": reason }).to_string(),
    )
}

/// The SSE event that ends a stream the feed closes (the reader stopped reading or fell
/// behind, or the feed is stopping); its data is `{"reason": ...}`.
pub const END_EVENT: &str = "end";

/// The current documents (and the status of each source), sent first to a new client.
fn initial(shared: &Shared) -> VecDeque<Event> {
    let mut out = VecDeque::new();
    if shared.venue {
        // Named sources: the list first, then each source's own document (as its later
        // `transport` / `scores` events carry it, with its `source`).
        out.push_back(event(VENUE_EVENT, &shared.sources));
        for f in &shared.media {
            if let Some(doc) = shared.transport_named(&f.name) {
                out.push_back(event("transport", &doc.text()));
            }
        }
        for f in &shared.scores {
            if let Some(doc) = shared.scores_named(&f.name, Format::Json) {
                out.push_back(event("scores", &doc.text()));
            }
        }
        return out;
    }
    let docs = [
        ("transport", shared.transport_doc()),
        ("scores", shared.scores_doc(Format::Json)),
    ];
    for (name, doc) in docs {
        if let Some(doc) = doc {
            out.push_back(event(name, &doc.text()));
        }
    }
    out
}

/// The first SSE event of a feed with named sources: `{"sources": [{"name", "kind",
/// "documents"}]}`.
pub const VENUE_EVENT: &str = "venue";

/// A connected SSE client: counted (in `Shared::clients`) until its stream ends or its watchdog
/// drops it, whichever comes first.
struct Client {
    shared: Arc<Shared>,
    activity: Arc<Activity>,
}

impl Client {
    fn new(shared: Arc<Shared>, activity: Arc<Activity>) -> Self {
        activity.dropped.store(false, Ordering::SeqCst);
        activity
            .delivered
            .store(shared.published(), Ordering::SeqCst);
        activity.counted.store(true, Ordering::SeqCst);
        shared.clients.send_modify(|n| *n += 1);
        activity.sse.store(true, Ordering::SeqCst);
        Client { shared, activity }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.activity.sse.store(false, Ordering::SeqCst);
        self.activity.uncount(&self.shared);
    }
}

/// Where a stream is: events of the message being sent, the ring, and whether it ended.
struct Reader {
    pending: VecDeque<Event>,
    rx: broadcast::Receiver<Arc<Message>>,
    closing: watch::Receiver<bool>,
    client: Client,
    done: bool,
}

impl Reader {
    /// The next event: what is pending, else the next message of the ring; the last event
    /// (`end`) when the reader was dropped, fell behind the ring, or the feed is stopping.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if self.done {
                return None;
            }
            let activity = &self.client.activity;
            if activity.dropped.load(Ordering::SeqCst) {
                let why = format!("stopped reading: more than {SSE_BUFFER} polls behind");
                return Some(self.end(&why));
            }
            if let Some(e) = self.pending.pop_front() {
                return Some(e);
            }
            let message = tokio::select! {
                biased;
                _ = self.closing.wait_for(|c| *c) => None,
                m = self.rx.recv() => Some(m),
            };
            let Some(message) = message else {
                return Some(self.end("the feed is stopping"));
            };
            match message {
                Ok(m) => {
                    activity.delivered.store(m.seq, Ordering::SeqCst);
                    self.pending = m.events.iter().map(|(n, d)| event(n, d)).collect();
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    log::warn!("feed: an SSE client fell {n} polls behind; dropping it");
                    return Some(self.end(&format!("fell {n} polls behind")));
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    fn end(&mut self, reason: &str) -> Event {
        self.done = true;
        self.client.activity.uncount(&self.client.shared);
        end(reason)
    }
}

/// `GET /events`: the current documents, then every message as it is published. A reader
/// that stops reading (more than [`SSE_BUFFER`] polls behind) is dropped with a last `end`
/// event (a browser reconnects by itself and gets the current documents again).
async fn events(
    State(shared): State<Arc<Shared>>,
    activity: Option<Extension<Arc<Activity>>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = shared.bus.subscribe();
    let activity = activity.map(|Extension(a)| a).unwrap_or_default();
    let reader = Reader {
        pending: initial(&shared),
        rx,
        closing: shared.closing.subscribe(),
        client: Client::new(shared, activity),
        done: false,
    };
    let stream = stream::unfold(reader, |mut r| async move {
        let e = r.next().await?;
        Some((Ok(e), r))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { with_type(PAGE, "text/html; charset=utf-8") }),
        )
        .route(
            "/feed.js",
            get(|| async { with_type(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/feed.css",
            get(|| async { with_type(STYLE, "text/css; charset=utf-8") }),
        )
        .route("/transport.json", get(transport))
        .route(
            "/scores.json",
            get(|State(s), h| scores(s, Format::Json, h)),
        )
        .route("/scores.xml", get(|State(s), h| scores(s, Format::Xml, h)))
        .route("/scores.csv", get(|State(s), h| scores(s, Format::Csv, h)))
        .route("/scores/{file}", get(scores_named))
        .route("/transport/{file}", get(transport_named))
        .route("/sources.json", get(sources))
        // A reverse proxy (nginx) passes the stream on as it comes rather than buffering it.
        .route(
            "/events",
            get(events).layer((
                SetResponseHeaderLayer::overriding(
                    header::HeaderName::from_static("x-accel-buffering"),
                    HeaderValue::from_static("no"),
                ),
                // Not the `no-cache` the SSE response says by itself: nothing keeps a stream.
                SetResponseHeaderLayer::overriding(
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("no-store"),
                ),
            )),
        )
        .with_state(shared)
        // Everything the feed serves, the stream included: never cached (but the documents,
        // which say `no-cache` themselves: a reader may keep one and ask whether it is still
        // current, `ETag`), and readable by pages of any origin (graphics tools load data
        // sources from their own origin or file://).
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .layer(
            CorsLayer::new()
                .allow_origin(Any)
                .allow_methods([Method::GET]),
        )
}

/// Resolves when the connection's SSE reader stopped reading (its stream is more than
/// [`SSE_BUFFER`] polls behind what was published) and has not taken its last event within
/// [`DROP_GRACE`]: the connection is then closed.
async fn stalled(activity: Arc<Activity>, shared: Arc<Shared>) {
    let tick = shared.interval.max(Duration::from_millis(100));
    loop {
        tokio::time::sleep(tick).await;
        if !activity.sse.load(Ordering::SeqCst) || activity.dropped.load(Ordering::SeqCst) {
            continue;
        }
        let behind = shared
            .published()
            .saturating_sub(activity.delivered.load(Ordering::SeqCst));
        if behind <= SSE_BUFFER as u64 {
            continue;
        }
        log::warn!("feed: an SSE client stopped reading ({behind} polls behind); dropping it");
        activity.dropped.store(true, Ordering::SeqCst);
        activity.uncount(&shared);
        let deadline = tokio::time::Instant::now() + DROP_GRACE;
        while tokio::time::Instant::now() < deadline {
            if !activity.sse.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(tick.min(Duration::from_millis(100))).await;
        }
        if activity.sse.load(Ordering::SeqCst) {
            return;
        }
    }
}

/// Serve on `rt` through the shared serve path; each connection has a watchdog
/// ([`stalled`]) that drops an SSE reader that stopped reading.
pub(crate) fn start(
    rt: &tokio::runtime::Handle,
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    limits: Limits,
) -> std::io::Result<Running> {
    let router = router(shared.clone());
    Running::start(rt, "feed", listener, limits, move |stream| {
        let _ = socket2::SockRef::from(stream).set_send_buffer_size(SEND_BUFFER);
        let activity = Arc::new(Activity::default());
        let (router, conn_activity) = (router.clone(), activity.clone());
        let service = hyper::service::service_fn(move |req: hyper::Request<_>| {
            let mut req = req.map(Body::new);
            req.extensions_mut().insert(conn_activity.clone());
            router.clone().oneshot(req)
        });
        Conn {
            service,
            close_when: Some(Box::pin(stalled(activity, shared.clone()))),
        }
    })
}
