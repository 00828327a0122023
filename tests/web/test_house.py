"""No stalled games, in a real browser: "Play against bots" in one click, and a seat a bot stands in for.

On a desktop and on a phone, a person opens the lobby, picks a power and a bot, clicks "Play
against bots", and is at once in a game of six bots that the server plays: the page says
which powers bots play, and the person's orders end the phase. Then a person plays England
beside a France that leaves: the page tells the person that a bot plays France, shows it on
France's chip, the phase ends with the stand-in's orders, and when France's player is back
the page says so and the chip is France's own again. Every wait is on the page's state.
Budget: about 25 s.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from detente.house import BotHouse
from tests.server.ws_helpers import TOKEN, DaideClient, http
from tests.web.helpers import running_web
from tests.web.test_browser import WAIT_MS, open_page, shoot

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # pragma: no cover - the test extra installs it
    pytest.skip("the playwright package is not installed (pip install playwright)", allow_module_level=True)


def _house(service: Any, settings: Any) -> BotHouse:
    return BotHouse(service, settings.nego_url, seed=3)


async def submit_holding(page: Page) -> None:
    """Submit with no order given: the page asks first, and the units hold. (The bots have
    ordered already, so the phase may end at once: the caller waits for the next phase, not
    for "All your orders are in", which may be up for no time at all.)"""
    await page.click("#submit-orders")
    await expect(page.locator("#submit-prompt")).to_be_visible()
    await page.click("#submit-holding")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_play_against_bots_is_one_click_from_the_lobby(tmp_path: Path, browser: Browser, phone: bool) -> None:
    expect.set_options(timeout=WAIT_MS)
    async with running_web(tmp_path, house=_house) as web:
        page, errors = await open_page(browser, phone=phone)
        await page.goto(f"{web.http}/")
        section = page.locator("section.against-bots")
        await expect(section).to_contain_text("You against six bots")
        await page.select_option("#against-power", "FRANCE")
        await page.select_option("#against-bot", "holdbot")
        await shoot(page, f"against-bots-lobby-{'phone' if phone else 'desktop'}")
        await page.click("#play-against-bots")
        await expect(page.locator("#power")).to_have_attribute("data-power", "FRA")
        await expect(page.locator("#phase")).to_have_attribute("data-phase", "S1901M")
        assert "name=" not in page.url  # the secret that took the seat is not left in the address
        for token in ("AUS", "ENG", "GER", "ITA", "RUS", "TUR"):
            chip = page.locator(f'.power-chip[data-power="{token}"]')
            await expect(chip).to_have_attribute("data-bot", "holdbot")
            await expect(chip).to_contain_text("bot")
        await expect(page.locator('.power-chip[data-power="FRA"]')).not_to_have_attribute("data-bot", re.compile("."))
        await submit_holding(page)
        await expect(page.locator("#phase")).to_have_attribute("data-phase", "F1901M")  # the bots had ordered
        await shoot(page, f"against-bots-game-{'phone' if phone else 'desktop'}")
        # a bot nobody plays gets one plain line, on the page too
        await page.goto(f"{web.http}/")
        status, body = await http("POST", f"{web.http}/api/games/against-bots", {"bot": "dumbot"})
        assert status == 422 and "did you mean dumbbot" in body["error"]
        assert errors == []


async def test_a_bot_stands_in_for_a_player_who_left_and_gives_the_seat_back(tmp_path: Path, browser: Browser) -> None:
    expect.set_options(timeout=WAIT_MS)
    async with running_web(tmp_path, house=_house) as web:
        bots = {p: "holdbot" for p in ("AUSTRIA", "GERMANY", "ITALY", "RUSSIA", "TURKEY")}
        body = {
            "name": "two people",
            "bots": bots,
            "reserved": {"ENGLAND": "england", "FRANCE": "france"},
            "stand_in": "holdbot",
            "stand_in_after": 1,
            "deadlines": None,
        }
        status, made = await http("POST", f"{web.http}/api/games", body, token=TOKEN)
        assert status == 201, made
        game = made["id"]
        england = await DaideClient.open(f"{web.ws}?game={game}")  # the other person, over DAIDE
        await england.join("england")
        player, errors = await open_page(browser, phone=True)  # France, on a phone
        await player.goto(f"{web.http}/#/game/{game}?as=player&name=france")
        await expect(player.locator("#power")).to_have_attribute("data-power", "FRA")
        await expect(player.locator("#phase")).to_have_attribute("data-phase", "S1901M")
        watcher, watcher_errors = await open_page(browser)  # anyone, watching on a desktop
        await watcher.goto(f"{web.http}/#/game/{game}?as=observer")
        chip = watcher.locator('.power-chip[data-power="FRA"]')
        await expect(chip).to_contain_text("France")
        await expect(chip).not_to_have_attribute("data-stand-in", re.compile("."))

        context = player.context
        await player.close()  # France's player closes the page and goes away
        await expect(watcher.locator("#toast")).to_contain_text("France is played by holdbot until its player returns")
        await expect(chip).to_have_attribute("data-stand-in", "holdbot")
        await expect(chip).to_contain_text("stand-in: holdbot")
        await shoot(watcher, "stand-in-observer")
        await england.expect("ADM ('detente') ('France is played by holdbot")
        await england.hello()
        now = await england.expect("NOW")
        sub, _ = england.holds(now)
        await england.send(sub)
        await expect(watcher.locator("#phase")).to_have_attribute("data-phase", "F1901M")  # the stand-in ordered
        spring = watcher.locator('#results .phase-results[data-phase="S1901M"] .power-results[data-power="FRA"]')
        await expect(spring).to_have_attribute("data-stand-in", "holdbot")  # the results say who ordered
        await expect(spring).to_contain_text("played by holdbot while its player was away")
        await shoot(watcher, "stand-in-results")

        back = await context.new_page()  # the same browser: its seat is kept, and comes back with IAM
        await back.goto(f"{web.http}/#/game/{game}")
        await expect(back.locator("#power")).to_have_attribute("data-power", "FRA")
        await expect(back.locator("#banner")).to_contain_text("Holdbot played your seat while you were away")
        await expect(watcher.locator("#toast")).to_contain_text("The player of France is back")
        await expect(chip).not_to_have_attribute("data-stand-in", re.compile("."))
        await shoot(back, "stand-in-back-phone")
        await england.close()
        assert errors == [] and watcher_errors == []
