from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test sees the user's SHOWCTL_* variables unless it sets them."""
    for var in list(os.environ):
        if var.startswith("SHOWCTL_"):
            monkeypatch.delenv(var)
    yield


@pytest.fixture
def base_url(httpserver: HTTPServer) -> str:
    return f"http://{httpserver.host}:{httpserver.port}"
