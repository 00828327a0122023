"""Many phases in one call, for search and learning: compact boards in, compact outcomes out.

A *board* is an ``array('h')`` (int16): ``[kind, units, dislodged, (power, type,
location) per unit, (power, type, location, count, retreat locations...) per dislodged
unit, the owner of each location]`` with ``kind`` 0, 1, 2 for a movement, retreat or
adjustment phase, powers as indices into ``map.powers`` and -1 for none. Copying one is
``board[:]`` (a memory copy), and :func:`with_units` swaps its units, so a search can try
many futures of a position cheaply. Orders are records of 8 int16 each (``ORDER_FIELDS``).

:func:`adjudicate_many` and :func:`legal_orders_many` run the compiled core over a whole
list with the GIL released, so that threads (``threads=``) or Ray workers scale; each
outcome is decoded with :func:`decode_outcome` or :func:`decode_legal`. The results equal
the object API's (``engine.adjudicate``, ``engine.legal_orders``), which the tests check;
without the compiled core the reference gives the same bytes, one phase at a time. An
item the core declines (a board it cannot read) comes back as None.

>>> from engine import Position, parse_order, standard_map
>>> m = standard_map()
>>> start = Position.initial(m)
>>> board = encode_position(start)
>>> orders = encode_orders(m, {"FRA": [parse_order(m, "A PAR - BUR")], "GER": [parse_order(m, "A MUN - BUR")]})
>>> [outcome] = adjudicate_many(m, [board], [orders])
>>> units, dislodged, results = decode_outcome(outcome)
>>> sorted((m.name_of(loc), words) for (power, kind, loc), words in results)
[('MUN', (<Result.BOUNCE: 'bounce'>,)), ('PAR', (<Result.BOUNCE: 'bounce'>,))]
>>> [legal] = legal_orders_many(m, [board])
>>> groups = decode_legal(legal)
>>> from engine import legal_orders_for
>>> len(groups), len(groups[0][1]) == len(legal_orders_for(start, start.units[0]))
(22, True)
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engine import _native
from engine.maps import UNIT_LETTERS, Map
from engine.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, Waive
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, SEASONS, Dislodged, Phase, Position, Unit
from engine.results import Result

KINDS = {"M": 0, "R": 1, "A": 2}
#: an order record: (power, kind, type or -1, location, supported/convoyed type, its location, destination, via)
ORDER_FIELDS = ("power", "kind", "type", "location", "other_type", "other_location", "destination", "via")
ORDER_KINDS = (Hold, Move, SupportHold, SupportMove, Convoy, Retreat, Disband, Build, Waive)
_KIND_OF = {kind: i for i, kind in enumerate(ORDER_KINDS)}
_HEADS = (
    (),
    (Result.OK,),
    (Result.BOUNCE,),
    (Result.CUT,),
    (Result.DISRUPTED,),
    (Result.NO_CONVOY,),
    (Result.VOID,),
    (),
)

Unit3 = tuple[int, int, int]  # (power index, type, location)


def encode_position(position: Position) -> array:
    """The board of a position (its powers must be the map's)."""
    m = position.map
    index: dict[str | None, int] = {power: i for i, power in enumerate(m.powers)}
    data = array("h", (KINDS[position.phase.kind], len(position.units), len(position.dislodged)))
    core = _native.core_for(m)
    units = None if core is None else core.encode_units(position.units)
    if units is not None:
        data.frombytes(units)  # the records below, read in C
    else:
        for u in position.units:
            data.extend((index[u.power], u.type, u.location))
    for d in position.dislodged:
        data.extend((index[d.unit.power], d.unit.type, d.unit.location, len(d.retreats), *sorted(d.retreats)))
    index[None] = -1
    data.extend([index[owner] for owner in position.centers])
    return data


def with_units(board: array, units: Iterable[Unit3], kind: int | None = None) -> array:
    """A copy of ``board`` with these units (and no dislodged units), in phase ``kind`` if given.

    >>> b = encode_position(Position.initial())
    >>> moved = with_units(b, [(0, 0, 1)])
    >>> list(moved[:6]), len(moved) == len(b) - 21 * 3
    ([0, 1, 0, 0, 0, 1], True)
    """
    units = list(units)
    skip = 3 + 3 * board[1]
    for _ in range(board[2]):
        skip += 4 + board[skip + 3]
    out = array("h", [board[0] if kind is None else kind, len(units), 0])
    for u in units:
        out.extend(u)
    out.extend(board[skip:])
    return out


def encode_orders(m: Map, orders: Mapping[str, Iterable[Order]]) -> array:
    """Orders by power as records (powers not of the map are not encodable: KeyError)."""
    core = _native.core_for(m)
    if core is not None and isinstance(orders, dict):
        encoded = core.encode_orders(orders)  # the same records, read in C; None: an odd input
        if encoded is not None:
            out = array("h")
            out.frombytes(encoded)
            return out
    index = {power: i for i, power in enumerate(m.powers)}
    data: list[int] = []
    for power, power_orders in orders.items():
        w = index[power]
        for o in power_orders:
            kind = _KIND_OF[type(o)]
            if kind == 8:
                data += (w, 8, -1, -1, -1, -1, -1, 0)
                continue
            t = -1 if o.type is None else o.type
            if kind == 1:
                data += (w, 1, t, o.location, -1, -1, o.destination, int(o.via_convoy))
            elif kind == 2:
                data += (w, 2, t, o.location, _type(o.supported_type), o.supported_location, -1, 0)
            elif kind == 3:
                data += (w, 3, t, o.location, _type(o.supported_type), o.supported_location, o.destination, 0)
            elif kind == 4:
                data += (w, 4, t, o.location, 0, o.army_location, o.destination, 0)
            elif kind == 5:
                data += (w, 5, t, o.location, -1, -1, o.destination, 0)
            else:
                data += (w, kind, t, o.location, -1, -1, -1, 0)
    return array("h", data)


def _type(unit_type: int | None) -> int:
    return -1 if unit_type is None else unit_type


def _core(m: Map):
    core = _native.core_for(m)
    if core is None:
        raise RuntimeError(f"the batch API needs the compiled core (active: {_native.active_core()})")
    return core


@functools.cache
def _pool(threads: int) -> ThreadPoolExecutor:
    """A pool kept for the process's life: making threads on every call cost as much as a small batch."""
    return ThreadPoolExecutor(threads, thread_name_prefix="detente-batch")


def _chunks(items: Sequence, threads: int) -> list[slice]:
    size = max(1, -(-len(items) // threads))
    return [slice(i, i + size) for i in range(0, len(items), size)]


def adjudicate_many(
    m: Map, boards: Sequence[array | bytes], orders: Sequence[array | bytes], threads: int = 1
) -> list[bytes | None]:
    """Adjudicate every (board, orders) pair; ``threads`` > 1 splits the list over threads.

    The records of one power must follow each other, as :func:`encode_orders` writes them.
    Without the compiled core, the reference answers, one phase at a time.
    """
    core = _native.core_for(m)
    if core is None:
        return [_reference_outcome(m, b, o) for b, o in zip(boards, orders, strict=True)]
    if threads <= 1 or len(boards) < 2:
        return core.adjudicate_many(boards, orders)
    parts = _pool(threads).map(lambda s: core.adjudicate_many(boards[s], orders[s]), _chunks(boards, threads))
    return [item for part in parts for item in part]


def legal_orders_many(m: Map, boards: Sequence[array | bytes], threads: int = 1) -> list[bytes | None]:
    """The legal orders of every board (see :func:`decode_legal`)."""
    core = _native.core_for(m)
    if core is None:
        return [_reference_legal(m, b) for b in boards]
    if threads <= 1 or len(boards) < 2:
        return core.legal_many(boards)
    parts = _pool(threads).map(lambda s: core.legal_many(boards[s]), _chunks(boards, threads))
    return [item for part in parts for item in part]


_SEASONS = {season: i for i, season in enumerate(SEASONS)}  # the core's numbers for them
#: core -> the dump function its case names were written with (set_case_names once per pair)
_case_names: dict[int, Callable[[Any], bytes]] = {}


def play_case(
    position: Position,
    turns: Sequence[dict[str, list[Order]]],
    voids: Sequence[list[bytes]],
    dump: Callable[[Any], bytes],
) -> bytes | None:
    """A whole adjudication case in C: ``position`` played through every turn's orders, each
    phase advanced as :func:`engine.game.adjudicate` advances it (centres after a fall, empty
    retreat and adjustment phases skipped, a winner ends the game), and the answer written
    as compact JSON: per turn the next position as :meth:`Position.to_json` writes it, with
    ``results`` (named on the position played), then ``voids[i]``, the JSON of the texts of
    turn ``i`` that were no orders (``["void"]`` unless a result has that name already).

    Names are written as ``dump`` writes them (once per map); None where the compiled core is
    not active or declines (a position or orders it does not model, a phase it does not know):
    the caller then plays the case with the object API. The GIL is released while it plays.

    >>> import json
    >>> from engine import parse_order, standard_map
    >>> m = standard_map()
    >>> start = Position.initial(m)
    >>> dump = lambda data: json.dumps(data, separators=(",", ":")).encode()
    >>> answer = play_case(start, [{"FRA": [parse_order(m, "A PAR - BUR")]}], [[]], dump)
    >>> answer is None or json.loads(answer)[0]["results"]["A PAR"] == ["ok"]
    True
    """
    start = case_start(position, dump)
    if start is None:
        return None
    core, board, season = start
    return core.play_case(board, position.phase.year, season, turns, voids)


def play_case_called(
    position: Position,
    turns: Sequence[dict[str, list[Order]]],
    voids: Sequence[list[bytes]],
    dump: Callable[[Any], bytes],
    play: Callable[[Position, dict[str, list[Order]]], Any],
) -> bytes | None:
    """:func:`play_case` with the pure-Python engine playing: ``play(position, orders)`` (as
    :func:`engine.game.adjudicate`) plays each turn, and the compiled module reads its outcome
    and writes the answer as :func:`play_case` writes it. None where the compiled module is not
    loaded or the outcome is not one it writes (the caller then writes it itself).

    >>> import json
    >>> from engine import _native, parse_order, standard_map
    >>> from engine.game import adjudicate
    >>> m = standard_map()
    >>> with _native.pure_python():
    ...     answer = play_case_called(Position.initial(m), [{"FRA": [parse_order(m, "A PAR - BUR")]}], [[]],
    ...                               lambda data: json.dumps(data, separators=(",", ":")).encode(), adjudicate)
    >>> answer is None or json.loads(answer)[0]["results"]["A PAR"] == ["ok"]
    True
    """
    core = _native.compiled_tables(position.map)
    if core is None or _SEASONS.get(position.phase.season) is None or position.completed:
        return None
    if _case_names.get(id(core)) is not dump:
        _set_case_names(core, position.map, dump)

    def turn(orders: dict[str, list[Order]]) -> Any:
        nonlocal position
        outcome = play(position, orders)
        position = outcome.position
        return outcome

    return core.play_case(position, position.phase.year, _SEASONS[position.phase.season], list(turns), voids, turn, _codes())


@functools.cache
def _codes() -> dict[tuple[Result, ...], int]:
    """Each result words' code (the first of codes with the same words)."""
    codes: dict[tuple[Result, ...], int] = {}
    for code in range(32):
        codes.setdefault(words(code), code)
    return codes


def play_texts(
    position: Position,
    turns: list[Any],
    powers: dict[str, int],
    records: dict[str, bytes],
    voids: dict[str, bytes],
    dump: Callable[[Any], bytes],
) -> bytes | None:
    """:func:`play_case` for turns as an adjudication case writes them (``[{"orders": {power:
    [text, ...]}}, ...]``), read in C: each power by ``powers`` (as written -> its index in
    ``map.powers``), each text by ``records`` (an order's record, as :func:`encode_orders` writes
    it for one order, the power's field left to fill) or ``voids`` (a text that is no order ->
    its JSON). None where anything is not found there or is of another shape (a power written
    twice in one turn too): the caller then reads the orders itself.

    >>> import json
    >>> from engine import parse_order, standard_map
    >>> m = standard_map()
    >>> dump = lambda data: json.dumps(data, separators=(",", ":")).encode()
    >>> record = encode_orders(m, {"AUS": [parse_order(m, "A PAR - BUR")]}).tobytes()
    >>> turns = [{"orders": {"FRANCE": ["A PAR - BUR", "bad"]}}]
    >>> answer = play_texts(Position.initial(m), turns, {"FRANCE": 2}, {"A PAR - BUR": record}, {"bad": b'"bad"'}, dump)
    >>> answer is None or json.loads(answer)[0]["results"] == {"A PAR": ["ok"], "bad": ["void"]}
    True
    """
    start = case_start(position, dump)
    if start is None:
        return None
    core, board, season = start
    return core.play_texts(board, position.phase.year, season, turns, powers, records, voids)


def case_start(position: Position, dump: Callable[[Any], bytes], core: Any = None) -> tuple[Any, bytes, int] | None:
    """What a case (or a saved game, :mod:`formats.onepass`) played in C starts from: the map's
    core (its names written by ``dump``), the board's bytes and the season's number; None where
    the core cannot play ``position``. ``core``: the compiled tables to write with when the
    pure-Python engine plays (``engine._native.compiled_tables``); by default the active core."""
    m = position.map
    core = core or _native.core_for(m)
    season = _SEASONS.get(position.phase.season)
    if core is None or season is None or position.completed or position.phase.kind not in KINDS:
        return None
    if _case_names.get(id(core)) is not dump:
        _set_case_names(core, m, dump)
    try:
        board = encode_position(position).tobytes()
    except (KeyError, OverflowError, TypeError):  # a power not of the map, a number no int16 holds
        return None
    return core, board, season


def _set_case_names(core: Any, m: Map, dump: Callable[[Any], bytes]) -> None:
    locations = list(m.locations)
    rank = {name: i for i, name in enumerate(sorted(locations))}
    core.set_case_names(
        [dump(m.power_names[power]) for power in m.powers],
        *([dump(f"{letter} {name}") for name in locations] for letter in UNIT_LETTERS),
        [dump(name) for name in locations],
        [dump(list(words(code))) for code in range(32)],
        [rank[name] for name in locations],
    )
    _case_names[id(core)] = dump


def words(code: int) -> tuple[Result, ...]:
    """The result words of a code: a head word in the low 3 bits, +8 dislodged, +16 disband."""
    return _HEADS[code & 7] + ((Result.DISLODGED,) if code & 8 else ()) + ((Result.DISBAND,) if code & 16 else ())


def decode_outcome(
    data: bytes,
) -> tuple[list[Unit3], list[tuple[Unit3, tuple[int, ...]]], list[tuple[Unit3, tuple[Result, ...]]]]:
    """An outcome: the units after the phase (in the reference's order), the dislodged units
    with their retreat locations, and the results (a movement phase's sorted by unit, as the
    reference orders them by a set's order; retreats' and adjustments' in the reference's order)."""
    v = array("h")
    v.frombytes(data)
    i = 1
    units = [(v[i + 3 * k], v[i + 3 * k + 1], v[i + 3 * k + 2]) for k in range(v[0])]
    i += 3 * v[0]
    dislodged = []
    for _ in range(v[i]):
        count = v[i + 4]
        dislodged.append(((v[i + 1], v[i + 2], v[i + 3]), tuple(v[i + 5 : i + 5 + count])))
        i += 4 + count
    i += 1
    results = [((v[i + 1 + 4 * k], v[i + 2 + 4 * k], v[i + 3 + 4 * k]), words(v[i + 4 + 4 * k])) for k in range(v[i])]
    return units, dislodged, results


def decode_legal(data: bytes) -> list[tuple[Unit3, list[tuple[int, ...]]]]:
    """Legal orders: per unit (per power in winter, type and location -1), the order records
    ``(kind, type, location, other type, other location, destination, via)`` in the reference's order."""
    v = array("h")
    v.frombytes(data)
    groups = []
    i = 1
    for _ in range(v[0]):
        key = (v[i], v[i + 1], v[i + 2])
        count = v[i + 3]
        i += 4
        groups.append((key, [tuple(v[i + 7 * k : i + 7 * k + 7]) for k in range(count)]))
        i += 7 * count
    return groups


# --- the reference behind the batch API, where the compiled core is not there ---------------


def _ints(data: array | bytes) -> array:
    if isinstance(data, array):
        return data
    v = array("h")
    v.frombytes(data)
    return v


def decode_board(m: Map, board: array | bytes) -> Position:
    """The position a board holds (a movement phase in spring, an adjustment one in winter).

    >>> start = Position.initial()
    >>> again = decode_board(start.map, encode_position(start))
    >>> again.units == start.units and again.centers == start.centers
    True
    """
    v = _ints(board)
    kind = "MRA"[v[0]]
    units = tuple(Unit(m.powers[v[3 + 3 * i]], v[4 + 3 * i], v[5 + 3 * i]) for i in range(v[1]))
    i = 3 + 3 * v[1]
    dislodged = []
    for _ in range(v[2]):
        unit = Unit(m.powers[v[i]], v[i + 1], v[i + 2])
        dislodged.append(Dislodged(unit, frozenset(v[i + 4 : i + 4 + v[i + 3]])))
        i += 4 + v[i + 3]
    centers = tuple(None if owner < 0 else m.powers[owner] for owner in v[i:])
    season = "W" if kind == ADJUSTMENTS else "S"
    return Position(m, Phase(m.first_year, season, kind), units, centers, tuple(dislodged))


def decode_orders(m: Map, records: array | bytes) -> dict[str, list[Order]]:
    """The orders of :func:`encode_orders`'s records, by power."""
    v = _ints(records)
    orders: dict[str, list[Order]] = {}
    for i in range(0, len(v), 8):
        w, kind, t, loc, other_type, other, dest, via = v[i : i + 8]
        unit_type = None if t < 0 else t
        supported_type = None if other_type < 0 else other_type
        order: Order
        if kind == 0:
            order = Hold(unit_type, loc)
        elif kind == 1:
            order = Move(unit_type, loc, dest, bool(via))
        elif kind == 2:
            order = SupportHold(unit_type, loc, supported_type, other)
        elif kind == 3:
            order = SupportMove(unit_type, loc, supported_type, other, dest)
        elif kind == 4:
            order = Convoy(unit_type, loc, other, dest)
        elif kind == 5:
            order = Retreat(unit_type, loc, dest)
        elif kind == 8:
            order = Waive()
        else:
            order = ORDER_KINDS[kind](unit_type, loc)  # type: ignore[call-arg]
        orders.setdefault(m.powers[w], []).append(order)
    return orders


_CODE_OF = {Result.DISLODGED: 8, Result.DISBAND: 16, **{word[0]: code for code, word in enumerate(_HEADS) if word}}


def _reference_outcome(m: Map, board: array | bytes, records: array | bytes) -> bytes | None:
    """:func:`adjudicate_many`'s answer for one phase, from the reference."""
    from engine.adjustments import adjudicate_adjustments
    from engine.movement import adjudicate_movement
    from engine.retreats import adjudicate_retreats

    try:
        position, orders = decode_board(m, board), decode_orders(m, records)
    except (IndexError, ValueError):
        return None
    index = {power: i for i, power in enumerate(m.powers)}
    dislodged: tuple[Dislodged, ...] = ()
    if position.phase.kind == MOVEMENT:
        outcome = adjudicate_movement(position, orders)
        units, dislodged, results = outcome.units, outcome.dislodged, outcome.results
    elif position.phase.kind == RETREATS:
        units, results = adjudicate_retreats(position, orders)
    else:
        units, results = adjudicate_adjustments(position, orders)
    out = array("h", [len(units)])
    for u in units:
        out.extend((index[u.power], u.type, u.location))
    out.append(len(dislodged))
    for d in dislodged:
        out.extend((index[d.unit.power], d.unit.type, d.unit.location, len(d.retreats), *sorted(d.retreats)))
    entries = [((index[u.power], u.type, u.location), sum(_CODE_OF[w] for w in words)) for u, words in results.items()]
    if position.phase.kind == MOVEMENT:
        entries.sort()
    out.append(len(entries))
    for unit, code in entries:
        out.extend((*unit, code))
    return out.tobytes()


def _reference_legal(m: Map, board: array | bytes) -> bytes | None:
    """:func:`legal_orders_many`'s answer for one board, from the reference."""
    from engine.legal import legal_orders, legal_orders_for

    try:
        position = decode_board(m, board)
    except (IndexError, ValueError):
        return None
    index = {power: i for i, power in enumerate(m.powers)}
    groups: list[tuple[tuple[int, int, int], list[Order]]] = []
    if position.phase.kind == MOVEMENT:
        groups = [((index[u.power], u.type, u.location), legal_orders_for(position, u)) for u in position.units]
    elif position.phase.kind == RETREATS:
        units = [d.unit for d in position.dislodged]
        groups = [((index[u.power], u.type, u.location), legal_orders_for(position, u)) for u in units]
    else:
        for power in m.powers:
            orders = legal_orders(position, power).get(None)
            if orders:
                groups.append(((index[power], -1, -1), orders))
    out = array("h", [len(groups)])
    for key, orders in groups:
        records = encode_orders(m, {m.powers[0]: orders})
        out.extend((*key, len(orders)))
        for i in range(0, len(records), 8):
            out.extend(records[i + 1 : i + 8])
    return out.tobytes()
