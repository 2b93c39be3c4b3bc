"""HTTPS: the application's self-signed (and expired) certificate is refused by default and
accepted with verify=False or with ca_cert; the key travels over HTTPS too."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import showctl
import trustme
from pytest_httpserver import HTTPServer

from tests.kit import certkit
from tests.kit.certkit import make_cert
from tests.kit.netkit import MODES, scores
from tests.kit.recording import load, sent, serve

KEY = "tls-K3Y-secret"


def self_signed(tmp: Path, *, expired: bool) -> tuple[Path, Path]:
    """A self-signed end-entity certificate for 127.0.0.1 (as the application makes), and its
    key, as PEM files."""
    cert = make_cert(tmp, name="Scoreboard", expired=expired)
    return cert.cert, cert.key


def https_server(context: ssl.SSLContext) -> Iterator[HTTPServer]:
    for server in certkit.https_server(context):
        serve(server, load("scoreboard/hockey"))
        yield server


def url_of(server: HTTPServer) -> str:
    return f"https://127.0.0.1:{server.port}"


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def trustme_server(ca: trustme.CA) -> Iterator[HTTPServer]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    yield from https_server(context)


@pytest.fixture
def ca_pem(ca: trustme.CA, tmp_path: Path) -> Path:
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path


def app_server(tmp_path: Path, *, expired: bool) -> Iterator[tuple[HTTPServer, Path]]:
    cert, key = self_signed(tmp_path, expired=expired)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    for server in https_server(context):
        yield server, cert


@pytest.fixture
def selfsigned_server(tmp_path: Path) -> Iterator[tuple[HTTPServer, Path]]:
    yield from app_server(tmp_path, expired=False)


@pytest.fixture
def expired_selfsigned_server(tmp_path: Path) -> Iterator[tuple[HTTPServer, Path]]:
    yield from app_server(tmp_path, expired=True)


@pytest.mark.parametrize("mode", MODES)
def test_untrusted_certificate_is_refused_by_default(trustme_server: HTTPServer, mode: str) -> None:
    board = showctl.Scoreboard(url_of(trustme_server), KEY, retries=0)
    with pytest.raises(showctl.ConnectError) as info:
        scores(board, mode)
    message = str(info.value)
    assert "certificate" in message
    assert "not signed by a CA this system trusts" in message
    assert "pass ca_cert=PATH" in message and "verify=False" in message
    assert 'tls_fingerprint="sha256:' in message
    assert KEY not in message
    assert sent(trustme_server) == []


@pytest.mark.parametrize("mode", MODES)
def test_verify_false_accepts_it_and_sends_the_key(trustme_server: HTTPServer, mode: str) -> None:
    board = showctl.Scoreboard(url_of(trustme_server), KEY, verify=False)
    assert isinstance(scores(board, mode), showctl.HockeyScore)
    [request] = sent(trustme_server)
    assert request.headers["Authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("mode", MODES)
def test_ca_cert_trusts_it(trustme_server: HTTPServer, ca_pem: Path, mode: str) -> None:
    board = showctl.Scoreboard(url_of(trustme_server), ca_cert=ca_pem)
    assert isinstance(scores(board, mode), showctl.HockeyScore)
    # a str path works as well as a Path
    assert isinstance(
        showctl.Scoreboard(url_of(trustme_server), ca_cert=str(ca_pem)).scores(),
        showctl.HockeyScore,
    )


def test_another_ca_is_not_trusted(trustme_server: HTTPServer, tmp_path: Path) -> None:
    other = tmp_path / "other.pem"
    trustme.CA().cert_pem.write_to_path(str(other))
    with pytest.raises(showctl.ConnectError, match="certificate"):
        showctl.Scoreboard(url_of(trustme_server), ca_cert=other, retries=0).scores()


@pytest.mark.parametrize("mode", MODES)
def test_self_signed_application_certificate(
    selfsigned_server: tuple[HTTPServer, Path], mode: str
) -> None:
    server, cert = selfsigned_server
    with pytest.raises(showctl.ConnectError, match="certificate"):
        scores(showctl.Scoreboard(url_of(server), retries=0), mode)
    assert isinstance(
        scores(showctl.Scoreboard(url_of(server), verify=False), mode), showctl.HockeyScore
    )
    assert isinstance(
        scores(showctl.Scoreboard(url_of(server), ca_cert=cert), mode), showctl.HockeyScore
    )


@pytest.mark.parametrize("mode", MODES)
def test_expired_self_signed_certificate(
    expired_selfsigned_server: tuple[HTTPServer, Path], mode: str
) -> None:
    server, cert = expired_selfsigned_server
    # Refused by default, and even when trusted through ca_cert: it is expired.
    with pytest.raises(showctl.ConnectError, match="certificate"):
        scores(showctl.Scoreboard(url_of(server), retries=0), mode)
    with pytest.raises(showctl.ConnectError, match=r"(?i)expired"):
        scores(showctl.Scoreboard(url_of(server), ca_cert=cert, retries=0), mode)
    # verify=False is how the application's expired certificate is used.
    board = showctl.Scoreboard(url_of(server), KEY, verify=False)
    assert isinstance(scores(board, mode), showctl.HockeyScore)
    assert sent(server)[-1].headers["Authorization"] == f"Bearer {KEY}"


def test_plain_http_to_an_https_port_hints_at_the_scheme(trustme_server: HTTPServer) -> None:
    url = f"http://127.0.0.1:{trustme_server.port}"
    with pytest.raises(showctl.ConnectError, match="use an https:// URL"):
        showctl.Scoreboard(url, retries=0, timeout=2).scores()


def test_a_refused_certificate_is_reported_once(
    trustme_server: HTTPServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The exception says it all: no ERROR log line besides (it would reach stderr)."""
    with pytest.raises(showctl.ConnectError):
        showctl.Scoreboard(url_of(trustme_server), retries=0).scores()
    assert [r.getMessage() for r in caplog.records if r.levelno >= 40] == []


def test_ca_cert_that_is_not_pem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate")
    with pytest.raises(ValueError, match="ca_cert: "):
        showctl.Scoreboard("https://127.0.0.1:1", ca_cert=bad)


def test_tls_options_are_carried_to_the_mirrors(
    trustme_server: HTTPServer, ca_pem: Path, tmp_path: Path
) -> None:
    """A mirror behind HTTPS is trusted by the primary's ca_cert (or verify=False), and is
    refused, counted as failed, without it."""
    trustme_server.clear()
    trustme_server.expect_request("/api/0/mute/layer/0", method="POST").respond_with_data("")
    with showctl.Simulator() as primary:
        mirror = url_of(trustme_server)
        for options, ok in (
            ({"ca_cert": ca_pem}, True),
            ({"verify": False}, True),
            ({}, False),
        ):
            player = showctl.MediaPlayer(primary.url, KEY, mirrors=[mirror], retries=0, **options)
            player.layer(0).mute()
            player.close()
            (st,) = player.mirror_status()
            assert (st.sent, st.failed) == ((1, 0) if ok else (0, 1)), (options, st)
            if not ok:
                assert "certificate" in str(st.last_error)
    mutes = [r for r in sent(trustme_server) if r.path == "/api/0/mute/layer/0"]
    assert len(mutes) == 2
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in mutes)
