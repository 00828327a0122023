"""The compiled core against the pure-Python reference: random boards, random orders.

Thousands of phases of each kind, with legal orders and garbage (orders for no unit, for
another power's unit, duplicates, any order kind in any phase, armies at sea); every
result word, unit, retreat set and legal-order list must be the same and in the same order.
"""

from __future__ import annotations

import random

import pytest

from engine import _native, standard_map
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS
from tests.engine_core.boards import differences, random_orders, random_position

pytestmark = pytest.mark.skipif(not _native.compiled_available(), reason="the compiled core is not built")

PHASES = {MOVEMENT: 1500, RETREATS: 500, ADJUSTMENTS: 500}


@pytest.mark.parametrize("kind", list(PHASES))
def test_cores_agree_on_random_phases(kind: str) -> None:
    m = standard_map()
    rng = random.Random(f"differential/{kind}")
    for number in range(PHASES[kind]):
        position = random_position(rng, m, kind)
        orders = random_orders(rng, position, garbage=0.5)
        found = differences(position, orders)
        assert not found, f"phase {number}: {position.to_json()}\n{orders}\n" + "\n".join(found)


def test_cores_agree_on_random_games() -> None:
    """Positions that games reach (convoys, standoffs, retreats), not only random scatter."""
    from engine import Game

    m = standard_map()
    rng = random.Random("differential/games")
    for _ in range(8):
        game = Game()
        while not game.position.completed and game.position.phase.year < 1911:
            position = game.position
            orders = random_orders(rng, position, garbage=0.1)
            assert not differences(position, orders), f"{position.to_json()}\n{orders}"
            game.play(orders)
    assert m is game.position.map
