//! The feed's sources as given to `Feed(media=..., scoreboard=..., api_key=..., ...)`: each
//! source's URL and own connection options, the feed's options shared by them, and what does
//! not go beside a venue.

use std::path::PathBuf;
use std::time::Duration;

use super::{check_beside_venue, Kind, SourceSpec, DEFAULT_INTERVAL};
use crate::error::{Error, Result};
use crate::serve::Limits;
use crate::transport::{ClientArgs, ENV_MEDIA_URL, ENV_SCOREBOARD_URL};

/// The keys of a source given as a dict (`media={"url": ..., "api_key": ...}`).
pub const SOURCE_KEYS: &[&str] = &["url", "api_key", "tls_fingerprint", "ca_cert", "verify"];

/// How a feed listens and polls, as given to `Feed(port=, interval=, header_timeout=)` and
/// checked in that order (`interval`: [`DEFAULT_INTERVAL`] when not given).
#[derive(Debug)]
pub struct Serving {
    pub port: u16,
    pub interval: Duration,
    pub limits: Limits,
}

impl Serving {
    pub fn given(port: i64, interval: Option<f64>, header_timeout: f64) -> Result<Self> {
        Ok(Serving {
            port: crate::serve::port(port)?,
            interval: crate::poll::watch_interval(interval.unwrap_or(DEFAULT_INTERVAL))?,
            limits: Limits::with_header_timeout(header_timeout)?,
        })
    }
}

/// A source as given (`media=`, `scoreboard=`): its URL, and the connection options that
/// override the feed's own for it (`None`: the feed's).
#[derive(Debug, Default)]
pub struct SourceArg {
    pub url: String,
    pub api_key: Option<String>,
    pub tls_fingerprint: Option<String>,
    pub ca_cert: Option<PathBuf>,
    pub verify: Option<bool>,
}

/// The connection options given to the feed for every source (`None`: not given; the clients'
/// defaults apply).
#[derive(Debug, Default)]
pub struct SharedOptions {
    pub api_key: Option<String>,
    pub timeout: Option<f64>,
    pub verify: Option<bool>,
    pub ca_cert: Option<PathBuf>,
    pub tls_fingerprint: Option<String>,
}

impl SharedOptions {
    /// Refuse these options, `media=` or `scoreboard=` beside a venue (`from_file`: `venue=`,
    /// else `sources=`), which names every source with its own options; `interval`: as given
    /// (see [`check_beside_venue`]). Returns the interval every source of `sources=` takes
    /// when it sets none (`interval=` beside `sources=`, as `[defaults]` gives one).
    pub fn check_beside_venue(
        &self,
        from_file: bool,
        interval: Option<f64>,
        media: bool,
        scoreboard: bool,
    ) -> Result<Option<f64>> {
        check_beside_venue(
            from_file,
            interval.is_some(),
            &[
                ("media", media),
                ("scoreboard", scoreboard),
                ("api_key", self.api_key.is_some()),
                ("ca_cert", self.ca_cert.is_some()),
                ("tls_fingerprint", self.tls_fingerprint.is_some()),
                ("timeout", self.timeout.is_some()),
                ("verify", self.verify.is_some()),
            ],
        )?;
        Ok(interval.filter(|_| !from_file))
    }

