//! `probe_venue`: every source of a venue checked at once (a bounded number at a time), one
//! summary and one verdict.

use std::time::Instant;

use futures::stream::{self, StreamExt};
use serde::Serialize;

use super::{Kind, MirrorSpec, Source, Venue};
use crate::error::{Error, Result};
use crate::probe::{probe, App, Report};
use crate::transport::{Target, Transport};

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
    /// A media source's mirrors (the players that receive every command too), each probed
    /// as the source is, at the same time.
    pub mirrors: Vec<MirrorReport>,
}

impl SourceReport {
    /// The source can be used as configured: it and every mirror of it.
    pub fn ok(&self) -> bool {
        self.report.as_ref().is_some_and(|r| r.ok) && self.mirrors.iter().all(MirrorReport::ok)
    }
}

/// What the probe of one mirror of a media source found.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MirrorReport {
    pub url: String,
    /// The probe's report; `None` when no client could be built for the mirror.
    pub report: Option<Report>,
    /// Why no probe ran.
    pub error: Option<String>,
    /// Seconds the mirror's probe took.
    pub seconds: f64,
    /// The mirror pins its own certificate.
    pub pinned: bool,
}

impl MirrorReport {
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

/// The `concurrency` of a venue probe: 1 to 64 sources probed at a time.
pub fn concurrency(n: i64) -> Result<usize> {
    if !(1..=64).contains(&n) {
        return Err(Error::invalid(format!(
            "concurrency: must be a whole number from 1 to 64, got {n}"
        )));
    }
    Ok(n as usize)
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
    let (outcome, mirrors) = match Transport::new(&source.config) {
        Ok(transport) => {
            let mirrors = source
                .mirrors
                .iter()
                .map(|m| probe_mirror(&transport, source, m));
            let (result, mirrors) =
                futures::join!(probe(&transport, app), futures::future::join_all(mirrors));
            transport.close();
            (result, mirrors)
        }
        Err(e) => (Err(e), Vec::new()),
    };
    let (report, error) = split(outcome);
    SourceReport {
        name: source.name.clone(),
        kind: source.kind.as_str().into(),
        report,
        error,
        seconds: started.elapsed().as_secs_f64(),
        pinned: source.config.tls_fingerprint.is_some(),
        verify: source.config.verify,
        mirrors,
    }
}

/// Probe one mirror through the source's transport options, with the mirror's own URL, key
/// (the source's when it has none) and pin, as a `MediaPlayer` built from the source sends it
/// commands.
async fn probe_mirror(primary: &Transport, source: &Source, mirror: &MirrorSpec) -> MirrorReport {
    let started = Instant::now();
    let key = mirror
        .api_key
        .as_deref()
        .or(source.config.api_key.as_deref());
    let transport = Target::new(&mirror.url, key)
        .map(|t| t.pinned(mirror.tls_fingerprint))
        .and_then(|t| primary.with_target(t));
    let outcome = match transport {
        Ok(t) => {
            let result = probe(&t, App::Media).await;
            t.close();
            result
        }
        Err(e) => Err(e),
    };
    let (report, error) = split(outcome);
    MirrorReport {
        url: mirror.url.clone(),
        report,
        error,
        seconds: started.elapsed().as_secs_f64(),
        pinned: mirror.tls_fingerprint.is_some(),
    }
}

/// A probe's report, or why none could be made (the two fields of a report row).
fn split(outcome: crate::Result<Report>) -> (Option<Report>, Option<String>) {
    match outcome {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e.to_string())),
    }
}
