//! The HTTP transport: base URL forms, the `/api/0` prefix, the Bearer key, TLS options,
//! per-attempt timeouts, retries with backoff and jitter, a cap on body size, and keep-alive
//! connection reuse: showctl's own HTTP/1.1 exchange for both schemes ([`http1`]), its
//! connections kept by the process runtime and by each thread that makes blocking calls (see
//! [`crate::runtime`]); reqwest for what that exchange does not take (see
//! [`Transport::exchange`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE, USER_AGENT};

use crate::error::{chain, shown_url, Delivery, Error, Result};

/// API path prefix the client adds to every base URL.
pub const API_PREFIX: &str = "/api/0";
/// Environment variable with the media application's URL.
pub const ENV_MEDIA_URL: &str = "SHOWCTL_MEDIA_URL";
/// Environment variable with the scoreboard application's URL.
pub const ENV_SCOREBOARD_URL: &str = "SHOWCTL_SCOREBOARD_URL";
/// Environment variable with the API key.
pub const ENV_API_KEY: &str = "SHOWCTL_API_KEY";

/// Default per-attempt timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a confirmed command reads its value back when `confirm_timeout` is not given.
pub const DEFAULT_CONFIRM_TIMEOUT: Duration = Duration::from_millis(500);
/// Default largest response body accepted (bytes).
pub const DEFAULT_MAX_BODY: usize = 64 * 1024 * 1024;
/// Default cap on connections open at once to one application (`max_connections`): see
/// docs/reliability.md for the measurement it was chosen by.
pub const DEFAULT_MAX_CONNECTIONS: usize = 8;

mod clients;
mod config;
#[cfg(test)]
mod differential;
pub(crate) mod errors;
mod gate;
mod http1;
mod progress;
mod request;
mod target;

use clients::{Clients, Keeper};
pub use config::{
    resolve_key, resolve_pin, resolve_url, url_env, ClientArgs, Config, CONFIRM_TIMEOUT_RANGE,
    MAX_BODY_RANGE, MAX_CONNECTIONS_RANGE, RETRIES_RANGE, TIMEOUT_RANGE,
};
use errors::{plain_error, reply_too_large, short, too_large, transport_error};
use gate::Gate;
use progress::{Progress, Stage};
pub use request::{Method, Request};
pub use target::Target;

/// `https//h:p`, `http:/h:p`, `http:h` and the like: a scheme whose `://` is mistyped (which
/// would otherwise read as a host named `https` or `http`); returns the likely intended URL.
fn scheme_typo(url: &str) -> Option<String> {
    if url.contains("://") {
        return None;
    }
    let lower = url.to_ascii_lowercase();
    let (scheme, rest) = ["https", "http"].iter().find_map(|s| {
        lower
            .strip_prefix(s)
            .map(|r| (*s, &url[url.len() - r.len()..]))
    })?;
    // `http:8080` is a host named `http` on port 8080: a digit after the colon is a port.
    let typo = rest.starts_with('/')
        || rest.starts_with(":/")
        || (rest.starts_with(':') && !rest[1..].starts_with(|c: char| c.is_ascii_digit()));
    typo.then(|| format!("{scheme}://{}", rest.trim_start_matches([':', '/'])))
}

/// Turn `http://h:p`, `https://h:p` or `h:p` into `scheme://h:p/api/0` (no trailing slash).
pub fn normalize_base(url: &str) -> Result<String> {
    // Checked before trimming: a URL with a CR or LF at either end (pasted, read from a file)
    // is refused, never silently repaired.
    if url.chars().any(|c| c.is_control()) {
        return Err(Error::invalid(
            "url: contains CR, LF or another control character",
        ));
    }
    let url = url.trim();
    if url.is_empty() {
        return Err(Error::invalid("url: must not be empty"));
    }
    if url.contains(' ') {
        return Err(Error::invalid("url: contains a space"));
    }
    if let Some(fix) = scheme_typo(url) {
        return Err(Error::invalid(format!(
            "url: {:?} looks like a mistyped scheme (\"://\" is incomplete); did you mean {fix:?}?",
            crate::error::capped(url, 256, "bytes")
        )));
    }
    let with_scheme = if url.contains("://") {
        url.to_string()
    } else {
        format!("http://{url}")
    };
    let parsed = url::Url::parse(&with_scheme)
        .map_err(|e| Error::invalid(format!("url: {url:?} is not a valid URL ({e})")))?;
    match parsed.scheme() {
        "http" | "https" => {}
        other => {
            return Err(Error::invalid(format!(
                "url: scheme must be http or https, got {other:?}"
            )))
        }
    }
    if parsed.host_str().is_none_or(|h| h.is_empty()) {
        return Err(Error::invalid(format!("url: {url:?} has no host")));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(Error::invalid(
            "url: must not carry credentials; pass api_key instead",
        ));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(Error::invalid("url: must not carry a query or a fragment"));
    }
    let mut base = format!("{}://{}", parsed.scheme(), parsed.host_str().unwrap_or(""));
    if let Some(port) = parsed.port() {
        base.push_str(&format!(":{port}"));
    }
    let path = parsed.path().trim_end_matches('/');
    let path = path.strip_suffix(API_PREFIX).unwrap_or(path);
    base.push_str(path);
    base.push_str(API_PREFIX);
    Ok(base)
}

