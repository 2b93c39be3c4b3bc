"""Every Python block of README.md and docs/*.md runs as written against the simulator, and
passes ``mypy --strict``: what a new user copies first has to work on the first try.

The blocks of one page run in order in one namespace, as a reader runs them in one session
(a later block uses the ``player`` an earlier one made). The only thing a reader changes is the
placeholder address of their application (docs/contributing.md, "Examples in the docs"):
``http://10.0.0.5:4000`` and any other address in 10.0.0.0/8 or 192.168.0.0/16, with or
without ``http://``. Here each distinct placeholder becomes the URL of a simulator of its own
(the default workspace), so the names the blocks use must exist there.

Each simulator plays the score by itself (``Simulator(score_tick=0.2)``, as
``showctl simulate --score-tick`` does): a team scores every 0.2 s and the period ends every
fifth tick, so a block that follows the game (``board.watch()``) sees changes and ends where it
says it ends, with nothing but the simulator running. Each block gets ``BLOCK_SECONDS``: a block
that runs longer fails, naming its line, rather than hanging the page.

A block that cannot run here (it needs a second machine or real hardware) is marked on the line
above its fence, ``<!-- docs-test: skip: needs real hardware: WHY -->``, and is not run; each
marked block is reported as a skipped test with its reason.

Blocks are found with pytest-examples (``find_examples``) and run with its ``EvalExample``,
which also reports a failure at the line of the Markdown file."""

from __future__ import annotations

import functools
import inspect
import os
import re
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import showctl
from pytest_examples import CodeExample, EvalExample, find_examples

from tests.kit.certkit import Cert, make_cert

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: A placeholder address: a private 10.x or 192.168.x address with a port, with or without
#: its scheme. The whole match is replaced by a simulator's ``http://127.0.0.1:PORT``, or for
#: ``https://`` by a TLS front of the simulator presenting a self-signed certificate.
PLACEHOLDER = re.compile(
    r"(?:https?://)?(?:10\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3}):\d+"
)
#: The placeholder of that certificate's pin (what ``showctl probe`` prints for the address).
PIN_PLACEHOLDER = re.compile(r"sha256:[0-9a-f]{0,8}…")
#: A certificate file named in a block (``ca_cert="board.pem"``): the test writes the
#: certificate of the page's HTTPS addresses there.
PEM_FILE = re.compile(r"\"([\w-]+\.pem)\"")


#: How often each simulator of a page plays the score (seconds).
SCORE_TICK = 0.2
#: The longest a block may run (seconds); a page of blocks runs within pytest's own timeout.
BLOCK_SECONDS = 20.0
#: The mark of a block that cannot run on the simulator, on the line above its fence.
SKIP_MARK = re.compile(
    r"^<!-- docs-test: skip: (?P<why>needs (?:a second machine|real hardware)\S*.+?) -->$"
)


def python_blocks(page: Path) -> list[CodeExample]:
    """The page's ```python blocks, in order."""
    return [ex for ex in find_examples(page) if ex.prefix.strip().startswith("python")]


def skip_reason(block: CodeExample) -> str | None:
    """Why the block is not run (its mark), or None. A ``docs-test`` comment above a fence that
    does not match the mark's form is an error, not a silent run or skip."""
    lines = block.path.read_text(encoding="utf-8").splitlines()
    above = lines[block.start_line - 2].strip() if block.start_line >= 2 else ""
    if "docs-test" not in above:
        return None
    mark = SKIP_MARK.match(above)
    assert mark, (
        f"{block.path.name}:{block.start_line - 1}: {above!r} is not a skip mark: write "
        "<!-- docs-test: skip: needs a second machine: WHY --> (or needs real hardware: WHY)"
    )
    return mark.group("why")


PAGES_WITH_CODE = [p for p in PAGES if python_blocks(p)]
MARKED = [(b, why) for p in PAGES_WITH_CODE for b in python_blocks(p) if (why := skip_reason(b))]


def test_placeholders_are_recognised() -> None:
    src = 'a("http://10.0.0.5:4000"); b("192.168.1.20:8080"); c("https://10.1.2.3:8443")'
    assert PLACEHOLDER.findall(src) == [
        "http://10.0.0.5:4000",
        "192.168.1.20:8080",
        "https://10.1.2.3:8443",
    ]
    assert PLACEHOLDER.findall("http://127.0.0.1:8080 and 10.0.0.5 without a port") == []


def test_every_page_with_python_is_covered() -> None:
    names = {p.name for p in PAGES_WITH_CODE}
    # The pages a new user reads first; a page losing its blocks by a fence typo shows here.
    assert {"README.md", "media.md", "scoreboard.md", "automation.md"} <= names


