//! What the core needs from the interpreter that embeds it (Python, through the binding), kept
//! free of it: the exit gate of the threads that call into it, the wait of a blocking call that
//! looks for the host's signals, and the libraries whose debug records are not forwarded.
//!
//! Interpreter exit: a runtime thread that is inside the host (completing an asyncio future,
//! forwarding a log record) when the interpreter finalizes crashes the process
//! ("PyGILState_Release: thread state must be current"). So every such section is counted,
//! [`exit`] marks the exit and then waits (bounded) until no section is running; later
//! sections do not enter the host at all.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::error::{guarded, Error};
use crate::runtime;

static IN_HOST: AtomicUsize = AtomicUsize::new(0);
static EXITING: AtomicBool = AtomicBool::new(false);
/// Longest wait at exit for the sections in progress.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// A running section that may call into the host from a runtime thread.
pub struct Section;

impl Section {
    /// Enter a section; `None` once the host is exiting.
    pub fn enter() -> Option<Section> {
        IN_HOST.fetch_add(1, Ordering::SeqCst);
        if EXITING.load(Ordering::SeqCst) {
            IN_HOST.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Section)
    }
}

impl Drop for Section {
    fn drop(&mut self) {
        IN_HOST.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A task that calls into the host: each poll is a section; after exit it ends unpolled
/// (dropping what it holds without entering the host).
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

/// Mark the exit and wait (at most a second) for the sections in progress. Called by the
/// host's exit handler, with the host's lock released.
pub fn exit() {
    EXITING.store(true, Ordering::SeqCst);
    let deadline = Instant::now() + EXIT_WAIT;
    while IN_HOST.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// In a forked child: the sections counted in the parent's runtime threads did not come along
/// (the child has only the forking thread).
pub fn after_fork() {
    IN_HOST.store(0, Ordering::SeqCst);
}

/// Run `fut` to completion on the calling thread's lane ([`runtime::block_on_here`]), a panic
/// caught as an error; with `every`, `check` runs at that interval (the host's pending
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

/// Crates whose records below INFO are not forwarded to the host's logging: the libraries
/// under the transport and the simulator log every connection and frame at debug level;
/// showctl's own records say what a user needs (each attempt, retry and failure).
pub const QUIET_LOG_TARGETS: &[&str] = &[
    "axum",
    "h2",
    "hyper",
    "hyper_util",
    "mio",
    "reqwest",
    "rustls",
    "tokio",
    "tower",
];

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
}