/// Validate an API key for use in a header; the message never repeats the key.
pub fn auth_header(api_key: &str) -> Result<HeaderValue> {
    if api_key.is_empty() {
        return Err(Error::invalid(
            "api_key: must not be empty (pass None for no key)",
        ));
    }
    if api_key.chars().any(|c| c.is_control()) {
        return Err(Error::invalid(
            "api_key: contains CR, LF or another control character",
        ));
    }
    // HTTP drops whitespace around a header value, so such a key would never match.
    if api_key.trim() != api_key {
        return Err(Error::invalid(
            "api_key: starts or ends with whitespace (a copy-paste slip?)",
        ));
    }
    let mut v = HeaderValue::from_str(&format!("Bearer {api_key}"))
        .map_err(|_| Error::invalid("api_key: contains characters a header cannot carry"))?;
    v.set_sensitive(true);
    if api_key.len() < crate::scrub::SHORT_KEY {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            log::warn!(
                "the API key is {} characters long: a key shorter than {} is masked in what \
                 showctl writes only where it stands alone, never inside a longer word or a \
                 field name (a longer, random key is masked everywhere)",
                api_key.len(),
                crate::scrub::SHORT_KEY
            );
        });
    }
    Ok(v)
}

fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The `User-Agent` of every request.
const USER_AGENT_VALUE: &str = concat!("showctl/", env!("CARGO_PKG_VERSION"));

/// Build the reqwest client for a configuration (no redirects, no proxy) on its TLS
/// configuration (built once per client by [`crate::tls::client_config`]).
pub fn build_client(config: &Config, tls: &rustls::ClientConfig) -> Result<reqwest::Client> {
    install_crypto_provider();
    let mut headers = HeaderMap::new();
    headers.insert(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE));
    reqwest::Client::builder()
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .tcp_nodelay(true)
        .pool_idle_timeout(Duration::from_secs(60))
        .pool_max_idle_per_host(config.max_connections)
        .connect_timeout(config.timeout)
        .tls_backend_preconfigured(tls.clone())
        .build()
        .map_err(|e| Error::Internal(format!("cannot build the HTTP client: {}", chain(&e))))
}

/// A client for one application (plus the options shared by its requests).
pub struct Transport {
    clients: Arc<Clients>,
    target: Target,
    timeout: Duration,
    retries: u32,
    retry_commands: bool,
    max_body: usize,
    backoff: Duration,
    closed: AtomicBool,
    /// An answer with an odd character (see [`crate::json::repair_text`]) was logged already.
    odd_text_logged: AtomicBool,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Transport({})", self.target.base)
    }
}

impl Transport {
    pub fn new(config: &Config) -> Result<Self> {
        if config.timeout.is_zero() {
            return Err(Error::invalid("timeout: must be greater than 0 seconds"));
        }
        let target = Target::new(&config.url, config.api_key.as_deref())?;
        Ok(Transport {
            clients: Arc::new(Clients::new(config)?),
            target,
            timeout: config.timeout,
            retries: config.retries,
            retry_commands: config.retry_commands,
            max_body: config.max_body,
            backoff: config.backoff,
            closed: AtomicBool::new(false),
            odd_text_logged: AtomicBool::new(false),
        })
    }

    /// A transport to another target sharing this one's options (used for mirrors); a target
    /// with its own pin gets its own clients, which accept that certificate only.
    pub fn with_target(&self, target: Target) -> Result<Self> {
        let clients = match target.pin {
            Some(pin) if self.clients.config.tls_fingerprint != Some(pin) => {
                let mut config = self.clients.config.clone();
                config.url = target.base.clone();
                config.tls_fingerprint = Some(pin);
                config.verify = true;
                config.ca_cert = None;
                Arc::new(Clients::new(&config)?)
            }
            _ => self.clients.clone(),
        };
        Ok(Transport {
            clients,
            target,
            timeout: self.timeout,
            retries: self.retries,
            retry_commands: self.retry_commands,
            max_body: self.max_body,
            backoff: self.backoff,
            closed: AtomicBool::new(false),
            odd_text_logged: AtomicBool::new(false),
        })
    }

    pub fn target(&self) -> &Target {
        &self.target
    }
    pub fn base_url(&self) -> &str {
        self.target.base()
    }
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
    /// How long a confirmed command reads its value back (the `confirm_timeout` option).
    pub fn confirm_timeout(&self) -> Duration {
        self.clients.config.confirm_timeout
    }
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// The full URL of a request (for messages; never holds the key).
    pub fn url_of(&self, req: &Request) -> String {
        format!("{}{}", self.target.base, req.path_and_query())
    }

    /// The error for a 2xx body that is not what `req`'s endpoint returns.
    pub fn decode_error(&self, req: &Request, body: &[u8], what: impl std::fmt::Display) -> Error {
        let method = req.method.as_str();
        // What the decoder says may quote the answer too.
        let what = what.to_string();
        let what = crate::scrub::scrub_str(&what, self.target.secret());
        Error::decode(method, &self.url_of(req), &self.target.scrub(body), what)
    }

    /// Send a request, retrying as configured, and return the body of a 2xx answer. A POST
    /// sent inside a command's record adds to it (see [`crate::journal`]).
    pub async fn send(&self, req: &Request) -> Result<Bytes> {
        let (out, attempts) = self.send_counted(req).await;
        if req.method == Method::Post {
            let (base, key) = (self.target.base(), self.target.secret());
            crate::journal::sent(base, key, || req.path_and_query(), attempts);
        }
        out
    }

    /// [`Self::send`], and how many attempts were made (0 when nothing was tried).
    pub async fn send_counted(&self, req: &Request) -> (Result<Bytes>, u32) {
        crate::memory::release_pending_memory();
        let retries = if req.method == Method::Get || self.retry_commands {
            self.retries
        } else {
            0
        };
        let mut attempt = 0u32;
        // How far the call's attempts got: an earlier one sent or answered makes the call so,
        // whatever the last one says.
        let mut reached = Delivery::NotSent;
        loop {
            if self.is_closed() {
                return (Err(Error::Closed), attempt);
            }
            match self.attempt(req).await {
                Ok(body) => return (Ok(body), attempt + 1),
                Err(e) if attempt < retries && e.is_retryable() => {
                    reached = reached.max(e.delivery());
                    let delay = self.backoff_delay(attempt);
                    log::info!(
                        "{} {} failed ({}); retry {} of {} in {:.0?}",
                        req.method.as_str(),
                        self.url_of(req),
                        short(&e),
                        attempt + 1,
                        retries,
                        delay
                    );
                    tokio::time::sleep(delay).await;
                    if self.is_closed() && reached > Delivery::NotSent {
                        // Closed meanwhile: the call's error is that of what went out.
                        return (Err(e), attempt + 1);
                    }
                    attempt += 1;
                }
                Err(e) if attempt > 0 => {
                    return (
                        Err(e
                            .after_attempts(attempt + 1, self.timeout)
                            .delivered_at_least(reached)),
                        attempt + 1,
                    )
                }
                Err(e) => return (Err(e), 1),
            }
        }
    }

