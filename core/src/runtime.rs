//! The one tokio runtime of the process, rebuilt after `fork()`: a child must not inherit a
//! runtime whose worker threads did not survive the fork.
//!
//! Blocking calls do not hand their request to its worker threads: each OS thread that makes one
//! drives it itself, on a current-thread runtime of its own (its "lane": no thread, just an I/O
//! and timer driver), so a request costs the caller no wake-up of another thread (on a loopback
//! or LAN round trip those wake-ups cost more than the rest of the call). Connections made on a
//! lane are only driven while that thread is in a call, so a lane keeps its own connections (see
//! `transport`); everything else (awaitable calls, background work) uses the process runtime.
//! (`block_on` on the process runtime instead costs 1.5–2× per call:
//! docs/decisions/0004-lanes-and-completion-queue.md.)

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};
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
        .on_thread_start(|| {
            leave_signals_to_the_caller();
            PROCESS_THREAD.with(|p| p.set(true));
        })
        .enable_all()
        .build()
        .expect("showctl: cannot start the tokio runtime")
}

/// Signals sent to the process (Ctrl-C's SIGINT, SIGTERM, an alarm...) are delivered to any
/// thread that does not block them. One taken by a runtime thread would leave the program's
/// own thread asleep: an embedding interpreter runs its handler only when that thread next
/// runs, so a sleep of an hour in it ignored Ctrl-C for an hour. The runtime's threads block them,
/// so the kernel always picks a thread of the program.
fn leave_signals_to_the_caller() {
    #[cfg(unix)]
    // SAFETY: pthread_sigmask changes the mask of this (runtime) thread only.
    unsafe {
        libc::pthread_sigmask(libc::SIG_BLOCK, &caller_signals(), std::ptr::null_mut());
    }
}

/// The signals the runtime's threads block (see [`leave_signals_to_the_caller`]).
#[cfg(unix)]
fn caller_signals() -> libc::sigset_t {
    // SAFETY: the set is initialised by sigemptyset before use.
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
        set
    }
}

/// Run `f` with the signals a runtime thread blocks unblocked, then block them again: for code
/// that is not the runtime's own (the embedding interpreter's log handler run for a log record),
/// where a process it starts inherits the mask and would ignore SIGTERM and Ctrl-C. On a thread of
/// the program (not the runtime's) its mask, whatever the program made it, is left alone.
pub fn with_default_signals<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(unix)]
    if on_process_runtime() {
        // SAFETY: pthread_sigmask changes this thread's mask only; the old mask is restored.
        let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &caller_signals(), &mut old) };
        let out = f();
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
        return out;
    }
    f()
}

/// This process's id, cached: a call asks for it twice (its lane and its lane's HTTP client
/// were built in this process, or in a parent before `fork()`), a system call each time
/// otherwise. A forked child forgets the parent's (`pthread_atfork`, registered before the
/// first id is cached).
pub fn pid() -> u32 {
    static PID: AtomicU32 = AtomicU32::new(0);
    let cached = PID.load(Ordering::Relaxed);
    if cached != 0 {
        return cached;
    }
    #[cfg(unix)]
    {
        static AT_FORK: std::sync::Once = std::sync::Once::new();
        extern "C" fn forget() {
            PID.store(0, Ordering::Relaxed);
        }
        // SAFETY: registers a handler that only stores to an atomic, run in the child after
        // fork().
        AT_FORK.call_once(|| unsafe {
            libc::pthread_atfork(None, None, Some(forget));
        });
    }
    let pid = std::process::id();
    PID.store(pid, Ordering::Relaxed);
    pid
}

/// The runtime of this process (built on first use, and again in a forked child).
pub fn get() -> Arc<Runtime> {
    let pid = pid();
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
    /// Whether this thread's calls look for their answer before sleeping (see [`WaitRule`]).
    static LANE_WAIT: Cell<WaitRule> = const { Cell::new(WaitRule::new()) };
    /// True on the process runtime's own threads (its workers and blocking pool).
    static PROCESS_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// How long a call looks for its answer before its thread sleeps (see [`block_on_here`]).
const LANE_SPIN: Duration = Duration::from_micros(100);
/// A lane stops looking for its answers once this many calls in a row took longer than
/// [`LANE_SPIN`] (see [`WaitRule`]): one, so a lane that is not answered within the window, be
/// it by a slow device or on a machine so busy that the server waits for a CPU, does not spend
/// the window again until an answer has come within it.
const SLOW_TO_SLEEP: u32 = 1;
/// A lane that sleeps at once still looks for the answer of every this-many-th call, to see
/// whether its server has become fast again (see [`WaitRule`]).
const PROBE_EVERY: u32 = 32;

/// Whether a lane's next call looks for its answer without sleeping for up to [`LANE_SPIN`]
/// ("spins"), decided from what the lane's last answers showed.
///
/// Spinning pays when the answer comes within the window (it is read without the tens of
/// microseconds an idle CPU takes to wake a sleeping thread) and wastes the whole window of CPU
/// when it does not (a device on a LAN answering after half a millisecond). So a lane spins
/// while its last call ended within the window; after one that did not ([`SLOW_TO_SLEEP`]) it
/// sleeps at once, and any call that ends within the window (sleeping or not) makes it spin
/// again. While it sleeps,
/// every [`PROBE_EVERY`]-th call spins anyway: a sleeping call's time includes the thread's
/// wake-up, so an answer that comes just within the window can only be seen by spinning. The
/// probes cost a slow lane at most `LANE_SPIN / PROBE_EVERY` (about 3 µs) per call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WaitRule {
    /// Calls in a row that took longer than the window.
    slow_in_row: u32,
    /// Calls since the last spinning one, while the lane sleeps at once.
    since_probe: u32,
}

