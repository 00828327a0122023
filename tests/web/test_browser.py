"""The page end to end in a real browser: Playwright driving Debian's Chromium against a real game
server, negotiation server and six bots (two that negotiate and accept every proposal, four that hold).

A person joins from the lobby, orders by clicking a unit and choosing an order, checks a typed
order (in the short notation and in full names), finds the draft again after a reload, writes "I
propose peace" to a negotiating bot, which receives it as L and accepts; the person sees the answer
in English, submits (asked first about the units without an order), ends the turn, the phase
resolves, and the map and the results panel show every power's orders and their results, now and
through the history slider; a failed request for the legal orders is retried and shown as an
error, never as a change of role. On a phone (390×844, touch) the page has no horizontal scroll,
the map comes first and fills the width, the chat is a tap away, and a Fall's results stay in view
after a Winter with nothing to build. Screenshots of the main views at both sizes are kept in
``tests/web/screenshots/`` (made again with ``DETENTE_SCREENSHOTS=1``). Without Playwright or Chromium the tests are skipped, saying why.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bots.base import HoldBot, Outgoing, RandomBot
from bots.nego_client import play_negotiating
from bots.ws_client import play
from engine import Power
from engine.maps import Map
from engine.position import Position
from protocol.l import ast as a
from protocol.l import to_text
from tests.server.ws_helpers import http
from tests.web.helpers import Web, create_game, running_web

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # pragma: no cover - the test extra installs it
    pytest.skip("the playwright package is not installed (pip install playwright)", allow_module_level=True)

# The kept screenshots are made again only when asked (DETENTE_SCREENSHOTS=1), so that a test
# run leaves the working tree as it found it; otherwise they go to a temporary directory.
SHOTS = (
    Path(__file__).parent / "screenshots"
    if os.environ.get("DETENTE_SCREENSHOTS")
    else Path(tempfile.gettempdir()) / "detente-screenshots"
)
WAIT_MS = 15_000
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}



class Agreeable(HoldBot):
    """Holds every unit; accepts every proposal made to it, and remembers what it heard (as L)."""

    name = "agreeable"
    negotiates = True

    def __init__(self, seed: int) -> None:
        super().__init__(random.Random(seed))
        self.heard: list[tuple[str, str]] = []
        self.started = asyncio.Event()
        self.spoken_to = asyncio.Event()

    def start(self, power: str, m: Map) -> None:
        super().start(power, m)
        self.started.set()

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        self.heard.append((sender, to_text(message)))
        self.spoken_to.set()
        if not isinstance(message, a.Propose):
            return ()
        assert self.map is not None
        me = self.power
        return (a.Accept(me, frozenset({message.sender}), message.deal),)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        return ()


async def open_page(browser: Browser, phone: bool = False) -> tuple[Page, list[str]]:
    """A page whose script errors (and console errors) are collected: a desktop's, or a phone's (touch)."""
    if phone:
        context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    else:
        context = await browser.new_context(viewport=DESKTOP)
    page = await context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    # a request the test itself makes fail is logged by the browser as a failed resource: not a script error
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.on(
        "console",
        lambda message: (
            errors.append(f"console: {message.text}")
            if message.type == "error" and "Failed to load resource" not in message.text
            else None
        ),
    )
    return page, errors


async def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"{name}.jpg"), type="jpeg", quality=80)


async def test_a_person_joins_orders_negotiates_in_english_and_sees_the_results(
    tmp_path: Path, browser: Browser
) -> None:
    expect.set_options(timeout=WAIT_MS)
    async with running_web(tmp_path) as web:
        game = await create_game(
            web, name="browser game", deadlines={"movement": 600, "retreat": 600, "adjustment": 600}
        )
        page, errors = await open_page(browser)
        await page.goto(f"{web.http}/")
        row = page.locator(f'tr[data-game="{game}"]')
        await expect(row).to_contain_text("0 of 7 seats taken")
        await shoot(page, "lobby")
        await row.get_by_role("link", name="Join as a player").click()
        await expect(page.locator("#banner")).to_contain_text("You have a seat")

        talkers = [Agreeable(1), Agreeable(2)]
        tasks: list[asyncio.Task[Any]] = [
            asyncio.create_task(play_negotiating(bot, web.ws, web.nego, game)) for bot in talkers
        ]
        tasks += [asyncio.create_task(play(HoldBot(random.Random(i)), web.ws, game)) for i in range(4)]
        try:
            await play_the_first_phase(page, web, talkers)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        assert errors == []


async def play_the_first_phase(page: Page, web: Web, talkers: list[Agreeable]) -> None:
    badge = page.locator("#power")
    await expect(badge).to_have_attribute("data-power", re.compile(r"^[A-Z]{3}$"))
    me = await badge.get_attribute("data-power")
    assert me is not None
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "S1901M")
    await expect(page.locator("#mis")).to_contain_text("Still to order")
    await expect(page.locator("#submit-orders")).to_be_in_viewport()  # Submit is in view at 1440×900
    await expect(page.locator("#hold-phase")).not_to_contain_text("GOF")

    # order by clicking: a unit of the person's, then a move from its menu (which says it in words)
    unit = page.locator(f'g.unit.selectable[data-power="{me}"]').first
    unit_name = await unit.get_attribute("data-unit")
    await unit.click()
    chosen_item = page.locator("#unit-menu .menu-item", has_text=" - ").first
    chosen = await chosen_item.get_attribute("data-order")
    assert chosen is not None and unit_name is not None and chosen.startswith(unit_name)
    await expect(chosen_item).to_contain_text("moves to")
    await chosen_item.click()
    await expect(page.locator(f'.board .orders g.order.kind-move[data-order="{chosen}"]')).to_have_count(1)
    await expect(page.locator(f'select[data-unit="{unit_name}"]')).to_have_value(chosen)
    await expect(page.locator("#mis")).to_contain_text("Still to order")  # the others are still to order
    await expect(page.locator("#mis")).not_to_contain_text(unit_name)

    # a typed order is checked as it is typed: in the short notation, or in words with full names
    await page.fill("#order-input", "A XYZ - BUR")
    await expect(page.locator("#order-feedback")).to_contain_text("unknown province")
    names = {p["id"]: p["name"] for p in (await http("GET", f"{web.http}/api/map"))[1]["provinces"]}
    await page.fill("#order-input", in_words(chosen, names))
    await expect(page.locator("#order-feedback")).to_contain_text(f"✓ {chosen}")
    await page.fill("#order-input", "")

    # the draft survives a reload
    await page.reload()
    await expect(page.locator(f'select[data-unit="{unit_name}"]')).to_have_value(chosen)
    await expect(page.locator(f'.unit-row[data-unit="{unit_name}"]')).to_have_class(re.compile(r"\bstatus-draft\b"))
    await expect(page.locator(f'.board .orders g.order.kind-move[data-order="{chosen}"]')).to_have_count(1)

    # the chat: "I propose peace" to a negotiating bot, which gets it as L and accepts
    partner = talkers[0]
    await asyncio.wait_for(partner.started.wait(), WAIT_MS / 1000)
    assert partner.map is not None
    token = partner.power
    await page.click(f'button.conv[data-conv="{token}"]')
    await expect(page.locator("#chat-input")).to_be_enabled()
    await page.fill("#chat-input", "I propose peace")
    await page.press("#chat-input", "Enter")
    thread = page.locator(f'ol.messages[data-conv="{token}"]')
    await expect(thread.locator("li.msg.out")).to_contain_text(f"You propose to {Power(partner.power).english}: peace")
    await asyncio.wait_for(partner.spoken_to.wait(), WAIT_MS / 1000)
    pair = frozenset({me.lower(), token.lower()})
    proposal = a.Propose(me.lower(), frozenset({token.lower()}), a.Agree(pair, a.Pce(pair)))
    me_full = partner.map.power(me)
    assert partner.heard == [(me_full, to_text(proposal))]
    answer = thread.locator("li.msg.in")
    await expect(answer).to_contain_text(f"{Power(partner.power).english} accepts the proposal from you: peace")
    await expect(thread.locator("li.note.confirmed")).to_contain_text("Deal confirmed")
    await page.check("#show-l")
    await expect(answer.locator("code.l")).to_contain_text(f"accept({token.lower()}")
    await shoot(page, "chat")

    # not understood: the reason, and the closest L it can build
    await page.fill("#chat-input", "I propose peace, and my cat is hungry")
    await page.press("#chat-input", "Enter")
    await expect(page.locator("#chat-feedback .closest")).to_contain_text("The closest I can say")
    # expert mode sends L as it is: the negotiation server's error comes back with where it is
    await page.check("#expert")
    await page.fill("#chat-input", f"propose({me.lower()}, [{token.lower()}]")
    await page.press("#chat-input", "Enter")
    await expect(page.locator("#chat-feedback")).to_contain_text("syntax")
    await expect(page.locator("#chat-feedback")).to_contain_text("line 1")
    await page.uncheck("#expert")
    await page.fill("#chat-input", "")
    # alerts can be muted, and stay muted
    await page.click("#mute")
    await expect(page.locator("#mute")).to_have_text("alerts muted")
    assert await page.evaluate("localStorage.getItem('detente.muted')") == "1"

    # keep the turn open (not ready), submit: asked first about the units without an order (no
    # silent holds), they hold; the orders are in, the status turns green, and the phase waits
    assert not await page.is_checked("#others-hold")
    await page.click("#hold-phase")
    await expect(page.locator("#hold-phase")).to_have_text("Ready: end my turn")
    await page.click("#submit-orders")
    prompt = page.locator("#submit-prompt")
    await expect(prompt).to_be_visible()
    await expect(prompt).to_contain_text("No order yet for")
    assert unit_name not in await prompt.inner_text()
    await page.click("#submit-holding")
    await expect(page.locator("#mis")).to_contain_text("All your orders are in")
    await expect(page.locator("#mis")).to_have_class(re.compile(r"\bcomplete\b"))
    assert await page.eval_on_selector("#mis", "e => getComputedStyle(e).color") == "rgb(35, 122, 59)"
    await expect(page.locator(f'.unit-row[data-unit="{unit_name}"]')).to_have_class(re.compile(r"\bstatus-ok\b"))
    await expect(page.locator("#submit-orders")).to_be_in_viewport()
    await shoot(page, "orders")
    assert await page.locator("#phase").get_attribute("data-phase") == "S1901M"

    # ready: the phase resolves, and the map and the results panel show what happened, for every power
    await page.click("#hold-phase")
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "F1901M")
    result = page.locator(f'.board .last g.order.kind-move[data-order="{chosen}"]')
    await expect(result).to_have_count(1)
    await expect(result).to_have_class(re.compile(r"\b(succeeded|failed)\b"))
    await expect(page.locator(".board .last g.order.kind-hold").first).to_be_visible()
    await expect(page.locator("#mis")).to_contain_text("Still to order")
    results = page.locator("#results")
    await expect(results).to_contain_text("Results — Spring 1901 movement")
    await expect(results.locator(".power-results")).to_have_count(7)
    await expect(results.locator(f'li[data-order="{chosen}"]')).to_contain_text(re.compile(r": (moved|bounced)"))
    await expect(results.locator(".power-results li").first).to_be_visible()
    await shoot(page, "results")

    # a reload rejoins the seat (IAM with the session token kept from the join) and the conversation
    # comes back; the legal orders fail twice on the way: retried, shown as an error, never "watching"
    failures = []

    async def fail_twice(route: Any) -> None:
        if len(failures) < 2:
            failures.append(route.request.url)
            await route.fulfill(status=503, content_type="application/json", body='{"error": "busy"}')
        else:
            await route.continue_()

    await page.route("**/legal?*", fail_twice)
    await page.reload()
    await expect(page.locator("#error-banner")).to_contain_text("Could not load your orders")
    await expect(page.locator("#mis")).not_to_contain_text("watching")
    await expect(badge).to_have_attribute("data-power", me)
    await expect(page.locator("#mis")).to_contain_text("Still to order")
    await expect(page.locator("#error-banner")).to_be_hidden()
    assert len(failures) == 2
    await page.unroute("**/legal?*")
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "F1901M")
    await expect(page.locator(f'ol.messages[data-conv="{token}"] li.msg.in')).to_contain_text("accepts")

    # the seat link brings the seat to another browser, which takes it (and its chat) from this one
    link = await page.locator("#seat-link").get_attribute("href")
    assert link is not None and "session=" in link and re.search(r"session=[A-Za-z0-9_-]{22}", link)
    assert page.context.browser is not None
    other, other_errors = await open_page(page.context.browser)
    await other.goto(link)
    await expect(other.locator("#power")).to_have_attribute("data-power", me)
    assert "session=" not in other.url  # the token leaves the address bar
    await expect(page.locator("#banner")).to_contain_text("played from another window or browser")
    await expect(other.locator(f'ol.messages[data-conv="{token}"] li.msg.in')).to_contain_text("accepts")
    # and back: "Play here" takes it again, and the other browser is told in turn
    await page.click("#take-back")
    await expect(page.locator("#banner")).to_be_hidden()
    await expect(other.locator("#banner")).to_contain_text("played from another window or browser")
    assert not other_errors, other_errors
    await other.context.close()

    # the history slider goes back to spring 1901: the board before, with the orders and results
    await page.locator("#history").fill("0")
    await expect(page.locator("#history-label")).to_contain_text("Spring 1901 movement")
    await expect(page.locator(f'.board .orders g.order[data-order="{chosen}"]')).to_have_count(1)
    await expect(page.locator("#results")).to_have_attribute("data-phase", "S1901M")
    await expect(page.locator(f'#results li[data-order="{chosen}"]')).to_be_visible()
    await shoot(page, "history")


async def test_on_a_phone_the_map_comes_first_the_chat_is_a_tap_away_and_fall_results_stay(
    tmp_path: Path, browser: Browser
) -> None:
    expect.set_options(timeout=WAIT_MS)
    async with running_web(tmp_path) as web:
        game = await create_game(web, name="phone game")
        page, errors = await open_page(browser, phone=True)
        await page.goto(f"{web.http}/")
        row = page.locator(f'tr[data-game="{game}"]')
        await expect(row).to_contain_text("0 of 7 seats taken")
        await no_horizontal_scroll(page)
        await shoot(page, "phone-lobby")
        await row.get_by_role("link", name="Join as a player").tap()
        await expect(page.locator("#banner")).to_contain_text("You have a seat")
        talkers = [Agreeable(3), Agreeable(4)]
        tasks: list[asyncio.Task[Any]] = [
            asyncio.create_task(play_negotiating(bot, web.ws, web.nego, game)) for bot in talkers
        ]
        tasks += [asyncio.create_task(play(HoldBot(random.Random(i)), web.ws, game)) for i in range(4)]
        try:
            await play_two_phases_on_a_phone(page, talkers)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        assert errors == []


async def no_horizontal_scroll(page: Page) -> None:
    width = await page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide"


async def play_two_phases_on_a_phone(page: Page, talkers: list[Agreeable]) -> None:
    badge = page.locator("#power")
    await expect(badge).to_have_attribute("data-power", re.compile(r"^[A-Z]{3}$"))
    me = await badge.get_attribute("data-power")
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "S1901M")
    await no_horizontal_scroll(page)
    # the map first, filling the width, its labels large enough to read
    board = await page.locator("#board").bounding_box()
    assert board is not None and board["width"] >= PHONE["width"] - 20 and board["y"] < 200, board
    label = await page.locator(".board .labels text").first.bounding_box()
    assert label is not None and label["height"] >= 8, label
    await expect(page.locator("#chat")).to_be_hidden()
    # zoomed, the map is larger and pans inside its box; the page itself still does not scroll sideways
    await page.locator("#zoom").tap()
    await expect(page.locator("#zoom")).to_have_text("Zoom out")
    assert (
        await page.evaluate("document.querySelector('#board svg').getBoundingClientRect().width") > 2 * board["width"]
    )
    await no_horizontal_scroll(page)
    await page.locator("#zoom").tap()

    # a unit tapped on the map: its menu, then hold; Submit (in view) asks about the others, which hold
    unit = page.locator(f'g.unit.selectable[data-power="{me}"]').first
    unit_name = await unit.get_attribute("data-unit")
    await unit.tap()
    hold = page.locator("#unit-menu .menu-item", has_text=" H").first
    await expect(hold).to_be_in_viewport()
    await hold.tap()
    await expect(page.locator(f'select[data-unit="{unit_name}"]')).to_have_value(f"{unit_name} H")
    await expect(page.locator("#submit-orders")).to_be_in_viewport()
    await shoot(page, "phone-orders")

    # the chat, a tap away: a long conversation with a negotiating bot, Send and "show the L" not covered
    partner = talkers[0]
    await asyncio.wait_for(partner.started.wait(), WAIT_MS / 1000)
    assert partner.map is not None
    token = partner.power
    await page.locator("#tab-chat").tap()
    await expect(page.locator("#chat")).to_be_visible()
    await expect(page.locator("#board")).to_be_hidden()
    await page.locator(f'button.conv[data-conv="{token}"]').tap()
    await expect(page.locator("#chat-input")).to_be_enabled()
    thread = page.locator(f'ol.messages[data-conv="{token}"]')
    for n in range(1, 7):
        await page.locator("#chat-input").fill("I propose peace")
        await page.locator("#chat-send").tap()
        await expect(thread.locator("li.msg.in")).to_have_count(n)
    await page.locator("#show-l").tap()
    await expect(page.locator("#show-l")).to_be_checked()
    await expect(page.locator("#chat-send")).to_be_in_viewport()
    await no_horizontal_scroll(page)
    await shoot(page, "phone-chat")

    # back to the map; submit: the prompt, "they hold"; the phase resolves and the results are in words
    await page.locator("#tab-map").tap()
    await expect(page.locator("#board")).to_be_in_viewport()
    await page.locator("#submit-orders").tap()
    await expect(page.locator("#submit-prompt")).to_contain_text("No order yet for")
    await page.locator("#submit-holding").tap()
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "F1901M")
    await expect(page.locator("#results")).to_contain_text("Results — Spring 1901 movement")

    # Fall: every unit holds (ticked), nothing to build: Winter passes at once, and Fall's results stay
    await page.locator("#others-hold").tap()
    await page.locator("#submit-orders").tap()
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "S1902M")
    results = page.locator("#results")
    await expect(results).to_have_attribute("data-phase", "F1901M")
    await expect(results).to_contain_text("Results — Fall 1901 movement")
    await expect(results.locator(f'.power-results[data-power="{me}"] li[data-order="{unit_name} H"]')).to_contain_text(
        ": held"
    )
    await expect(results.locator(".power-results")).to_have_count(7)
    await no_horizontal_scroll(page)
    await results.scroll_into_view_if_needed()
    await shoot(page, "phone-results")
    # hidden when the person says so, and it stays hidden after a reload until the next results
    await page.locator("#results-toggle").tap()
    await expect(results.locator(".power-results")).to_have_count(0)

    # a reload with a long chat: the page stays at the map (the chat does not scroll it away)
    await page.reload()
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "S1902M")
    await expect(page.locator(f'ol.messages[data-conv="{token}"] li.msg.in')).to_have_count(6)
    await expect(results).to_contain_text("Results — Fall 1901 movement")
    await expect(results.locator(".power-results")).to_have_count(0)
    await page.wait_for_timeout(300)
    assert await page.evaluate("window.scrollY") == 0
    await expect(page.locator("#board")).to_be_in_viewport()
    await expect(page.locator("#chat-unread")).to_be_hidden()
    await no_horizontal_scroll(page)
    await shoot(page, "phone-map")


def in_words(order: str, names: Mapping[str, str]) -> str:
    """A move of the short notation in words, with the provinces' full names: "army paris to burgundy"."""
    kind, at, _, to = order.split()[:4]

    def place(location: str) -> str:
        province, _, coast = location.partition("/")
        return f"{names[province]} {coast.lower()}".strip()

    return f"{'army' if kind == 'A' else 'fleet'} {place(at)} moves to {place(to).lower()}"