    fn backoff_delay(&self, attempt: u32) -> Duration {
        let base = self.backoff.as_secs_f64() * 2f64.powi(attempt.min(16) as i32);
        let capped = base.min(2.0);
        let jitter = rand::random::<f64>() * 0.5 + 0.75; // 0.75 .. 1.25
        Duration::from_secs_f64(capped * jitter)
    }

    /// One attempt, bounded by the timeout from waiting for a free connection to the last body
    /// byte.
    pub async fn attempt(&self, req: &Request) -> Result<Bytes> {
        let path_and_query = req.path_and_query();
        let url = format!("{}{path_and_query}", self.target.base);
        let method = req.method.as_str();
        let started = Instant::now();
        let progress = Progress::default();
        // On the heap: a blocking call runs this future on the caller's own thread, whose stack
        // may be small (a connection over TLS, racing its addresses, is a large future).
        let exchange = Box::pin(self.exchange(req, &path_and_query, &url, &progress));
        let result = tokio::time::timeout(self.timeout, exchange).await;
        let out = match result {
            Ok(r) => r,
            Err(_) => Err(self.timed_out(method, &url, &progress)),
        };
        match &out {
            Ok(b) => log::debug!(
                "{method} {url} -> {} bytes in {:.1?}",
                b.len(),
                started.elapsed()
            ),
            Err(e) => log::debug!("{method} {url} failed in {:.1?}: {e}", started.elapsed()),
        }
        out
    }

    /// The error of an attempt whose time ran out, saying how far it got.
    fn timed_out(&self, method: &str, url: &str, progress: &Progress) -> Error {
        let (shown, secs) = (shown_url(url), self.timeout.as_secs_f64());
        let message = match progress.stage() {
            Stage::Waiting => {
                let gate = self.clients.gates.of(&self.target.origin);
                format!(
                    "{method} {shown} was never sent: it waited {secs:.3}s for a free \
                     connection ({} in use, max_connections={})",
                    gate.open(),
                    gate.cap()
                )
            }
            Stage::Connecting => {
                format!("{method} {shown} timed out connecting: no connection within {secs:.3}s")
            }
            Stage::Writing | Stage::Sent | Stage::Started => format!(
                "{method} {shown} timed out: no answer within {secs:.3}s of sending the request"
            ),
            Stage::Answered => {
                format!("{method} {shown} timed out: no complete answer within {secs:.3}s")
            }
        };
        Error::Timeout {
            method: method.to_string(),
            url: url.to_string(),
            message,
            delivery: progress.delivery(),
        }
    }

    /// One exchange (`url` is the base followed by `path_and_query`), noting in `progress`
    /// how far it got: showctl's own, over TCP or TLS, on the lanes and the process runtime;
    /// reqwest on a tokio runtime of the caller's own (whose connections must stay there) and
    /// for a path its URL parser would rewrite.
    async fn exchange(
        &self,
        req: &Request,
        path_and_query: &str,
        url: &str,
        progress: &Progress,
    ) -> Result<Bytes> {
        let gate = self.clients.gates.of(&self.target.origin);
        let answer = match (&self.target.plain, Keeper::here()) {
            (Some(plain), Some(keeper)) if http1::sent_as_is(path_and_query) => {
                let call = Call { req, url, progress };
                self.exchange_plain(plain, keeper, &gate, call).await?
            }
            _ => self.exchange_reqwest(req, url, &gate, progress).await?,
        };
        self.accept(req, url, answer)
    }

    /// The largest body accepted for `req` with `status`: an error page is read up to
    /// max_body, a 2xx up to what its endpoint can answer (`Some`).
    fn reply_cap(&self, req: &Request, status: u16) -> (usize, Option<usize>) {
        let endpoint_cap = req.max_reply.filter(|m| *m < self.max_body && status < 300);
        (endpoint_cap.unwrap_or(self.max_body), endpoint_cap)
    }

    /// The error for a body larger than [`Self::reply_cap`] allows.
    fn refuse(&self, req: &Request, url: &str, status: u16) -> Error {
        let method = req.method.as_str();
        match self.reply_cap(req, status).1 {
            Some(cap) => reply_too_large(method, url, cap),
            None => too_large(method, url, self.max_body),
        }
    }

