//! Who may talk to a listener that changes state (the simulator), checked on every request
//! before anything else, as Jupyter, Vite and webpack-dev-server check theirs:
//!
//! - **`Host`** (DNS rebinding: a page whose name is made to resolve to 127.0.0.1 reads and
//!   commands as if it were the same origin). On a listener bound to a loopback address, only
//!   loopback names are accepted: `localhost` (and `*.localhost`), `127.x.y.z`, `[::1]`, with or
//!   without a port. On any other listener: any IP address (a rebinding page has a name, never
//!   an address), `localhost`, the name it was told to listen on, and this machine's host
//!   name. An HTTP/1.0 request without `Host` is no browser's and passes (the simulator answers
//!   an HTTP/1.1 request without `Host`, or with two, 400 before this check).
//! - **`Origin` and `Sec-Fetch-Site`** on a request that changes state (any method but `GET`,
//!   `HEAD` and `OPTIONS`): a web page on another origin can send one without reading the answer
//!   (`fetch(url, {method: "POST", mode: "no-cors"})`). Refused when `Sec-Fetch-Site` says
//!   `cross-site`, or when `Origin` is present and is not this listener's own origin (its host
//!   and port are not those of `Host`; `Origin: null` included). showctl's own client, `curl`
//!   and scripts send neither header.
//!
//! A refusal is a 403 whose text says what was refused and why.

use std::net::{IpAddr, SocketAddr};

use axum::http::{header, HeaderMap, Method};

/// The names a listener answers to (see the module documentation).
#[derive(Debug, Clone)]
pub struct Guard {
    /// Bound to a loopback address: only loopback names.
    loopback: bool,
    /// Besides IP addresses and `localhost`, the names accepted (lower case, no trailing dot).
    names: Vec<String>,
}

/// `name` in lower case without a trailing dot (`LOCALHOST.` is `localhost`).
fn plain(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// The host of an authority (`name`, `name:port`, `1.2.3.4:port`, `[::1]:port`) and its port.
fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let authority = authority.trim();
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?.parse().ok()?),
        };
        return Some((host.to_ascii_lowercase(), port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => Some((plain(host), Some(port.parse().ok()?))),
        Some(_) => None, // an IPv6 address without brackets is no authority
        None => Some((plain(authority), None)),
    }
}

fn is_localhost(host: &str) -> bool {
    host == "localhost" || host.ends_with(".localhost")
}

/// This machine's host name (lower case), if it has one.
fn machine_name() -> Option<String> {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
        if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            let name = String::from_utf8_lossy(&buf[..end]).into_owned();
            if !name.is_empty() {
                return Some(plain(&name));
            }
        }
    }
    None
}

impl Guard {
    /// The guard of a listener told to listen on `host` and bound to `addr`.
    pub fn new(host: &str, addr: SocketAddr) -> Guard {
        let loopback = addr.ip().is_loopback();
        let mut names = Vec::new();
        if !loopback {
            let host = plain(host.trim_start_matches('[').trim_end_matches(']'));
            if host.parse::<IpAddr>().is_err() {
                names.push(host);
            }
            names.extend(machine_name());
        }
        Guard { loopback, names }
    }

    /// Whether `host` (without its port) names this listener.
    fn host_allowed(&self, host: &str) -> bool {
        match host.parse::<IpAddr>() {
            Ok(ip) => !self.loopback || ip.is_loopback(),
            Err(_) => is_localhost(host) || self.names.iter().any(|n| n == host),
        }
    }

