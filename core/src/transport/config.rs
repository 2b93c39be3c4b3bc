//! [`Config`], everything a client is built from, and its validating setters: one range or
//! form check per client option, each error naming the option and the value refused. The
//! binding's constructors, the venue file, the feed and the command line all set their options
//! through these, so a range is written once (its text, `*_RANGE`, is also what the docs and
//! the command line's help print).

use std::fmt::Display;
use std::path::PathBuf;
use std::time::Duration;

use super::{
    DEFAULT_CONFIRM_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_CONNECTIONS, DEFAULT_TIMEOUT,
    ENV_API_KEY, ENV_MEDIA_URL, ENV_SCOREBOARD_URL,
};
use crate::error::{Error, Result};
use crate::tls::{Fingerprint, TlsOptions};

/// What `timeout` allows (seconds per attempt).
pub const TIMEOUT_RANGE: &str = "a number of seconds above 0 and at most 3600";
/// What `retries` allows.
pub const RETRIES_RANGE: &str = "between 0 and 10";
/// What `max_body` allows (`None`: the default, 64 MiB).
pub const MAX_BODY_RANGE: &str = "a positive number of bytes";
/// What `max_connections` allows.
pub const MAX_CONNECTIONS_RANGE: &str = "between 1 and 1024";
/// What `confirm_timeout` allows (seconds).
pub const CONFIRM_TIMEOUT_RANGE: &str = "a number of seconds from 0 to 60";

/// Everything a client is built from.
#[derive(Clone)]
pub struct Config {
    pub url: String,
    pub api_key: Option<String>,
    pub timeout: Duration,
    pub verify: bool,
    pub ca_cert: Option<PathBuf>,
    /// A pinned certificate (`tls_fingerprint`): see [`crate::tls`].
    pub tls_fingerprint: Option<Fingerprint>,
    pub retries: u32,
    pub retry_commands: bool,
    pub max_body: usize,
    /// First backoff delay; doubles per attempt, with jitter, capped at 2 s.
    pub backoff: Duration,
    /// How long a confirmed command reads its value back (see `media::confirm`).
    pub confirm_timeout: Duration,
    /// Connections open at once to one application, in use or kept idle; calls beyond it wait
    /// for a free one (see `transport::gate`).
    pub max_connections: usize,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("timeout", &self.timeout)
            .field("verify", &self.verify)
            .field("ca_cert", &self.ca_cert)
            .field("tls_fingerprint", &self.tls_fingerprint)
            .field("retries", &self.retries)
            .field("retry_commands", &self.retry_commands)
            .field("confirm_timeout", &self.confirm_timeout)
            .field("max_connections", &self.max_connections)
            .finish()
    }
}

/// Refuse a value outside its option's range: `name: must be RANGE, got VALUE`.
fn in_range(ok: bool, name: &str, range: &str, value: impl Display) -> Result<()> {
    if ok {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "{name}: must be {range}, got {value}"
    )))
}

impl Config {
    /// How this configuration trusts the application's certificate.
    pub fn tls_options(&self) -> TlsOptions {
        TlsOptions {
            verify: self.verify,
            ca_cert: self.ca_cert.clone(),
            pin: self.tls_fingerprint,
        }
    }

    pub fn new(url: impl Into<String>) -> Self {
        Config {
            url: url.into(),
            api_key: None,
            timeout: DEFAULT_TIMEOUT,
            verify: true,
            ca_cert: None,
            tls_fingerprint: None,
            retries: 2,
            retry_commands: false,
            max_body: DEFAULT_MAX_BODY,
            backoff: Duration::from_millis(100),
            confirm_timeout: DEFAULT_CONFIRM_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
        }
    }

    /// `timeout`: seconds each attempt may take ([`TIMEOUT_RANGE`]).
    pub fn set_timeout(&mut self, seconds: f64) -> Result<()> {
        let ok = seconds.is_finite() && seconds > 0.0 && seconds <= 3600.0;
        in_range(ok, "timeout", TIMEOUT_RANGE, seconds)?;
        self.timeout = Duration::from_secs_f64(seconds);
        Ok(())
    }

