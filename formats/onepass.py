"""A MILA saved game read as détente's game document in one pass of the compiled core.

A saved game repeats the whole board in every phase: made into Python objects (as
:mod:`formats.saved` reads it), the file takes as long to read as the compiled engine takes
to play it. Here the compiled core (``engine/_saved.c``) scans the file's JSON in place,
plays every phase from the one before, compares its outcome with the next recorded state
and writes the phase records itself; Python reads only the first state, the phases'
messages and the top-level keys, and adds the game's summary.

The core declines anything but the plain case (a string it must read with an escape in it,
a power or unit it does not know, results not recorded, a phase that plays differently from
its record, JSON it does not find strictly valid...): :func:`game_line` then returns None and
the caller reads the file with :mod:`formats.saved`, which writes the same document, marks
the phases that differ and words the errors. So does a machine without the compiled core.

>>> from engine import Game
>>> from formats import mila
>>> from formats.jsonio import dump_bytes, loads
>>> game = Game()
>>> _ = game.play({"ENGLAND": ["F LON - ECH"]})
>>> text = dump_bytes(mila.dump({"phases": [{"phase": "S1901M", "orders": {"ENGLAND": ["F LON - ECH"]},
...                                         "results": {}, "position": game.position.to_json()}]}))
>>> line = game_line(text)
>>> line is None or loads(line) == mila.load(loads(text))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import _native
from engine.batch import case_start
from engine.maps import UNIT_LETTERS, Map, standard_map
from engine.orders import Order
from engine.position import Position
from formats.cicero import CICERO_KEYS
from formats.common import FormatError, position_of_state, read_messages, their_text
from formats.jsonio import dump_bytes, dump_line, loads, orjson
from formats.mila import source_of
from formats.saved import game_document, play_turn, read_texts, tables_for

__all__ = ["game_line"]

#: cores whose saved-game names are set (set_saved_names once per core)
_named: set[int] = set()
#: first states read (the raw JSON a position is read from) -> their position JSON, position, and
#: what the core plays it from
_starts: dict[bytes, tuple[dict[str, Any], Position, tuple[bytes, int] | None]] = {}


def game_line(text: bytes, m: Map | None = None) -> bytes | None:
    """Détente's game document of the MILA saved game ``text`` (its file's bytes), as
    :func:`formats.jsonio.dump_line` writes it; None where the compiled module is not loaded or
    declines the game (read it with :func:`formats.mila.load` then). The phases are played by
    the engine core in use: the compiled one in C, the pure-Python one called back per turn."""
    m = m or standard_map()
    tables = _native.compiled_tables(m)
    if orjson is None or tables is None:
        return None
    found = tables.saved_start(text)
    if found is None:
        return None
    begin, end, known = found
    try:
        first, position, start = _starts.get(known) or _start(text[begin:end], m, known, tables)
    except (FormatError, KeyError, ValueError, TypeError, AttributeError):  # formats.saved words it
        return None
    if start is None:
        return None
    if id(tables) not in _named:
        _name(tables, m)
    board, season = start

    def replay() -> Any:  # by the engine core in use
        if _native.core_for(m) is not None:
            return tables.replay_saved(text, board, position.phase.year, season)
        return _replay(tables, text, position, season)

    try:
        played = replay()
        if isinstance(played, list):  # order texts not met before: read them once, then play
            tables.saved_learn(_learnt(played, tables, m))
            played = replay()
    except Exception:  # noqa: BLE001 - the engine refused a turn: formats.saved raises it in its words
        return None
    if not isinstance(played, tuple):
        return None
    phases, rows, top, messages = played
    try:
        data = {key.decode("utf-8"): loads(text[a:b]) for key, (a, b) in top}
        if any(key in data for key in CICERO_KEYS):
            return None  # dipcc's game: formats.cicero keeps its own keys
        said = _messages(text, messages, m)
    except (FormatError, ValueError):  # a message without its fields: formats.saved words it
        return None
    document = game_document(
        first, position, rows, orjson.Fragment(phases), said, source_of(data), data.get("detente"), m
    )
    return dump_line(document)


def _replay(tables: Any, text: bytes, position: Position, season: int) -> Any:
    """replay_saved with the pure-Python engine playing each turn from ``position``."""

    def play(orders: dict[str, list[Order]]) -> Position:
        nonlocal position
        position = play_turn(position, orders)[2]
        return position

    return tables.replay_saved(text, position, position.phase.year, season, play)


def _messages(text: bytes, spans: Sequence[tuple[Any, tuple[int, int]]], m: Map) -> list[dict[str, Any]]:
    """The game's messages, read as formats.saved reads them from the phases that have any
    (each its name's span, or None, and its messages' span in ``text``)."""
    if not spans:
        return []
    phases = [
        {"name": None if name is None else loads(text[slice(*name)]), "messages": loads(text[slice(*at)])}
        for name, at in spans
    ]
    return read_messages(phases, m)


def _start(
    state: bytes, m: Map, known: bytes, tables: Any
) -> tuple[dict[str, Any], Position, tuple[bytes, int] | None]:
    """A first state (its JSON) as position JSON, its position, and what the core plays it from
    (its board and season), remembered by ``known`` (the raw JSON it is read from): most saved
    games start from the same few positions."""
    first = position_of_state(loads(state), m)
    position = Position.from_json(first, m)
    start = case_start(position, dump_bytes, tables)
    found = (first, position, None if start is None else start[1:])
    if len(_starts) < 256:
        _starts[known] = found
    return found


def _learnt(texts: Sequence[bytes], core: Any, m: Map) -> list[tuple[bytes, bytes | None, bytes, Order | None]]:
    """Order texts as a file writes them, read as :mod:`formats.saved` reads them: each with its
    order's record (None if it is no order), its text in détente's names as JSON, and its order.
    An order the core cannot encode is left out: the game is then read in Python."""
    t = tables_for(m)
    first = m.powers[0]
    learnt = []
    for raw in dict.fromkeys(texts):
        text = raw.decode("utf-8")
        unreadable: list[str] = []
        ours, found = read_texts([text], unreadable, m, t)
        record = core.encode_orders({first: found}) if found else None
        if found and (record is None or len(record) != 16):
            continue
        learnt.append((raw, record, dump_bytes(ours[0]), found[0] if found else None))
    return learnt


def _name(core: Any, m: Map) -> None:
    """The names replay_saved reads: powers, units and locations as MILA and détente write them."""
    t = tables_for(m)
    count = len(m.locations)
    standing = {(u.type, u.location) for u in t.standing()}
    ours = [
        [t.units[kind][loc] if (kind, loc) in standing else None for loc in range(count)]
        for kind in range(len(UNIT_LETTERS))
    ]
    core.set_saved_names(
        [m.power_names[p].encode() for p in m.powers],  # a saved game's: the full names
        *([None if name is None else their_text(name).encode() for name in names] for names in ours),
        [their_text(name).encode() for name in m.locations],
        [name.encode() for name in m.locations],
        *([None if name is None else name.encode() for name in names] for names in ours),
    )
    _named.add(id(core))
