"""RandomNegotiator, DipGame's example negotiator: DumbBot's orders and coin flips in L.

At the start of each movement phase it may propose peace to one other power and an
alliance with one against a third, each on a coin flip; it answers every proposal made to
it by accepting or rejecting it, again on a coin flip. It keeps no promise on purpose: its
orders are DumbBot's whatever it agreed, which makes it the baseline that the negotiating
bots of the papers are measured against.

>>> import random
>>> from engine import Position
>>> bot = RandomNegotiator(random.Random(3))
>>> bot.start("ENG", Position.initial().map)
>>> [str(m) for m in bot.on_phase(Position.initial())]
['propose(eng, [rus], Agree([eng rus], pce([eng rus])))', 'propose(eng, [rus], Agree([eng rus], aly([eng rus], [ita])))']
"""

from __future__ import annotations

from collections.abc import Mapping

from bots.base import Outgoing
from bots.dumbbot import DumbBot
from engine.position import MOVEMENT, Position
from protocol.l import ast as a

__all__ = ["RandomNegotiator"]


class RandomNegotiator(DumbBot):
    """DumbBot's orders; random proposals of peace and alliances, random answers."""

    name = "randomnegotiator"
    negotiates = True
    #: The chance, each movement phase, of proposing peace, and of proposing an alliance.
    PROPOSE_PEACE = 0.5
    PROPOSE_ALLIANCE = 0.3
    #: The chance of accepting a proposal (else it is rejected).
    ACCEPT = 0.5

    def on_phase(self, position: Position) -> Outgoing:
        if position.phase.kind != MOVEMENT:
            return ()
        me = self.power
        others = [p for p in position.map.powers if p != me and _alive(position, p)]
        out: list[a.Message] = []
        if others and self.rng.random() < self.PROPOSE_PEACE:
            other = self.rng.choice(others)
            pair = frozenset({me, other})
            out.append(a.Propose(me, frozenset({other}), a.Agree(pair, a.Pce(pair))))
        if len(others) >= 2 and self.rng.random() < self.PROPOSE_ALLIANCE:
            ally, enemy = self.rng.sample(others, 2)
            pair = frozenset({me, ally})
            out.append(a.Propose(me, frozenset({ally}), a.Agree(pair, a.Aly(pair, frozenset({enemy})))))
        return out

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if not isinstance(message, a.Propose):
            return ()
        answer = a.Accept if self.rng.random() < self.ACCEPT else a.Reject
        return (answer(self.power, frozenset({message.sender}), message.deal),)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        return ()


def _alive(position: Position, power: str) -> bool:
    return bool(position.units_of(power)) or bool(position.centers_of(power))
