//! TLS: the rustls configuration of a client, built once per client (and shared by every
//! connection pool it keeps), with one certificate verifier that implements the three ways to
//! trust an application:
//!
//! - the system's trust store (the default);
//! - `ca_cert`: the certificates of a PEM file, as curl (OpenSSL) takes them: only a CA
//!   (basicConstraints `CA:TRUE`, or a self-signed version 1 certificate) signs, and only while
//!   it is within its dates (webpki does not check a trust anchor's dates: [`CaFile`] adds it);
//!   any certificate of the file presented byte for byte as the server's own is accepted as
//!   itself (the application's self-signed certificate, `CA:TRUE` or not, which webpki would
//!   refuse as `CaUsedAsEndEntity`), its own dates and names still checked;
//! - `tls_fingerprint`: a pin, the SHA-256 of the server's certificate, whatever its expiry,
//!   issuer, name or CA flag.
//!
//! Under every option but `verify=False` the handshake signatures are verified with the
//! certificate's key, so a pin proves the server holds the private key of the pinned
//! certificate. A refusal says in words why (expired, wrong host, not signed by the given CA)
//! and which option would connect.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};

use crate::error::{Error, Result};

mod anchors;
use anchors::{CaFile, FileRefusal};

/// Environment variable with the pin used when `tls_fingerprint` is not given.
pub const ENV_TLS_FINGERPRINT: &str = "SHOWCTL_TLS_FINGERPRINT";

/// The pin from `tls_fingerprint` (`given`), else from [`ENV_TLS_FINGERPRINT`] (which
/// plain-HTTP URLs ignore: a pin given for an `http://` URL is refused, since nothing would be
/// checked).
pub fn resolve_pin(given: Option<String>, url: &str) -> Result<Option<Fingerprint>> {
    let https = url
        .trim_start()
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
    match given {
        Some(text) => {
            let pin = Fingerprint::parse(&text)?;
            if !https {
                return Err(Error::invalid(format!(
                    "tls_fingerprint: {url:?} is not an https:// URL, so no certificate would be \
                     checked; use the application's https:// URL"
                )));
            }
            Ok(Some(pin))
        }
        None => match std::env::var(ENV_TLS_FINGERPRINT) {
            Ok(text) if !text.trim().is_empty() && https => Fingerprint::parse(&text)
                .map(Some)
                .map_err(|e| Error::invalid(format!("{e} (from {ENV_TLS_FINGERPRINT})"))),
            _ => Ok(None),
        },
    }
}

/// The SHA-256 fingerprint of a certificate (of its DER bytes), as pinned with
/// `tls_fingerprint="sha256:<hex>"`. Not a secret: any client sees it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of a DER-encoded certificate.
    pub fn of(der: &[u8]) -> Self {
        let digest = ring::digest::digest(&ring::digest::SHA256, der);
        let mut out = [0u8; 32];
        out.copy_from_slice(digest.as_ref());
        Fingerprint(out)
    }

    /// Parse `sha256:<64 hex digits>`: colons between the bytes, either case, and the prefix
    /// `sha256:` itself (or `SHA-256:`) are optional, as certificate viewers print them.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::invalid(format!(
                "tls_fingerprint: {why}; expected \"sha256:\" and the 64 hex digits of the \
                 certificate's SHA-256 (colons allowed), as `showctl probe URL` prints it"
            ))
        };
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        let hex = ["sha256:", "sha-256:", "sha256 ", "sha-256 "]
            .iter()
            .find_map(|p| lower.strip_prefix(p))
            .unwrap_or(&lower);
        if let Some((algo, _)) = hex.split_once(':').filter(|(a, _)| a.len() > 2) {
            return Err(bad(&format!("{algo:?} is not supported (only sha256)")));
        }
        let digits: String = hex.chars().filter(|c| *c != ':').collect();
        if digits.is_empty() {
            return Err(bad("empty"));
        }
        if let Some(c) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
            return Err(bad(&format!("{c:?} is not a hex digit")));
        }
        if digits.len() != 64 {
            return Err(bad(&format!("{} hex digits, not 64", digits.len())));
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte =
                u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).map_err(|_| bad("not hex"))?;
        }
        Ok(Fingerprint(out))
    }
}

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("sha256:")?;
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

