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

import functools
import json
from typing import Any

from pydantic import BaseModel, ValidationError

from engine.game import adjudicate, parse_orders
from engine.maps import ARMY, FLEET, LAND, SEA, UNIT_LETTERS, Map, standard_map
from engine.orders import Order, OrderSyntaxError, parse_order
from engine.position import Position
from formats.jsonio import dumps


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
                why = f"is occupied by {position.unit_name(occupant)} ({occupant.power})"
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
    """What ``detente adjudicate`` prints: the answer to ``data`` as JSON text, and the errors.

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
    if indent is not None:
        answer, errors = answer_cases(data, m)
        return answer_text(answer, indent), errors
    m = m or standard_map()
    cases = data if isinstance(data, list) else [data]
    answers: list[Any] = []
    errors: list[dict[str, Any]] = []
    for index, case in enumerate(cases):
        try:
            answers.append(_case_answer(case, m))
        except StartError as error:
            answers.append(None)
            errors.extend(_start_errors(index, case, error))
    return dumps(answers) + "\n", errors


class _Tables:
    """A map's names by location, and a memo of the orders read on it (None: no order)."""

    def __init__(self, m: Map) -> None:
        count = len(m.locations)
        #: unit type -> location -> the unit's name (a dict: no location -1 in it)
        self.units = [{loc: f"{letter} {m.name_of(loc)}" for loc in range(count)} for letter in UNIT_LETTERS]
        self.places = list(m.locations)
        self.centres = [p for p in range(count) if m.is_supply_center[p]]
        self.orders: dict[str, Order | None] = {}
        #: a power as a case names it -> its full name
        self.powers: dict[str, str] = {}
        #: the texts in ``orders`` that are orders
        self.readable: set[str] = set()
        self.last_centers: tuple[str | None, ...] | None = None
        self.last_centers_json: dict[str, list[str]] = {}


@functools.lru_cache(maxsize=8)
def _tables(m: Map) -> _Tables:
    return _Tables(m)


class _Unusual(Exception):
    """A case the compact path leaves to :func:`run_case` (a shape it does not check itself)."""


def _case_answer(case: Any, m: Map) -> list[Any]:
    """One case's answer, ready for a compact dump (see :func:`adjudicate_text`)."""
    try:
        return _played(case, m)
    except _Unusual:
        return run_case(case, m)


def _played(case: Any, m: Map) -> list[dict[str, Any]]:
    if type(case) is not dict or type(case.get("turns", [])) is not list:
        raise _Unusual
    try:
        start = Start.model_validate(case["start"])
    except (KeyError, ValidationError):
        raise _Unusual from None
    position = _start_position(start, m)
    t = _tables(m)
    memo = t.orders
    powers = t.powers
    readable = t.readable
    read_before = memo.__getitem__
    power_of = m.power
    pieces = []
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
            full = powers.get(power)
            if full is None:
                try:
                    full = powers[power] = power_of(power)
                except KeyError as error:
                    raise CaseError(f"turns.{number}.orders: unknown power {error}") from None
                except TypeError:
                    raise _Unusual from None
            bucket = orders.setdefault(full, [])
            try:
                if readable.issuperset(texts):  # the usual case: every text an order read before
                    bucket.extend(map(read_before, texts))
                    continue
            except TypeError:  # unhashable: no string
                raise _Unusual from None
            for text in texts:
                order = memo.get(text, _NOT_READ)
                if order is _NOT_READ:
                    if type(text) is not str:
                        raise _Unusual
                    try:
                        order = parse_order(m, text)
                    except OrderSyntaxError:
                        order = None
                    if len(memo) < 100_000:
                        memo[text] = order
                        if order is not None:
                            readable.add(text)
                if order is None:
                    unreadable.append(text)
                else:
                    bucket.append(order)
        outcome = adjudicate(position, orders)
        position = outcome.position
        pieces.append(_entry(outcome.before, position, outcome.results, unreadable, t))
    return pieces


_NOT_READ: Any = object()


def _entry(
    before: Position, after: Position, results: dict[Any, tuple[str, ...]], unreadable: list[str], t: _Tables
) -> dict[str, Any]:
    """``after.to_json()`` with ``results`` (named on ``before``), for a compact dump only: the
    names come from the map's tables, the result words stay tuples, and entries share the
    centres' dictionary while no centre changes hands."""
    names = t.units
    units: dict[str, list[str]] = {}
    for u in after.units:
        try:
            units[u.power].append(names[u.type][u.location])
        except KeyError:
            units[u.power] = [names[u.type][u.location]]
    owners = after.centers
    if owners is t.last_centers:  # the adjudicator hands the same tuple on when no centre changed hands
        centers = t.last_centers_json
    else:
        centers = {}
        places = t.places
        for p in t.centres:
            owner = owners[p]
            if owner is not None:
                centers.setdefault(owner, []).append(places[p])
        t.last_centers, t.last_centers_json = owners, centers
    dislodged = {
        names[d.unit.type][d.unit.location]: {
            "power": d.unit.power,
            "retreats": sorted(after.map.locations[r] for r in d.retreats),
        }
        for d in after.dislodged
    }
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
        "dislodged": dislodged,
        "results": said,
    }


def _unit_key(before: Position, unit: Any, t: _Tables) -> str:
    if unit.type in (ARMY, FLEET) and unit.location in t.units[unit.type]:
        return t.units[unit.type][unit.location]
    return before.unit_name(unit)
