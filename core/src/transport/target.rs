//! One application endpoint as the transport addresses it: its base URL, its key (and how a
//! body the application sent is scrubbed of it), its own pin, and where the transport's exchange
//! connects.

use std::borrow::Cow;

use hyper::header::HeaderValue;

use super::{auth_header, http1, normalize_base};
use crate::error::{Result, BODY_EXCERPT};
use crate::tls::Fingerprint;

/// One application endpoint: a base URL and its key.
#[derive(Clone)]
pub struct Target {
    pub(super) base: String,
    pub(super) auth: Option<HeaderValue>,
    /// Its own pinned certificate (a mirror's), instead of the primary's TLS options.
    pub(super) pin: Option<Fingerprint>,
    /// Where the target is, for the transport's exchange (`http://` and `https://`).
    pub(super) address: Option<http1::Address>,
    /// `scheme://host:port`: the application, as its connections are counted (see
    /// `max_connections`).
    pub(super) origin: String,
}

impl Target {
    pub fn new(url: &str, api_key: Option<&str>) -> Result<Self> {
        let base = normalize_base(url)?;
        let authority_end = base["https://".len()..]
            .find('/')
            .map_or(base.len(), |i| i + "https://".len());
        Ok(Target {
            origin: base[..authority_end].to_string(),
            address: http1::Address::of(&base),
            base,
            auth: api_key.map(auth_header).transpose()?,
            pin: None,
        })
    }
    /// This target with its own pinned certificate (a mirror's `tls_fingerprint`).
    pub fn pinned(mut self, pin: Option<Fingerprint>) -> Self {
        self.pin = pin;
        self
    }
    /// `scheme://host:port/api/0`, never with the key.
    pub fn base(&self) -> &str {
        &self.base
    }
    /// Whether requests carry an API key (the probe reports what the application made of it).
    pub fn has_key(&self) -> bool {
        self.auth.is_some()
    }

    /// What a server sent, as kept in an error: with the key replaced by `***` wherever the
    /// server echoed it (a debug page listing the request's headers). Only the start of a body
    /// is kept in an error, so only that part is searched (and returned when changed).
    pub fn scrub<'a>(&self, body: &'a [u8]) -> Cow<'a, [u8]> {
        self.scrub_within(body, 4 * BODY_EXCERPT)
    }

    /// A whole body with the key replaced by `***` wherever it appears (for recordings).
    pub fn scrub_all<'a>(&self, body: &'a [u8]) -> Cow<'a, [u8]> {
        self.scrub_within(body, usize::MAX)
    }

    /// The key, as [`crate::scrub`] looks for it (empty without a key).
    pub fn secret(&self) -> &[u8] {
        self.auth
            .as_ref()
            .and_then(|a| a.as_bytes().strip_prefix(b"Bearer ".as_slice()))
            .unwrap_or_default()
    }

    fn scrub_within<'a>(&self, body: &'a [u8], limit: usize) -> Cow<'a, [u8]> {
        let key = self.secret();
        if key.is_empty() {
            return Cow::Borrowed(body);
        }
        // An occurrence that starts within the limit is caught whole, in its widest form.
        let end = limit.saturating_add(key.len() * crate::scrub::WIDEST_FORM);
        let head = &body[..body.len().min(end)];
        match crate::scrub::scrub(head, key) {
            Cow::Owned(clean) => Cow::Owned(clean),
            Cow::Borrowed(_) => Cow::Borrowed(body),
        }
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Target({})", self.base)
    }
}