    /// One exchange through reqwest (a request made on a tokio runtime of the
    /// caller's own, or whose path reqwest's URL parser would rewrite: see
    /// [`http1::sent_as_is`]), holding a
    /// permit of the application's gate throughout (reqwest keeps no more idle connections
    /// than the gate has permits).
    async fn exchange_reqwest(
        &self,
        req: &Request,
        url: &str,
        gate: &Arc<Gate>,
        progress: &Progress,
    ) -> Result<http1::Answer> {
        let method = req.method.as_str();
        let client = self.clients.get()?;
        let _permit = gate.acquire().await;
        // reqwest does not say when the request went out: once past connecting, it may have.
        progress.set(Stage::Writing);
        let mut builder = match req.method {
            Method::Get => client.get(url),
            Method::Post => client.post(url),
        };
        if let Some(auth) = &self.target.auth {
            builder = builder.header(AUTHORIZATION, auth.clone());
        }
        if let Some(body) = &req.body {
            builder = builder
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        let mut resp = builder
            .send()
            .await
            .map_err(|e| transport_error(method, url, &e))?;
        progress.set(Stage::Answered);
        let status = resp.status().as_u16();
        let max = self.reply_cap(req, status).0;
        if let Some(len) = resp.content_length() {
            if len as usize > max {
                return Err(self.refuse(req, url, status));
            }
        }
        let mut buf = Vec::with_capacity(resp.content_length().unwrap_or(0) as usize);
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| transport_error(method, url, &e).delivered_at_least(Delivery::Answered))?
        {
            if buf.len() + chunk.len() > max {
                return Err(self.refuse(req, url, status));
            }
            buf.extend_from_slice(&chunk);
        }
        let location = resp
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|l| l.as_bytes().to_vec());
        Ok(http1::Answer {
            status,
            location,
            body: buf,
        })
    }

    /// One exchange of showctl's own (plain or over TLS), on a connection kept by the calling thread's
    /// lane or by the process runtime (see [`http1`]), or a new one once the application's gate
    /// gives a permit for it.
    ///
    /// A request that fails on a kept connection before a byte of its answer arrived (reset,
    /// end of stream, broken pipe) is sent once more, at once, on a new connection, commands
    /// included: the application closed that connection without reading it (curl's rule). A
    /// new connection's request is never sent again here.
    async fn exchange_plain(
        &self,
        plain: &http1::Plain,
        keeper: Keeper,
        gate: &Arc<Gate>,
        call: Call<'_>,
    ) -> Result<http1::Answer> {
        let Call { req, url, progress } = call;
        let method = req.method.as_str();
        let failed = |f| plain_error(method, url, &plain.host, f, progress.delivery());
        let kept = || self.clients.take_kept(keeper, &plain.authority);
        let (mut conn, lease, mut reused) = match gate.acquire_or(kept).await {
            gate::Got::Kept((conn, lease)) => (conn, lease, true),
            gate::Got::New(lease) => {
                progress.set(Stage::Connecting);
                // On failure the lease goes back after the connection attempt was closed.
                (self.connect(plain).await.map_err(failed)?, lease, false)
            }
        };
        let outgoing = http1::Outgoing {
            method,
            target: plain.target_of(url),
            authority: &plain.authority,
            auth: self.target.auth.as_ref().map(|a| a.as_bytes()),
            body: req.body.as_deref(),
        };
        let caps = http1::Caps {
            success: self.reply_cap(req, 200).0,
            other: self.reply_cap(req, 500).0,
        };
        let (answer, again) = loop {
            match conn.exchange_noting(&outgoing, caps, progress).await {
                Ok(done) => break done,
                Err(http1::Failure::TooLarge { status }) => {
                    return Err(self.refuse(req, url, status))
                }
                Err(f @ (http1::Failure::Io(_) | http1::Failure::Closed { .. }))
                    if reused && progress.stage() <= Stage::Sent =>
                {
                    log::debug!(
                        "{method} {url}: the kept connection ended before any answer ({}); \
                         sending it again on a new connection",
                        failed(f)
                    );
                    progress.send_again();
                    conn = self.connect(plain).await.map_err(failed)?;
                    reused = false;
                }
                Err(f) => return Err(failed(f)),
            }
        };
        match again {
            Some(conn) => self
                .clients
                .put_kept(keeper, &plain.authority, conn, lease, gate),
            None => drop(lease.retire()),
        }
        Ok(answer)
    }

    /// A new connection to `plain`'s application, over TLS for an `https://` one.
    async fn connect(
        &self,
        plain: &http1::Plain,
    ) -> std::result::Result<http1::Conn, http1::Failure> {
        let tls = plain.tls.then(|| self.clients.tls_h1());
        http1::connect(plain, tls, self.timeout).await
    }

    /// A complete answer: the body of a 2xx (its text repaired where it must be), or the
    /// error its status means.
    fn accept(&self, req: &Request, url: &str, answer: http1::Answer) -> Result<Bytes> {
        let method = req.method.as_str();
        let http1::Answer {
            status,
            location,
            body: buf,
        } = answer;
        if !(200..300).contains(&status) {
            let mut err = Error::api(status, method, url, &self.target.scrub(&buf))
                .key_hint(self.target.has_key(), ENV_API_KEY);
            if (300..400).contains(&status) {
                if let (Error::Api { message, .. }, Some(loc)) = (&mut err, location) {
                    message.push_str(&format!(
                        "; Location: {}",
                        String::from_utf8_lossy(&self.target.scrub(&loc))
                    ));
                }
            }
            return Err(err);
        }
        let (text, repaired) = crate::json::repair_text(&buf);
        if repaired {
            let buf = text.into_owned();
            if !self.odd_text_logged.swap(true, Ordering::Relaxed) {
                log::warn!(
                    "{method} {}: the answer holds invalid UTF-8 or a lone surrogate escape; \
                     read as U+FFFD (logged once per application)",
                    shown_url(url)
                );
            }
            return Ok(Bytes::from(buf));
        }
        Ok(Bytes::from(buf))
    }
}

/// One attempt's request, its URL and where it notes how far it got.
struct Call<'a> {
    req: &'a Request,
    url: &'a str,
    progress: &'a Progress,
}

