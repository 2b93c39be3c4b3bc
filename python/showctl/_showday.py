"""The show-day commands of the command line: ``showctl probe URL`` (a read-only pre-show
check) and ``showctl record URL DIR`` (a read-only capture of an installation, replayable with
``showctl simulate --workspace DIR``). Both send GET requests only."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any, Union

import showctl
from showctl._probe import ProbeReport

Client = Union[showctl.MediaPlayer, showctl.Scoreboard]


def _client(args: argparse.Namespace) -> Client:
    from showctl.cli import MEDIA_ENV, SCOREBOARD_ENV, UsageError

    env = SCOREBOARD_ENV if args.scoreboard else MEDIA_ENV
    url = args.target or args.url or os.environ.get(env)
    if not url:
        raise UsageError(f"no URL: pass URL or set {env}")
    options: dict[str, Any] = {
        "timeout": args.timeout,
        "retries": 0,
        "verify": not args.insecure,
        "ca_cert": args.ca_cert,
        "tls_fingerprint": args.tls_fingerprint,
    }
    if args.scoreboard:
        return showctl.Scoreboard(url, args.api_key, **options)
    return showctl.MediaPlayer(url, args.api_key, **options)


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f} ms"


def report_lines(report: ProbeReport) -> list[str]:
    """The report for a person, one fact per line (problems last, one per line)."""
    lines = [f"probe {report.url} ({report.app})"]
    lines.append(f"  reachable    {'yes, ' + _ms(report.rtt) if report.reachable else 'no'}")
    if report.reachable:
        lines.append(f"  speaks       {report.scheme}")
    tls = report.tls
    if tls is not None:
        kind = ", ".join(
            w
            for w, on in (
                ("self-signed", tls.self_signed),
                ("CA:TRUE", tls.ca),
                ("EXPIRED", tls.expired),
            )
            if on
        )
        lines.append(f"  certificate  {tls.subject} ({kind or 'issued by ' + tls.issuer})")
        lines.append(f"               valid {tls.not_before} .. {tls.not_after}")
        if tls.names:
            lines.append(f"               for {', '.join(tls.names)}")
        lines.append(f"               pin it: {tls.pin}")
    if report.auth != "unknown":
        lines.append(f"  key          {report.auth.replace('_', ' ')}")
    if report.endpoints:
        failed = sum(1 for e in report.endpoints if e.error)
        lines.append(f"  reads        {len(report.endpoints)}, {failed} failed")
    if report.slowest is not None:
        lines.append(f"  slowest      GET {report.slowest.path} {_ms(report.slowest.seconds)}")
    counts = [
        f"{n} {what}"
        for n, what in (
            (report.layers, "layers"),
            (report.playlists, "playlists"),
            (report.cues, "cues"),
        )
        if n is not None
    ]
    if counts:
        lines.append(f"  workspace    {', '.join(counts)}")
    variants = sorted({v for e in report.endpoints if e.variant for v in e.variant.split("; ")})
    for i, v in enumerate(variants):
        lines.append(f"  {'variants' if i == 0 else '':<12} {v}")
    lines.extend(f"  limit        {limit}" for limit in report.limits)
    lines.append("ok: the installation is usable" if report.ok else "NOT OK:")
    lines.extend(f"problem: {p}" for p in report.problems)
    return lines


def cmd_probe(args: argparse.Namespace) -> int:
    report = _client(args).probe()
    if args.json:
        print(report.to_json(indent=None))
    else:
        print("\n".join(report_lines(report)))
    return 0 if report.ok else 1


def cmd_record(args: argparse.Namespace) -> int:
    count = _client(args).record(args.dir)
    workspace = os.path.join(args.dir, "workspace.json")
    if args.json:
        import json

        limits = list(count.limits)
        print(
            json.dumps(
                {"recorded": count, "dir": args.dir, "workspace": workspace, "limits": limits}
            )
        )
    else:
        print(f"recorded {count} reads into {args.dir}; rehearse on it with:")
        print(f"  showctl simulate --workspace {args.dir}")
        for limit in count.limits:
            print(f"limit: {limit}")
    return 0


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add ``probe`` and ``record`` to the command line (``command`` makes a subcommand)."""

    def tls_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("target", nargs="?", metavar="URL", help="http(s)://HOST:PORT")
        p.add_argument("--scoreboard", action="store_true", help="a scoreboard, not a media player")
        p.add_argument(
            "--tls-fingerprint",
            metavar="PIN",
            help='accept the certificate with this SHA-256 ("sha256:<hex>", as probe prints it)',
        )
        p.add_argument("--ca-cert", metavar="PEM", help="trust this CA or self-signed certificate")
        p.add_argument(
            "--insecure", action="store_true", help="accept any certificate (verify=False)"
        )

    p = command(
        "probe",
        "check an installation before a show, read-only: reachability, HTTP/HTTPS, the "
        "certificate and its pin, the key, every read; exit 0 when usable, 1 with the problems",
    )
    tls_options(p)
    p.set_defaults(func=cmd_probe)

    p = command(
        "record",
        "capture every read of an installation into DIR (read-only; the key scrubbed), with a "
        "workspace file for `showctl simulate --workspace DIR`",
    )
    tls_options(p)
    p.add_argument("dir", metavar="DIR", help="a new or empty directory")
    p.set_defaults(func=cmd_record)
