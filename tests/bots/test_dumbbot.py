"""DumbBot: legal orders in every phase, exact replays, sensible choices, and beating weak bots."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

import pytest

import engine.orders as eo
from bots.base import Bot, HoldBot, RandomBot
from bots.dumbbot import DumbBot, _Appraisal, _geometry
from engine import Position, adjudicate, legal_orders, standard_map

M = standard_map()
POWERS = M.powers


def play(bots: Mapping[str, Bot], last_year: int, check: bool = False) -> list[Position]:
    """Play to the end of ``last_year`` (or a solo); every position met, the last one included.

    With ``check``, every DumbBot's orders are checked against its legal orders as they are given.
    """
    position = Position.initial()
    for power, bot in bots.items():
        bot.start(power, M)
    seen = [position]
    while not position.completed and position.phase.year <= last_year:
        orders = {}
        for power, bot in bots.items():
            legal = legal_orders(position, power)
            if not legal:
                continue
            orders[power] = bot.orders(position, legal)
            if check and isinstance(bot, DumbBot):
                assert_proper(position, power, legal, orders[power])
        position = adjudicate(position, orders).position
        seen.append(position)
    return seen


def assert_proper(position: Position, power: str, legal: Mapping, orders: list[eo.Order]) -> None:
    """Legal orders only, one per unit, and in a winter exactly as many as owed."""
    allowed = {o for options in legal.values() for o in options}
    phase = str(position.phase)
    for order in orders:
        assert order in allowed, (phase, power, order)
    places = [M.province_of[o.location] for o in orders if not isinstance(o, eo.Waive)]
    assert len(places) == len(set(places)), (phase, power, orders)
    if position.phase.kind == "A":
        assert len(orders) == abs(position.adjustments[power]), (phase, power, orders)
    else:
        assert len(orders) == len(legal), (phase, power, orders)


def dumbbots(seed: int) -> dict[str, Bot]:
    return {power: DumbBot(random.Random(seed * 10 + i)) for i, power in enumerate(POWERS)}


def one_against(opponent: Callable[[random.Random], Bot], me: str, seed: int) -> dict[str, Bot]:
    return {
        power: DumbBot(random.Random(seed)) if power == me else opponent(random.Random(seed * 10 + i))
        for i, power in enumerate(POWERS)
    }


def orders_of(position: Position, power: str, seed: int, bot: DumbBot | None = None) -> list[eo.Order]:
    bot = bot or DumbBot(random.Random(seed))
    bot.start(power, position.map)
    legal = legal_orders(position, power)
    orders = bot.orders(position, legal)
    assert_proper(position, power, legal, orders)
    return orders


def summary(position: Position) -> tuple:
    return (str(position.phase), position.units, position.centers, position.dislodged)


# --- legality and replays ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_orders_are_legal_in_every_phase_of_seven_dumbbots(seed: int) -> None:
    positions = play(dumbbots(seed), 1912, check=True)
    assert {p.phase.kind for p in positions} == {"M", "R", "A"}


@pytest.mark.parametrize("me", POWERS)
def test_orders_are_legal_in_every_phase_against_random_bots(me: str) -> None:
    play(one_against(RandomBot, me, 7), 1910, check=True)


def test_a_seed_replays_a_game_exactly() -> None:
    first = [summary(p) for p in play(dumbbots(3), 1906)]
    again = [summary(p) for p in play(dumbbots(3), 1906)]
    other = [summary(p) for p in play(dumbbots(4), 1906)]
    assert first == again
    assert first != other


# --- values ----------------------------------------------------------------------------------


def test_values_are_the_weighted_sum_of_ten_sweeps_over_the_board() -> None:
    """Ten sweeps over the coasts of the map, in whole numbers, a province reached by two coasts counted once
    by the better (as the C++ bot sweeps), give the values, plus strength and competition."""
    position = play(dumbbots(1), 1903)[-1]
    g = _geometry(M)
    moves = (M.army_moves, M.fleet_moves)
    for power in ("FRA", "RUS"):
        weights = DumbBot.FALL
        appraisal = _Appraisal(position, power, weights, DumbBot.SIZE)
        places = [(g.unit_type[n], g.location[n]) for n in range(len(g.province))]
        level = dict.fromkeys(places, 0)
        for i, n in enumerate(g.centres):
            level[places[n]] = appraisal._seeds[i]
        expected = {place: weights.proximity[0] * v for place, v in level.items()}
        for weight in weights.proximity[1:]:
            after = {}
            for t, loc in places:
                best: dict[int, int] = {}
                for d in moves[t][loc]:
                    p = M.province_of[d]
                    best[p] = max(best.get(p, 0), level[t, d])
                after[t, loc] = (level[t, loc] + sum(best.values())) // 5
            level = after
            expected = {place: expected[place] + weight * level[place] for place in places}
        for n, place in enumerate(places):
            p = g.province[n]
            extra = weights.strength * appraisal.strength(p) - weights.competition * appraisal.competition(p)
            assert appraisal(n) == expected[place] + extra


def test_each_fleet_coast_and_army_province_is_a_node_of_its_own() -> None:
    g = _geometry(M)
    stp = M.location("STP")
    assert g.node[0][stp] >= 0 and g.node[1][stp] < 0
    assert g.node[1][M.location("STP/NC")] >= 0 and g.node[1][M.location("STP/SC")] >= 0
    assert g.node[0][M.location("NTH")] < 0 and g.node[0][M.location("MUN")] >= 0 and g.node[1][M.location("MUN")] < 0
    for n, neighbours in enumerate(g.neighbours):
        assert all(g.unit_type[x] == g.unit_type[n] for x in neighbours)


# --- sensible behaviour --------------------------------------------------------------------


def test_spring_1901_heads_for_the_neutral_centres() -> None:
    start = Position.initial()
    neutral = [p for p in M.supply_centers if start.centers[p] is None]

    def distance(location: int) -> int:
        return min(M.distances[M.province_of[location]][c] for c in neutral)

    moves = closer = units = 0
    for seed in range(10):
        for power in POWERS:
            for order in orders_of(start, power, seed):
                units += 1
                if isinstance(order, eo.Move):
                    moves += 1
                    closer += distance(order.destination) < distance(order.location)
    assert moves >= 0.8 * units
    assert closer >= 0.8 * moves


def test_two_units_next_to_a_held_centre_attack_it_with_support() -> None:
    everything_else = [M.name_of(p) for p in M.supply_centers if M.name_of(p) != "BEL"]
    position = Position.build(
        "F1902M",
        {"FRA": ["A BUR", "A PIC", "F ENG"], "GER": ["A BEL"]},
        centers={"FRA": everything_else, "GER": ["BEL"]},
    )
    bel = M.location("BEL")
    for seed in range(10):
        orders = orders_of(position, "FRA", seed)
        moves = [o for o in orders if isinstance(o, eo.Move)]
        assert [m.destination for m in moves] == [bel]
        mover = moves[0].location
        assert all(isinstance(o, eo.SupportMove) and o.supported_location == mover for o in orders if o != moves[0])


def test_builds_what_is_owed_on_distinct_free_home_centres() -> None:
    position = Position.build(
        "W1901A",
        {"FRA": ["A SPA", "F POR", "A BUR"]},
        centers={"FRA": ["PAR", "MAR", "BRE", "SPA", "POR"], "GER": ["MUN", "KIE", "BER"]},
    )
    assert position.adjustments["FRA"] == 2
    for seed in range(5):
        builds = [o for o in orders_of(position, "FRA", seed) if isinstance(o, eo.Build)]
        assert len(builds) == 2
        assert {M.province_of[o.location] for o in builds} <= set(M.homes["FRA"])


def test_waives_only_when_the_free_home_centres_run_out() -> None:
    position = Position.build("W1901A", {"FRA": ["A PAR"]}, centers={"FRA": ["PAR", "MAR", "BRE", "SPA", "POR"]})
    orders = orders_of(position, "FRA", 0)
    assert sorted(M.name_of(M.province_of[o.location]) for o in orders if isinstance(o, eo.Build)) == ["BRE", "MAR"]
    assert orders.count(eo.Waive()) == len(orders) - 2


def test_removes_what_is_owed() -> None:
    position = Position.build(
        "W1901A",
        {"GER": ["A BER", "A MUN", "F KIE", "A RUH"], "FRA": ["A BUR"]},
        centers={"GER": ["BER", "MUN"], "FRA": ["PAR", "MAR", "BRE", "KIE"]},
    )
    assert position.adjustments["GER"] == -2
    for seed in range(5):
        removals = orders_of(position, "GER", seed)
        assert len(removals) == 2 and all(isinstance(o, eo.Disband) for o in removals)


def test_retreats_to_a_legal_place_never_two_to_one_and_disbands_without_one() -> None:
    position = Position.build(
        "F1902R",
        {"GER": ["A BUR", "A SPA", "A PIC"], "FRA": ["A PAR"]},
        dislodged={
            "A MAR": ("FRA", ["GAS"]),
            "A POR": ("FRA", []),
            "F BRE": ("FRA", ["MAO", "ECH"]),
            "A BEL": ("ENG", ["HOL", "RUH"]),
        },
    )
    for seed in range(5):
        by_place = {M.name_of(o.location): o for o in orders_of(position, "FRA", seed) if not isinstance(o, eo.Waive)}
        mar = by_place["MAR"]
        assert isinstance(mar, eo.Retreat) and M.name_of(mar.destination) == "GAS"
        assert isinstance(by_place["POR"], eo.Disband)
        assert isinstance(by_place["BRE"], eo.Retreat)
    crowded = Position.build(
        "F1902R",
        {"GER": ["A BUR", "A PAR"]},
        dislodged={"A MAR": ("FRA", ["GAS"]), "A BRE": ("FRA", ["GAS"])},
    )
    for seed in range(5):
        orders = orders_of(crowded, "FRA", seed)
        assert sorted(type(o).__name__ for o in orders) == ["Disband", "Retreat"]


# --- strength --------------------------------------------------------------------------------


@pytest.mark.parametrize("opponent", [HoldBot, RandomBot])
def test_beats_six_weak_bots(opponent: Callable[[random.Random], Bot]) -> None:
    """One DumbBot for each power in turn against six opponents, to 1910."""
    ours = theirs = wins = 0.0
    for i, me in enumerate(POWERS):
        last = play(one_against(opponent, me, i), 1910)[-1]
        counts = last.center_counts
        others = [k for power, k in counts.items() if power != me]
        ours += counts[me]
        theirs += sum(others) / len(others)
        wins += last.winner == me or counts[me] > max(others)
    assert ours > theirs
    assert wins >= 6
