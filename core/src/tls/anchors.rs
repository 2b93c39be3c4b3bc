//! The certificates of a `ca_cert` file, taken as curl (OpenSSL) takes them, and what the
//! verifier's refusals say about the certificates of a chain.
//!
//! Which certificates of the file sign (checked against curl 7.88 with OpenSSL 3.0, `--cacert`):
//!
//! - a certificate with basicConstraints `CA:TRUE` signs, and so does a self-signed version 1
//!   certificate (it has no extensions to say either way; OpenSSL takes it as a CA);
//! - a `CA:FALSE` certificate, or a version 3 certificate without basicConstraints, signs
//!   nothing: curl refuses a certificate it signed ("invalid CA certificate");
//! - a CA signs only within its dates: curl refuses a certificate signed by an expired CA
//!   ("certificate has expired") or by one not yet valid. webpki does not check a trust
//!   anchor's dates, so [`CaFile::check_dates`] does, after webpki accepted the chain;
//! - any certificate of the file, CA or not, self-signed or not, is accepted when the server
//!   presents it byte for byte as its own (curl's partial chains): a venue's bundle of each
//!   machine's own certificate works so, each certificate vouching for itself only.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::danger::ServerCertVerifier;
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{CertificateError, RootCertStore};

use crate::error::{Error, Result};

/// What a verifier's message says of one certificate.
#[derive(Debug, Clone)]
pub(super) struct About {
    /// The subject, escaped (a certificate the server sent may carry any character).
    pub subject: String,
    subject_raw: Vec<u8>,
    issuer_raw: Vec<u8>,
    /// Whether it may sign certificates: basicConstraints `CA:TRUE`, or a self-signed
    /// version 1 certificate.
    pub ca: bool,
    pub not_before: i64,
    pub not_after: i64,
}

impl About {
    pub fn of(der: &[u8]) -> Option<About> {
        let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
        let subject_raw = cert.subject().as_raw().to_vec();
        let issuer_raw = cert.issuer().as_raw().to_vec();
        let ca = match cert.basic_constraints() {
            Ok(Some(bc)) => bc.value.ca,
            Ok(None) => {
                cert.version() == x509_parser::x509::X509Version::V1 && subject_raw == issuer_raw
            }
            Err(_) => false,
        };
        let v = cert.validity();
        Some(About {
            subject: cert.subject().to_string().escape_debug().to_string(),
            subject_raw,
            issuer_raw,
            ca,
            not_before: v.not_before.timestamp(),
            not_after: v.not_after.timestamp(),
        })
    }

    fn valid_at(&self, now: i64) -> bool {
        self.not_before <= now && now <= self.not_after
    }
}

