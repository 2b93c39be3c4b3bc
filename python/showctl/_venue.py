"""Venues: the report of ``showctl.probe_venue()`` and ``showctl probe --venue`` (every source
of a venue file checked at once; the checks run in the Rust core)."""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
from dataclasses import asdict, dataclass
from typing import Any

from showctl import _core
from showctl._reports import ProbeReport

__all__ = [
    "MirrorReport",
    "SimulatedSource",
    "SimulatedVenue",
    "SourceReport",
    "VenueReport",
    "probe_venue",
    "probe_venue_async",
    "simulate_venue",
]


@dataclass(frozen=True)
class MirrorReport:
    """What the probe of one mirror of a media source found (a player that receives every
    command the source gets)."""

    url: str
    #: The probe's report; ``None`` when no client could be built (see ``error``).
    report: ProbeReport | None
    #: Why no probe ran.
    error: str | None
    #: Seconds this mirror's probe took.
    seconds: float
    #: The mirror pins its own certificate.
    pinned: bool

    @property
    def ok(self) -> bool:
        """The mirror can be used as configured."""
        return self.report is not None and self.report.ok

    @property
    def problem(self) -> str | None:
        """Why the mirror cannot be used (None when it can)."""
        if self.ok:
            return None
        if self.report is None:
            return self.error
        return self.report.problems[0] if self.report.problems else "not usable"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MirrorReport:
        report = ProbeReport.from_dict(data["report"]) if data["report"] else None
        return cls(**{**data, "report": report})


@dataclass(frozen=True)
class SourceReport:
    """What the probe of one named source found."""

    name: str
    #: ``"media"`` or ``"scoreboard"``.
    kind: str
    #: The probe's report; ``None`` when no client could be built (see ``error``).
    report: ProbeReport | None
    #: Why no probe ran (a CA file that cannot be read, ...).
    error: str | None
    #: Seconds this source's probe took.
    seconds: float
    #: The source pins its certificate (``tls_fingerprint``).
    pinned: bool
    #: The source checks the certificate.
    verify: bool
    #: A media source's mirrors, each probed as the source is (empty without mirrors).
    mirrors: tuple[MirrorReport, ...] = ()

    @property
    def ok(self) -> bool:
        """The source can be used as configured: it and every mirror of it."""
        return self.report is not None and self.report.ok and all(m.ok for m in self.mirrors)

    def _mirrors(self) -> str:
        if not self.mirrors:
            return "-"
        usable = sum(1 for m in self.mirrors if m.ok)
        return f"{usable} of {len(self.mirrors)} ok"

    def row(self) -> dict[str, str]:
        """The summary row: source, kind, reachable, TLS and pin, auth, slowest read, verdict."""
        r = self.report
        if r is None:
            return {
                "source": self.name,
                "kind": self.kind,
                "reachable": "-",
                "tls": "-",
                "auth": "-",
                "slowest": "-",
                "mirrors": self._mirrors(),
                "verdict": f"FAIL: {self.error}",
            }
        if r.tls is not None:
            tls = "https"
            if self.pinned:
                tls += ", pinned"
            elif not self.verify:
                tls += ", not verified"
            if r.tls.expired:
                tls += ", expired"
        else:
            tls = r.scheme
        slowest = "-"
        if r.slowest is not None:
            slowest = f"{_short_path(r.slowest.path)} {r.slowest.seconds * 1000:.0f} ms"
        verdict = "ok" if r.ok else "FAIL: " + (r.problems[0] if r.problems else "not usable")
        failed = next((m for m in self.mirrors if not m.ok), None)
        if r.ok and failed is not None:
            verdict = f"FAIL: mirror {failed.url}: {failed.problem}"
        return {
            "source": self.name,
            "kind": self.kind,
            "reachable": "yes" if r.reachable else "no",
            "tls": tls,
            "auth": r.auth,
            "slowest": slowest,
            "mirrors": self._mirrors(),
            "verdict": verdict,
        }


_UUID = re.compile(r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}")
#: The longest path the "slowest read" column shows (the full path is in ``--json``).
SLOWEST_WIDTH = 44


