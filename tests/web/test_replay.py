"""``detente replay FILE`` in a real browser: saved games, read-only, on a desktop and a phone.

The command runs as a person runs it (its own process, its own server on a free port); the test
reads the page's address from its output, and walks the history as a reader would: each
phase's label, orders drawn on the board, results, and the messages of that phase where the
chat would be. A game that ended (a solo, a draw at the year limit, in détente's file or as
MILA wrote it) is said to be over and read-only, with nothing to order. Budget: about 25 s.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import pytest

from tests.server.ws_helpers import http
from tests.web.test_browser import WAIT_MS, open_page, phase_name

try:
    from playwright.async_api import Browser, expect
except ImportError:  # pragma: no cover - the test extra installs it
    pytest.skip("the playwright package is not installed (pip install playwright)", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "tests" / "data" / "formats"
SAMPLE = SAMPLES / "mila_sample.json"


async def replaying(path: Path) -> tuple[asyncio.subprocess.Process, str, str, str]:
    """``detente replay`` of ``path`` as a person runs it: the process, the page, the server, the game."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "detente", "replay", str(path), "--port", "0", "--no-browser",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
    found = re.search(r"(http://127\.0\.0\.1:\d+)/#/game/(\w+)\?as=observer", line)
    assert found, line
    return process, found.group(0), *found.groups()


async def test_a_mila_game_replays_read_only_with_its_history_and_messages(browser: Browser) -> None:
    expect.set_options(timeout=WAIT_MS)
    saved = json.loads(SAMPLE.read_text())
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "detente", "replay", str(SAMPLE), "--port", "0", "--no-browser",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        found = re.search(r"(http://127\.0\.0\.1:\d+)/#/game/(\w+)\?as=observer", line)
        assert found, line
        base, game = found.groups()
        history = (await http("GET", f"{base}/api/games/{game}/history"))[1]["phases"]
        names = [p["name"] for p in saved["phases"]]
        assert [p["phase"] for p in history] == names[:-1]
        # nobody may play it: no game for strangers, and this one is over
        status, created = await http("POST", f"{base}/api/games", {"name": "x"})
        assert status == 401

        for phone in (False, True):
            page, errors = await open_page(browser, phone=phone)
            await page.goto(found.group(0))
            await expect(page.locator("#banner")).to_contain_text("stops here, before the game ended")
            # it did not end: nothing on the page may say it is over
            await expect(page.locator("#phase")).to_have_text(f"record ends at {names[-1]}")
            await expect(page.get_by_text("game over", exact=False)).to_have_count(0)
            await expect(page.get_by_text("The game is over", exact=False)).to_have_count(0)
            slider = page.locator("#history")
            await expect(slider).to_have_attribute("max", str(len(history)))
            for index, phase in enumerate(history):
                await slider.fill(str(index))
                await expect(page.locator("#history-label")).to_contain_text(phase_name(phase["phase"]))
                await expect(page.locator("#results")).to_have_attribute("data-phase", phase["phase"])
                given = sum(1 for orders in phase["orders"].values() for o in orders if o != "WAIVE")
                await expect(page.locator(".board .orders g.order")).to_have_count(given)
                said = next(p["messages"] for p in saved["phases"] if p["name"] == phase["phase"])
                if phone:
                    await page.locator("#tab-chat").tap()
                await expect(page.locator("#said")).to_have_attribute("data-phase", phase["phase"])
                await expect(page.locator("#said .said-message")).to_have_count(len(said))
                for message in said:
                    await expect(page.locator("#said")).to_contain_text(message["message"])
                if phone:
                    await page.locator("#tab-map").tap()
            assert errors == []
            await page.context.close()
    finally:
        process.terminate()
        await process.wait()


@pytest.mark.parametrize(
    ("name", "banner"),
    [
        ("solo_game.json", "Game over: Russia won alone."),
        ("solo_game.mila.json", "Game over: Russia won alone."),
        ("draw_game.json", "Game over: a draw between"),
    ],
)
async def test_a_finished_game_replays_as_over_and_read_only(browser: Browser, name: str, banner: str) -> None:
    expect.set_options(timeout=WAIT_MS)
    process, url, base, game = await replaying(SAMPLES / name)
    try:
        status, info = await http("GET", f"{base}/api/games/{game}")
        assert status == 200 and info["status"] == "finished", info
        assert re.fullmatch(r"[SFW]\d{4}[MRA]", info["result"]["phase"]), info["result"]
        history = (await http("GET", f"{base}/api/games/{game}/history"))[1]["phases"]
        for phone in (False, True):
            page, errors = await open_page(browser, phone=phone)
            await page.goto(url)
            await expect(page.locator("#banner")).to_contain_text(banner)
            await expect(page.locator("#phase")).to_have_text(f"game over after {info['result']['phase']}")
            await expect(page.locator("#phase")).not_to_contain_text("COMPLETED")  # a phase, as a live game says
            await expect(page.locator("#mis")).to_contain_text("read-only")
            await expect(page.get_by_text("Cannot read the game", exact=False)).to_have_count(0)
            # nothing to order, nowhere to type one
            for control in ("#submit-orders", "#hold-phase", "#order-input"):
                await expect(page.locator(control)).to_be_hidden()
            slider = page.locator("#history")
            await expect(slider).to_have_attribute("max", str(len(history)))
            await slider.fill("0")
            await expect(page.locator("#history-label")).to_contain_text(phase_name(history[0]["phase"]))
            assert errors == []
            await page.context.close()
    finally:
        process.terminate()
        await process.wait()
