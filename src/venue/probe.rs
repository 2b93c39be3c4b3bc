//! `probe_venue`: every source of a venue checked at once (a bounded number at a time), one
//! summary and one verdict.

use std::time::Instant;

use futures::stream::{self, StreamExt};
use serde::Serialize;

use super::{Kind, Source, Venue};
use crate::probe::{probe, App, Report};
use crate::transport::Transport;

/// Sources probed at the same time by default.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// What one source's probe found.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SourceReport {
    pub name: String,
    /// `"media"` or `"scoreboard"`.
    pub kind: String,
    /// The probe's report; `None` when no client could be built for the source.
    pub report: Option<Report>,
    /// Why no probe ran (a client that could not be built: a CA file that cannot be read...).
    pub error: Option<String>,
    /// Seconds this source's probe took.
    pub seconds: f64,
    /// The source pins its certificate (`tls_fingerprint`).
    pub pinned: bool,
    /// The source checks the certificate (`verify`, or a pin).
    pub verify: bool,
}

impl SourceReport {
    /// The source can be used as configured.
    pub fn ok(&self) -> bool {
        self.report.as_ref().is_some_and(|r| r.ok)
    }
}

/// What `probe_venue` found.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct VenueReport {
    /// The venue file (or `sources`).
    pub origin: String,
    /// One per source, in the venue's order.
    pub sources: Vec<SourceReport>,
    /// Every source can be used.
    pub ok: bool,
    /// Wall time of the whole check (seconds).
    pub seconds: f64,
}

/// Probe every source of `venue`, at most `concurrency` at a time (at least one). A source that
/// hangs costs its own timeout only: the others go on meanwhile.
pub async fn probe_venue(venue: &Venue, concurrency: usize) -> VenueReport {
    let started = Instant::now();
    let sources: Vec<SourceReport> = stream::iter(venue.sources.iter())
        .map(probe_source)
        .buffered(concurrency.max(1))
        .collect()
        .await;
    VenueReport {
        origin: venue.origin.clone(),
        ok: sources.iter().all(SourceReport::ok),
        sources,
        seconds: started.elapsed().as_secs_f64(),
    }
}

async fn probe_source(source: &Source) -> SourceReport {
    let started = Instant::now();
    let app = match source.kind {
        Kind::Media => App::Media,
        Kind::Scoreboard => App::Scoreboard,
    };
    let (report, error) = match Transport::new(&source.config) {
        Ok(transport) => {
            let result = probe(&transport, app).await;
            transport.close();
            match result {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e.to_string())),
            }
        }
        Err(e) => (None, Some(e.to_string())),
    };
    SourceReport {
        name: source.name.clone(),
        kind: source.kind.as_str().into(),
        report,
        error,
        seconds: started.elapsed().as_secs_f64(),
        pinned: source.config.tls_fingerprint.is_some(),
        verify: source.config.verify,
    }
}