    /// `retries`: how many times a read is retried ([`RETRIES_RANGE`]).
    pub fn set_retries(&mut self, retries: i64) -> Result<()> {
        in_range(
            (0..=10).contains(&retries),
            "retries",
            RETRIES_RANGE,
            retries,
        )?;
        self.retries = retries as u32;
        Ok(())
    }

    /// `max_body`: the largest answer accepted, in bytes ([`MAX_BODY_RANGE`]; `None`: 64 MiB).
    pub fn set_max_body(&mut self, bytes: Option<i64>) -> Result<()> {
        let shown = bytes.map_or_else(|| "None".to_string(), |n| n.to_string());
        in_range(
            bytes.is_none_or(|n| n > 0),
            "max_body",
            MAX_BODY_RANGE,
            shown,
        )?;
        self.max_body = bytes.map_or(DEFAULT_MAX_BODY, |n| n as usize);
        Ok(())
    }

    /// `max_connections`: connections open at once ([`MAX_CONNECTIONS_RANGE`]).
    pub fn set_max_connections(&mut self, n: i64) -> Result<()> {
        in_range(
            (1..=1024).contains(&n),
            "max_connections",
            MAX_CONNECTIONS_RANGE,
            n,
        )?;
        self.max_connections = n as usize;
        Ok(())
    }

    /// `confirm_timeout`: how long `confirm=True` reads back ([`CONFIRM_TIMEOUT_RANGE`]).
    pub fn set_confirm_timeout(&mut self, seconds: f64) -> Result<()> {
        let ok = seconds.is_finite() && (0.0..=60.0).contains(&seconds);
        in_range(ok, "confirm_timeout", CONFIRM_TIMEOUT_RANGE, seconds)?;
        self.confirm_timeout = Duration::from_secs_f64(seconds);
        Ok(())
    }

    /// `tls_fingerprint`: the pin given, else `SHOWCTL_TLS_FINGERPRINT` (see [`resolve_pin`]),
    /// checked against the URL set before it.
    pub fn set_tls_fingerprint(&mut self, given: Option<String>) -> Result<()> {
        self.tls_fingerprint = resolve_pin(given, &self.url)?;
        Ok(())
    }
}

/// The client options as given (to a constructor, or to the feed, which takes some of them),
/// before their checks. `confirm_timeout` is `MediaPlayer`'s only: elsewhere it keeps its
/// default.
pub struct ClientArgs {
    pub url: Option<String>,
    pub api_key: Option<String>,
    pub timeout: f64,
    pub verify: bool,
    pub ca_cert: Option<PathBuf>,
    pub tls_fingerprint: Option<String>,
    pub retries: i64,
    pub retry_commands: bool,
    pub max_body: Option<i64>,
    pub max_connections: i64,
    pub confirm_timeout: f64,
}

impl Default for ClientArgs {
    /// [`Config::new`]'s defaults (those the constructors' signatures show).
    fn default() -> Self {
        let c = Config::new(String::new());
        ClientArgs {
            url: None,
            api_key: None,
            timeout: c.timeout.as_secs_f64(),
            verify: c.verify,
            ca_cert: None,
            tls_fingerprint: None,
            retries: c.retries.into(),
            retry_commands: c.retry_commands,
            max_body: None,
            max_connections: c.max_connections as i64,
            confirm_timeout: c.confirm_timeout.as_secs_f64(),
        }
    }
}

impl ClientArgs {
    /// The [`Config`]: each value set through its checking setter, in signature order (the URL
    /// first: the pin's check reads it); the URL and key read from the environment when not
    /// given (`url_env`: the class's variable, see [`url_env`]).
    pub fn config(self, url_env: &str) -> Result<Config> {
        let mut c = Config::new(resolve_url(self.url, url_env)?);
        c.api_key = resolve_key(self.api_key);
        c.set_timeout(self.timeout)?;
        c.verify = self.verify;
        c.ca_cert = self.ca_cert;
        c.set_tls_fingerprint(self.tls_fingerprint)?;
        c.set_retries(self.retries)?;
        c.retry_commands = self.retry_commands;
        c.set_max_body(self.max_body)?;
        c.set_max_connections(self.max_connections)?;
        c.set_confirm_timeout(self.confirm_timeout)?;
        Ok(c)
    }
}

