//! How the feed reads an application: each answer capped at [`FEED_REPLY`] bytes (the memory one
//! answer can cost the feed, whatever the application sends), and with the key scrubbed from it
//! in every form (an operator may type it into a team name; the application may echo it
//! JSON-escaped or percent-encoded) before anything is decoded, so no document, event or file
//! the feed makes from it can carry the key.

use crate::error::Result;
use crate::operation::Call;
use crate::transport::Transport;

/// The largest answer the feed reads from either application: 1 MiB, about ten times the
/// transport state of a 100-layer workspace. A longer answer is refused as soon as it is seen
/// (the source goes stale with that error) instead of being read and decoded whole.
pub const FEED_REPLY: usize = 1024 * 1024;

/// Send `call` with its answer capped at [`FEED_REPLY`], scrub the key from the answer, decode it.
pub(crate) async fn read_clean<T>(transport: &Transport, mut call: Call<T>) -> Result<T> {
    let cap = call
        .request
        .max_reply
        .map_or(FEED_REPLY, |m| m.min(FEED_REPLY));
    call.request.max_reply = Some(cap);
    let body = transport.send(&call.request).await?;
    let clean = transport.target().scrub_all(&body);
    (call.decode)(&clean).map_err(|e| transport.decode_error(&call.request, &clean, e))
}
