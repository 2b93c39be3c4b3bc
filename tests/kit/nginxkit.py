"""nginx in front of a feed, with the configuration docs/feed.md shows (examples/nginx-feed.conf)
and nothing else: its four site values are replaced (the feed's address, the port, the cache
and the files directory), each of which must occur exactly once, so the example and what the
tests and the benchmark run cannot drift apart.

When run as root, the workers run as `nobody`, as a web server runs as a user of its own: files
the feed writes must be readable by another user.
"""

from __future__ import annotations

import grp
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nginx-feed.conf"


def find_nginx() -> str | None:
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None


def require_nginx() -> str:
    """The nginx binary; skip with a reason where it is missing, unless the run requires it
    (`SHOWCTL_REQUIRE_NGINX=1`, set by .ci/run, which installs it): then fail."""
    nginx = find_nginx()
    if nginx is None:
        import pytest  # only here: the benchmark uses this kit without pytest installed

        if os.environ.get("SHOWCTL_REQUIRE_NGINX") == "1":
            pytest.fail("nginx is required here (SHOWCTL_REQUIRE_NGINX=1) but not installed")
        pytest.skip("nginx is not installed (apt-get install nginx-light; CI installs it)")
    return nginx


def port_to_listen_on() -> int:
    """A free loopback port, released for nginx to bind (netkit's `free_port` keeps its port
    bound, so that nothing listens there)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def site(example: str, feed: str, port: int, cache: Path, files: Path) -> str:
    """The example with this run's values in place of its own."""
    replace = {
        "server 127.0.0.1:8090;": f"server {feed};",
        "listen 8080;": f"listen 127.0.0.1:{port};",
        "/var/cache/showctl-nginx ": f"{cache} ",
        "alias /srv/showctl/;": f"alias {files}/;",
    }
    for old, new in replace.items():
        count = example.count(old)
        assert count == 1, f"examples/nginx-feed.conf: {old!r} occurs {count} times, not once"
        example = example.replace(old, new)
    return example


@dataclass
class Nginx:
    url: str
    work: Path
    pid: int

    def pids(self) -> list[int]:
        """The master and its workers now (the workers start after the port listens)."""
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        return [self.pid, *map(int, children)]

    def log(self) -> list[str]:
        """The access log: `CACHE_STATUS STATUS URI` per request (`-` when not cached)."""
        path = self.work / "access.log"
        return path.read_text().splitlines() if path.exists() else []


def _worker_user() -> str:
    if os.geteuid() != 0:
        return ""
    group = "nogroup"
    try:
        grp.getgrnam(group)
    except KeyError:
        group = "nobody"
    return f"user nobody {group};\n"


@contextmanager
def served_dir() -> Iterator[Path]:
    """A directory a web server running as another user may read (for the feed's `write=`)."""
    path = Path(tempfile.mkdtemp(prefix="showctl-files-"))
    try:
        path.chmod(0o755)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def nginx_in_front(feed_addr: str, files: Path, *, workers: int = 1) -> Iterator[Nginx]:
    """nginx serving examples/nginx-feed.conf in front of the feed at `feed_addr`
    (`host:port`), and `files` (where the feed writes) as `/files/`."""
    nginx = require_nginx()
    work = Path(tempfile.mkdtemp(prefix="showctl-nginx-"))
    try:
        work.chmod(0o755)  # the workers run as another user
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (work / "tmp" / sub).mkdir(parents=True)
        port = port_to_listen_on()
        (work / "site.conf").write_text(
            site(EXAMPLE.read_text(), feed_addr, port, work / "cache", files)
        )
        (work / "nginx.conf").write_text(
            f"daemon off;\nworker_processes {workers};\npid {work}/nginx.pid;\n"
            f"error_log {work}/error.log warn;\n{_worker_user()}"
            "events { worker_connections 4096; }\n"
            "http {\n"
            "    log_format cache '$upstream_cache_status $status $request_uri';\n"
            f"    access_log {work}/access.log cache;\n"
            f"    client_body_temp_path {work}/tmp/body;\n"
            f"    proxy_temp_path {work}/tmp/proxy;\n"
            f"    fastcgi_temp_path {work}/tmp/fastcgi;\n"
            f"    uwsgi_temp_path {work}/tmp/uwsgi;\n"
            f"    scgi_temp_path {work}/tmp/scgi;\n"
            f"    include {work}/site.conf;\n"
            "}\n"
        )
        proc = subprocess.Popen(
            [nginx, "-c", str(work / "nginx.conf"), "-p", str(work)],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _wait_listening(port, proc, work)
            yield Nginx(f"http://127.0.0.1:{port}/", work, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _wait_listening(port: int, proc: subprocess.Popen[str], work: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _, err = proc.communicate()
            log = (work / "error.log").read_text() if (work / "error.log").exists() else ""
            raise RuntimeError(f"nginx exited ({proc.returncode}): {err}{log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)  # nginx gives no readiness signal but the listening socket
    raise RuntimeError("nginx did not start listening within 10 s")
