"""The batch API: threads, board copies, declined boards, encoders (its outcomes and legal
orders are compared with the reference's in test_differential.py, phase by phase)."""

from __future__ import annotations

import random
import threading

import pytest

from engine import _native, standard_map
from engine.batch import (
    adjudicate_many,
    decode_outcome,
    encode_orders,
    encode_position,
    legal_orders_many,
    with_units,
)
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS, Position
from tests.engine_core.boards import random_orders, random_position

pytestmark = pytest.mark.skipif(not _native.compiled_available(), reason="the compiled core is not built")


def test_threads_give_the_same_outcomes() -> None:
    m = standard_map()
    rng = random.Random("batch/threads")
    positions = [random_position(rng, m, MOVEMENT, garbage=False) for _ in range(200)]
    boards = [encode_position(p) for p in positions]
    orders = [encode_orders(m, random_orders(rng, p, garbage=0.2)) for p in positions]
    alone = adjudicate_many(m, boards, orders)
    assert adjudicate_many(m, boards, orders, threads=4) == alone
    assert legal_orders_many(m, boards, threads=3) == legal_orders_many(m, boards)
    # and from threads of the caller's own, at the same time
    seen: list[list] = []
    workers = [threading.Thread(target=lambda: seen.append(adjudicate_many(m, boards, orders))) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert seen == [alone] * 3


def test_a_board_is_copied_and_updated_cheaply() -> None:
    m = standard_map()
    start = Position.initial(m)
    board = encode_position(start)
    copy = board[:]
    copy[3] = 6  # a copy is independent of its original
    assert board[3] == 0
    moved = with_units(board, [(0, 0, m.location("BOH"))])
    [outcome] = adjudicate_many(m, [moved], [encode_orders(m, {})])
    assert decode_outcome(outcome)[0] == [(0, 0, m.location("BOH"))]


def test_a_board_the_core_cannot_take_comes_back_as_none() -> None:
    m = standard_map()
    board = encode_position(Position.initial(m))
    board[5] = 999  # a location off the map
    assert adjudicate_many(m, [board], [encode_orders(m, {})]) == [None]
    assert legal_orders_many(m, [board]) == [None]


@pytest.mark.parametrize("kind", [MOVEMENT, RETREATS, ADJUSTMENTS])
def test_the_encoders_in_c_write_what_the_python_ones_write(kind: str) -> None:
    m = standard_map()
    rng = random.Random(f"encode/{kind}")
    for _ in range(200):
        position = random_position(rng, m, kind, garbage=False)
        orders = random_orders(rng, position, garbage=0.5)
        fast = encode_position(position), encode_orders(m, orders)
        with _native.pure_python():
            slow = encode_position(position), encode_orders(m, orders)
        assert fast == slow


@pytest.mark.parametrize("kind", [MOVEMENT, RETREATS, ADJUSTMENTS])
def test_without_the_compiled_core_the_reference_gives_the_same_bytes(kind: str) -> None:
    m = standard_map()
    rng = random.Random(f"fallback/{kind}")
    positions = [random_position(rng, m, kind) for _ in range(150)]
    boards = [encode_position(p) for p in positions]
    orders = [encode_orders(m, random_orders(rng, p, garbage=0.5)) for p in positions]
    compiled = adjudicate_many(m, boards, orders), legal_orders_many(m, boards)
    with _native.pure_python():
        reference = adjudicate_many(m, boards, orders), legal_orders_many(m, boards)
    assert compiled == reference
