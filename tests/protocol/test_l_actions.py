"""L actions and engine orders: every legal order of played positions goes to L and back."""

from __future__ import annotations

import random

import pytest

import engine.orders as eo
from engine import Game, Position, legal_orders, parse_order
from protocol.l import ast as a
from protocol.l import parse, to_text
from protocol.l.actions import ActionError, action_from_order, order_from_action, region_to_location, unit_to_engine


def _positions(seed: int, phases: int) -> list[Position]:
    rng = random.Random(seed)
    game = Game()
    seen = [game.position]
    for _ in range(phases):
        position = game.position
        if position.completed:
            break
        orders = {}
        for power in position.map.powers:
            chosen = []
            for unit, options in legal_orders(position, power).items():
                if unit is None:
                    owed = abs(position.adjustments.get(power, 0))
                    chosen.extend(rng.sample(options, min(owed, len(options))))
                elif options:
                    chosen.append(rng.choice(options))
            orders[power] = chosen
        game.play(orders)
        seen.append(game.position)
    return seen


@pytest.mark.parametrize("seed", [1, 2])
def test_every_legal_order_goes_to_l_and_back(seed: int) -> None:
    checked = 0
    for position in _positions(seed, 30):
        for power in position.map.powers:
            for options in legal_orders(position, power).values():
                for order in options:
                    action = action_from_order(position, power, order)
                    # through the text form too: what a message carries is what the parser gives back
                    (commit,) = parse(f"propose(tur, aus, Commit(tur, aus, Do({to_text(action)})))").deal.commits
                    assert commit.formula.action == action
                    back_power, back = order_from_action(position.map, action)
                    assert back_power == power
                    assert _same(back, order), (order, action, back)
                    checked += 1
    assert checked > 1000


def _same(back: eo.Order, order: eo.Order) -> bool:
    if isinstance(order, eo.Build) and order.type is None:
        return isinstance(back, eo.Build) and back.location == order.location
    return back == order


def test_regions_name_coasts_seas_and_armies() -> None:
    start = Position.initial()
    m = start.map
    action = action_from_order(start, "RUS", parse_order(m, "F STP/SC - BOT"))
    assert to_text(action) == "mto(Unit(rus, Region(stp, scs)), Region(gob, sea))"
    action = action_from_order(start, "ENG", parse_order(m, "F LON - ENG"))
    assert action.unit.region == a.Region("lon", "coast")
    action = action_from_order(start, "ENG", parse_order(m, "A LVP - YOR"))
    assert action.region == a.Region("yor", "amy")


def test_unknown_places_and_missing_units_are_action_errors() -> None:
    start = Position.initial()
    with pytest.raises(ActionError):
        region_to_location(start.map, a.Region("xyz", "amy"))
    with pytest.raises(ActionError):
        region_to_location(start.map, a.Region("par", "ncs"))
    with pytest.raises(ActionError):
        unit_to_engine(start.map, a.Unit("xyz", a.Region("par", "amy")))
    with pytest.raises(ActionError):
        action_from_order(start, "FRA", parse_order(start.map, "A BUR H"))
    with pytest.raises(ActionError):  # a foreign unit is not France's to order
        action_from_order(start, "FRA", parse_order(start.map, "A MUN H"))