/// A scripted HTTP/1.1 server on loopback for the core's tests: each connection gets the next
/// reply of the script (the last one repeats) and is closed after it.
#[cfg(test)]
pub(crate) mod test_server {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    #[derive(Debug, Clone)]
    pub enum Reply {
        /// A complete answer.
        Status(u16, &'static str),
        /// Wait, then answer.
        Slow(Duration, u16, &'static str),
        /// Raw bytes, then close (a broken or truncated answer).
        Raw(&'static str),
    }

    /// One request as received.
    #[derive(Debug, Clone)]
    pub struct Seen {
        pub method: String,
        pub target: String,
        pub headers: Vec<(String, String)>,
        pub body: Vec<u8>,
    }

    impl Seen {
        pub fn header(&self, name: &str) -> Option<&str> {
            self.headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        }
    }

    pub struct Server {
        pub url: String,
        seen: Arc<Mutex<Vec<Seen>>>,
    }

    impl Server {
        pub fn seen(&self) -> Vec<Seen> {
            self.seen.lock().unwrap().clone()
        }
    }

    pub async fn start(script: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let log = seen.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (log, script) = (log.clone(), script.clone());
                tokio::spawn(async move {
                    if let Some(req) = read_request(stream).await {
                        let (mut stream, seen) = req;
                        log.lock().unwrap().push(seen);
                        let reply = {
                            let mut s = script.lock().unwrap();
                            if s.len() > 1 {
                                s.pop_front().unwrap()
                            } else {
                                s.front().cloned().expect("an empty script")
                            }
                        };
                        let _ = write_reply(&mut stream, reply).await;
                    }
                });
            }
        });
        Server { url, seen }
    }

