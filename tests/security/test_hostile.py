"""Hostile input: names that try to leave their path segment, URLs and keys with CR/LF, a key
that must never show, and TLS verification on by default."""

from __future__ import annotations

import logging
import os
import signal
import ssl
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
import showctl
import trustme
from pytest_httpserver import HTTPServer

from tests.kit.fakeserver import FakeServer, Reply, Seen, late, respond, serve, serving
from tests.kit.mediakit import MODES, invoke
from tests.kit.netkit import free_port, scores, sigint_default
from tests.kit.recording import load
from tests.kit.recording import serve as serve_recorded

ROOT = Path(__file__).resolve().parents[2]

NAMES = [
    "Lower Third/Left",
    "../../admin",
    "..%2F..%2Fadmin",
    "%2e%2e",
    "a/../b",
    "x?target=true",
    "x&target=true",
    "a#frag",
    "100%",
    "%",
    "%zz",
    "line\r\nX-Injected: 1",
    "tab\there",
    "nul\x00byte",
    "back\\slash\\..",
    "..;",
    "...",
    " ",
    "/",
    "?",
    "#",
    "Écran 2 — 日本語",
    "😀 emoji",
    "\u202eRTL",
    "a" * 1024,  # the longest name sent (longer ones: tests/client/test_limits.py)
    "é" * 1024,
]


def segment(name: str) -> str:
    """A name as one path segment: every byte but A-Z a-z 0-9 - . _ ~ percent-encoded."""
    return quote(name, safe="")


def answer(seen: Seen) -> Reply:
    if seen.method == "POST":
        return 200, b""
    if seen.path.startswith("/api/0/opacity/"):
        return 200, b'{"value": 0.5}'
    return 200, b'{"uuid": "u-1", "name": "n"}'


# (object, method, args) -> path template and query of what must be sent
CALLS: list[tuple[str, str, int, str, str]] = [
    ("player", "playlist", 1, "/api/0/data/playlist/{}", ""),
    ("player", "cue", 2, "/api/0/data/playlist/{}/cue/{}", ""),
    ("layer", "opacity", 0, "/api/0/opacity/layer/{}", ""),
    ("layer", "set_opacity", 0, "/api/0/opacity/layer/{}", ""),
    ("player", "select_playlist", 1, "/api/0/select/playlist/{}", ""),
    ("player", "trigger_playlist_cue", 2, "/api/0/trigger/playlist/{}/cue/{}", ""),
    ("layer", "trigger", 2, "/api/0/trigger/layer/{}/playlist/{}/cue/{}", ""),
    ("layer", "select", 0, "/api/0/select/layer/{}", "target=true"),
    ("layer", "skip", 0, "/api/0/skip/layer/{}", "forwards=false&offset=1.5"),
]
EXTRA = {"set_opacity": (0.5,), "select": (), "skip": (-1.5,)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_a_name_stays_one_encoded_path_segment(name: str, mode: str) -> None:
    expected = []
    with FakeServer(serve(answer)) as server:
        player = showctl.MediaPlayer(server.url, timeout=5.0)
        for on, method, ids, template, query in CALLS:
            obj: Any = player if on == "player" else player.layer(name)
            kwargs = {"target": True} if method == "select" else {}
            invoke(mode, obj, method, *([name] * ids), *EXTRA.get(method, ()), **kwargs)
            count = template.count("{}")
            path = template.format(*[segment(name)] * count)
            expected.append(path + (f"?{query}" if query else ""))
        got = [s.target for s in server.requests]
    assert got == expected
    for target, (_, _, _, template, query) in zip(got, CALLS):
        path, _, sent_query = target.partition("?")
        assert sent_query == query  # nothing leaked into the query
        assert path.count("/") == template.count("/")  # no segment added or removed
        for i, part in enumerate(template.split("/")):
            if part == "{}":
                assert unquote(path.split("/")[i]) == name


@pytest.mark.parametrize("name", [".", ".."])
def test_dot_segments_are_refused_before_sending(name: str) -> None:
    with FakeServer() as server:
        player = showctl.MediaPlayer(server.url)
        with pytest.raises(ValueError, match="relative path"):
            player.layer(name)
        with pytest.raises(ValueError, match="relative path"):
            player.playlist(name)
        with pytest.raises(ValueError, match="cue_id"):
            player.cue(0, name)
    assert server.connections == 0


@pytest.mark.parametrize(
    "path",
    [
        "/data/../admin",
        "/data/./layers",
        "/data/%2e%2e/admin",
        "/data/%2E./admin",
        "/data/.%2e",
        "/data/layers?x=1",
        "/data/layers#x",
        "/data/layers\r\nX: 1",
        "http://elsewhere.invalid/api/0/data/layers",
        "",
        "/",
    ],
)
def test_request_refuses_paths_that_leave_the_api(path: str) -> None:
    with FakeServer() as server:
        with pytest.raises(ValueError, match=r"^path: "):
            showctl.MediaPlayer(server.url).request("GET", path)
    assert server.connections == 0


def test_request_keeps_a_path_on_the_application_and_encodes_params() -> None:
    with FakeServer(respond(200, b"")) as server:
        player = showctl.MediaPlayer(server.url)
        player.request("GET", "//elsewhere.invalid/x")
        player.request("GET", "/data/layer/Écran 1")
        player.request("POST", "/skip/layer/0", params={"a&b=c": "d#e?f", "x": "1 2"})
        targets = [s.target for s in server.requests]
    assert targets == [
        "/api/0/elsewhere.invalid/x",
        "/api/0/data/layer/%C3%89cran%201",
        "/api/0/skip/layer/0?a%26b%3Dc=d%23e%3Ff&x=1%202",
    ]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:1\r\nX-Injected: 1",
        "http://127.0.0.1:1/\n",
        "127.0.0.1:1\r",
        "http://127.0.0.1:1/x\ty",
    ],
)
def test_a_url_with_cr_or_lf_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match=r"^url: contains CR, LF"):
        showctl.MediaPlayer(url)


