"""The pre-show commands of the command line: ``showctl probe URL`` (a read-only pre-show
check) and ``showctl record URL DIR`` (a read-only capture of an installation, replayable with
``showctl simulate --workspace DIR``). Both send GET requests only."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from showctl._reports import ProbeReport
from showctl.cli.connection import Client, cli_message, media, scoreboard
from showctl.cli.errors import EXIT_APP, EXIT_OK
from showctl.cli.output import emit_json, safe
from showctl.cli.subcommands import Subcommands
from showctl.cli.venues import refuse_with_venue


def _client(args: argparse.Namespace) -> Client:
    """The client of the installation: the URL given as URL (or --url, or the environment
    variable), each read sent once unless --retries says otherwise."""
    fixed: dict[str, Any] = {"retries": 0} if args.retries is None else {}
    if args.target is not None:
        fixed["url"] = args.target
    if args.scoreboard:
        return scoreboard(args, **fixed)
    return media(args, **fixed)


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
    if args.venue is not None:
        return _probe_venue(args)
    report = _client(args).probe()
    if args.json:
        print(report.to_json(indent=None))
    else:
        # Each line escaped as `layers` escapes names: the subject, names and error bodies
        # are the server's text (a newline in them cannot start a line of its own).
        print("\n".join(safe(cli_message(line)) for line in report_lines(report)))
    return EXIT_OK if report.ok else EXIT_APP


def _probe_venue(args: argparse.Namespace) -> int:
    from showctl._venue import probe_venue

    refuse_with_venue(args, "target", "url", "api_key", "tls_fingerprint", "ca_cert", "scoreboard")
    report = probe_venue(args.venue)
    if args.json:
        emit_json(report.to_dict())
    else:
        print("\n".join(safe(line) for line in report.table().split("\n")))
    return EXIT_OK if report.ok else EXIT_APP


def cmd_record(args: argparse.Namespace) -> int:
    count = _client(args).record(args.dir)
    workspace = os.path.join(args.dir, "workspace.json")
    if args.json:
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
    return EXIT_OK


def register(commands: Subcommands) -> None:
    """Add ``probe`` and ``record``."""

    def target(p: argparse.ArgumentParser) -> None:
        p.add_argument("target", nargs="?", metavar="URL", help="http(s)://HOST:PORT")
        p.add_argument("--scoreboard", action="store_true", help="a scoreboard, not a media player")

    p = commands.connecting(
        "probe",
        "check an installation before a show, read-only: reachability, HTTP/HTTPS, the "
        "certificate and its pin, the key, every read; exit 0 when usable, 1 with the problems",
        cmd_probe,
    )
    target(p)
    p.add_argument(
        "--venue",
        metavar="FILE",
        help="probe every source of this venue file at once: one summary table; exit 0 when "
        "all are usable, 1 when any is not, 2 for a bad venue file",
    )

    p = commands.connecting(
        "record",
        "capture every read of an installation into DIR (read-only; the key scrubbed), with a "
        "workspace file for `showctl simulate --workspace DIR`",
        cmd_record,
    )
    target(p)
    p.add_argument("dir", metavar="DIR", help="a new or empty directory")
