//! What a client of either application is to whatever owns it (the binding's client classes):
//! its transport, which application it talks to, and how it closes.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::media::MediaClient;
use crate::probe::App;
use crate::score::Scoreboard;
use crate::transport::Transport;

/// Closing in the background: done once the queued work is sent or dropped.
pub type Shutdown = Pin<Box<dyn Future<Output = crate::Result<()>> + Send + 'static>>;

/// A client of one application, as its owner sees it.
pub trait Closer: Send + Sync + 'static {
    fn transport(&self) -> &Arc<Transport>;
    /// Which application the client talks to (what `probe` and `record` read).
    fn app(&self) -> App;
    /// Close at once: later calls fail with [`crate::Error::Closed`].
    fn close_now(&self);
    /// Whether closing should first wait for queued work (mirrors).
    fn busy(&self) -> bool {
        false
    }
    /// Close, letting queued work finish first (within the client's timeout).
    fn shutdown(&self) -> Shutdown;
    /// Whether a blocking `close` waits for [`Closer::shutdown`]: only with work queued, and
    /// never on a runtime thread (which the wait would block); otherwise it closes at once.
    fn close_waits(&self) -> bool {
        self.busy() && !crate::runtime::inside_runtime()
    }
}

impl Closer for MediaClient {
    fn transport(&self) -> &Arc<Transport> {
        MediaClient::transport(self)
    }
    fn app(&self) -> App {
        App::Media
    }
    fn close_now(&self) {
        self.close();
    }
    fn busy(&self) -> bool {
        self.mirrors_busy()
    }
    fn shutdown(&self) -> Shutdown {
        let client = self.clone();
        Box::pin(async move {
            client.shutdown().await;
            Ok(())
        })
    }
}

impl Closer for Scoreboard {
    fn transport(&self) -> &Arc<Transport> {
        Scoreboard::transport(self)
    }
    fn app(&self) -> App {
        App::Scoreboard
    }
    fn close_now(&self) {
        self.transport().close();
    }
    fn shutdown(&self) -> Shutdown {
        self.close_now();
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Config;

    fn transport() -> Arc<Transport> {
        Arc::new(Transport::new(&Config::new("http://127.0.0.1:9")).unwrap())
    }

    #[test]
    fn a_client_with_nothing_queued_closes_at_once_and_its_shutdown_closes_it() {
        let clients: [Box<dyn Closer>; 2] = [
            Box::new(MediaClient::new(transport())),
            Box::new(Scoreboard::new(transport())),
        ];
        for (client, app) in clients.iter().zip([App::Media, App::Scoreboard]) {
            assert_eq!(client.app(), app);
            assert!(!client.busy() && !client.close_waits());
            assert!(!client.transport().is_closed());
            crate::runtime::get().block_on(client.shutdown()).unwrap();
            assert!(client.transport().is_closed());
        }
    }

    #[test]
    fn closing_never_waits_on_a_runtime_thread() {
        struct Busy(Arc<Transport>);
        impl Closer for Busy {
            fn transport(&self) -> &Arc<Transport> {
                &self.0
            }
            fn app(&self) -> App {
                App::Media
            }
            fn close_now(&self) {}
            fn busy(&self) -> bool {
                true
            }
            fn shutdown(&self) -> Shutdown {
                Box::pin(async { Ok(()) })
            }
        }
        let busy = Arc::new(Busy(transport()));
        assert!(busy.close_waits());
        let on_runtime = crate::runtime::get()
            .block_on(async { tokio::spawn(async move { busy.close_waits() }).await })
            .unwrap();
        assert!(!on_runtime);
    }
}
