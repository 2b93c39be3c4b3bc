//! The built-in simulator: a stateful stand-in for both applications on a loopback port, run
//! on a tokio runtime given at start. It answers like the field does (an empty 200 for a
//! command, 400 for an unknown layer or a malformed JSON value, 404 for an unknown path, 405 for
//! a wrong method), accepts what the applications accept and reports what breaks the
//! documents (`warnings`, or 400 in strict mode), logs what it receives, and injects faults
//! for tests: answer a status, delay every answer, or close the connection without answering.
//! It refuses (403) a request whose `Host` is not one of its names (DNS rebinding) and a command
//! sent by a web page of another origin (`crate::serve::guard`).
//!
//! It is a separate stand-in: nothing here comes from the client's code (its own description
//! of each sport and resource is written from the API documents and the field facts).

pub mod answers;
mod routes;
mod scores;
mod state;
mod wire;
pub mod workspace;

#[cfg(test)]
pub(crate) mod tests;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{header, request::Parts, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::body::Incoming;
use serde_json::Value;
use tower::ServiceExt;

use crate::error::Error;
use crate::serve::guard::Guard;
use crate::serve::{Conn, Limits, Running};

pub use state::{Bad, Selection, World};
pub use workspace::{Given, LoadError, Workspace, DEFAULT_WORKSPACE, WORKSPACE_FILE_NAME};

/// Requests kept in the log (the oldest are dropped beyond this).
pub const LOG_CAPACITY: usize = 10_000;
/// Longest delay `delay()` accepts (seconds).
pub const MAX_DELAY: f64 = 300.0;
/// Warnings kept (the oldest are dropped beyond this).
pub const WARNING_CAPACITY: usize = 10_000;

/// The most bytes of a request's body the log keeps (the rest is dropped; `body_len` keeps the
/// length sent). A command's body is well below this.
pub const LOG_BODY: usize = 4096;
/// The most bytes of a request's header names and values the log keeps (the headers past this
/// are left out), and of its path and of its query.
pub const LOG_TEXT: usize = 4096;

/// One request as the simulator received it. The log holds at most [`LOG_CAPACITY`] of them,
/// each at most about `LOG_BODY + 3 × LOG_TEXT` bytes, so it stays under 200 MB whatever is
/// sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Record {
    pub method: String,
    /// The path as sent (percent-encoded), with the /api/0 prefix, without the query (its
    /// first [`LOG_TEXT`] bytes).
    pub path: String,
    /// Decoded query pairs, in order (while they fit in [`LOG_TEXT`] bytes).
    pub query: Vec<(String, String)>,
    /// Header names (lower case) and values, while they fit in [`LOG_TEXT`] bytes;
    /// `Authorization` is left out.
    pub headers: Vec<(String, String)>,
    /// The body as sent, its first [`LOG_BODY`] bytes.
    pub body: Bytes,
    /// The length of the body as sent.
    pub body_len: usize,
    /// The status answered; `None` when the connection was dropped.
    pub status: Option<u16>,
}

impl Record {
    /// The body decoded as JSON; `None` when empty (or only whitespace).
    pub fn json(&self) -> crate::error::Result<Option<Value>> {
        if self.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        if self.body.len() < self.body_len {
            return Err(Error::invalid(format!(
                "the body ({} bytes) is longer than the log keeps ({} bytes)",
                self.body_len,
                self.body.len()
            )));
        }
        serde_json::from_slice(&self.body)
            .map(Some)
            .map_err(|e| Error::invalid(format!("the body is not JSON: {e}")))
    }
}

impl std::fmt::Display for Record {
    /// `RecordedRequest(method='POST', path='/api/0/x?a=1', status=200, body=12 bytes)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let query: Vec<String> = self.query.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut target = self.path.clone();
        if !query.is_empty() {
            target = format!("{target}?{}", query.join("&"));
        }
        let status = self.status.map_or_else(|| "None".into(), |s| s.to_string());
        write!(
            f,
            "RecordedRequest(method='{}', path='{target}', status={status}, body={} bytes)",
            self.method, self.body_len
        )
    }
}

