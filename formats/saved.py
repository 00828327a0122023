"""Reading a saved game (MILA's or dipcc's shape) as détente's game document, every phase
adjudicated again (see :mod:`formats.common`), as fast as the engine allows.

A saved game repeats the whole board in every phase, and the engine takes only a few
dozen microseconds a phase: reading is made of three loops over the phases, each one
job (read the orders, play them, write and compare the positions), so that each loop's
code and tables stay in the processor's caches; names come from tables made once per
map; a recorded state is compared with the engine's outcome set against set, power by
power, and only a phase where they seem to differ (or that has dislodged units, or
seas that MILA names differently) goes through the exact comparison of
:func:`formats.common.differences`' views.

>>> from formats import mila
>>> from engine import Game
>>> game = Game()
>>> _ = game.play({"ENGLAND": ["F LON - ECH"]})
>>> saved = mila.dump({"phases": [{"phase": "S1901M", "orders": {"ENGLAND": ["F LON - ECH"]},
...                                "results": {}, "position": game.position.to_json()}]})
>>> document = read_saved_game(saved, {"format": "mila"})
>>> document["phases"][0]["position"] == game.position.to_json()
True
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.game import Adjudication, adjudicate
from engine.maps import Map, map_names, variant_map
from engine.orders import Order, OrderSyntaxError, parse_order
from engine.position import RETREATS, Position
from formats.common import (
    NOTE,
    THEIRS,
    FormatError,
    differences,
    our_text,
    position_of_state,
    read_messages,
    their_text,
)
from formats.names import MapNames

__all__ = ["Row", "game_document", "play_turn", "read_saved_game", "read_texts", "tables_for"]


class _Tables(MapNames):
    """What is read and written on a map, made once: names by unit and location, and a memo of
    the orders read (MILA's text -> détente's text, and its order when it is one)."""

    def __init__(self, m: Map) -> None:
        super().__init__(m)
        #: a unit as MILA names it -> as détente does (the three seas), for every unit that can stand
        self.our_unit: dict[str, str] = {}
        for unit in self.standing():
            ours = self.units[unit.type][unit.location]
            self.our_unit[their_text(ours)] = ours
        self.powers: dict[str, str] = {}  # a power as a file names it (its full name) -> its token
        self.texts: dict[str, str] = {}  # MILA order text -> détente's
        self.orders: dict[str, Order] = {}  # MILA order text -> its order (texts that are orders)
        self.unreadable: set[str] = set()  # MILA order texts that are no order
        #: MILA's result words, as a tuple -> détente's (``""`` or none is ``ok``)
        self.words: dict[tuple[Any, ...], tuple[str, ...]] = {}
        # One attribute, set in one step: the server reads games in threads.
        #: the last centres found the same as a recorded state's: (owners, the recorded centres)
        self.same_centers: tuple[tuple[str | None, ...] | None, Any] = (None, None)

    def position_json(self, position: Position) -> dict[str, Any]:
        """``position.to_json()``, from the tables (every list a new one: the document is the caller's)."""
        units = self.units_json(position)
        centers = {power: held.copy() for power, held in self.centres_json(position).items()}
        return {
            "phase": "COMPLETED" if position.completed else str(position.phase),
            "units": units,
            "centers": centers,
            "dislodged": self.dislodged_json(position),
        }

    def results(self, recorded: Mapping[str, Any]) -> dict[str, list[str]]:
        """MILA's results of a phase in détente's words and names (``""``, or no word, is ``ok``)."""
        if type(recorded) is dict:  # anything else goes the way it went before (an error)
            try:
                return dict(
                    zip(
                        map(self.our_unit.__getitem__, recorded),
                        map(list, map(self.words.__getitem__, map(tuple, recorded.values()))),
                        strict=True,
                    )
                )
            except (KeyError, TypeError):  # a unit or words not met before (or not a list)
                pass
        results = {}
        for unit, words in recorded.items():
            ours = ([w for w in words if w] or ["ok"]) if words else ["ok"]
            results[_OUR_SEA_FLEETS.get(unit, unit)] = ours
            key = tuple(words or ())
            if len(self.words) < 10_000 and all(type(w) is str for w in key):  # (1,) == (True,): words only
                self.words[key] = tuple(ours)
        return results


@functools.lru_cache(maxsize=8)
def tables_for(m: Map) -> _Tables:
    """The names and memos of reading saved games on ``m`` (made once; shared with formats.onepass)."""
    return _Tables(m)


#: a map's initial position, made once
_initial_position = functools.lru_cache(maxsize=8)(Position.initial)


#: détente's fleets on the three seas named differently, by MILA's names
_SEA_FLEETS = {f"F {ours}": f"F {theirs}" for ours, theirs in THEIRS.items()}
_SEA_FLEETS_OURS = frozenset(_SEA_FLEETS)
_OUR_SEA_FLEETS = {theirs: ours for ours, theirs in _SEA_FLEETS.items()}


def _their_view(ours: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a MILA state shows of détente's position JSON, in MILA's names: phase, units
    (dislodged ones starred), centres, and the retreats of dislodged units that have any."""
    units = {p: set(v) for p, v in ours["units"].items() if v}
    for names in units.values():
        if not names.isdisjoint(_SEA_FLEETS_OURS):
            for name in names & _SEA_FLEETS_OURS:
                names.discard(name)
                names.add(_SEA_FLEETS[name])
    retreats: dict[str, frozenset[str]] = {}
    for unit, d in ours["dislodged"].items():
        units.setdefault(d["power"], set()).add("*" + their_text(unit))
        if d["retreats"]:
            retreats[their_text(unit)] = frozenset(their_text(r) for r in d["retreats"])
    centers = {p: set(v) for p, v in ours["centers"].items() if v}
    return ours["phase"], units, centers, retreats


def _recorded_view(state: Mapping[str, Any]) -> tuple[Any, ...]:
    """The same view of a recorded MILA or dipcc state."""
    retreats: dict[str, frozenset[str]] = {}
    for key, value in (state.get("retreats") or {}).items():
        if isinstance(value, Mapping):
            for unit, places in value.items():
                if places:
                    retreats[unit] = frozenset(places)
        elif value:
            retreats[key] = frozenset(value)
    return (
        state.get("name"),
        {p: set(v) for p, v in (state.get("units") or {}).items() if v},
        {p: set(v) for p, v in (state.get("centers") or {}).items() if v},
        retreats,
    )


def _plainly_same(
    ours: Mapping[str, Any], state: Mapping[str, Any], owners: tuple[str | None, ...], t: _Tables
) -> bool:
    """Whether a recorded ``state`` shows the position ``ours`` (JSON, with no dislodged unit),
    when it is plain: True only when :func:`_their_view` and :func:`_recorded_view` agree;
    False when they may not (then compare them).

    Plain: no retreat offered in the state, every name in it a name of the map's (a fleet
    in the Channel named ``F ENG``, as MILA does). ``owners`` are the centres of the position:
    the same tuple as last time and the same recorded centres need no comparison again.
    """
    retreats = state.get("retreats")
    if retreats and (type(retreats) is not dict or any(retreats.values())):
        return False
    units = state.get("units")
    centers = state.get("centers")
    if type(units) is not dict or not (centers is None or type(centers) is dict):
        return False
    if not _same_sets(ours["units"], units, t.our_unit.get):
        return False
    last, recorded = t.same_centers
    if owners is last and centers == recorded:
        return True
    if not _same_sets(ours["centers"], centers or {}, None):
        return False
    t.same_centers = (owners, centers)
    return True


def _same_sets(ours: Mapping[str, list[str]], recorded: dict[str, Any], renamed: Any) -> bool:
    """``{p: set(v) for p, v in ours.items()}`` (:meth:`_Tables.position_json`'s: no list empty)
    equals ``{p: set(v) for p, v in recorded.items() if v}``, the recorded names read with
    ``renamed`` (MILA's unit name -> ours, None if none; None for centres) where ours have a
    fleet on a sea MILA names differently; False for anything but lists in ``recorded`` (to
    be compared exactly)."""
    seen = 0
    for power, names in recorded.items():
        if not names:
            continue
        mine = ours.get(power)
        if not mine or type(names) is not list:
            return False
        if renamed is not None and not _SEA_FLEETS_OURS.isdisjoint(mine):  # MILA must name the sea its way
            if set(map(renamed, names)) != set(mine):
                return False
        elif names != mine and set(names) != set(mine):
            return False
        seen += 1
    return seen == len(ours)  # ours (position_json's) lists none empty


def _position(recorded: Mapping[str, Any], m: Map) -> Position:
    try:
        return Position.from_json(recorded, m)
    except (KeyError, ValueError) as error:
        raise FormatError(f"state {recorded['phase']}: {error}") from None


class _UnknownPower:
    """A phase's orders naming a power the map has not: the error, raised as that phase is played."""

    def __init__(self, power: Any) -> None:
        self.power = power


def _read_orders(
    phases: Sequence[Mapping[str, Any]], m: Map, t: _Tables
) -> list[tuple[dict[str, list[str]], dict[str, list[Order]], list[str]] | _UnknownPower | BaseException]:
    """Every phase's orders but the last's: the texts in détente's names by power as written,
    the orders by power (its token), the texts that are no order. A phase whose orders cannot be
    read ends the list with what went wrong, raised when that phase is played (as it was when
    one loop did everything)."""
    powers = t.powers
    texts_of = t.texts.__getitem__
    order_of = t.orders.__getitem__
    read: list[Any] = []
    for index in range(len(phases) - 1):
        try:
            orders: dict[str, list[str]] = {}
            parsed: dict[str, list[Order]] = {}
            unreadable: list[str] = []
            for power, given in (phases[index].get("orders") or {}).items():
                if not given:
                    continue
                token = powers.get(power)
                if token is None:
                    try:
                        token = powers[power] = m.power(power)
                    except KeyError:
                        read.append(_UnknownPower(power))
                        return read
                try:  # the usual case: every text an order read before
                    texts = list(map(texts_of, given))
                    found = list(map(order_of, given))
                except (KeyError, TypeError):
                    texts, found = read_texts(given, unreadable, m, t)
                orders[power] = texts
                if token in parsed:
                    parsed[token] += found
                else:
                    parsed[token] = found
        except Exception as error:  # noqa: BLE001 - raised again where the phase is played
            read.append(error)
            return read
        read.append((orders, parsed, unreadable))
    return read


def read_texts(given: Any, unreadable: list[str], m: Map, t: _Tables) -> tuple[list[str], list[Order]]:
    """MILA order texts as détente's texts and orders, read with the memo; texts that are no order
    go to ``unreadable``."""
    texts: list[str] = []
    found: list[Order] = []
    for text in given:
        ours = t.texts.get(text)
        if ours is None:
            ours = our_text(text)
            try:
                order: Order | None = parse_order(m, ours)
            except OrderSyntaxError:
                order = None
            if len(t.texts) < 100_000:  # the text last: a thread that finds it finds its order
                if order is None:
                    t.unreadable.add(text)
                else:
                    t.orders[text] = order
                t.texts[text] = ours
        else:
            order = None if text in t.unreadable else t.orders[text]
        texts.append(ours)
        if order is None:
            unreadable.append(ours)
        else:
            found.append(order)
    return texts, found


def play_turn(
    position: Position, orders: Mapping[str, Sequence[Order]]
) -> tuple[Adjudication, Adjudication | None, Position]:
    """A saved game's turn played: its outcome, the outcome of the retreats skipped after it
    (None if none), and the position after both."""
    outcome = adjudicate(position, orders)
    after = outcome.position
    step = None
    if after.phase.kind == RETREATS and not after.completed and not any(d.retreats for d in after.dislodged):
        # nowhere to retreat to: MILA disbands such units at once and skips the phase
        step = adjudicate(after, {})
        after = step.position
    return outcome, step, after


#: phases played ahead of their comparison with the record: in one loop the engine's code and
#: tables stay in the processor's caches, and a phase played otherwise wastes fewer than this
_AHEAD = 32


#: the maps whose name in the ``diplomacy`` package's files is not ours
FILE_MAP_NAMES = {"france_austria": "standard_france_austria"}


def map_of_file(name: object) -> Map:
    """The map a saved game names (``map``: our name, or the ``diplomacy`` package's, e.g.
    ``standard_france_austria``); FormatError in one line for a map not known here.

    >>> map_of_file("standard_france_austria").name
    'france_austria'
    >>> map_of_file("ancmed")
    Traceback (most recent call last):
    ...
    formats.common.FormatError: map 'ancmed': not a map known here (the maps are fleet_rome, france_austria, pure, standard; a map file is added with --map FILE)
    """
    ours = {theirs: mine for mine, theirs in FILE_MAP_NAMES.items()}.get(str(name), str(name))
    if ours not in map_names():
        raise FormatError(
            f"map {str(name)[:40]!r}: not a map known here (the maps are {', '.join(map_names())}; "
            "a map file is added with --map FILE)"
        )
    return variant_map(ours)


def file_map_name(m: Map) -> str:
    """The name a saved game gives the map ``m`` (the ``diplomacy`` package's where it differs)."""
    return FILE_MAP_NAMES.get(m.name, m.name)


def read_saved_game(data: Mapping[str, Any], source: dict[str, Any], m: Map | None = None) -> dict[str, Any]:
    """A MILA-shaped saved game (``phases`` of ``name``, ``state``, ``orders``, ``results``,
    ``messages``) as détente's game document, every phase adjudicated again (see the module)."""
    m = m or map_of_file(data.get("map", "standard"))
    phases = data.get("phases")
    if not isinstance(phases, list) or not phases:
        raise FormatError("no phases")
    for phase in phases:
        if not isinstance(phase, Mapping) or not isinstance(phase.get("state"), Mapping):
            raise FormatError("a phase without a state")
    t = tables_for(m)
    first = position_of_state(phases[0]["state"], m)
    position = start = _position(first, m)
    read = _read_orders(phases, m, t)
    records: list[dict[str, Any]] = []
    index = 0
    while index < len(read):
        # Play the next phases, each from the one before; then write and compare them. A phase
        # whose recorded outcome differs goes on from the recorded state: the phases played
        # after it (at most _AHEAD - 1) are played again from there.
        played = []
        for turn in read[index : index + _AHEAD]:
            if not isinstance(turn, tuple):
                break
            outcome, step, after = play_turn(position, turn[1])
            played.append((outcome, step, after))
            position = after
        for outcome, step, after in played:
            orders, _, unreadable = read[index]  # type: ignore[misc]
            phase = phases[index]
            entry: dict[str, Any] = {"phase": str(outcome.before.phase), "orders": orders}
            recorded_results = phase.get("results")
            if recorded_results:
                results = t.results(recorded_results)
            else:  # dipcc writes none: détente's adjudication gives them
                unit_name = outcome.before.unit_name
                results = {unit_name(u): [str(w) for w in words] for u, words in outcome.results.items()}
                for text in unreadable:
                    results.setdefault(text, ["void"])
                if step is not None and step.results:
                    for u, words in step.results.items():
                        results.setdefault(step.before.unit_name(u), []).extend(str(w) for w in words)
            entry["results"] = results
            wanted_state = phases[index + 1]["state"]
            ours = t.position_json(after)
            if wanted_state.get("name") == "COMPLETED" and not after.completed:
                ours["phase"] = "COMPLETED"  # the game was ended there (a draw agreed, a year limit)
            index += 1
            if (
                ours["phase"] == wanted_state.get("name")
                and not after.dislodged
                and _plainly_same(ours, wanted_state, after.centers, t)
            ) or _their_view(ours) == _recorded_view(wanted_state):
                entry["position"] = ours
                records.append(entry)
                continue
            wanted = position_of_state(wanted_state, m)
            entry["position"] = wanted
            entry["note"] = NOTE
            entry["differences"] = differences(wanted, ours)
            records.append(entry)
            if wanted["phase"] != "COMPLETED":
                position = _position(wanted, m)
            else:
                position = after
            break
        else:
            if index < len(read) and not isinstance(read[index], tuple):  # orders that could not be read
                failed = read[index]
                if isinstance(failed, _UnknownPower):
                    raise FormatError(f"phase {position.phase}: unknown power {failed.power!r}")
                raise failed  # type: ignore[misc]
    return game_document(
        first,
        start,
        list(_rows(records, m)),
        records,
        read_messages(phases, m),
        source,
        data.get("detente"),
        m,
    )


#: a phase played, for the game's summary: its name and year, whether the game is over after
#: it, the year after it, then each power's centres and whether it has units after it
Row = tuple[str, int, bool, int, tuple[int, ...], tuple[bool, ...]]


def _rows(records: Sequence[Mapping[str, Any]], m: Map) -> Iterator[Row]:
    """The summary's rows of détente's phase records (their positions name the powers by their full names)."""
    powers = [m.power_names[p] for p in m.powers]
    nothing = itertools.repeat(())
    for record in records:
        after = record["position"]
        done = after["phase"] == "COMPLETED"
        units = after.get("units", {})
        yield (
            record["phase"],
            int(record["phase"][1:5]),
            done,
            0 if done else int(after["phase"][1:5]),
            tuple(map(len, map(after.get("centers", {}).get, powers, nothing))),
            tuple(map(bool, map(units.get, powers))),
        )


def game_document(
    first: dict[str, Any],
    start: Position,
    rows: Sequence[Row],
    phases: Any,
    messages: list[dict[str, Any]],
    source: dict[str, Any],
    kept: Any,
    m: Map,
) -> dict[str, Any]:
    """Détente's game document of a saved game read: ``first`` the recorded first state (as
    position JSON) and ``start`` its position, ``rows`` the summary's rows of the phases played,
    ``phases`` their records, ``kept`` what détente wrote beside MILA's keys (see mila.dump)."""
    document: dict[str, Any] = {}
    if start != _initial_position(m):
        document["start"] = first
    document.update(_summary(rows, first, m))
    document["phases"] = phases
    document["messages"] = messages
    document["events"] = []
    document["source"] = source
    if isinstance(kept, Mapping):
        for key in ("seed", "settings", "bots", "outcome", "winner", "events"):
            if key in kept:
                document[key] = kept[key]
    return document


def _summary(rows: Sequence[Row], first: Mapping[str, Any], m: Map) -> dict[str, Any]:
    """The game-level fields of a game document, from its phases' rows (the first state if none)."""
    centres: dict[str, dict[str, int]] = {}
    eliminated: dict[str, str] = {}
    powers = [m.power_names[p] for p in m.powers]  # the document's keys: the full names
    if rows:
        final_done, final_counts = rows[-1][2], rows[-1][4]
    else:
        final_done = first["phase"] == "COMPLETED"
        final_counts = tuple(len(first.get("centers", {}).get(p, ())) for p in powers)
    for phase, year, done, after_year, counts, units in rows:
        if done or after_year > year:
            centres[str(year)] = dict(zip(powers, counts))
        if not all(units):  # a power without units: eliminated, unless it has centres
            for p, has, n in zip(powers, units, counts):
                if p not in eliminated and not has and not n:
                    eliminated[p] = phase
    last_year = rows[-1][1] if rows else (None if final_done else int(first["phase"][1:5]))
    final_centres = dict(zip(powers, final_counts))
    winner = next((p for p, n in final_centres.items() if n >= m.victory_centers), None)
    if winner is not None:
        outcome = "solo"
    else:
        outcome = "draw" if final_done else "unfinished"
    return {
        "seed": None,
        "settings": {},
        "bots": {},
        "outcome": outcome,
        "winner": winner,
        "last_year": last_year if last_year is not None else m.first_year,
        "final_centres": final_centres,
        "centres": centres,
        "eliminated": eliminated,
    }
