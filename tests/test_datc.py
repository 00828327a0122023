"""Every test case of DATC v3.0 section 6 (6.A to 6.J), with the outcome the DATC prefers.

The cases live in ``tests/datc/data`` in the adjudication-case format. Each has an
``expect`` list with one entry per turn stating the WHOLE position after that turn,
and every field of it is asserted:

``units``
    the units on the board, by power;
``dislodged``
    the units dislodged in the turn that wait to retreat: unit -> ``{"power": owner,
    "retreats": [places it may retreat to]}`` (empty after a retreat or adjustment turn);
``disbanded``
    the units that left the board in the turn other than by moving or retreating:
    dislodged with nowhere to retreat to (movement), failing to retreat or not
    ordered to (retreat), removed by order or civil disorder (adjustments);
``centers``
    every power's supply centres after the turn;
``phase``
    the phase that comes next (``S1901R``, ``F1901M``, ``S1902M``, ...);
``results`` (where given)
    the result words of some orders.

Values are written from the DATC text (DATC v3.0, the Diplomacy Adjudicator Test Cases), never
from this engine's output. Where the DATC does not state a value, it is *derived*
and the field is named in the entry's ``derived`` list: ``retreats`` (the retreat
options inside ``dislodged``), ``disbanded``, ``units``, ``centers`` or ``phase``. A
derived value was computed by ``tests/datc/derive.py`` from the rules and the map
alone (adjacency, the provinces occupied after the turn as the DATC gives them, the
attacker's origin, standoffs, the phase sequence, centres changing hands only after
the fall): it does not import the engine. ``test_derived_values_follow_from_the_rules``
re-runs that derivation so that the data and the rules cannot drift apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from detente.cases import run_case
from engine import _native
from tests.datc import derive

DATA = Path(__file__).parent / "datc" / "data"
CASES = [case for path in sorted(DATA.glob("*.json")) for case in json.loads(path.read_text())]
FIELDS = ("units", "dislodged", "disbanded", "centers", "phase")
DERIVABLE = {"units", "retreats", "disbanded", "centers", "phase"}

# case name -> why this engine disagrees with the DATC (strict: the test must fail)
DISAGREEMENTS: dict[str, str] = {}


def _by_power(units: dict[str, list[str]]) -> dict[str, list[str]]:
    return {power: sorted(names) for power, names in units.items() if names}


def _dislodged(dislodged: dict[str, dict]) -> dict[str, dict]:
    return {unit: {"power": d["power"], "retreats": sorted(d["retreats"])} for unit, d in dislodged.items()}


def _disbanded(phase: str, before: dict, after: dict) -> list[str]:
    """The units the engine took off the board in a turn played in ``phase``."""
    results = after["results"]
    if phase.endswith("M"):  # dislodged in the turn and not waiting to retreat
        return sorted(u for u, words in results.items() if "dislodged" in words and u not in after["dislodged"])
    if phase.endswith("R"):
        return sorted(u for u in before["dislodged"] if "disband" in results.get(u, []))
    had = {(p, u) for p, names in before["units"].items() for u in names}
    now = {(p, u) for p, names in after["units"].items() for u in names}
    return sorted(u for _, u in had - now)


def _count(units: dict[str, list[str]]) -> int:
    return sum(len(names) for names in units.values())


def test_every_section_6_case_is_here() -> None:
    numbers = {case["name"].split()[0] for case in CASES}
    expected_counts = {"A": 12, "B": 15, "C": 9, "D": 34, "E": 15, "F": 25, "G": 20, "H": 16, "I": 7, "J": 11}
    for section, count in expected_counts.items():
        assert {f"6.{section}.{i}" for i in range(1, count + 1)} <= numbers, section


def test_every_turn_states_the_whole_position() -> None:
    for case in CASES:
        assert len(case["expect"]) == len(case["turns"]), case["name"]
        for turn, want in enumerate(case["expect"], 1):
            where = f"{case['name']}, turn {turn}"
            assert set(FIELDS) <= set(want), f"{where}: missing {set(FIELDS) - set(want)}"
            assert set(want.get("derived", [])) <= DERIVABLE, where


def test_derived_values_follow_from_the_rules() -> None:
    assert derive.check(CASES) == []


def _params() -> list:
    return [
        pytest.param(case, id=case["name"], marks=[pytest.mark.xfail(strict=True, reason=DISAGREEMENTS[case["name"]])])
        if case["name"] in DISAGREEMENTS
        else pytest.param(case, id=case["name"])
        for case in CASES
    ]


# Every case under both cores: the compiled one (where it is built) and the pure-Python reference.
CORES = [
    pytest.param(False, id="compiled", marks=pytest.mark.skipif(not _native.compiled_available(), reason="not built")),
    pytest.param(True, id="pure"),
]


@pytest.mark.parametrize("pure", CORES)
@pytest.mark.parametrize("case", _params())
def test_datc(case: dict, pure: bool) -> None:
    with _native.pure_python(pure):
        positions = run_case(case)
    assert len(positions) == len(case["expect"])
    before = {"units": case["start"]["units"], "dislodged": case["start"].get("dislodged", {})}
    phase = case["start"]["phase"]
    for turn, (got, want) in enumerate(zip(positions, case["expect"], strict=True), 1):
        where = f"turn {turn} ({phase})"
        assert _by_power(got["units"]) == _by_power(want["units"]), f"{where}: units"
        assert _dislodged(got["dislodged"]) == _dislodged(want["dislodged"]), f"{where}: dislodged"
        assert _disbanded(phase, before, got) == sorted(want["disbanded"]), f"{where}: disbanded"
        if phase.endswith("R"):  # every dislodged unit either retreated or was disbanded
            assert _count(got["units"]) == _count(before["units"]) + len(before["dislodged"]) - len(
                want["disbanded"]
            ), f"{where}: units after the retreats"
        assert _by_power(got["centers"]) == _by_power(want["centers"]), f"{where}: centers"
        assert got["phase"] == want["phase"], f"{where}: phase"
        for unit, words in want.get("results", {}).items():
            assert got["results"].get(unit) == words, f"{where}: result of {unit}"
        before, phase = got, got["phase"]