/// A count of requests given as a number (`times` of `fail_next` and `drop_next`).
fn times(v: i64) -> crate::error::Result<u32> {
    u32::try_from(v).map_err(|_| {
        Error::invalid(format!(
            "times: must be a whole number from 0 to {}, got {v}",
            u32::MAX
        ))
    })
}

/// Check a number given as a score `field`'s value before it becomes JSON (which has no NaN
/// or infinity).
pub fn check_score_number(field: &str, value: f64) -> crate::error::Result<()> {
    if value.is_finite() {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "value: {field} takes text or a finite number, got {value}"
    )))
}

/// The pairs that fit in [`LOG_TEXT`] bytes, in order.
fn fitting(pairs: impl Iterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut left = LOG_TEXT;
    pairs
        .take_while(|(k, v)| match left.checked_sub(k.len() + v.len()) {
            Some(l) => {
                left = l;
                true
            }
            None => false,
        })
        .collect()
}

impl Record {
    fn new(parts: &Parts, body: &Bytes) -> Self {
        let path = parts.uri.path();
        let mut cut = path.len().min(LOG_TEXT);
        while !path.is_char_boundary(cut) {
            cut -= 1;
        }
        Record {
            method: parts.method.to_string(),
            path: path[..cut].to_string(),
            query: fitting(routes::query_pairs(&parts.uri).into_iter()),
            headers: fitting(
                parts
                    .headers
                    .iter()
                    .filter(|(k, _)| *k != header::AUTHORIZATION)
                    .map(|(k, v)| {
                        (
                            k.as_str().to_string(),
                            String::from_utf8_lossy(v.as_bytes()).into_owned(),
                        )
                    }),
            ),
            // A copy when cut: a slice would keep the whole body's buffer alive.
            body: if body.len() > LOG_BODY {
                Bytes::copy_from_slice(&body[..LOG_BODY])
            } else {
                body.clone()
            },
            body_len: body.len(),
            status: None,
        }
    }
}

#[derive(Debug, Default)]
struct Faults {
    /// Status and how many more requests get it.
    fail: Option<(u16, u32)>,
    drop: u32,
    delay: Duration,
}

enum Fault {
    Drop,
    Fail(u16),
}

/// A change accepted but not yet applied (`apply_delay`).
type PendingChange = Box<dyn FnOnce(&mut World) + Send>;

/// What the server tasks share with the `Simulator` handle.
pub struct Shared {
    world: Mutex<World>,
    seed: Workspace,
    api_key: Option<String>,
    /// Refuse (400) what the applications accept but the documents do not allow.
    strict: bool,
    /// How long after its 200 a change is applied.
    apply_delay: Duration,
    /// Route `/blend/layer/{id}` (as applications before 3.8 do).
    blend_route: bool,
    /// The `Content-Type` of a read's answer; `None`: none at all.
    read_content_type: Option<HeaderValue>,
    /// Changes waiting for their time, oldest first. Locked before `world` when both are.
    pending: Mutex<VecDeque<(Instant, PendingChange)>>,
    warnings: Mutex<VecDeque<String>>,
    faults: Mutex<Faults>,
    log: Mutex<VecDeque<Record>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    fn world(&self) -> MutexGuard<'_, World> {
        lock(&self.world)
    }

    /// Apply a change `apply_delay` from now (in the order accepted).
    fn defer(self: &Arc<Self>, job: PendingChange) {
        lock(&self.pending).push_back((Instant::now() + self.apply_delay, job));
        let shared = self.clone();
        let delay = self.apply_delay;
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            shared.apply_due();
        });
    }

    /// Apply the changes whose time has come, in order.
    fn apply_due(&self) {
        let mut pending = lock(&self.pending);
        let now = Instant::now();
        if pending.front().is_none_or(|(at, _)| *at > now) {
            return;
        }
        let mut world = self.world();
        while pending.front().is_some_and(|(at, _)| *at <= now) {
            let (_, job) = pending.pop_front().expect("checked");
            job(&mut world);
        }
    }

    /// Keep and log the warnings of a request (no lock is held while logging: a log record
    /// may wait for the embedding interpreter's lock).
    fn report(&self, warnings: Vec<String>) {
        if warnings.is_empty() {
            return;
        }
        {
            let mut kept = lock(&self.warnings);
            for w in &warnings {
                if kept.len() == WARNING_CAPACITY {
                    kept.pop_front();
                }
                kept.push_back(w.clone());
            }
        }
        for w in warnings {
            log::warn!("{w}");
        }
    }

    fn take_fault(&self) -> Option<Fault> {
        let mut f = lock(&self.faults);
        if f.drop > 0 {
            f.drop -= 1;
            return Some(Fault::Drop);
        }
        let (status, left) = f.fail?;
        f.fail = (left > 1).then(|| (status, left - 1));
        Some(Fault::Fail(status))
    }

    fn authorized(&self, parts: &Parts) -> bool {
        let Some(key) = &self.api_key else {
            return true;
        };
        let sent = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, k)| k.trim());
        sent == Some(key.as_str())
    }

    fn record(&self, record: Record) {
        let mut log = lock(&self.log);
        if log.len() == LOG_CAPACITY {
            log.pop_front();
        }
        log.push_back(record);
    }
}

