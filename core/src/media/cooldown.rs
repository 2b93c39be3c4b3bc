//! The double-press guard (the client's `cooldown`): a command identical to one answered less
//! than the cooldown ago (same method, path, query and body), or to one still in flight, is
//! refused with [`Error::DoublePress`] before anything is sent, so a second press of a button
//! cannot restart a cue on air. A client's [`MediaClient::without_cooldown`] handle passes it on
//! purpose (and still marks what it sends, so a guarded press after it is refused).
//!
//! Only the commands of the operation table (its methods, `Command`s of a batch or a sequence,
//! `cmd.request`) are guarded: a fade's steps and `adjust_opacity` are not (a fade may send the
//! same value many times; a relative change never sends the same request twice on purpose).
//!
//! [`MediaClient::without_cooldown`]: super::client::MediaClient::without_cooldown

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::transport::Request;

/// The longest cooldown, in seconds.
pub const MAX_COOLDOWN: f64 = 3600.0;
/// How many commands are remembered before the ones older than the cooldown are forgotten.
const REMEMBERED: usize = 1024;

/// What the guard knows of one command.
#[derive(Debug, Clone, Copy)]
enum Press {
    /// Sent (or being sent), no answer yet.
    InFlight,
    /// Answered with a 2xx at this instant.
    Answered(Instant),
}

/// The cooldown of one client and the commands it remembers (shared by its clones).
#[derive(Debug, Default)]
pub struct Cooldown {
    /// The window in nanoseconds; 0 is off.
    window: AtomicU64,
    presses: Mutex<HashMap<Request, Press>>,
}

/// `cooldown` checked: `None` (off) or seconds above 0, at most [`MAX_COOLDOWN`].
pub fn window(seconds: Option<f64>) -> Result<Option<Duration>> {
    let Some(s) = seconds else { return Ok(None) };
    if !(s.is_finite() && s > 0.0 && s <= MAX_COOLDOWN) {
        return Err(Error::invalid(format!(
            "cooldown: must be None (off) or a number of seconds above 0, at most \
             {MAX_COOLDOWN}, got {s}"
        )));
    }
    Ok(Some(Duration::from_secs_f64(s)))
}

impl Cooldown {
    pub fn set(&self, window: Option<Duration>) {
        let nanos = window.map_or(0, |w| w.as_nanos().min(u128::from(u64::MAX)) as u64);
        self.window.store(nanos, Ordering::Relaxed);
    }

    pub fn get(&self) -> Option<Duration> {
        match self.window.load(Ordering::Relaxed) {
            0 => None,
            n => Some(Duration::from_nanos(n)),
        }
    }

    /// Check `request` against the commands remembered and mark it in flight. `url` names it
    /// in a refusal. `enforce: false` (a [`without_cooldown`] handle) only marks it. `None`
    /// when the cooldown is off.
    ///
    /// [`without_cooldown`]: super::client::MediaClient::without_cooldown
    pub fn press(
        self: &Arc<Self>,
        request: &Request,
        url: impl FnOnce() -> String,
        enforce: bool,
    ) -> Result<Option<Pressed>> {
        self.press_at(request, url, enforce, Instant::now())
    }

    /// [`Cooldown::press`] at the instant `now`.
    fn press_at(
        self: &Arc<Self>,
        request: &Request,
        url: impl FnOnce() -> String,
        enforce: bool,
        now: Instant,
    ) -> Result<Option<Pressed>> {
        let Some(window) = self.get() else {
            return Ok(None);
        };
        let mut presses = self.presses.lock().unwrap_or_else(|p| p.into_inner());
        if enforce {
            let refused = match presses.get(request) {
                Some(Press::InFlight) => Some("is still waiting for its answer".to_string()),
                Some(Press::Answered(at)) if now.saturating_duration_since(*at) < window => {
                    Some(format!(
                        "was answered {:.2} s ago",
                        now.saturating_duration_since(*at).as_secs_f64()
                    ))
                }
                _ => None,
            };
            if let Some(when) = refused {
                let (method, url) = (request.method.as_str().to_string(), url());
                return Err(Error::DoublePress {
                    message: format!(
                        "refused by the cooldown of {} s, nothing was sent: the same command \
                         ({method} {url}) {when}",
                        window.as_secs_f64()
                    ),
                    method,
                    url,
                });
            }
        }
        if presses.len() >= REMEMBERED {
            presses.retain(|_, p| match p {
                Press::InFlight => true,
                Press::Answered(at) => now.saturating_duration_since(*at) < window,
            });
        }
        presses.insert(request.clone(), Press::InFlight);
        Ok(Some(Pressed {
            cooldown: self.clone(),
            request: Some(request.clone()),
        }))
    }
}