/// The environment variable an application's URL is read from when none is given, by
/// application (`"media"`, `"scoreboard"`); any other name is refused, naming `app`.
pub fn url_env(app: &str) -> Result<&'static str> {
    match app {
        "media" => Ok(ENV_MEDIA_URL),
        "scoreboard" => Ok(ENV_SCOREBOARD_URL),
        _ => Err(Error::invalid(format!(
            "app: expected \"media\" or \"scoreboard\", got {app:?}"
        ))),
    }
}

/// Read the URL and key from arguments or environment variables.
pub fn resolve_url(url: Option<String>, env_var: &str) -> Result<String> {
    match url {
        Some(u) => Ok(u),
        None => match std::env::var(env_var) {
            Ok(u) if !u.trim().is_empty() => Ok(u),
            _ => Err(Error::invalid(format!(
                "url: no URL given and {env_var} is not set; pass url=\"http://host:port\" \
                 or set {env_var}"
            ))),
        },
    }
}

pub use crate::tls::resolve_pin;

pub fn resolve_key(api_key: Option<String>) -> Option<String> {
    api_key.or_else(|| std::env::var(ENV_API_KEY).ok().filter(|k| !k.is_empty()))
}

#[cfg(test)]
mod tests {
    /// Each application's URL variable, and a refusal naming `app` for any other name.
    #[test]
    fn the_url_variable_is_the_applications() {
        assert_eq!(super::url_env("media").unwrap(), super::ENV_MEDIA_URL);
        assert_eq!(
            super::url_env("scoreboard").unwrap(),
            super::ENV_SCOREBOARD_URL
        );
        let err = super::url_env("Media").unwrap_err();
        assert!(matches!(err, crate::error::Error::InvalidInput(_)));
        assert_eq!(
            err.to_string(),
            "app: expected \"media\" or \"scoreboard\", got \"Media\""
        );
    }

    use super::*;

    /// Each setter refuses the values just outside its range, naming the option and the value,
    /// and keeps the bounds.
    #[test]
    fn each_setter_checks_its_range() {
        let mut c = Config::new("h:1");
        let refused = |r: Result<()>| match r {
            Err(Error::InvalidInput(m)) => m,
            other => panic!("not refused: {other:?}"),
        };
        assert_eq!(
            refused(c.set_timeout(0.0)),
            "timeout: must be a number of seconds above 0 and at most 3600, got 0"
        );
        refused(c.set_timeout(3600.5));
        refused(c.set_timeout(f64::NAN));
        c.set_timeout(3600.0).unwrap();
        assert_eq!(c.timeout, Duration::from_secs(3600));
        assert_eq!(
            refused(c.set_retries(11)),
            "retries: must be between 0 and 10, got 11"
        );
        refused(c.set_retries(-1));
        c.set_retries(10).unwrap();
        assert_eq!(c.retries, 10);
        assert_eq!(
            refused(c.set_max_body(Some(0))),
            "max_body: must be a positive number of bytes, got 0"
        );
        c.set_max_body(Some(1)).unwrap();
        assert_eq!(c.max_body, 1);
        c.set_max_body(None).unwrap();
        assert_eq!(c.max_body, DEFAULT_MAX_BODY);
        assert_eq!(
            refused(c.set_max_connections(0)),
            "max_connections: must be between 1 and 1024, got 0"
        );
        refused(c.set_max_connections(1025));
        c.set_max_connections(1024).unwrap();
        assert_eq!(c.max_connections, 1024);
        assert_eq!(
            refused(c.set_confirm_timeout(60.5)),
            "confirm_timeout: must be a number of seconds from 0 to 60, got 60.5"
        );
        refused(c.set_confirm_timeout(-0.1));
        c.set_confirm_timeout(0.0).unwrap();
        assert_eq!(c.confirm_timeout, Duration::ZERO);
    }

    #[test]
    fn a_pin_is_refused_for_a_plain_http_url() {
        let pin = format!("sha256:{}", "ab".repeat(32));
        let mut c = Config::new("http://h:1");
        let e = c.set_tls_fingerprint(Some(pin.clone())).unwrap_err();
        assert!(e.to_string().contains("is not an https:// URL"), "{e}");
        let mut c = Config::new("https://h:1");
        c.set_tls_fingerprint(Some(pin)).unwrap();
        assert!(c.tls_fingerprint.is_some());
    }
}
