//! What the transport and its mirrors share: the TLS configuration, the gates, and the
//! connections of the exchange (`http1`, over TCP or TLS), kept by the process runtime and by
//! every lane (a thread's blocking calls) apart, and forgotten in a forked child.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, Weak};

use super::gate::{Gate, Gates, Lease};
use super::{http1, install_crypto_provider, Config};
use crate::error::Result;

/// The connections of a transport and its mirrors: the process runtime's, and one set per lane
/// (a thread's blocking calls), since a lane's connections are only driven by its own thread.
/// Both are forgotten in a forked child: the parent's connections are registered with its
/// runtimes, and their sockets are still the parent's.
pub(super) struct Clients {
    pub(super) config: Config,
    /// The client's TLS configuration (built once: loading the system's trust store takes
    /// tens of milliseconds), offering HTTP/1.1 only (ALPN).
    tls_h1: Arc<rustls::ClientConfig>,
    /// The process runtime's connections (see [`http1`]), and the process they were made in.
    kept: Mutex<(u32, http1::Kept)>,
    /// The cap on connections per application (`max_connections`), shared by the process
    /// runtime, every lane and the runtimes of the caller's own.
    pub(super) gates: Gates,
}

/// Where the connections made on the calling thread are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keeper {
    /// The thread's lane (a blocking call).
    Lane,
    /// The process runtime (awaitable calls, mirrors, the feed).
    Process,
    /// Nowhere: a tokio runtime of the caller's own (a Rust user of the core), whose
    /// connections belong to that runtime, which may end at any time: each request has a
    /// connection of its own, closed after its answer.
    Nowhere,
}

impl Keeper {
    /// The keeper for the calling thread.
    pub(super) fn here() -> Keeper {
        if crate::runtime::in_lane() {
            Keeper::Lane
        } else if crate::runtime::on_process_runtime() {
            Keeper::Process
        } else {
            Keeper::Nowhere
        }
    }
}

/// A thread's lane connections, and the process they were made in.
struct LaneClients {
    pid: u32,
    clients: Vec<LaneEntry>,
}

/// What one thread's lane keeps for one [`Clients`]: its connections (see [`http1`]).
struct LaneEntry {
    owner: Weak<Clients>,
    kept: http1::Kept,
}

thread_local! {
    static LANE_CLIENTS: RefCell<LaneClients> =
        const { RefCell::new(LaneClients { pid: 0, clients: Vec::new() }) };
}

impl Clients {
    pub(super) fn new(config: &Config) -> Result<Self> {
        install_crypto_provider();
        Ok(Clients {
            tls_h1: crate::tls::client_config(&config.tls_options())?,
            config: config.clone(),
            kept: Mutex::new((crate::runtime::pid(), http1::Kept::for_process())),
            gates: Gates::new(config.max_connections),
        })
    }

    /// The TLS configuration of the exchange (ALPN `http/1.1`).
    pub(super) fn tls_h1(&self) -> &Arc<rustls::ClientConfig> {
        &self.tls_h1
    }

    /// A usable kept connection (TCP or TLS) to `authority`, and its lease.
    pub(super) fn take_kept(
        self: &Arc<Self>,
        keeper: Keeper,
        authority: &str,
    ) -> Option<(http1::Conn, Lease)> {
        match keeper {
            Keeper::Lane => self.on_lane(|e| e.kept.take(authority)),
            Keeper::Process => self.process_kept(|k| k.take(authority)),
            Keeper::Nowhere => None,
        }
    }

    /// Keep a connection (TCP or TLS) for the next request to `authority` (see
    /// [`http1::Kept::put`]); off the lanes and the process runtime, close it.
    pub(super) fn put_kept(
        self: &Arc<Self>,
        keeper: Keeper,
        authority: &str,
        conn: http1::Conn,
        lease: Lease,
        gate: &Gate,
    ) {
        match keeper {
            Keeper::Lane => self.on_lane(|e| e.kept.put(authority, conn, lease, gate)),
            Keeper::Process => self.process_kept(|k| k.put(authority, conn, lease, gate)),
            Keeper::Nowhere => {
                // Closed before its permit goes back (the server counts it open until then).
                let permit = lease.retire();
                drop(conn);
                drop(permit);
            }
        }
    }

    /// Work on the process runtime's kept connections (in this process).
    pub(super) fn process_kept<R>(&self, f: impl FnOnce(&mut http1::Kept) -> R) -> R {
        let pid = crate::runtime::pid();
        let mut slot = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if slot.0 != pid {
            // Inherited through fork(): registered with the parent's runtime, never dropped.
            std::mem::forget(std::mem::replace(
                &mut *slot,
                (pid, http1::Kept::for_process()),
            ));
        }
        f(&mut slot.1)
    }

    /// Work on what the calling thread's lane keeps for these clients.
    fn on_lane<R>(self: &Arc<Self>, f: impl FnOnce(&mut LaneEntry) -> R) -> R {
        LANE_CLIENTS.with(|cell| {
            let mut lane = cell.borrow_mut();
            let pid = crate::runtime::pid();
            if lane.pid != pid {
                // Inherited through fork(): their connections belong to the parent's lane.
                std::mem::forget(std::mem::take(&mut lane.clients));
                lane.pid = pid;
            }
            let me = Arc::as_ptr(self);
            let at = match lane
                .clients
                .iter()
                .position(|e| std::ptr::eq(e.owner.as_ptr(), me))
            {
                Some(at) => at,
                None => {
                    lane.clients.retain(|e| e.owner.strong_count() > 0);
                    lane.clients.push(LaneEntry {
                        owner: Arc::downgrade(self),
                        kept: http1::Kept::for_lane(),
                    });
                    lane.clients.len() - 1
                }
            };
            f(&mut lane.clients[at])
        })
    }
}
