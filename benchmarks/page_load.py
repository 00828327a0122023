"""How heavy the game page is and how long a phone waits for its board, beside the page before the map.

Issue 31 replaced the page's diagram (Voronoi cells around points, drawn from
``server/static/layout.json``) with coastlines from Natural Earth, and asked that the page stay
fast on a phone. For each map measured, a real server (``detente serve --map NAME``) opens a
game, and Chromium (``/usr/bin/chromium``, through Playwright) opens it as an observer,
``--runs`` times in a fresh browser context (nothing cached), as a phone: 390×844, touch, the
CPU slowed 4× and the network that of Lighthouse's mobile runs (150 ms round trip, 1.6 Mbit/s
down, 750 kbit/s up); then once more in the same context (the browser's cache warm, the map
revalidated by its ETag). Timed from the start of the navigation to the board drawn with its
units; the bytes are those the network carried (compressed where the server compressed them),
the websocket's frames not counted. The reference is the same page at the commit before the map
(``--reference``, default ``bf0a0e7``), served from a ``git worktree`` of it with the same
Python: figures from one run, side by side::

    .venv/bin/python benchmarks/page_load.py [--runs 5] [--maps standard,france_austria,pure]

Written to ``benchmarks/results/page_load.json`` (``docs/results/page_load.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.machine import describe
from benchmarks.results import Column, Table, record, write

CHROMIUM = os.environ.get("DETENTE_CHROMIUM", "/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}
#: Lighthouse's mobile network (its "slow 4G"): round trip in ms, bytes a second down and up
NETWORK = {"latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8}
CPU_SLOWDOWN = 4
DRAWN = "() => document.querySelectorAll('svg.board .units g.unit').length > 0 && performance.now()"
TIMEOUT_MS = 120_000


@contextlib.contextmanager
def worktree(commit: str) -> Iterator[Path]:
    """A checkout of ``commit`` beside this one, removed after."""
    with tempfile.TemporaryDirectory() as parent:
        path = Path(parent) / "reference"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(path), commit], cwd=ROOT, check=True)
        try:
            yield path
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, check=False)


@contextlib.contextmanager
def server(source: Path, board: str | None) -> Iterator[str]:
    """``detente serve`` from the checkout ``source`` (its own modules first on the path; the
    compiled core where that checkout has it, else its pure-Python engine: the page does not
    wait on adjudication), the open games on ``board``; yields its URL."""
    with tempfile.TemporaryDirectory() as data:
        command = [sys.executable, "-m", "detente", "serve", "--port", "0", "--daide-port", "0",
                   "--data-dir", data, "--admin-token", "page-load-benchmark", "--deadlines", "none"]  # fmt: skip
        if board is not None:
            command += ["--map", board]
        env = {**os.environ, "PYTHONPATH": str(source)}
        process = subprocess.Popen(command, cwd=source, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   text=True)  # fmt: skip
        assert process.stdout is not None
        try:
            for line in process.stdout:
                found = re.search(r"listening on (http://\S+)", line)
                if found:
                    # the rest of its output is read and dropped, so that it never fills the pipe
                    threading.Thread(target=process.stdout.read, daemon=True).start()
                    yield found.group(1).rstrip("/")
                    return
            raise SystemExit(f"the server of {source} ended without listening")
        finally:
            process.terminate()
            process.wait(timeout=30)


def open_game(url: str) -> str:
    """The id of a game the server keeps open."""
    with urllib.request.urlopen(f"{url}/api/games", timeout=30) as answer:
        games = json.load(answer)["games"]
    if not games:
        raise SystemExit(f"{url} has no open game")
    return str(games[0]["id"])


async def phone_loads(browser: Any, page_url: str, runs: int) -> dict[str, Any]:
    """The phone's loads of ``page_url``: ``runs`` cold, then one warm; milliseconds and bytes."""
    cold_ms: list[float] = []
    cold_bytes: list[int] = []
    requests = 0
    warm: tuple[float, int] = (0.0, 0)
    for run in range(runs):
        context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
        try:
            page = await context.new_page()
            cdp = await context.new_cdp_session(page)
            await cdp.send("Network.enable")
            await cdp.send("Network.emulateNetworkConditions", {"offline": False, **NETWORK})
            await cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
            carried: list[int] = []
            cdp.on(
                "Network.loadingFinished",
                lambda event, carried=carried: carried.append(int(event["encodedDataLength"])),
            )
            ms = await load(page, page_url)
            cold_ms.append(ms)
            cold_bytes.append(sum(carried))
            requests = len(carried)
            if run == runs - 1:
                carried.clear()
                await page.goto("about:blank")
                warm = (await load(page, page_url), sum(carried))
        finally:
            await context.close()
    return {
        "cold_ms": statistics.median(cold_ms),
        "cold_ms_slowest": max(cold_ms),
        "kb": statistics.median(cold_bytes) / 1024,
        "requests": requests,
        "warm_ms": warm[0],
        "warm_kb": warm[1] / 1024,
    }


