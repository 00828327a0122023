"""The adjudication-case JSON interface (``docs/adjudication-case.md``).

The shape of a case is checked with pydantic at this edge; what is inside (phases,
units, orders) is the engine's to judge, and a bad order is void, never an error.
The start position is checked too: a retreat option of a dislodged unit that the unit
could never take (not adjacent, not reachable by its type, occupied) is a
:class:`StartError`, since no movement phase could have produced it.

>>> case = {"start": {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "centers": {}},
...         "turns": [{"orders": {"FRANCE": ["A PAR - BUR"]}}]}
>>> run_case(case)[0]["units"]
{'FRANCE': ['A BUR']}
"""

from __future__ import annotations

import contextlib
import functools
import json
from typing import Any

from pydantic import BaseModel, ValidationError

from engine import _native
from engine.batch import play_case, play_case_called, play_texts
from engine.game import adjudicate, parse_orders
from engine.maps import ARMY, FLEET, LAND, SEA, Map, standard_map
from engine.orders import Order, OrderSyntaxError, parse_order
from engine.position import Dislodged, Phase, Position, Unit
from formats.jsonio import dump_bytes
from formats.names import MapNames


class CaseError(ValueError):
    """A case that is not of the documented shape (as opposed to a bad order in it)."""


class StartError(CaseError):
    """A start position with retreat options its dislodged units could not take.

    ``problems`` holds ``(unit, message)`` for each bad option, the unit named as in the
    answers (``"F TRI"``); ``str()`` of the error joins the messages with ``"; "``.
    """

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(message for _, message in problems))
        self.problems = problems


class DislodgedUnit(BaseModel):
    power: str
    retreats: list[str] = []


class Start(BaseModel):
    phase: str
    units: dict[str, list[str]] = {}
    centers: dict[str, list[str]] = {}
    dislodged: dict[str, DislodgedUnit] = {}


class Turn(BaseModel):
    orders: dict[str, list[str]] = {}


class Case(BaseModel):
    """One case; other keys (``name``, ``expect``, notes) are allowed and ignored."""

    name: str | None = None
    start: Start
    turns: list[Turn] = []


def _read(case: Any) -> Case:
    try:
        return Case.model_validate(case)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "case"
        raise CaseError(f"{where}: {first['msg']}") from None


def _start_position(start: Start, m: Map) -> Position:
    """A case's start as a position: :class:`CaseError` if it names what the map has not,
    :class:`StartError` if a dislodged unit is offered a retreat it could not take."""
    try:
        position = Position.build(
            start.phase,
            start.units,
            start.centers,
            {name: (d.power, d.retreats) for name, d in start.dislodged.items()},
            m,
        )
    except (KeyError, ValueError) as error:
        raise CaseError(f"start: {error}") from None
    problems = retreat_problems(position, {name: d.retreats for name, d in start.dislodged.items()})
    if problems:
        raise StartError(problems)
    return position


def run_case(case: Any, m: Map | None = None) -> list[dict[str, Any]]:
    """Play a case's turns; the position after each turn, with its ``results``."""
    m = m or standard_map()
    checked = _read(case)
    position = _start_position(checked.start, m)
    answer = []
    for number, turn in enumerate(checked.turns):
        try:
            orders, unreadable = parse_orders(m, turn.orders)
        except KeyError as error:
            raise CaseError(f"turns.{number}.orders: unknown power {error}") from None
        outcome = adjudicate(position, orders)
        entry = outcome.position.to_json()
        results = {outcome.before.unit_name(u): list(words) for u, words in outcome.results.items()}
        for text in unreadable:
            results.setdefault(text, ["void"])
        entry["results"] = results
        answer.append(entry)
        position = outcome.position
    return answer


