//! Read-only checks of an installation before a show: `probe` (is it usable, and how does it
//! answer?) and the reads that `record` captures. Nothing here sends a command: every request
//! is a GET built from the endpoint table, sent once (no retry), and the TLS check is a bare
//! handshake that sends no HTTP at all.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::StreamExt as _;

use bytes::Bytes;
use rustls::pki_types::ServerName;
use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::ident::Ident;
use crate::media::endpoints as ep;
use crate::tls::{rfc3339, Fingerprint};
use crate::transport::{Request, Target, Transport};

/// Which application a URL is expected to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    Media,
    Scoreboard,
}

/// The most reads one `probe` or `record` sends (a real installation needs 11 per layer, one
/// per playlist and one per cue: a few hundred). A server claiming 10,000 layers gets this
/// many, and the result says where it stopped.
pub const MAX_READS: usize = 5_000;
/// The most answer bytes one `probe` or `record` holds (each read is also refused past what is
/// left of it, and past its endpoint's own reply cap).
pub const MAX_HELD: usize = 64 * 1024 * 1024;
/// Reads in flight at once (a server that stalls costs one timeout per this many reads).
pub const CONCURRENT_READS: usize = 6;
/// The longest one `probe` or `record` reads; what is not answered by then is not waited for.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The certificate a port presented.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TlsInfo {
    pub subject: String,
    pub issuer: String,
    pub self_signed: bool,
    /// Marked as a CA (`CA:TRUE`), as self-signed certificates usually are.
    pub ca: bool,
    /// The DNS names and IP addresses it is issued for.
    pub names: Vec<String>,
    pub not_before: String,
    pub not_after: String,
    pub expired: bool,
    pub fingerprint: String,
    /// The exact option that pins it: `tls_fingerprint="sha256:…"`.
    pub pin: String,
}

impl TlsInfo {
    /// Describe a DER certificate.
    pub fn of(der: &[u8]) -> Option<Self> {
        let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
        let fp = Fingerprint::of(der);
        let v = cert.validity();
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let names = crate::tls::names(der);
        Some(TlsInfo {
            subject: cert.subject().to_string(),
            issuer: cert.issuer().to_string(),
            self_signed: cert.subject().as_raw() == cert.issuer().as_raw(),
            ca: cert.is_ca(),
            names,
            not_before: rfc3339(v.not_before.timestamp()),
            not_after: rfc3339(v.not_after.timestamp()),
            expired: now > v.not_after.timestamp(),
            fingerprint: fp.to_string(),
            pin: format!("tls_fingerprint=\"{fp}\""),
        })
    }
}

/// One read as answered.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EndpointResult {
    /// The path as sent, relative to `/api/0`.
    pub path: String,
    /// The HTTP status; `None` when no answer came (connection failed, timeout).
    pub status: Option<u16>,
    pub seconds: f64,
    /// Which documented or field variant the answer is, when the documents allow several.
    pub variant: Option<String>,
    /// Why the read failed or cannot be decoded by showctl.
    pub error: Option<String>,
}

/// What `probe` found.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    /// The base URL probed (`scheme://host:port/api/0`).
    pub url: String,
    /// `"media"` or `"scoreboard"`.
    pub app: String,
    /// A TCP connection to the port was accepted.
    pub reachable: bool,
    /// Round-trip time of the TCP connection (seconds).
    pub rtt: Option<f64>,
    /// What the port speaks: `"http"`, `"https"` or `"neither"`.
    pub scheme: String,
    /// Every `/api/0` path answered 404: the documentation port, or the API is disabled.
    pub doc_port: bool,
    pub tls: Option<TlsInfo>,
    /// `"not_needed"`, `"required_missing"`, `"wrong"`, `"accepted"` or `"unknown"`.
    pub auth: String,
    pub endpoints: Vec<EndpointResult>,
    pub layers: Option<usize>,
    pub playlists: Option<usize>,
    pub cues: Option<usize>,
    /// The endpoint that took longest, and its time.
    pub slowest: Option<EndpointResult>,
    /// The installation can be used with these options.
    pub ok: bool,
    /// One line per problem, each saying what to do.
    pub problems: Vec<String>,
    /// The bounds the reads reached ([`MAX_READS`], [`MAX_HELD`], [`DEADLINE`]): what was
    /// not read because of each. Empty when every read was sent.
    pub limits: Vec<String>,
}

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
    check: Option<Check>,
    /// Refused as larger than what was left of [`MAX_HELD`].
    over_budget: bool,
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

