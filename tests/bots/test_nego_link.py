"""The negotiation link hands each message to its bot once, by its sequence number, sans network."""

from __future__ import annotations

import random
from typing import Any

from bots.base import HoldBot
from bots.nego_client import NegoLink
from bots.session import BotSession
from engine import Position, standard_map
from protocol.l import ast as a


class Listener(HoldBot):
    negotiates = True

    def __init__(self) -> None:
        super().__init__(random.Random(1))
        self.heard: list[str] = []

    def on_message(self, sender: str, message: a.Message, position: Position) -> Any:
        self.heard.append(sender)
        return ()


def frame(seq: int, sender: str = "ITA") -> dict[str, Any]:
    text = "propose(ita, [aus], Agree([aus ita], pce([aus ita])))"
    return {"type": "message", "from": sender, "to": ["AUS"], "text": text, "phase": "S1901M", "seq": seq}


async def test_a_message_that_comes_again_live_is_not_handed_again() -> None:
    bot = Listener()
    session = BotSession(bot)
    session.power, session.position = "AUS", Position.initial(standard_map())
    bot.start("AUS", session.map)
    link = NegoLink(session, "ws://127.0.0.1:9/nego")
    link._welcomed({"type": "welcome", "mail": 1, "notes": []})
    await link._handle(frame(5))  # the mail: unseen, handed
    await link._handle(frame(5))  # the same message, live again: not handed twice
    await link._handle(frame(4))  # an older one
    await link._handle(frame(6))  # a new one
    assert bot.heard == ["ITA", "ITA"]
    assert link._seen == 6