async def test_an_observer_watches_a_game_of_bots_to_its_end_and_back_through_every_phase(
    tmp_path: Path, browser: Browser
) -> None:
    expect.set_options(timeout=WAIT_MS)
    async with running_web(tmp_path, nego=False) as web:
        game = await create_game(web, name="watched game", year_limit=1902)
        page, errors = await open_page(browser)
        await page.goto(f"{web.http}/")
        await page.locator(f'tr[data-game="{game}"]').get_by_role("link", name="Watch").click()
        await expect(page.locator("#banner")).to_contain_text("You are watching")
        bots = [asyncio.create_task(play(RandomBot(random.Random(i)), web.ws, game)) for i in range(7)]
        try:
            await expect(page.locator("#banner")).to_contain_text("Game over")
        finally:
            await asyncio.gather(*bots, return_exceptions=True)
        await expect(page.locator("#power")).to_have_text("")
        await expect(page.locator("#mis")).to_contain_text("The game is over")
        phases = (await http("GET", f"{web.http}/api/games/{game}/history"))[1]["phases"]
        # every movement phase to the year limit; a winter with nothing to build or remove is
        # skipped, and which power each random bot plays depends on the order they join in
        assert {"S1901M", "F1901M", "S1902M", "F1902M"} <= {p["phase"] for p in phases}
        await expect(page.locator("#history")).to_have_attribute("max", str(len(phases)))
        slider = page.locator("#history")
        for index, phase in enumerate(phases):
            await slider.fill(str(index))
            await expect(page.locator("#history-label")).to_contain_text(phase_name(phase["phase"]))
            given = sum(1 for orders in phase["orders"].values() for order in orders if order != "WAIVE")
            await expect(page.locator(".board .orders g.order")).to_have_count(given)
            await expect(page.locator("#results")).to_have_attribute("data-phase", phase["phase"])
            if phase["phase"] == "F1901M":
                await shoot(page, "observer")
        assert errors == []