    async fn read_request(mut stream: TcpStream) -> Option<(TcpStream, Seen)> {
        let mut buf = Vec::new();
        let head_end = loop {
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            buf.extend_from_slice(&chunk[..n]);
            if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break p + 4;
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let mut first = lines.next()?.split(' ');
        let (method, target) = (first.next()?.to_string(), first.next()?.to_string());
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        let len: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = buf[head_end..].to_vec();
        while body.len() < len {
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
        let seen = Seen {
            method,
            target,
            headers,
            body,
        };
        Some((stream, seen))
    }

    async fn write_reply(stream: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
        let (status, body) = match reply {
            Reply::Raw(raw) => {
                stream.write_all(raw.as_bytes()).await?;
                return stream.shutdown().await;
            }
            Reply::Slow(delay, status, body) => {
                tokio::time::sleep(delay).await;
                (status, body)
            }
            Reply::Status(status, body) => (status, body),
        };
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await
    }
}

#[cfg(test)]
mod delivery_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn base_forms() {
        assert_eq!(normalize_base("http://h:1").unwrap(), "http://h:1/api/0");
        assert_eq!(normalize_base("https://h:1/").unwrap(), "https://h:1/api/0");
        assert_eq!(normalize_base("h:1").unwrap(), "http://h:1/api/0");
        assert_eq!(
            normalize_base("127.0.0.1:80").unwrap(),
            "http://127.0.0.1/api/0"
        );
        assert_eq!(
            normalize_base("http://h:1/api/0").unwrap(),
            "http://h:1/api/0"
        );
        assert_eq!(
            normalize_base("http://[::1]:9").unwrap(),
            "http://[::1]:9/api/0"
        );
    }

    #[test]
    fn base_refusals() {
        for bad in [
            "",
            "ftp://h",
            "http://h:1\r\nX: y",
            "http://u:p@h:1",
            "http://h/?q=1",
        ] {
            assert!(normalize_base(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn key_refusals_never_repeat_the_key() {
        let e = auth_header("sec\r\nret").unwrap_err().to_string();
        assert!(!e.contains("sec"), "{e}");
        assert!(auth_header("good-key").unwrap().is_sensitive());
    }

    /// A connection opened by a blocking call on one thread's lane is only driven by that
    /// thread: the process runtime and other threads must not be handed it.
    #[test]
    fn lanes_and_the_runtime_keep_their_own_connections() {
        let rt = crate::runtime::get();
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new().route("/api/0/ping", axum::routing::get(|| async { "{}" }));
        rt.spawn(async move { axum::serve(listener, app).await });
        let mut config = Config::new(format!("http://{addr}"));
        config.timeout = Duration::from_secs(2);
        config.retries = 0;
        let t = Arc::new(Transport::new(&config).unwrap());
        let req = Request::get("/ping");
        for _ in 0..3 {
            let body = crate::runtime::block_on_here(t.send(&req)).unwrap();
            assert_eq!(&body[..], b"{}");
            let (t2, r2) = (t.clone(), req.clone());
            let body = rt
                .block_on(rt.spawn(async move { t2.send(&r2).await }))
                .unwrap()
                .unwrap();
            assert_eq!(&body[..], b"{}");
            let (t3, r3) = (t.clone(), req.clone());
            let body = std::thread::spawn(move || crate::runtime::block_on_here(t3.send(&r3)))
                .join()
                .unwrap()
                .unwrap();
            assert_eq!(&body[..], b"{}");
        }
    }

    /// A server that keeps connections alive but closes one idle for 20 ms; says so on the
    /// channel once it has.
    async fn closes_idle_connections(closed: std::sync::mpsc::Sender<()>) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let closed = closed.clone();
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    loop {
                        let idle = Duration::from_millis(20);
                        match tokio::time::timeout(idle, stream.read(&mut buf)).await {
                            Ok(Ok(n)) if n > 0 => {
                                let reply = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
                                if stream.write_all(reply.as_bytes()).await.is_err() {
                                    break;
                                }
                            }
                            _ => break, // idle, closed or failed: close
                        }
                    }
                    drop(stream);
                    let _ = closed.send(());
                });
            }
        });
        url
    }

    /// A lane's connection closed by the server while the thread was away is not used for
    /// the next call (a command on it would fail: commands are not retried).
    #[test]
    fn a_lane_does_not_send_on_a_connection_closed_while_idle() {
        let rt = crate::runtime::get();
        let (tx, closed) = std::sync::mpsc::channel();
        let url = rt.block_on(rt.spawn(closes_idle_connections(tx))).unwrap();
        let mut config = Config::new(url);
        config.retries = 0;
        let t = Transport::new(&config).unwrap();
        for _ in 0..3 {
            crate::runtime::block_on_here(t.send(&Request::post("/mute/layer/0"))).unwrap();
            // Away until the server has closed the connection this call kept.
            closed.recv_timeout(Duration::from_secs(10)).unwrap();
        }
    }

    /// A keep-alive server answering `{}` to every request; counts its connections.
    async fn counts_connections() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = count.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    while let Ok(n) = stream.read(&mut buf).await {
                        let reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
                        if n == 0 || stream.write_all(reply.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        (url, count)
    }

    /// A configuration (no retries) for a [`counts_connections`] server on the process
    /// runtime, and its count.
    fn counted() -> (Config, Arc<std::sync::atomic::AtomicUsize>) {
        let rt = crate::runtime::get();
        let (url, connections) = rt.block_on(rt.spawn(counts_connections())).unwrap();
        let mut config = Config::new(url);
        config.retries = 0;
        (config, connections)
    }

    /// Whether the calling thread's lane built a reqwest client for `t`.
    fn lane_built_reqwest(t: &Transport) -> bool {
        t.clients.lane_built_reqwest()
    }

    /// A blocking call to an http:// target is made by the lane itself (core/src/transport/http1.rs):
    /// no reqwest client is built for it, and one connection carries the calls. A path reqwest
    /// would rewrite still goes through reqwest.
    #[test]
    fn a_lane_speaks_plain_http_itself_on_one_connection() {
        let (config, connections) = counted();
        let t = Transport::new(&config).unwrap();
        for _ in 0..5 {
            let body = crate::runtime::block_on_here(t.send(&Request::get("/x"))).unwrap();
            assert_eq!(&body[..], b"{}");
        }
        assert_eq!(connections.load(Ordering::SeqCst), 1);
        assert!(!lane_built_reqwest(&t));
        let body = crate::runtime::block_on_here(t.send(&Request::get("/a b"))).unwrap();
        assert_eq!(&body[..], b"{}");
        assert!(lane_built_reqwest(&t));
    }

    /// A request made on the process runtime (an asyncio call, a mirror, the feed) to an
    /// http:// target uses the runtime's own kept connections; on a runtime of the caller's
    /// own it goes through reqwest, and the process runtime keeps nothing for it.
    #[test]
    fn the_process_runtime_speaks_plain_http_itself_on_kept_connections() {
        let rt = crate::runtime::get();
        let (config, connections) = counted();
        let t = Arc::new(Transport::new(&config).unwrap());
        for _ in 0..5 {
            let t2 = t.clone();
            let sent = rt.spawn(async move { t2.send(&Request::get("/x")).await });
            assert_eq!(&rt.block_on(sent).unwrap().unwrap()[..], b"{}");
        }
        assert_eq!(connections.load(Ordering::SeqCst), 1);
        assert_eq!(t.clients.process_kept(|k| k.len()), 1);
        let own = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let elsewhere = Transport::new(&config).unwrap();
        own.block_on(elsewhere.send(&Request::get("/x"))).unwrap();
        assert_eq!(elsewhere.clients.process_kept(|k| k.len()), 0);
    }

    /// Every failure of a lane's own exchange is the error the same failure gave through
    /// reqwest (the fault matrix of tests/client/test_faults.py checks the Python side).
    #[test]
    fn a_lanes_failures_are_typed_as_reqwest_failures_were() {
        let rt = crate::runtime::get();
        let on_lane = |script: Vec<Reply>, tune: &dyn Fn(&mut Config)| {
            let server = rt.block_on(start(script));
            let mut c = config(&server.url);
            c.retries = 0;
            tune(&mut c);
            let t = Transport::new(&c).unwrap();
            let err = crate::runtime::block_on_here(t.send(&Request::get("/x"))).unwrap_err();
            assert!(!lane_built_reqwest(&t), "{err}");
            err
        };
        let cut = on_lane(
            vec![Reply::Raw(
                "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"uuid\":",
            )],
            &|_| {},
        );
        assert!(matches!(cut, Error::Connect { .. }), "{cut:?}");
        assert!(
            cut.to_string().contains("closed before the whole body"),
            "{cut}"
        );
        assert!(cut.to_string().contains("use an https:// URL"), "{cut}");
        let garbage = on_lane(vec![Reply::Raw("\u{0}this is not HTTP\r\n\r\n")], &|_| {});
        assert!(matches!(garbage, Error::Connect { .. }), "{garbage:?}");
        assert!(garbage.to_string().contains("invalid HTTP"), "{garbage}");
        let big = on_lane(vec![Reply::Status(200, "[1,2,3,4,5,6,7,8,9]")], &|c| {
            c.max_body = 8
        });
        assert!(big.to_string().contains("max_body (8 bytes)"), "{big}");
        let moved = on_lane(
            vec![Reply::Raw(
                "HTTP/1.1 301 Moved\r\nLocation: https://h:1/api/0/x\r\nContent-Length: 0\r\n\r\n",
            )],
            &|_| {},
        );
        assert_eq!(moved.status(), Some(301));
        assert!(
            moved.to_string().contains("Location: https://h:1/api/0/x"),
            "{moved}"
        );
        let slow = on_lane(vec![Reply::Slow(Duration::from_secs(5), 200, "{}")], &|c| {
            c.timeout = Duration::from_millis(300)
        });
        assert!(matches!(slow, Error::Timeout { .. }), "{slow:?}");
        assert!(slow.to_string().contains("0.300s"), "{slow}");

        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let t = Transport::new(&config(&format!("127.0.0.1:{port}"))).unwrap();
        let refused = crate::runtime::block_on_here(t.send(&Request::get("/x"))).unwrap_err();
        assert!(matches!(refused, Error::Connect { .. }), "{refused:?}");
        let msg = refused.to_string();
        assert!(
            msg.contains("refused") && msg.contains("is the application running"),
            "{msg}"
        );
    }

    #[test]
    fn an_echoed_key_is_scrubbed_from_what_errors_keep() {
        let t = Target::new("h:1", Some("s3cret-key")).unwrap();
        assert_eq!(
            &*t.scrub(b"Bearer s3cret-key, s3cret-key!"),
            b"Bearer ***, ***!"
        );
        assert!(matches!(t.scrub(b"nothing here"), Cow::Borrowed(_)));
        // Past what an error keeps, nothing is searched or kept.
        let long = [vec![b'x'; 5000], b"s3cret-key".to_vec()].concat();
        assert!(matches!(t.scrub(&long), Cow::Borrowed(_)));
        let early = [b"s3cret-key".to_vec(), vec![b'x'; 5000]].concat();
        assert_eq!(&t.scrub(&early)[..4], b"***x");
        let e = Error::api(
            500,
            "GET",
            "u",
            &t.scrub(b"<pre>Authorization: Bearer s3cret-key</pre>"),
        );
        assert!(!e.to_string().contains("s3cret-key"), "{e}");
        let none = Target::new("h:1", None).unwrap();
        assert!(matches!(none.scrub(b"s3cret-key"), Cow::Borrowed(_)));
        // A JSON body's numbers and words stay, whatever the key.
        let one = Target::new("h:1", Some("1")).unwrap();
        assert!(matches!(
            one.scrub_all(br#"{"opacity":1}"#),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn query_is_encoded() {
        let r = Request::post("/skip/layer/0")
            .query("forwards", "true")
            .query("offset", "1.5");
        assert_eq!(r.path_and_query(), "/skip/layer/0?forwards=true&offset=1.5");
    }

    use super::test_server::{start, Reply};

    async fn send(config: &Config, req: Request) -> Result<Bytes> {
        Transport::new(config).unwrap().send(&req).await
    }

    fn config(url: &str) -> Config {
        let mut c = Config::new(url);
        c.timeout = Duration::from_secs(2);
        c.backoff = Duration::from_millis(10);
        c
    }

    #[tokio::test]
    async fn get_is_retried_on_503_and_succeeds() {
        let server = start(vec![
            Reply::Status(503, ""),
            Reply::Status(503, "busy"),
            Reply::Status(200, "{}"),
        ])
        .await;
        let t = Transport::new(&config(&server.url)).unwrap();
        let body = t.send(&Request::get("/data/scores")).await.unwrap();
        assert_eq!(&body[..], b"{}");
        let seen = server.seen();
        assert_eq!(seen.len(), 3);
        assert!(seen
            .iter()
            .all(|r| r.method == "GET" && r.target == "/api/0/data/scores"));
    }

    #[tokio::test]
    async fn get_gives_up_after_the_retries() {
        let server = start(vec![Reply::Status(500, "oops")]).await;
        let mut c = config(&server.url);
        c.retries = 1;
        let err = send(&c, Request::get("/x")).await.unwrap_err();
        assert_eq!(err.status(), Some(500));
        assert_eq!(server.seen().len(), 2);
    }

    #[tokio::test]
    async fn post_is_not_retried() {
        let server = start(vec![Reply::Status(503, ""), Reply::Status(200, "")]).await;
        let t = Transport::new(&config(&server.url)).unwrap();
        let err = t
            .send(&Request::post("/clear/workspace"))
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(503));
        match &err {
            Error::Api { method, url, .. } => {
                assert_eq!(method, "POST");
                assert_eq!(url, &format!("{}/api/0/clear/workspace", server.url));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(server.seen().len(), 1);
    }

    #[tokio::test]
    async fn post_is_retried_with_retry_commands() {
        let server = start(vec![Reply::Status(503, ""), Reply::Status(200, "")]).await;
        let mut c = config(&server.url);
        c.retry_commands = true;
        let body = send(&c, Request::post("/clear/workspace")).await.unwrap();
        assert!(body.is_empty());
        assert_eq!(server.seen().len(), 2);
    }

    #[tokio::test]
    async fn client_errors_are_not_retried() {
        for status in [400, 401, 403, 404, 405, 502] {
            let server = start(vec![Reply::Status(status, "")]).await;
            let err = send(&config(&server.url), Request::get("/x"))
                .await
                .unwrap_err();
            assert_eq!(err.status(), Some(status));
            assert_eq!(server.seen().len(), 1, "{status}");
        }
    }

    #[tokio::test]
    async fn key_travels_as_a_bearer_header_only_when_given() {
        let server = start(vec![Reply::Status(200, "{}")]).await;
        let mut c = config(&server.url);
        c.api_key = Some("s3cret".into());
        send(&c, Request::get("/x")).await.unwrap();
        send(&config(&server.url), Request::get("/x"))
            .await
            .unwrap();
        let seen = server.seen();
        assert_eq!(seen[0].header("authorization"), Some("Bearer s3cret"));
        assert_eq!(seen[1].header("authorization"), None);
        assert!(seen[0]
            .header("user-agent")
            .unwrap()
            .starts_with("showctl/"));
    }

    #[tokio::test]
    async fn json_body_is_sent_with_its_content_type() {
        let server = start(vec![Reply::Status(200, "")]).await;
        let req = Request::post("/opacity/layer/0")
            .query("target", "true")
            .json(&serde_json::json!({"value": 0.5}));
        send(&config(&server.url), req).await.unwrap();
        let seen = server.seen();
        assert_eq!(seen[0].target, "/api/0/opacity/layer/0?target=true");
        assert_eq!(seen[0].header("content-type"), Some("application/json"));
        assert_eq!(seen[0].body, br#"{"value":0.5}"#);
    }

    #[tokio::test]
    async fn a_slow_answer_times_out_within_the_timeout() {
        let server = start(vec![Reply::Slow(Duration::from_secs(5), 200, "{}")]).await;
        let mut c = config(&server.url);
        c.timeout = Duration::from_millis(300);
        c.retries = 0;
        let started = Instant::now();
        let err = send(&c, Request::get("/x")).await.unwrap_err();
        let took = started.elapsed();
        assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
        assert!(err.to_string().contains("0.300s"), "{err}");
        assert!(took < Duration::from_millis(1000), "{took:?}");
    }

    #[tokio::test]
    async fn a_refused_connection_is_a_connect_error_with_a_hint() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let mut c = config(&format!("127.0.0.1:{port}"));
        c.retries = 1;
        let err = send(&c, Request::get("/x")).await.unwrap_err();
        assert!(matches!(err, Error::Connect { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains("refused"), "{msg}");
        assert!(msg.contains("is the application running"), "{msg}");
    }

    #[tokio::test]
    async fn a_body_cut_short_is_a_connect_error() {
        let server = start(vec![Reply::Raw(
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"uuid\":",
        )])
        .await;
        let mut c = config(&server.url);
        c.retries = 0;
        let err = send(&c, Request::get("/x")).await.unwrap_err();
        assert!(matches!(err, Error::Connect { .. }), "{err:?}");
    }

    #[tokio::test]
    async fn https_on_a_plain_http_port_says_use_http() {
        // A plain HTTP server answers the TLS hello with an HTTP error, as the application's
        // own server does.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let reply = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
                let _ = tokio::io::AsyncWriteExt::write_all(&mut stream, reply).await;
            }
        });
        let mut c = config(&origin.replacen("http://", "https://", 1));
        c.retries = 0;
        let err = send(&c, Request::get("/x")).await.unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::Connect { .. }), "{err:?}");
        assert!(
            msg.contains(&format!("the application speaks plain HTTP: use {origin}")),
            "{msg}"
        );
        assert!(!msg.contains("corrupt"), "{msg}");
    }

    #[tokio::test]
    async fn a_401_says_whether_a_key_was_sent() {
        let server = start(vec![Reply::Status(401, "")]).await;
        let mut c = config(&server.url);
        let none = send(&c, Request::get("/x")).await.unwrap_err().to_string();
        assert!(
            none.contains("no API key was sent; pass api_key=\"KEY\""),
            "{none}"
        );
        c.api_key = Some("k3y".into());
        let sent = send(&c, Request::get("/x")).await.unwrap_err().to_string();
        assert!(sent.contains("the API key sent was refused"), "{sent}");
        assert!(!sent.contains("k3y"), "{sent}");
    }

    #[tokio::test]
    async fn a_body_larger_than_max_body_is_refused() {
        let server = start(vec![Reply::Status(200, "[1,2,3,4,5,6,7,8,9]")]).await;
        let mut c = config(&server.url);
        c.max_body = 8;
        let err = send(&c, Request::get("/x")).await.unwrap_err();
        assert!(matches!(err, Error::Decode { .. }), "{err:?}");
        assert!(err.to_string().contains("max_body (8 bytes)"), "{err}");
    }

    #[tokio::test]
    async fn redirects_are_reported_not_followed() {
        let server = start(vec![Reply::Raw(
            "HTTP/1.1 301 Moved\r\nLocation: https://h:1/api/0/x\r\nContent-Length: 0\r\n\r\n",
        )])
        .await;
        let err = send(&config(&server.url), Request::get("/x"))
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(301));
        let msg = err.to_string();
        assert!(msg.contains("Location: https://h:1/api/0/x"), "{msg}");
        assert_eq!(server.seen().len(), 1);
    }

    #[tokio::test]
    async fn a_closed_transport_sends_nothing() {
        let server = start(vec![Reply::Status(200, "{}")]).await;
        let t = Transport::new(&config(&server.url)).unwrap();
        t.close();
        assert!(t.is_closed());
        let err = t.send(&Request::get("/x")).await.unwrap_err();
        assert!(matches!(err, Error::Closed));
        assert!(server.seen().is_empty());
    }

    #[test]
    fn control_characters_are_refused_even_at_the_ends() {
        for bad in ["http://h:1\n", "\r\nhttp://h:1", "h:1\t"] {
            let e = normalize_base(bad).unwrap_err().to_string();
            assert!(e.contains("CR, LF"), "{bad:?}: {e}");
        }
        assert_eq!(normalize_base("  h:1  ").unwrap(), "http://h:1/api/0");
        assert!(auth_header(" key").is_err());
        assert!(auth_header("key ").is_err());
        assert!(auth_header("").is_err());
    }

    #[test]
    fn debug_never_shows_the_key() {
        let mut c = Config::new("h:1");
        c.api_key = Some("s3cret".into());
        assert!(!format!("{c:?}").contains("s3cret"));
        let t = Transport::new(&c).unwrap();
        assert!(!format!("{t:?}").contains("s3cret"));
        assert!(!format!("{:?}", t.target()).contains("s3cret"));
        assert!(t.target().auth.is_some());
    }

    #[test]
    fn methods_parse() {
        assert_eq!(Method::parse("get").unwrap(), Method::Get);
        assert_eq!(Method::parse("POST").unwrap(), Method::Post);
        assert!(Method::parse("DELETE")
            .unwrap_err()
            .to_string()
            .contains("GET and POST"));
    }

    #[test]
    fn zero_timeout_is_refused() {
        let mut c = Config::new("h:1");
        c.timeout = Duration::ZERO;
        assert!(Transport::new(&c).is_err());
    }

    #[test]
    fn ca_cert_must_be_a_readable_pem() {
        let mut c = Config::new("https://h:1");
        c.ca_cert = Some("/nonexistent/ca.pem".into());
        let e = Transport::new(&c).unwrap_err().to_string();
        assert!(e.starts_with("ca_cert: cannot read"), "{e}");
        let dir = std::env::temp_dir().join(format!("showctl-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("not.pem");
        std::fs::write(&path, "hello").unwrap();
        c.ca_cert = Some(path);
        let e = Transport::new(&c).unwrap_err().to_string();
        assert!(e.starts_with("ca_cert:"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