KEY = "sk-SECRET-4242-zz"


@pytest.mark.parametrize("bad", [f"{KEY}\r\nX-Injected: 1", f"{KEY}\n", f"\r{KEY}", f"{KEY}\t"])
def test_a_key_with_cr_or_lf_is_refused_without_repeating_it(
    bad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for make in (
        lambda: showctl.MediaPlayer("127.0.0.1:1", api_key=bad),
        lambda: showctl.Scoreboard("127.0.0.1:1", api_key=bad),
    ):
        with pytest.raises(ValueError, match=r"^api_key: ") as info:
            make()
        assert "SECRET" not in str(info.value)
    monkeypatch.setenv("SHOWCTL_API_KEY", bad)
    with pytest.raises(ValueError, match=r"^api_key: ") as info:
        showctl.MediaPlayer("127.0.0.1:1")
    assert "SECRET" not in str(info.value)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080\r\n",
        "http://127.0.0.1:8080\n",
        "\nhttp://127.0.0.1:8080",
        "http://127.0.0.1:8080\r\nX-Injected: 1",
        "127.0.0.1:80\r80",
    ],
)
def test_url_with_cr_or_lf_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="url: contains CR, LF"):
        showctl.Scoreboard(url)


@pytest.mark.parametrize(
    "key", ["abc\r\ndef", "abc\n", "\rabc", "abc\r\nX-Injected: 1", " abc", "abc ", ""]
)
def test_key_with_cr_lf_or_stray_whitespace_is_refused(key: str) -> None:
    with pytest.raises(ValueError, match=r"^api_key: ") as info:
        showctl.Scoreboard("127.0.0.1:1", key)
    if key.strip():
        assert "abc" not in str(info.value)