def retreat_problems(position: Position, written: dict[str, list[str]]) -> list[tuple[str, str]]:
    """``(unit, message)`` for each retreat option of a dislodged unit that it could not take.

    ``written`` maps each dislodged unit, as the case names it, to its retreat options as
    written; ``position.dislodged`` holds the same units in the same order. An option is
    wrong when its province is not adjacent to the unit's, when the unit's type cannot go
    there (an army to a sea or onto a coast, a fleet inland or to a coast it cannot reach
    from where it stands, or to a two-coast province without naming the coast), or when
    a unit of the position stands there.

    >>> start = Position.build("F1901R", {"ITALY": ["F TRI"]}, {}, {"A TRI": ("AUSTRIA", ["VIE", "ADR", "GAL"])})
    >>> retreat_problems(start, {"A TRI": ["VIE", "ADR", "GAL"]})  # doctest: +NORMALIZE_WHITESPACE
    [('A TRI', 'dislodged A TRI: retreat option ADR is a sea: an army cannot go there'),
     ('A TRI', 'dislodged A TRI: retreat option GAL is not adjacent to TRI')]
    """
    m = position.map
    province_of = m.province_of
    problems = []
    for dislodged, options in zip(position.dislodged, written.values(), strict=True):
        unit = dislodged.unit
        name = position.unit_name(unit)
        here = province_of[unit.location]
        for option in options:
            target = m.location(option)  # Position.build has read it already
            there = province_of[target]
            shown = m.name_of(target)
            if m.distances[here][there] != 1:
                why = f"is not adjacent to {m.name_of(here)}"
            elif unit.type == ARMY and m.kind[there] == SEA:
                why = "is a sea: an army cannot go there"
            elif unit.type == ARMY and target != there:
                why = f"is a coast: an army retreats to the province ({m.name_of(there)})"
            elif unit.type == ARMY and there not in m.army_moves[here]:
                why = f"cannot be reached by an army from {m.name_of(here)}"
            elif unit.type != ARMY and m.kind[there] == LAND:
                why = "is inland: a fleet cannot go there"
            elif unit.type != ARMY and target == there and reachable_coasts(m, unit.location, there):
                why = f"names no coast: a fleet goes to {' or '.join(reachable_coasts(m, unit.location, there))}"
            elif unit.type != ARMY and target not in m.fleet_moves[unit.location]:
                why = f"cannot be reached by a fleet on {m.name_of(unit.location)}"
            elif there in position.unit_at:
                occupant = position.unit_at[there]
                why = f"is occupied by {position.unit_name(occupant)} ({m.power_names[occupant.power]})"
            else:
                continue
            problems.append((name, f"dislodged {name}: retreat option {shown} {why}"))
    return problems


def reachable_coasts(m: Map, location: int, province: int) -> list[str]:
    """The coasts of a two-coast ``province`` a fleet at ``location`` can move to, by name."""
    return sorted(m.name_of(c) for c in m.coasts[province] if c in m.fleet_moves[location])


def answer_cases(data: Any, m: Map | None = None) -> tuple[list[list[dict[str, Any]] | None], list[dict[str, Any]]]:
    """One case or a list of cases, answering every case whose start position holds.

    A case whose start position fails :func:`retreat_problems` gets ``None`` in the
    answers, and one error per bad retreat option: ``{"error": message, "case": index,
    "unit": unit}`` (``name`` too when the case has one), the message naming the case
    (``case 1 (its name): dislodged F TRI: retreat option ...``). A case of the wrong
    shape still raises :class:`CaseError`, for the whole file.
    """
    cases = data if isinstance(data, list) else [data]
    answers: list[list[dict[str, Any]] | None] = []
    errors: list[dict[str, Any]] = []
    for index, case in enumerate(cases):
        try:
            answers.append(run_case(case, m))
        except StartError as error:
            answers.append(None)
            errors.extend(_start_errors(index, case, error))
    return answers, errors


def _start_errors(index: int, case: Any, error: StartError) -> list[dict[str, Any]]:
    """The errors of a case whose start fails :func:`retreat_problems`, one per bad retreat option."""
    name = case.get("name") if isinstance(case, dict) else None
    label = f"case {index}" + (f" ({name})" if name else "")
    return [
        {"error": f"{label}: {message}", "case": index, **({"name": name} if name else {}), "unit": unit}
        for unit, message in error.problems
    ]


