//! What a probe found: the [`Report`], and the judging of the reads into it (each read's
//! result, which answer variant it was, the documentation-port hint, the verdict).

use serde::Serialize;
use serde_json::Value;

use super::reads::{items, layer_objects, playlists_below, root_playlist, Exchange};
use crate::tls::{rfc3339, Fingerprint};

/// The certificate a port presented.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TlsInfo {
    pub subject: String,
    pub issuer: String,
    pub self_signed: bool,
    /// Marked as a CA (`CA:TRUE`), as self-signed certificates usually are.
    pub ca: bool,
    /// The DNS names and IP addresses it is issued for.
    pub names: Vec<String>,
    pub not_before: String,
    pub not_after: String,
    pub expired: bool,
    pub fingerprint: String,
    /// The exact option that pins it: `tls_fingerprint="sha256:…"`.
    pub pin: String,
}

impl TlsInfo {
    /// Describe a DER certificate.
    pub fn of(der: &[u8]) -> Option<Self> {
        let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
        let fp = Fingerprint::of(der);
        let v = cert.validity();
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let names = crate::tls::names(der);
        Some(TlsInfo {
            subject: cert.subject().to_string(),
            issuer: cert.issuer().to_string(),
            self_signed: cert.subject().as_raw() == cert.issuer().as_raw(),
            ca: cert.is_ca(),
            names,
            not_before: rfc3339(v.not_before.timestamp()),
            not_after: rfc3339(v.not_after.timestamp()),
            expired: now > v.not_after.timestamp(),
            fingerprint: fp.to_string(),
            pin: format!("tls_fingerprint=\"{fp}\""),
        })
    }
}

/// One read as answered.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EndpointResult {
    /// The path as sent, relative to `/api/0`.
    pub path: String,
    /// The HTTP status; `None` when no answer came (connection failed, timeout).
    pub status: Option<u16>,
    pub seconds: f64,
    /// Which documented or field variant the answer is, when the documents allow several.
    pub variant: Option<String>,
    /// Why the read failed or cannot be decoded by showctl.
    pub error: Option<String>,
}

/// What `probe` found.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    /// The base URL probed (`scheme://host:port/api/0`).
    pub url: String,
    /// `"media"` or `"scoreboard"`.
    pub app: String,
    /// A TCP connection to the port was accepted.
    pub reachable: bool,
    /// Round-trip time of the TCP connection (seconds).
    pub rtt: Option<f64>,
    /// What the port speaks: `"http"`, `"https"` or `"neither"`.
    pub scheme: String,
    /// Every `/api/0` path answered 404: the documentation port, or the API is disabled.
    pub doc_port: bool,
    pub tls: Option<TlsInfo>,
    /// `"not_needed"`, `"required_missing"`, `"wrong"`, `"accepted"` or `"unknown"`.
    pub auth: String,
    pub endpoints: Vec<EndpointResult>,
    pub layers: Option<usize>,
    pub playlists: Option<usize>,
    pub cues: Option<usize>,
    /// The endpoint that took longest, and its time.
    pub slowest: Option<EndpointResult>,
    /// The installation can be used with these options.
    pub ok: bool,
    /// One line per problem, each saying what to do.
    pub problems: Vec<String>,
    /// The bounds the reads reached ([`MAX_READS`], [`MAX_HELD`], [`DEADLINE`]): what was
    /// not read because of each. Empty when every read was sent.
    pub limits: Vec<String>,
}

/// Which documented or field variant an answer is (`None` when only one form exists).
fn variant(ex: &Exchange) -> Option<String> {
    let mut found = Vec::new();
    if let Some(first) = &ex.instead_of {
        found.push(format!(
            "only {} ({} answers {})",
            base_path(&ex.request.path),
            base_path(&first.request.path),
            first.status.unwrap_or(0)
        ));
    } else if ex.request.path.starts_with("/blend/layer/") && ex.error.is_none() {
        found.push("/blend".to_string());
    }
    let v = ex.json();
    let path = ex.request.path.as_str();
    if let Some(v) = &v {
        if path.starts_with("/opacity/layer/") {
            if v.get("opacity").is_some_and(Value::is_object) {
                found.push("opacity wrapped {\"opacity\": {\"value\"}}".into());
            } else if v.get("value").is_some() {
                found.push("opacity bare {\"value\"}".into());
            }
        }
        if path == "/transition" {
            if v.get("data").is_some() {
                found.push("transitions under data".into());
            } else if v.get("transitions").is_some() {
                found.push("transitions under transitions".into());
            }
        }
        if path.starts_with("/transportState/layer/") {
            found.push(if v.get("data").is_some() || v.is_array() {
                "transport state as an array under data".into()
            } else {
                "transport state as one object".into()
            });
        }
        if path == "/data/scores" {
            if let Some(sport) = v.get("sportMode").and_then(Value::as_str) {
                found.push(format!("sportMode {sport}"));
            }
        }
        if path == "/data/layers" && v.is_array() {
            found.push("layers as a bare array".into());
        }
        if has_null_text_uuid(v) {
            found.push("\"null\" text in UUID fields".into());
        }
    }
    (!found.is_empty()).then(|| found.join("; "))
}