    /// The source of `kind` given as `source`: its URL, its own options, else the feed's (a
    /// feed polls without retries). A refusal names the source (`media: timeout: ...`).
    pub fn source(&self, kind: Kind, source: SourceArg) -> Result<SourceSpec> {
        let defaults = ClientArgs::default();
        let given = ClientArgs {
            url: Some(source.url),
            api_key: source.api_key.or_else(|| self.api_key.clone()),
            timeout: self.timeout.unwrap_or(defaults.timeout),
            verify: source.verify.or(self.verify).unwrap_or(defaults.verify),
            ca_cert: source.ca_cert.or_else(|| self.ca_cert.clone()),
            tls_fingerprint: source
                .tls_fingerprint
                .or_else(|| self.tls_fingerprint.clone()),
            retries: 0,
            ..defaults
        };
        let env = match kind {
            Kind::Media => ENV_MEDIA_URL,
            Kind::Scoreboard => ENV_SCOREBOARD_URL,
        };
        let config = given.config(env).map_err(|e| match e {
            Error::InvalidInput(m) => Error::invalid(format!("{}: {m}", kind.as_str())),
            other => other,
        })?;
        Ok(SourceSpec::new(kind, config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(r: Result<SourceSpec>) -> String {
        r.map(|s| s.name).unwrap_err().to_string()
    }

    /// A source's own options win over the feed's, the feed's over the defaults; the feed polls
    /// without retries; a refusal names the source.
    #[test]
    fn a_source_takes_its_own_options_then_the_feeds() {
        let shared = SharedOptions {
            api_key: Some("feed-key".into()),
            timeout: Some(2.0),
            verify: Some(false),
            ..SharedOptions::default()
        };
        let own = SourceArg {
            url: "https://h:1".into(),
            api_key: Some("own-key".into()),
            verify: Some(true),
            ..SourceArg::default()
        };
        let s = shared.source(Kind::Media, own).unwrap();
        assert_eq!((s.name.as_str(), s.kind), ("media", Kind::Media));
        assert_eq!(s.config.api_key.as_deref(), Some("own-key"));
        assert!(s.config.verify);
        assert_eq!(s.config.timeout.as_secs_f64(), 2.0);
        assert_eq!(s.config.retries, 0);
        let url = |u: &str| SourceArg {
            url: u.into(),
            ..SourceArg::default()
        };
        let s = shared.source(Kind::Scoreboard, url("h:2")).unwrap();
        assert_eq!(s.config.api_key.as_deref(), Some("feed-key"));
        assert!(!s.config.verify);
        let s = SharedOptions::default()
            .source(Kind::Media, url("h:3"))
            .unwrap();
        assert_eq!(s.config.timeout, crate::transport::DEFAULT_TIMEOUT);
        assert!(s.config.verify);
        let slow = SharedOptions {
            timeout: Some(0.0),
            ..SharedOptions::default()
        };
        let err = refusal(slow.source(Kind::Scoreboard, url("h:4")));
        assert!(err.starts_with("scoreboard: timeout: must be "), "{err}");
    }

    /// A feed's port, interval and header timeout are checked in that order; the interval is
    /// the default when not given.
    #[test]
    fn serving_is_checked_in_order() {
        let s = Serving::given(0, None, 30.0).unwrap();
        assert_eq!(s.interval, Duration::from_secs_f64(DEFAULT_INTERVAL));
        assert_eq!(
            (s.port, s.limits.header_timeout),
            (0, crate::serve::HEADER_TIMEOUT)
        );
        let err = Serving::given(-1, Some(0.0), 0.0).unwrap_err().to_string();
        assert!(err.starts_with("port: "), "{err}");
        let err = Serving::given(1, Some(0.0), 0.0).unwrap_err().to_string();
        assert!(err.starts_with("interval: "), "{err}");
        let err = Serving::given(1, Some(1.0), 0.0).unwrap_err().to_string();
        assert!(err.starts_with("header_timeout: "), "{err}");
    }

    /// Beside a venue, the first option given is refused by name, the sources first.
    #[test]
    fn a_shared_option_beside_a_venue_is_refused_by_name() {
        let none = SharedOptions::default();
        let every = none.check_beside_venue(false, Some(2.0), false, false);
        assert_eq!(
            every.unwrap(),
            Some(2.0),
            "interval= beside sources= is every source's"
        );
        assert_eq!(
            none.check_beside_venue(true, None, false, false).unwrap(),
            None
        );
        let err = none
            .check_beside_venue(true, Some(2.0), false, false)
            .unwrap_err();
        assert!(
            err.to_string().starts_with("interval: not with venue="),
            "{err}"
        );
        let err = none
            .check_beside_venue(true, None, false, true)
            .unwrap_err();
        assert!(
            err.to_string().starts_with("scoreboard: not with a venue"),
            "{err}"
        );
        let pinned = SharedOptions {
            tls_fingerprint: Some("sha256:00".into()),
            verify: Some(true),
            ..SharedOptions::default()
        };
        let err = pinned
            .check_beside_venue(false, None, false, false)
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("tls_fingerprint: not with a venue"),
            "{err}"
        );
    }
}