LEAKS = """
    import asyncio, logging, pickle, sys, time
    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout,
                        format="%(levelname)s %(name)s %(message)s")
    import showctl

    key, ok, echo, dead = sys.argv[1:5]
    clients = [
        showctl.MediaPlayer(ok, api_key=key, timeout=0.5, retries=1),
        showctl.MediaPlayer(echo, api_key=key, timeout=0.5, retries=1),
        showctl.MediaPlayer(dead, api_key=key, timeout=0.5, retries=1),
        showctl.Scoreboard(echo, api_key=key, timeout=0.5, retries=1),
        showctl.Scoreboard(dead, api_key=key, timeout=0.5, retries=1),
    ]
    media = [
        (None, "layers", ()), (None, "mute", ()), ("x", "opacity", ()),
        (0, "set_opacity", (0.5,)), (None, "request", ("GET", "/nothing")),
    ]

    async def call_async(obj, name, args):
        return await getattr(obj, name + "_async")(*args)

    for c in clients:
        print("repr", repr(c), str(c), c.url)
        calls = media if isinstance(c, showctl.MediaPlayer) else [(None, "scores", ())]
        for layer, name, args in calls:
            obj = c if layer is None else c.layer(layer)
            print("repr", repr(obj))
            for run in (lambda: getattr(obj, name)(*args),
                        lambda: asyncio.run(call_async(obj, name, args))):
                try:
                    print("result", repr(run()))
                except showctl.ShowctlError as e:
                    print("error", type(e).__name__, str(e), repr(e), repr(e.args))
                    print("attrs", repr(vars(e)))
                    print("pickled", repr(pickle.loads(pickle.dumps(e))))

    # Mirrors, with their own key and with the primary's, failing in both ways.
    mirrored = showctl.MediaPlayer(ok, api_key=key, timeout=0.5, mirrors=[(echo, key), dead])
    for _ in range(3):
        mirrored.mute()
    deadline = time.monotonic() + 10
    while any(m.pending for m in mirrored.mirror_status()) and time.monotonic() < deadline:
        time.sleep(0.05)
    for m in mirrored.mirror_status():
        print("mirror", repr(m), m.url, m.failed, repr(m.last_error), str(m.last_error))
        print("attrs", repr(vars(m.last_error)))
"""


