//! The one tokio runtime of the process, rebuilt after `fork()`: a child must not inherit a
//! runtime whose worker threads did not survive the fork.
//!
//! Blocking calls do not hand their request to its worker threads: each OS thread that makes one
//! drives it itself, on a current-thread runtime of its own (its "lane": no thread, just an I/O
//! and timer driver), so a request costs the caller no wake-up of another thread (on a loopback
//! or LAN round trip those wake-ups cost more than the rest of the call). Connections made on a
//! lane are only driven while that thread is in a call, so a lane keeps its own connections (see
//! `transport`); everything else (asyncio calls, background work) uses the process runtime.
//! (`block_on` on the process runtime instead costs 1.5–2× per call: docs/architecture.md.)

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;

static RUNTIME: Mutex<Option<(u32, Arc<Runtime>)>> = Mutex::new(None);

fn build() -> Runtime {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 8);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("showctl-io")
        .on_thread_start(leave_signals_to_the_caller)
        .enable_all()
        .build()
        .expect("showctl: cannot start the tokio runtime")
}

/// Signals sent to the process (Ctrl-C's SIGINT, SIGTERM, an alarm...) are delivered to any
/// thread that does not block them. One taken by a runtime thread would leave the program's
/// own thread asleep: Python runs its handler only when that thread next runs, so
/// `time.sleep(3600)` ignored Ctrl-C for an hour. The runtime's threads block them, so the
/// kernel always picks a thread of the program.
fn leave_signals_to_the_caller() {
    #[cfg(unix)]
    // SAFETY: the set is initialised by sigemptyset before use; pthread_sigmask changes the
    // mask of this (runtime) thread only.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGALRM,
            libc::SIGCHLD,
            libc::SIGWINCH,
        ] {
            libc::sigaddset(&mut set, signal);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// The runtime of this process (built on first use, and again in a forked child).
pub fn get() -> Arc<Runtime> {
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(|p| p.into_inner());
    match slot.as_ref() {
        Some((owner, rt)) if *owner == pid => rt.clone(),
        _ => {
            if let Some((_, dead)) = slot.take() {
                // The parent's worker threads do not exist here; dropping the runtime would
                // wait for them forever. Leak it instead (one per fork).
                std::mem::forget(dead);
            }
            let rt = Arc::new(build());
            *slot = Some((pid, rt.clone()));
            rt
        }
    }
}

/// True when called from a thread that is driving the runtime (where blocking on it would
/// deadlock).
pub fn inside_runtime() -> bool {
    tokio::runtime::Handle::try_current().is_ok()
}

thread_local! {
    /// This thread's lane runtime and the process it was built in.
    static LANE: RefCell<Option<(u32, Rc<Runtime>)>> = const { RefCell::new(None) };
    /// True while this thread drives its lane.
    static IN_LANE: Cell<bool> = const { Cell::new(false) };
    /// When this thread's last call on its lane ended.
    static LANE_LEFT: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// A lane idle for longer than this catches up before a call (see [`block_on_here`]).
const LANE_IDLE: Duration = Duration::from_millis(5);
/// How long a call looks for its answer before its thread sleeps (see [`block_on_here`]).
const LANE_SPIN: Duration = Duration::from_micros(100);

fn lane() -> Rc<Runtime> {
    let pid = std::process::id();
    LANE.with(|slot| {
        let mut slot = slot.borrow_mut();
        match slot.as_ref() {
            Some((owner, rt)) if *owner == pid => rt.clone(),
            _ => {
                if let Some((_, inherited)) = slot.take() {
                    // A forked child's copy shares the parent's epoll instance: never drive it.
                    std::mem::forget(inherited);
                }
                let rt = Rc::new(
                    tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .expect("showctl: cannot start the tokio runtime"),
                );
                *slot = Some((pid, rt.clone()));
                rt
            }
        }
    })
}

/// Run a future to completion on the calling thread, on its lane (see the module
/// documentation). Must not be called from inside a runtime (see [`inside_runtime`]).
///
/// While the thread was away, nothing watched the lane's connections: a server may have closed
/// an idle one. So after a pause the lane first lets its connection tasks see their sockets
/// (two turns of its driver, about a microsecond), and a closed connection leaves the pool
/// before the call could pick it (a command sent on it would fail, and is not retried).
///
/// For its first 100 µs a call looks for its answer without sleeping (each look is one
/// non-blocking `epoll_wait`): an answer that comes within that time (loopback, a fast LAN)
/// is read without the tens of microseconds an idle CPU takes to wake a sleeping thread.
pub fn block_on_here<F: Future>(fut: F) -> F::Output {
    struct Leave(bool);
    impl Drop for Leave {
        fn drop(&mut self) {
            IN_LANE.with(|f| f.set(self.0));
            LANE_LEFT.with(|t| t.set(Some(Instant::now())));
        }
    }
    let rt = lane();
    let paused = LANE_LEFT
        .with(|t| t.get())
        .is_some_and(|t| t.elapsed() > LANE_IDLE);
    let _leave = Leave(IN_LANE.with(|f| f.replace(true)));
    rt.block_on(async {
        if paused {
            // The first turn wakes the tasks whose sockets changed, the second runs them.
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
        }
        let mut fut = std::pin::pin!(fut);
        let started = Instant::now();
        loop {
            if let std::task::Poll::Ready(out) = futures::poll!(fut.as_mut()) {
                return out;
            }
            if started.elapsed() > LANE_SPIN {
                return fut.await;
            }
            // Look for I/O without sleeping: a thread put to sleep on an idle CPU takes tens
            // of microseconds to wake, as long as a loopback or LAN answer takes to come.
            tokio::task::yield_now().await;
        }
    })
}

/// True while the calling thread is running a future with [`block_on_here`]: work started here
/// must use this lane's connections.
pub fn in_lane() -> bool {
    IN_LANE.with(|f| f.get())
}

/// Bodies at least this large give their decoding memory back to the system once freed.
pub const RELEASE_AFTER: usize = 1024 * 1024;

/// Set when a large reply was decoded: its result is freed later, by its user (in Python, when
/// the objects are collected), so the next request gives that memory back too.
static RELEASE_PENDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Give memory freed by the allocator back to the system (glibc keeps freed small blocks in
/// its arenas: after decoding a large reply, hundreds of MB would otherwise stay resident),
/// now and again at the start of the next request.
pub fn release_memory() {
    RELEASE_PENDING.store(true, std::sync::atomic::Ordering::Relaxed);
    trim();
}

/// At the start of a request: give back what the result of an earlier large reply held.
pub fn release_pending_memory() {
    if RELEASE_PENDING.swap(false, std::sync::atomic::Ordering::Relaxed) {
        trim();
    }
}

fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_runtime_twice() {
        let a = super::get();
        let b = super::get();
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        assert_eq!(a.block_on(async { 1 + 1 }), 2);
    }

    #[test]
    fn lane_runs_on_the_calling_thread() {
        let me = std::thread::current().id();
        assert!(!super::in_lane());
        let (on, id) = super::block_on_here(async {
            tokio::task::yield_now().await;
            (super::in_lane(), std::thread::current().id())
        });
        assert!(on);
        assert_eq!(id, me);
        assert!(!super::in_lane());
    }
}