def _short_path(path: str) -> str:
    """A read's path for the summary table: each UUID cut to its first 8 digits
    (``/data/playlist/3A7CFB36.../cue/0``), then at most ``SLOWEST_WIDTH`` characters, the
    start and the end kept (ASCII only: it prints under any locale)."""
    short = _UUID.sub(lambda m: m.group(0)[:8] + "...", path)
    if len(short) <= SLOWEST_WIDTH:
        return short
    keep = SLOWEST_WIDTH - 3
    return short[: keep // 2] + "..." + short[-(keep - keep // 2) :]


_HEADERS = {
    "source": "source",
    "kind": "kind",
    "reachable": "reachable",
    "tls": "TLS",
    "auth": "auth",
    "slowest": "slowest read",
    "mirrors": "mirrors",
    "verdict": "verdict",
}


@dataclass(frozen=True)
class VenueReport:
    """What ``probe_venue`` found: one ``SourceReport`` per source, in the venue's order.
    ``ok`` is True when every source can be used."""

    #: The venue file (or ``"sources"`` for sources given as dicts).
    origin: str
    sources: tuple[SourceReport, ...]
    ok: bool
    #: Wall time of the whole check, in seconds.
    seconds: float

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VenueReport:
        """Build a report from its ``to_dict()`` form."""
        return cls(
            origin=data["origin"],
            sources=tuple(
                SourceReport(
                    **{
                        **s,
                        "report": ProbeReport.from_dict(s["report"]) if s["report"] else None,
                        "mirrors": tuple(MirrorReport.from_dict(m) for m in s.get("mirrors", ())),
                    }
                )
                for s in data["sources"]
            ),
            ok=data["ok"],
            seconds=data["seconds"],
        )

    def __getitem__(self, name: str) -> SourceReport:
        for s in self.sources:
            if s.name == name:
                return s
        raise KeyError(name)

    def rows(self) -> list[dict[str, str]]:
        """One summary row per source (what the table and ``--json`` show)."""
        return [s.row() for s in self.sources]

    def table(self) -> str:
        """The summary as an aligned text table, the verdict last.

        This is what ``showctl probe --venue`` prints."""
        rows = self.rows()
        cols = list(_HEADERS)
        widths = {
            c: max([len(_HEADERS[c])] + [len(r[c]) for r in rows if c != "verdict"]) for c in cols
        }
        lines = ["  ".join(_HEADERS[c].ljust(widths[c]) for c in cols).rstrip()]
        for r in rows:
            lines.append("  ".join(r[c].ljust(widths[c]) for c in cols).rstrip())
        failed = sum(1 for s in self.sources if not s.ok)
        verdict = (
            f"all {len(rows)} sources usable"
            if self.ok
            else f"{failed} of {len(rows)} sources not usable"
        )
        lines.append(f"{verdict} ({self.seconds:.1f} s)")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        verdict = "all sources usable" if self.ok else "some sources are not usable"
        head = "".join(f"<th>{html.escape(h)}</th>" for h in _HEADERS.values())
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in r.values()) + "</tr>"
            for r in self.rows()
        )
        return (
            f"<p><b>{html.escape(verdict)}</b> ({html.escape(self.origin)}, "
            f"{self.seconds:.1f} s)</p><table><tr>{head}</tr>{body}</table>"
        )

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready data (lists for tuples)."""
        return json.loads(json.dumps(asdict(self)))  # type: ignore[no-any-return]

    def to_json(self, indent: int | None = 2) -> str:
        """The report as one JSON object (what ``showctl probe --venue --json`` prints)."""
        return json.dumps(self.to_dict(), indent=indent)


def probe_venue(
    venue: str | os.PathLike[str] | None = None,
    *,
    sources: dict[str, dict[str, Any]] | None = None,
    defaults: dict[str, Any] | None = None,
    concurrency: int = 8,
) -> VenueReport:
    """Probe every source of a venue at once, at most ``concurrency`` at a time.

    The venue is a venue file (``venue="venue.toml"``) or its ``[sources.*]`` tables as dicts
    (``sources={"court1": {"kind": "scoreboard", "url": ...}}``, with optional ``defaults``).
    Read-only: each source gets the GET requests of ``probe()``. A source that hangs costs its
    own timeout only. Raises ``ValueError`` naming the file, the source and the field for a bad
    venue."""
    return _core._probe_venue(  # type: ignore[no-any-return]
        venue, sources=sources, defaults=defaults, concurrency=concurrency
    )


async def probe_venue_async(
    venue: str | os.PathLike[str] | None = None,
    *,
    sources: dict[str, dict[str, Any]] | None = None,
    defaults: dict[str, Any] | None = None,
    concurrency: int = 8,
) -> VenueReport:
    """Async twin of ``probe_venue``: an awaitable of the same report."""
    return await _core._probe_venue_async(  # type: ignore[no-any-return]
        venue, sources=sources, defaults=defaults, concurrency=concurrency
    )


def _toml_string(text: str) -> str:
    # A JSON string (ASCII, \uXXXX escapes) is a valid TOML basic string.
    return json.dumps(text, ensure_ascii=True)


@dataclass(frozen=True)
class SimulatedSource:
    """One source of a venue played by a simulator."""

    name: str
    #: ``"media"`` or ``"scoreboard"``.
    kind: str
    simulator: _core.Simulator

    @property
    def url(self) -> str:
        """The simulator's URL, to pass to a client."""
        return self.simulator.url


