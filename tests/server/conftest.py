"""The fixture of the server tests: a real server on loopback for each test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.server.ws_helpers import Running, running_server


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Running]:
    async with running_server(tmp_path) as running:
        yield running
