"""The commands that play a sequence file and save or apply a look: ``run FILE [--dry-run]
[--step]``, ``look save FILE`` and ``look apply FILE`` (``--cooldown`` on those that send).

A sequence file is TOML: an optional ``name`` and ``halt_on_failure``, then one ``[[step]]``
table per step, in order: ``command = "NAME"`` (a function of ``showctl.cmd``) with its
arguments by name (``layer``, ``value``, ``confirm``, ...), ``wait = SECONDS``, or
``wait_until = "playing" | "stopped" | "empty"`` (or ``remaining = SECONDS``) with ``layer``,
``timeout`` and optionally ``interval``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import showctl
from showctl import _core, cmd
from showctl.cli.connection import media
from showctl.cli.errors import EXIT_APP, EXIT_OK, UsageError
from showctl.cli.output import emit_json, safe
from showctl.cli.subcommands import Subcommands

Step = cmd.Step

#: The keys a sequence file may have at its top.
TOP_KEYS = {"name", "halt_on_failure", "step"}
#: The commands a step may name: the functions of ``showctl.cmd`` that build commands.
COMMANDS = frozenset(n for n in cmd.__all__ if n not in ("wait", "wait_until"))


def cooldown(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0, at most 3600, got {text}"
        )
    return value


def _step(i: int, raw: Any) -> Step:
    """One ``[[step]]`` table as a step; a refusal names it (``steps[2]: ...``)."""
    if not isinstance(raw, dict):
        raise UsageError(f"steps[{i}]: a step is a [[step]] table, got {type(raw).__name__}")
    kinds = [k for k in ("command", "wait", "wait_until", "remaining") if k in raw]
    if kinds == ["wait_until", "remaining"] or kinds == ["remaining"]:
        kinds = ["wait_until"]
    if len(kinds) != 1:
        raise UsageError(
            f"steps[{i}]: a step has one of command =, wait = or wait_until = (or remaining =), "
            f"got {', '.join(kinds) or 'none'}"
        )
    args = dict(raw)
    try:
        if kinds == ["wait"]:
            seconds = args.pop("wait")
            if args:
                raise UsageError(f"steps[{i}]: a wait takes nothing else, got {', '.join(args)}")
            return cmd.wait(seconds)
        if kinds == ["wait_until"]:
            state = args.pop("wait_until", None)
            layer = args.pop("layer", None)
            if layer is None:
                raise UsageError(f"steps[{i}]: wait_until needs layer =")
            return cmd.wait_until(layer, state, **args)
        name = args.pop("command")
        if name not in COMMANDS:
            raise UsageError(
                f"steps[{i}]: command {name!r} is not one of showctl.cmd's: "
                f"{', '.join(sorted(COMMANDS))}"
            )
        built: showctl.Command = getattr(cmd, name)(**args)
        return built
    except (TypeError, ValueError) as e:
        raise UsageError(f"steps[{i}]: {e}") from None


def read_sequence(path: Path) -> tuple[str | None, bool, list[Step]]:
    """The name, halt_on_failure and steps of a sequence file, every step checked."""
    doc = _core._read_toml(path)
    unknown = sorted(set(doc) - TOP_KEYS)
    if unknown:
        raise UsageError(
            f"{path}: unknown key {unknown[0]!r} (a sequence file has name, "
            "halt_on_failure and [[step]] tables)"
        )
    name = doc.get("name", path.stem)
    halt = doc.get("halt_on_failure", True)
    if not isinstance(name, str) or not isinstance(halt, bool):
        raise UsageError(f"{path}: name is text and halt_on_failure true or false")
    raw = doc.get("step")
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{path}: no [[step]] tables")
    return name, halt, [_step(i, s) for i, s in enumerate(raw)]


def describe(step: Step) -> str:
    return repr(step)


def _report(args: argparse.Namespace, offset: int, result: showctl.SequenceResult) -> None:
    for s in result.steps:
        index = s.index + offset
        if args.json:
            emit_json(
                {
                    "step": index,
                    "ok": s.ok,
                    "delivery": s.delivery,
                    "elapsed": round(s.elapsed, 6),
                    "value": s.value,
                    "error": None if s.error is None else str(s.error),
                    "what": describe(s.step),
                }
            )
            continue
        status = "ok" if s.ok else "FAILED"
        sent = f", {s.delivery}" if s.delivery else ""
        line = f"step {index}  {status}{sent}  {s.elapsed:.3f} s  {describe(s.step)}"
        if s.error is not None:
            line += f": {s.error}"
        print(safe(line))


def _segments(steps: list[Step]) -> list[list[Step]]:
    """The steps cut before each command (for ``--step``: a GO before each cue)."""
    out: list[list[Step]] = []
    for s in steps:
        if isinstance(s, showctl.Command) or not out:
            out.append([])
        out[-1].append(s)
    return out


def cmd_run(args: argparse.Namespace) -> int:
    name, halt, steps = read_sequence(Path(args.file))
    if args.step and args.json:
        raise UsageError("--step waits for Enter at a terminal; it has no JSON form")
    kw: dict[str, Any] = {} if args.cooldown is None else {"cooldown": args.cooldown}
    with media(args, **kw) as player:
        player.check_sequence(steps)
        if args.dry_run:
            for i, s in enumerate(steps):
                if args.json:
                    emit_json({"step": i, "what": describe(s)})
                else:
                    print(safe(f"step {i}  {describe(s)}"))
            if not args.json:
                unchecked = any(
                    isinstance(s, showctl.Command) and s.path.startswith("/trigger/cue/")
                    for s in steps
                )
                note = (
                    "; a cue of trigger_cue (in the selected playlist, which the API does not "
                    "report) was not looked up"
                    if unchecked
                    else ""
                )
                print(
                    safe(
                        f"dry run: nothing was sent; every layer, playlist and cue the "
                        f"{len(steps)} steps name was found in the application{note}"
                    )
                )
            return EXIT_OK
        ran = failed = offset = 0
        for segment in _segments(steps) if args.step else [steps]:
            if args.step:
                input(safe(f"GO step {offset}: {describe(segment[0])} [Enter] "))
            result = player.sequence(segment, halt_on_failure=halt, name=name)
            _report(args, offset, result)
            ran += len(result.steps)
            failed += sum(not s.ok for s in result.steps)
            if result.stopped_at is not None:
                if not args.json:
                    print(
                        safe(
                            f"stopped at step {offset + result.stopped_at}: {ran} of "
                            f"{len(steps)} steps ran"
                        )
                    )
                return EXIT_APP
            offset += len(segment)
    if not args.json:
        print(
            safe(
                f"{ran} of {len(steps)} steps ran, " + (f"{failed} failed" if failed else "each ok")
            )
        )
    return EXIT_APP if failed else EXIT_OK


def cmd_look_save(args: argparse.Namespace) -> int:
    with media(args) as player:
        look = player.look(args.layer or None)
    look.save(args.file)
    if args.json:
        emit_json({"ok": True, "file": args.file, "layers": [x.name for x in look.layers]})
    else:
        names = ", ".join(str(x.name) for x in look.layers)
        print(
            safe(
                f"ok: the look of {len(look.layers)} layers ({names}) written to {args.file}; "
                f"not read back, so not in it: {', '.join(look.not_read_back)}"
            )
        )
    return EXIT_OK


def cmd_look_apply(args: argparse.Namespace) -> int:
    look = showctl.Look.load(args.file)
    kw: dict[str, Any] = {} if args.cooldown is None else {"cooldown": args.cooldown}
    with media(args, **kw) as player:
        sent = player.apply(look, only=args.only or None)
    if args.json:
        for c in sent:
            emit_json({"sent": True, "method": c.method, "path": c.path, "body": c.body})
        return EXIT_OK
    for c in sent:
        print(safe(f"sent and confirmed: {c.method} {c.path}"))
    n = len(sent)
    what = f"{', '.join(args.only)} in {args.file}" if args.only else args.file
    print(
        safe(
            f"ok: {n} command{'' if n == 1 else 's'} sent and confirmed; the rest of "
            f"{what} already matched"
        )
    )
    return EXIT_OK


def register(commands: Subcommands) -> None:
    p = commands.connecting(
        "run", "play a sequence file (TOML): commands, waits and waits on a layer", cmd_run
    )
    p.add_argument("file", metavar="FILE", help="the sequence file")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="check every layer, playlist and cue against the application and print "
        "what would be sent; send nothing",
    )
    p.add_argument(
        "--step",
        action="store_true",
        help="wait for Enter before each command (a stage manager's GO)",
    )
    p.add_argument(
        "--cooldown",
        type=cooldown,
        metavar="SECONDS",
        help="refuse a command identical to one answered less than SECONDS ago",
    )
    look = commands.add(
        "look", "save or apply the look of the layers (a JSON file)", lambda a: EXIT_OK
    )
    sub = look.add_subparsers(dest="look_command", metavar="ACTION", required=True)
    save = sub.add_parser(
        "save", help="read the look of the layers into FILE", parents=[commands._connecting]
    )
    save.set_defaults(func=cmd_look_save)
    save.add_argument("file", metavar="FILE")
    save.add_argument(
        "--layer",
        action="append",
        metavar="LAYER",
        help="only this layer (an index, a name or a UUID); repeat for more",
    )
    apply = sub.add_parser(
        "apply",
        help="send what differs from the look in FILE, confirmed",
        parents=[commands._connecting],
    )
    apply.set_defaults(func=cmd_look_apply)
    apply.add_argument("file", metavar="FILE")
    apply.add_argument(
        "--only",
        action="append",
        metavar="FIELD",
        help="only this field (opacity, hidden, muted, blend, target_set, "
        "effect_preset, transition, transition_duration, preset); repeat for more",
    )
    apply.add_argument(
        "--cooldown",
        type=cooldown,
        metavar="SECONDS",
        help="refuse a command identical to one answered less than SECONDS ago",
    )
