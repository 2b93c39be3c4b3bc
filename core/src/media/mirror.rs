//! Mirrors: extra targets that receive every command the primary receives (a main and a backup
//! machine kept in step).
//!
//! Each mirror has a queue and one worker task that sends its commands one at a time, in the
//! order they were given, so a backup sees the same sequence as the primary (a fade ends on the
//! same value). The primary's request never waits for a mirror: a command is queued for each
//! mirror and sent to the primary at once. A mirror's failures are logged (target
//! `showctl::mirror`) and counted in its [`MirrorStatus`].
//!
//! A command the mirror may still run is never overtaken by a later one: after a command went
//! out and got no answer (a timeout, a reset, a frozen application that has it in its buffers),
//! the next command is held until the mirror answers a read again ([`FENCE`], tried every
//! [`FENCE_EVERY`] at most), so the application is serving and has had the earlier command
//! before the next one is sent. What the fence cannot rule out: a copy still in this machine's
//! send queue that the kernel retransmits later, once a cut path returns (only an aborted
//! connection drops it: the transport's concern).
//!
//! A burst (a `batch()` of thousands of commands, thousands of gathered `_async` calls) is
//! queued whole and reaches a mirror that keeps up, every command and in order: the queue holds
//! [`QUEUE`] commands (a few MB at most). Only a mirror that truly cannot keep up (one whose
//! every command waits for the timeout, with tens of thousands waiting) has commands dropped:
//! each is counted in `dropped`, the mirror is reported unhealthy until its queue is empty
//! again, and the log says so once when dropping starts and once, with the count, when it ends.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use tokio::sync::{mpsc, watch};

use super::sender::Sender;
use crate::error::{Delivery, Error};
use crate::tls::resolve_pin;
use crate::transport::{Request, Target};

/// Commands a mirror may have waiting before more are dropped for it. Far above any burst a
/// show sends (a queued command is a path and a small body).
pub const QUEUE: usize = 65_536;

/// The read that tells a mirror serves again after a command it got no answer to (a number of
/// a few bytes; any answer, an error status included, will do).
pub const FENCE: &str = "/transitionDuration/workspace";

/// How often the fence is tried at most while the mirror does not answer it.
pub const FENCE_EVERY: Duration = Duration::from_millis(250);

/// A mirror as given: its URL, its key (`None`: the primary's) and its own pin (the text of
/// a `tls_fingerprint`).
#[derive(Debug, Clone, PartialEq)]
pub struct MirrorSpec {
    pub url: String,
    pub api_key: Option<Option<String>>,
    pub tls_fingerprint: Option<String>,
}

impl MirrorSpec {
    pub fn new(url: String, api_key: Option<Option<String>>, pin: Option<String>) -> Self {
        MirrorSpec {
            url,
            api_key,
            tls_fingerprint: pin,
        }
    }

    /// Its target; with no key of its own it takes `primary_key`, with no pin of its own the
    /// primary's TLS options.
    pub fn target(self, primary_key: Option<&str>) -> Result<Target, Error> {
        let key = self
            .api_key
            .unwrap_or_else(|| primary_key.map(str::to_string));
        let pin = match self.tls_fingerprint {
            Some(text) => resolve_pin(Some(text), &self.url)?,
            None => None,
        };
        Ok(Target::new(&self.url, key.as_deref())?.pinned(pin))
    }
}

/// The keys of a mirror given as a dict (all but `url` optional).
pub const MIRROR_KEYS: &[&str] = &["url", "api_key", "tls_fingerprint"];

/// The forms a mirror may be given in.
pub const MIRROR_FORMS: &str =
    "a URL, a (url, api_key[, tls_fingerprint]) tuple or a dict with url, api_key, tls_fingerprint";

/// The targets of `mirrors` (each named `mirrors[i]` in a refusal); a mirror with no key of its
/// own takes `primary_key`.
pub fn targets(mirrors: Vec<MirrorSpec>, primary_key: Option<&str>) -> Result<Vec<Target>, Error> {
    let target = |(i, m): (usize, MirrorSpec)| {
        m.target(primary_key)
            .map_err(|e| Error::invalid(format!("mirrors[{i}]: {e}")))
    };
    mirrors.into_iter().enumerate().map(target).collect()
}

/// What a mirror did so far.
#[derive(Debug, Clone)]
pub struct MirrorStatus {
    /// The mirror's base URL (`scheme://host:port/api/0`, never a key).
    pub url: String,
    /// False from a failed command until the next command the mirror accepts; after a dropped
    /// command, false until the mirror has caught up (accepted a command with none waiting).
    pub healthy: bool,
    /// Commands the mirror answered with a 2xx.
    pub sent: u64,
    /// Commands that failed on the mirror without running: an error status, no connection.
    pub failed: u64,
    /// Commands sent to the mirror that got no answer (a timeout after sending, a reset, or
    /// given up at close once written): the mirror may have run them.
    pub unanswered: u64,
    /// Commands never sent to the mirror: its queue was full, or the client was closed first.
    pub dropped: u64,
    /// Commands queued or in flight.
    pub pending: u64,
    /// The last failure and when it happened.
    pub last_error: Option<Error>,
    pub last_error_at: Option<SystemTime>,
    /// When the mirror last accepted a command.
    pub last_ok_at: Option<SystemTime>,
}