def answer_text(answer: Any, indent: int | None = None) -> str:
    """An answer (:func:`answer_cases`'s) as JSON text and a newline: compact unless ``indent``.

    >>> answer_text([[{"phase": "F1901M"}]])
    '[[{"phase":"F1901M"}]]\\n'
    """
    if indent is None:
        return json.dumps(answer, separators=(",", ":"), ensure_ascii=False) + "\n"
    return json.dumps(answer, indent=indent, ensure_ascii=False) + "\n"


def adjudicate_text(data: Any, indent: int | None = None, m: Map | None = None) -> tuple[str, list[dict[str, Any]]]:
    """What ``detente adjudicate`` prints: the answer to ``data`` as JSON text, and the errors
    (:func:`adjudicate_json`'s answer as a ``str``).

    The same answer and errors as :func:`answer_cases`. Compact (the default), the text is
    written straight from each position, with the names' JSON made once per map: building
    dictionaries to dump them took as long as playing the cases (an indented dump, through
    the standard library's pure-Python encoder, took longer still).

    >>> case = {"start": {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "centers": {}},
    ...         "turns": [{"orders": {"FRANCE": ["A PAR - BUR", "A XYZ H"]}}]}
    >>> print(adjudicate_text(case)[0], end="")
    [[{"phase":"F1901M","units":{"FRANCE":["A BUR"]},"centers":{},"dislodged":{},"results":{"A PAR":["ok"],"A XYZ H":["void"]}}]]
    >>> json.loads(adjudicate_text(case)[0]) == answer_cases(case)[0]
    True
    """
    text, errors = adjudicate_json(data, indent, m)
    return text.decode("utf-8"), errors


def adjudicate_json(data: Any, indent: int | None = None, m: Map | None = None) -> tuple[bytes, list[dict[str, Any]]]:
    """:func:`adjudicate_text`'s answer as UTF-8 bytes, made without a ``str`` in between.

    >>> adjudicate_json({"start": {"phase": "S1901M", "units": {}}, "turns": []})
    (b'[[]]\\n', [])
    """
    if indent is not None:
        answer, errors = answer_cases(data, m)
        return answer_text(answer, indent).encode("utf-8"), errors
    m = m or standard_map()
    t = _tables(m)
    cases = data if isinstance(data, list) else [data]
    # First every case's start and orders, while the file just read is in the processor's
    # caches; then each case played, its answer written as soon as it is played (while it is
    # in the caches, and freed then, not read back from memory at the end). What goes wrong
    # in a case is raised as that case is answered, after the cases before it. With the
    # compiled core a case is read, played and written in C from its texts once they were all
    # read before (the memos of ``t``), else its orders are read here and it is played in C.
    core = _native.core_for(m)
    pure_writer = core is None and _native.compiled_tables(m) is not None
    prepared: list[Any] = []
    for case in cases:
        try:  # with the compiled core, the orders are read as the case is played (in C)
            prepared.append((_start_of(case, m, t), None) if core is not None else _prepared(case, m, t))
        except _Unusual:
            prepared.append(None)
        except StartError as error:
            prepared.append(error)
        except Exception as error:  # noqa: BLE001 - raised again in its turn
            prepared.append(_Failed(error))
            break
    answers: list[bytes] = []
    errors: list[dict[str, Any]] = []
    for index, (case, ready) in enumerate(zip(cases, prepared, strict=False)):
        try:
            if type(ready) is tuple:
                played = None
                if core is not None:
                    played = _played_texts(ready[0], case, t)
                    if played is None:  # orders not all read before, or an odd shape
                        try:
                            ready = (ready[0], _read_turns(case, m, t))
                        except _Unusual:
                            answers.append(dump_bytes(run_case(case, m)))
                            continue
                        t.learn(core)
                        played = _played_in_c(*ready)
                elif pure_writer:  # the pure-Python engine plays, the compiled module writes
                    played = _played_in_c(*ready, adjudicate)
                answers.append(played if played is not None else dump_bytes(_played(*ready, t)))
            elif ready is None:
                answers.append(dump_bytes(run_case(case, m)))
            elif isinstance(ready, _Failed):
                raise ready.error
            else:
                raise ready
        except StartError as error:
            answers.append(b"null")
            errors.extend(_start_errors(index, case, error))
    return b"[" + b",".join(answers) + b"]\n", errors


