"""The chat tells the truth about deals (issue 16, docs/negotiation.md), in a real browser at 1440×900.

A person promises a bot that rejects everything: the rejection shows, and nothing says
"confirmed". The person agrees peace with a bot that accepts everything ("Deal confirmed") and
makes it a promise ("Promise accepted"); the phase ends at its deadline (a divider, and the
compliance report on the promise). After a reload every note comes back, from the negotiation
server's records, in its place. Without Playwright or Chromium the test is skipped, saying why.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bots.base import HoldBot, Outgoing
from bots.nego_client import play_negotiating
from bots.ws_client import play
from engine import Power
from engine.maps import Map
from engine.position import Position
from protocol.l import ast as a
from protocol.l import to_text
from protocol.l.actions import unit_from_engine
from tests.web.helpers import create_game, running_web

try:
    from playwright.async_api import Browser, Page, expect
except ImportError:  # pragma: no cover - the test extra installs it
    pytest.skip("the playwright package is not installed (pip install playwright)", allow_module_level=True)

WAIT_MS = 15_000
#: The spring phase ends at its deadline, long enough for the talk before it.
MOVEMENT_SECONDS = 12



class Answering(HoldBot):
    """Holds every unit; accepts (or rejects) every proposal made to it."""

    name = "answering"
    negotiates = True

    def __init__(self, seed: int, accepts: bool) -> None:
        super().__init__(random.Random(seed))
        self.accepts = accepts
        self.started = asyncio.Event()

    def start(self, power: str, m: Map) -> None:
        super().start(power, m)
        self.started.set()

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if not isinstance(message, a.Propose):
            return ()
        assert self.map is not None
        me = self.power
        answer = a.Accept if self.accepts else a.Reject
        return (answer(me, frozenset({message.sender}), message.deal),)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        return ()

    @property
    def token(self) -> str:
        assert self.map is not None
        return self.power


def promise(me: str, to: str, index: int) -> str:
    """``me`` promises ``to`` that its ``index``-th unit at the start holds (expert L)."""
    start = Position.initial()
    unit = sorted(start.units_of(start.map.power(me)), key=lambda u: u.location)[index]
    commit = a.Commit(me.lower(), frozenset({to.lower()}), a.Do(a.Hld(unit_from_engine(start.map, unit))))
    return to_text(a.Propose(me.lower(), frozenset({to.lower()}), a.Deal(frozenset({commit}))))


async def say_l(page: Page, to: str, text: str) -> None:
    await page.click(f'button.conv[data-conv="{to}"]')
    await page.check("#expert")
    await page.fill("#chat-input", text)
    await page.press("#chat-input", "Enter")
    await expect(page.locator("#chat-feedback")).to_contain_text("Understood and sent")
    await page.uncheck("#expert")


async def test_a_rejected_promise_is_never_confirmed_and_the_notes_survive_a_reload(
    tmp_path: Path, browser: Browser
) -> None:
    expect.set_options(timeout=WAIT_MS)
    async with running_web(tmp_path) as web:
        deadlines = {"movement": MOVEMENT_SECONDS, "retreat": 600, "adjustment": 600}
        game = await create_game(web, name="truthful chat", deadlines=deadlines)
        page = await browser.new_page(viewport={"width": 1440, "height": 900})
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
        await page.goto(f"{web.http}/")
        await page.locator(f'tr[data-game="{game}"]').get_by_role("link", name="Join as a player").click()
        await expect(page.locator("#banner")).to_contain_text("You have a seat")

        no, yes = Answering(1, accepts=False), Answering(2, accepts=True)
        tasks: list[asyncio.Task[Any]] = [
            asyncio.create_task(play_negotiating(bot, web.ws, web.nego, game)) for bot in (no, yes)
        ]
        tasks += [asyncio.create_task(play(HoldBot(random.Random(i)), web.ws, game)) for i in range(4)]
        try:
            await asyncio.wait_for(asyncio.gather(no.started.wait(), yes.started.wait()), WAIT_MS / 1000)
            await talk_reload_and_check(page, no.token, yes.token)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        assert errors == []


async def talk_reload_and_check(page: Page, no: str, yes: str) -> None:
    badge = page.locator("#power")
    # the page learns its power from its HLO, which reaches it as the bots' do: wait for it
    await expect(badge).to_have_attribute("data-power", re.compile(r"^[A-Z]{3}$"))
    me = await badge.get_attribute("data-power")
    assert me is not None
    await expect(page.locator("#chat-input")).to_be_enabled()
    refused = page.locator(f'ol.messages[data-conv="{no}"]')
    agreed = page.locator(f'ol.messages[data-conv="{yes}"]')

    # a promise the other side rejects: the rejection shows, and no note ever says "confirmed"
    await say_l(page, no, promise(me, no, 0))
    await expect(refused.locator("li.msg.in")).to_contain_text("rejects the proposal from you")
    await expect(refused.locator("li.note")).to_have_count(0)
    await expect(refused).not_to_contain_text("confirmed")

    # peace agreed: confirmed; a promise accepted: accepted, not confirmed
    await page.click(f'button.conv[data-conv="{yes}"]')
    await page.fill("#chat-input", "I propose peace")
    await page.press("#chat-input", "Enter")
    await expect(agreed.locator("li.note.confirmed")).to_contain_text("Deal confirmed: Peace between")
    await say_l(page, yes, promise(me, yes, 1))
    accepted = agreed.locator("li.note.accepted")
    await expect(accepted).to_contain_text("Promise accepted")
    await expect(accepted).not_to_contain_text("confirmed")

    # the phase ends at its deadline: a divider, and how the promise was kept
    ended = (MOVEMENT_SECONDS + 15) * 1000
    await expect(agreed.locator("li.note.divider")).to_contain_text("Fall 1901", timeout=ended)
    await expect(agreed.locator("li.note.compliance").last).to_contain_text("you kept it")
    before = await notes_of(page, yes), await notes_of(page, no)
    kinds = [kind for kind, _ in before[0]]
    assert kinds[:5] == ["confirmed", "accepted", "compliance", "compliance", "divider"], before[0]

    # a reload: the notes come back from the server, in their place among the messages
    await page.reload()
    await expect(badge).to_have_attribute("data-power", me)
    await expect(agreed.locator("li.note.compliance").last).to_contain_text("you kept it")
    await expect(refused.locator("li.msg.in")).to_contain_text("rejects the proposal from you")
    assert (await notes_of(page, yes), await notes_of(page, no)) == before
    assert not [text for _, text in before[1] if "confirmed" in text]
    order = await agreed.evaluate("list => [...list.children].map((li) => li.classList[0])")
    assert order[:6] == ["msg", "msg", "note", "msg", "msg", "note"]  # each note after the message it answers

    # peace with a third power, written to one: it goes to both, and is in both conversations at once
    sent = await agreed.locator("li.msg.out").count(), await refused.locator("li.msg.out").count()
    await page.click(f'button.conv[data-conv="{yes}"]')
    await page.fill("#chat-input", f"I propose peace with {Power(no).english}")
    await page.press("#chat-input", "Enter")
    await expect(page.locator("#chat-feedback")).to_contain_text("Understood and sent")
    await expect(agreed.locator("li.msg.out")).to_have_count(sent[0] + 1)
    await expect(refused.locator("li.msg.out")).to_have_count(sent[1] + 1)
    await expect(refused.locator("li.msg.out").last).to_contain_text(Power(yes).english)


async def notes_of(page: Page, power: str) -> list[tuple[str, str]]:
    """The notes of a conversation: (kind, text), in order, once every one is rendered."""
    thread = page.locator(f'ol.messages[data-conv="{power}"]')
    await expect(thread.locator("li.note", has_text="…")).to_have_count(0)
    found = await thread.evaluate(
        "list => [...list.querySelectorAll('li.note')].map((li) => [li.classList[1], li.textContent])"
    )
    return [(kind, text) for kind, text in found]