class SimulatedVenue:
    """A simulator per source of a venue.

    Made by ``simulate_venue()``, ``showctl simulate --venue`` and the ``showctl_venue``
    fixture. Use ``sources`` with ``Feed(sources=...)`` or
    ``probe_venue(sources=...)``, or ``write()`` a venue file that points at the simulators."""

    def __init__(self, sources: list[SimulatedSource], keys: dict[str, str | None]) -> None:
        self._sources = sources
        self._keys = keys

    def __getitem__(self, name: str) -> SimulatedSource:
        for s in self._sources:
            if s.name == name:
                return s
        raise KeyError(name)

    def __iter__(self) -> Any:
        return iter(self._sources)

    def __len__(self) -> int:
        return len(self._sources)

    def __enter__(self) -> SimulatedVenue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def sources(self) -> dict[str, dict[str, Any]]:
        """The venue's sources as dicts, pointing at the simulators (``Feed(sources=...)``)."""
        out: dict[str, dict[str, Any]] = {}
        for s in self._sources:
            entry: dict[str, Any] = {"kind": s.kind, "url": s.url}
            key = self._keys.get(s.name)
            if key is not None:
                entry["api_key"] = key
            out[s.name] = entry
        return out

    def write(self, path: str | os.PathLike[str]) -> str:
        """Write a venue file that points at the simulators; returns its path.

        The file is created new (an existing file or a link at ``path`` is refused) and
        readable by its owner only."""
        lines: list[str] = []
        for name, entry in self.sources.items():
            lines.append(f"[sources.{name}]")
            lines.extend(f"{k} = {_toml_string(str(v))}" for k, v in entry.items())
            lines.append("")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        return os.fspath(path)

    def stop(self) -> None:
        """Stop every simulator."""
        for s in reversed(self._sources):
            s.simulator.stop()


def simulate_venue(
    venue: str | os.PathLike[str] | None = None,
    *,
    sources: dict[str, dict[str, Any]] | None = None,
    same_ports: bool = False,
    strict: bool = False,
    score_tick: float | None = None,
) -> SimulatedVenue:
    """Start a simulator for every source of a venue file (or ``sources``).

    Each starts from the source's ``workspace`` (the built-in one when it has none) and with its
    key. With ``same_ports`` each listens on the port of the source's URL (whose host must be this
    machine), so the venue file itself points at them; otherwise on a free port. ``score_tick``
    plays every scoreboard's score (as ``Simulator(score_tick=...)``). A simulator that cannot
    start stops the ones already started and raises."""
    import ipaddress
    from urllib.parse import urlsplit

    started: list[SimulatedSource] = []
    keys: dict[str, str | None] = {}
    try:
        for s in _core._load_venue(venue, sources=sources, reveal_keys=True):
            port, host = 0, "127.0.0.1"
            if same_ports:
                url = s["url"] if "://" in s["url"] else "http://" + s["url"]
                parts = urlsplit(url)
                if parts.scheme != "http":
                    raise ValueError(
                        f"{s['name']}: a simulator serves http only; its url is {s['url']}"
                    )
                hostname = parts.hostname or ""
                local = hostname == "localhost"
                with contextlib.suppress(ValueError):
                    local = local or ipaddress.ip_address(hostname).is_loopback
                if not local:
                    raise ValueError(
                        f"{s['name']}: a simulator listens on this machine only (127.0.0.1, "
                        f"localhost); its url names {hostname!r}"
                    )
                port = parts.port or 80
                host = "127.0.0.1" if hostname != "::1" else "::1"
            sim = _core.Simulator(
                port,
                s.get("api_key"),
                s["workspace"],
                strict=strict,
                host=host,
                score_tick=score_tick,
            )
            sim.start()
            started.append(SimulatedSource(s["name"], s["kind"], sim))
            keys[s["name"]] = s.get("api_key")
    except BaseException:
        for done in reversed(started):
            done.simulator.stop()
        raise
    return SimulatedVenue(started, keys)