async def load(page: Any, page_url: str) -> float:
    await page.goto(page_url, wait_until="commit", timeout=TIMEOUT_MS)
    drawn = await page.wait_for_function(DRAWN, timeout=TIMEOUT_MS)
    return float(await drawn.json_value())


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            yield browser
        finally:
            await browser.close()


async def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    async with chromium() as browser:
        with worktree(args.reference) as before:
            plan: list[tuple[str, Path, str | None]] = [(f"{args.reference} (diagram)", before, None)]
            plan += [("this commit", ROOT, name) for name in args.maps]
            for page_of, source, board in plan:
                with server(source, board) as url:
                    game = open_game(url)
                    figures = await phone_loads(browser, f"{url}/#/game/{game}?as=observer", args.runs)
                row = {"page": page_of, "map": board or "standard", **{k: round(v, 1) for k, v in figures.items()}}
                rows.append(row)
                print(f"{row['page']:<22} {row['map']:<16} {row['cold_ms']:>9.0f} {row['cold_ms_slowest']:>9.0f}"
                      f" {row['kb']:>8.1f} {row['requests']:>5} {row['warm_ms']:>9.0f} {row['warm_kb']:>8.1f}")  # fmt: skip
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold loads of each page")
    parser.add_argument("--maps", default="standard,france_austria,pure", help="the maps of this commit measured")
    parser.add_argument("--reference", default="bf0a0e7", help="the commit of the page before the map")
    args = parser.parse_args()
    args.maps = [m for m in args.maps.split(",") if m]
    print(
        f"the game page on a phone (CPU {CPU_SLOWDOWN}× slower, 150 ms, 1.6 Mbit/s); {describe()}; n = {args.runs} cold each"
    )
    print(f"{'page':<22} {'map':<16} {'cold ms':>9} {'slowest':>9} {'KB':>8} {'reqs':>5} {'warm ms':>9} {'warm KB':>8}")
    rows = asyncio.run(measure(args))
    columns = [
        Column("page", "page"),
        Column("map", "map"),
        Column("cold_ms", "board drawn, cold (median ms)", True),
        Column("cold_ms_slowest", "slowest ms", True),
        Column("kb", "carried KB", True),
        Column("requests", "requests", True),
        Column("warm_ms", "board drawn, warm (ms)", True),
        Column("warm_kb", "warm KB", True),
    ]
    note = (f"A phone (390×844, touch, CPU {CPU_SLOWDOWN}× slower, 150 ms round trip, 1.6 Mbit/s down) opening a"
            " game as an observer, from the start of the navigation to the board drawn with its units; cold: a"
            " fresh browser context each run; warm: once more in the last one. The first row is the page before"
            " the map (the diagram), served from a worktree of that commit.")  # fmt: skip
    path = write(record("page_load", "The game page on a phone", "benchmarks/page_load.py", args.runs,
                        [Table("Load of the game page", columns, rows, note)]))  # fmt: skip
    print(f"written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
