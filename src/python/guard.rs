//! Panics stop at the binding: a panic inside a core future becomes an error (and then a
//! Python exception), never an abort. Used by the runtime glue ([`super::rt`]) and the asyncio
//! completion queue ([`super::bridge`]).

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;

use crate::error::Error;

/// The error a caught panic becomes.
pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> Error {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::Internal(format!("internal error in showctl (please report): {msg}"))
}

/// Catch a panic inside a core future and turn it into an error.
pub async fn guarded<T, F>(fut: F) -> Result<T, Error>
where
    F: Future<Output = Result<T, Error>>,
{
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(p) => Err(panic_message(p)),
    }
}