class TlsFront(socketserver.ThreadingTCPServer):
    """HTTPS on 127.0.0.1 in front of a simulator (which speaks plain HTTP): each connection's
    TLS is ended here and its bytes relayed to the simulator's port."""

    daemon_threads = True

    def __init__(self, cert: Cert, upstream: int) -> None:
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert.cert, cert.key)
        self.upstream = upstream
        super().__init__(("127.0.0.1", 0), _Relay)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.server_address[1]}"


class _Relay(socketserver.BaseRequestHandler):
    server: TlsFront

    def handle(self) -> None:
        try:
            tls = self.server.context.wrap_socket(self.request, server_side=True)
        except (ssl.SSLError, OSError):
            return  # a client that refused the certificate
        with tls, socket.create_connection(("127.0.0.1", self.server.upstream)) as plain:
            back = threading.Thread(target=_pump, args=(plain, tls), daemon=True)
            back.start()
            _pump(tls, plain)
            back.join(timeout=5)


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


class Show:
    """Simulators standing in for each placeholder address of a page, and the show that goes
    on in them while the page runs."""

    def __init__(self, directory: Path) -> None:
        self.sims: dict[str, showctl.Simulator] = {}
        self.fronts: list[TlsFront] = []
        self.cert = make_cert(directory, name="application", ca=True)

    def url_for(self, placeholder: str) -> str:
        host = placeholder.split("://")[-1]
        if host not in self.sims:
            self.sims[host] = showctl.Simulator(score_tick=SCORE_TICK).start()
        sim = self.sims[host]
        if placeholder.startswith("https://"):
            front = TlsFront(self.cert, sim.port)
            self.fronts.append(front)
            return front.url
        return sim.url

    def substitute(self, source: str) -> str:
        source = PLACEHOLDER.sub(lambda m: self.url_for(m.group(0)), source)
        for name in PEM_FILE.findall(source):
            Path(name).write_bytes(self.cert.cert.read_bytes())
        return PIN_PLACEHOLDER.sub(self.cert.fingerprint, source)

    def __enter__(self) -> Show:
        return self

    def __exit__(self, *exc: object) -> None:
        for front in self.fronts:
            front.shutdown()
            front.server_close()
        for sim in self.sims.values():
            sim.stop()


@pytest.fixture
def show(tmp_path: Path) -> Iterator[Show]:
    with Show(tmp_path) as s:
        yield s


class BlockTooLong(Exception):
    """A block ran past ``BLOCK_SECONDS``."""


class block_time_limit:
    """Raise ``BlockTooLong`` in the block after ``seconds`` (SIGALRM, which a blocking showctl
    call also answers, as it answers Ctrl-C). pytest-timeout's own alarm, when set, is put back
    afterwards with the time it had left."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def _expired(self, signum: int, frame: object) -> None:
        raise BlockTooLong(f"did not end within {self.seconds:g} s")

    def __enter__(self) -> None:
        self.started = time.monotonic()
        self.armed = hasattr(signal, "SIGALRM")  # not on Windows: pytest's timeout still holds
        if not self.armed:
            return
        self.handler = signal.signal(signal.SIGALRM, self._expired)
        self.outer, _ = signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        if not self.armed:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.handler)
        if self.outer:
            left = self.outer - (time.monotonic() - self.started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))


def run_page(page: Path, show: Show, directory: Path, eval_example: EvalExample) -> int:
    """Run the page's blocks in order in one namespace, each within ``BLOCK_SECONDS``; the
    marked ones are left out. Returns how many ran; a failure names the page's line."""
    namespace: dict[str, object] = {}
    ran = 0
    for block in python_blocks(page):
        if skip_reason(block):
            continue
        block.source = show.substitute(block.source)
        ran += 1
        if file_name(block):
            run_file_block(block, directory, show)
            continue
        failure = None
        try:
            with block_time_limit(BLOCK_SECONDS):
                namespace.update(eval_example.run(block, module_globals=namespace))
        except Exception as exc:
            # pytest cannot render the traceback pytest-examples rewrites onto the Markdown
            # file: the failure names the line of the page instead.
            line = block.start_line
            tb = exc.__traceback__
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == str(page):
                    line = tb.tb_lineno
                tb = tb.tb_next
            failure = f"{page.name}:{line}: {type(exc).__name__}: {exc}"
        if failure is not None:
            pytest.fail(failure, pytrace=False)
    return ran


