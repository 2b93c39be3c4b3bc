//! What the core needs from the interpreter that embeds it (through the binding), kept free of
//! it: the exit gate of the threads that call into it (and of the log records it forwards), the
//! wait of a blocking call that looks for the embedder's signals (on its main thread), and the
//! libraries whose debug records are not forwarded.
//!
//! Interpreter exit: a runtime thread that is inside the embedder (completing one of its
//! futures, forwarding a log record) when the interpreter finalizes crashes the process (the
//! thread's interpreter state is no longer current). So every such section is counted,
//! [`exit`] marks the exit and then waits (bounded) until no section is running; later
//! sections do not enter the embedder at all.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use crate::error::{guarded, Error};
use crate::runtime;

static IN_EMBEDDER: AtomicUsize = AtomicUsize::new(0);
static EXITING: AtomicBool = AtomicBool::new(false);
/// Longest wait at exit for the sections in progress.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// A running section that may call into the embedder from a runtime thread.
pub struct Section;

impl Section {
    /// Enter a section; `None` once the embedder is exiting.
    pub fn enter() -> Option<Section> {
        IN_EMBEDDER.fetch_add(1, Ordering::SeqCst);
        if EXITING.load(Ordering::SeqCst) {
            IN_EMBEDDER.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Section)
    }
}

impl Drop for Section {
    fn drop(&mut self) {
        IN_EMBEDDER.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A task that calls into the embedder: each poll is a section; after exit it ends unpolled
/// (dropping what it holds without entering the embedder).
pub struct ExitAware<F> {
    inner: Pin<Box<F>>,
}

impl<F> ExitAware<F> {
    pub fn new(fut: F) -> Self {
        ExitAware {
            inner: Box::pin(fut),
        }
    }
}

impl<F: Future<Output = ()>> Future for ExitAware<F> {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match Section::enter() {
            Some(_section) => self.inner.as_mut().poll(cx),
            None => Poll::Ready(()),
        }
    }
}

/// Run `fut` on the process runtime as a task that calls into the embedder ([`ExitAware`]).
pub fn spawn<F: Future<Output = ()> + Send + 'static>(fut: F) -> tokio::task::JoinHandle<()> {
    runtime::get().spawn(ExitAware::new(fut))
}

/// Run `f` on the process runtime's blocking pool as a [`Section`] (not at all after exit).
pub fn spawn_blocking(f: impl FnOnce() + Send + 'static) -> tokio::task::JoinHandle<()> {
    runtime::get().spawn_blocking(move || {
        if let Some(_section) = Section::enter() {
            f();
        }
    })
}

