//! The cap on connections per application (`max_connections`): one [`Gate`] per authority for
//! a transport and its mirrors, shared by the process runtime and every lane, so that a small
//! embedded server is never sent more connections than it has workers.
//!
//! Every open connection holds a permit of its gate's semaphore through a [`Lease`], in use and
//! while kept idle; a call beyond the cap waits for a permit, first come first served. A kept
//! idle connection must not starve a waiting call: a waiter that finds no permit closes an idle
//! one (shutting its socket down from wherever it is kept: a lane keeps its connections on its
//! own thread) and takes its permit. A connection coming back while calls wait is handed to
//! one of them when the process runtime keeps it (any of its calls can use it), and closed
//! otherwise, so that its permit goes to the first of them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// The socket of a kept connection, as a waiter shuts it down.
#[cfg(unix)]
pub(super) type RawSock = std::os::fd::RawFd;
#[cfg(windows)]
pub(super) type RawSock = std::os::windows::io::RawSocket;

/// Shut a kept connection's socket down (the server sees it closed). Only called while the
/// connection is parked, under its lease's lock: the socket cannot be closed meanwhile.
fn shut_down(raw: RawSock) {
    #[cfg(unix)]
    let sock = unsafe { std::os::fd::BorrowedFd::borrow_raw(raw) };
    #[cfg(windows)]
    let sock = unsafe { std::os::windows::io::BorrowedSocket::borrow_raw(raw) };
    let _ = socket2::SockRef::from(&sock).shutdown(std::net::Shutdown::Both);
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The gates of a transport and its mirrors, one per authority, and the process they were
/// made in (a forked child starts with fresh ones: the parent's connections are not its own).
pub(super) struct Gates {
    cap: usize,
    by_authority: Mutex<(u32, HashMap<String, Arc<Gate>>)>,
}

impl Gates {
    pub(super) fn new(cap: usize) -> Self {
        Gates {
            cap: cap.max(1),
            by_authority: Mutex::new((crate::runtime::pid(), HashMap::new())),
        }
    }

    /// The gate of `authority` (`host:port`), in this process.
    pub(super) fn of(&self, authority: &str) -> Arc<Gate> {
        let pid = crate::runtime::pid();
        let mut map = locked(&self.by_authority);
        if map.0 != pid {
            *map = (pid, HashMap::new());
        }
        if let Some(gate) = map.1.get(authority) {
            return gate.clone();
        }
        let gate = Arc::new(Gate {
            cap: self.cap,
            permits: Arc::new(Semaphore::new(self.cap)),
            state: Mutex::new(GateState::default()),
            returned: Notify::new(),
        });
        map.1.insert(authority.to_string(), gate.clone());
        gate
    }
}

/// The connections to one application.
pub(super) struct Gate {
    cap: usize,
    permits: Arc<Semaphore>,
    state: Mutex<GateState>,
    /// A connection was kept where waiting calls may take it.
    returned: Notify,
}

/// What a call got from its gate: a kept connection, or a permit for a new one.
pub(super) enum Got<T> {
    Kept(T),
    New(Lease),
}

#[derive(Default)]
struct GateState {
    /// Calls waiting for a permit.
    waiting: usize,
    /// The leases that were parked (kept idle): a waiter closes one of these to take its
    /// permit. Entries no longer parked are skipped and dropped on the way.
    parked: Vec<Weak<LeaseInner>>,
}

impl Gate {
    /// The cap (`max_connections`).
    pub(super) fn cap(&self) -> usize {
        self.cap
    }

    /// Connections open now (in use or kept idle).
    pub(super) fn open(&self) -> usize {
        self.cap - self.permits.available_permits()
    }

    /// A permit for one connection, as [`Gate::acquire_or`] gives it (the tests' way to hold
    /// one).
    #[cfg(test)]
    pub(super) async fn acquire(self: &Arc<Self>) -> Lease {
        match self.acquire_or(|| None::<((), Lease)>).await {
            Got::New(lease) | Got::Kept(((), lease)) => lease,
        }
    }

    /// A kept connection (what `kept` finds) or a permit for a new one: at once when one is
    /// free or a kept idle connection can be closed for it, else the first freed after the
    /// calls already waiting; a waiting call looks for a kept one again each time one comes
    /// back.
    pub(super) async fn acquire_or<T>(
        self: &Arc<Self>,
        mut kept: impl FnMut() -> Option<(T, Lease)>,
    ) -> Got<(T, Lease)> {
        loop {
            if let Some(found) = kept() {
                return Got::Kept(found);
            }
            if let Ok(permit) = self.permits.clone().try_acquire_owned() {
                return Got::New(Lease::new(permit));
            }
            {
                let mut state = locked(&self.state);
                if let Some(permit) = state.evict_one() {
                    return Got::New(Lease::new(permit));
                }
                state.waiting += 1;
            }
            let _waiting = Waiting(self);
            tokio::select! {
                biased;
                permit = self.permits.clone().acquire_owned() => {
                    let permit = permit.expect("the gate's semaphore is never closed");
                    return Got::New(Lease::new(permit));
                }
                () = self.returned.notified() => {}
            }
        }
    }
}

/// One call waiting for a permit (counted while its future lives: a timed-out wait is dropped).
struct Waiting<'a>(&'a Gate);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        locked(&self.0.state).waiting -= 1;
    }
}

