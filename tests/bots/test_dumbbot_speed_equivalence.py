"""DumbBot's shortcuts give exactly the values of the plain computation.

The sweeps of all powers of a phase are made at once by the engine's spread over a graph
(compiled, or packed numbers in pure Python), and what every power shares is worked out once
per position (:class:`bots.dumbbot._Board`); these tests hold them to the one-power sweeps
(:func:`bots.dumbbot._sweep_totals`) and the plain counts, under both cores.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from bots.dumbbot import DumbBot, Weights, _Appraisal, _geometry, _spread_graph, _sweep_totals
from engine import Position, _native, adjudicate, legal_orders, standard_map
from engine.graph import _packed, _packed_plan, spread

M = standard_map()
G = _geometry(M)
LIMIT = int((1 << 32) / _packed_plan(_spread_graph(G), 9, 5).growth)  # the largest seed the packed sweeps take


@pytest.fixture(params=["compiled", "pure"])
def core(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test on the compiled spread (where built) and on the pure-Python one."""
    with _native.pure_python(request.param == "pure"):
        yield request.param


def positions(seed: int, last_year: int) -> list[Position]:
    """Every position of a game of seven DumbBots to the end of ``last_year``."""
    bots = {power: DumbBot(random.Random(seed * 10 + i)) for i, power in enumerate(M.powers)}
    position = Position.initial()
    for power, bot in bots.items():
        bot.start(power, M)
    seen = [position]
    while not position.completed and position.phase.year <= last_year:
        orders = {p: bot.orders(position, legal) for p, bot in bots.items() if (legal := legal_orders(position, p))}
        position = adjudicate(position, orders).position
        seen.append(position)
    return seen


@pytest.mark.parametrize("count", [1, 2, 7])
@pytest.mark.parametrize("proximity", [DumbBot.SPRING.proximity, DumbBot.FALL.proximity, (3, 1, 4, 1, 5), (7,)])
def test_swept_together_are_the_one_power_sweeps(core: str, count: int, proximity: tuple[int, ...]) -> None:
    rng = random.Random(count * 31 + len(proximity))
    for top in (1, 1000, 300_000, LIMIT - 1, LIMIT * 1000):
        seeds = [[rng.choice((0, rng.randrange(top + 1), top)) for _ in G.centres] for _ in range(count)]
        totals = spread(_spread_graph(G), seeds, proximity)
        assert totals == [_sweep_totals(G, s, proximity) for s in seeds]


def test_packed_sweeps_refuse_seeds_that_could_overflow() -> None:
    seeds = [[LIMIT + 1] * len(G.centres), [0] * len(G.centres)]
    assert _packed(_spread_graph(G), seeds, DumbBot.SPRING.proximity, 5) is None
    assert _packed(_spread_graph(G), [[LIMIT - 1] * len(G.centres)] * 2, DumbBot.SPRING.proximity, 5) is not None


def test_every_appraisal_of_a_game_is_the_plain_computation(core: str) -> None:
    """Values (whole numbers), strength, competition and defence of every power in every phase,
    against the one-power sweeps and counts made from scratch."""
    moves = (M.army_moves, M.fleet_moves)
    for position in positions(3, 1906):
        weights = (
            DumbBot.WINTER
            if position.phase.kind == "A"
            else DumbBot.SPRING
            if position.phase.season == "S"
            else DumbBot.FALL
        )
        near: dict[int, dict[str, int]] = {}
        for u in position.units:
            for p in (M.province_of[u.location], *(M.province_of[d] for d in moves[u.type][u.location])):
                near.setdefault(p, {})
                near[p][u.power] = near[p].get(u.power, 0) + 1
        for power in M.powers:
            value = _Appraisal(position, power, weights, DumbBot.SIZE)
            plain = _sweep_totals(G, value._seeds, weights.proximity)
            for n, p in enumerate(G.province):
                mine = near.get(p, {}).get(power, 0)
                rival = max((k for pw, k in near.get(p, {}).items() if pw != power), default=0)
                assert value.strength(p) == mine and value.competition(p) == rival
                if weights.strength or weights.competition:
                    plain[n] += (weights.strength * mine - weights.competition * rival) if p in near else 0
                plain[n] += weights.home_defence * value.defence(p)
            assert [value(n) for n in range(len(G.province))] == plain
            assert all(type(value(n)) is int for n in range(len(G.province)))


def test_changed_seeds_are_swept_as_they_are() -> None:
    """A subclass may change the seeds before the first value (the sanctioning baseline does):
    the values follow the changed seeds, of their own type, and the others' are untouched."""
    position = positions(4, 1902)[-1]
    weights = DumbBot.FALL
    before = [_Appraisal(position, power, weights, DumbBot.SIZE)(0) for power in M.powers]
    for change in (lambda s: s * 1.5, lambda s: 0.0 if s == 0 else s, lambda s: s + 7):
        value = _Appraisal(position, "FRA", weights, DumbBot.SIZE)
        value._seeds = [change(s) for s in value._seeds]
        expected = _sweep_totals(G, value._seeds, weights.proximity)
        got = value._proximities()
        assert got == expected and [type(v) for v in got] == [type(v) for v in expected]
    assert [_Appraisal(position, power, weights, DumbBot.SIZE)(0) for power in M.powers] == before


def test_weights_of_other_types_are_kept() -> None:
    """Float weights or sizes give floats, as the plain computation does (1 == 1.0 must not mix them up)."""
    position = positions(5, 1901)[-1]
    whole = _Appraisal(position, "ITA", DumbBot.SPRING, (1, 4, 16))
    floats = _Appraisal(position, "ITA", DumbBot.SPRING, (1.0, 4, 16))
    halves = Weights(700.0, 300, DumbBot.SPRING.proximity, 1000, 1000)
    other = _Appraisal(position, "ITA", halves, (1, 4, 16))
    assert whole(5) == floats(5) == other(5)
    assert type(whole(5)) is int and type(floats(5)) is float and type(other(5)) is float
