"""Certificates made for the TLS tests (as the applications make theirs: self-signed, often
marked CA:TRUE, sometimes expired) and an HTTPS server on loopback that presents one."""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pytest_httpserver import HTTPServer

NOW = datetime.datetime.now(datetime.timezone.utc)


@dataclass
class Cert:
    """A certificate and its key as PEM files, and its SHA-256 fingerprint."""

    cert: Path
    key: Path
    der: bytes

    @property
    def fingerprint(self) -> str:
        return "sha256:" + hashlib.sha256(self.der).hexdigest()

    @property
    def colon_fingerprint(self) -> str:
        """As certificate viewers print it: upper case, colons between the bytes."""
        digest = hashlib.sha256(self.der).hexdigest().upper()
        return "SHA256:" + ":".join(digest[i : i + 2] for i in range(0, 64, 2))


def make_cert(
    directory: Path,
    *,
    name: str = "app",
    expired: bool = False,
    ca: bool | None = None,
    hosts: tuple[str, ...] = ("127.0.0.1",),
    issuer: Cert | None = None,
    valid: tuple[datetime.datetime, datetime.datetime] | None = None,
) -> Cert:
    """A certificate for ``hosts`` (IP addresses or DNS names; none: no names), self-signed or
    signed by ``issuer``. ``ca``: True or False adds basicConstraints CA:TRUE or CA:FALSE; None
    leaves them out, as the applications make theirs. ``valid``: its dates (else expired or
    valid for 30 days)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Show {name}")])
    if valid is not None:
        not_before, not_after = valid
    elif expired:
        not_before, not_after = NOW - datetime.timedelta(days=800), NOW - datetime.timedelta(days=2)
    else:
        not_before, not_after = NOW - datetime.timedelta(days=1), NOW + datetime.timedelta(days=30)
    alt: list[x509.GeneralName] = []
    for host in hosts:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            alt.append(x509.DNSName(host))
    signer_name, signer_key = subject, key
    if issuer is not None:
        signer_name = x509.load_der_x509_certificate(issuer.der).subject
        loaded = serialization.load_pem_private_key(issuer.key.read_bytes(), None)
        assert isinstance(loaded, ec.EllipticCurvePrivateKey)
        signer_key = loaded
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(signer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
    )
    if alt:
        builder = builder.add_extension(x509.SubjectAlternativeName(alt), critical=False)
    if ca is not None:
        builder = builder.add_extension(x509.BasicConstraints(ca=ca, path_length=None), True)
    cert = builder.sign(signer_key, hashes.SHA256())
    cert_path, key_path = directory / f"{name}.pem", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return Cert(cert_path, key_path, cert.public_bytes(serialization.Encoding.DER))


def chain_context(leaf: Cert, *intermediates: Cert) -> ssl.SSLContext:
    """A server context presenting ``leaf`` followed by ``intermediates``."""
    chain = leaf.cert.with_suffix(".chain.pem")
    chain.write_bytes(b"".join(c.cert.read_bytes() for c in (leaf, *intermediates)))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain, leaf.key)
    return context


def https_server(cert: Cert | ssl.SSLContext) -> Iterator[HTTPServer]:
    """An HTTPS server on 127.0.0.1 presenting ``cert`` (or configured by an SSL context);
    the caller adds its answers."""
    if isinstance(cert, Cert):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert.cert, cert.key)
    else:
        context = cert
    server = HTTPServer(host="127.0.0.1", port=0, ssl_context=context)
    server.start()
    try:
        yield server
    finally:
        server.clear()
        if server.is_running():
            server.stop()


def _der(tag: int, content: bytes) -> bytes:
    """One DER element: tag, length, content."""
    n = len(content)
    if n < 0x80:
        return bytes([tag, n]) + content
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + content


def make_v1_root(directory: Path, *, name: str = "v1-root") -> Cert:
    """A self-signed version 1 certificate (no extensions at all, as old tools make a root):
    cryptography writes version 3 only, so its version field is taken out and the result signed
    again."""
    made = make_cert(directory, name=name, hosts=())
    cert = x509.load_der_x509_certificate(made.der)
    tbs = cert.tbs_certificate_bytes
    version_3 = bytes.fromhex("a003020102")
    start = 2 + (tbs[1] & 0x7F if tbs[1] & 0x80 else 0)
    assert tbs[start : start + 5] == version_3, "a TBSCertificate starts with its version"
    tbs_v1 = _der(0x30, tbs[start + 5 :])
    key = serialization.load_pem_private_key(made.key.read_bytes(), None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    signature = key.sign(tbs_v1, ec.ECDSA(hashes.SHA256()))
    ecdsa_with_sha256 = bytes.fromhex("300a06082a8648ce3d040302")
    der = _der(0x30, tbs_v1 + ecdsa_with_sha256 + _der(0x03, b"\0" + signature))
    assert x509.load_der_x509_certificate(der).version == x509.Version.v1
    made.cert.write_bytes(ssl.DER_cert_to_PEM_cert(der).encode())
    return Cert(made.cert, made.key, der)