fn check_of<T: 'static>(call: &ep::Call<T>) -> Check {
    let decode = call.decode;
    Arc::new(move |body: &[u8]| decode(body).map(drop))
}

/// What the reads of one `probe` or `record` may still use.
struct Budget {
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
async fn read(
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
    call: ep::Call<T>,
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
fn playlists_below(root: &Value) -> Vec<&Value> {
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

fn items(p: &Value) -> &[Value] {
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

/// Which documented or field variant an answer is (`None` when only one form exists).
fn variant(ex: &Exchange) -> Option<String> {
    let mut found = Vec::new();
    if let Some(first) = &ex.instead_of {
        found.push(format!(
            "only {} ({} answers {})",
            base_path(&ex.request.path),
            base_path(&first.request.path),
            first.status.unwrap_or(0)
        ));
    } else if ex.request.path.starts_with("/blend/layer/") && ex.error.is_none() {
        found.push("/blend".to_string());
    }
    let v = ex.json();
    let path = ex.request.path.as_str();
    if let Some(v) = &v {
        if path.starts_with("/opacity/layer/") {
            if v.get("opacity").is_some_and(Value::is_object) {
                found.push("opacity wrapped {\"opacity\": {\"value\"}}".into());
            } else if v.get("value").is_some() {
                found.push("opacity bare {\"value\"}".into());
            }
        }
        if path == "/transition" {
            if v.get("data").is_some() {
                found.push("transitions under data".into());
            } else if v.get("transitions").is_some() {
                found.push("transitions under transitions".into());
            }
        }
        if path.starts_with("/transportState/layer/") {
            found.push(if v.get("data").is_some() || v.is_array() {
                "transport state as an array under data".into()
            } else {
                "transport state as one object".into()
            });
        }
        if path == "/data/scores" {
            if let Some(sport) = v.get("sportMode").and_then(Value::as_str) {
                found.push(format!("sportMode {sport}"));
            }
        }
        if path == "/data/layers" && v.is_array() {
            found.push("layers as a bare array".into());
        }
        if has_null_text_uuid(v) {
            found.push("\"null\" text in UUID fields".into());
        }
    }
    (!found.is_empty()).then(|| found.join("; "))
}

/// The first segment of a path (`/blend`), for messages.
fn base_path(path: &str) -> String {
    path.split('/').take(2).collect::<Vec<_>>().join("/")
}

fn has_null_text_uuid(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.iter().any(|(k, v)| {
            (k.to_ascii_lowercase().ends_with("uuid") && v.as_str() == Some("null"))
                || has_null_text_uuid(v)
        }),
        Value::Array(a) => a.iter().any(has_null_text_uuid),
        _ => false,
    }
}

/// The result of one read, with showctl's decoding of it.
fn result_of(ex: &Exchange) -> EndpointResult {
    // An installation may have no video input playlist: not a problem.
    if ex.request.path == "/data/playlist/-1" && matches!(ex.status, Some(400 | 404)) {
        return EndpointResult {
            path: ex.request.path_and_query(),
            status: ex.status,
            seconds: ex.seconds,
            variant: Some("no video input playlist".into()),
            error: None,
        };
    }
    let error = match (&ex.error, &ex.check) {
        (Some(e), _) => Some(e.to_string()),
        (None, Some(check)) => check(&ex.body)
            .err()
            .map(|why| format!("showctl cannot read the answer: {why}")),
        (None, None) => None,
    };
    EndpointResult {
        path: ex.request.path_and_query(),
        status: ex.status,
        seconds: ex.seconds,
        variant: variant(ex),
        error,
    }
}

/// A TLS handshake with the port (no HTTP is sent): the certificate it presents, or `None`
/// when the port does not speak TLS.
async fn tls_handshake(host: &str, port: u16, timeout: Duration) -> Option<Vec<u8>> {
    let (config, captured) = crate::tls::capture_config().ok()?;
    let name = ServerName::try_from(host.to_string()).ok()?;
    let connector = tokio_rustls::TlsConnector::from(config);
    let handshake = async {
        let tcp = tokio::net::TcpStream::connect((host, port)).await.ok()?;
        connector.connect(name, tcp).await.ok()
    };
    let stream = tokio::time::timeout(timeout, handshake)
        .await
        .ok()
        .flatten()?;
    drop(stream);
    let cert = captured.lock().unwrap_or_else(|p| p.into_inner()).take();
    cert.map(|c| c.to_vec())
}

/// Check an installation with the client's own options: reachability, what the port speaks,
/// its certificate, the key, every documented read and what showctl makes of each answer.
/// Read-only: it sends GET requests only, each once. Fails only on a closed client.
pub async fn probe(transport: &Transport, app: App) -> Result<Report, Error> {
    if transport.is_closed() {
        return Err(Error::Closed);
    }
    Ok(examine(transport, app).await)
}

async fn examine(transport: &Transport, app: App) -> Report {
    let base = transport.base_url().to_string();
    let mut report = Report {
        url: base.clone(),
        app: match app {
            App::Media => "media",
            App::Scoreboard => "scoreboard",
        }
        .into(),
        reachable: false,
        rtt: None,
        scheme: "neither".into(),
        doc_port: false,
        tls: None,
        auth: "unknown".into(),
        endpoints: Vec::new(),
        layers: None,
        playlists: None,
        cues: None,
        slowest: None,
        ok: false,
        problems: Vec::new(),
        limits: Vec::new(),
    };
    let parsed = match url::Url::parse(&base) {
        Ok(u) => u,
        Err(e) => {
            report
                .problems
                .push(format!("the URL {base} cannot be read: {e}"));
            return report;
        }
    };
    let https = parsed.scheme() == "https";
    let host = parsed
        .host_str()
        .unwrap_or("")
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = parsed.port_or_known_default().unwrap_or(80);
    let timeout = transport.timeout();

    // Reachability: a bare TCP connection.
    let started = Instant::now();
    match tokio::time::timeout(
        timeout,
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    {
        Ok(Ok(stream)) => {
            report.rtt = Some(started.elapsed().as_secs_f64());
            report.reachable = true;
            drop(stream);
        }
        Ok(Err(e)) => {
            report.problems.push(format!(
                "cannot connect to {host}:{port}: {e} (is the application running, with its API \
                 enabled, on this port?)"
            ));
            return report;
        }
        Err(_) => {
            report.problems.push(format!(
                "no answer from {host}:{port} within {:.1}s (a firewall, or the wrong address?)",
                timeout.as_secs_f64()
            ));
            return report;
        }
    }

    // What the port speaks, and its certificate.
    let cert = if https {
        tls_handshake(&host, port, timeout).await
    } else {
        None
    };
    if let Some(der) = &cert {
        report.scheme = "https".into();
        report.tls = TlsInfo::of(der);
    }

    // The first read decides the authentication (and, for http://, whether the port speaks
    // HTTP at all).
    let Reads {
        mut exchanges,
        limits,
    } = read_everything(transport, app).await;
    report.limits = limits;
    let first = exchanges.first().cloned();
    let Some(first) = first else {
        report.problems.push("no read could be built".into());
        return report;
    };
    if first.status.is_some() {
        report.scheme = parsed.scheme().to_string();
    } else if https && cert.is_none() {
        report.problems.push(format!(
            "the port does not speak HTTPS: use http://{}:{port}",
            parsed.host_str().unwrap_or("")
        ));
    } else if !https {
        if let Some(der) = tls_handshake(&host, port, timeout).await {
            report.scheme = "https".into();
            report.tls = TlsInfo::of(&der);
            report.problems.push(format!(
                "the port speaks HTTPS: use https://{}:{port}",
                parsed.host_str().unwrap_or("")
            ));
            return finish(report, exchanges);
        }
    }
    if first.status.is_none() {
        return finish(report, exchanges);
    }

    // The key.
    report.auth = match (first.status, transport.target().has_key()) {
        (Some(401), true) => "wrong",
        (Some(401), false) => "required_missing",
        (Some(200), false) => "not_needed",
        (Some(200), true) => {
            let bare = Target::new(&base, None).and_then(|t| transport.with_target(t));
            match bare {
                Ok(bare) => match read(&bare, first.request.clone(), None, None).await.status {
                    Some(401) => "accepted",
                    Some(200) => "not_needed",
                    _ => "unknown",
                },
                Err(_) => "unknown",
            }
        }
        _ => "unknown",
    }
    .into();
    match report.auth.as_str() {
        "wrong" => report.problems.push(
            "the API key is refused (401): check the key in the application's preferences".into(),
        ),
        "required_missing" => report.problems.push(
            "the application requires an API key (401): pass api_key= or set SHOWCTL_API_KEY"
                .into(),
        ),
        _ => {}
    }
    if report.auth == "wrong" || report.auth == "required_missing" {
        exchanges.truncate(1);
    }
    finish(report, exchanges)
}

/// Judge the reads: results, counts, the slowest, the documentation-port hint, the verdict.
fn finish(mut report: Report, exchanges: Vec<Exchange>) -> Report {
    report.endpoints = exchanges.iter().map(result_of).collect();
    let answered: Vec<&EndpointResult> = report
        .endpoints
        .iter()
        .filter(|e| e.status.is_some())
        .collect();
    report.doc_port = !answered.is_empty() && answered.iter().all(|e| e.status == Some(404));
    if report.doc_port {
        report.problems.push(format!(
            "every /api/0 path answers 404: this looks like the documentation port, or the API \
             is disabled; check the port and the API switch in the application's network settings ({})",
            report.url
        ));
    } else if report.auth != "wrong" && report.auth != "required_missing" {
        for e in &report.endpoints {
            if let Some(err) = &e.error {
                // The error names the request already.
                report.problems.push(one_line(err));
            }
        }
    }
    if let Some(first) = exchanges.first().and_then(Exchange::json) {
        if report.app == "media" {
            report.layers = Some(layer_objects(&first).len());
        }
    }
    if let Some(tree) = exchanges.get(1).and_then(Exchange::json) {
        if let Some(root) = root_playlist(&tree) {
            let below = playlists_below(root);
            report.cues =
                Some(items(root).len() + below.iter().map(|p| items(p).len()).sum::<usize>());
            report.playlists = Some(below.len());
        }
    }
    report.slowest = report
        .endpoints
        .iter()
        .filter(|e| e.status.is_some())
        .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .cloned();
    report.ok = report.reachable && report.problems.is_empty();
    report
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::test_server::{self, Reply};
    use crate::transport::Config;
    use serde_json::json;

    fn exchange(path: &str, body: Value) -> Exchange {
        Exchange {
            request: Request::get(path),
            status: Some(200),
            body: Bytes::from(serde_json::to_vec(&body).unwrap()),
            seconds: 0.0,
            error: None,
            instead_of: None,
            check: None,
            over_budget: false,
        }
    }

    #[test]
    fn variants_are_named_from_the_answer() {
        let cases = [
            (
                "/opacity/layer/0",
                json!({"opacity": {"value": 1}}),
                "opacity wrapped",
            ),
            ("/opacity/layer/0", json!({"value": 1}), "opacity bare"),
            (
                "/transition",
                json!({"transitions": []}),
                "transitions under transitions",
            ),
            ("/transition", json!({"data": []}), "transitions under data"),
            ("/data/layers", json!([]), "layers as a bare array"),
            (
                "/transportState/layer/0",
                json!({"data": [{"transportState": {}}]}),
                "transport state as an array under data",
            ),
            (
                "/data/layer/0",
                json!({"layer": {"targetSetUUID": "null"}}),
                "\"null\" text in UUID fields",
            ),
        ];
        for (path, body, want) in cases {
            let got = variant(&exchange(path, body)).unwrap_or_default();
            assert!(got.starts_with(want), "{path}: {got}");
        }
        assert_eq!(
            variant(&exchange("/data/layer/0", json!({"layer": {}}))),
            None
        );
    }

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

    #[tokio::test]
    async fn a_port_answering_404_everywhere_is_the_documentation_port() {
        let server = test_server::start(vec![Reply::Status(404, "")]).await;
        let transport = Transport::new(&Config::new(server.url.clone())).unwrap();
        let report = probe(&transport, App::Media).await.unwrap();
        assert!(report.doc_port && !report.ok, "{report:?}");
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(server.seen().iter().all(|s| s.method == "GET"));
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
