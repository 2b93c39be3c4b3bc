//! The accept loop of the servers this crate runs on the process runtime (the feed; the
//! simulator's loop has the same shape and can use it too).

use std::future::Future;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;

/// Accept connections until `stop` fires (or its sender is dropped) and run `connection` on
/// each as a task of its own; returns once every open connection is closed. An accept that
/// fails (out of file descriptors and the like) is logged and retried a little later rather
/// than in a spin.
pub async fn accept_until<F, Fut>(
    label: &'static str,
    listener: TcpListener,
    mut stop: oneshot::Receiver<()>,
    mut connection: F,
) where
    F: FnMut(TcpStream) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    connections.spawn(connection(stream));
                }
                Err(e) => {
                    log::warn!("{label}: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
}
