//! Read-only checks of an installation before a show: `probe` (is it usable, and how does it
//! answer?) and the reads that `record` captures. Nothing here sends a command: every request
//! is a GET built from the endpoint table, sent once (no retry), and the TLS check is a bare
//! handshake that sends no HTTP at all.
//!
//! [`reads`] sends the reads (bounded in count, bytes and time) and keeps what came back;
//! [`report`] judges them into the [`Report`]; this module holds what a probe does before and
//! around them (reachability, the scheme, the TLS handshake, the key).

use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;

use crate::error::Error;
use crate::transport::{Target, Transport};
use reads::read;
use report::finish;

pub mod reads;
pub mod report;

pub use reads::{layer_objects, read_everything, root_playlist, Exchange, Reads};
pub use report::{EndpointResult, Report, TlsInfo};

/// Which application a URL is expected to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    Media,
    Scoreboard,
}

/// The most reads one `probe` or `record` sends (a real installation needs 11 per layer, one
/// per playlist and one per cue: a few hundred). A server claiming 10,000 layers gets this
/// many, and the result says where it stopped.
pub const MAX_READS: usize = 5_000;
/// The most answer bytes one `probe` or `record` holds (each read is also refused past what is
/// left of it, and past its endpoint's own reply cap).
pub const MAX_HELD: usize = 64 * 1024 * 1024;
/// Reads in flight at once (a server that stalls costs one timeout per this many reads).
pub const CONCURRENT_READS: usize = 6;
/// The longest one `probe` or `record` reads; what is not answered by then is not waited for.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// What a bare TLS handshake with the port found.
enum Handshake {
    /// The certificate the port presented.
    Cert(Vec<u8>),
    /// The port answered the hello with something that is not TLS: it speaks plain HTTP.
    PlainHttp,
    /// No handshake (no connection, a timeout, a refusal).
    Failed,
}

/// A TLS handshake with the port (no HTTP is sent): the certificate it presents, or why there
/// is none.
async fn tls_handshake(host: &str, port: u16, timeout: Duration) -> Handshake {
    let Ok((config, captured)) = crate::tls::capture_config() else {
        return Handshake::Failed;
    };
    let Ok(name) = ServerName::try_from(host.to_string()) else {
        return Handshake::Failed;
    };
    let connector = tokio_rustls::TlsConnector::from(config);
    let handshake = async {
        let tcp = tokio::net::TcpStream::connect((host, port)).await?;
        connector.connect(name, tcp).await
    };
    match tokio::time::timeout(timeout, handshake).await {
        Ok(Ok(stream)) => {
            drop(stream);
            let cert = captured.lock().unwrap_or_else(|p| p.into_inner()).take();
            cert.map_or(Handshake::Failed, |c| Handshake::Cert(c.to_vec()))
        }
        Ok(Err(e)) if crate::error::cause(&e) == crate::error::Cause::PlainHttp => {
            Handshake::PlainHttp
        }
        _ => Handshake::Failed,
    }
}

/// Check an installation with the client's own options: reachability, what the port speaks,
/// its certificate, the key, every documented read and what showctl makes of each answer.
/// Read-only: it sends GET requests only, each once. Fails only on a closed client.
pub async fn probe(transport: &Transport, app: App) -> Result<Report, Error> {
    if transport.is_closed() {
        return Err(Error::Closed);
    }
    Ok(examine(transport, app).await)
}