class _Tables(MapNames):
    """A map's names by location, and a memo of the orders read on it (None: no order)."""

    def __init__(self, m: Map) -> None:
        super().__init__(m)
        self.orders: dict[str, Order | None] = {}
        #: a power as a case names it (by its full name, as the answers do, or its token) -> its token
        self.powers: dict[str, str] = {}
        #: the texts in ``orders`` that are orders, and their orders: read with one lookup each
        self.readable: dict[str, Order] = {}
        #: for start positions, the names as :meth:`Position.to_json` writes them: unit -> (type,
        #: location, province), supply centre -> province, location -> location, phase -> phase
        self.unit_of: dict[str, tuple[int, int, int]] = {}
        for unit in self.standing():
            name = self.units[unit.type][unit.location]
            self.unit_of[name] = (unit.type, unit.location, m.province_of[unit.location])
        self.centre_of = {m.locations[p]: p for p in self.centres}
        self.location_of = {name: m.location(name) for name in m.locations}
        self.phases = {
            str(phase): phase
            for year in range(m.first_year, m.first_year + 200)
            for phase in (
                Phase(year, season, kind)
                for season, kind in (("S", "M"), ("S", "R"), ("F", "M"), ("F", "R"), ("W", "A"))
            )
        }
        #: for the compiled core, what ``orders`` and ``powers`` hold: a text -> its order's
        #: record (``engine.batch.play_texts``) or, if it is no order, its JSON; a power as
        #: written -> its index (grown by :meth:`learn`)
        self.records: dict[str, bytes] = {}
        self.void_json: dict[str, bytes] = {}
        self.power_index: dict[str, int] = {}
        #: the texts put in ``orders`` since the last :meth:`learn`
        self.unlearned: list[str] = []
        self._index_of = {power: i for i, power in enumerate(m.powers)}

    def learn(self, core: Any) -> None:
        """Add the texts and powers read since the last call to the compiled core's memos."""
        first = self.map.powers[0]
        texts, self.unlearned = self.unlearned, []
        for text in texts:
            order = self.orders[text]
            if order is None:
                with contextlib.suppress(Exception):  # a text JSON cannot hold stays out: read each time
                    self.void_json[text] = dump_bytes(text)
            else:
                record = core.encode_orders({first: [order]})
                if record is not None and len(record) == 16:
                    self.records[text] = record
        for name, token in list(self.powers.items()):
            self.power_index[name] = self._index_of[token]

    def power_of(self, name: Any) -> str | None:
        """The power ``name`` names (its token), None if none (remembered)."""
        token = self.powers.get(name) if type(name) is str else None
        if token is None and type(name) is str:
            try:
                token = self.powers[name] = self.map.power(name)
            except KeyError:
                return None
        return token


@functools.lru_cache(maxsize=8)
def _tables(m: Map) -> _Tables:
    return _Tables(m)


def _by_power(groups: dict[Any, Any], power_of: Any, lookup: Any) -> list[tuple[str, Any]] | None:
    """``{power: [name, ...]}`` read as (the power's token, ``lookup(name)``) pairs, in order; None
    where a power or a name is not one the tables know, or a group is not a list."""
    found = []
    for power, names in groups.items():
        token = power_of(power)
        if token is None or type(names) is not list:
            return None
        for name in names:
            value = lookup(name) if type(name) is str else None
            if value is None:
                return None
            found.append((token, value))
    return found