/// The connection is closed without an answer (`drop_next`).
#[derive(Debug)]
struct Dropped;

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped on purpose (drop_next)")
    }
}
impl std::error::Error for Dropped {}

fn text(status: StatusCode, msg: &str) -> Response {
    (status, msg.to_string()).into_response()
}

/// One request: log it, apply a fault or the key check, route it, then wait out the delay.
async fn handle(
    shared: Arc<Shared>,
    router: Router,
    guard: Arc<Guard>,
    req: hyper::Request<Incoming>,
) -> Result<Response, Dropped> {
    let (parts, body) = req.into_parts();
    let (bytes, too_large) = match axum::body::to_bytes(Body::new(body), routes::MAX_BODY).await {
        Ok(b) => (b, false),
        Err(_) => (Bytes::new(), true),
    };
    let mut record = Record::new(&parts, &bytes);
    // An HTTP/1.1 request carries exactly one Host (RFC 9112, section 3.2: else 400); HTTP/1.0
    // may carry none, HTTP/2 names its authority apart.
    let hosts = parts.headers.get_all(header::HOST).iter().count();
    // Before anything else: a page in a browser (another origin, a rebound name) gets nothing.
    let refused = guard.check(&parts.method, &parts.headers).err();
    let response = if parts.version == axum::http::Version::HTTP_11 && hosts != 1 {
        let msg = format!(
            "an HTTP/1.1 request carries exactly one Host header (RFC 9112, section 3.2); this \
             one carried {hosts}"
        );
        Some(text(StatusCode::BAD_REQUEST, &msg))
    } else if let Some(why) = refused {
        Some(text(StatusCode::FORBIDDEN, &why))
    } else if too_large {
        let msg = format!("the body is larger than {} bytes", routes::MAX_BODY);
        Some(text(StatusCode::BAD_REQUEST, &msg))
    } else {
        match shared.take_fault() {
            Some(Fault::Drop) => None,
            Some(Fault::Fail(status)) => Some(text(
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                "simulated failure (fail_next)",
            )),
            // An empty body, as the application answers: a public poller crashes on text.
            None if !shared.authorized(&parts) => Some(StatusCode::UNAUTHORIZED.into_response()),
            None => {
                let req = axum::extract::Request::from_parts(parts, Body::from(bytes));
                Some(match router.oneshot(req).await {
                    Ok(r) => r,
                    Err(never) => match never {},
                })
            }
        }
    };
    record.status = response.as_ref().map(|r| r.status().as_u16());
    shared.record(record);
    let delay = lock(&shared.faults).delay;
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    response.ok_or(Dropped)
}

struct Server {
    running: Running,
    /// The score tick's task (`score_tick`), stopped with the server.
    ticker: Option<Ticker>,
}

/// The task that plays the score every `score_tick`: aborted when dropped (in a forked child
/// the parent's task is left alone: see `serve::drop_unless_forked`).
struct Ticker {
    pid: u32,
    task: Option<tokio::task::AbortHandle>,
}

