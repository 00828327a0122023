"""The browser the web tests drive: Debian's Chromium (``DETENTE_CHROMIUM`` to use another),
headless, through Playwright, one per test. Without Playwright or Chromium a browser test is
skipped, saying why (``.ci/run`` installs both)."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.async_api import async_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    async_playwright = None  # type: ignore[assignment]

CHROMIUM = Path(os.environ.get("DETENTE_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    if async_playwright is None:
        pytest.skip("the playwright package is not installed (pip install playwright)")
    if not (CHROMIUM.exists() or shutil.which(str(CHROMIUM))):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set DETENTE_CHROMIUM)")
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()
