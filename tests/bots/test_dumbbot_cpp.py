"""Our DumbBot against David Norman's C++ DumbBot, position by position (needs the C++ binary).

``DETENTE_DAIDE_CLIENT`` names the binary (or its directory, or that directory's ``bin/``),
built by ``benchmarks/build_daide_client.sh``; without it every test skips. The C++ bot is
fed positions by the minimal DAIDE server of ``benchmarks/dumbbot_fidelity.py`` and its
orders are compared with ours drawn as often: the distance (mean over units of the total
variation distance between the two order distributions) must stay near the noise of
samples of this size, far below what a changed rule gives.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from dumbbot_fidelity import (
    Case,
    CppDumbBot,
    collect_cases,
    distance,
    find_binary,
    sample_cpp,
    sample_ours,
)

from engine import Position, standard_map

ENV = "DETENTE_DAIDE_CLIENT"
DRAWS = 400
LIMIT = 0.08  # the noise of two samples of 400 is about 0.02 to 0.04 a position

pytestmark = pytest.mark.skipif(not os.environ.get(ENV), reason=f"{ENV} is not set (the C++ DumbBot is needed)")


@pytest.fixture(scope="module")
def cpp() -> Iterator[CppDumbBot]:
    bot = CppDumbBot(find_binary(os.environ[ENV]), standard_map())
    yield bot
    bot.close()


CASES = [Case(Position.initial(), power) for power in ("AUS", "ITA", "TUR")]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_spring_1901_orders_are_drawn_as_the_cpp_bot_draws_them(cpp: CppDumbBot, case: Case) -> None:
    assert distance(sample_cpp(cpp, case, DRAWS), sample_ours(case, DRAWS, 1)) < LIMIT


def test_later_positions_of_every_kind_are_played_as_the_cpp_bot_plays_them(cpp: CppDumbBot) -> None:
    cases = collect_cases(standard_map(), 7, movement=3, retreats=1, adjustments=2)
    assert {c.position.phase.kind for c in cases} == {"M", "R", "A"}
    distances = {c.label: distance(sample_cpp(cpp, c, DRAWS), sample_ours(c, DRAWS, 2)) for c in cases}
    assert max(distances.values()) < LIMIT, distances
