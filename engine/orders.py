"""Orders as small immutable values, and their short notation.

An order names the unit it is for by type and location, as a player writes it; whether
the unit is really there, and whether the order is legal, is for the adjudicator to
decide (an illegal order is void, never an error). Unit types are ``ARMY`` and
``FLEET``, or ``None`` where the writer left the type out (DATC 4.C.1).

>>> from engine.maps import standard_map
>>> m = standard_map()
>>> order = parse_order(m, "F NTH C A LON - NWY")
>>> type(order).__name__, m.name_of(order.army_location), m.name_of(order.destination)
('Convoy', 'LON', 'NWY')
>>> format_order(m, order)
'F NTH C A LON - NWY'

DAIDE clauses are the protocol's business: ``protocol.daide.orders`` reads them
(``order_to_engine``) and writes them (``order_from_engine``, which needs the board for
the owners of supported units and the sea route of a convoyed move).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.maps import ARMY, FLEET, UNIT_LETTERS, Map, standard_map


class OrderSyntaxError(ValueError):
    """Text that is not an order of the notation at all (an unknown word or province)."""


def _repr(order: Order) -> str:
    """``<Move A PAR - BUR>``: the order in the short notation, on the standard map.

    An order holds location numbers and not its map, so its repr names them as the standard
    map does (the engine ships that one map; on another, the names may be wrong, and a
    number the standard map lacks is written ``#99``). :func:`format_order` writes an order
    on its own map.

    >>> Move(ARMY, 0, 1)  # locations 0 and 1 of the standard map
    <Move A ADR - AEG>
    >>> m = standard_map()
    >>> parse_order(m, "A BUR S PAR - MAR"), parse_order(m, "F STP/SC B"), Waive()
    (<SupportMove A BUR S PAR - MAR>, <Build F STP/SC B>, <Waive>)
    >>> Hold(FLEET, 999)
    <Hold F #999 H>
    """
    return f"<{type(order).__name__} {_format(_standard_name, order)}>" if not isinstance(order, Waive) else "<Waive>"


def _standard_name(location: int) -> str:
    names = standard_map().locations
    return names[location] if 0 <= location < len(names) else f"#{location}"


@dataclass(frozen=True, slots=True)
class Hold:
    type: int | None
    location: int

    __repr__ = _repr


@dataclass(frozen=True, slots=True)
class Move:
    type: int | None
    location: int
    destination: int
    via_convoy: bool = False

    __repr__ = _repr


@dataclass(frozen=True, slots=True)
class SupportHold:
    type: int | None
    location: int
    supported_type: int | None
    supported_location: int

    __repr__ = _repr


@dataclass(frozen=True, slots=True)
class SupportMove:
    type: int | None
    location: int
    supported_type: int | None
    supported_location: int
    destination: int

    __repr__ = _repr


@dataclass(frozen=True, slots=True)
class Convoy:
    type: int | None
    location: int
    army_location: int
    destination: int

    __repr__ = _repr


@dataclass(frozen=True, slots=True)
class Retreat:
    type: int | None
    location: int
    destination: int

    __repr__ = _repr


@dataclass(frozen=True, slots=True)
class Disband:
    """Disband a dislodged unit in a retreat phase, or remove a unit in an adjustment phase."""

    type: int | None
    location: int

    __repr__ = _repr


@dataclass(frozen=True, slots=True)
class Build:
    type: int | None
    location: int

    __repr__ = _repr


@dataclass(frozen=True, slots=True)
class Waive:
    """Decline one build."""

    __repr__ = _repr


Order = Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build | Waive
MOVEMENT_ORDERS = (Hold, Move, SupportHold, SupportMove, Convoy)


# --- the short notation --------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z]{3}\s*(?:/\s*[A-Za-z]{2,3}|\(\s*[A-Za-z]{2,3}\s*\))|[A-Za-z]+|-")
_TYPES = {"A": ARMY, "F": FLEET}


def _unit(m: Map, tokens: list[str], i: int) -> tuple[int | None, int, int]:
    """Read an optional type letter and a location at ``tokens[i]``."""
    unit_type = _TYPES.get(tokens[i]) if i < len(tokens) else None
    if unit_type is not None:
        i += 1
    if i >= len(tokens):
        raise OrderSyntaxError("a location is missing")
    try:
        return unit_type, m.location(tokens[i]), i + 1
    except KeyError:
        raise OrderSyntaxError(f"unknown province {tokens[i]!r}") from None


def _place(m: Map, tokens: list[str], i: int) -> int:
    if i >= len(tokens):
        raise OrderSyntaxError("a destination is missing")
    try:
        return m.location(tokens[i])
    except KeyError:
        raise OrderSyntaxError(f"unknown province {tokens[i]!r}") from None


def parse_order(m: Map, text: str) -> Order:
    """Parse one order in the usual short notation (see ``docs/adjudication-case.md``).

    ``A PAR H``, ``A PAR - BUR``, ``A LON - NWY VIA``, ``A BUR S A PAR - MAR``,
    ``A BUR S A PAR``, ``F NTH C A LON - NWY``, ``F TRI R ALB``, ``F TRI D``,
    ``A PAR B``, ``WAIVE``. Parsing is memoised per map: the same text always gives
    the same order. Raises :class:`OrderSyntaxError` for text that is no order.
    """
    return _parse_cached(m, text)


@functools.lru_cache(maxsize=65536)
def _parse_cached(m: Map, text: str) -> Order:
    tokens = [t.upper() for t in _TOKEN.findall(text)]
    if not tokens:
        raise OrderSyntaxError("empty order")
    if tokens in (["WAIVE"], ["WVE"]):
        return Waive()
    unit_type, location, i = _unit(m, tokens, 0)
    verb = tokens[i] if i < len(tokens) else "H"
    rest = tokens[i + 1 :]
    if verb in ("H", "HOLD") and not rest:
        return Hold(unit_type, location)
    if verb in ("-", "M", "MOVE"):
        destination = _place(m, tokens, i + 1)
        tail = tokens[i + 2 :]
        if tail in ([], ["VIA"], ["VIA", "CONVOY"]):
            return Move(unit_type, location, destination, bool(tail))
    elif verb in ("S", "SUPPORT", "SUPPORTS"):
        supported_type, supported, j = _unit(m, tokens, i + 1)
        tail = tokens[j:]
        if tail in ([], ["H"], ["HOLD"]):
            return SupportHold(unit_type, location, supported_type, supported)
        if len(tail) == 2 and tail[0] == "-":
            return SupportMove(unit_type, location, supported_type, supported, _place(m, tail, 1))
    elif verb in ("C", "CONVOY", "CONVOYS"):
        _, army, j = _unit(m, tokens, i + 1)
        tail = tokens[j:]
        if len(tail) == 2 and tail[0] == "-":
            return Convoy(unit_type, location, army, _place(m, tail, 1))
    elif verb in ("R", "RETREAT") and len(rest) == 1:
        return Retreat(unit_type, location, _place(m, tokens, i + 1))
    elif verb in ("D", "DISBAND", "REMOVE") and not rest:
        return Disband(unit_type, location)
    elif verb in ("B", "BUILD") and not rest:
        return Build(unit_type, location)
    raise OrderSyntaxError(f"cannot read {text!r} as an order")


def _letter(unit_type: int | None) -> str:
    return "" if unit_type is None else UNIT_LETTERS[unit_type] + " "


def format_order(m: Map, order: Order) -> str:
    """The short notation of an order: the inverse of :func:`parse_order`."""
    return _format(m.name_of, order)


def _format(name_of: Callable[[int], str], order: Order) -> str:
    if isinstance(order, Waive):
        return "WAIVE"
    head = f"{_letter(order.type)}{name_of(order.location)}"
    if isinstance(order, Hold):
        return f"{head} H"
    if isinstance(order, Move):
        return f"{head} - {name_of(order.destination)}" + (" VIA" if order.via_convoy else "")
    if isinstance(order, SupportHold):
        return f"{head} S {_letter(order.supported_type)}{name_of(order.supported_location)}"
    if isinstance(order, SupportMove):
        supported = f"{_letter(order.supported_type)}{name_of(order.supported_location)}"
        return f"{head} S {supported} - {name_of(order.destination)}"
    if isinstance(order, Convoy):
        return f"{head} C A {name_of(order.army_location)} - {name_of(order.destination)}"
    if isinstance(order, Retreat):
        return f"{head} R {name_of(order.destination)}"
    if isinstance(order, Disband):
        return f"{head} D"
    return f"{head} B"
