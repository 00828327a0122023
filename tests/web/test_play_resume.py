"""A person's ``detente play``, stopped and run again, in a real browser: the seat link the
terminal prints opens the seat on a desktop, and after Ctrl-C and a new ``detente play`` the
same link opens the same game and seat again, on a phone this time. Real processes, real
signals, Chromium driven as a person would; bounded to about 30 s."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.test_play_session import Play
from tests.web.test_browser import open_page, shoot

try:
    from playwright.async_api import Browser, expect
except ImportError:  # pragma: no cover - the test extra is installed in CI
    pytest.skip("the playwright package is not installed", allow_module_level=True)

WAIT_MS = 15_000


def seat_link(play: Play) -> str:
    return f"{play.base}/#/game/{play.game}?power={play.power}&session={play.token}"


async def test_a_stopped_detente_play_resumes_in_the_browser_on_the_same_seat(tmp_path: Path, browser: Browser) -> None:
    expect.set_options(timeout=WAIT_MS)
    data = tmp_path / "data"
    first = await Play.start(data, "--bots", "holdbot", "--power", "france", "--deadlines", "900,900,900")
    try:
        page, errors = await open_page(browser)
        await page.goto(seat_link(first))
        await expect(page.locator("#power")).to_have_attribute("data-power", "FRA")
        await expect(page.locator("#phase")).to_have_attribute("data-phase", "S1901M")
        assert "session=" not in page.url  # the token left the address bar
        assert not errors, errors
        await page.context.close()
    finally:
        seconds, code, rest, stderr = await first.stop(signal.SIGINT)
    assert code == 0 and seconds < 2.0 and stderr == ""
    assert rest[-1] == f"detente: stopped; run detente play again to resume game {first.game}"

    again = await Play.start(data, "--bots", "holdbot")
    try:
        assert (again.game, again.power, again.token) == (first.game, first.power, first.token)
        phone, errors = await open_page(browser, phone=True)
        await phone.goto(seat_link(again))
        await expect(phone.locator("#power")).to_have_attribute("data-power", "FRA")
        await expect(phone.locator("#phase")).to_have_attribute("data-phase", "S1901M")
        info = await again.until(lambda i: len([p for p in i["players"] if p["connected"]]) == 7)
        assert info["status"] == "playing"
        await shoot(phone, "phone-resumed")
        assert not errors, errors
        await phone.context.close()
    finally:
        await again.stop(signal.SIGINT)