impl MirrorStatus {
    /// The fields its repr shows, in order (the times stay out of it).
    pub const SHOWN: [&'static str; 8] = [
        "url",
        "healthy",
        "sent",
        "failed",
        "unanswered",
        "dropped",
        "pending",
        "last_error",
    ];
}

/// Commands dropped since the mirror fell behind (none: it is not behind).
#[derive(Default)]
struct Behind {
    dropped: u64,
}

struct MirrorCopy {
    request: Request,
    fallback: Option<Request>,
    /// The operation of the command repeated, for the mirror's own record.
    operation: &'static str,
}

/// What the worker shares with the handle.
struct Shared {
    sender: Sender,
    status: Mutex<MirrorStatus>,
    behind: Mutex<Behind>,
    enqueued: AtomicU64,
    /// Commands finished (sent, failed or dropped); `enqueued - done` are pending.
    done: watch::Sender<u64>,
    /// Set by [`Mirror::close`]: what is queued or in flight is dropped at once.
    closed: watch::Sender<bool>,
}

impl Shared {
    fn status(&self) -> std::sync::MutexGuard<'_, MirrorStatus> {
        self.status.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Record the outcome of a command; `waiting`: commands still queued behind it.
    fn record(&self, result: Result<(), Error>, waiting: u64) {
        // Logged once the status is unlocked: a log record may wait for the embedding
        // interpreter's lock, whose holder may be waiting for the status (`mirror_status()`).
        let mut behind = self.behind.lock().unwrap_or_else(|p| p.into_inner());
        let mut st = self.status();
        let (level, message) = match result {
            Ok(()) => {
                st.sent += 1;
                st.last_ok_at = Some(SystemTime::now());
                if behind.dropped > 0 && waiting > 0 {
                    // Still catching up after dropping: not healthy yet, and no log flapping.
                    return;
                }
                let back = !st.healthy;
                st.healthy = true;
                if !back {
                    return;
                }
                let mut message = format!("mirror {} accepts commands again", st.url);
                if behind.dropped > 0 {
                    let n = std::mem::take(&mut behind.dropped);
                    message.push_str(&format!(
                        " and has caught up; {n} command(s) were dropped for it while it was \
                         behind (see mirror_status())"
                    ));
                }
                (log::Level::Info, message)
            }
            Err(e) => {
                if e.delivery() == Delivery::SentNoAnswer {
                    st.unanswered += 1;
                } else {
                    st.failed += 1;
                }
                let message = if st.healthy {
                    let hint = "the primary is not affected; see mirror_status()";
                    (log::Level::Warn, format!("mirror {}: {e} ({hint})", st.url))
                } else {
                    (log::Level::Debug, format!("mirror {}: {e}", st.url))
                };
                st.healthy = false;
                st.last_error = Some(e);
                st.last_error_at = Some(SystemTime::now());
                message
            }
        };
        drop(st);
        drop(behind);
        log::log!(target: "showctl::mirror", level, "{message}");
    }

    /// Count a command dropped because the queue is full; logs once per episode of dropping.
    fn dropped(&self, capacity: usize, method: &str, path: &str) {
        let mut behind = self.behind.lock().unwrap_or_else(|p| p.into_inner());
        let mut st = self.status();
        st.dropped += 1;
        st.healthy = false;
        behind.dropped += 1;
        let tell = (behind.dropped == 1).then(|| st.url.clone());
        drop(st); // before logging (see `Shared::record`)
        drop(behind);
        if let Some(url) = tell {
            log::warn!(
                target: "showctl::mirror",
                "mirror {url}: {capacity} commands are waiting, so {method} {path} and what follows \
                 until it catches up are dropped for it (it cannot keep up; see mirror_status())"
            );
        }
        self.finish(1);
    }

    fn finish(&self, n: u64) {
        self.done.send_modify(|d| *d += n);
    }

    /// Count a command given up because the mirror was closed: dropped when nothing of it went
    /// out (`reached`), else unanswered (the mirror may run it). Not healthy either way.
    fn given_up_at_close(&self, reached: Delivery) {
        let mut st = self.status();
        match reached {
            Delivery::NotSent => st.dropped += 1,
            _ => st.unanswered += 1,
        }
        st.healthy = false;
    }
}

/// One mirror: its own sender (its transport, with its own `/layerBlend` fallback memory) and
/// its queue.
pub struct Mirror {
    shared: Arc<Shared>,
    /// Commands that may wait in the queue ([`QUEUE`]).
    capacity: usize,
    /// The sender of the running worker, with the process id it was started in (a forked child
    /// starts its own worker: the parent's did not survive the fork).
    queue: Mutex<Option<(u32, mpsc::Sender<MirrorCopy>)>>,
}

