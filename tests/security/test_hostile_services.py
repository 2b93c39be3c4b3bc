"""The services showctl runs (the feed, the simulator) against hostile or careless peers: half-open
sockets, descriptor exhaustion, change bursts, readers that stop reading, forked children, and the
feed's per-source connection options."""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from tests.kit.certkit import https_server, make_cert
from tests.kit.recording import load, serve
from tests.kit.wait import until

#: The header timeout the tests give the services (the default is 30 s).
SHORT = 0.5
LAYERS = 100


def host_port(url: str) -> tuple[str, int]:
    rest = url.split("://", 1)[1].split("/", 1)[0]
    host, _, port = rest.rpartition(":")
    return host, int(port)


def get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


# --- one serve path: timeouts and limits -------------------------------------------------------


def closed_within(url: str, timeout: float) -> float:
    """Open a connection that sends half a request head and stops; return how long the server
    took to close it (failing after ``timeout``)."""
    started = time.monotonic()
    with socket.create_connection(host_port(url), timeout=timeout) as s:
        s.sendall(b"GET /api/0/data/scores HTTP/1.1\r\nHost: sho")
        got = s.recv(4096)  # raises socket.timeout when the server keeps it open
    assert got == b"" or got.startswith(b"HTTP/1.1 408"), got
    return time.monotonic() - started


def test_a_half_open_connection_is_closed_within_the_header_timeout() -> None:
    with showctl.Simulator(header_timeout=SHORT) as sim:
        took = closed_within(sim.url, 10.0)
        assert SHORT * 0.9 <= took < SHORT + 2.0, took
        with showctl.Feed(sim.url, header_timeout=SHORT) as feed:
            took = closed_within(feed.url, 10.0)
            assert SHORT * 0.9 <= took < SHORT + 2.0, took
        # Served as before on a fresh connection.
        assert get(sim.url + "/api/0/data/scores")[0] == 200


EXHAUST = textwrap.dedent(
    """
    import resource, sys
    import showctl

    sim = showctl.Simulator(header_timeout=float(sys.argv[1])).start()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[2]), hard))
    print(sim.url, flush=True)
    sys.stdin.read()
    sim.stop()
    """
)