/// A command marked in flight. [`Pressed::finish`] records its answer; dropped unfinished (the
/// call was cancelled), the mark is removed.
pub struct Pressed {
    cooldown: Arc<Cooldown>,
    request: Option<Request>,
}

impl Pressed {
    /// Record what the command met: answered with a 2xx (also a read-back that did not
    /// confirm, which follows a 200) starts its cooldown; any other outcome forgets it.
    pub fn finish<T>(mut self, outcome: &Result<T>) {
        let Some(request) = self.request.take() else {
            return;
        };
        let mut presses = self
            .cooldown
            .presses
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        match outcome {
            Ok(_) | Err(Error::NotConfirmed { .. }) => {
                presses.insert(request, Press::Answered(Instant::now()));
            }
            Err(_) => {
                presses.remove(&request);
            }
        }
    }
}

impl Drop for Pressed {
    fn drop(&mut self) {
        if let Some(request) = self.request.take() {
            let mut presses = self
                .cooldown
                .presses
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if matches!(presses.get(&request), Some(Press::InFlight)) {
                presses.remove(&request);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(path: &str) -> Request {
        Request::post(path)
    }

    fn url() -> String {
        "http://h/api/0/x".into()
    }

    #[test]
    fn off_by_default_and_window_checked() {
        let c = Arc::new(Cooldown::default());
        assert!(c.press(&req("/a"), url, true).unwrap().is_none());
        assert!(window(Some(0.0)).is_err());
        assert!(window(Some(f64::NAN)).is_err());
        assert!(window(Some(3601.0)).is_err());
        assert_eq!(window(None).unwrap(), None);
    }

    #[test]
    fn identical_within_window_refused_other_passes() {
        let c = Arc::new(Cooldown::default());
        c.set(Some(Duration::from_secs(60)));
        let p = c.press(&req("/a"), url, true).unwrap().unwrap();
        let in_flight = c.press(&req("/a"), url, true);
        assert!(matches!(in_flight, Err(Error::DoublePress { .. })));
        p.finish::<()>(&Ok(()));
        let again = c.press(&req("/a"), url, true);
        match again {
            Err(e @ Error::DoublePress { .. }) => {
                assert!(e.to_string().contains("was answered"), "{e}");
                assert_eq!(e.delivery(), crate::error::Delivery::NotSent);
            }
            _ => panic!("not refused"),
        }
        assert!(c.press(&req("/b"), url, true).is_ok());
        // Passing it on purpose marks it too.
        assert!(c.press(&req("/a"), url, false).is_ok());
    }

    #[test]
    fn a_failure_or_a_cancel_forgets_the_command() {
        let c = Arc::new(Cooldown::default());
        c.set(Some(Duration::from_secs(60)));
        let p = c.press(&req("/a"), url, true).unwrap().unwrap();
        p.finish::<()>(&Err(Error::invalid("x")));
        let p = c.press(&req("/a"), url, true).unwrap().unwrap();
        drop(p);
        assert!(c.press(&req("/a"), url, true).is_ok());
    }

    #[test]
    fn an_answer_older_than_the_window_passes() {
        let c = Arc::new(Cooldown::default());
        c.set(Some(Duration::from_millis(30)));
        c.press(&req("/a"), url, true)
            .unwrap()
            .unwrap()
            .finish::<()>(&Ok(()));
        let later = Instant::now() + Duration::from_millis(40);
        assert!(c.press_at(&req("/a"), url, true, later).is_ok());
    }
}
