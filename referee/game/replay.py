"""A game's records read back: one table from a record's kind to what it does to the game.

Replaying a record changes the game as the input that wrote it did, without a word to
anyone (nobody is connected during a replay). Press and admin records change nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from protocol.daide.messages import Drw, Order, Sub
from protocol.daide.parser import parse
from referee.effects import Record
from referee.game.stored import from_store
from referee.players import Player

if TYPE_CHECKING:
    from referee.game.master import GameMaster

__all__ = ["RECORDS", "apply"]


def _order(text: str) -> Order:
    """An order recorded as text (``(ENG FLT LON) MTO NTH``), read back as ``SUB`` reads it."""
    sub = parse(f"SUB ({text})")
    assert isinstance(sub, Sub) and len(sub.orders) == 1
    return sub.orders[0]


def _join(g: GameMaster, p: Mapping[str, Any], at: float) -> None:
    player = Player(p["power"], p["name"], p["version"], int(p["passcode"]), p.get("session"))
    g.join(None, player, at, p.get("network"))


def _orders(g: GameMaster, p: Mapping[str, Any], at: float) -> None:
    for text in p["orders"]:
        g.book.store(g.position, p["power"], _order(text))


def _adjudicate(g: GameMaster, p: Mapping[str, Any], at: float) -> None:
    if p["phase"] != str(g.position.phase):
        raise ValueError(f"record for {p['phase']} met the game in {g.position.phase}")
    g.process(at, at_deadline=bool(p.get("deadline")), stored=p if "after" in p else None)


def _binding(g: GameMaster, p: Mapping[str, Any], at: float) -> None:
    if p["phase"] == str(g.position.phase):
        g.book.bind(p["orders"])
    if p.get("request") is not None:
        g.requests.add(p["request"])


def _press(g: GameMaster, p: Mapping[str, Any], at: float) -> None:
    if p.get("request") is not None:
        g.requests.add(p["request"])  # a relay delivered: not again


def _alarm(g: GameMaster, p: Mapping[str, Any], at: float) -> None:
    if p["on"]:
        g.clock.alarm_on(p["power"], int(p["seconds"]))
    else:
        g.clock.alarm_off(p["power"], p["seconds"])


def _nothing(g: GameMaster, p: Mapping[str, Any], at: float) -> None:
    pass


#: kind -> what the record does to the game (its payload, its time).
RECORDS: Mapping[str, Callable[[GameMaster, Mapping[str, Any], float], None]] = {
    "join": _join,
    "rejoin": lambda g, p, at: g.seats.network.__setitem__(p["power"], p["network"]),
    "leave": lambda g, p, at: g.seats.unseat(p["power"]),
    "start": lambda g, p, at: g.start(at),
    "orders": _orders,
    "cancel": lambda g, p, at: g.book.cancel(p["power"], None if p["order"] is None else _order(p["order"])),
    "gof": lambda g, p, at: (g.book.holding.discard if p["go"] else g.book.holding.add)(p["power"]),
    "draw": lambda g, p, at: (g.book.draw_votes.add if p["wants"] else g.book.draw_votes.discard)(p["power"]),
    "draw_declared": lambda g, p, at: g.end(Drw()),
    "adjudicate": _adjudicate,
    "binding": _binding,
    "press": _press,
    "alarm": _alarm,
    "shift": lambda g, p, at: g.clock.shift(float(p["seconds"])),
    "guess": lambda g, p, at: g.seats.charge(p["key"], at),
    "admin": _nothing,
    "stand_in": lambda g, p, at: g.seats.stand_ins.apply("stand_in", p),
    "returned": lambda g, p, at: g.seats.stand_ins.apply("returned", p),
    "fill": lambda g, p, at: g.seats.filled.update(p["bots"]),
    "session": lambda g, p, at: g.roster.players.__setitem__(
        p["power"], replace(g.roster.players[p["power"]], session=p["session"])
    ),
}


def apply(g: GameMaster, record: Record) -> None:
    """Replay ``record`` on ``g``; a kind this table does not know changes nothing."""
    p = from_store(record.kind, record.payload, g.map)
    RECORDS.get(record.kind, _nothing)(g, p, float(p["at"]))