def test_idle_sockets_beyond_the_descriptor_limit_do_not_lock_a_reader_out() -> None:
    """A simulator whose process may hold 128 descriptors, 200 idle sockets against it: accept
    fails (EMFILE) until the idle ones are shed at the header timeout, then a normal GET is
    served; the failure is logged once, not in a loop."""
    limit, idle = 128, 200
    proc = subprocess.Popen(
        [sys.executable, "-c", EXHAUST, "1.0", str(limit)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    sockets: list[socket.socket] = []
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://"), url
        for _ in range(idle):
            s = socket.create_connection(host_port(url), timeout=5)
            s.sendall(b"GET / HT")
            sockets.append(s)
        status, body = get(url + "/api/0/data/scores", timeout=20.0)
        assert status == 200 and body
    finally:
        for s in sockets:
            s.close()
        _, err = proc.communicate("", timeout=20)
    assert proc.returncode == 0, err
    failures = err.count("accept failed")
    assert 1 <= failures <= 3, err[-2000:]


# --- SSE that keeps its promise ---------------------------------------------------------------

TEMPLATE = load("media/transport_state").body_json["data"]


def burst_server(server: HTTPServer) -> None:
    """A media application of LAYERS layers that all start, or all empty, on every poll."""
    playing, empty = TEMPLATE[0]["transportState"], TEMPLATE[1]["transportState"]
    polls = [0]

    def layers(kind: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for i in range(LAYERS):
            state = json.loads(json.dumps(kind))
            state["layer"] = {**playing["layer"], "name": f"L{i}", "uuid": f"UUID-{i:04d}"}
            out.append({"transportState": state})
        return out

    docs = [json.dumps({"data": layers(empty)}), json.dumps({"data": layers(playing)})]

    def answer(_: Request) -> Response:
        polls[0] += 1
        return Response(docs[polls[0] % 2], headers={"Content-Type": "application/json"})

    server.expect_request("/api/0/transportState/workspace").respond_with_handler(answer)


class Events:
    """An `/events` stream on a socket of our own (so its receive buffer can be small)."""

    def __init__(self, url: str, *, recv_buffer: int | None = None, origin: str | None = None):
        host, port = host_port(url)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if recv_buffer is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, recv_buffer)
        sock.settimeout(20)
        sock.connect((host, port))
        self.conn = http.client.HTTPConnection(host, port, timeout=20)
        self.conn.sock = sock
        headers = {"Origin": origin} if origin else {}
        self.conn.request("GET", "/events", headers=headers)
        self.response = self.conn.getresponse()
        assert self.response.status == 200

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        """(event, data) until the stream ends."""
        name = None
        while line := self.response.readline():
            text = line.decode().rstrip("\r\n")
            if text.startswith("event: "):
                name = text[7:]
            elif text.startswith("data: ") and name is not None:
                yield name, json.loads(text[6:])
                name = None

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def bursts(httpserver: HTTPServer) -> Iterator[showctl.Feed]:
    burst_server(httpserver)
    with showctl.Feed(httpserver.url_for("/"), interval=0.1) as feed:
        yield feed


def test_a_burst_of_100_layer_changes_reaches_a_prompt_reader(bursts: showctl.Feed) -> None:
    events = Events(bursts.url)
    try:
        per_poll: list[int] = []
        changed: set[int] = set()
        for name, data in events:
            assert name != "end", data
            if name == "layer":
                changed.add(data["layer_index"])
            elif name == "transport" and changed:
                per_poll.append(len(changed))
                changed = set()
                if len(per_poll) == 5:
                    break
        # Every poll changed every layer: each burst arrived whole, and the reader stayed.
        assert per_poll == [LAYERS] * 5, per_poll
        assert bursts.sse_clients == 1
    finally:
        events.close()


def test_a_stalled_reader_is_dropped_with_a_last_event_and_a_reconnect_gets_a_snapshot(
    bursts: showctl.Feed,
) -> None:
    stalled = Events(bursts.url, recv_buffer=4096)
    try:
        until(lambda: bursts.sse_clients == 1, "the reader connected", 10)
        # Stop reading: the socket fills, the reader falls behind and is dropped.
        until(lambda: bursts.sse_clients == 0, "the stalled reader was dropped", 60)
        # What was buffered, then the last event saying why, then the end of the stream.
        seen = list(stalled)
        assert seen, "nothing came"
        name, data = seen[-1]
        assert name == "end", seen[-3:]
        assert "stopped reading" in data["reason"], data
    finally:
        stalled.close()
    again = Events(bursts.url)
    try:
        name, doc = next(iter(again))
        assert name == "transport"
        assert doc["polled_at"] is not None and len(doc["layers"]) == LAYERS
    finally:
        again.close()


def test_events_carry_the_cors_and_cache_headers_of_the_documents(sim_url: str) -> None:
    with showctl.Feed(sim_url) as feed:
        events = Events(feed.url, origin="https://graphics.example")
        try:
            headers = events.response.headers
            assert headers["Content-Type"] == "text/event-stream"
            assert headers["Access-Control-Allow-Origin"] == "*"
            assert headers["Cache-Control"] == "no-store"
            # A reverse proxy passes the stream on as it comes (docs/feed.md, behind nginx).
            assert headers["X-Accel-Buffering"] == "no"
        finally:
            events.close()
        # A document may be kept by a reader, which asks whether it is still current (ETag).
        with urllib.request.urlopen(feed.url + "transport.json", timeout=5) as r:
            assert r.headers["Access-Control-Allow-Origin"] == "*"
            assert r.headers["Cache-Control"] == "no-cache"
            assert r.headers["ETag"]


def test_stopping_the_feed_ends_each_stream_with_a_last_event(sim_url: str) -> None:
    feed = showctl.Feed(sim_url).start()
    events = Events(feed.url)
    try:
        until(lambda: feed.sse_clients == 1, "the reader connected", 10)
        feed.stop()
        name, data = list(events)[-1]
        assert (name, data) == ("end", {"reason": "the feed is stopping"})
    finally:
        events.close()


@pytest.fixture
def sim_url() -> Iterator[str]:
    with showctl.Simulator() as sim:
        yield sim.url


# --- forked children --------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork() is POSIX only")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork() with threads
def test_stop_in_a_forked_child_returns_and_the_parent_keeps_serving() -> None:
    with showctl.Simulator() as sim, showctl.Feed(sim.url) as feed:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: stop one, leave the other's `with`, report
            try:
                sim.stop()
                feed.__exit__(None, None, None)
                assert not sim.running and not feed.running
                with showctl.Simulator() as own:  # the child can run its own
                    urllib.request.urlopen(own.url + "/api/0/data/scores", timeout=5).close()
                os.write(w, b"ok")
            finally:
                os._exit(0)
        os.close(w)
        try:
            ready, _, _ = select.select([r], [], [], 20)
            got = os.read(r, 2) if ready else b""
        finally:
            os.close(r)
            if not got:
                os.kill(pid, 9)
            os.waitpid(pid, 0)
        assert got == b"ok", "stop() hung in the forked child"
        assert get(sim.url + "/api/0/data/scores")[0] == 200
        assert get(feed.url + "transport.json")[0] == 200
        assert sim.running and feed.running


# --- the feed's per-source connection options --------------------------------------------------


def test_each_source_takes_its_own_url_key_and_certificate_pin(tmp_path: Path) -> None:
    media_cert = make_cert(tmp_path, name="media")
    board_cert = make_cert(tmp_path, name="board")
    assert media_cert.fingerprint != board_cert.fingerprint
    media_gen, board_gen = https_server(media_cert), https_server(board_cert)
    media, board = next(media_gen), next(board_gen)
    try:
        serve(media, load("media/transport_state"))
        serve(board, load("scoreboard/basketball"))
        with showctl.Feed(
            {"url": media.url_for("/"), "tls_fingerprint": media_cert.fingerprint},
            {
                "url": board.url_for("/"),
                "tls_fingerprint": board_cert.fingerprint,
                "api_key": "board-key",
            },
            api_key="media-key",
        ) as feed:
            transport, scores = feed.transport(), feed.scores()
            assert transport["polled_at"] and not transport["stale"], transport
            assert scores["polled_at"] and not scores["stale"], scores
        keys = {
            "media": {r.headers.get("Authorization") for r, _ in media.log},
            "board": {r.headers.get("Authorization") for r, _ in board.log},
        }
        assert keys == {"media": {"Bearer media-key"}, "board": {"Bearer board-key"}}
        # Pins swapped: each source refuses the other's certificate, and says so.
        with showctl.Feed(
            {"url": media.url_for("/"), "tls_fingerprint": board_cert.fingerprint},
            {"url": board.url_for("/"), "tls_fingerprint": media_cert.fingerprint},
        ) as feed:
            for doc in (feed.transport(), feed.scores()):
                assert doc["stale"] and doc["polled_at"] is None, doc
                assert "fingerprint" in doc["error"], doc
    finally:
        for gen in (media_gen, board_gen):
            gen.close()


def test_a_source_dict_is_checked_and_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match=r'^media: unknown key "token"'):
        showctl.Feed({"url": "http://127.0.0.1:1", "token": "x"})
    with pytest.raises(ValueError, match=r'^scoreboard: the dict has no "url"'):
        showctl.Feed(scoreboard={"api_key": "k"})
    with pytest.raises(TypeError, match=r"^scoreboard\[\"verify\"\]: expected a bool"):
        showctl.Feed(scoreboard={"url": "http://127.0.0.1:1", "verify": "no"})
    with pytest.raises(TypeError, match=r"^media: expected a URL or a dict"):
        showctl.Feed(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^media: url: contains a space"):
        showctl.Feed("http://bad host")
    with pytest.raises(ValueError, match=r"^scoreboard: tls_fingerprint: "):
        showctl.Feed(scoreboard={"url": "http://127.0.0.1:1", "tls_fingerprint": "AA:BB"})


def test_a_bad_host_is_named_as_the_host() -> None:
    with pytest.raises(ValueError, match=r'^host: "bad host" is not an IP address'):
        showctl.Feed("http://127.0.0.1:1", host="bad host")
    with pytest.raises(ValueError, match=r'^host: "bad host" is not an IP address'):
        showctl.Simulator(host="bad host")
    with pytest.raises(ValueError, match=r"^header_timeout: must be a number of seconds"):
        showctl.Simulator(header_timeout=31)


# --- ready on entry ---------------------------------------------------------------------------


def test_the_feed_is_ready_on_entry_and_says_why_a_source_has_no_data() -> None:
    with showctl.Simulator() as sim:
        with showctl.Feed(sim.url, sim.url) as feed:
            # No waiting: `with` returned once each source answered.
            assert feed.transport()["polled_at"] is not None
            assert feed.scores()["polled_at"] is not None
            assert feed.wait_ready(0) is True
    # A source that accepts and never answers: stale two intervals later, with why.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        with showctl.Feed(url, interval=0.2, timeout=5) as feed:
            took = time.monotonic() - started
            doc = feed.transport()
        assert took < 2.0, took
        assert doc["polled_at"] is None and doc["stale"], doc
        assert doc["error"].startswith("no answer from"), doc
    feed = showctl.Feed(url, interval=0.2)
    assert feed.wait_ready(0) is True  # not started: nothing to wait for


def test_the_cli_feed_takes_per_source_connection_options() -> None:
    # Each application takes a different key: one key for both would leave one stale (401).
    media_sim = showctl.Simulator(api_key="media-secret")
    board_sim = showctl.Simulator(api_key="board-secret")
    with media_sim as media, board_sim as board:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "showctl",
                "feed",
                "--json",
                "--media",
                media.url,
                "--media-api-key",
                "media-secret",
                "--scoreboard",
                board.url,
                "--scoreboard-api-key",
                "board-secret",
                "--scoreboard-insecure",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "SHOWCTL_API_KEY": ""},
        )
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line, proc.communicate(timeout=10)
            url = json.loads(line)["url"]
            transport = json.loads(get(url + "transport.json")[1])
            scores = json.loads(get(url + "scores.json")[1])
            assert transport["polled_at"] and not transport["stale"], transport
            assert scores["polled_at"] and not scores["stale"], scores
        finally:
            proc.terminate()
            proc.communicate(timeout=10)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "showctl",
            "feed",
            "--scoreboard",
            "http://127.0.0.1:1",
            "--media-api-key",
            "k",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 2, bad
    assert "--media-* options given without --media URL" in bad.stderr, bad.stderr