def _plain_start(start: Any, m: Map, t: _Tables) -> Position | None:
    """The start position, built straight from the tables when every name in it is written as
    :meth:`Position.to_json` writes it; None when anything is not (:func:`_start_position`
    then builds it, with its checks and their messages).

    >>> start = {"phase": "S1901M", "units": {"FRANCE": ["A PAR", "F BRE"]}, "centers": {"FRANCE": ["PAR"]}}
    >>> m = standard_map()
    >>> _plain_start(start, m, _tables(m)) == Position.build("S1901M", start["units"], start["centers"])
    True
    >>> _plain_start(dict(start, units={"FRANCE": ["a par"]}), m, _tables(m)) is None
    True
    """
    if type(start) is not dict or not start.keys() <= _START_KEYS:
        return None
    phase_name = start.get("phase")
    phase = t.phases.get(phase_name) if type(phase_name) is str else None
    units_of = start.get("units", {})
    centers_of = start.get("centers", {})
    dislodged_of = start.get("dislodged", {})
    if phase is None or type(units_of) is not dict or type(centers_of) is not dict or type(dislodged_of) is not dict:
        return None
    power_of = t.power_of
    unit_of = t.unit_of.get
    standing = _by_power(units_of, power_of, unit_of)
    owned = _by_power(centers_of, power_of, t.centre_of.get)
    if standing is None or owned is None:
        return None
    placed = []
    seen: set[int] = set()
    for power, known in standing:
        if known[2] in seen:
            return None
        seen.add(known[2])
        placed.append(Unit(power, known[0], known[1]))
    owners: list[str | None] = [None] * len(m.locations)
    for power, province in owned:
        owners[province] = power
    gone = []
    written: dict[str, list[str]] = {}
    location_of = t.location_of.get
    for name, d in dislodged_of.items():
        if type(d) is not dict or not d.keys() <= _DISLODGED_KEYS:
            return None
        whose = power_of(d.get("power"))
        known = unit_of(name)
        retreats = d.get("retreats", [])
        if whose is None or known is None or type(retreats) is not list:
            return None
        places = [location_of(r) if type(r) is str else None for r in retreats]
        if None in places:
            return None
        gone.append(Dislodged(Unit(whose, known[0], known[1]), frozenset(places)))  # type: ignore[arg-type]
        written[name] = retreats
    position = Position(m, phase, tuple(placed), tuple(owners), tuple(gone))
    if written:
        problems = retreat_problems(position, written)
        if problems:
            raise StartError(problems)
    return position


_START_KEYS = frozenset(("phase", "units", "centers", "dislodged"))
_DISLODGED_KEYS = frozenset(("power", "retreats"))


class _Unusual(Exception):
    """A case the compact path leaves to :func:`run_case` (a shape it does not check itself)."""


class _Failed:
    """What went wrong reading a case, raised again when that case is answered."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _prepared(case: Any, m: Map, t: _Tables) -> tuple[Position, list[tuple[dict[str, list[Order]], list[str]]]]:
    """A case's start position, and each turn's orders with the texts that are no order;
    :class:`_Unusual` for a case of a shape left to :func:`run_case`."""
    return _start_of(case, m, t), _read_turns(case, m, t)


def _start_of(case: Any, m: Map, t: _Tables) -> Position:
    """A case's start position (:class:`_Unusual` for a shape left to :func:`run_case`)."""
    if type(case) is not dict or type(case.get("turns", [])) is not list:
        raise _Unusual
    position = _plain_start(case.get("start"), m, t)
    if position is None:  # anything but names written as answers write them: checked, and worded, by pydantic
        try:
            start = Start.model_validate(case["start"])
        except (KeyError, ValidationError):
            raise _Unusual from None
        position = _start_position(start, m)
    return position


def _read_turns(case: dict[str, Any], m: Map, t: _Tables) -> list[tuple[dict[str, list[Order]], list[str]]]:
    """Each turn's orders, and the texts that are no order (:class:`_Unusual`: an odd shape)."""
    powers = t.powers
    read_before = t.readable.__getitem__
    power_of = m.power
    turns = []
    for number, turn in enumerate(case.get("turns", [])):
        if type(turn) is not dict:
            raise _Unusual
        given = turn.get("orders", {})
        if type(given) is not dict:
            raise _Unusual
        orders: dict[str, list[Order]] = {}
        unreadable: list[str] = []
        for power, texts in given.items():
            if type(texts) is not list:
                raise _Unusual
            token = powers.get(power)
            if token is None:
                try:
                    token = powers[power] = power_of(power)
                except KeyError as error:
                    raise CaseError(f"turns.{number}.orders: unknown power {error}") from None
                except TypeError:
                    raise _Unusual from None
            try:  # the usual case: every text an order read before
                parsed = list(map(read_before, texts))
            except (KeyError, TypeError):  # a text not read yet, no order, or no string
                parsed = _read_orders(texts, unreadable, m, t)
            if token in orders:  # the same power spelt twice
                orders[token] += parsed
            else:
                orders[token] = parsed
        turns.append((orders, unreadable))
    return turns