impl Ticker {
    fn start(rt: &tokio::runtime::Handle, shared: Arc<Shared>, every: Duration) -> Self {
        let task = rt.spawn(async move {
            let start = tokio::time::Instant::now() + every;
            let mut ticks = tokio::time::interval_at(start, every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                shared.world().scores.tick();
            }
        });
        Ticker {
            pid: std::process::id(),
            task: Some(task.abort_handle()),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            if self.pid == std::process::id() {
                task.abort();
            }
            crate::serve::drop_unless_forked(self.pid, task);
        }
    }
}

/// Longest `apply_delay` accepted (seconds).
pub const MAX_APPLY_DELAY: f64 = 60.0;
/// Shortest and longest `score_tick` accepted (seconds).
pub const MIN_SCORE_TICK: f64 = 0.05;
pub const MAX_SCORE_TICK: f64 = 3600.0;

/// Where and how a simulator listens.
#[derive(Debug, Clone)]
pub struct Options {
    pub host: String,
    /// 0 picks a free port (kept across stop and start).
    pub port: u16,
    pub api_key: Option<String>,
    pub workspace: Workspace,
    /// Answer 400 to what the applications accept but the documents do not allow.
    pub strict: bool,
    /// Seconds between a command's 200 and its change (0 to [`MAX_APPLY_DELAY`]).
    pub apply_delay: f64,
    /// The bounds of its connections (header timeout, connection cap: `crate::serve`).
    pub limits: Limits,
    /// Also answer `/blend/layer/{id}`, as applications before 3.8 do (3.8 and 3.9 have only
    /// `/layerBlend/layer/{id}`).
    pub blend_route: bool,
    /// The `Content-Type` of a read's answer (a GET's 200); `None` sends none. The field's
    /// answers are probably not typed `application/json` (the Companion module's commit
    /// b66eaf4 reads the opacity answer as raw bytes, which works only then); their exact type
    /// is unknown, so the default is none.
    pub read_content_type: Option<String>,
    /// Play the score every this many seconds while running ([`MIN_SCORE_TICK`] to
    /// [`MAX_SCORE_TICK`]): a team scores at each tick, a period ends every
    /// `PERIOD_TICKS` (5) ticks (see `Scores::tick`). `None`: the score moves only when
    /// set.
    pub score_tick: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            host: "127.0.0.1".into(),
            port: 0,
            api_key: None,
            workspace: Workspace::builtin(),
            strict: false,
            apply_delay: 0.0,
            limits: Limits::default(),
            blend_route: false,
            read_content_type: None,
            score_tick: None,
        }
    }
}

/// A `read_content_type` as a header value: printable ASCII, not empty.
fn content_type(given: Option<&str>) -> crate::error::Result<Option<HeaderValue>> {
    let Some(t) = given else {
        return Ok(None);
    };
    let fine = !t.trim().is_empty() && t.bytes().all(|b| (0x20..0x7f).contains(&b));
    match HeaderValue::from_str(t.trim()) {
        Ok(v) if fine => Ok(Some(v)),
        _ => Err(Error::invalid(format!(
            "read_content_type: must be a media type such as \"application/json\" (printable \
             ASCII, not empty), or None for no Content-Type; got {t:?}"
        ))),
    }
}

/// A simulator: build it, `start()` it, point clients at `url()`.
pub struct Simulator {
    shared: Arc<Shared>,
    host: String,
    limits: Limits,
    /// The port asked for, then the one bound first (a restart listens there again).
    port: Mutex<u16>,
    server: Mutex<Option<Server>>,
    score_tick: Option<Duration>,
}

impl std::fmt::Display for Simulator {
    /// `Simulator(url='http://127.0.0.1:PORT')` while running, else
    /// `Simulator(port=PORT, running=False)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.url() {
            Some(url) => write!(f, "Simulator(url='{url}')"),
            None => write!(f, "Simulator(port={}, running=False)", self.port()),
        }
    }
}

