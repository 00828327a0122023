"""The bot interface: what a bot is told each phase, and what it answers.

A bot is a policy, not a client: it never sees a socket, a DAIDE message or a clock. The
SDK's clients (websocket or in-process) turn the game server's messages into calls on a
:class:`Bot` and its answers back into messages, so the same bot plays the same way over
the network and inside an experiment.

Each phase the bot gets the position and its legal orders (:func:`engine.legal_orders`:
by unit, adjustment orders under the key ``None``) and returns the orders it gives.
Negotiating bots also get every L message addressed to them and every event of the
negotiation server (``phase``, ``expired``, ``confirmed``, ``compliance`` frames as dicts)
and return the L messages they send, as text or AST.

>>> import random
>>> from engine import Position, format_order, legal_orders
>>> start = Position.initial()
>>> bot = HoldBot(random.Random(1))
>>> bot.start("ENG", start.map)
>>> sorted(format_order(start.map, o) for o in bot.orders(start, legal_orders(start, "ENG")))
['A LVP H', 'F EDI H', 'F LON H']
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import ClassVar

import engine.orders as eo
from engine.maps import Map
from engine.position import Position, Unit
from protocol.l.ast import Message

__all__ = ["Bot", "HoldBot", "LegalOrders", "Outgoing", "RandomBot", "Results"]

#: Legal orders by unit; adjustment orders under the key ``None``.
LegalOrders = Mapping[Unit | None, Sequence[eo.Order]]
#: What a negotiating bot sends: L messages, as text or as AST.
Outgoing = Sequence[Message | str]
#: The orders each power gave in a phase (defaults included), with each unit's result words.
Results = Mapping[str, Sequence[eo.Order]]
#: The frames :meth:`Bot.on_history` gives again by default: what a bot's deals and trust rest on.
REMEMBERED = frozenset({"confirmed", "accepted", "compliance"})


class Bot:
    """The base of every bot. Override :meth:`orders`; negotiating bots also the ``on_`` hooks.

    ``name`` is the name the bot plays under (``detente bot NAME``); ``rng`` is the only
    source of randomness a bot may use, so that a seed replays a game exactly.
    """

    name: ClassVar[str] = "bot"
    version: ClassVar[str] = "1.0"
    negotiates: ClassVar[bool] = False
    #: The bot's answers wait on something outside the process (a language model): the
    #: network clients call it from a worker thread, never on their event loop.
    blocking: ClassVar[bool] = False

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.power: str = ""
        self.map: Map | None = None

    @classmethod
    def cannot_play(cls, board: Map) -> str | None:
        """Why this bot cannot play on ``board``, in one line (None: it can).

        Asked before a game starts (a seat spec, :func:`bots.registry.cannot_play`) and when a
        DAIDE game names its map, where a bot that cannot play it refuses the map and leaves
        instead of playing wrongly. A bot that rests on one map (an opening book, provinces
        by name, tables of seven powers, a network trained on the standard board) says so
        here. The kit's bots read everything from the map they are given and play any.
        """
        return None

    def start(self, power: str, m: Map) -> None:
        """The game begins: the bot plays ``power`` (its token, ``"ENG"``) on map ``m``."""
        self.power = power
        self.map = m

    def on_time_limit(self, seconds: float | None) -> None:
        """Over the network, as a phase opens: the seconds its orders are due in (None: no
        deadline), from the game's ``HLO``. In process there is no clock, and no call."""

    def on_welcome(self, frame: Mapping[str, object]) -> None:
        """The negotiation accepted the bot: its ``welcome`` frame (``levels``, ``protocol``,
        ``binding``; in process the same keys, from the game's settings)."""

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        """The orders for this phase. Units left without an order hold (or disband in a retreat)."""
        raise NotImplementedError

    # --- negotiation (bots with ``negotiates = True``) ---------------------------------------

    def on_phase(self, position: Position) -> Outgoing:
        """A phase starts (before :meth:`orders` is asked): the opening messages of the bot."""
        return ()

    def on_message(self, sender: str, message: Message, position: Position) -> Outgoing:
        """An L message from ``sender`` (a power's token): the bot's answers, if any."""
        return ()

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        """A negotiation-server event (``expired``, ``confirmed``, ``compliance``, ...)."""
        return ()

    def on_history(self, notes: Sequence[Mapping[str, object]], position: Position) -> None:
        """Over the network, when the bot (a new process, after a restart) is welcomed into a
        negotiation that went on before it: the frames it had been sent, oldest first (the
        ``welcome``'s ``notes``). Nothing the bot says here is sent: it rebuilds what it knew,
        it does not speak again. By default the deals it made (``confirmed``, ``accepted``)
        and how they were kept (``compliance``) go through :meth:`on_event`, each with the
        phase it was sent in, so a bot's commitments and trust come back; the messages of the
        mail are not given, so no old proposal is answered twice."""
        for note in notes:
            if note.get("type") in REMEMBERED:
                self.on_event(note, position)

    def revised_orders(self, position: Position, legal: LegalOrders) -> list[eo.Order] | None:
        """Over the network, after each negotiation message or event once this phase's orders
        went in: the orders that should replace them, or ``None`` to keep them.

        The network client asks for the orders as the phase opens and negotiates after them;
        a bot whose deals change what it plays answers here, and the client sends a new
        ``SUB`` if the answer differs from what it sent. In process the orders are asked at the
        deadline, after the negotiation, and this is never called.
        """
        return None

    def on_results(self, before: Position, orders: Results, after: Position) -> None:
        """A phase was adjudicated: what every power ordered, and the position it led to."""


class HoldBot(Bot):
    """Holds every unit, disbands every dislodged one, removes as little as it must and
    builds nothing (it waives)."""

    name = "holdbot"

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        chosen: list[eo.Order] = []
        for unit, options in legal.items():
            if unit is None:
                chosen.extend(_fewest_adjustments(position, self.power, options))
                continue
            hold = next((o for o in options if isinstance(o, eo.Hold | eo.Disband)), None)
            if hold is not None:
                chosen.append(hold)
        return chosen


class RandomBot(Bot):
    """A random legal order for every unit; random builds and removals."""

    name = "randombot"

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        chosen: list[eo.Order] = []
        for unit, options in legal.items():
            if not options:
                continue
            if unit is None:
                chosen.extend(_random_adjustments(position, self.power, options, self.rng))
            else:
                chosen.append(self.rng.choice(list(options)))
        return chosen


def _fewest_adjustments(position: Position, power: str, options: Sequence[eo.Order]) -> list[eo.Order]:
    """Waive every build owed, or the first removals needed."""
    owed = position.adjustments.get(power, 0)
    if owed > 0:
        return [eo.Waive()] * owed
    return list(options[:-owed])


def _random_adjustments(
    position: Position, power: str, options: Sequence[eo.Order], rng: random.Random
) -> list[eo.Order]:
    """As many random builds (one per province) or removals as owed."""
    owed = position.adjustments.get(power, 0)
    m = position.map
    chosen: list[eo.Order] = []
    used: set[int] = set()
    for order in rng.sample(list(options), len(options)):
        if len(chosen) == abs(owed):
            break
        if isinstance(order, eo.Waive):
            continue
        province = m.province_of[order.location]
        if province not in used:
            used.add(province)
            chosen.append(order)
    return chosen
