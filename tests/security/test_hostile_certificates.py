"""`ca_cert` against certificates made to slip through: a certificate of the file that is not a
CA signs nothing, a CA out of its dates signs nothing, and a refusal names in words the
certificate of the chain that failed (an expired intermediate, one that is not a CA). Which
certificates of the file sign was checked against curl with OpenSSL (`curl --cacert`): the
verifier's module in core/src/tls/anchors.rs says what curl did."""

from __future__ import annotations

import datetime
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import showctl
from cryptography import x509
from pytest_httpserver import HTTPServer

from tests.kit import certkit
from tests.kit.certkit import NOW, Cert, chain_context, make_cert, make_v1_root
from tests.kit.netkit import MODES, scores
from tests.kit.recording import load, sent, serve

DAY = datetime.timedelta(days=1)


def served(context: ssl.SSLContext) -> Iterator[HTTPServer]:
    for server in certkit.https_server(context):
        serve(server, load("scoreboard/hockey"))
        yield server


def board(server: HTTPServer, ca_cert: Path) -> showctl.Scoreboard:
    return showctl.Scoreboard(f"https://127.0.0.1:{server.port}", ca_cert=ca_cert, retries=0)


def bundle(path: Path, *certs: Cert) -> Path:
    path.write_bytes(b"".join(c.cert.read_bytes() for c in certs))
    return path


def date(cert: Cert, end: bool) -> str:
    parsed = x509.load_der_x509_certificate(cert.der)
    when = parsed.not_valid_after_utc if end else parsed.not_valid_before_utc
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def refusal(server: HTTPServer, ca_cert: Path, mode: str = "sync") -> str:
    with pytest.raises(showctl.ConnectError) as info:
        scores(board(server, ca_cert), mode)
    assert sent(server) == [], "nothing is sent to a server whose certificate is refused"
    return str(info.value)


@pytest.mark.parametrize("signer", ["self-signed CA:FALSE", "no basicConstraints", "issued leaf"])
@pytest.mark.parametrize("mode", MODES)
def test_a_certificate_of_the_file_that_is_not_a_ca_signs_nothing(
    tmp_path: Path, signer: str, mode: str
) -> None:
    """Whoever holds the key of a certificate of the file that is not a CA (a machine's own
    certificate in a venue's bundle, a leaf a real CA issued) cannot sign another name."""
    root = make_cert(tmp_path, name="root", ca=True, hosts=())
    holder = {
        "self-signed CA:FALSE": lambda: make_cert(tmp_path, name="machine", ca=False),
        "no basicConstraints": lambda: make_cert(tmp_path, name="machine"),
        "issued leaf": lambda: make_cert(tmp_path, name="machine", ca=False, issuer=root),
    }[signer]()
    forged = make_cert(tmp_path, name="forged", ca=False, issuer=holder)
    other = make_cert(tmp_path, name="other-machine", ca=False)
    ca_cert = bundle(tmp_path / "venue.pem", other, holder)
    for server in served(chain_context(forged)):
        message = refusal(server, ca_cert, mode)
        assert f'signed by "CN=Show machine" of ca_cert={ca_cert}, which is not a CA' in message
        assert "Other(" not in message and "verify=False" in message


def test_a_venue_bundle_of_self_signed_certificates_trusts_each_as_itself(tmp_path: Path) -> None:
    """As curl does: each machine's own certificate in the file is accepted when that machine
    presents it, CA:FALSE or without basicConstraints, self-signed or issued."""
    root = make_cert(tmp_path, name="root", ca=True, hosts=())
    machines = [
        make_cert(tmp_path, name="media", ca=False),
        make_cert(tmp_path, name="board"),
        make_cert(tmp_path, name="issued", ca=False, issuer=root),
    ]
    ca_cert = bundle(tmp_path / "venue.pem", *machines)
    for machine in machines:
        for server in served(chain_context(machine)):
            assert isinstance(board(server, ca_cert).scores(), showctl.HockeyScore)


@pytest.mark.parametrize("mode", MODES)
def test_a_version_1_self_signed_root_signs(tmp_path: Path, mode: str) -> None:
    """OpenSSL takes a self-signed version 1 certificate as a CA (it has no extensions to say
    otherwise), and so does the verifier."""
    root = make_v1_root(tmp_path)
    leaf = make_cert(tmp_path, name="leaf", ca=False, issuer=root)
    for server in served(chain_context(leaf)):
        assert isinstance(scores(board(server, root.cert), mode), showctl.HockeyScore)


@pytest.mark.parametrize("when", ["expired", "not yet valid"])
@pytest.mark.parametrize("mode", MODES)
def test_a_ca_out_of_its_dates_signs_nothing(tmp_path: Path, when: str, mode: str) -> None:
    valid = (
        (NOW - 800 * DAY, NOW - 2 * DAY) if when == "expired" else (NOW + 2 * DAY, NOW + 800 * DAY)
    )
    ca = make_cert(tmp_path, name="old-ca", ca=True, hosts=(), valid=valid)
    leaf = make_cert(tmp_path, name="leaf", ca=False, issuer=ca)
    for server in served(chain_context(leaf)):
        message = refusal(server, ca.cert, mode)
    assert f'the CA "CN=Show old-ca" of ca_cert={ca.cert} that signed the certificate' in message
    if when == "expired":
        assert f"expired on {date(ca, end=True)}" in message
    else:
        assert f"is not valid before {date(ca, end=False)}" in message


def test_a_ca_within_its_dates_signs_beside_one_that_expired(tmp_path: Path) -> None:
    """An expired CA in the file takes nothing from the CA beside it that is within its dates;
    and the expired one signs nothing still."""
    old = make_cert(tmp_path, name="old-ca", ca=True, hosts=(), expired=True)
    new = make_cert(tmp_path, name="new-ca", ca=True, hosts=())
    ca_cert = bundle(tmp_path / "cas.pem", old, new)
    for server in served(chain_context(make_cert(tmp_path, name="current", ca=False, issuer=new))):
        assert isinstance(board(server, ca_cert).scores(), showctl.HockeyScore)
    for server in served(chain_context(make_cert(tmp_path, name="stale", ca=False, issuer=old))):
        assert 'the CA "CN=Show old-ca"' in refusal(server, ca_cert)


def test_an_expired_intermediate_is_reported_with_its_own_end_date(tmp_path: Path) -> None:
    root = make_cert(tmp_path, name="root", ca=True, hosts=())
    inter = make_cert(
        tmp_path, name="inter", ca=True, hosts=(), issuer=root, valid=(NOW - 90 * DAY, NOW - DAY)
    )
    leaf = make_cert(tmp_path, name="leaf", ca=False, issuer=inter)
    for server in served(chain_context(leaf, inter)):
        message = refusal(server, root.cert)
    assert (
        f'the intermediate certificate "CN=Show inter" the server sent with its own expired on '
        f"{date(inter, end=True)} (the server's own certificate is valid until "
        f"{date(leaf, end=True)})" in message
    )


def test_an_intermediate_that_is_not_a_ca_is_refused_in_words(tmp_path: Path) -> None:
    root = make_cert(tmp_path, name="root", ca=True, hosts=())
    inter = make_cert(tmp_path, name="inter", ca=False, hosts=(), issuer=root)
    leaf = make_cert(tmp_path, name="leaf", ca=False, issuer=inter)
    for server in served(chain_context(leaf, inter)):
        message = refusal(server, root.cert)
    said = 'signed by "CN=Show inter", sent by the server with its own, which is not a CA'
    assert said in message
    assert "EndEntityUsedAsCa" not in message and "Other(" not in message