/// The first segment of a path (`/blend`), for messages.
fn base_path(path: &str) -> String {
    path.split('/').take(2).collect::<Vec<_>>().join("/")
}

fn has_null_text_uuid(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.iter().any(|(k, v)| {
            (k.to_ascii_lowercase().ends_with("uuid") && v.as_str() == Some("null"))
                || has_null_text_uuid(v)
        }),
        Value::Array(a) => a.iter().any(has_null_text_uuid),
        _ => false,
    }
}

/// The result of one read, with showctl's decoding of it.
fn result_of(ex: &Exchange) -> EndpointResult {
    // An installation may have no video input playlist: not a problem.
    if ex.request.path == "/data/playlist/-1" && matches!(ex.status, Some(400 | 404)) {
        return EndpointResult {
            path: ex.request.path_and_query(),
            status: ex.status,
            seconds: ex.seconds,
            variant: Some("no video input playlist".into()),
            error: None,
        };
    }
    let error = match (&ex.error, &ex.check) {
        (Some(e), _) => Some(e.to_string()),
        (None, Some(check)) => check(&ex.body)
            .err()
            .map(|why| format!("showctl cannot read the answer: {why}")),
        (None, None) => None,
    };
    EndpointResult {
        path: ex.request.path_and_query(),
        status: ex.status,
        seconds: ex.seconds,
        variant: variant(ex),
        error,
    }
}

/// Judge the reads: results, counts, the slowest, the documentation-port hint, the verdict.
pub(super) fn finish(mut report: Report, exchanges: Vec<Exchange>) -> Report {
    report.endpoints = exchanges.iter().map(result_of).collect();
    let answered: Vec<&EndpointResult> = report
        .endpoints
        .iter()
        .filter(|e| e.status.is_some())
        .collect();
    report.doc_port = !answered.is_empty() && answered.iter().all(|e| e.status == Some(404));
    if report.doc_port {
        report.problems.push(format!(
            "every /api/0 path answers 404: this looks like the documentation port, or the API \
             is disabled; check the port and the API switch in the application's network settings ({})",
            report.url
        ));
    } else if report.problems.is_empty() {
        // A problem found before the reads (the scheme, the key) is why they failed: said once.
        for e in &report.endpoints {
            if let Some(err) = &e.error {
                // The error names the request already.
                report.problems.push(one_line(err));
            }
        }
    }
    if let Some(first) = exchanges.first().and_then(Exchange::json) {
        if report.app == "media" {
            report.layers = Some(layer_objects(&first).len());
        }
    }
    if let Some(tree) = exchanges.get(1).and_then(Exchange::json) {
        if let Some(root) = root_playlist(&tree) {
            let below = playlists_below(root);
            report.cues =
                Some(items(root).len() + below.iter().map(|p| items(p).len()).sum::<usize>());
            report.playlists = Some(below.len());
        }
    }
    report.slowest = report
        .endpoints
        .iter()
        .filter(|e| e.status.is_some())
        .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .cloned();
    report.ok = report.reachable && report.problems.is_empty();
    report
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Request;
    use bytes::Bytes;
    use serde_json::json;

    fn exchange(path: &str, body: Value) -> Exchange {
        Exchange {
            request: Request::get(path),
            status: Some(200),
            body: Bytes::from(serde_json::to_vec(&body).unwrap()),
            seconds: 0.0,
            error: None,
            instead_of: None,
            check: None,
            over_budget: false,
        }
    }

    #[test]
    fn variants_are_named_from_the_answer() {
        let cases = [
            (
                "/opacity/layer/0",
                json!({"opacity": {"value": 1}}),
                "opacity wrapped",
            ),
            ("/opacity/layer/0", json!({"value": 1}), "opacity bare"),
            (
                "/transition",
                json!({"transitions": []}),
                "transitions under transitions",
            ),
            ("/transition", json!({"data": []}), "transitions under data"),
            ("/data/layers", json!([]), "layers as a bare array"),
            (
                "/transportState/layer/0",
                json!({"data": [{"transportState": {}}]}),
                "transport state as an array under data",
            ),
            (
                "/data/layer/0",
                json!({"layer": {"targetSetUUID": "null"}}),
                "\"null\" text in UUID fields",
            ),
        ];
        for (path, body, want) in cases {
            let got = variant(&exchange(path, body)).unwrap_or_default();
            assert!(got.starts_with(want), "{path}: {got}");
        }
        assert_eq!(
            variant(&exchange("/data/layer/0", json!({"layer": {}}))),
            None
        );
    }
}