impl GateState {
    /// Close a parked connection and take its permit.
    fn evict_one(&mut self) -> Option<OwnedSemaphorePermit> {
        while let Some(weak) = self.parked.pop() {
            let Some(lease) = weak.upgrade() else {
                continue;
            };
            let mut slot = locked(&lease.slot);
            if let Slot::Parked(_, raw) = &*slot {
                shut_down(*raw);
                if let Slot::Parked(permit, _) = std::mem::replace(&mut *slot, Slot::Evicted) {
                    return Some(permit);
                }
            }
        }
        None
    }
}

/// A connection's right to be open: its gate's permit, while in use and while kept idle.
pub(super) struct Lease {
    inner: Arc<LeaseInner>,
}

struct LeaseInner {
    slot: Mutex<Slot>,
}

enum Slot {
    /// Carrying a request.
    InUse(OwnedSemaphorePermit),
    /// Kept idle: a waiter may shut the socket down and take the permit.
    Parked(OwnedSemaphorePermit, RawSock),
    /// Closed by a waiter, which took the permit.
    Evicted,
    /// Given back.
    Done,
}

impl Lease {
    fn new(permit: OwnedSemaphorePermit) -> Self {
        Lease {
            inner: Arc::new(LeaseInner {
                slot: Mutex::new(Slot::InUse(permit)),
            }),
        }
    }

    /// Park the lease of a connection kept idle on `raw`. While calls wait: kept and handed to
    /// one of them when `shared` (the process runtime's, which any of them can use), else
    /// `false` (close the connection: its permit goes to the first of them).
    pub(super) fn park(&self, gate: &Gate, raw: RawSock, shared: bool) -> bool {
        let mut state = locked(&gate.state);
        if state.waiting > 0 {
            if !shared {
                return false;
            }
            gate.returned.notify_one();
        }
        let mut slot = locked(&self.inner.slot);
        let Slot::InUse(permit) = std::mem::replace(&mut *slot, Slot::Done) else {
            return false;
        };
        *slot = Slot::Parked(permit, raw);
        state
            .parked
            .retain(|w| w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), &*self.inner));
        state.parked.push(Arc::downgrade(&self.inner));
        true
    }

    /// Take a parked lease back into use; `false` when a waiter closed its connection.
    pub(super) fn unpark(&self) -> bool {
        let mut slot = locked(&self.inner.slot);
        match std::mem::replace(&mut *slot, Slot::Done) {
            Slot::Parked(permit, _) | Slot::InUse(permit) => {
                *slot = Slot::InUse(permit);
                true
            }
            Slot::Evicted | Slot::Done => {
                *slot = Slot::Evicted;
                false
            }
        }
    }

    /// Give the permit back. Its connection must be closed first (the server counts it open
    /// until then), so the caller drops the returned permit after the connection.
    #[must_use]
    pub(super) fn retire(&self) -> Option<OwnedSemaphorePermit> {
        match std::mem::replace(&mut *locked(&self.inner.slot), Slot::Done) {
            Slot::InUse(permit) | Slot::Parked(permit, _) => Some(permit),
            Slot::Evicted | Slot::Done => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_waiter_closes_an_idle_connection_to_take_its_place() {
        let gates = Gates::new(1);
        let gate = gates.of("h:1");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        let lease = gate.acquire().await;
        assert_eq!(gate.open(), 1);
        #[cfg(unix)]
        let raw = std::os::fd::AsRawFd::as_raw_fd(&client);
        #[cfg(windows)]
        let raw = std::os::windows::io::AsRawSocket::as_raw_socket(&client);
        assert!(lease.park(&gate, raw, false));
        // No permit is free: the waiter shuts the parked connection down and takes its permit.
        let second = gate.acquire().await;
        let mut buf = [0u8; 1];
        assert_eq!(std::io::Read::read(&mut server, &mut buf).unwrap(), 0);
        assert!(!lease.unpark(), "an evicted lease is not used again");
        assert!(lease.retire().is_none());
        assert_eq!(gate.open(), 1);
        drop(second.retire());
        assert_eq!(gate.open(), 0);
    }

    #[tokio::test]
    async fn a_connection_coming_back_while_calls_wait_is_not_kept() {
        let gates = Gates::new(1);
        let gate = gates.of("h:1");
        let lease = gate.acquire().await;
        let waiter = tokio::spawn({
            let gate = gate.clone();
            async move { gate.acquire().await }
        });
        while locked(&gate.state).waiting == 0 {
            tokio::task::yield_now().await;
        }
        assert!(
            !lease.park(&gate, 0 as RawSock, false),
            "kept while a call waits"
        );
        drop(lease.retire());
        let second = waiter.await.unwrap();
        assert_eq!(gate.open(), 1);
        drop(second.retire());
    }
}