    /// `Ok` when the request may be served; else the text of its 403.
    pub fn check(&self, method: &Method, headers: &HeaderMap) -> Result<(), String> {
        let host = match headers.get(header::HOST) {
            None => None,
            Some(value) => {
                let text = value.to_str().unwrap_or_default();
                match split_authority(text).filter(|(h, _)| self.host_allowed(h)) {
                    Some(split) => Some(split),
                    None => {
                        let accepted = if self.loopback {
                            "localhost, 127.0.0.1 or [::1]".to_string()
                        } else {
                            let mut n = vec!["an IP address".to_string(), "localhost".into()];
                            n.extend(self.names.iter().cloned());
                            n.join(", ")
                        };
                        return Err(format!(
                            "refused: Host {text:?} is not a name of this server (a page on \
                             another site whose name was made to point here?); reach it as \
                             {accepted}"
                        ));
                    }
                }
            }
        };
        if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
            return Ok(());
        }
        let fetch_site = headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .map(str::trim);
        if fetch_site.is_some_and(|s| s.eq_ignore_ascii_case("cross-site")) {
            return Err(format!(
                "refused: {method} from a web page on another site (Sec-Fetch-Site: cross-site); \
                 commands are taken from programs, not from pages in a browser"
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let text = String::from_utf8_lossy(origin.as_bytes());
            if !same_origin(&text, host.as_ref()) {
                return Err(format!(
                    "refused: {method} from a web page of another origin (Origin: {text}); \
                     commands are taken from programs, not from pages in a browser"
                ));
            }
        }
        Ok(())
    }
}

/// Whether `origin` (`http://authority`: the listener speaks plain HTTP) is the origin `host`
/// names (same host and port; a missing port is 80).
fn same_origin(origin: &str, host: Option<&(String, Option<u16>)>) -> bool {
    let Some((host, port)) = host else {
        return false;
    };
    let Some((scheme, authority)) = origin.trim().split_once("://") else {
        return false; // `null` (a sandboxed page, a file) included
    };
    if !scheme.eq_ignore_ascii_case("http") {
        return false;
    }
    let Some((o_host, o_port)) = split_authority(authority) else {
        return false;
    };
    o_host == *host && o_port.unwrap_or(80) == port.unwrap_or(80)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn a_loopback_listener_answers_to_loopback_names_only() {
        let g = Guard::new("127.0.0.1", "127.0.0.1:8080".parse().unwrap());
        for ok in [
            "localhost",
            "localhost:8080",
            "LOCALHOST.:8080",
            "app.localhost:8080",
            "127.0.0.1",
            "127.0.0.1:8080",
            "127.1.2.3:9",
            "[::1]",
            "[::1]:8080",
        ] {
            assert!(
                g.check(&Method::POST, &headers(&[("host", ok)])).is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "rebind.attacker.example",
            "rebind.attacker.example:8080",
            "localhost.attacker.example",
            "0.0.0.0:8080",
            "10.0.0.1:8080",
            "[::2]:8080",
            "::1",
            "",
        ] {
            let e = g
                .check(&Method::GET, &headers(&[("host", bad)]))
                .unwrap_err();
            assert!(e.contains("is not a name of this server"), "{bad}: {e}");
        }
        assert!(g.check(&Method::GET, &HeaderMap::new()).is_ok());
    }

    #[test]
    fn another_listener_answers_to_addresses_and_its_names() {
        let g = Guard::new("sim.example", "10.1.2.3:80".parse().unwrap());
        for ok in [
            "10.1.2.3",
            "192.168.1.9:80",
            "[fe80::1]:80",
            "sim.example",
            "localhost",
        ] {
            assert!(
                g.check(&Method::GET, &headers(&[("host", ok)])).is_ok(),
                "{ok}"
            );
        }
        let e = g
            .check(
                &Method::GET,
                &headers(&[("host", "rebind.attacker.example")]),
            )
            .unwrap_err();
        assert!(e.contains("sim.example"), "{e}");
    }

    #[test]
    fn a_state_change_from_another_origin_is_refused() {
        let g = Guard::new("127.0.0.1", "127.0.0.1:8080".parse().unwrap());
        let host = ("host", "127.0.0.1:8080");
        let post = |extra: &[(&'static str, &str)]| {
            let mut h = vec![host];
            h.extend_from_slice(extra);
            g.check(&Method::POST, &headers(&h))
        };
        assert!(post(&[]).is_ok());
        assert!(post(&[("origin", "http://127.0.0.1:8080")]).is_ok());
        assert!(post(&[("sec-fetch-site", "same-origin")]).is_ok());
        for origin in [
            "http://evil.example",
            "http://127.0.0.1:3000",
            "http://localhost:8080",
            "https://127.0.0.1:8080",
            "null",
        ] {
            let e = post(&[("origin", origin)]).unwrap_err();
            assert!(e.contains("another origin") && e.contains(origin), "{e}");
        }
        let e = post(&[("sec-fetch-site", "cross-site")]).unwrap_err();
        assert!(e.contains("cross-site"), "{e}");
        // Reads are not state changes: a page could not read their answers anyway.
        let get = headers(&[host, ("origin", "http://evil.example")]);
        assert!(g.check(&Method::GET, &get).is_ok());
        // Default ports.
        let g80 = Guard::new("127.0.0.1", "127.0.0.1:80".parse().unwrap());
        let h = headers(&[("host", "127.0.0.1"), ("origin", "http://127.0.0.1:80")]);
        assert!(g80.check(&Method::PUT, &h).is_ok());
    }
}
