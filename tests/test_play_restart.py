"""``detente play`` stopped and started again tells the truth: no bot answers an old proposal
again, none opens a phase twice, and no verdict the person saw changes (issue 28).

Real processes and real signals, as in :mod:`tests.test_play_session`: the person proposes
peace to the six bots over ``/nego``, plays the phase, stops ``detente play`` (Ctrl-C or a
SIGKILL) and starts it again; the negotiation store and the person's mail are compared.
Time budget: about 20 s a case.
"""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import websockets

from server.store import Store
from tests.test_play_session import POWERS, Play, connected

OTHERS = ("aus", "eng", "ger", "ita", "rus", "tur")


class Nego:
    """The person's page on ``/nego``: the welcome, its mail, then the frames that follow."""

    def __init__(self, ws: Any, welcome: dict[str, Any], mail: list[dict[str, Any]]) -> None:
        self.ws, self.welcome, self.mail = ws, welcome, mail

    @classmethod
    async def open(cls, play: Play) -> Nego:
        config = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(f"{play.base}/api/config").read()))
        ws = await websockets.connect(config["nego_url"])
        await ws.send(json.dumps({"type": "hello", "power": play.power, "session": play.token}))
        async with asyncio.timeout(10):
            welcome = json.loads(await ws.recv())
            assert welcome["type"] == "welcome", welcome
            mail = [json.loads(await ws.recv()) for _ in range(welcome["mail"])]
        return cls(ws, welcome, mail)

    async def frame(self, kind: str) -> dict[str, Any]:
        async with asyncio.timeout(15):
            while (frame := json.loads(await self.ws.recv()))["type"] != kind:
                pass
        return frame


def said(data: Path, game: str) -> list[tuple[str, str, tuple[str, ...], str, int]]:
    """Every message the negotiation stored: phase, sender, receivers, text, seq."""
    store = Store.open_read_only(data / "nego.sqlite3")
    try:
        events = store.events(game)
    finally:
        store.close()
    return [
        (p["phase"], p["sender"], tuple(p["to"]), p["text"], p["seq"])
        for p in (e.payload for e in events)
        if p.get("kind") == "message"
    ]


def verdicts(frames: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """What each bot answered the person's proposals, as the page shows it: (bot, deal) -> accept or reject."""
    out = {}
    for f in frames:
        text = f["text"]
        if f["from"] != "FRA" and text.startswith(("accept(", "reject(")):
            out[f["from"], text.split(",", 2)[2]] = text.split("(", 1)[0]
    return out


async def play_phase(play: Play) -> None:
    """The person holds every unit; the phase ends once the bots' orders are in too."""
    person = await play.person()
    await person.send("NOW")
    sub, _ = person.holds(await person.expect("NOW"))
    await person.send(sub)
    await person.expect("NOW")
    await person.close()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "sigkill"])
async def test_a_restart_answers_no_proposal_again_and_changes_no_verdict(tmp_path: Path, stop: int) -> None:
    data = tmp_path / "data"
    options = ("--bots", "randomnegotiator", "--power", "fra", "--port", "0", "--deadlines", "900,900,900")
    first = await Play.start(data, *options, "--seed", "5")
    try:
        await first.until(lambda i: connected(i) == set(POWERS))
        nego = await Nego.open(first)
        for other in OTHERS:
            await nego.ws.send(json.dumps({
                "type": "say", "id": other, "text": f"propose(fra, [{other}], Agree([fra {other}], pce([fra {other}])))",
            }))  # fmt: skip
        answered: set[str] = set()
        heard = []
        while answered != {o.upper() for o in OTHERS}:
            frame = await nego.frame("message")
            heard.append(frame)
            if frame["text"].startswith(("accept(", "reject(")):  # randomnegotiator answers every proposal
                answered.add(frame["from"])
        await play_phase(first)
        await first.until(lambda i: i["phase"] == "F1901M")
        await nego.ws.close()
        if stop == signal.SIGKILL:
            await first.kill()
        else:
            await first.stop(stop)
    finally:
        await first.kill()
    before = said(data, first.game)
    assert verdicts([{"from": s, "text": t} for _, s, _, t, _ in before]) and len(verdicts(heard)) == 6

    second = await Play.start(data, "--port", "0")
    try:
        await second.until(lambda i: connected(i) == set(POWERS) - {"FRANCE"})
        again = await Nego.open(second)
        await play_phase(second)  # the bots' orders go in only once their mail is read
        await second.until(lambda i: i["phase"] != "F1901M")
        await again.ws.close()
        await second.stop(signal.SIGINT)
    finally:
        await second.kill()
    after = said(data, first.game)
    # nothing said before the restart is said again, or changed
    assert after[: len(before)] == before
    new = after[len(before) :]
    assert not [m for m in new if m[0] == "S1901M"], new
    openings = {(m[1], m[2], m[3]) for m in before if m[0] == "F1901M"}
    assert not [m for m in new if (m[1], m[2], m[3]) in openings], "a bot opened F1901M twice"
    answers = [m for m in new if m[3].startswith(("accept(", "reject(")) and "fra" in m[3].split(",")[1]]
    assert not answers, answers
    # the person's page, opened again, shows the verdicts it showed before the restart
    assert verdicts(again.mail) == verdicts(nego.mail + heard)
    # and the game server found every stored phase as it adjudicates it again
    assert "replay differs" not in (data / "detente.log").read_text()