@pytest.mark.timeout(120)
@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: p.name)
def test_the_python_blocks_run(
    page: Path,
    show: Show,
    tmp_path: Path,
    eval_example: EvalExample,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # a block that writes files writes them here
    marked = sum(1 for b, _ in MARKED if b.path == page)
    assert run_page(page, show, tmp_path, eval_example) == len(python_blocks(page)) - marked


if MARKED:  # each marked block shows in pytest's report as skipped, with its reason

    @pytest.mark.parametrize(
        "block,why", MARKED, ids=[f"{b.path.name}:{b.start_line}" for b, _ in MARKED]
    )
    def test_a_marked_block_is_skipped_with_its_reason(block: CodeExample, why: str) -> None:
        pytest.skip(f"{block.path.name}:{block.start_line}: {why}")


@pytest.mark.skipif(
    not hasattr(signal, "SIGALRM"), reason="the per-block limit uses SIGALRM (not on Windows)"
)
def test_the_runner_skips_a_marked_block_ends_a_long_one_and_fails_a_broken_one(
    tmp_path: Path, eval_example: EvalExample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page runner on a page of its own: a marked block is not run, a block that never
    ends fails at its line within ``BLOCK_SECONDS``, a failing one fails at its line, and a
    mark that is not of the documented form is refused."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "BLOCK_SECONDS", 0.5)
    page = tmp_path / "page.md"

    def run(text: str) -> str:
        page.write_text(text, encoding="utf-8")
        with Show(tmp_path) as show:
            try:
                return f"ran {run_page(page, show, tmp_path, eval_example)}"
            except pytest.fail.Exception as e:
                return str(e)

    marked = "<!-- docs-test: skip: needs real hardware: a video router -->\n"
    hang = (
        "```python\nimport showctl\n\n"
        "for r in showctl.Scoreboard('10.0.0.9:80').watch(0.05):\n    pass\n```\n"
    )
    broken = "```python\nraise RuntimeError('broken')\n```\n"
    fine = "```python\nx = 1\n```\n"
    assert run(fine + "\n" + marked + broken) == "ran 1"
    assert run(fine + "\n" + hang) == "page.md:8: BlockTooLong: did not end within 0.5 s"
    assert run(fine + "\n" + broken) == "page.md:6: RuntimeError: broken"
    with pytest.raises(AssertionError, match="not a skip mark"):
        run("<!-- docs-test: skip it -->\n" + broken)


def file_name(block: CodeExample) -> str | None:
    """The file a block is (```python title="cue_sheet.py"), or None for a block a reader
    runs in their session."""
    title = block.prefix_settings().get("title")
    return title if title and title.endswith(".py") else None


def run_file_block(block: CodeExample, directory: Path, show: Show) -> None:
    """Save the block as the file it names; a test file is then run with pytest, as the page
    says, after recording each workspace it names from a simulator (``showctl record``)."""
    name = file_name(block)
    assert name is not None
    (directory / name).write_text(block.source, encoding="utf-8")
    if not name.startswith("test_"):
        return
    for venue in re.findall(r'showctl_workspace\("([\w-]+)"\)', block.source):
        showctl.MediaPlayer(show.url_for("10.255.0.1:4000")).record(directory / venue)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name],
        capture_output=True,
        text=True,
        cwd=directory,
        timeout=60,
    )
    assert done.returncode == 0, f"{block.path.name}:{block.start_line}: {name}\n{done.stdout}"


def mypy_strict(files: list[str], cache: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(cache),
            *files,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "MYPY_FORCE_COLOR": "0"},
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_python_blocks_pass_mypy_strict(tmp_path: Path) -> None:
    """Each page's blocks, joined in order as one module (they share one namespace when run),
    and the example scripts; then the blocks that are files of their own, checked together
    apart (docs/testing.md's ``cue_sheet.py`` shares its module name with the example's)."""
    files, own = [], []
    (tmp_path / "files").mkdir()
    for page in PAGES_WITH_CODE:
        blocks = python_blocks(page)
        for block in blocks:
            name = file_name(block)
            if name:
                (tmp_path / "files" / name).write_text(block.source, encoding="utf-8")
                own.append(str(tmp_path / "files" / name))
        module = "\n".join(b.source for b in blocks if not file_name(b))
        if module:
            path = tmp_path / f"{page.stem.lower().replace('-', '_')}_md.py"
            path.write_text(module, encoding="utf-8")
            files.append(str(path))
    assert own, "no block is a file of its own: the second check would check nothing"
    mypy_strict([*files, str(ROOT / "examples")], tmp_path / "cache")
    mypy_strict(own, tmp_path / "cache")


# The API reference (docs/reference.md): mkdocstrings renders griffe's static view of the
# package (mkdocs.yml: the stubs, allow_inspection false) through scripts/griffe_summaries.py.
# griffe comes with the test extra (and the docs extra, through mkdocstrings).

ROLE = re.compile(r":(?:class|meth|func|attr|mod|exc|obj):`")