impl WaitRule {
    /// A new lane spins (a first answer on loopback or a LAN comes within the window).
    pub(crate) const fn new() -> Self {
        WaitRule {
            slow_in_row: 0,
            since_probe: 0,
        }
    }

    /// Whether the next call spins (counts the call towards the next probe).
    pub(crate) fn spins(&mut self) -> bool {
        if self.slow_in_row < SLOW_TO_SLEEP {
            return true;
        }
        self.since_probe += 1;
        if self.since_probe >= PROBE_EVERY {
            self.since_probe = 0;
            return true;
        }
        false
    }

    /// Record how long a call took from its first look for the answer to its end.
    pub(crate) fn record(&mut self, took: Duration) {
        if took <= LANE_SPIN {
            *self = WaitRule::new();
        } else {
            self.slow_in_row = self.slow_in_row.saturating_add(1);
        }
    }
}

fn lane() -> Rc<Runtime> {
    let pid = pid();
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
/// an idle one. A lane's connections (plain or TLS) are checked when they are taken
/// (`transport::http1`); no task runs on a lane (a call drives its own connection), so a call
/// after a pause has nothing to catch up on.
///
/// For its first 100 µs a call looks for its answer without sleeping (each look is one
/// non-blocking `epoll_wait`): an answer that comes within that time (loopback, a fast LAN)
/// is read without the tens of microseconds an idle CPU takes to wake a sleeping thread. A lane
/// whose answers have stopped coming that fast sleeps at once instead ([`WaitRule`]).
pub fn block_on_here<F: Future>(fut: F) -> F::Output {
    struct Leave(bool);
    impl Drop for Leave {
        fn drop(&mut self) {
            IN_LANE.with(|f| f.set(self.0));
        }
    }
    let rt = lane();
    let spin = LANE_WAIT.with(|w| {
        let mut rule = w.get();
        let spin = rule.spins();
        w.set(rule);
        spin
    });
    let _leave = Leave(IN_LANE.with(|f| f.replace(true)));
    // Pinned here, so the future the runtime is handed holds only a reference to it: a call's
    // future is large, and tokio's `block_on` moves what it is given twice (when it was handed
    // the call itself, those two copies were a quarter of a call's instructions: callgrind).
    let mut fut = std::pin::pin!(fut);
    let (out, took) = rt.block_on(async {
        let started = Instant::now();
        if spin {
            loop {
                if let std::task::Poll::Ready(out) = futures::poll!(fut.as_mut()) {
                    return (out, started.elapsed());
                }
                if started.elapsed() > LANE_SPIN {
                    break;
                }
                // Look for I/O without sleeping: a thread put to sleep on an idle CPU takes
                // tens of microseconds to wake, as long as a loopback or LAN answer takes.
                tokio::task::yield_now().await;
            }
        }
        let out = fut.as_mut().await;
        (out, started.elapsed())
    });
    LANE_WAIT.with(|w| {
        let mut rule = w.get();
        rule.record(took);
        w.set(rule);
    });
    out
}

/// True on a thread of the process runtime (a worker or its blocking pool): a connection made
/// here is registered with the process runtime's I/O driver, and any of its threads may use it.
pub fn on_process_runtime() -> bool {
    PROCESS_THREAD.with(|p| p.get())
}

/// True while the calling thread is running a future with [`block_on_here`]: work started here
/// must use this lane's connections.
pub fn in_lane() -> bool {
    IN_LANE.with(|f| f.get())
}

#[cfg(test)]
mod tests {
    use super::{WaitRule, LANE_SPIN, PROBE_EVERY, SLOW_TO_SLEEP};
    use std::time::Duration;

    const FAST: Duration = Duration::from_micros(30);
    const SLOW: Duration = Duration::from_micros(520);

    /// Feed `rule` the calls' times in order; which of those calls spun.
    fn spun(rule: &mut WaitRule, times: &[Duration]) -> Vec<bool> {
        times
            .iter()
            .map(|&took| {
                let spin = rule.spins();
                rule.record(took);
                spin
            })
            .collect()
    }

    #[test]
    fn wait_rule_spins_while_answers_come_within_the_window() {
        let mut rule = WaitRule::new();
        assert!(spun(&mut rule, &[FAST; 100]).iter().all(|&s| s));
        // The window itself still counts as within it.
        assert!(spun(&mut rule, &[LANE_SPIN; 10]).iter().all(|&s| s));
    }

    #[test]
    fn wait_rule_follows_answers_that_alternate() {
        // A slow answer stops the spinning at once, the next fast one (here a sleeping call)
        // brings it back: a lane half of whose answers are slow spends the window on half of
        // its calls at most.
        assert_eq!(SLOW_TO_SLEEP, 1);
        let mut rule = WaitRule::new();
        let times: Vec<Duration> = (0..40)
            .map(|i| if i % 2 == 0 { FAST } else { SLOW })
            .collect();
        let spins = spun(&mut rule, &times);
        let expected: Vec<bool> = (0..40).map(|i| i == 0 || i % 2 == 1).collect();
        assert_eq!(spins, expected);
    }

    #[test]
    fn wait_rule_sleeps_at_once_after_slow_answers_and_probes_now_and_then() {
        let mut rule = WaitRule::new();
        let calls = 1 + SLOW_TO_SLEEP as usize + 4 * PROBE_EVERY as usize;
        let spins = spun(&mut rule, &vec![SLOW; calls]);
        // The first calls spin, until SLOW_TO_SLEEP of them in a row were slow...
        assert!(spins[..SLOW_TO_SLEEP as usize].iter().all(|&s| s));
        // ...then only every PROBE_EVERY-th call does.
        let after: Vec<usize> = (SLOW_TO_SLEEP as usize..calls)
            .filter(|&i| spins[i])
            .map(|i| i - SLOW_TO_SLEEP as usize + 1)
            .collect();
        let every = PROBE_EVERY as usize;
        assert_eq!(after, vec![every, 2 * every, 3 * every, 4 * every]);
    }

    #[test]
    fn wait_rule_spins_again_once_an_answer_comes_within_the_window() {
        // A sleeping call that ends within the window is enough...
        let mut rule = WaitRule::new();
        spun(&mut rule, &[SLOW; 10]);
        assert!(!rule.spins());
        rule.record(FAST);
        assert!(spun(&mut rule, &[FAST; 5]).iter().all(|&s| s));
        // ...and so is a probe that saw one (a sleeping call's time includes its wake-up).
        let mut rule = WaitRule::new();
        let mut times = vec![SLOW; SLOW_TO_SLEEP as usize + PROBE_EVERY as usize - 1];
        times.push(Duration::from_micros(90)); // the probe
        times.extend([Duration::from_micros(90); 5]);
        let spins = spun(&mut rule, &times);
        assert!(spins[spins.len() - 6..].iter().all(|&s| s), "{spins:?}");
        assert!(!spins[SLOW_TO_SLEEP as usize..spins.len() - 6]
            .iter()
            .any(|&s| s));
    }

    #[test]
    fn a_lane_feeds_its_calls_to_its_wait_rule() {
        // Every call here takes at least a millisecond, far longer than the spin window: after
        // SLOW_TO_SLEEP of them this thread's lane sleeps at once.
        let rule = || super::LANE_WAIT.with(|w| w.get());
        for _ in 0..SLOW_TO_SLEEP {
            assert!(rule().spins());
            super::block_on_here(async { tokio::time::sleep(Duration::from_millis(1)).await });
        }
        assert!(!rule().spins());
    }

    #[cfg(unix)]
    #[test]
    fn a_forked_child_does_not_keep_its_parents_cached_pid() {
        let parent = super::pid();
        assert_eq!(parent, std::process::id());
        // SAFETY: the child only reads and writes atomics, asks for its id and exits.
        let child = unsafe { libc::fork() };
        assert!(child >= 0, "fork failed");
        if child == 0 {
            let ok = super::pid() == std::process::id() && super::pid() != parent;
            // SAFETY: ends the child without running the parent's exit handlers.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: waits for the child started above.
        assert_eq!(unsafe { libc::waitpid(child, &mut status, 0) }, child);
        assert!(libc::WIFEXITED(status), "child status {status}");
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "the child saw its parent's pid"
        );
    }

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