impl Mirror {
    pub fn new(sender: Sender) -> Self {
        Self::with_capacity(sender, QUEUE)
    }

    /// A mirror whose queue holds `capacity` commands.
    pub fn with_capacity(sender: Sender, capacity: usize) -> Self {
        let url = sender.transport().base_url().to_string();
        Mirror {
            shared: Arc::new(Shared {
                sender,
                status: Mutex::new(MirrorStatus {
                    url,
                    healthy: true,
                    sent: 0,
                    failed: 0,
                    unanswered: 0,
                    dropped: 0,
                    pending: 0,
                    last_error: None,
                    last_error_at: None,
                    last_ok_at: None,
                }),
                behind: Mutex::new(Behind::default()),
                enqueued: AtomicU64::new(0),
                done: watch::channel(0).0,
                closed: watch::channel(false).0,
            }),
            queue: Mutex::new(None),
            capacity,
        }
    }

    /// Queue a command (and its field fallback) for this mirror; never waits.
    pub fn submit(&self, request: &Request, fallback: Option<&Request>) {
        let job = MirrorCopy {
            request: request.clone(),
            fallback: fallback.cloned(),
            operation: crate::journal::operation(),
        };
        self.shared.enqueued.fetch_add(1, Ordering::SeqCst);
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let pid = std::process::id();
        let sender = match queue.as_ref() {
            Some((owner, tx)) if *owner == pid && !tx.is_closed() => tx.clone(),
            stale => {
                if stale.is_some_and(|(owner, _)| *owner != pid) {
                    // Commands queued before a fork are lost with the parent's worker.
                    let lost = self.pending();
                    self.shared.status().dropped += lost.saturating_sub(1);
                    self.shared.finish(lost.saturating_sub(1));
                }
                let (tx, rx) = mpsc::channel(self.capacity);
                crate::runtime::get().spawn(work(self.shared.clone(), rx));
                *queue = Some((pid, tx.clone()));
                tx
            }
        };
        drop(queue);
        if let Err(e) = sender.try_send(job) {
            let request = e.into_inner().request;
            self.shared.dropped(
                self.capacity,
                request.method.as_str(),
                &request.path_and_query(),
            );
        }
    }

    /// Commands queued or in flight.
    pub fn pending(&self) -> u64 {
        let done = *self.shared.done.borrow();
        self.shared
            .enqueued
            .load(Ordering::SeqCst)
            .saturating_sub(done)
    }

    pub fn status(&self) -> MirrorStatus {
        let mut st = self.shared.status().clone();
        st.pending = self.pending();
        st
    }

    /// Wait until every command queued so far is finished, or until `deadline`.
    pub async fn drain(&self, deadline: tokio::time::Instant) -> bool {
        let target = self.shared.enqueued.load(Ordering::SeqCst);
        let mut done = self.shared.done.subscribe();
        tokio::time::timeout_at(deadline, done.wait_for(|d| *d >= target))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Close the mirror: what is still queued or in flight is dropped (not sent).
    pub fn close(&self) {
        // The flag first: a command in flight is then dropped at close, never recorded as
        // failed with the transport's "client is closed".
        self.shared.closed.send_replace(true);
        self.shared.sender.transport().close();
    }
}

/// The worker: send each queued command in turn, record the outcome; after a command that got
/// no answer, hold the next until the fence is answered ([`fence`]).
async fn work(shared: Arc<Shared>, mut rx: mpsc::Receiver<MirrorCopy>) {
    let mut closed = shared.closed.subscribe();
    let mut unsure = false;
    while let Some(job) = rx.recv().await {
        if unsure && !*closed.borrow() {
            tokio::select! {
                () = fence(&shared) => unsure = false,
                _ = closed.wait_for(|c| *c) => {}
            }
        }
        let copy = crate::journal::Copy::new(job.operation);
        let exchange = shared.sender.exchange(&job.request, job.fallback.as_ref());
        let sent = copy.run(exchange);
        tokio::select! {
            result = sent, if !*closed.borrow() => match result {
                // The transport was closed for `close` while this was on its way: given up at
                // close, not a failure of the mirror.
                Err(Error::Closed) => shared.given_up_at_close(copy.reached()),
                result => {
                    unsure = matches!(&result, Err(e) if e.delivery() == Delivery::SentNoAnswer);
                    shared.record(result.map(|_| ()), rx.len() as u64);
                }
            },
            _ = closed.wait_for(|c| *c) => shared.given_up_at_close(copy.reached()),
        }
        shared.finish(1);
    }
}

/// Return once the mirror answers the [`FENCE`] read (any status): it serves again, and a
/// command it had in its buffers unanswered has had its turn. Tried again at most every
/// [`FENCE_EVERY`], each try within the client's timeout.
async fn fence(shared: &Shared) {
    let read = Request::get(FENCE);
    loop {
        let started = tokio::time::Instant::now();
        let answer = shared.sender.transport().attempt(&read).await;
        if Delivery::of(&answer) == Delivery::Answered {
            return;
        }
        tokio::time::sleep_until(started + FENCE_EVERY).await;
    }
}
