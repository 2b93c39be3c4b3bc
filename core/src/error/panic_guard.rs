//! The panic guard: a panic inside the core's futures becomes an [`Error::Internal`], never an
//! abort.

use super::Error;

/// The error a caught panic becomes.
pub fn panic_error(p: Box<dyn std::any::Any + Send>) -> Error {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::Internal(format!("internal error in showctl (please report): {msg}"))
}

/// Catch a panic inside a future and turn it into an error: panics stop at the caller's edge
/// (the binding's runtime glue), never an abort.
pub async fn guarded<T, F>(fut: F) -> Result<T, Error>
where
    F: std::future::Future<Output = Result<T, Error>>,
{
    use futures::FutureExt;
    match std::panic::AssertUnwindSafe(fut).catch_unwind().await {
        Ok(r) => r,
        Err(p) => Err(panic_error(p)),
    }
}
