"""Take the documentation's pictures again: the page of ``detente play`` and a report.

    .venv/bin/python docs/images/screenshots.py

It plays what a new user plays (``detente play`` in a temporary directory, a few phases of
bots; ``detente run`` and ``detente report``), opens both in Chromium (``/usr/bin/chromium``,
or ``DETENTE_CHROMIUM``) at a desktop's size, and writes ``page.png`` and ``report.png`` here.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright

HERE = Path(__file__).resolve().parent
DETENTE = [sys.executable, "-m", "detente"]
CHROMIUM = os.environ.get("DETENTE_CHROMIUM", "/usr/bin/chromium")
VIEW = {"width": 1280, "height": 800}


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        run = Path(work) / "run"
        subprocess.run([*DETENTE, "run", "--bots", "dbrane,dumbbot", "--games", "14", "--year-limit", "1910",
                        "--rotate", "--seed", "1", "--out", str(run)], check=True, capture_output=True)  # fmt: skip
        report = Path(work) / "report.html"
        title = ["--title", "One D-Brane against six DumbBots, 14 games"]
        subprocess.run([*DETENTE, "report", str(run), "-o", str(report), *title], check=True, capture_output=True)
        asyncio.run(shoot(report, work))


async def shoot(report: Path, work: str) -> None:
    """The page of a ``detente play`` game at its first phase, and the report."""
    play = await asyncio.create_subprocess_exec(
        *DETENTE, "play", "--no-browser", "--port", "0", "--power", "france", "--data-dir", str(Path(work) / "data"),
        "--seed", "2", stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert play.stdout is not None
    link = ""
    while not link:
        line = (await play.stdout.readline()).decode()
        if not line:
            raise SystemExit("detente play stopped before its seat link")
        link = next(iter(re.findall(r"http://\S+session=\S+", line)), "")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        page = await browser.new_page(viewport=VIEW)
        await page.goto(link)
        await page.wait_for_selector("svg")
        await page.wait_for_timeout(1500)  # the bots' first messages come in
        await page.screenshot(path=str(HERE / "page.png"))
        await page.goto(report.as_uri())
        await page.screenshot(path=str(HERE / "report.png"))
        await browser.close()
    play.terminate()
    await play.wait()


if __name__ == "__main__":
    main()
