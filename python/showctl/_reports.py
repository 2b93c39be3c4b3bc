"""What the show-day tools report: ``ProbeReport``, the report of ``MediaPlayer.probe()`` /
``Scoreboard.probe()`` and ``showctl probe`` (a read-only pre-show check; the checks run in the
Rust core), and ``Recorded``, what ``record()`` returns."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class TlsInfo:
    """The certificate the application's port presented."""

    subject: str
    issuer: str
    self_signed: bool
    #: Marked ``CA:TRUE``, as self-signed certificates usually are.
    ca: bool
    #: The DNS names and IP addresses it is issued for.
    names: tuple[str, ...]
    #: RFC 3339, UTC.
    not_before: str
    not_after: str
    expired: bool
    #: ``sha256:<hex>``.
    fingerprint: str
    #: The exact option that pins it: ``tls_fingerprint="sha256:..."``.
    pin: str


@dataclass(frozen=True)
class EndpointResult:
    """One read as the application answered it."""

    #: The path as sent, relative to ``/api/0``.
    path: str
    #: The HTTP status; ``None`` when no answer came.
    status: int | None
    seconds: float
    #: Which documented or field variant the answer is (opacity wrapped or bare, transitions
    #: under ``data`` or ``transitions``, ``/blend`` or only ``/layerBlend``, ``"null"`` text
    #: in UUID fields), when the documents allow several.
    variant: str | None
    #: Why the read failed, or why showctl cannot read its answer.
    error: str | None


@dataclass(frozen=True)
class ProbeReport:
    """What a probe found. ``ok`` is True when the installation can be used with the
    client's options; ``problems`` has one line per problem, each saying what to do."""

    #: The base URL probed (``scheme://host:port/api/0``).
    url: str
    #: ``"media"`` or ``"scoreboard"``.
    app: str
    reachable: bool
    #: TCP round-trip time in seconds.
    rtt: float | None
    #: What the port speaks: ``"http"``, ``"https"`` or ``"neither"``.
    scheme: str
    #: Every ``/api/0`` path answered 404 (the documentation port, or the API is disabled).
    doc_port: bool
    tls: TlsInfo | None
    #: ``"not_needed"``, ``"required_missing"``, ``"wrong"``, ``"accepted"`` or ``"unknown"``.
    auth: str
    endpoints: tuple[EndpointResult, ...]
    layers: int | None
    playlists: int | None
    cues: int | None
    slowest: EndpointResult | None
    ok: bool
    problems: tuple[str, ...]
    #: The bounds the reads reached (at most 5,000 reads, 64 MiB of answers held, 60 s in
    #: all), each saying what was not read; empty when every read was sent.
    limits: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProbeReport:
        """Build a report from its ``to_dict()`` form."""
        tls = data.get("tls")
        slowest = data.get("slowest")
        return cls(
            **{
                **data,
                "tls": TlsInfo(**{**tls, "names": tuple(tls["names"])}) if tls else None,
                "endpoints": tuple(EndpointResult(**e) for e in data["endpoints"]),
                "slowest": EndpointResult(**slowest) if slowest else None,
                "problems": tuple(data["problems"]),
                "limits": tuple(data.get("limits", ())),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready data (lists for tuples)."""
        return json.loads(json.dumps(asdict(self)))  # type: ignore[no-any-return]

    def to_json(self, indent: int | None = 2) -> str:
        """The report as one JSON object (what ``showctl probe --json`` prints)."""
        return json.dumps(self.to_dict(), indent=indent)

    def _repr_html_(self) -> str:
        """A compact table for Jupyter, the verdict first: usable or not, each problem, then
        what was found; the reads that failed or were slow are listed, not all of them."""
        from html import escape

        def row(label: str, value: object) -> str:
            text = "—" if value is None else str(value)
            return (
                f"<tr><th style='text-align:left'>{escape(label)}</th><td>{escape(text)}</td></tr>"
            )

        verdict = "usable" if self.ok else "NOT usable"
        colour = "green" if self.ok else "red"
        out = [
            f"<div class='showctl-probe'><b style='color:{colour}'>{escape(self.app)} at "
            f"{escape(self.url)}: {verdict}</b>"
        ]
        if self.problems:
            out.append("<ul>" + "".join(f"<li>{escape(p)}</li>" for p in self.problems) + "</ul>")
        rtt = f"{self.rtt * 1000:.1f} ms" if self.rtt is not None else None
        rows = [
            row("reachable", "yes" if self.reachable else "no"),
            row("round trip", rtt),
            row("scheme", self.scheme),
            row("key", self.auth),
        ]
        if self.tls is not None:
            expired = " (expired)" if self.tls.expired else ""
            rows.append(row("certificate", f"{self.tls.subject}{expired}"))
            rows.append(row("pin", self.tls.pin))
        counts = (self.layers, self.playlists, self.cues)
        if any(c is not None for c in counts):
            rows.append(row("layers / playlists / cues", " / ".join(map(str, counts))))
        answered = sum(1 for e in self.endpoints if e.error is None)
        rows.append(row("reads answered", f"{answered} of {len(self.endpoints)}"))
        if self.slowest is not None:
            rows.append(
                row("slowest read", f"{self.slowest.path} ({self.slowest.seconds * 1000:.1f} ms)")
            )
        out.append("<table>" + "".join(rows) + "</table>")
        failed = [e for e in self.endpoints if e.error is not None]
        if failed:
            out.append(
                "<table><tr><th>failed read</th><th>status</th><th>why</th></tr>"
                + "".join(
                    f"<tr><td>{escape(e.path)}</td><td>{e.status if e.status is not None else '—'}"
                    f"</td><td>{escape(e.error or '')}</td></tr>"
                    for e in failed
                )
                + "</table>"
            )
        out.append("</div>")
        return "".join(out)


class Recorded(int):
    """What ``record()`` returns: the number of recordings written (an ``int``), with
    ``limits``: the bounds the reads reached (at most 5,000 reads, 64 MiB of answers held, 60 s
    in all), each saying what was not recorded; empty when everything was read."""

    limits: tuple[str, ...]

    def __new__(cls, count: int, limits: Iterable[str] = ()) -> Recorded:
        self = super().__new__(cls, count)
        self.limits = tuple(limits)
        return self

    def __repr__(self) -> str:
        return f"Recorded({int(self)}, limits={self.limits!r})"

    def __str__(self) -> str:
        # The number, as for a plain int (`f"recorded {count} reads"`).
        return int.__repr__(self)
