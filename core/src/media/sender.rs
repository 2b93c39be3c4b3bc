//! What sends a call to one target: its transport, and what the client learned about that
//! target (whether it takes `/layerBlend/layer/{id}` where `/blend/layer/{id}` is refused). The
//! client has one for the primary ([`super::client`]); each mirror has its own
//! ([`super::mirror`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use bytes::Bytes;

use super::endpoints::Call;
use crate::error::Result;
use crate::transport::{Request, Transport};

/// One target's transport and fallback memory.
pub struct Sender {
    transport: Arc<Transport>,
    /// Set once `/blend/layer/{id}` answered 404 or 405 and `/layerBlend/layer/{id}` worked:
    /// later layer blend requests go to the field path directly.
    layer_blend_fallback: AtomicBool,
}

impl Sender {
    pub fn new(transport: Arc<Transport>) -> Self {
        Sender {
            transport,
            layer_blend_fallback: AtomicBool::new(false),
        }
    }

    pub fn transport(&self) -> &Arc<Transport> {
        &self.transport
    }

    /// True once this target is sent `/layerBlend/layer/{id}` for layer blends.
    pub fn uses_layer_blend_fallback(&self) -> bool {
        self.layer_blend_fallback.load(Ordering::Relaxed)
    }

    /// Send a call and decode its reply (no mirroring: see `MediaClient::run`).
    pub async fn call<T>(&self, call: Call<T>) -> Result<T> {
        let (req, body) = self.exchange(&call.request, call.fallback.as_ref()).await?;
        let out = (call.decode)(&body).map_err(|e| self.transport.decode_error(req, &body, e));
        if body.len() >= crate::memory::RELEASE_AFTER {
            // A big reply: hand its memory back to the system once it is dropped.
            drop(body);
            crate::memory::release_memory();
        }
        out
    }

    /// Send a request to this target, or its field fallback where the documented path is
    /// refused with 404 or 405.
    pub async fn exchange<'r>(
        &self,
        request: &'r Request,
        fallback: Option<&'r Request>,
    ) -> Result<(&'r Request, Bytes)> {
        let send = |req| self.transport.send(req);
        let Some(fallback) = fallback else {
            return Ok((request, send(request).await?));
        };
        if self.uses_layer_blend_fallback() {
            return Ok((fallback, send(fallback).await?));
        }
        match send(request).await {
            Err(first) if matches!(first.status(), Some(404 | 405)) => {
                match send(fallback).await {
                    Ok(body) => {
                        log::info!(
                            "{} {} answered {}; {} works and is used from now on",
                            request.method.as_str(),
                            request.path,
                            first.status().unwrap_or_default(),
                            fallback.path
                        );
                        self.layer_blend_fallback.store(true, Ordering::Relaxed);
                        Ok((fallback, body))
                    }
                    // Neither path exists: the documented path's error says more.
                    Err(second) if matches!(second.status(), Some(404 | 405)) => Err(first),
                    Err(second) => Err(second),
                }
            }
            other => Ok((request, other?)),
        }
    }
}
