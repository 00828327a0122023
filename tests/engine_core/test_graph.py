"""The compiled spread (``engine/_graph.c``) against its pure-Python twins (``engine/graph.py``).

Random graphs with random seeds (negative, huge), and DumbBot's proximity sweeps of every
power on the positions of random games on the standard map: the compiled spread, the packed
Python one and the step-by-step definition must give the same numbers.
"""

from __future__ import annotations

import random

import pytest

from bots.dumbbot import DumbBot, _board, _spread_graph
from engine import Position, _native, adjudicate, legal_orders
from engine.graph import SpreadGraph, _spread_python, spread, spread_reference

compiled = pytest.mark.skipif(_native.compiled_module("_graph") is None, reason="engine._graph is not built")


def random_graph(rng: random.Random) -> SpreadGraph:
    size = rng.randrange(1, 30)
    terms = [
        [tuple(rng.sample(range(size), rng.randint(1, min(3, size)))) for _ in range(rng.randrange(0, 5))]
        for _ in range(size)
    ]
    return SpreadGraph.of(terms, rng.sample(range(size), rng.randint(1, size)))


def random_game(seed: int, last_year: int) -> list[Position]:
    """Every position of a game of random legal orders."""
    rng = random.Random(seed)
    position = Position.initial()
    seen = [position]
    while not position.completed and position.phase.year <= last_year:
        orders = {}
        for power in position.map.powers:
            legal = legal_orders(position, power)
            if legal:
                picks = [rng.choice(options) for options in legal.values()] if isinstance(legal, dict) else []
                orders[power] = picks
        position = adjudicate(position, orders).position
        seen.append(position)
    return seen


@compiled
def test_random_graphs_and_seeds() -> None:
    rng = random.Random(19)
    for _ in range(300):
        graph = random_graph(rng)
        top = rng.choice((10, 10**6, 2**40, 2**62))
        low = rng.choice((0, -top))
        rows = [[rng.randint(low, top) for _ in graph.sources] for _ in range(rng.randint(1, 7))]
        weights = tuple(rng.randint(0, 1000) for _ in range(rng.randint(1, 10)))
        divisor = rng.choice((1, 2, 3, 5, 7, 64))
        expected = [spread_reference(graph, row, weights, divisor) for row in rows]
        assert _spread_python(graph, rows, weights, divisor) == expected
        with _native.pure_python(False):
            assert spread(graph, rows, weights, divisor) == expected


@compiled
def test_values_beyond_int64_go_to_python() -> None:
    graph = SpreadGraph.of([[(0,), (1,)], [(1,), (0,)]], [0, 1])
    core = _native.compiled_module("_graph")
    assert core is not None
    assert core.Graph(graph.terms).spread(graph.sources, [[2**62, 2**62]], (1, 1), 5) is None
    assert spread(graph, [[2**62, 2**62]], (1, 1)) == [[2**62 + 2**62 * 2 // 5] * 2]


def test_bad_graphs_are_refused() -> None:
    with pytest.raises(ValueError):
        SpreadGraph.of([[()]], [0])
    with pytest.raises(ValueError):
        SpreadGraph.of([[(0,)]], [1])
    with pytest.raises(ValueError):
        spread(SpreadGraph.of([[(0,)]], [0]), [[1]], (1,), divisor=0)


@compiled
@pytest.mark.parametrize("seed", [1, 2])
def test_dumbbot_sweeps_of_random_games(seed: int) -> None:
    """Every power's seeds, spring and fall weights, every phase of a random game to 1910."""
    for position in random_game(seed, 1910):
        board = _board(position, DumbBot.SIZE)
        graph = _spread_graph(board.geometry)
        for weights in (DumbBot.SPRING, DumbBot.FALL):
            rows = [list(board.seeds_of(power, weights)[1]) for power in position.map.powers]
            python = _spread_python(graph, rows, weights.proximity, 5)
            with _native.pure_python(False):
                assert spread(graph, rows, weights.proximity) == python
            assert python[:1] == [spread_reference(graph, rows[0], weights.proximity)]
