"""The adjudication-case JSON interface (``shared/spec/adjudication-case.md``).

The shape of a case is checked with pydantic at this edge; what is inside (phases,
units, orders) is the engine's to judge, and a bad order is void, never an error.

>>> case = {"start": {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "centers": {}},
...         "turns": [{"orders": {"FRANCE": ["A PAR - BUR"]}}]}
>>> run_case(case)[0]["units"]
{'FRANCE': ['A BUR']}
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from engine.game import adjudicate, parse_orders
from engine.maps import Map, standard_map
from engine.position import Position


class CaseError(ValueError):
    """A case that is not of the documented shape (as opposed to a bad order in it)."""


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


def run_case(case: Any, m: Map | None = None) -> list[dict[str, Any]]:
    """Play a case's turns; the position after each turn, with its ``results``."""
    m = m or standard_map()
    checked = _read(case)
    start = checked.start
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


def run_cases(data: Any, m: Map | None = None) -> list[list[dict[str, Any]]]:
    """One case or a list of cases, as ``detente adjudicate`` reads them."""
    cases = data if isinstance(data, list) else [data]
    return [run_case(case, m) for case in cases]