/// Mark the exit and wait (at most a second) for the sections in progress. Called by the
/// embedder's exit handler, with the embedder's lock released.
pub fn exit() {
    EXITING.store(true, Ordering::SeqCst);
    let deadline = Instant::now() + EXIT_WAIT;
    while IN_EMBEDDER.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// In a forked child: the sections counted in the parent's runtime threads did not come along
/// (the child has only the forking thread).
pub fn after_fork() {
    IN_EMBEDDER.store(0, Ordering::SeqCst);
}

/// How often a blocking call on the embedder's main thread looks for a pending signal (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(50);
static MAIN_THREAD: OnceLock<Option<ThreadId>> = OnceLock::new();

/// Remember the embedder's main thread: the calling thread when `on_main` (the embedder is set up
/// on its main thread), or none (set up off it: every thread then looks for signals, harmless
/// elsewhere). The first call decides.
pub fn set_main_thread(on_main: bool) {
    let _ = MAIN_THREAD.set(on_main.then(|| std::thread::current().id()));
}

/// How often a blocking call made on this thread looks for the embedder's signals ([`block_on`]'s
/// `every`): every 50 ms on the main thread, never on another (signals go to the main thread).
pub fn signal_poll() -> Option<Duration> {
    let on_main = match MAIN_THREAD.get() {
        Some(Some(id)) => *id == std::thread::current().id(),
        _ => true,
    };
    on_main.then_some(SIGNAL_POLL)
}

/// Run `fut` to completion on the calling thread's lane ([`runtime::block_on_here`]), a panic
/// caught as an error; with `every`, `check` runs at that interval (the embedder's pending
/// signals: Ctrl-C) and its error ends the wait, dropping the request (which closes its
/// connection). Refused on a thread of the process runtime, which it would block.
pub fn block_on<T, F, E>(
    fut: F,
    every: Option<Duration>,
    mut check: impl FnMut() -> Result<(), E>,
) -> Result<Result<T, Error>, E>
where
    F: Future<Output = Result<T, Error>>,
{
    if runtime::inside_runtime() {
        return Ok(Err(Error::Internal(
            "a blocking showctl call was made from inside its own runtime thread; \
             use the _async method there"
                .into(),
        )));
    }
    // The future's state on the heap: a call made on a thread with a small stack (512 KiB)
    // keeps its stack for the work itself (decoding a reply nested 127 deep).
    let fut = Box::pin(guarded(fut));
    runtime::block_on_here(async move {
        let Some(every) = every else {
            return Ok(fut.await);
        };
        tokio::pin!(fut);
        loop {
            tokio::select! {
                r = &mut fut => return Ok(r),
                _ = tokio::time::sleep(every) => check()?,
            }
        }
    })
}

/// Crates whose records below INFO are not forwarded to the embedder's logging: the libraries
/// under the transport and the simulator log every connection and frame at debug level;
/// showctl's own records say what a user needs (each attempt, retry and failure).
pub const QUIET_LOG_TARGETS: &[&str] = &[
    "axum",
    "hyper",
    "hyper_util",
    "mio",
    "rustls",
    "tokio",
    "tower",
];

/// A logger forwarding to the embedder's (`inner`): each record is a [`Section`] (none after exit);
/// only a record the embedder wants (`inner.enabled`, which should answer from its cache: a runtime
/// thread waiting for the embedder's lock on every request stalls the embedder's event loop) goes
/// to it, run with the default signal mask (its handlers may start processes, which would inherit a
/// runtime thread's mask and ignore Ctrl-C); `after` then runs in the same section (to clear what
/// the embedder's handlers left behind).
pub struct EmbedderLog<L> {
    inner: L,
    after: fn(),
}

impl<L: log::Log> EmbedderLog<L> {
    pub fn new(inner: L, after: fn()) -> Self {
        EmbedderLog { inner, after }
    }
}

impl<L: log::Log> log::Log for EmbedderLog<L> {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        Section::enter().is_some_and(|_section| self.inner.enabled(metadata))
    }
    fn log(&self, record: &log::Record<'_>) {
        if let Some(_section) = Section::enter() {
            if !self.inner.enabled(record.metadata()) {
                return;
            }
            runtime::with_default_signals(|| self.inner.log(record));
            (self.after)();
        }
    }
    fn flush(&self) {
        self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocking_wait_ends_with_the_checks_error_and_drops_the_future() {
        let mut checks = 0;
        let r: Result<Result<(), Error>, &str> = block_on(
            std::future::pending(),
            Some(Duration::from_millis(1)),
            || {
                checks += 1;
                if checks == 3 {
                    Err("interrupted")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r.unwrap_err(), "interrupted");
        assert_eq!(checks, 3);
    }

    #[test]
    fn a_blocking_wait_returns_the_futures_result_and_catches_its_panic() {
        let never = || -> Result<(), ()> { panic!("no check without an interval") };
        let r = block_on(async { Ok(7) }, None, never);
        assert_eq!(r.unwrap().unwrap(), 7);
        let r: Result<Result<u8, Error>, ()> = block_on(
            async { panic!("boom") },
            Some(Duration::from_secs(60)),
            || Ok(()),
        );
        assert!(matches!(r, Ok(Err(Error::Internal(m))) if m.ends_with("boom")));
    }

    #[test]
    fn a_blocking_wait_is_refused_on_a_runtime_thread() {
        let refused = runtime::get().block_on(async {
            tokio::spawn(async { block_on(async { Ok(1) }, None, || Ok::<(), ()>(())) })
                .await
                .unwrap()
        });
        assert!(matches!(refused, Ok(Err(Error::Internal(m))) if m.contains("_async")));
    }

    #[test]
    fn only_the_main_thread_looks_for_signals() {
        set_main_thread(true);
        assert_eq!(signal_poll(), Some(SIGNAL_POLL));
        assert_eq!(std::thread::spawn(signal_poll).join().unwrap(), None);
    }

    #[test]
    fn the_embedder_log_forwards_only_what_the_embedder_wants_then_runs_after() {
        use log::Log;
        use std::sync::Mutex;
        static AFTER: AtomicUsize = AtomicUsize::new(0);
        struct Embedder(Mutex<Vec<String>>);
        impl log::Log for Embedder {
            fn enabled(&self, m: &log::Metadata<'_>) -> bool {
                m.level() <= log::Level::Info
            }
            fn log(&self, r: &log::Record<'_>) {
                self.0.lock().unwrap().push(r.args().to_string());
            }
            fn flush(&self) {}
        }
        let log = EmbedderLog::new(Embedder(Mutex::new(Vec::new())), || {
            AFTER.fetch_add(1, Ordering::SeqCst);
        });
        let record = |level, text| {
            let args = format_args!("{text}");
            log.log(&log::Record::builder().level(level).args(args).build());
        };
        record(log::Level::Debug, "dropped");
        record(log::Level::Warn, "forwarded");
        assert!(!log.enabled(&log::Metadata::builder().level(log::Level::Debug).build()));
        assert_eq!(*log.inner.0.lock().unwrap(), ["forwarded"]);
        assert_eq!(AFTER.load(Ordering::SeqCst), 1);
    }
}
