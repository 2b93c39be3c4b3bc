"""The ``showctl`` command line (also ``python -m showctl``), as a package:

- ``run``: ``main()``: parse, run, and turn failures into one line and an exit code;
- ``parser``: the whole parser, from each command module's ``register``;
- ``subcommands``: the parser class (one-line errors, "did you mean …?") and the helper that
  adds a command with the connection options;
- ``connection``: the connection options, made from the clients' declaration of their options,
  and the clients built from them;
- ``errors``: exit codes, usage errors, client messages in command-line syntax;
- ``output``: tables, JSON lines, escaping;
- the commands: ``media_commands``, ``score_commands``, ``servers`` (``simulate``, ``feed``),
  ``preshow`` (``probe``, ``record``), ``demo``.

Modules import only modules listed after them here (tests/project/test_module_graph.py checks
there is no cycle). Human tables by default; ``--json`` prints JSON lines. Exit codes: 0 ok, 1
the application failed, 2 a usage error; errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

from showctl.cli.run import main

__all__ = ["main"]
