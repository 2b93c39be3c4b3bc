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
    ca: bool = False,
    hosts: tuple[str, ...] = ("127.0.0.1",),
) -> Cert:
    """A self-signed certificate for ``hosts`` (IP addresses or DNS names)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Show {name}")])
    if expired:
        not_before, not_after = NOW - datetime.timedelta(days=800), NOW - datetime.timedelta(days=2)
    else:
        not_before, not_after = NOW - datetime.timedelta(days=1), NOW + datetime.timedelta(days=30)
    alt: list[x509.GeneralName] = []
    for host in hosts:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            alt.append(x509.DNSName(host))
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
    )
    if ca:
        builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
    cert = builder.sign(key, hashes.SHA256())
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
