"""Negotiation as actions: L messages through the referee's negotiation and its notary.

With ``negotiation=`` (``True``, or the :class:`~referee.settings.GameSettings` of the game:
its L levels, protocol, press phases and ``binding``), every phase where press is allowed
begins with ``rounds`` steps of talk, and an agent's action is a ``dict``: ``"orders"`` (the
``MultiDiscrete`` choices, read only on the phase's last step) and ``"messages"``, L texts
said in order before anything else happens that step (at most :data:`MAX_MESSAGES` a step,
each at most :data:`MAX_TEXT` characters). Every text goes to :meth:`referee.negotiation.
Negotiation.say`, the code the negotiation server runs: it is refused with the protocol's
own error (syntax, level, ontology, identity, protocol, a closed window) or accepted and
delivered, and the notary confirms the deals every power they commit agreed to. In a game
made ``binding`` the orders of a confirmed commitment replace those the committed power
gives (as :func:`referee.binding.apply_binding` does on the game server), and after each
phase the compliance check reports who kept what.

What each agent observes besides the board: ``messages``, the L texts it received during
the step (each says its sender and receivers), and ``commitments``, the confirmed deals and
accepted promises it is party to and that still bind; ``infos[agent]["negotiation"]`` holds
every frame the negotiation sent it that step (acks, errors, deliveries, confirmations,
expiries, compliance reports) as the ``/nego`` websocket would carry them.

>>> from engine import standard_map
>>> talk = Talk("g", GameSettings(binding=True), standard_map())
>>> talk.begin(Position.initial())
>>> deal = "Commit(fra, eng, Do(mto(Unit(fra, Region(bre, coast)), Region(mao, sea))))"
>>> talk.say("FRA", f"propose(fra, eng, {deal})")["type"]
'ack'
>>> talk.say("ENG", f"accept(eng, fra, {deal})")["type"], talk.binding
('ack', {'FRA': ('F BRE - MAO',)})
>>> talk.commitments("ENG")
('Commit(fra, [eng], Do(mto(Unit(fra, Region(bre, coast)), Region(mao, sea))))',)
>>> talk.say("ENG", "propose(eng, fra, pce(")["code"]
'syntax'
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from typing import Any

from engine import Position, adjudicate, format_order, parse_order
from engine.maps import Map
from engine.orders import Order, OrderSyntaxError
from engine.position import PHASE_KINDS
from protocol.l import to_text
from referee.effects import Bind, Reply, Send
from referee.negotiation import Negotiation
from referee.notices import ResultsNotice
from referee.settings import GameSettings

__all__ = ["CHARSET", "MAX_MESSAGES", "MAX_TEXT", "Talk"]

#: the messages an agent may say in one step, and the characters of one (more: a ``size`` error)
MAX_MESSAGES = 8
MAX_TEXT = 2000
#: what an L text is written with (the observation's and the action's ``Text`` spaces)
CHARSET = string.ascii_letters + string.digits + " ()[],;:&~_-.'\"+*/<>=!?"


class Talk:
    """The negotiation of one game of an environment, and what it told each power."""

    def __init__(self, game_id: str, settings: GameSettings, m: Map) -> None:
        self.settings = settings
        self.map = m
        self.negotiation = Negotiation(game_id, settings, m)
        #: power -> the frames it was sent since :meth:`take` last emptied them
        self.frames: dict[str, list[dict[str, Any]]] = {power: [] for power in m.powers}
        #: power -> the orders its confirmed commitments of this phase bind it to (short notation)
        self.binding: dict[str, tuple[str, ...]] = {}

    @property
    def open(self) -> bool:
        """Whether press is allowed in this phase."""
        return self.negotiation.window_open

    def begin(self, position: Position) -> None:
        """A phase begins (pending proposals expire, bindings of the last phase lapse)."""
        self.binding = {}
        if position.completed:
            self._route(self.negotiation.game_over().effects)
        else:
            phase = position.phase
            self._route(self.negotiation.phase_begins(str(phase), PHASE_KINDS[phase.kind], None).effects)

    def say(self, power: str, text: Any) -> dict[str, Any]:
        """``power`` says ``text``; the reply (an ack, or the protocol's error), also kept in its frames."""
        if not isinstance(text, str) or len(text) > MAX_TEXT:
            reply: dict[str, Any] = {"type": "error", "id": None, "code": "size", "line": None, "column": None,
                                     "message": f"a message is a text of at most {MAX_TEXT} characters"}  # fmt: skip
            self.frames[power].append(reply)
            return reply
        step = self.negotiation.say(power, text)
        self._route(step.effects, power)
        return dict(step.reply or {})

    def said(self, power: str, texts: Iterable[Any]) -> None:
        """:meth:`say` for each of ``texts``, the first :data:`MAX_MESSAGES` of them."""
        for k, text in enumerate(texts):
            if k == MAX_MESSAGES:
                self.frames[power].append({"type": "error", "id": None, "code": "size", "line": None, "column": None,
                                           "message": f"at most {MAX_MESSAGES} messages a step: the rest were dropped"})  # fmt: skip
                return
            self.say(power, text)

    def bound(self) -> dict[str, list[Order]]:
        """The orders that replace the given ones where the settings bind (else none)."""
        if not self.settings.binding:
            return {}
        out: dict[str, list[Order]] = {}
        for power, texts in self.binding.items():
            for text in texts:
                try:
                    out.setdefault(power, []).append(parse_order(self.map, text))
                except OrderSyntaxError:
                    continue  # an order that does not parse is void, as the game master takes it
        return out

    def results(self, before: Position, orders: Mapping[str, list[Order]]) -> None:
        """The phase was played with ``orders``: the compliance check, as after a phase on a server."""
        outcome = adjudicate(before, orders)
        after = outcome.position
        notice = ResultsNotice(
            self.negotiation.game_id,
            str(before.phase),
            {p: tuple(format_order(self.map, o) for o in os) for p, os in orders.items() if os},
            {before.unit_name(u): words for u, words in outcome.results.items()},  # as the game master's
            before.to_json(),
            after.to_json(),
        )
        self._route(self.negotiation.results(notice).effects)

    def commitments(self, power: str) -> tuple[str, ...]:
        """The L texts of the confirmed deals and accepted promises ``power`` is party to, in force."""
        return tuple(to_text(c.deal) for c in self.negotiation.commitments if power in c.participants)

    def received(self, power: str) -> tuple[str, ...]:
        """The L texts delivered to ``power`` among its frames not yet taken."""
        return tuple(f["text"] for f in self.frames[power] if f.get("type") == "message")

    def take(self, power: str) -> list[dict[str, Any]]:
        """``power``'s frames since the last call, emptied."""
        frames, self.frames[power] = self.frames[power], []
        return frames

    def _route(self, effects: Iterable[Any], speaker: str | None = None) -> None:
        for effect in effects:
            if isinstance(effect, Send):
                self.frames.setdefault(effect.to, []).append(dict(effect.message))
            elif isinstance(effect, Reply) and speaker is not None:
                self.frames[speaker].append(dict(effect.message))
            elif isinstance(effect, Bind):  # every order commitment of the phase so far
                self.binding = {self.map.power(p): tuple(texts) for p, texts in effect.orders.items()}