@pytest.mark.parametrize("mode", MODES)
def test_the_key_appears_in_no_repr_message_or_log(
    httpserver: HTTPServer, base_url: str, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    serve_recorded(httpserver, load("errors/401"), times=1)
    serve_recorded(httpserver, load("errors/503"))
    board = showctl.Scoreboard(base_url, KEY, timeout=0.5)
    assert KEY not in repr(board)
    assert KEY not in str(board)
    failures: list[BaseException] = []
    for _ in range(2):  # 401, then 503 three times (retried)
        with pytest.raises(showctl.ApiError) as info:
            scores(board, mode)
        failures.append(info.value)
    with pytest.raises(showctl.ConnectError) as refused:
        scores(showctl.Scoreboard(f"127.0.0.1:{free_port()}", KEY, retries=1), mode)
    failures.append(refused.value)
    with serving(late(3.0)) as url, pytest.raises(showctl.Timeout) as slow:
        scores(showctl.Scoreboard(url, KEY, timeout=0.3, retries=0), mode)
    failures.append(slow.value)
    for err in failures:
        assert KEY not in str(err)
        assert KEY not in repr(err)
        assert all(KEY not in str(v) for v in vars(err).values())
    assert any("retry" in r.getMessage() for r in caplog.records), "no log line was captured"
    assert all(KEY not in r.getMessage() for r in caplog.records)


def test_the_key_appears_in_no_repr_log_line_or_exception(httpserver: HTTPServer) -> None:
    """Every kind of outcome, with logging at DEBUG: the key is sent, and shows nowhere (not
    even where the server echoes it back in an error page or a body)."""

    def echo(seen: Seen) -> Reply:
        header = seen.headers.get("authorization", "")
        page = f"<html><body><pre>Authorization: {header}</pre></body></html>".encode()
        if seen.path.endswith("/layers") or seen.path.endswith("/scores"):
            return 200, page  # not JSON: a DecodeError
        if seen.method == "POST":
            return 401, f"invalid token {header}".encode()
        return 500, page

    with FakeServer(respond(200, b'{"value": 0.5}')) as ok, FakeServer(serve(echo)) as bad:
        dead = f"http://127.0.0.1:{free_port()}"
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(LEAKS), KEY, ok.url, bad.url, dead],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        headers = [s.headers.get("authorization") for s in ok.requests + bad.requests]
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert headers and set(headers) == {f"Bearer {KEY}"}
    # The run saw every kind of outcome and logged them.
    for kind in ["DecodeError", "ServerError", "UnauthorizedError", "ConnectError", "result"]:
        assert kind in output, kind
    # The transport logged each attempt, its failures with their messages, and its retries.
    assert output.count("DEBUG showctl.transport") > 20
    assert "failed in" in output and "INFO showctl.transport" in output
    assert "***" in output  # the echoed key was replaced
    mirrors = [line for line in output.splitlines() if line.startswith("mirror ")]
    assert len(mirrors) == 2 and all(" 3 " in line for line in mirrors), mirrors  # 3 failed
    assert KEY not in output
    assert "SECRET" not in output


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> tuple[ssl.SSLContext, Path]:
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(context)
    pem = tmp_path_factory.mktemp("ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    return context, pem


@pytest.mark.parametrize("mode", MODES)
def test_tls_verification_is_on_by_default(tls: tuple[ssl.SSLContext, Path], mode: str) -> None:
    context, ca_pem = tls
    server = HTTPServer(host="127.0.0.1", port=0, ssl_context=context)
    server.expect_request("/api/0/opacity/layer/0").respond_with_data(
        '{"value": 0.5}', content_type="application/json"
    )
    server.start()
    try:
        url = f"https://127.0.0.1:{server.port}"
        player = showctl.MediaPlayer(url, timeout=2.0, retries=0)
        for call in (("opacity",), ("set_opacity", 0.5)):
            with pytest.raises(showctl.ConnectError, match="certificate") as info:
                invoke(mode, player.layer(0), *call)
            assert "verify=False" in str(info.value)
        assert server.log == []  # nothing was said over an unverified connection
        trusted = showctl.MediaPlayer(url, ca_cert=str(ca_pem), timeout=2.0)
        assert invoke(mode, trusted.layer(0), "opacity") == 0.5
        unverified = showctl.MediaPlayer(url, verify=False, timeout=2.0)
        assert invoke(mode, unverified.layer(0), "opacity") == 0.5
    finally:
        server.stop()


def test_the_key_appears_in_no_cli_output() -> None:
    """The console script with a key: successes (plain and --json), a refused key, a server
    echoing the key in its errors, nothing listening, and the simulator's own banner."""

    def echo(seen: Seen) -> Reply:
        return 500, f"debug: Authorization: {seen.headers.get('authorization')}".encode()

    def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "showctl", *args],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
        )

    commands = [
        ["layers"],
        ["layers", "--json"],
        ["playlists"],
        ["scores", "--json"],
        ["transport"],
        ["opacity", "0", "0.5"],
        ["opacity", "0"],
        ["mute", "0"],
        ["trigger", "0", "0", "--layer", "1"],
        ["request", "GET", "/data/layers"],
    ]
    runs = []
    with (
        showctl.Simulator(api_key=KEY, strict=True) as sim,
        showctl.Simulator(api_key="other", strict=True) as wrong,
    ):
        with FakeServer(serve(echo)) as bad:
            dead = f"http://127.0.0.1:{free_port()}"
            for url in (sim.url, wrong.url, bad.url, dead):
                for command in commands:
                    runs.append(cli("--url", url, "--api-key", KEY, "--timeout", "2", *command))
            runs.append(cli("--url", sim.url, "layers", env={"SHOWCTL_API_KEY": KEY}))
        banner = subprocess.Popen(
            [sys.executable, "-m", "showctl", "simulate", "--api-key", KEY],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            preexec_fn=sigint_default,
        )
        assert banner.stdout is not None
        first = banner.stdout.readline()
        banner.send_signal(signal.SIGINT)
        out, err = banner.communicate(timeout=20)
        sent = {s.headers.get("authorization") for s in bad.requests}
    codes = Counter(r.returncode for r in runs)
    assert codes[0] == len(commands) + 1  # every command worked against the right key
    assert codes[1] == 3 * len(commands)  # and failed (exit 1) against the three others
    assert sent == {f"Bearer {KEY}"}
    everything = first + out + err + "".join(r.stdout + r.stderr for r in runs)
    assert "401" in everything and "refused" in everything and "***" in everything
    assert KEY not in everything
