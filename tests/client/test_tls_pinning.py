"""Certificate pinning (tls_fingerprint) and ca_cert with the applications' kind of certificate
(self-signed, CA:TRUE, expired), against HTTPS servers on loopback: what connects, what is
refused, and that each refusal says why and which option would connect. Sync, async, mirrors."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.certkit import Cert, https_server, make_cert
from tests.kit.netkit import MODES, scores
from tests.kit.recording import load, sent, serve

KEY = "pin-K3Y-secret"


def url_of(server: HTTPServer) -> str:
    return f"https://127.0.0.1:{server.port}"


def scoreboard_server(cert: Cert) -> Iterator[HTTPServer]:
    for server in https_server(cert):
        serve(server, load("scoreboard/hockey"))
        yield server


@pytest.fixture
def ca_true(tmp_path: Path) -> Cert:
    """Valid, self-signed and CA:TRUE (what webpki calls CaUsedAsEndEntity)."""
    return make_cert(tmp_path, name="ca-true", ca=True)


@pytest.fixture
def ca_true_server(ca_true: Cert) -> Iterator[HTTPServer]:
    yield from scoreboard_server(ca_true)


@pytest.mark.parametrize("mode", MODES)
def test_a_matching_pin_accepts_an_expired_self_signed_certificate(
    expired: Cert, expired_server: HTTPServer, mode: str
) -> None:
    for pin in (expired.fingerprint, expired.colon_fingerprint):
        board = showctl.Scoreboard(url_of(expired_server), KEY, tls_fingerprint=pin)
        assert isinstance(scores(board, mode), showctl.HockeyScore)
    assert [r.headers["Authorization"] for r in sent(expired_server)] == [f"Bearer {KEY}"] * 2


@pytest.mark.parametrize("mode", MODES)
def test_a_wrong_pin_is_refused_with_the_presented_fingerprint(
    expired: Cert, expired_server: HTTPServer, tmp_path: Path, mode: str
) -> None:
    other = make_cert(tmp_path, name="other")
    board = showctl.Scoreboard(
        url_of(expired_server), KEY, tls_fingerprint=other.fingerprint, retries=0
    )
    with pytest.raises(showctl.ConnectError) as info:
        scores(board, mode)
    message = str(info.value)
    assert f"presented the certificate {expired.fingerprint}" in message
    assert f'tls_fingerprint="{other.fingerprint}"' in message
    assert KEY not in message
    assert sent(expired_server) == [], "nothing is sent to a server whose certificate is refused"


@pytest.mark.parametrize("mode", MODES)
def test_the_media_client_pins_too(expired: Cert, expired_server: HTTPServer, mode: str) -> None:
    serve(expired_server, load("media/layers"))
    player = showctl.MediaPlayer(url_of(expired_server), tls_fingerprint=expired.fingerprint)
    layers = player.layers() if mode == "sync" else asyncio.run(player.layers_async())
    assert len(layers) > 0


def test_the_pin_comes_from_the_environment(
    expired: Cert, expired_server: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOWCTL_TLS_FINGERPRINT", expired.fingerprint)
    assert isinstance(showctl.Scoreboard(url_of(expired_server)).scores(), showctl.HockeyScore)
    # A plain-HTTP URL ignores the variable (nothing to pin there).
    showctl.Scoreboard("http://127.0.0.1:1")
    monkeypatch.setenv("SHOWCTL_TLS_FINGERPRINT", "sha256:12")
    with pytest.raises(ValueError, match=r"tls_fingerprint: .*SHOWCTL_TLS_FINGERPRINT"):
        showctl.Scoreboard(url_of(expired_server))


def test_the_pin_skips_the_host_name(tmp_path: Path) -> None:
    cert = make_cert(tmp_path, name="elsewhere", hosts=("media.example",))
    for server in scoreboard_server(cert):
        board = showctl.Scoreboard(url_of(server), tls_fingerprint=cert.fingerprint)
        assert isinstance(board.scores(), showctl.HockeyScore)


@pytest.mark.parametrize(
    "pin, why",
    [
        ("sha256:abcd", "4 hex digits, not 64"),
        ("md5:" + "ab" * 16, '"md5" is not supported'),
        ("sha256:" + "zz" * 32, "'z' is not a hex digit"),
        ("", "empty"),
    ],
)
def test_a_malformed_pin_is_a_value_error_naming_the_option(pin: str, why: str) -> None:
    with pytest.raises(ValueError, match="tls_fingerprint: ") as info:
        showctl.MediaPlayer("https://127.0.0.1:1", tls_fingerprint=pin)
    assert why in str(info.value)


def test_a_pin_contradicting_other_options_is_refused(expired: Cert) -> None:
    url = "https://127.0.0.1:1"
    with pytest.raises(ValueError, match=r"tls_fingerprint: .*verify=False"):
        showctl.Scoreboard(url, tls_fingerprint=expired.fingerprint, verify=False)
    with pytest.raises(ValueError, match=r"tls_fingerprint: .*ca_cert"):
        showctl.Scoreboard(url, tls_fingerprint=expired.fingerprint, ca_cert=expired.cert)
    with pytest.raises(ValueError, match=r"tls_fingerprint: .*not an https:// URL"):
        showctl.Scoreboard("http://127.0.0.1:1", tls_fingerprint=expired.fingerprint)


@pytest.mark.parametrize("mode", MODES)
def test_a_self_signed_ca_true_certificate_works_as_ca_cert(
    ca_true: Cert, ca_true_server: HTTPServer, mode: str
) -> None:
    board = showctl.Scoreboard(url_of(ca_true_server), ca_cert=ca_true.cert)
    assert isinstance(scores(board, mode), showctl.HockeyScore)


@pytest.mark.parametrize("mode", MODES)
def test_ca_cert_for_another_host_names_the_cause_and_the_fix(tmp_path: Path, mode: str) -> None:
    cert = make_cert(tmp_path, name="wrong-host", ca=True, hosts=("media.example",))
    for server in scoreboard_server(cert):
        board = showctl.Scoreboard(url_of(server), ca_cert=cert.cert, retries=0)
        with pytest.raises(showctl.ConnectError) as info:
            scores(board, mode)
        message = str(info.value)
        assert "not issued for host 127.0.0.1 (it names media.example)" in message
        assert f'tls_fingerprint="{cert.fingerprint}"' in message


@pytest.mark.parametrize("mode", MODES)
def test_an_expired_certificate_without_a_pin_is_refused_with_the_hint(
    expired: Cert, expired_server: HTTPServer, mode: str
) -> None:
    for options in ({}, {"ca_cert": expired.cert}):
        board = showctl.Scoreboard(url_of(expired_server), KEY, retries=0, **options)  # type: ignore[arg-type]
        with pytest.raises(showctl.ConnectError) as info:
            scores(board, mode)
        message = str(info.value)
        assert "the certificate expired on " in message
        assert f'tls_fingerprint="{expired.fingerprint}"' in message
        assert "verify=False" in message
        assert KEY not in message
    assert sent(expired_server) == []


def test_a_certificate_not_signed_by_the_given_ca(
    ca_true_server: HTTPServer, tmp_path: Path
) -> None:
    other = make_cert(tmp_path, name="unrelated", ca=True)
    board = showctl.Scoreboard(url_of(ca_true_server), ca_cert=other.cert, retries=0)
    with pytest.raises(
        showctl.ConnectError, match=re.escape(f"not signed by the CA given as ca_cert={other.cert}")
    ):
        board.scores()


def test_mirrors_take_their_own_pin(expired: Cert, tmp_path: Path) -> None:
    """A dict or a 3-tuple gives a mirror its own pin; a wrong one fails that mirror only,
    with the fingerprint it presented."""
    second = make_cert(tmp_path, name="backup", expired=True, ca=True)
    for good in https_server(expired):
        for bad in https_server(second):
            for server in (good, bad):
                server.expect_request("/api/0/mute/workspace", method="POST").respond_with_data("")
            with showctl.Simulator() as primary:
                player = showctl.MediaPlayer(
                    primary.url,
                    KEY,
                    mirrors=[
                        {"url": url_of(good), "tls_fingerprint": expired.colon_fingerprint},
                        (url_of(bad), None, expired.fingerprint),
                    ],
                )
                player.mute()
                player.close()
                ok, failed = player.mirror_status()
                assert (ok.sent, ok.failed) == (1, 0)
                assert (failed.sent, failed.failed) == (0, 1)
                assert isinstance(failed.last_error, showctl.ConnectError)
                assert f"presented the certificate {second.fingerprint}" in str(failed.last_error)
                assert [r.method for r in primary.requests] == ["POST"]
            [request] = sent(good)
            assert request.headers["Authorization"] == f"Bearer {KEY}"
            assert sent(bad) == []


def test_a_mirror_option_that_is_wrong_is_named() -> None:
    with pytest.raises(ValueError, match=r"mirrors\[0\]: tls_fingerprint: "):
        showctl.MediaPlayer("http://127.0.0.1:1", mirrors=[("https://127.0.0.1:2", None, "x")])
    with pytest.raises(ValueError, match=r'mirrors\[0\]: unknown key "fingerprint"'):
        showctl.MediaPlayer("http://127.0.0.1:1", mirrors=[{"url": "h:2", "fingerprint": "x"}])
    with pytest.raises(ValueError, match=r"mirrors\[0\]: the dict has no \"url\""):
        showctl.MediaPlayer("http://127.0.0.1:1", mirrors=[{"api_key": "k"}])
