"""A negotiating bot for the tests of negotiation at tables with programs: it keeps what it heard.

Each movement phase it proposes peace to one other ``RoundsBot`` a round, the ``r + 1``-th after
it among the powers ``ROUNDS_BOT_PEERS`` names (round 0 from :meth:`on_phase`, the later ones
from the ``round`` events; never the same pair twice a phase), accepts every proposal, and
notes at each round which of its proposals are still unanswered: with the rounds of
:mod:`bots.nego_rounds`, none ever is. The notes go to the JSON-lines file ``ROUNDS_BOT_LOG``.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Mapping

from bots.base import HoldBot, Outgoing
from engine import Position
from protocol.l import ast as la


class RoundsBot(HoldBot):
    name = "roundsbot"
    negotiates = True

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__()
        self.proposed: set[str] = set()  # the partners of proposals still unanswered

    def _note(self, **entry: object) -> None:
        with open(os.environ["ROUNDS_BOT_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps({"power": self.power, **entry}) + "\n")

    def _propose(self, position: Position, number: int) -> Outgoing:
        peers = os.environ.get("ROUNDS_BOT_PEERS", "").split(",")
        if self.power not in peers or position.phase.kind != "M":
            return ()
        partner = peers[(peers.index(self.power) + number + 1) % len(peers)]
        if 2 * (number + 1) >= len(peers):  # past half-way round the table the pairs come again
            return ()
        self.proposed.add(partner)
        me, you = self.power.lower(), partner.lower()
        return (f"propose({me}, [{you}], Agree([{me} {you}], pce([{me} {you}])))",)

    def on_phase(self, position: Position) -> Outgoing:
        self._note(phase=str(position.phase), round=0)
        return self._propose(position, 0)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        if event.get("type") == "round":
            number = int(str(event["round"]))
            self._note(phase=str(position.phase), round=number, unanswered=sorted(self.proposed))
            return self._propose(position, number)
        return ()

    def on_message(self, sender: str, message: la.Message, position: Position) -> Outgoing:
        if isinstance(message, la.Propose):
            return (la.Accept(self.power, frozenset({sender}), message.deal),)
        if isinstance(message, la.Accept):
            self.proposed.discard(sender)
        return ()
