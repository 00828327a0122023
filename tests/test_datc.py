"""Every test case of DATC v3.0 section 6 (6.A to 6.J), with the outcome the DATC prefers.

The cases live in ``tests/datc/data`` in the adjudication-case format, each with an
``expect`` list: per turn, the units after it, the units dislodged in it (whether they
wait to retreat or, with nowhere to go, are disbanded at once) and, where the DATC
states them, the result words, retreat options, centres and next phase.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from detente.cases import run_case

DATA = Path(__file__).parent / "datc" / "data"
CASES = [case for path in sorted(DATA.glob("*.json")) for case in json.loads(path.read_text())]


def _by_power(units: dict[str, list[str]]) -> dict[str, list[str]]:
    return {power: sorted(names) for power, names in units.items() if names}


def test_every_section_6_case_is_here() -> None:
    numbers = {case["name"].split()[0] for case in CASES}
    expected_counts = {"A": 12, "B": 15, "C": 9, "D": 34, "E": 15, "F": 25, "G": 20, "H": 16, "I": 7, "J": 11}
    for section, count in expected_counts.items():
        assert {f"6.{section}.{i}" for i in range(1, count + 1)} <= numbers, section


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_datc(case: dict) -> None:
    positions = run_case(case)
    assert len(positions) == len(case["expect"])
    for turn, (got, want) in enumerate(zip(positions, case["expect"], strict=True)):
        where = f"after turn {turn + 1}"
        assert _by_power(got["units"]) == _by_power(want["units"]), where
        if "dislodged" in want:
            # dislodged in the turn: those waiting to retreat and those with nowhere to go
            gone = sorted(unit for unit, words in got["results"].items() if "dislodged" in words)
            assert gone == sorted(want["dislodged"]), where
            assert set(got["dislodged"]) <= set(gone), where
        for unit, words in want.get("results", {}).items():
            assert got["results"].get(unit) == words, f"{where}: result of {unit}"
        for unit, retreats in want.get("retreats", {}).items():
            assert sorted(got["dislodged"][unit]["retreats"]) == sorted(retreats), f"{where}: retreats of {unit}"
        if "centers" in want:
            assert _by_power(got["centers"]) == _by_power(want["centers"]), where
        if "phase" in want:
            assert got["phase"] == want["phase"], where
