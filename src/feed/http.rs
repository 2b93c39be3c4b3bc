//! The feed's HTTP side: the page, the documents and the Server-Sent Events stream.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Router};
use futures::stream::{self, Stream};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::sync::{broadcast, oneshot};
use tower::ServiceExt;

use super::{scores_csv, scores_xml, Message, Shared, SSE_BUFFER};

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/feed.js");
const STYLE: &str = include_str!("page/feed.css");

/// The kernel send buffer of a connection: small, so that a client that stops reading is
/// noticed (and dropped) after a bounded number of messages rather than megabytes.
const SEND_BUFFER: usize = 32 * 1024;

/// How far one connection's SSE stream got (set by the stream, read by its watchdog).
#[derive(Debug, Default)]
pub(crate) struct Activity {
    sse: AtomicBool,
    delivered: AtomicU64,
}

fn with_type(body: impl Into<Body>, content_type: &'static str) -> Response {
    let mut r = Response::new(body.into());
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Graphics tools load data sources from pages of their own origin (or from file://).
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
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

async fn transport(State(shared): State<Arc<Shared>>) -> Response {
    match shared.transport_json(SystemTime::now()) {
        Some(doc) => with_type(doc.to_string(), "application/json"),
        None => not_polled("media application", "--media"),
    }
}

async fn scores_json(State(shared): State<Arc<Shared>>) -> Response {
    match shared.scores_json(SystemTime::now()) {
        Some(doc) => with_type(doc.to_string(), "application/json"),
        None => not_polled("scoreboard", "--scoreboard"),
    }
}

async fn scores_xml_route(State(shared): State<Arc<Shared>>) -> Response {
    match shared.scores_flat(SystemTime::now()) {
        Some(flat) => with_type(scores_xml(&flat), "application/xml; charset=utf-8"),
        None => not_polled("scoreboard", "--scoreboard"),
    }
}

async fn scores_csv_route(State(shared): State<Arc<Shared>>) -> Response {
    match shared.scores_flat(SystemTime::now()) {
        Some(flat) => with_type(scores_csv(&flat), "text/csv; charset=utf-8"),
        None => not_polled("scoreboard", "--scoreboard"),
    }
}

fn event(name: &str, data: &str) -> Event {
    Event::default().event(name).data(data)
}

/// The current documents (and the status of each source), sent first to a new client.
fn initial(shared: &Shared) -> Vec<Event> {
    let now = SystemTime::now();
    let mut out = Vec::new();
    let docs: [(&str, Option<Value>); 2] = [
        ("transport", shared.transport_json(now)),
        ("scores", shared.scores_json(now)),
    ];
    for (name, doc) in docs {
        if let Some(doc) = doc {
            out.push(event(name, &doc.to_string()));
        }
    }
    out
}

/// Counts a connected SSE client for as long as its stream lives.
struct Client(Arc<Shared>);

impl Client {
    fn new(shared: Arc<Shared>) -> Self {
        shared.clients.send_modify(|n| *n += 1);
        Client(shared)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.0.clients.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// `GET /events`: the current documents, then every message as it is published. A client that
/// falls more than [`SSE_BUFFER`] messages behind is dropped (a browser reconnects by itself
/// and gets the current documents again).
async fn events(
    State(shared): State<Arc<Shared>>,
    activity: Option<Extension<Arc<Activity>>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = shared.bus.subscribe();
    let activity = activity.map(|Extension(a)| a).unwrap_or_default();
    activity
        .delivered
        .store(shared.published(), Ordering::SeqCst);
    activity.sse.store(true, Ordering::SeqCst);
    let first = initial(&shared).into_iter();
    let client = Client::new(shared);
    let stream = stream::unfold(
        (first, rx, activity, client),
        |(mut first, mut rx, activity, client)| async move {
            if let Some(e) = first.next() {
                return Some((Ok(e), (first, rx, activity, client)));
            }
            match rx.recv().await {
                Ok(m) => {
                    let Message {
                        seq,
                        event: name,
                        data,
                    } = &*m;
                    activity.delivered.store(*seq, Ordering::SeqCst);
                    Some((Ok(event(name, data)), (first, rx, activity, client)))
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    log::warn!("feed: an SSE client fell {n} messages behind; dropping it");
                    None
                }
                Err(broadcast::error::RecvError::Closed) => None,
            }
        },
    );
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
        .route("/scores.json", get(scores_json))
        .route("/scores.xml", get(scores_xml_route))
        .route("/scores.csv", get(scores_csv_route))
        .route("/events", get(events))
        .with_state(shared)
}

/// Resolves when the connection's SSE stream is more than [`SSE_BUFFER`] messages behind what
/// was published: its client stopped reading and the socket is full.
async fn stuck(activity: Arc<Activity>, shared: Arc<Shared>) {
    let tick = shared.interval.max(Duration::from_millis(100));
    loop {
        tokio::time::sleep(tick).await;
        if activity.sse.load(Ordering::SeqCst) {
            let behind = shared
                .published()
                .saturating_sub(activity.delivered.load(Ordering::SeqCst));
            if behind > SSE_BUFFER as u64 {
                return;
            }
        }
    }
}

/// Serve until told to stop; stopping closes every open connection. A connection whose SSE
/// stream stops being read is closed by its watchdog ([`stuck`]).
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    stop: oneshot::Receiver<()>,
) {
    let router = router(shared.clone());
    crate::serve::accept_until("feed", listener, stop, move |stream| {
        let _ = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER);
        let activity = Arc::new(Activity::default());
        let (router, conn_activity, shared) = (router.clone(), activity.clone(), shared.clone());
        let service = hyper::service::service_fn(move |req: hyper::Request<_>| {
            let mut req = req.map(Body::new);
            req.extensions_mut().insert(conn_activity.clone());
            router.clone().oneshot(req)
        });
        async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                r = conn => if let Err(e) = r {
                    log::debug!("feed: connection ended: {e}");
                },
                _ = stuck(activity, shared) => {
                    log::warn!("feed: an SSE client stopped reading; dropping it");
                }
            }
        }
    })
    .await;
}