impl Simulator {
    pub fn new(options: Options) -> crate::error::Result<Self> {
        if let Some(key) = &options.api_key {
            if key.is_empty() || key.chars().any(|c| c.is_control() || c == ' ') {
                return Err(Error::invalid(
                    "api_key: must be non-empty, without spaces or control characters",
                ));
            }
        }
        let d = options.apply_delay;
        if !d.is_finite() || !(0.0..=MAX_APPLY_DELAY).contains(&d) {
            return Err(Error::invalid(format!(
                "apply_delay: must be a number of seconds from 0 to {MAX_APPLY_DELAY}, got {d}"
            )));
        }
        crate::serve::check_host(&options.host).map_err(Error::invalid)?;
        let score_tick = match options.score_tick {
            Some(t) if t.is_finite() && (MIN_SCORE_TICK..=MAX_SCORE_TICK).contains(&t) => {
                Some(Duration::from_secs_f64(t))
            }
            Some(t) => {
                return Err(Error::invalid(format!(
                    "score_tick: must be a number of seconds from {MIN_SCORE_TICK} to \
                     {MAX_SCORE_TICK}, or None, got {t}"
                )))
            }
            None => None,
        };
        let world = World::new(&options.workspace)
            .map_err(|e| Error::invalid(format!("workspace: {e}")))?;
        let blend_route = options.blend_route || options.workspace.answers.blend_route;
        let read_content_type = content_type(options.read_content_type.as_deref())?;
        Ok(Simulator {
            shared: Arc::new(Shared {
                world: Mutex::new(world),
                seed: options.workspace,
                api_key: options.api_key,
                strict: options.strict,
                apply_delay: Duration::from_secs_f64(d),
                blend_route,
                read_content_type,
                pending: Mutex::new(VecDeque::new()),
                warnings: Mutex::new(VecDeque::new()),
                faults: Mutex::new(Faults::default()),
                log: Mutex::new(VecDeque::new()),
            }),
            host: options.host,
            limits: options.limits,
            port: Mutex::new(options.port),
            server: Mutex::new(None),
            score_tick,
        })
    }