def phase_name(phase: str) -> str:
    seasons = {"S": "Spring", "F": "Fall", "W": "Winter"}
    kinds = {"M": "movement", "R": "retreats", "A": "adjustments"}
    return f"{seasons[phase[0]]} {phase[1:5]} {kinds[phase[5]]}"


async def test_the_page_modules_read_daide_and_orders_and_build_the_sub(tmp_path: Path, browser: Browser) -> None:
    """The small readers of the page's modules and the orders panel's SUB, run in the browser itself."""
    async with running_web(tmp_path, nego=False) as web:
        page, errors = await open_page(browser)
        await page.goto(f"{web.http}/")
        # the page has its map (and so the province names the typed orders are read with)
        await expect(page.locator("body")).to_have_attribute("data-ready", "true")
        found = await page.evaluate(MODULE_CHECKS)
        assert errors == []
    assert found["hlo"] == ["HLO", ["ENG"], [1234], [["LVL", 0], ["MTL", 600]]]
    assert found["mis"] == {"units": ["F LON", "F STP/SC"], "count": None}
    assert found["count"] == {"units": [], "count": -2}
    assert found["none"] == {"units": [], "count": None}
    assert found["thx"] == {"unit": "F STP/NC", "note": "FAR"}
    assert found["waive"] == {"unit": "WAIVE", "note": "MBV"}
    assert found["phase"] == "F1902R" and found["map"] == ["MAP", [{"text": "standard"}]]
    support, convoy, via, retreat, build, waive, coast = found["orders"]
    assert support == {"unit": "A MAR", "at": "MAR", "type": "A", "kind": "support", "target": "PAR", "to": "BUR"}
    assert (convoy["kind"], convoy["target"], convoy["to"]) == ("convoy", "LON", "NWY")
    assert (via["kind"], via["via"], retreat["kind"], retreat["to"]) == ("move", True, "retreat", "ALB")
    assert (build["kind"], waive["kind"], coast["at"], coast["unit"]) == ("build", "waive", "STP/SC", "F STP/SC")
    assert found["name"] == "Winter 1901 adjustments"
    assert found["build"]["sent"] == ["SUB ((ENG FLT LVP) BLD)", "MIS"]
    assert found["build"]["chosen"] == ["F LVP B"]
    assert found["build"]["mis"] == [
        "Builds still owed: 1 (choose, or waive)",
        "Builds chosen: press Submit to send them.",
    ]
    assert found["build"]["after"] == "All your orders are in."
    # no silent holds: the first Submit asks about F LON, and only "They hold: submit" sends its hold
    assert found["move"]["asked"] == [["No order yet for this unit: F LON (London)."], []]
    assert found["move"]["sent"] == ["SUB ((ENG AMY LVP) MTO YOR) ((ENG FLT LON) HLD)", "MIS"]
    assert found["move"]["marks"] == ["✓", "✕"] and "cannot reach" in found["move"]["note"]
    assert found["move"]["status"] == ["Still to order (2 of 2): A LVP, F LON", "bad", "Still to order (1 of 2): F LON"]
    # drafts are kept per game, phase and power, and come back (what was sent, as sent until MIS says)
    assert found["kept"]["stored"] == {"A LVP": {"order": "A LVP - YOR", "status": "draft"}}
    assert found["kept"]["restored"] == [["A LVP", "A LVP - YOR", "draft"], ["F LON", "F LON H", "ok"]]
    assert found["kept"]["complete"] == ["All your orders are in.", True]
    # typed orders: full names, common abbreviations, words for the verbs, coasts in any spelling
    assert found["typed"] == [
        "F BRE - MAO",
        "F BRE - MAO",
        "A PAR - BUR",
        "A MAR S A PAR - BUR",
        "F LON - ECH",
        "F MAO - SPA/NC",
        "F STP/SC - GOB",
        "A TYR - VEN",
        "F GOL - TYS",
        "F NTH C A LON - NWY",
        "A LON - NWY VIA",
        "A XYZ - BUR",
    ]
    # a move to a province with two coasts asks which; with one coast it reachs, that one is checked
    assert found["coast"]["asked"] == ["north coast", "south coast"]
    assert found["coast"]["picked"] == "F MAO - SPA/SC" and found["coast"]["checked"] == ["F GOL - SPA/SC"]
    # the results in words, and a failed order's mark in the colour of the power that gave it
    assert found["words"] == ["moved", "bounced", "support cut", "held, dislodged"]
    assert (
        found["marks"]["french"] and found["marks"]["german"] and found["marks"]["french"] != found["marks"]["german"]
    )


