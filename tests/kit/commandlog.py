"""The command log as a test reads it: a handler that keeps every record of the
``showctl.commands`` logger, installed at INFO for a ``with`` block (before any client is built:
the bridge reads the level when a client is made)."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from typing import Any


class CommandLog(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self) -> list[dict[str, Any]]:
        """Each record's message, the JSON object it is."""
        return [json.loads(r.getMessage()) for r in self.records]


@contextlib.contextmanager
def commands_logged(level: int = logging.INFO) -> Iterator[CommandLog]:
    """The logger at `level` (INFO: it wants the records) with a handler keeping them."""
    logger = logging.getLogger("showctl.commands")
    handler = CommandLog()
    logger.addHandler(handler)
    logger.setLevel(level)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
