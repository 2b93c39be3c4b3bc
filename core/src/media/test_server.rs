//! A scripted loopback server for the tests of the media client: each request is answered by
//! a closure, and logged as `METHOD /path?query body`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::routing::any;
use axum::Router;

use super::client::MediaClient;
use crate::transport::{Config, Target, Transport};

/// One request as the handler sees it.
pub struct Req {
    pub method: String,
    /// The path after `/api/0`, percent-decoded.
    pub path: String,
    pub body: String,
    pub auth: Option<String>,
}

impl Req {
    /// The JSON number under "value" of the body.
    pub fn value(&self) -> f64 {
        serde_json::from_str::<serde_json::Value>(&self.body)
            .ok()
            .and_then(|v| v["value"].as_f64())
            .unwrap_or(f64::NAN)
    }
}

/// An answer: a status, a body, and how long to wait before sending it.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
}

impl Reply {
    pub fn ok(body: impl Into<String>) -> Self {
        Reply {
            status: 200,
            body: body.into(),
            delay: Duration::ZERO,
        }
    }
    pub fn status(status: u16) -> Self {
        Reply {
            status,
            body: String::new(),
            delay: Duration::ZERO,
        }
    }
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

pub type Log = Arc<Mutex<Vec<String>>>;

/// Serve `handler` on a loopback port; returns the URL and the request log.
pub async fn serve<F>(handler: F) -> (String, Log)
where
    F: Fn(&Req) -> Reply + Send + Sync + 'static,
{
    let (url, log, _) = serve_counting(handler).await;
    (url, log)
}

/// [`serve`], also counting the most requests that were in the server at once.
pub async fn serve_counting<F>(handler: F) -> (String, Log, Arc<AtomicUsize>)
where
    F: Fn(&Req) -> Reply + Send + Sync + 'static,
{
    let log: Log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    let handler = Arc::new(handler);
    let now = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let counters = (now.clone(), peak.clone());
    let app = Router::new().fallback(any(
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let (seen, handler) = (seen.clone(), handler.clone());
            let (now, peak) = counters.clone();
            async move {
                peak.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                let raw = uri.path().strip_prefix("/api/0").unwrap_or(uri.path());
                let req = Req {
                    method: method.to_string(),
                    path: percent_encoding::percent_decode_str(raw)
                        .decode_utf8_lossy()
                        .into_owned(),
                    body: String::from_utf8_lossy(&body).into_owned(),
                    auth: headers
                        .get("authorization")
                        .map(|v| v.to_str().unwrap_or("").to_string()),
                };
                let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
                seen.lock().unwrap().push(
                    format!("{} {raw}{query} {}", req.method, req.body)
                        .trim_end()
                        .to_string(),
                );
                let reply = handler(&req);
                tokio::time::sleep(reply.delay).await;
                now.fetch_sub(1, Ordering::SeqCst);
                (StatusCode::from_u16(reply.status).unwrap(), reply.body)
            }
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, log, peak)
}

/// A loopback URL where connections are refused: its port is bound and never listened on, and
/// stays bound until the tests end (a released port could be taken by another process).
pub async fn dead_url() -> String {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let url = format!("http://{}", socket.local_addr().unwrap());
    std::mem::forget(socket);
    url
}

pub fn config(url: &str) -> Config {
    let mut c = Config::new(url);
    c.retries = 0;
    c.timeout = Duration::from_secs(2);
    c
}

pub fn client(url: &str) -> MediaClient {
    MediaClient::new(Arc::new(Transport::new(&config(url)).unwrap()))
}

pub fn mirrored(config: &Config, mirrors: &[(&str, Option<&str>)]) -> MediaClient {
    let targets = mirrors
        .iter()
        .map(|(u, k)| Target::new(u, *k).unwrap())
        .collect();
    MediaClient::with_mirrors(Arc::new(Transport::new(config).unwrap()), targets).unwrap()
}

/// The lines of a log that start with `prefix`.
pub fn lines(log: &Log, prefix: &str) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|l| l.starts_with(prefix))
        .cloned()
        .collect()
}

