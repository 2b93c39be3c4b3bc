//! The polling loop every watch and the feed share: one poll per interval, never two at once,
//! and a failure told apart from the next one (a first failure is reported, the ones after it
//! are not, until a poll works again).

use std::future::Future;
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};

/// A watch: a poller that yields what it sees, one item at a time.
pub trait Watch: Send + 'static {
    type Item: Send + 'static;
    /// The next item, polling as often as it takes.
    fn next_item(&mut self) -> impl Future<Output = Result<Self::Item>> + Send;
}

/// Smallest polling interval accepted by the watchers (20 polls a second).
pub const MIN_WATCH_INTERVAL: f64 = 0.05;

/// Validate a watch interval in seconds.
pub fn watch_interval(seconds: f64) -> Result<Duration> {
    if !seconds.is_finite() || seconds < MIN_WATCH_INTERVAL {
        return Err(Error::invalid(format!(
            "interval: must be a finite number of seconds, at least {MIN_WATCH_INTERVAL}, got {seconds}"
        )));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A time as seconds since the epoch (a float), as the watches report it
/// (`None` before the epoch).
pub fn epoch_seconds(t: SystemTime) -> Option<f64> {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs_f64())
}

/// A failure a poller reports and outlives: no connection, a timeout, 408, 429 or a 5xx.
pub fn transient(e: &Error) -> bool {
    match e {
        Error::Connect { .. } | Error::Timeout { .. } => true,
        Error::Api { status, .. } => matches!(status, 408 | 429 | 500..=599),
        _ => false,
    }
}

/// What one poll gave.
#[derive(Debug)]
pub enum Polled<T> {
    /// The poll worked; `recovered` when the polls before it failed.
    Fresh {
        value: T,
        recovered: bool,
        at: SystemTime,
    },
    /// The poll failed; `first` when the poll before it worked.
    Failed { error: Error, first: bool },
}

/// The clock and failure state of a polling loop.
#[derive(Debug)]
pub struct Poller {
    /// Names the loop in log lines (`"score watch"`, `"feed: media"`).
    label: &'static str,
    interval: Duration,
    next_poll: Option<tokio::time::Instant>,
    failing: bool,
}

impl Poller {
    /// `interval` from [`watch_interval`].
    pub fn new(label: &'static str, interval: Duration) -> Self {
        Poller {
            label,
            interval,
            next_poll: None,
            failing: false,
        }
    }

    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// True while the last poll failed.
    pub fn failing(&self) -> bool {
        self.failing
    }

    /// Wait until the next poll is due (at once the first time) and schedule the one after. A
    /// poll that takes longer than the interval is followed by the next at once.
    pub async fn wait(&mut self) {
        if let Some(at) = self.next_poll {
            tokio::time::sleep_until(at).await;
        }
        self.next_poll = Some(tokio::time::Instant::now() + self.interval);
    }

    /// Classify the result of a poll of `url` and log a change from working to failing (a
    /// warning) or back (info).
    pub fn settle<T>(&mut self, url: &str, result: Result<T>) -> Polled<T> {
        match result {
            Ok(value) => {
                let recovered = std::mem::take(&mut self.failing);
                if recovered {
                    log::info!("{}: {url} answers again", self.label);
                }
                Polled::Fresh {
                    value,
                    recovered,
                    at: SystemTime::now(),
                }
            }
            Err(error) => {
                let first = !std::mem::replace(&mut self.failing, true);
                if first {
                    log::warn!(
                        "{}: poll failed, retrying every {:.2} s: {error}",
                        self.label,
                        self.interval.as_secs_f64()
                    );
                } else {
                    log::debug!("{}: poll failed again: {error}", self.label);
                }
                Polled::Failed { error, first }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(status: u16) -> Error {
        Error::Api {
            status,
            method: "GET".into(),
            url: "u".into(),
            body: String::new(),
            message: "m".into(),
        }
    }

    #[test]
    fn first_failure_and_recovery_are_told_apart() {
        let mut p = Poller::new("test", Duration::from_millis(50));
        assert!(matches!(
            p.settle("u", Ok(1)),
            Polled::Fresh {
                recovered: false,
                ..
            }
        ));
        assert!(matches!(
            p.settle::<i32>("u", Err(api(503))),
            Polled::Failed { first: true, .. }
        ));
        assert!(p.failing());
        assert!(matches!(
            p.settle::<i32>("u", Err(api(503))),
            Polled::Failed { first: false, .. }
        ));
        assert!(matches!(
            p.settle("u", Ok(2)),
            Polled::Fresh {
                recovered: true,
                ..
            }
        ));
        assert!(!p.failing());
    }

    #[test]
    fn transient_failures() {
        assert!(transient(&api(503)));
        assert!(transient(&api(429)));
        assert!(!transient(&api(404)));
        assert!(!transient(&Error::Closed));
    }

    #[test]
    fn watch_interval_bounds() {
        assert!(watch_interval(0.05).is_ok());
        for bad in [0.0, 0.01, -1.0, f64::NAN, f64::INFINITY] {
            let e = watch_interval(bad).unwrap_err().to_string();
            assert!(e.starts_with("interval:"), "{e}");
        }
    }

    #[test]
    fn epoch_seconds_of_a_time() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_800_000_000_250);
        assert_eq!(epoch_seconds(t), Some(1_800_000_000.25));
        assert_eq!(
            epoch_seconds(SystemTime::UNIX_EPOCH - Duration::from_secs(1)),
            None
        );
    }
}
