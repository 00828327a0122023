"""A game master and its negotiation wired together in memory: the two servers without sockets.

Between the two servers, the game master's notices travel over the feed and the
negotiation's requests (relays, bindings) come back over it; here a :class:`Table` hands
them across directly, in the order they happen, with the clock standing still. The
players sit outside the table: DAIDE messages for a connection go to the ``connection``
function given, which returns that connection's answers (they go back to the game master,
and so on until nothing is left in flight); ``/nego`` frames wait in :attr:`Table.inbox`
for the powers that read L (:attr:`Negotiation.readers`). Experiments
(:mod:`bots.inprocess`) and tests play whole games this way.

>>> from protocol.daide.parser import parse
>>> from referee.settings import GameSettings
>>> said = []
>>> table = Table(GameMaster("t", GameSettings(), now=0.0), None, lambda conn, m: said.append(str(m)) or ())
>>> table.receive("c1", [parse("NME ('bot') ('1.0')")])
>>> said[:2], said[2].startswith("ADM ('detente') ('session ")
(["YES (NME ('bot') ('1.0'))", "MAP ('standard')"], True)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from protocol.daide.messages import PressMessage, Value
from protocol.daide.parser import parse_press
from protocol.l import level, parse
from referee.effects import Bind, Notify, Relay, Reply, Send, Step
from referee.game import GameMaster
from referee.lobby import Lobby, LobbyLimits
from referee.negotiation import Negotiation
from referee.settings import GameSettings

__all__ = ["Connection", "Table"]

#: Hands a DAIDE message to a connection; returns the connection's answers.
Connection = Callable[[str, Value], Iterable[Value]]

#: The negotiation's frames kept in :attr:`Table.events` (the others are for players only).
EVENTS = ("confirmed", "accepted", "conflict", "expired", "compliance")


def press_entry(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The entry of :attr:`Table.press` of an L message, from the negotiation's ``message`` record."""
    message = parse(payload["text"])
    fields = {k: payload[k] for k in ("phase", "sender", "text")}
    return {**fields, "recipients": payload["to"], "level": level(message), "kind": type(message).__name__.lower()}


def events_of(frames: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames of :data:`EVENTS` among those one step sent (one sent to several powers, once)."""
    seen: set[int] = set()
    events = []
    for frame in frames:
        if frame["type"] in EVENTS and id(frame) not in seen:
            seen.add(id(frame))
            events.append(frame)
    return events


def recorded(
    game_id: str, settings: GameSettings, records: Iterable[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What a :class:`Table` keeps (:attr:`~Table.press`, :attr:`~Table.events`) of a game a
    negotiation server played, from the records it stored (their payloads, oldest first)."""
    negotiation = Negotiation(game_id, settings, await_answers=True)
    press: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    for record in records:
        frames = negotiation.apply(record)
        if record["kind"] == "message":
            press.append(press_entry(record))
        events.extend(events_of(frame for _, frame in frames))
    return press, events


class Table:
    """One game in memory: ``gm``, its ``negotiation`` (or None) and the players' ``connection``.

    It keeps what an experiment records: :attr:`press`, every press message in order (DAIDE
    press with ``press``; L with ``text``, ``level`` and ``kind``), and :attr:`events`, the
    negotiation's ``confirmed``, ``conflict``, ``expired`` and ``compliance`` frames.
    """

    def __init__(
        self,
        gm: GameMaster,
        negotiation: Negotiation | None,
        connection: Connection,
        receivers: Mapping[str, Callable[[Value], Iterable[Value]]] | None = None,
    ) -> None:
        """``receivers``, if given, is each connection's own receiver, which ``connection``
        calls: the game master's messages go to it directly (thousands a game: a call less each)."""
        self.gm = gm
        # the one door into a game, as on a server; no budget: the clock stands still here
        self.lobby = Lobby(LobbyLimits(message_rate=None))
        self.lobby.add(gm)
        self.negotiation = negotiation
        self.connection = connection
        self.receivers = receivers
        self.inbox: dict[str, list[dict[str, Any]]] = {}  # power token -> frames not yet read
        self.press: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []

    def receive(self, conn: str, messages: Iterable[Value]) -> None:
        """Messages from ``conn`` to the game master, and everything that follows from them,
        until no message is left in flight."""
        queue: deque[tuple[str, Value]] = deque((conn, m) for m in messages)
        gm, connection, negotiation, receivers = self.gm, self.connection, self.negotiation, self.receivers
        door, game_id = self.lobby.receive, gm.game_id
        while queue:
            sender, message = queue.popleft()
            step = door(sender, game_id, message, 0.0)
            assert step is not None  # only an open game for strangers is routed again
            for record in step.records:
                if record.kind == "press":
                    fields = {k: v for k, v in record.payload.items() if k != "at"}
                    self.press.append({"phase": str(gm.position.phase), **fields})
            for effect in step.effects:
                if type(effect) is Send:  # nearly every effect: hundreds a phase
                    to = effect.to
                    replies = receivers[to](effect.message) if receivers is not None else connection(to, effect.message)
                    if replies:
                        queue.extend((to, reply) for reply in replies)
                elif isinstance(effect, Notify) and negotiation is not None:
                    self._negotiated(negotiation.feed(effect.notice))

    def say(self, power: str, text: str) -> None:
        """``power`` (a DAIDE token) says ``text`` in L; a refusal waits in its inbox."""
        assert self.negotiation is not None, "a table without a negotiation hears no L"
        self._negotiated(self.negotiation.say(power, text), speaker=power)

    def _negotiated(self, step: Step, speaker: str | None = None) -> None:
        """A negotiation step: frames to the inboxes, requests to the game master."""
        n = self.negotiation
        assert n is not None
        for record in step.records:
            if record.kind == "message":
                self.press.append(press_entry(record.payload))
        sent: list[dict[str, Any]] = []
        for effect in step.effects:
            if isinstance(effect, Reply):
                if speaker is not None and effect.message["type"] == "error":
                    self.inbox.setdefault(speaker, []).append(dict(effect.message))
            elif isinstance(effect, Send):
                if effect.to in n.readers:
                    self.inbox.setdefault(effect.to, []).append(effect.message)
                sent.append(effect.message)
            elif isinstance(effect, Bind):
                self._requested(self.gm.bind(effect.phase, effect.orders, 0.0))
        self.events.extend(events_of(sent))
        for effect in step.effects:
            if isinstance(effect, Relay):
                value = parse_press(effect.press)
                if isinstance(value, PressMessage):
                    self._requested(self.gm.deliver(effect.sender, effect.recipients, value, 0.0))

    def _requested(self, step: Step) -> None:
        # What a relay or a binding sends reaches the players; their answers to it are not
        # read back (a relayed FRM asks for none).
        for effect in step.effects:
            if isinstance(effect, Send):
                self.connection(effect.to, effect.message)