    /// Start listening on `rt` (a no-op when running); returns the address. The first start
    /// with port 0 picks a free port; a later start listens on that same port again.
    pub fn start(&self, rt: &tokio::runtime::Handle) -> std::io::Result<SocketAddr> {
        let mut server = lock(&self.server);
        if let Some(s) = server.as_ref() {
            if !s.running.in_forked_child() {
                return Ok(s.running.addr());
            }
            // A forked child's copy of the parent's server: abandon it and listen afresh.
            server.take();
        }
        let mut port = lock(&self.port);
        let listener = crate::serve::bind(&self.host, *port)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::AddrNotAvailable, e))?;
        let shared = self.shared.clone();
        let router = routes::router(shared.clone());
        let guard = Arc::new(Guard::new(&self.host, listener.local_addr()?));
        // Each connection runs `handle`: its `Err` closes the connection unanswered.
        let connection = move |_: &tokio::net::TcpStream| {
            let (shared, router, guard) = (shared.clone(), router.clone(), guard.clone());
            Conn::new(hyper::service::service_fn(move |req| {
                handle(shared.clone(), router.clone(), guard.clone(), req)
            }))
        };
        let running = Running::start(rt, "simulator", listener, self.limits.clone(), connection)?;
        let addr = running.addr();
        *port = addr.port();
        let ticker = self
            .score_tick
            .map(|every| Ticker::start(rt, self.shared.clone(), every));
        *server = Some(Server { running, ticker });
        Ok(addr)
    }

    /// The port: the one bound (or bound last), else the one asked for.
    pub fn port(&self) -> u16 {
        *lock(&self.port)
    }

    pub fn strict(&self) -> bool {
        self.shared.strict
    }

    /// Seconds between a command's 200 and its change.
    pub fn apply_delay(&self) -> f64 {
        self.shared.apply_delay.as_secs_f64()
    }

    /// Whether `/blend/layer/{id}` is routed.
    pub fn blend_route(&self) -> bool {
        self.shared.blend_route
    }

    /// The `Content-Type` of a read's answer; `None`: none is sent.
    pub fn read_content_type(&self) -> Option<String> {
        let t = self.shared.read_content_type.as_ref()?;
        Some(String::from_utf8_lossy(t.as_bytes()).into_owned())
    }

    /// Seconds between two ticks of play, if the score is played.
    pub fn score_tick(&self) -> Option<f64> {
        self.score_tick.map(|d| d.as_secs_f64())
    }

    /// What was accepted but breaks the documents (the oldest first; at most
    /// [`WARNING_CAPACITY`]).
    pub fn warnings(&self) -> Vec<String> {
        lock(&self.shared.warnings).iter().cloned().collect()
    }

    pub fn clear_warnings(&self) {
        lock(&self.shared.warnings).clear();
    }

    /// Stop listening and close every connection; returns once the port is free.
    pub async fn stop(&self) {
        let server = lock(&self.server).take();
        if let Some(Server { running, ticker }) = server {
            drop(ticker);
            running.stop().await;
        }
    }

    pub fn addr(&self) -> Option<SocketAddr> {
        lock(&self.server)
            .as_ref()
            .filter(|s| !s.running.in_forked_child())
            .map(|s| s.running.addr())
    }

    /// `http://host:port` while running (clients add /api/0).
    pub fn url(&self) -> Option<String> {
        self.addr().map(|a| format!("http://{a}"))
    }

    pub fn api_key(&self) -> Option<&str> {
        self.shared.api_key.as_deref()
    }

    /// The requests received, oldest first (at most [`LOG_CAPACITY`]).
    pub fn requests(&self) -> Vec<Record> {
        lock(&self.shared.log).iter().cloned().collect()
    }

    pub fn clear_requests(&self) {
        lock(&self.shared.log).clear();
    }

    /// The next `times` requests answer `status` (300–599); 0 cancels (`times` checked
    /// first).
    pub fn fail_next(&self, status: i64, times: i64) -> crate::error::Result<()> {
        let times = self::times(times)?;
        let status = u16::try_from(status)
            .ok()
            .filter(|s| (300..=599).contains(s))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "status: must be an HTTP status from 300 to 599, got {status}"
                ))
            })?;
        lock(&self.shared.faults).fail = (times > 0).then_some((status, times));
        Ok(())
    }

    /// Delay every answer by `seconds` (0 to [`MAX_DELAY`]; 0 removes the delay).
    pub fn delay(&self, seconds: f64) -> crate::error::Result<()> {
        if !seconds.is_finite() || !(0.0..=MAX_DELAY).contains(&seconds) {
            return Err(Error::invalid(format!(
                "seconds: must be a finite number from 0 to {MAX_DELAY}, got {seconds}"
            )));
        }
        lock(&self.shared.faults).delay = Duration::from_secs_f64(seconds);
        Ok(())
    }

    /// Close the connection of the next `times` requests without answering; 0 cancels.
    pub fn drop_next(&self, times: i64) -> crate::error::Result<()> {
        lock(&self.shared.faults).drop = self::times(times)?;
        Ok(())
    }

    /// Set a field of the active score record (`game1.team1Goals` reaches into a Custom
    /// game).
    pub fn set_score(&self, field: &str, value: Value) -> crate::error::Result<()> {
        self.shared
            .world()
            .scores
            .set_field(field, value)
            .map_err(Error::invalid)
    }

    /// Switch the scoreboard to another sport mode of the document.
    pub fn set_sport(&self, mode: &str) -> crate::error::Result<()> {
        self.shared
            .world()
            .scores
            .set_sport(mode)
            .map_err(|e| Error::invalid(format!("mode: {e}")))
    }

    /// The selected layer, the targeted layer and the selected playlist's UUID.
    pub fn selection(&self) -> Selection {
        self.shared.apply_due();
        self.shared.world().selection()
    }

    /// Back to the workspace as loaded: state, changes not yet applied, faults, warnings and
    /// the request log.
    pub fn reset(&self) {
        let fresh = World::new(&self.shared.seed).expect("the seed was valid at start");
        let mut pending = lock(&self.shared.pending);
        pending.clear();
        *self.shared.world() = fresh;
        drop(pending);
        *lock(&self.shared.faults) = Faults::default();
        self.clear_warnings();
        self.clear_requests();
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        // Stops the accept loop, which closes the connections (in a forked child, abandons the
        // parent's copy: see `serve::Running`).
        lock(&self.server).take();
    }
}