def _played(
    position: Position, turns: list[tuple[dict[str, list[Order]], list[str]]], t: _Tables
) -> list[dict[str, Any]]:
    """A prepared case played: the engine over every turn, then the answers of every turn (a
    loop each: each loop's code and tables stay in the processor's caches)."""
    outcomes = []
    for orders, _ in turns:
        outcome = adjudicate(position, orders)
        outcomes.append(outcome)
        position = outcome.position
    return [_entry(o.before, o.position, o.results, u, t) for o, (_, u) in zip(outcomes, turns, strict=True)]


def _played_in_c(
    position: Position, turns: list[tuple[dict[str, list[Order]], list[str]]], play: Any = None
) -> bytes | None:
    """A prepared case's answer written by the compiled module (the same bytes as
    ``dump_bytes(_played(...))``): played by the compiled core, or by ``play`` (the pure-Python
    engine's ``adjudicate``) where given; None where the module declines it."""
    try:
        voids = [[dump_bytes(text) for text in unreadable] if unreadable else _NO_TEXTS for _, unreadable in turns]
    except Exception:  # noqa: BLE001 - a text JSON cannot hold: the Python path raises it
        return None
    orders = [orders for orders, _ in turns]
    if play is None:
        return play_case(position, orders, voids, dump_bytes)
    return play_case_called(position, orders, voids, dump_bytes, play)


_NO_TEXTS: list[bytes] = []


def _played_texts(position: Position, case: dict[str, Any], t: _Tables) -> bytes | None:
    """A case's answer, its orders read in C from the texts read before (the same bytes as
    ``_played_in_c``); None where a text or a power was not read before, or the core declines."""
    return play_texts(position, case.get("turns", []), t.power_index, t.records, t.void_json, dump_bytes)


def _read_orders(texts: list[Any], unreadable: list[str], m: Map, t: _Tables) -> list[Order]:
    """The orders among ``texts``, read with the memo; the texts that are no order go to ``unreadable``."""
    memo = t.orders
    parsed = []
    for text in texts:
        order = memo.get(text, _NOT_READ) if type(text) is str else _NOT_READ
        if order is _NOT_READ:
            if type(text) is not str:
                raise _Unusual
            try:
                order = parse_order(m, text)
            except OrderSyntaxError:
                order = None
            if len(memo) < 100_000:
                memo[text] = order
                t.unlearned.append(text)
                if order is not None:
                    t.readable[text] = order
        if order is None:
            unreadable.append(text)
        else:
            parsed.append(order)
    return parsed


_NOT_READ: Any = object()


def _entry(
    before: Position, after: Position, results: dict[Any, tuple[str, ...]], unreadable: list[str], t: _Tables
) -> dict[str, Any]:
    """``after.to_json()`` with ``results`` (named on ``before``), for a compact dump only: the
    names come from the map's tables, the result words stay tuples, and entries share the
    centres' dictionary while no centre changes hands."""
    names = t.units
    units = t.units_json(after)
    centers = t.centres_json(after)
    try:
        said = {names[u.type][u.location]: words for u, words in results.items()}
    except (KeyError, IndexError, TypeError):  # a unit off the map
        said = {_unit_key(before, u, t): words for u, words in results.items()}
    for text in unreadable:
        said.setdefault(text, ("void",))
    return {
        "phase": "COMPLETED" if after.completed else str(after.phase),
        "units": units,
        "centers": centers,
        "dislodged": t.dislodged_json(after),
        "results": said,
    }


def _unit_key(before: Position, unit: Any, t: _Tables) -> str:
    if unit.type in (ARMY, FLEET) and unit.location in t.units[unit.type]:
        return t.units[unit.type][unit.location]
    return before.unit_name(unit)