/// A small stateful stand-in for the layers of the application: opacity, mute and hide, read
/// with `GET /data/layers`, `/data/layer/{id}` and `/opacity/layer/{id}`, changed with the
/// matching commands. A command becomes visible `lag` reads after it was answered (the
/// application answers 200 before it applies a change), and an opacity is stored in single
/// precision (as the application keeps it: 0.3 reads back 0.30000001192092896) when `round` is
/// set.
#[derive(Default)]
pub struct Layers {
    pub layers: Vec<TestLayer>,
    pub lag: usize,
    pub round: bool,
    /// Commands that answer 200 but are never applied.
    pub ignore: bool,
    reads: usize,
    pending: Vec<(usize, usize, Change)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TestLayer {
    pub name: String,
    pub uuid: String,
    pub opacity: f64,
    pub muted: bool,
    pub hidden: bool,
}

#[derive(Clone, Copy)]
enum Change {
    Opacity(f64),
    Muted(bool),
    Hidden(bool),
}

impl Layers {
    pub fn named(names: &[&str]) -> Self {
        Layers {
            layers: names
                .iter()
                .enumerate()
                .map(|(i, n)| TestLayer {
                    name: n.to_string(),
                    uuid: format!("UUID-{i}"),
                    opacity: 1.0,
                    muted: false,
                    hidden: false,
                })
                .collect(),
            ..Default::default()
        }
    }

    fn find(&self, id: &str) -> Option<usize> {
        if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
            return id.parse().ok().filter(|i| *i < self.layers.len());
        }
        self.layers
            .iter()
            .position(|l| l.uuid.eq_ignore_ascii_case(id))
            .or_else(|| self.layers.iter().position(|l| l.name == id))
    }

    fn json(l: &TestLayer) -> serde_json::Value {
        serde_json::json!({"uuid": l.uuid, "name": l.name, "opacity": l.opacity,
                           "isMuted": l.muted, "isHidden": l.hidden})
    }

    pub fn handle(&mut self, req: &Req) -> Reply {
        let parts: Vec<&str> = req.path.trim_start_matches('/').splitn(3, '/').collect();
        if req.method == "GET" {
            self.reads += 1;
            let reads = self.reads;
            let due: Vec<_> = self
                .pending
                .iter()
                .filter(|p| p.0 <= reads)
                .copied()
                .collect();
            self.pending.retain(|p| p.0 > reads);
            for (_, i, change) in due {
                self.set(i, change);
            }
        }
        let layer = |s: &Self| parts.get(2).and_then(|id| s.find(id));
        match (req.method.as_str(), parts.as_slice()) {
            ("GET", ["data", "layers"]) => {
                let data: Vec<_> = self
                    .layers
                    .iter()
                    .map(|l| serde_json::json!({ "layer": Self::json(l) }))
                    .collect();
                Reply::ok(serde_json::json!({ "data": data }).to_string())
            }
            ("GET", ["data", "layer", _]) => match layer(self) {
                Some(i) => {
                    Reply::ok(serde_json::json!({"layer": Self::json(&self.layers[i])}).to_string())
                }
                None => Reply::status(400),
            },
            ("GET", ["opacity", "layer", _]) => match layer(self) {
                Some(i) => Reply::ok(
                    serde_json::json!({"opacity": {"value": self.layers[i].opacity}}).to_string(),
                ),
                None => Reply::status(400),
            },
            ("POST", [op, "workspace"]) => {
                for i in 0..self.layers.len() {
                    if let Some(change) = Self::change(op, req) {
                        self.apply(i, change);
                    }
                }
                Reply::ok("")
            }
            ("POST", [op, "layer", _]) => match (layer(self), Self::change(op, req)) {
                (Some(i), Some(mut change)) => {
                    if let (Change::Opacity(v), true) = (change, self.round) {
                        change = Change::Opacity(f64::from(v as f32));
                    }
                    self.apply(i, change);
                    Reply::ok("")
                }
                _ => Reply::status(400),
            },
            _ => Reply::status(404),
        }
    }

    fn change(op: &str, req: &Req) -> Option<Change> {
        Some(match op {
            "opacity" => Change::Opacity(req.value().clamp(0.0, 1.0)),
            "mute" | "unmute" => Change::Muted(op == "mute"),
            "hide" | "unhide" => Change::Hidden(op == "hide"),
            _ => return None,
        })
    }

    fn apply(&mut self, i: usize, change: Change) {
        match (self.ignore, self.lag) {
            (true, _) => {}
            (false, 0) => self.set(i, change),
            (false, lag) => self.pending.push((self.reads + lag, i, change)),
        }
    }

    fn set(&mut self, i: usize, change: Change) {
        let l = &mut self.layers[i];
        match change {
            Change::Opacity(v) => l.opacity = v,
            Change::Muted(v) => l.muted = v,
            Change::Hidden(v) => l.hidden = v,
        }
    }
}

/// Serve a [`Layers`] state; returns the URL, the log and the state.
pub async fn serve_layers(layers: Layers) -> (String, Log, Arc<Mutex<Layers>>) {
    let state = Arc::new(Mutex::new(layers));
    let s = state.clone();
    let (url, log) = serve(move |req| s.lock().unwrap().handle(req)).await;
    (url, log, state)
}
