"""The record of what was sent: the ``showctl.commands`` logger, whose records the core writes
(one per command; the message is one JSON object), and the filter that also sets each field as
an attribute of the record.
"""

from __future__ import annotations

import logging

#: The logger of the command records.
COMMANDS = "showctl.commands"

#: The fields of a record, in the order of its JSON object.
FIELDS = (
    "when",
    "operation",
    "method",
    "path",
    "application",
    "target",
    "layer",
    "outcome",
    "delivery",
    "status",
    "attempts",
    "latency_ms",
    "confirm",
    "read",
    "error",
    # A command run as a step of a named sequence (absent otherwise).
    "sequence",
    "step",
    # A command the OSC bridge sent for a sender (absent otherwise).
    "origin",
)


class CommandFields(logging.Filter):
    """Sets each field of a command record as an attribute of the ``LogRecord``
    (``record.delivery``, ``record.attempts``, …), with its JSON type; passes every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        import json

        try:
            fields = json.loads(record.getMessage())
        except ValueError:
            return True
        if isinstance(fields, dict):
            for name in FIELDS:
                setattr(record, name, fields.get(name))
        return True


def install() -> None:
    """Put the filter on the logger (once; called at import)."""
    logger = logging.getLogger(COMMANDS)
    if not any(isinstance(f, CommandFields) for f in logger.filters):
        logger.addFilter(CommandFields())


install()
