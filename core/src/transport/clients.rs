//! The HTTP clients of a transport and its mirrors, and the connections they keep: reqwest's
//! (a caller's own runtime, a path it would rewrite) and showctl's own ones (`http1`, over TCP
//! or TLS), each kept by the process runtime and by every lane (a thread's blocking calls)
//! apart, and forgotten in a forked child.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, Weak};

use super::gate::{Gate, Gates, Lease};
use super::{build_client, http1, install_crypto_provider, Config};
use crate::error::Result;

/// The reqwest clients of a transport and its mirrors: one for the process runtime, and one per
/// lane (a thread's blocking calls), built there on first use, since a lane's connections are
/// only driven by its own thread. Both are rebuilt in a forked child: the parent's pooled
/// connections are driven by threads that do not exist there (a request on one would wait for
/// its timeout) and their sockets are still the parent's.
pub(super) struct Clients {
    pub(super) config: Config,
    /// The TLS configuration, built once (loading the system's trust store takes tens of
    /// milliseconds) and shared by every client built from it.
    tls: Arc<rustls::ClientConfig>,
    /// The same, offering HTTP/1.1 only (ALPN), for showctl's own exchange over TLS.
    tls_h1: Arc<rustls::ClientConfig>,
    /// The process runtime's client, and the process it was built in.
    shared: Mutex<(u32, reqwest::Client)>,
    /// The process runtime's connections of showctl's own exchange (see [`http1`]), and the process they
    /// were made in.
    kept: Mutex<(u32, http1::Kept)>,
    /// The cap on connections per application (`max_connections`), shared by the process
    /// runtime and every lane.
    pub(super) gates: Gates,
}

/// Where the connections of showctl's own exchange made on the calling thread are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keeper {
    /// The thread's lane (a blocking call).
    Lane,
    /// The process runtime (awaitable calls, mirrors, the feed).
    Process,
}

impl Keeper {
    /// The keeper for the calling thread; `None` off the lanes and the process runtime (a
    /// runtime of the caller's own, whose connections must stay there: reqwest then).
    pub(super) fn here() -> Option<Keeper> {
        if crate::runtime::in_lane() {
            Some(Keeper::Lane)
        } else if crate::runtime::on_process_runtime() {
            Some(Keeper::Process)
        } else {
            None
        }
    }
}

/// A thread's lane clients, and the process they were built in.
struct LaneClients {
    pid: u32,
    clients: Vec<LaneEntry>,
}

/// What one thread's lane keeps for one [`Clients`]: its reqwest client (built on first use,
/// for a path reqwest would rewrite) and its own connections (see [`http1`]).
struct LaneEntry {
    owner: Weak<Clients>,
    reqwest: Option<reqwest::Client>,
    kept: http1::Kept,
}

thread_local! {
    static LANE_CLIENTS: RefCell<LaneClients> =
        const { RefCell::new(LaneClients { pid: 0, clients: Vec::new() }) };
}

impl Clients {
    pub(super) fn new(config: &Config) -> Result<Self> {
        install_crypto_provider();
        let tls = crate::tls::client_config(&config.tls_options())?;
        let mut h1 = (*tls).clone();
        h1.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Clients {
            tls_h1: Arc::new(h1),
            config: config.clone(),
            shared: Mutex::new((std::process::id(), build_client(config, &tls)?)),
            kept: Mutex::new((crate::runtime::pid(), http1::Kept::for_process())),
            gates: Gates::new(config.max_connections),
            tls,
        })
    }

    /// The TLS configuration of showctl's own exchange (ALPN `http/1.1`).
    pub(super) fn tls_h1(&self) -> &Arc<rustls::ClientConfig> {
        &self.tls_h1
    }

    /// The process runtime's client, in this process.
    pub(super) fn shared(&self) -> Result<reqwest::Client> {
        let pid = std::process::id();
        let slot = || self.shared.lock().unwrap_or_else(|p| p.into_inner());
        {
            let slot = slot();
            if slot.0 == pid {
                return Ok(slot.1.clone());
            }
        }
        // Built unlocked (building logs, and a log record may wait for the embedding interpreter's lock).
        let fresh = build_client(&self.config, &self.tls)?;
        let mut slot = slot();
        if slot.0 != pid {
            // Never dropped here: its connections belong to the parent.
            std::mem::forget(std::mem::replace(&mut *slot, (pid, fresh)));
        }
        Ok(slot.1.clone())
    }

    /// The client for work running on the calling thread.
    pub(super) fn get(self: &Arc<Self>) -> Result<reqwest::Client> {
        if !crate::runtime::in_lane() {
            return self.shared();
        }
        self.on_lane(|entry| match &entry.reqwest {
            Some(client) => Ok(client.clone()),
            None => {
                let client = build_client(&self.config, &self.tls)?;
                entry.reqwest = Some(client.clone());
                crate::runtime::lane_has_tasks();
                Ok(client)
            }
        })
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
        }
    }

    /// Keep a connection (TCP or TLS) for the next request to `authority` (see
    /// [`http1::Kept::put`]).
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
                        reqwest: None,
                        kept: http1::Kept::for_lane(),
                    });
                    lane.clients.len() - 1
                }
            };
            f(&mut lane.clients[at])
        })
    }

    /// Whether the calling thread's lane built a reqwest client for these clients (tests).
    #[cfg(test)]
    pub(super) fn lane_built_reqwest(self: &Arc<Self>) -> bool {
        self.on_lane(|e| e.reqwest.is_some())
    }
}
