"""A weighted spread of whole-number values over a graph (compiled in ``engine/_graph.c``).

The graph has nodes ``0 .. size-1``; node ``n`` has *terms*, each a non-empty group of
nodes. One step gives node ``n`` the sum over its terms of the largest value in the group,
divided by ``divisor`` and rounded toward zero (as C and C++ divide integers). Starting
from ``seeds`` on the graph's source nodes (0 elsewhere), a row's result is, for every
node, ``sum(weights[k] * value after k steps)``. A node that counts itself has a term of
itself alone; a term of several nodes counts the best of them (a province reached by two
coasts, say). Bots use it to value a map by its supply centres (DumbBot's "proximity").

>>> g = SpreadGraph.of(terms=[[(0,), (1,)], [(1,), (0,), (2,)], [(2,), (1,)]], sources=[0])
>>> spread(g, [[100]], (1, 10, 1))
[[308, 208, 4]]

Three implementations give the same numbers: the compiled one (int64; it hands anything
that would leave int64 back), the rows packed into one Python integer (whole numbers >= 0
of bounded size), and one row at a time in plain Python integers (anything else).
:func:`engine._native.pure_python` and ``DETENTE_PURE_PYTHON=1`` leave out the first.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import repeat
from operator import itemgetter
from typing import Any

from engine import _native

__all__ = ["SpreadGraph", "spread", "spread_reference"]


@dataclass(frozen=True, slots=True, eq=False)  # hashed by identity: plans are cached per graph
class SpreadGraph:
    """Nodes, their terms (``terms[n]``: groups of nodes) and the source nodes seeds are sown on."""

    terms: tuple[tuple[tuple[int, ...], ...], ...]
    sources: tuple[int, ...]
    _compiled: list[Any] = field(default_factory=list, repr=False)  # [the compiled graph], made on first use

    @classmethod
    def of(cls, terms: Sequence[Sequence[Sequence[int]]], sources: Sequence[int]) -> SpreadGraph:
        """A graph from any sequences, checked: every group non-empty, every index a node.

        >>> SpreadGraph.of([[(1,)]], [0])
        Traceback (most recent call last):
        ValueError: node index out of range in [[(1,)]]
        """
        frozen = tuple(tuple(tuple(group) for group in node) for node in terms)
        size = len(frozen)
        nodes = [x for node in frozen for group in node for x in group] + list(sources)
        if not all(type(x) is int and 0 <= x < size for x in nodes):
            raise ValueError(f"node index out of range in {terms}")
        if any(not group for node in frozen for group in node):
            raise ValueError("a group of a term is empty")
        return cls(frozen, tuple(sources))


def spread(
    graph: SpreadGraph, rows: Sequence[Sequence[int]], weights: Sequence[int], divisor: int = 5
) -> list[list[int]]:
    """For each row of seeds (``row[i]`` on ``graph.sources[i]``), the weighted values of every node.

    Whole numbers only (``int``); exact whatever their size.
    """
    if divisor <= 0 or not weights:
        raise ValueError("spread needs a divisor > 0 and at least one weight")
    core = _native.compiled_module("_graph")
    if core is not None:
        if not graph._compiled:
            graph._compiled.append(core.Graph(graph.terms))
        done = graph._compiled[0].spread(graph.sources, rows, weights, divisor)
        if done is not None:
            return done  # type: ignore[no-any-return]
    return _spread_python(graph, rows, weights, divisor)


def _spread_python(
    graph: SpreadGraph, rows: Sequence[Sequence[int]], weights: Sequence[int], divisor: int
) -> list[list[int]]:
    packed = _packed(graph, rows, tuple(weights), divisor) if rows else None
    if packed is not None:
        return packed
    return [spread_reference(graph, row, weights, divisor) for row in rows]


def spread_reference(graph: SpreadGraph, row: Sequence[int], weights: Sequence[int], divisor: int = 5) -> list[int]:
    """The spread of one row, step by step in Python integers: the definition.

    >>> g = SpreadGraph.of(terms=[[(0,), (1, 2)], [(1,)], [(2,)]], sources=[1, 2])
    >>> spread_reference(g, [-7, 3], (0, 1))
    [0, -1, 0]
    """
    getters, _ = _plan(graph)
    level = [0] * len(graph.terms)
    for n, seed in zip(graph.sources, row, strict=True):
        level[n] = seed
    total = [weights[0] * v for v in level]
    for weight in weights[1:]:
        sums = [sum(max(get(level)) for get in node) for node in getters]
        level = [s // divisor if s >= 0 else -(-s // divisor) for s in sums]
        total = [t + weight * v for t, v in zip(total, level, strict=True)]
    return total


@functools.cache
def _plan(graph: SpreadGraph) -> tuple[tuple[tuple[itemgetter, ...], ...], tuple[tuple[int, ...], ...]]:
    """Per node a getter per term (each returns a tuple); the groups of several nodes."""
    getters = tuple(tuple(itemgetter(*group, *group[:1]) for group in node) for node in graph.terms)
    several = tuple(sorted({group for node in graph.terms for group in node if len(group) > 1}))
    return getters, several


# --- several rows at once, packed -----------------------------------------------------------------
#
# Row i's value in bits 64*i to 64*i + 63 of one Python int: sums of packed numbers are the
# packed sums as long as no field overflows, which the bound below makes sure of. Dividing
# each field by the divisor (rounding down: toward zero for numbers >= 0) is a multiplication
# by a fixed-point reciprocal, a shift and a mask; the best of a group is a field-wise max
# (the SWAR trick of a borrow bit per field).

_FIELD = 64
_FULL = (1 << _FIELD) - 1


@dataclass(frozen=True, slots=True)
class _PackedPlan:
    getters: tuple[itemgetter, ...]  # node -> its single-node terms, a slot per larger group, a spare 0
    slots: tuple[itemgetter, ...]  # slot -> the nodes of the group whose best it holds
    growth: Fraction  # the most any sum can be, per unit of the largest seed
    shift: int
    reciprocal: int  # (x * reciprocal) >> shift == x // divisor for 0 <= x < limit
    limit: int  # sums below it divide exactly and stay in their field


@functools.cache
def _packed_plan(graph: SpreadGraph, steps: int, divisor: int) -> _PackedPlan:
    size = len(graph.terms)
    spare = size
    _, several = _plan(graph)
    slot = {group: spare + 1 + i for i, group in enumerate(several)}
    items = [tuple(g[0] if len(g) == 1 else slot[g] for g in node) for node in graph.terms]
    getters = tuple(itemgetter(*it, *[spare] * (2 - len(it))) for it in items)  # spares: a tuple, even alone
    slots = tuple(itemgetter(*group) for group in several)
    # The steps without rounding, every source seeded 1: an upper bound of every sum per unit
    # of the largest seed (rounding down only lowers a value; sums and maxima are monotone).
    level = [Fraction(0)] * size
    for n in graph.sources:
        level[n] = Fraction(1)
    growth = Fraction(1)
    for _ in range(steps):
        extended = [*level, Fraction(0), *(max(get(level)) for get in slots)]
        sums = [sum(get(extended)) for get in getters]
        growth = max(growth, *sums)
        level = [s / divisor for s in sums]
    shift = 31 + divisor.bit_length()  # 34 for 5: quotients of sums below 2**32 fit in 64 - 34 bits
    reciprocal = -(-(1 << shift) // divisor)
    error = divisor * reciprocal - (1 << shift)  # x // d is exact while x * error < 2**shift
    limit = min((1 << shift) // error if error else 1 << 63, _FULL // reciprocal, 1 << 32)
    return _PackedPlan(getters, slots, growth, shift, reciprocal, limit)


def _field_max(values: tuple[int, ...], high: int) -> int:
    """The field-wise max of packed numbers whose fields are below 2**63 (``high``: bit 63 of each field)."""
    best = values[0]
    for v in values[1:]:
        # each field of (best | high) - v is 2**63 + best_i - v_i: no borrow between fields,
        # and its bit 63 is set where best_i >= v_i
        keep = ((((best | high) - v) & high) >> (_FIELD - 1)) * _FULL
        best = (best & keep) | (v & ~keep)
    return best


def _packed(
    graph: SpreadGraph, rows: Sequence[Sequence[int]], weights: tuple[int, ...], divisor: int
) -> list[list[int]] | None:
    """The spread of several rows at once; None where a field could overflow or a number is
    not a whole number >= 0."""
    numbers = [*weights, *(x for row in rows for x in row)]
    if not set(map(type, numbers)) <= {int} or min(numbers) < 0:
        return None
    plan = _packed_plan(graph, len(weights) - 1, divisor)
    largest = max(numbers[len(weights) :], default=0)
    quotient_bits = _FIELD - plan.shift
    # every sum below the limit (so every value below 2**quotient_bits), every total below 2**64
    if largest * plan.growth >= plan.limit or sum(weights) * max(largest, 1 << quotient_bits) > _FULL:
        return None
    count = len(rows)
    shift, reciprocal, getters = plan.shift, plan.reciprocal, plan.getters
    if count == 1:  # plain numbers: Python's own small-number arithmetic is quicker
        level = [0] * len(graph.terms)
        for n, seed in zip(graph.sources, rows[0], strict=True):
            level[n] = seed
        total = [weights[0] * v for v in level]
        for weight in weights[1:]:
            level.append(0)
            level += [max(get(level)) for get in plan.slots]
            level = [sum(get(level)) // divisor for get in getters]
            total = [t + weight * v for t, v in zip(total, level, strict=True)]
        return [total]
    ones = sum(1 << (_FIELD * i) for i in range(count))
    quotient, high = ones * ((1 << quotient_bits) - 1), ones << (_FIELD - 1)
    level = [0] * len(graph.terms)
    for n, column in zip(graph.sources, zip(*rows, strict=True), strict=True):
        level[n] = int.from_bytes(array("Q", column).tobytes(), "little")
    total = [weights[0] * v for v in level]
    for weight in weights[1:]:
        level.append(0)
        level += [_field_max(get(level), high) for get in plan.slots]
        level = [(sum(get(level)) * reciprocal >> shift) & quotient for get in getters]  # each field // divisor
        total = [t + weight * v for t, v in zip(total, level, strict=True)]
    packed = b"".join(map(int.to_bytes, total, repeat(8 * count), repeat("little")))
    flat = memoryview(packed).cast("Q").tolist()
    return [flat[i::count] for i in range(count)]