async fn examine(transport: &Transport, app: App) -> Report {
    let base = transport.base_url().to_string();
    let mut report = Report {
        url: base.clone(),
        app: match app {
            App::Media => "media",
            App::Scoreboard => "scoreboard",
        }
        .into(),
        reachable: false,
        rtt: None,
        scheme: "neither".into(),
        doc_port: false,
        tls: None,
        auth: "unknown".into(),
        endpoints: Vec::new(),
        layers: None,
        playlists: None,
        cues: None,
        slowest: None,
        ok: false,
        problems: Vec::new(),
        limits: Vec::new(),
    };
    let parsed = match url::Url::parse(&base) {
        Ok(u) => u,
        Err(e) => {
            report
                .problems
                .push(format!("the URL {base} cannot be read: {e}"));
            return report;
        }
    };
    let https = parsed.scheme() == "https";
    let host = parsed
        .host_str()
        .unwrap_or("")
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = parsed.port_or_known_default().unwrap_or(80);
    let timeout = transport.timeout();

    // Reachability: a bare TCP connection.
    let started = Instant::now();
    match tokio::time::timeout(
        timeout,
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    {
        Ok(Ok(stream)) => {
            report.rtt = Some(started.elapsed().as_secs_f64());
            report.reachable = true;
            drop(stream);
        }
        Ok(Err(e)) => {
            report.problems.push(format!(
                "cannot connect to {host}:{port}: {e} (is the application running, with its API \
                 enabled, on this port?)"
            ));
            return report;
        }
        Err(_) => {
            report.problems.push(format!(
                "no answer from {host}:{port} within {:.1}s (a firewall, or the wrong address?)",
                timeout.as_secs_f64()
            ));
            return report;
        }
    }

    // What the port speaks, and its certificate.
    let handshake = if https {
        tls_handshake(&host, port, timeout).await
    } else {
        Handshake::Failed
    };
    if let Handshake::Cert(der) = &handshake {
        report.scheme = "https".into();
        report.tls = TlsInfo::of(der);
    }

    // The first read decides the authentication (and, for http://, whether the port speaks
    // HTTP at all).
    let Reads {
        mut exchanges,
        limits,
    } = read_everything(transport, app).await;
    report.limits = limits;
    let first = exchanges.first().cloned();
    let Some(first) = first else {
        report.problems.push("no read could be built".into());
        return report;
    };
    if first.status.is_some() {
        report.scheme = parsed.scheme().to_string();
    } else if https && matches!(handshake, Handshake::PlainHttp) {
        // One problem, the fix: the reads failed for the same reason (see `finish`).
        report.scheme = "http".into();
        report
            .problems
            .push(crate::transport::errors::plain_http_hint(&base));
    } else if https && !matches!(handshake, Handshake::Cert(_)) {
        report.problems.push(format!(
            "the port does not speak HTTPS: use http://{}:{port}",
            parsed.host_str().unwrap_or("")
        ));
    } else if !https {
        if let Handshake::Cert(der) = tls_handshake(&host, port, timeout).await {
            report.scheme = "https".into();
            report.tls = TlsInfo::of(&der);
            report.problems.push(format!(
                "the port speaks HTTPS: use https://{}:{port}",
                parsed.host_str().unwrap_or("")
            ));
            return finish(report, exchanges);
        }
    }
    if first.status.is_none() {
        return finish(report, exchanges);
    }

    // The key.
    report.auth = match (first.status, transport.target().has_key()) {
        (Some(401), true) => "wrong",
        (Some(401), false) => "required_missing",
        (Some(200), false) => "not_needed",
        (Some(200), true) => {
            let bare = Target::new(&base, None).and_then(|t| transport.with_target(t));
            match bare {
                Ok(bare) => match read(&bare, first.request.clone(), None, None).await.status {
                    Some(401) => "accepted",
                    Some(200) => "not_needed",
                    _ => "unknown",
                },
                Err(_) => "unknown",
            }
        }
        _ => "unknown",
    }
    .into();
    match report.auth.as_str() {
        "wrong" => report.problems.push(
            "the API key is refused (401): check the key in the application's preferences".into(),
        ),
        "required_missing" => report.problems.push(
            "the application requires an API key (401): pass api_key= or set SHOWCTL_API_KEY"
                .into(),
        ),
        _ => {}
    }
    if report.auth == "wrong" || report.auth == "required_missing" {
        exchanges.truncate(1);
    }
    finish(report, exchanges)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::test_server::{self, Reply};
    use crate::transport::Config;

    #[tokio::test]
    async fn a_port_answering_404_everywhere_is_the_documentation_port() {
        let server = test_server::start(vec![Reply::Status(404, "")]).await;
        let transport = Transport::new(&Config::new(server.url.clone())).unwrap();
        let report = probe(&transport, App::Media).await.unwrap();
        assert!(report.doc_port && !report.ok, "{report:?}");
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(server.seen().iter().all(|s| s.method == "GET"));
    }
}