def griffe_extensions() -> Any:
    """scripts/griffe_summaries.py, on griffe (griffelib 2, the test extra, needs Python 3.10:
    on 3.9 the reference's tests skip, saying so; the site is built on a newer Python)."""
    pytest.importorskip("griffe", reason="griffelib 2 (the API reference's reader) needs 3.10+")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import griffe_summaries
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return griffe_summaries


@functools.lru_cache(maxsize=1)
def reference_package() -> Any:
    """The package as the site's mkdocstrings loads it: the stubs, with the griffe extensions
    mkdocs.yml names."""
    griffe_summaries = griffe_extensions()
    griffe = griffe_summaries.griffe
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    names = re.findall(r"^\s*- scripts/griffe_summaries\.py:(\w+)$", config, flags=re.MULTILINE)
    assert names, "mkdocs.yml names no extension of scripts/griffe_summaries.py"
    return griffe.load(
        "showctl",
        search_paths=[str(ROOT / "python")],
        allow_inspection=False,
        extensions=griffe.Extensions(*(getattr(griffe_summaries, n)() for n in names)),
    )


@functools.lru_cache(maxsize=1)
def reference_objects() -> list[Any]:
    package = reference_package()
    found: list[Any] = []

    def visit(obj: Any) -> None:
        found.append(obj)
        for member in obj.members.values():
            if not member.is_alias:
                visit(member)

    visit(package)
    return found


def test_every_summary_of_the_reference_is_a_whole_sentence() -> None:
    cut = [
        f"{obj.path}: {obj.docstring.value.splitlines()[0]!r}"
        for obj in reference_objects()
        if obj.docstring is not None
        and not obj.docstring.value.splitlines()[0].rstrip().endswith((".", ":", "?", ")"))
    ]
    assert cut == []


def test_the_reference_has_no_raw_roles_and_no_doubled_article() -> None:
    bad = [
        obj.path
        for obj in reference_objects()
        if obj.docstring is not None
        and (ROLE.search(obj.docstring.value) or re.match(r"A [AEIOU]", obj.docstring.value))
    ]
    assert bad == []


def test_the_reference_shows_each_constructor_and_the_inherited_methods() -> None:
    """mkdocstrings shows a constructor as a merged ``__init__`` (mkdocs.yml:
    ``merge_init_into_class``) and a base class's methods with ``inherited_members``: each class
    made by ``__new__`` has one with every parameter, and the clients show ``probe``,
    ``record`` and ``close`` of their private base class."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s+merge_init_into_class: true$", config, flags=re.MULTILINE)
    assert re.search(r"^\s+inherited_members: true$", config, flags=re.MULTILINE)
    package = reference_package()
    for name, cls in [
        ("MediaPlayer", showctl.MediaPlayer),
        ("Scoreboard", showctl.Scoreboard),
        ("Simulator", showctl.Simulator),
        ("Feed", showctl.Feed),
    ]:
        entry = package[name].final_target
        init = entry.all_members.get("__init__")
        assert init is not None, name
        shown = [p.name for p in init.parameters][1:]
        assert shown == list(inspect.signature(cls).parameters), name
        assert "Args:" in init.docstring.value or name not in ("MediaPlayer", "Scoreboard")
    for client in ("MediaPlayer", "Scoreboard"):
        members = package[client].final_target.all_members
        assert {"probe", "probe_async", "record", "close"} <= set(members), client


def test_a_summary_is_the_first_sentence_and_the_text_is_unchanged() -> None:
    first_sentence_first = griffe_extensions().first_sentence_first
    text = (
        "Send many commands at most\n`concurrency` at a time. Returns a list, e.g. `[r]`.\n\nMore."
    )
    assert first_sentence_first(text) == (
        "Send many commands at most `concurrency` at a time.\nReturns a list, e.g. `[r]`.\n\nMore."
    )
    listed = "Options:\n- one\n- two"
    assert first_sentence_first(listed) == listed


def shell_lines(page: Path) -> list[str]:
    """The command lines of a page's ```sh blocks."""
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_install_commands_work_today() -> None:
    """showctl is not on PyPI yet, so no page tells a reader to ``pip install showctl``; every
    command that builds the package from source turns maturin's silent toolchain download off,
    so that without Rust it stops at once saying so (docs/install.md)."""
    lines = [(p.name, line) for p in PAGES for line in shell_lines(p)]
    assert any("pip install ." in line for _, line in lines)
    unpublished = [
        f"{n}: {line}" for n, line in lines if re.search(r"pip install showctl(\s|$|\[|=)", line)
    ]
    assert unpublished == []
    builds = [
        f"{n}: {line}"
        for n, line in lines
        if re.search(r"pip install (-e )?(\.|\"\.|showctl-.*\.tar\.gz)", line)
        and "MATURIN_NO_INSTALL_RUST=1" not in line
    ]
    assert builds == []
