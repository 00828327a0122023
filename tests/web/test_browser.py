"""The page end to end in a real browser: Playwright driving Debian's Chromium against a real game
server, negotiation server and six bots (two that negotiate and accept every proposal, four that hold).

A person joins from the lobby, orders by clicking a unit and choosing an order, checks a typed
order, writes "I propose peace" to a negotiating bot, which receives it as L and accepts; the
person sees the answer in English, submits, the phase resolves, and the map shows the orders and
their results, now and through the history slider. Screenshots of the main views are kept in
``tests/web/screenshots/`` (made again with ``DETENTE_SCREENSHOTS=1``). Without Playwright or Chromium the tests are skipped, saying why.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from bots.base import HoldBot, Outgoing, RandomBot
from bots.nego_client import play_negotiating
from bots.ws_client import play
from engine.maps import Map
from engine.position import Position
from protocol.l import ast as a
from protocol.l import to_text
from tests.server.ws_helpers import http
from tests.web.helpers import Web, create_game, running_web

try:
    from playwright.async_api import Browser, Page, async_playwright, expect
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
# The kept screenshots are made again only when asked (DETENTE_SCREENSHOTS=1), so that a test
# run leaves the working tree as it found it; otherwise they go to a temporary directory.
SHOTS = (
    Path(__file__).parent / "screenshots"
    if os.environ.get("DETENTE_SCREENSHOTS")
    else Path(tempfile.gettempdir()) / "detente-screenshots"
)
WAIT_MS = 15_000

if async_playwright is None:
    pytestmark = pytest.mark.skip(reason="the playwright package is not installed (pip install playwright)")
elif not (CHROMIUM.exists() or shutil.which(str(CHROMIUM))):
    pytestmark = pytest.mark.skip(
        reason=f"no Chromium at {CHROMIUM} (apt-get install chromium, or set DETENTE_CHROMIUM)"
    )


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
        me = self.map.abbreviation_of[self.power].lower()
        return (a.Accept(me, frozenset({message.sender}), message.deal),)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        return ()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    assert async_playwright is not None
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


async def open_page(browser: Browser) -> tuple[Page, list[str]]:
    """A page whose script errors (and console errors) are collected."""
    page = await browser.new_page(viewport={"width": 1440, "height": 960})
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.on("console", lambda message: errors.append(f"console: {message.text}") if message.type == "error" else None)
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

    # order by clicking: a unit of the person's, then a move from its menu
    unit = page.locator(f'g.unit.selectable[data-power="{me}"]').first
    unit_name = await unit.get_attribute("data-unit")
    await unit.click()
    chosen_item = page.locator("#unit-menu .menu-item", has_text=" - ").first
    chosen = await chosen_item.get_attribute("data-order")
    assert chosen is not None and unit_name is not None and chosen.startswith(unit_name)
    await chosen_item.click()
    await expect(page.locator(f'.board .orders g.order.kind-move[data-order="{chosen}"]')).to_have_count(1)
    await expect(page.locator(f'select[data-unit="{unit_name}"]')).to_have_value(chosen)

    # a typed order is checked as it is typed
    await page.fill("#order-input", "A XYZ - BUR")
    await expect(page.locator("#order-feedback")).to_contain_text("unknown province")
    await page.fill("#order-input", "")

    # the chat: "I propose peace" to a negotiating bot, which gets it as L and accepts
    partner = talkers[0]
    await asyncio.wait_for(partner.started.wait(), WAIT_MS / 1000)
    assert partner.map is not None
    token = partner.map.abbreviation_of[partner.power]
    await page.click(f'button.conv[data-conv="{token}"]')
    await expect(page.locator("#chat-input")).to_be_enabled()
    await page.fill("#chat-input", "I propose peace")
    await page.press("#chat-input", "Enter")
    thread = page.locator(f'ol.messages[data-conv="{token}"]')
    await expect(thread.locator("li.msg.out")).to_contain_text(f"You propose to {partner.power.title()}: peace")
    await asyncio.wait_for(partner.spoken_to.wait(), WAIT_MS / 1000)
    pair = frozenset({me.lower(), token.lower()})
    proposal = a.Propose(me.lower(), frozenset({token.lower()}), a.Agree(pair, a.Pce(pair)))
    me_full = partner.map.power(me)
    assert partner.heard == [(me_full, to_text(proposal))]
    answer = thread.locator("li.msg.in")
    await expect(answer).to_contain_text(f"{partner.power.title()} accepts the proposal from you: peace")
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

    # hold the phase open, submit (the other units hold): the orders are in, and the phase waits
    await page.click("#hold-phase")
    await expect(page.locator("#hold-phase")).to_have_text("Let the phase end (GOF)")
    await page.click("#submit-orders")
    await expect(page.locator("#mis")).to_contain_text("All your orders are in")
    await expect(page.locator(f'.unit-row[data-unit="{unit_name}"]')).to_have_class(re.compile(r"\bstatus-ok\b"))
    await shoot(page, "orders")
    assert await page.locator("#phase").get_attribute("data-phase") == "S1901M"

    # letting it end (GOF): the phase resolves, and the map shows what happened
    await page.click("#hold-phase")
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "F1901M")
    result = page.locator(f'.board .last g.order.kind-move[data-order="{chosen}"]')
    await expect(result).to_have_count(1)
    await expect(result).to_have_class(re.compile(r"\b(succeeded|failed)\b"))
    await expect(page.locator(".board .last g.order.kind-hold").first).to_be_visible()
    await expect(page.locator("#mis")).to_contain_text("Still to order")
    await shoot(page, "results")

    # a reload rejoins the seat (IAM with the session token kept from the join) and the conversation comes back
    await page.reload()
    await expect(badge).to_have_attribute("data-power", me)
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "F1901M")
    await expect(page.locator("#mis")).to_contain_text("Still to order")
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
    await shoot(page, "history")


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
        await expect(page.locator("#orders")).to_contain_text("The game is over")
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
    assert found["build"]["chosen"] == ["F LVP B"] and found["build"]["mis"] == "Builds still owed: 1"
    assert found["move"]["sent"] == ["SUB ((ENG AMY LVP) MTO YOR) ((ENG FLT LON) HLD)", "MIS"]
    assert found["move"]["marks"] == ["✓", "✕"] and "cannot reach" in found["move"]["note"]


MODULE_CHECKS = """async () => {
  const d = await import("/static/daide.js");
  const n = await import("/static/notation.js");
  const p = await import("/static/powers.js");
  const { OrdersPanel } = await import("/static/orders.js");
  const panel = (legal, phase) => {
    const root = document.createElement("div");
    document.body.append(root);
    const sent = [];
    const orders = new OrdersPanel(root, { send: (text) => sent.push(text), changed: () => {} });
    orders.reset({ game: "g", power: "ENG", phase, legal });
    return { root, sent, orders };
  };
  const build = panel({ kind: "adjustment", units: {}, owed: 1, adjustments: [
    { order: "A LVP B", daide: "(ENG AMY LVP) BLD" }, { order: "F LVP B", daide: "(ENG FLT LVP) BLD" },
    { order: "WAIVE", daide: "ENG WVE" } ] }, "W1901A");
  build.root.querySelectorAll("button.option")[1].click();
  build.root.querySelectorAll("button.option")[0].click(); // one build owed: a second is not taken
  build.orders.setMis({ units: [], count: -1 });
  const mis = build.root.querySelector(".mis").textContent;
  build.orders.submit();
  const move = panel({ kind: "movement", adjustments: [], owed: 0, units: {
    "A LVP": [{ order: "A LVP H", daide: "(ENG AMY LVP) HLD" }, { order: "A LVP - YOR", daide: "(ENG AMY LVP) MTO YOR" }],
    "F LON": [{ order: "F LON H", daide: "(ENG FLT LON) HLD" }] } }, "S1901M");
  move.orders.pick("A LVP", { order: "A LVP - YOR", daide: "(ENG AMY LVP) MTO YOR" });
  move.orders.submit();
  move.orders.thx("A LVP", "MBV");
  move.orders.thx("F LON", "FAR");
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
    build: { sent: build.sent, mis, chosen: [...build.root.querySelectorAll("button.option.chosen")].map((b) => b.textContent) },
    move: { sent: move.sent, marks: [...move.root.querySelectorAll(".unit-row .mark")].map((m) => m.textContent),
            note: move.root.querySelector(".unit-row .note").textContent },
  };
}"""