/// The certificates of a chain the server sent (its own first, then the intermediates).
pub(super) fn chain(end_entity: &[u8], intermediates: &[CertificateDer<'_>]) -> Vec<About> {
    std::iter::once(end_entity)
        .chain(intermediates.iter().map(|c| c.as_ref()))
        .filter_map(About::of)
        .collect()
}

/// The certificate of `chain` that signed one of the others and is not a CA.
pub(super) fn signer_not_ca(chain: &[About]) -> Option<&About> {
    chain
        .iter()
        .skip(1)
        .find(|c| !c.ca && chain.iter().any(|s| s.issuer_raw == c.subject_raw))
}

/// A certificate of the file.
#[derive(Debug)]
struct FileCert {
    der: CertificateDer<'static>,
    about: About,
}

/// The `ca_cert` file: its certificates, and a webpki verifier whose trust anchors are the
/// file's CAs (`None` when the file holds no CA, as a bundle of self-signed application
/// certificates).
#[derive(Debug)]
pub(super) struct CaFile {
    pub path: PathBuf,
    certs: Vec<FileCert>,
    verifier: Option<Arc<WebPkiServerVerifier>>,
}

/// Why the file refuses a certificate: a verifier's error (explained by the caller), or the
/// file's own reason in words (the caller adds which option would connect).
pub(super) enum FileRefusal {
    Error(rustls::Error),
    Words(String),
}

impl From<rustls::Error> for FileRefusal {
    fn from(e: rustls::Error) -> Self {
        FileRefusal::Error(e)
    }
}

impl CaFile {
    pub fn new(
        path: PathBuf,
        certs: Vec<CertificateDer<'static>>,
        provider: Arc<CryptoProvider>,
    ) -> Result<CaFile> {
        let mut file = Vec::new();
        for (i, der) in certs.into_iter().enumerate() {
            let about = About::of(der.as_ref()).ok_or_else(|| {
                Error::invalid(format!(
                    "ca_cert: certificate {} of {} cannot be read (not X.509)",
                    i + 1,
                    path.display()
                ))
            })?;
            file.push(FileCert { der, about });
        }
        let mut roots = RootCertStore::empty();
        let (_, ignored) = roots
            .add_parsable_certificates(file.iter().filter(|c| c.about.ca).map(|c| c.der.clone()));
        if ignored > 0 {
            return Err(Error::invalid(format!(
                "ca_cert: {ignored} CA certificate(s) of {} cannot be used as a trust anchor",
                path.display()
            )));
        }
        let verifier = if roots.is_empty() {
            None
        } else {
            Some(
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                    .build()
                    .map_err(|e| Error::invalid(format!("ca_cert: {}: {e}", path.display())))?,
            )
        };
        Ok(CaFile {
            path,
            certs: file,
            verifier,
        })
    }

    /// The file's certificate presented byte for byte as the server's own, if it is one.
    pub fn own(&self, end_entity: &[u8]) -> bool {
        self.certs.iter().any(|c| c.der.as_ref() == end_entity)
    }

    /// Verify a chain against the file's CAs, then the dates of the CA it reached.
    pub fn verify(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        name: &rustls::pki_types::ServerName<'_>,
        now: UnixTime,
        algs: &WebPkiSupportedAlgorithms,
    ) -> std::result::Result<(), FileRefusal> {
        let Some(verifier) = &self.verifier else {
            return Err(self.unknown_issuer(end_entity, intermediates));
        };
        match verifier.verify_server_cert(end_entity, intermediates, name, &[], now) {
            Ok(_) => self.check_dates(end_entity, intermediates, now, algs),
            Err(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)) => {
                Err(self.unknown_issuer(end_entity, intermediates))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// No CA of the file signed the chain: say so, in words when a certificate of the file
    /// that is not a CA did.
    fn unknown_issuer(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
    ) -> FileRefusal {
        let chain = chain(end_entity.as_ref(), intermediates);
        let signer = self
            .certs
            .iter()
            .filter(|c| !c.about.ca)
            .find(|c| chain.iter().any(|s| s.issuer_raw == c.about.subject_raw));
        match signer {
            Some(c) => FileRefusal::Words(format!(
                "the certificate is signed by \"{}\" of ca_cert={}, which is not a CA (its \
                 basicConstraints do not say CA:TRUE), and a certificate that is not a CA signs \
                 nothing",
                c.about.subject,
                self.path.display()
            )),
            None => FileRefusal::Error(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            )),
        }
    }

    /// webpki accepted the chain; refuse it when the only CAs of the file that sign it are
    /// out of their dates (the common case, every CA of the file within its dates, costs one
    /// comparison per CA).
    fn check_dates(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
        algs: &WebPkiSupportedAlgorithms,
    ) -> std::result::Result<(), FileRefusal> {
        let secs = now.as_secs() as i64;
        let cas = || self.certs.iter().filter(|c| c.about.ca);
        if cas().all(|c| c.about.valid_at(secs)) {
            return Ok(());
        }
        let parsed = ParsedCertificate::try_from(end_entity)?;
        let signs = |anchors: &mut dyn Iterator<Item = &FileCert>| {
            let mut roots = RootCertStore::empty();
            roots.add_parsable_certificates(anchors.map(|c| c.der.clone()));
            !roots.is_empty()
                && rustls::client::verify_server_cert_signed_by_trust_anchor(
                    &parsed,
                    &roots,
                    intermediates,
                    now,
                    algs.all,
                )
                .is_ok()
        };
        if signs(&mut cas().filter(|c| c.about.valid_at(secs))) {
            return Ok(());
        }
        let stale = cas()
            .filter(|c| !c.about.valid_at(secs))
            .find(|c| signs(&mut std::iter::once(*c)));
        let Some(ca) = stale else {
            return Err(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer).into());
        };
        let when = if secs > ca.about.not_after {
            format!("expired on {}", super::rfc3339(ca.about.not_after))
        } else {
            format!(
                "is not valid before {} (check the clocks of this machine)",
                super::rfc3339(ca.about.not_before)
            )
        };
        Err(FileRefusal::Words(format!(
            "the CA \"{}\" of ca_cert={} that signed the certificate {when}, and a CA out of \
             its dates signs nothing",
            ca.about.subject,
            self.path.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    use rustls::pki_types::ServerName;

    struct Made {
        der: CertificateDer<'static>,
        params: CertificateParams,
        key: KeyPair,
    }

    /// A certificate for 127.0.0.1 named `cn`, valid from `days.0` to `days.1` days from now,
    /// self-signed or signed by `by`.
    fn make(cn: &str, ca: IsCa, days: (i64, i64), by: Option<&Made>) -> Made {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, cn);
        params.is_ca = ca;
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now + time::Duration::days(days.0);
        params.not_after = now + time::Duration::days(days.1);
        let cert = match by {
            None => params.self_signed(&key),
            Some(i) => params.signed_by(&key, &Issuer::from_params(&i.params, &i.key)),
        };
        Made {
            der: cert.unwrap().der().clone(),
            params,
            key,
        }
    }

    /// `leaf` checked against a `ca_cert` file of `file`: the refusal in words, or webpki's.
    fn verify(file: &[&Made], leaf: &Made) -> std::result::Result<(), String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let algs = provider.signature_verification_algorithms;
        let certs = file.iter().map(|m| m.der.clone()).collect();
        let ca = CaFile::new("venue.pem".into(), certs, provider).unwrap();
        let name = ServerName::try_from("127.0.0.1").unwrap();
        match ca.verify(&leaf.der, &[], &name, UnixTime::now(), &algs) {
            Ok(()) => Ok(()),
            Err(FileRefusal::Words(why)) => Err(why),
            Err(FileRefusal::Error(e)) => Err(format!("{e:?}")),
        }
    }

    const VALID: (i64, i64) = (-1, 30);

    fn ca() -> IsCa {
        IsCa::Ca(BasicConstraints::Unconstrained)
    }

    #[test]
    fn only_a_ca_of_the_file_signs() {
        for not_ca in [IsCa::NoCa, IsCa::ExplicitNoCa] {
            let holder = make("holder", not_ca, VALID, None);
            let forged = make("forged", IsCa::ExplicitNoCa, VALID, Some(&holder));
            let why = verify(&[&holder], &forged).unwrap_err();
            assert!(
                why.contains("signed by \"CN=holder\" of ca_cert=venue.pem, which is not a CA"),
                "{why}"
            );
        }
        let root = make("root", ca(), VALID, None);
        verify(
            &[&root],
            &make("leaf", IsCa::ExplicitNoCa, VALID, Some(&root)),
        )
        .unwrap();
    }

    #[test]
    fn a_ca_out_of_its_dates_signs_nothing_and_takes_nothing_from_one_within() {
        let old = make("old", ca(), (-800, -2), None);
        let future = make("future", ca(), (2, 800), None);
        let new = make("new", ca(), VALID, None);
        let by = |issuer: &Made| make("leaf", IsCa::ExplicitNoCa, VALID, Some(issuer));
        let why = verify(&[&old, &new], &by(&old)).unwrap_err();
        assert!(
            why.contains(
                "the CA \"CN=old\" of ca_cert=venue.pem that signed the certificate expired on "
            ),
            "{why}"
        );
        let why = verify(&[&future], &by(&future)).unwrap_err();
        assert!(why.contains("\"CN=future\" of ca_cert=venue.pem that signed the certificate is not valid before "), "{why}");
        verify(&[&old, &new], &by(&new)).unwrap();
    }
}
