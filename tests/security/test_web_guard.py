"""The simulator against a web page in the operator's browser (headless Chromium, as the feed
page test runs it): a page on another origin cannot fire a cue, and a page whose name was made
to resolve to 127.0.0.1 (DNS rebinding) can neither read nor command. Without Chromium the
browser tests skip with the reason, or fail under SHOWCTL_REQUIRE_BROWSER=1 (as .ci/run sets)."""

from __future__ import annotations

import http.client
import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import showctl

from tests.kit.browser import Browser, require_chromium

TRIGGER = "/api/0/trigger/playlist/0"
REBIND = "rebind.attacker.example"


@contextmanager
def page_server(html: str) -> Iterator[str]:
    """A web server on another port (another origin) serving one page; yields its URL."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def triggers(sim: showctl.Simulator) -> list[int | None]:
    return [r.status for r in sim.requests if r.path == TRIGGER]


def test_a_page_on_another_origin_cannot_fire_a_cue(tmp_path: Path) -> None:
    require_chromium()
    with showctl.Simulator() as sim:
        script = (
            f"fetch({sim.url + TRIGGER!r}, {{method: 'POST', mode: 'no-cors'}})"
            ".then(() => window.sent = 'answered', e => window.sent = 'failed: ' + e)"
        )
        html = f"<!doctype html><title>another site</title><script>{script}</script>"
        with page_server(html) as page, Browser(tmp_path / "profile") as browser:
            browser.goto(page)
            assert browser.wait_for("window.sent") == "answered"
        # The request arrived (the page cannot read the answer, but it was sent) and was
        # refused before anything ran.
        assert triggers(sim) == [403]
        [refused] = [r for r in sim.requests if r.path == TRIGGER]
        assert dict(refused.headers)["origin"] == page.rstrip("/")
        # Sent as showctl's client sends it (no Origin), the same command is taken.
        showctl.MediaPlayer(sim.url).request("POST", "/trigger/playlist/0")
        assert triggers(sim) == [403, 200]


def test_a_rebound_name_can_neither_read_nor_command(tmp_path: Path) -> None:
    """The page's name resolves to 127.0.0.1 (Chromium's resolver rule stands in for the
    attacker's DNS): the page is then the simulator's own origin, so only Host tells."""
    require_chromium()
    with showctl.Simulator() as sim:
        rule = f"--host-resolver-rules=MAP {REBIND} 127.0.0.1"
        with Browser(tmp_path / "profile", args=(rule,)) as browser:
            browser.goto(f"http://{REBIND}:{sim.port}/api/0/data/scores")
            shown = browser.wait_for("document.body && document.body.innerText")
            assert "is not a name of this server" in shown, shown
            assert "sportMode" not in shown
            # Same-origin script on the rebound page: a read and a command.
            read = browser.evaluate(
                "fetch('/api/0/data/scores').then(async r => r.status + ' ' + await r.text())"
            )
            assert read.startswith("403 refused: Host"), read
            status = browser.evaluate(f"fetch({TRIGGER!r}, {{method: 'POST'}}).then(r => r.status)")
            assert status == 403
        assert triggers(sim) == [403]


def raw(sim: showctl.Simulator, method: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=10)
    try:
        conn.request(method, path, headers=headers)
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def test_host_and_origin_rules_without_a_browser() -> None:
    with showctl.Simulator() as sim:
        port = sim.port
        for host in ("localhost", f"localhost:{port}", f"127.0.0.1:{port}", "127.0.0.2", "[::1]"):
            assert raw(sim, "GET", "/api/0/data/scores", {"Host": host})[0] == 200, host
        for host in (REBIND, f"{REBIND}:{port}", f"0.0.0.0:{port}", "localhost.attacker.example"):
            status, text = raw(sim, "GET", "/api/0/data/scores", {"Host": host})
            assert status == 403 and "is not a name of this server" in text, (host, text)
        own = f"http://127.0.0.1:{port}"
        assert raw(sim, "POST", TRIGGER, {"Origin": own})[0] == 200
        status, text = raw(sim, "POST", TRIGGER, {"Origin": "http://evil.example"})
        assert status == 403 and "another origin (Origin: http://evil.example)" in text, text
        status, text = raw(sim, "POST", TRIGGER, {"Sec-Fetch-Site": "cross-site"})
        assert status == 403 and "cross-site" in text, text
        # showctl's own client, through a loopback name other than the one it was given.
        with showctl.MediaPlayer(f"http://localhost:{port}") as player:
            player.request("POST", "/trigger/playlist/0")
            assert player.layers()


def raw_bytes(sim: showctl.Simulator, request: bytes) -> str:
    """One request written byte for byte, and the whole answer (the server closes after it:
    HTTP/1.0, or `Connection: close`)."""
    with socket.create_connection(("127.0.0.1", sim.port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(4096):
            answer += chunk
    return answer.decode("latin-1")


def test_an_http_1_1_request_with_no_host_or_two_is_a_400() -> None:
    """RFC 9112, section 3.2: an HTTP/1.1 request carries exactly one Host; the simulator says
    400 before anything runs (no command taken). HTTP/1.0 may carry none."""
    with showctl.Simulator() as sim:
        for hosts, count in (
            (b"", 0),
            (b"Host: 127.0.0.1\r\nHost: rebind.attacker.example\r\n", 2),
        ):
            request = f"POST {TRIGGER} HTTP/1.1\r\n".encode() + hosts
            answer = raw_bytes(sim, request + b"Content-Length: 0\r\nConnection: close\r\n\r\n")
            assert answer.startswith("HTTP/1.1 400 "), answer
            assert (
                f"exactly one Host header (RFC 9112, section 3.2); this one carried {count}"
                in answer
            )
        assert triggers(sim) == [400, 400]
        answer = raw_bytes(sim, b"GET /api/0/data/scores HTTP/1.0\r\n\r\n")
        assert answer.startswith("HTTP/1.0 200 "), answer
