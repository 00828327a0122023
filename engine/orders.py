"""Orders as small immutable values, and their two text forms.

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
>>> format_order(m, parse_daide_order(m, "( ( ENG AMY LON ) CTO NWY VIA ( NTH ) )")[1])
'A LON - NWY VIA'

Writing orders in DAIDE form needs the board (the owners of supported units, the sea
route of a convoyed move): ``protocol.daide.orders.order_from_engine`` does it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from engine.maps import ARMY, FLEET, UNIT_LETTERS, Map


class OrderSyntaxError(ValueError):
    """Text that is not an order of the notation at all (an unknown word or province)."""


@dataclass(frozen=True, slots=True)
class Hold:
    type: int | None
    location: int


@dataclass(frozen=True, slots=True)
class Move:
    type: int | None
    location: int
    destination: int
    via_convoy: bool = False


@dataclass(frozen=True, slots=True)
class SupportHold:
    type: int | None
    location: int
    supported_type: int | None
    supported_location: int


@dataclass(frozen=True, slots=True)
class SupportMove:
    type: int | None
    location: int
    supported_type: int | None
    supported_location: int
    destination: int


@dataclass(frozen=True, slots=True)
class Convoy:
    type: int | None
    location: int
    army_location: int
    destination: int


@dataclass(frozen=True, slots=True)
class Retreat:
    type: int | None
    location: int
    destination: int


@dataclass(frozen=True, slots=True)
class Disband:
    """Disband a dislodged unit in a retreat phase, or remove a unit in an adjustment phase."""

    type: int | None
    location: int


@dataclass(frozen=True, slots=True)
class Build:
    type: int | None
    location: int


@dataclass(frozen=True, slots=True)
class Waive:
    """Decline one build."""


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
    """Parse one order in the usual short notation (see ``shared/spec/adjudication-case.md``).

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
    if isinstance(order, Waive):
        return "WAIVE"
    head = f"{_letter(order.type)}{m.name_of(order.location)}"
    if isinstance(order, Hold):
        return f"{head} H"
    if isinstance(order, Move):
        return f"{head} - {m.name_of(order.destination)}" + (" VIA" if order.via_convoy else "")
    if isinstance(order, SupportHold):
        return f"{head} S {_letter(order.supported_type)}{m.name_of(order.supported_location)}"
    if isinstance(order, SupportMove):
        supported = f"{_letter(order.supported_type)}{m.name_of(order.supported_location)}"
        return f"{head} S {supported} - {m.name_of(order.destination)}"
    if isinstance(order, Convoy):
        return f"{head} C A {m.name_of(order.army_location)} - {m.name_of(order.destination)}"
    if isinstance(order, Retreat):
        return f"{head} R {m.name_of(order.destination)}"
    if isinstance(order, Disband):
        return f"{head} D"
    return f"{head} B"


# --- DAIDE order clauses ---------------------------------------------------------------

_DAIDE_TYPES = {"AMY": ARMY, "FLT": FLEET}


def _daide_tree(text: str) -> list:
    """Nest the tokens of a DAIDE clause by its brackets."""
    stack: list[list] = [[]]
    for token in re.findall(r"\(|\)|[^\s()]+", text.upper()):
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise OrderSyntaxError("unbalanced ')'")
            inner = stack.pop()
            stack[-1].append(inner)
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise OrderSyntaxError("unbalanced '('")
    tree = stack[0]
    while len(tree) == 1 and isinstance(tree[0], list):
        tree = tree[0]
    return tree


def _daide_place(m: Map, item: str | list) -> int:
    try:
        if isinstance(item, list):
            return m.location(" ".join(item))
        return m.location(item)
    except (KeyError, TypeError):
        raise OrderSyntaxError(f"unknown place {item!r}") from None


def _daide_unit(m: Map, item: str | list) -> tuple[str, int, int]:
    if not isinstance(item, list) or len(item) != 3 or item[1] not in _DAIDE_TYPES:
        raise OrderSyntaxError(f"expected ( POWER AMY|FLT PLACE ), got {item!r}")
    try:
        power = m.power(item[0])
    except KeyError:
        raise OrderSyntaxError(f"unknown power {item[0]!r}") from None
    return power, _DAIDE_TYPES[item[1]], _daide_place(m, item[2])


def parse_daide_order(m: Map, text: str) -> tuple[str, Order]:
    """Parse a DAIDE order clause such as ``( ( ENG FLT LON ) MTO NTH )``.

    Returns the power that the clause names for the unit together with the order.
    Raises :class:`OrderSyntaxError` when the clause is not an order.
    """
    tree = _daide_tree(text)
    if len(tree) == 2 and tree[1] == "WVE" and isinstance(tree[0], str):
        try:
            return m.power(tree[0]), Waive()
        except KeyError:
            raise OrderSyntaxError(f"unknown power {tree[0]!r}") from None
    if len(tree) < 2 or not isinstance(tree[1], str):
        raise OrderSyntaxError(f"cannot read {text!r} as an order")
    power, unit_type, location = _daide_unit(m, tree[0])
    verb, args = tree[1], tree[2:]
    if verb == "HLD" and not args:
        return power, Hold(unit_type, location)
    if verb == "MTO" and len(args) == 1:
        return power, Move(unit_type, location, _daide_place(m, args[0]))
    if verb == "CTO" and len(args) == 3 and args[1] == "VIA":
        return power, Move(unit_type, location, _daide_place(m, args[0]), True)
    if verb == "SUP" and len(args) == 1:
        _, supported_type, supported = _daide_unit(m, args[0])
        return power, SupportHold(unit_type, location, supported_type, supported)
    if verb == "SUP" and len(args) == 3 and args[1] == "MTO":
        _, supported_type, supported = _daide_unit(m, args[0])
        return power, SupportMove(unit_type, location, supported_type, supported, _daide_place(m, args[2]))
    if verb == "CVY" and len(args) == 3 and args[1] == "CTO":
        _, _, army = _daide_unit(m, args[0])
        return power, Convoy(unit_type, location, army, _daide_place(m, args[2]))
    if verb == "RTO" and len(args) == 1:
        return power, Retreat(unit_type, location, _daide_place(m, args[0]))
    if verb in ("DSB", "REM") and not args:
        return power, Disband(unit_type, location)
    if verb == "BLD" and not args:
        return power, Build(unit_type, location)
    raise OrderSyntaxError(f"cannot read {text!r} as an order")
