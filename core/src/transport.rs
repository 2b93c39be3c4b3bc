//! The HTTP transport: base URL forms, the `/api/0` prefix, the Bearer key, TLS options,
//! per-attempt timeouts, retries with backoff and jitter, a cap on body size, and keep-alive
//! connection reuse: one HTTP/1.1 exchange for both schemes and every runtime, hyper's client
//! connection over showctl's own connections ([`http1`]), kept by the process runtime and by
//! each thread that makes blocking calls (see [`crate::runtime`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::header::HeaderValue;

use crate::error::{shown_url, Delivery, Error, Result};

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
pub(crate) mod errors;
mod gate;
mod http1;
mod progress;
mod request;
mod target;

#[cfg(test)]
mod delivery_tests;
#[cfg(test)]
mod differential_tests;
#[cfg(test)]
pub(crate) mod test_server;
#[cfg(test)]
mod tests;

use clients::{Clients, Keeper};
pub use config::{
    resolve_key, resolve_pin, resolve_url, url_env, ClientArgs, Config, CONFIRM_TIMEOUT_RANGE,
    MAX_BODY_RANGE, MAX_CONNECTIONS_RANGE, RETRIES_RANGE, TIMEOUT_RANGE,
};
use errors::{failure_error, head_refused, reply_too_large, short, too_large};
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
    /// The longest a call takes: `timeout × (retries + 1)` plus the longest backoff delays
    /// between its attempts (docs/reliability.md's bound).
    pub fn call_bound(&self) -> Duration {
        let delays = (0..self.retries)
            .map(|a| self.backoff_delay_max(a))
            .sum::<Duration>();
        self.timeout * (self.retries + 1) + delays
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
        let jitter = rand::random::<f64>() * 0.5 + 0.75; // 0.75 .. 1.25
        Duration::from_secs_f64(self.backoff_capped(attempt) * jitter)
    }

    /// The backoff before retry `attempt + 1` without its jitter, in seconds.
    fn backoff_capped(&self, attempt: u32) -> f64 {
        let base = self.backoff.as_secs_f64() * 2f64.powi(attempt.min(16) as i32);
        base.min(2.0)
    }

    /// The longest [`Self::backoff_delay`] can be.
    fn backoff_delay_max(&self, attempt: u32) -> Duration {
        Duration::from_secs_f64(self.backoff_capped(attempt) * 1.25)
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
        let exchange = Box::pin(self.exchange(req, &url, &progress));
        // A command's record learns how far it got as it goes (written as it stood if the
        // caller drops it: see `crate::journal`).
        let (base, key, post) = (
            self.target.base(),
            self.target.secret(),
            req.method == Method::Post,
        );
        let exchange = crate::journal::noting(
            post,
            base,
            key,
            || path_and_query.clone(),
            exchange,
            || progress.delivery(),
        );
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
    /// how far it got, over TCP or TLS, on the connections of the calling thread's lane, of
    /// the process runtime, or (a runtime of the caller's own) on one of its own.
    async fn exchange(&self, req: &Request, url: &str, progress: &Progress) -> Result<Bytes> {
        let Some(address) = &self.target.address else {
            return Err(Error::invalid(format!(
                "url: {:?} names no host and port to connect to",
                self.target.base
            )));
        };
        let gate = self.clients.gates.of(&self.target.origin);
        let call = Attempt { req, url, progress };
        let answer = self
            .exchange_own(address, Keeper::here(), &gate, call)
            .await?;
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

    /// One exchange over TCP or TLS, on a connection kept by the calling thread's lane or by
    /// the process runtime (see [`http1`]), or a new one once the application's gate gives a
    /// permit for it.
    ///
    /// A request that fails on a kept connection before a byte of its answer arrived (reset,
    /// end of stream, broken pipe) is sent once more, at once, on a new connection, commands
    /// included: the application closed that connection without reading it (curl's rule). When
    /// hyper hands the request back (it found the connection closed before writing it), that
    /// request goes, and the attempt stays `not_sent` until it does. A new connection's request
    /// is never sent again here.
    async fn exchange_own(
        &self,
        address: &http1::Address,
        keeper: Keeper,
        gate: &Arc<Gate>,
        call: Attempt<'_>,
    ) -> Result<http1::Answer> {
        let Attempt { req, url, progress } = call;
        let method = req.method.as_str();
        let failed = |f| failure_error(method, url, &address.host, f, progress.delivery());
        let outgoing = http1::Outgoing {
            method,
            target: address.target_of(url),
            host: &address.host_header,
            auth: self.target.auth.as_ref(),
            body: req.body.as_deref(),
        };
        // Refused before anything is sent.
        let mut message = Some(outgoing.message().map_err(Error::invalid)?);
        let kept = || self.clients.take_kept(keeper, &address.authority);
        let (mut conn, lease, mut reused) = match gate.acquire_or(kept).await {
            gate::Got::Kept((conn, lease)) => (conn, lease, true),
            gate::Got::New(lease) => {
                progress.set(Stage::Connecting);
                // On failure the lease goes back after the connection attempt was closed.
                (self.connect(address).await.map_err(failed)?, lease, false)
            }
        };
        let caps = http1::Caps {
            success: self.reply_cap(req, 200).0,
            other: self.reply_cap(req, 500).0,
        };
        let (answer, again) = loop {
            match conn.exchange(&mut message, caps, progress).await {
                Ok(done) => break done,
                Err(http1::Failure::TooLarge { status }) => {
                    return Err(self.refuse(req, url, status))
                }
                Err(http1::Failure::HeadTooLarge(what))
                    if progress.delivery() == Delivery::Answered =>
                {
                    return Err(head_refused(method, url, &what))
                }
                Err(f @ (http1::Failure::Io(_) | http1::Failure::Closed { .. }))
                    if reused && progress.stage() <= Stage::Sent =>
                {
                    log::debug!(
                        "{method} {url}: the kept connection ended before any answer ({}); \
                         sending it again on a new connection",
                        failed(f)
                    );
                    if message.is_none() {
                        // A copy went out: whatever happens next, it may have been read.
                        progress.send_again();
                        message = Some(outgoing.message().map_err(Error::invalid)?);
                    } else {
                        progress.set(Stage::Connecting);
                    }
                    conn = self.connect(address).await.map_err(failed)?;
                    reused = false;
                }
                Err(f) => return Err(failed(f)),
            }
        };
        match again {
            Some(conn) => self
                .clients
                .put_kept(keeper, &address.authority, conn, lease, gate),
            None => drop(lease.retire()),
        }
        Ok(answer)
    }

    /// A new connection to the application at `address`, over TLS for an `https://` one.
    async fn connect(
        &self,
        address: &http1::Address,
    ) -> std::result::Result<http1::Conn, http1::Failure> {
        let tls = address.tls.then(|| self.clients.tls_h1());
        http1::connect(address, tls, self.timeout).await
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
struct Attempt<'a> {
    req: &'a Request,
    url: &'a str,
    progress: &'a Progress,
}
