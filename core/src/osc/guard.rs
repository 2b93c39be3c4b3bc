//! What the bridge checks before it reads a message: the sender is allowed ([`Allow`]), under
//! its rate ([`Rate`]), and gives the passcode ([`Passcode`]).

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Instant;

use ipnet::IpNet;
use subtle::ConstantTimeEq;

use crate::error::{Error, Result};

/// The senders allowed: addresses and networks. Without any given, this machine only.
#[derive(Debug, Clone)]
pub struct Allow {
    nets: Vec<IpNet>,
}

impl Allow {
    /// `given`: addresses (`192.168.1.20`) or networks (`192.168.1.0/24`); `None` or empty:
    /// loopback only.
    pub fn parse(given: Option<&[String]>) -> Result<Self> {
        let given = given.unwrap_or_default();
        if given.is_empty() {
            return Ok(Allow {
                nets: vec![
                    "127.0.0.0/8".parse().expect("a network"),
                    "::1/128".parse().expect("a network"),
                ],
            });
        }
        let mut nets = Vec::with_capacity(given.len());
        for (i, text) in given.iter().enumerate() {
            let text = text.trim();
            let net = match text.parse::<IpNet>() {
                Ok(net) => net.trunc(),
                Err(_) => match text.parse::<IpAddr>() {
                    Ok(ip) => IpNet::from(ip),
                    Err(_) => {
                        return Err(Error::invalid(format!(
                            "allow[{i}]: {text:?} is not an IP address or a network \
                             (192.168.1.20, 192.168.1.0/24, ::1)"
                        )))
                    }
                },
            };
            nets.push(net);
        }
        Ok(Allow { nets })
    }

    pub fn allows(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.nets.iter().any(|n| n.contains(&ip))
    }

    /// The networks, as text (for the listening line and `repr`).
    pub fn describe(&self) -> Vec<String> {
        self.nets.iter().map(ToString::to_string).collect()
    }
}

/// The passcode a message must carry as its first argument; compared in constant time, never
/// shown.
#[derive(Clone)]
pub struct Passcode(Vec<u8>);

impl std::fmt::Debug for Passcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Passcode(***)")
    }
}

impl Passcode {
    pub fn new(text: String) -> Result<Self> {
        if text.is_empty() {
            return Err(Error::invalid(
                "passcode: must not be empty (None: no passcode)",
            ));
        }
        if text.len() > 256 {
            return Err(Error::invalid("passcode: at most 256 bytes"));
        }
        Ok(Passcode(text.into_bytes()))
    }

    pub fn matches(&self, given: &str) -> bool {
        // The length is not secret; the bytes are compared in constant time.
        given.len() == self.0.len() && bool::from(given.as_bytes().ct_eq(&self.0))
    }
}

/// Messages per second per sender: a token bucket per address, as full as one second's
/// messages at most (so a burst of that many passes, and then the rate).
#[derive(Debug)]
pub struct Rate {
    per_second: f64,
    buckets: HashMap<IpAddr, (f64, Instant)>,
}

/// Senders tracked at most; when full, buckets full again (idle for a second) are forgotten
/// first, then any.
const SENDERS: usize = 4096;

impl Rate {
    pub fn new(per_second: f64) -> Result<Self> {
        if !(per_second.is_finite() && (1.0..=100_000.0).contains(&per_second)) {
            return Err(Error::invalid(format!(
                "rate: messages per second per sender, 1 to 100000, got {per_second}"
            )));
        }
        Ok(Rate {
            per_second,
            buckets: HashMap::new(),
        })
    }

    /// Whether a message from `ip` at `now` is within the rate (it is then counted).
    pub fn admit(&mut self, ip: IpAddr, now: Instant) -> bool {
        if self.buckets.len() >= SENDERS && !self.buckets.contains_key(&ip) {
            let per = self.per_second;
            self.buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * per < per
            });
            if self.buckets.len() >= SENDERS {
                self.buckets.clear();
            }
        }
        let (tokens, at) = self.buckets.entry(ip).or_insert((self.per_second, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second)
            .min(self.per_second);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn allow_takes_addresses_and_networks_and_defaults_to_this_machine() {
        let none = Allow::parse(None).unwrap();
        assert!(none.allows("127.0.0.1".parse().unwrap()));
        assert!(none.allows("::1".parse().unwrap()));
        assert!(!none.allows("192.168.1.20".parse().unwrap()));
        let given = ["192.168.1.0/24".to_string(), "10.0.0.5".to_string()];
        let a = Allow::parse(Some(&given)).unwrap();
        assert!(a.allows("192.168.1.77".parse().unwrap()));
        assert!(a.allows("::ffff:192.168.1.77".parse().unwrap()));
        assert!(a.allows("10.0.0.5".parse().unwrap()));
        assert!(!a.allows("10.0.0.6".parse().unwrap()));
        assert!(!a.allows("127.0.0.1".parse().unwrap()));
        let e = Allow::parse(Some(&["10.0.0.0/33".to_string()])).unwrap_err();
        assert!(
            e.to_string().starts_with("allow[0]: \"10.0.0.0/33\""),
            "{e}"
        );
    }

    #[test]
    fn the_passcode_matches_only_itself_and_never_shows() {
        let p = Passcode::new("s3cret".into()).unwrap();
        assert!(p.matches("s3cret"));
        assert!(!p.matches("s3cre"));
        assert!(!p.matches("s3creT"));
        assert!(!format!("{p:?}").contains("s3cret"));
        assert!(Passcode::new(String::new()).is_err());
    }

    #[test]
    fn the_rate_lets_a_seconds_burst_through_then_the_rate() {
        let mut r = Rate::new(10.0).unwrap();
        let (ip, t0) = ("127.0.0.1".parse().unwrap(), Instant::now());
        let passed = (0..15).filter(|_| r.admit(ip, t0)).count();
        assert_eq!(passed, 10);
        // A tenth of a second later, one more.
        assert!(r.admit(ip, t0 + Duration::from_millis(100)));
        assert!(!r.admit(ip, t0 + Duration::from_millis(100)));
        // Another sender has its own bucket.
        assert!(r.admit("127.0.0.2".parse().unwrap(), t0));
        assert!(Rate::new(0.0).is_err());
    }
}