/// How a client trusts the application's certificate.
#[derive(Clone, Debug, PartialEq)]
pub struct TlsOptions {
    pub verify: bool,
    pub ca_cert: Option<PathBuf>,
    pub pin: Option<Fingerprint>,
}

impl Default for TlsOptions {
    fn default() -> Self {
        TlsOptions {
            verify: true,
            ca_cert: None,
            pin: None,
        }
    }
}

impl TlsOptions {
    /// Refuse options that contradict each other (before anything is sent).
    pub fn check(&self) -> Result<()> {
        if self.pin.is_some() && !self.verify {
            return Err(Error::invalid(
                "tls_fingerprint: cannot be combined with verify=False (the pin accepts the \
                 application's own certificate, and only it); drop verify=False",
            ));
        }
        if self.pin.is_some() && self.ca_cert.is_some() {
            return Err(Error::invalid(
                "tls_fingerprint: cannot be combined with ca_cert (the pin alone decides which \
                 certificate is accepted); pass one of them",
            ));
        }
        Ok(())
    }
}

fn provider() -> Arc<CryptoProvider> {
    CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

/// The certificates of a PEM file given as `ca_cert`.
fn read_pem(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    use rustls::pki_types::pem::PemObject;
    let text = std::fs::read(path)
        .map_err(|e| Error::invalid(format!("ca_cert: cannot read {}: {e}", path.display())))?;
    let certs = CertificateDer::pem_slice_iter(&text)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| {
            Error::invalid(format!(
                "ca_cert: {} is not a PEM certificate: {e:?}",
                path.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(Error::invalid(format!(
            "ca_cert: {} holds no certificate",
            path.display()
        )));
    }
    Ok(certs)
}

/// The rustls client configuration for `options` (ALPN `http/1.1`: the one protocol the
/// transport speaks).
pub fn client_config(options: &TlsOptions) -> Result<Arc<rustls::ClientConfig>> {
    options.check()?;
    let provider = provider();
    let algs = provider.signature_verification_algorithms;
    let check = if let Some(pin) = options.pin {
        Check::Pin(pin)
    } else if !options.verify {
        Check::Anything
    } else if let Some(path) = &options.ca_cert {
        Check::File(CaFile::new(
            path.clone(),
            read_pem(path)?,
            provider.clone(),
        )?)
    } else {
        let inner = rustls_platform_verifier::Verifier::new(provider.clone()).map_err(|e| {
            Error::Internal(format!(
                "cannot load the system's trusted certificates: {e}"
            ))
        })?;
        Check::System(Arc::new(inner))
    };
    config_with(provider, Verifier { check, algs })
}

/// The certificate a server presented, as kept by [`capture_config`].
pub type Captured = Arc<std::sync::Mutex<Option<CertificateDer<'static>>>>;

/// A configuration that accepts any certificate and keeps it (for `probe`, which reports the
/// certificate and judges it with the client's own options separately). The handshake
/// signatures are still verified.
pub fn capture_config() -> Result<(Arc<rustls::ClientConfig>, Captured)> {
    let provider = provider();
    let captured = Captured::default();
    let verifier = Verifier {
        check: Check::Capture(captured.clone()),
        algs: provider.signature_verification_algorithms,
    };
    Ok((config_with(provider, verifier)?, captured))
}

fn config_with(
    provider: Arc<CryptoProvider>,
    verifier: Verifier,
) -> Result<Arc<rustls::ClientConfig>> {
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Internal(format!("TLS versions: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[derive(Debug)]
enum Check {
    /// `tls_fingerprint`: the certificate's SHA-256 must match.
    Pin(Fingerprint),
    /// `verify=False`.
    Anything,
    /// Accept and keep the certificate (probe).
    Capture(Captured),
    /// The system's store.
    System(Arc<dyn ServerCertVerifier>),
    /// `ca_cert`: the file's CAs, and its certificates accepted as the server's own when
    /// presented byte for byte.
    File(CaFile),
}

#[derive(Debug)]
struct Verifier {
    check: Check,
    algs: WebPkiSupportedAlgorithms,
}

/// A refusal in words, shown as `invalid peer certificate: <message>`.
#[derive(Debug)]
struct Refusal(String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// The verifier's refusal in an error's cause chain, in words (`None` for any other error).
pub fn refusal(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cur = Some(err);
    while let Some(e) = cur {
        if let Some(rustls::Error::InvalidCertificate(CertificateError::Other(other))) =
            e.downcast_ref::<rustls::Error>()
        {
            if let Some(r) = other.0.downcast_ref::<Refusal>() {
                return Some(r.0.clone());
            }
        }
        // An I/O error's `source()` skips the error it wraps.
        cur = match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => e.source(),
        };
    }
    None
}

fn refuse(message: String) -> rustls::Error {
    rustls::Error::InvalidCertificate(CertificateError::Other(rustls::OtherError(Arc::new(
        Refusal(message),
    ))))
}

/// A time as RFC 3339 (UTC), for messages and reports.
pub fn rfc3339(unix_seconds: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix_seconds)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| format!("{unix_seconds} (unix time)"))
}

/// The DNS names and IP addresses a certificate is issued for.
pub fn names(der: &[u8]) -> Vec<String> {
    use x509_parser::extensions::GeneralName;
    let Ok((_, cert)) = x509_parser::parse_x509_certificate(der) else {
        return Vec::new();
    };
    let Ok(Some(san)) = cert.subject_alternative_name() else {
        return Vec::new();
    };
    san.value
        .general_names
        .iter()
        .filter_map(|n| match n {
            GeneralName::DNSName(d) => Some(d.to_string()),
            GeneralName::IPAddress(ip) => match <[u8; 4]>::try_from(*ip) {
                Ok(v4) => Some(std::net::Ipv4Addr::from(v4).to_string()),
                Err(_) => <[u8; 16]>::try_from(*ip)
                    .ok()
                    .map(|v6| std::net::Ipv6Addr::from(v6).to_string()),
            },
            _ => None,
        })
        .collect()
}

/// `(not_before, not_after)` of a certificate, in unix seconds.
fn validity(der: &[u8]) -> Option<(i64, i64)> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
    let v = cert.validity();
    Some((v.not_before.timestamp(), v.not_after.timestamp()))
}

impl Verifier {
    /// Accept a certificate of the `ca_cert` file presented as the server's own: its validity
    /// period and its names are still checked, as OpenSSL does.
    fn own(
        &self,
        der: &CertificateDer<'_>,
        name: &ServerName<'_>,
        now: UnixTime,
    ) -> std::result::Result<(), rustls::Error> {
        let now = now.as_secs() as i64;
        match validity(der) {
            Some((_, after)) if now > after => {
                return Err(rustls::Error::InvalidCertificate(CertificateError::Expired))
            }
            Some((before, _)) if now < before => {
                return Err(rustls::Error::InvalidCertificate(
                    CertificateError::NotValidYet,
                ))
            }
            Some(_) => {}
            None => {
                return Err(rustls::Error::InvalidCertificate(
                    CertificateError::BadEncoding,
                ))
            }
        }
        let parsed = rustls::server::ParsedCertificate::try_from(der)?;
        rustls::client::verify_server_name(&parsed, name)
    }

    /// Say why a certificate is refused, and which option would connect.
    fn explain(
        &self,
        err: FileRefusal,
        der: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        name: &ServerName<'_>,
    ) -> rustls::Error {
        let ca_cert = match &self.check {
            Check::File(file) => Some(file.path.as_path()),
            _ => None,
        };
        let fp = Fingerprint::of(der);
        let pin = format!("tls_fingerprint=\"{fp}\"");
        let err = match err {
            FileRefusal::Words(why) => {
                return refuse(format!(
                    "{why}; pass ca_cert= the file of a CA within its dates that signed it (or \
                     of the application's own certificate), or pin it with {pin}, or pass \
                     verify=False"
                ))
            }
            FileRefusal::Error(e) => e,
        };
        let host = name.to_str();
        let chain = anchors::chain(der.as_ref(), intermediates);
        let (before, after) = validity(der).unwrap_or((0, 0));
        let rustls::Error::InvalidCertificate(cause) = &err else {
            return err;
        };
        // The intermediate certificate a date of the refusal belongs to (webpki names the
        // date, not the certificate), when it is not the server's own date.
        let dated = |date: &UnixTime, of: fn(&anchors::About) -> i64| {
            let date = date.as_secs() as i64;
            let own = chain.first().map(of);
            chain
                .iter()
                .skip(1)
                .find(|c| of(c) == date && own != Some(date))
        };
        let late = match cause {
            CertificateError::ExpiredContext { not_after, .. } => {
                dated(not_after, |c| c.not_after).map(|c| (c, true))
            }
            CertificateError::NotValidYetContext { not_before, .. } => {
                dated(not_before, |c| c.not_before).map(|c| (c, false))
            }
            _ => None,
        };
        let message = match (cause, late) {
            (_, Some((c, true))) => {
                format!(
                    "the intermediate certificate \"{}\" the server sent with its own expired on \
                     {} (the server's own certificate is valid until {}); the server must send \
                     a current chain, or pin its certificate with {pin}, or pass verify=False",
                    c.subject,
                    rfc3339(c.not_after),
                    rfc3339(after)
                )
            }
            (_, Some((c, false))) => {
                format!(
                    "the intermediate certificate \"{}\" the server sent with its own is not \
                     valid before {} (check the clocks of this machine and the application's); \
                     to connect anyway, pin its certificate with {pin} or pass verify=False",
                    c.subject,
                    rfc3339(c.not_before)
                )
            }
            (CertificateError::Expired | CertificateError::ExpiredContext { .. }, None) => format!(
                "the certificate expired on {}; if it is the application's own certificate, \
                 pin it with {pin} (check the fingerprint on the machine or with `showctl \
                 probe`), or pass verify=False",
                rfc3339(after)
            ),
            (CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. }, None) => {
                format!(
                    "the certificate is not valid before {} (check the clocks of this machine \
                     and the application's); to connect anyway, pin it with {pin} or pass \
                     verify=False",
                    rfc3339(before)
                )
            }
            (
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
                None,
            ) => {
                let names = match names(der.as_ref()) {
                    n if n.is_empty() => String::new(),
                    n => format!(" (it names {})", n.join(", ")),
                };
                format!(
                    "the certificate is not issued for host {host}{names}; connect with a name it \
                     holds, or pin it with {pin}, or pass verify=False"
                )
            }
            // webpki found a certificate that is not a CA signing another in the chain.
            (CertificateError::Other(o), None)
                if format!("{o:?}").contains("EndEntityUsedAsCa") =>
            {
                let signer = anchors::signer_not_ca(&chain)
                    .map_or("a certificate the server sent".to_string(), |c| {
                        format!("\"{}\", sent by the server with its own,", c.subject)
                    });
                format!(
                    "the certificate is signed by {signer} which is not a CA (its \
                     basicConstraints do not say CA:TRUE), and a certificate that is not a CA \
                     signs nothing; pin the server's certificate with {pin}, or pass \
                     verify=False"
                )
            }
            // A self-signed CA:TRUE certificate that is not in the store: webpki refuses it as
            // a CA used as an end entity before it looks for its issuer.
            (CertificateError::Other(o), None)
                if !format!("{o:?}").contains("CaUsedAsEndEntity") =>
            {
                return err
            }
            (CertificateError::UnknownIssuer | CertificateError::Other(_), None) => match ca_cert {
                Some(path) => format!(
                    "the certificate is not signed by the CA given as ca_cert={}; pass \
                     ca_cert= the file of the CA that signed it (or of the application's own \
                     certificate), or pin it with {pin}, or pass verify=False",
                    path.display()
                ),
                None => format!(
                    "the certificate is not signed by a CA this system trusts (the \
                     application's certificate is usually self-signed); pass ca_cert=PATH \
                     (the CA's certificate, or the application's own), or pin it with {pin}, \
                     or pass verify=False"
                ),
            },
            _ => return err,
        };
        refuse(message)
    }
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match &self.check {
            Check::Pin(pin) => {
                let presented = Fingerprint::of(end_entity);
                if presented == *pin {
                    Ok(ServerCertVerified::assertion())
                } else {
                    Err(refuse(format!(
                        "the server presented the certificate {presented}, not the pinned one \
                         (tls_fingerprint=\"{pin}\"); if the application's certificate was \
                         renewed on purpose (check it on the machine, or with `showctl \
                         probe`), pin the new one: tls_fingerprint=\"{presented}\""
                    )))
                }
            }
            Check::Anything => Ok(ServerCertVerified::assertion()),
            Check::Capture(slot) => {
                *slot.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(end_entity.clone().into_owned());
                Ok(ServerCertVerified::assertion())
            }
            Check::System(inner) => inner
                .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
                .map_err(|e| self.explain(e.into(), end_entity, intermediates, server_name)),
            Check::File(file) => {
                let result = if file.own(end_entity.as_ref()) {
                    self.own(end_entity, server_name, now).map_err(Into::into)
                } else {
                    file.verify(end_entity, intermediates, server_name, now, &self.algs)
                };
                result
                    .map(|()| ServerCertVerified::assertion())
                    .map_err(|e| self.explain(e, end_entity, intermediates, server_name))
            }
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        if matches!(self.check, Check::Anything) {
            return Ok(HandshakeSignatureValid::assertion());
        }
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        if matches!(self.check, Check::Anything) {
            return Ok(HandshakeSignatureValid::assertion());
        }
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algs)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algs.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_pin_given_for_a_plain_http_url_is_refused_and_for_https_kept() {
        let e = resolve_pin(Some(HEX.into()), "http://show:8080").unwrap_err();
        assert!(e.to_string().contains("is not an https:// URL"), "{e}");
        let pin = resolve_pin(Some(HEX.into()), " HTTPS://show:8443").unwrap();
        assert_eq!(pin, Some(Fingerprint::parse(HEX).unwrap()));
        let e = resolve_pin(Some("sha256:00".into()), "https://show").unwrap_err();
        assert!(e.to_string().starts_with("tls_fingerprint: "), "{e}");
    }

    #[test]
    fn fingerprints_parse_in_the_forms_viewers_print() {
        let fp = Fingerprint::parse(&format!("sha256:{HEX}")).unwrap();
        assert_eq!(fp.to_string(), format!("sha256:{HEX}"));
        let colons: Vec<String> = HEX
            .as_bytes()
            .chunks(2)
            .map(|c| String::from_utf8(c.to_vec()).unwrap().to_uppercase())
            .collect();
        for text in [
            format!("SHA256:{}", colons.join(":")),
            format!("SHA-256:{HEX}"),
            HEX.to_uppercase(),
            format!("  sha256:{HEX}\n"),
        ] {
            assert_eq!(Fingerprint::parse(&text).unwrap(), fp, "{text}");
        }
    }

    #[test]
    fn malformed_fingerprints_name_the_option() {
        for (text, why) in [
            ("", "empty"),
            ("sha256:", "empty"),
            ("sha256:abcd", "4 hex digits, not 64"),
            (&format!("sha1:{}", &HEX[..40]), "\"sha1\" is not supported"),
            (&format!("sha256:{}g", &HEX[..63]), "'g' is not a hex digit"),
            (&format!("sha256:{HEX}00"), "66 hex digits"),
        ] {
            let e = Fingerprint::parse(text).unwrap_err().to_string();
            assert!(e.contains("tls_fingerprint: "), "{e}");
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }

    #[test]
    fn contradicting_options_are_refused() {
        let pin = Some(Fingerprint::of(b"x"));
        let mut o = TlsOptions {
            pin,
            verify: false,
            ..TlsOptions::default()
        };
        assert!(client_config(&o)
            .unwrap_err()
            .to_string()
            .contains("verify=False"));
        o.verify = true;
        o.ca_cert = Some("x.pem".into());
        assert!(client_config(&o)
            .unwrap_err()
            .to_string()
            .contains("ca_cert"));
    }
}