MODULE_CHECKS = """async () => {
  const d = await import("/static/daide.js");
  const n = await import("/static/notation.js");
  const p = await import("/static/powers.js");
  const r = await import("/static/results.js");
  const { Board } = await import("/static/board.js");
  const { OrdersPanel } = await import("/static/orders.js");
  const { api } = await import("/static/api.js");
  // a game's view sets the powers and names of its map; these checks read the standard one's
  const standard = await api.map("standard");
  p.setPowers(standard.power_table);
  n.setProvinces(standard.provinces);
  const checked = [];
  const check = async (game, power, text) => {
    checked.push(text);
    return { ok: true, order: text, daide: "(FRA FLT GOL) MTO (SPA SCS)", unit: "F GOL", note: "MBV" };
  };
  const panel = (legal, phase, power = "ENG") => {
    const root = document.createElement("div");
    document.body.append(root);
    const sent = [];
    const orders = new OrdersPanel(root, { send: (text) => sent.push(text), changed: () => {}, check });
    orders.reset({ game: "g", power, phase, legal });
    return { root, sent, orders };
  };
  const mis = (x) => x.root.querySelector(".mis");
  localStorage.clear();
  const build = panel({ kind: "adjustment", units: {}, owed: 1, adjustments: [
    { order: "A LVP B", daide: "(ENG AMY LVP) BLD" }, { order: "F LVP B", daide: "(ENG FLT LVP) BLD" },
    { order: "WAIVE", daide: "ENG WVE" } ] }, "W1901A");
  const buildMis = [mis(build).textContent];
  build.root.querySelectorAll("button.option")[1].click();
  build.root.querySelectorAll("button.option")[0].click(); // one build owed: a second is not taken
  buildMis.push(mis(build).textContent);
  build.orders.submit();
  build.orders.thx("F LVP", "MBV");
  const buildAfter = mis(build).textContent;
  const moveLegal = { kind: "movement", adjustments: [], owed: 0, phase: "S1901M", units: {
    "A LVP": [{ order: "A LVP H", daide: "(ENG AMY LVP) HLD" }, { order: "A LVP - YOR", daide: "(ENG AMY LVP) MTO YOR" }],
    "F LON": [{ order: "F LON H", daide: "(ENG FLT LON) HLD" }] } };
  const move = panel(moveLegal, "S1901M");
  const status = [mis(move).textContent, mis(move).className.includes("complete") ? "complete" : "bad"];
  move.orders.pick("A LVP", { order: "A LVP - YOR", daide: "(ENG AMY LVP) MTO YOR" });
  status.push(mis(move).textContent);
  const stored = JSON.parse(localStorage.getItem("detente.orders.g.S1901M.ENG"));
  move.orders.submit();
  const prompt = move.root.querySelector("#submit-prompt");
  const asked = [[prompt.hidden ? "" : prompt.querySelector("p").textContent], [...move.sent]];
  move.root.querySelector("#submit-holding").click();
  // a reload: a new panel finds the drafts, and MIS says which of those sent the server has
  const again = panel(moveLegal, "S1901M");
  again.orders.setMis({ units: ["A LVP"], count: null });
  const restored = [...again.orders.drafts].map(([k, d]) => [k, d.order, d.status]);
  again.orders.pick("A LVP", { order: "A LVP - YOR", daide: "(ENG AMY LVP) MTO YOR" });
  again.orders.submit();
  again.orders.thx("A LVP", "MBV");
  const complete = [mis(again).textContent, mis(again).classList.contains("complete")];
  move.orders.thx("A LVP", "MBV");
  move.orders.thx("F LON", "FAR");
  // a coast asked for
  const coast = panel({ kind: "movement", adjustments: [], owed: 0, units: {
    "F MAO": [{ order: "F MAO H", daide: "" }, { order: "F MAO - SPA/NC", daide: "(FRA FLT MAO) MTO (SPA NCS)" },
              { order: "F MAO - SPA/SC", daide: "(FRA FLT MAO) MTO (SPA SCS)" }],
    "F GOL": [{ order: "F GOL H", daide: "" }, { order: "F GOL - SPA/SC", daide: "(FRA FLT GOL) MTO (SPA SCS)" }] } },
    "F1901M", "FRA");
  const input = coast.root.querySelector("#order-input");
  input.value = "F mid atlantic - spain";
  input.dispatchEvent(new Event("input"));
  const coastAsked = [...coast.root.querySelectorAll("#order-feedback button.coast")].map((b) => b.textContent);
  coast.root.querySelectorAll("#order-feedback button.coast")[1].click();
  const picked = coast.orders.drafts.get("F MAO").order;
  input.value = "F lyo - spa";
  input.dispatchEvent(new Event("input"));
  await new Promise((resolve) => setTimeout(resolve, 400));
  // the marks of failed orders, in the colour of the power that ordered them
  const map = await (await fetch("/api/map")).json();
  const box = document.createElement("div");
  document.body.append(box);
  const board = new Board(box, map);
  board.show({ position: map.initial, orders: [
    { power: "FRANCE", text: "A PAR - BUR", result: ["bounce"] }, { power: "GERMANY", text: "A MUN - BUR", result: ["bounce"] }] });
  const markOf = (power) => box.querySelector(`g.order[data-power="${power}"] .result-mark.bounce:not(.halo)`)?.getAttribute("stroke");
  return {
    hlo: d.parseDaide("HLO (ENG) (1234) ((LVL 0) (MTL 600))"),
    mis: d.readMis(d.parseDaide("MIS (ENG FLT LON) (RUS FLT (STP SCS))")),
    count: d.readMis(d.parseDaide("MIS (-2)")),
    none: d.readMis(d.parseDaide("MIS")),
    thx: d.readThx(d.parseDaide("THX ((ENG FLT (STP NCS)) MTO BAR) (FAR)")),
    waive: d.readThx(d.parseDaide("THX (ENG WVE) (MBV)")),
    phase: d.phaseOfTurn(["AUT", 1902]),
    map: d.parseDaide("MAP ('standard')"),
    orders: ["A MAR S A PAR - BUR", "F NTH C A LON - NWY", "A LON - NWY VIA", "F TRI R ALB", "A PAR B", "WAIVE",
             "F STP/SC - BOT"].map(n.readOrder),
    name: p.phaseName("W1901A"),
    build: { sent: build.sent, mis: buildMis, after: buildAfter,
             chosen: [...build.root.querySelectorAll("button.option.chosen")].map((b) => b.textContent) },
    move: { sent: move.sent, asked, status, marks: [...move.root.querySelectorAll(".unit-row .mark")].map((m) => m.textContent),
            note: move.root.querySelector(".unit-row .note").textContent },
    kept: { stored: Object.fromEntries(Object.entries(stored).map(([k, d]) => [k, { order: d.order, status: d.status }])),
            restored, complete },
    typed: ["F brest - mid atlantic", "F Brest - Mid-Atlantic Ocean", "army paris moves to burgundy",
            "A Marseilles supports A Paris to Burgundy", "F lon - eng", "F mid atlantic - spain north coast",
            "F StP(sc) - gulf of bothnia", "A tyl - ven", "F lyo - tys", "F north sea convoys A london to norway",
            "A lon - nwy via convoy", "A XYZ - BUR"].map(n.normaliseOrder),
    coast: { asked: coastAsked, picked, checked },
    words: [r.resultWords(n.readOrder("A PAR - BUR"), ["ok"]), r.resultWords(n.readOrder("A PAR - BUR"), ["bounce"]),
            r.resultWords(n.readOrder("A PAR S A MAR"), ["cut"]), r.resultWords(n.readOrder("A PAR H"), ["ok", "dislodged"])],
    marks: { french: markOf("FRA") && markOf("FRA").includes(p.colourOf("FRA")) && markOf("FRA"),
             german: markOf("GER") && markOf("GER").includes(p.colourOf("GER")) && markOf("GER") },
  };
}"""
