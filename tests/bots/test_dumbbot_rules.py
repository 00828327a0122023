"""The rules our DumbBot shares with David Norman's C++ DumbBot, each in a position where it decides.

Each test names the rule of ``bots/dumbbot.py``'s docstring it pins down. Some replace the
values of the board by chosen ones (:class:`Values`), so that the rule alone decides.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

import pytest

import engine.orders as eo
from bots.dumbbot import DumbBot, Weights, _Appraisal, _geometry, _keyed, _tdiv
from engine import Position, legal_orders, standard_map

M = standard_map()
G = _geometry(M)


def node(place: str, fleet: bool = False) -> int:
    return G.node[int(fleet)][M.location(place)]


class Values:
    """A stand-in for ``_Appraisal``: chosen values (0 elsewhere) and competition (0 elsewhere)."""

    def __init__(self, values: Mapping[int, int], competition: Mapping[str, int] = {}) -> None:
        self.geometry = G
        self._values = values
        self._competition = {M.location(p): k for p, k in competition.items()}

    def __call__(self, n: int) -> int:
        return self._values.get(n, 0)

    def competition(self, province: int) -> int:
        return self._competition.get(province, 0)


class Scripted(random.Random):
    """An rng whose ``randrange`` always gives ``draw``: 99 never passes on, 0 always does (below the bar)."""

    def __init__(self, draw: int) -> None:
        super().__init__(0)
        self.draw = draw

    def randrange(self, *args, **kwargs) -> int:  # type: ignore[no-untyped-def, override]
        return self.draw


def movement(position: Position, power: str, value: Values, rng: random.Random) -> dict[str, eo.Order]:
    bot = DumbBot(rng)
    bot.start(power, M)
    units = [u for u in legal_orders(position, power) if u is not None]
    return {M.locations[o.location]: o for o in bot._movement(position, units, value)}  # type: ignore[arg-type]


# --- choosing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ((1000, 950), 0.5 * 0.75),  # bar trunc(500 * 50 / 1000) = 25 per cent
        ((1000, 999), 0.5),  # bar trunc(0.5) = 0
        ((1000, 800), 0.0),  # bar 100: never
        ((1000, 700), 0.0),  # bar 150, clipped
        ((-1000, -5000), 0.5),  # a negative best: a negative bar, no bar at all
        ((0, -5000), 0.5),  # a best of 0: no bar
    ],
)
def test_passing_to_the_next_is_half_a_chance_times_what_the_bar_leaves(values: tuple, expected: float) -> None:
    """C++: pass on if rand()%100 < 50 and rand()%100 >= (here - next) * 500 / here (integers)."""
    bot = DumbBot(random.Random(5))
    draws = 20_000
    passed = sum(bot._pick(values) for _ in range(draws)) / draws
    assert passed == pytest.approx(expected, abs=0.015)


def test_the_bar_is_an_integer_division_truncated_toward_zero() -> None:
    assert _tdiv(50 * 500, 1000) == 25 and _tdiv(49_999, 1000) == 49
    assert _tdiv(-4000 * 500, -1000) == 2000 and _tdiv(4000 * 500, -1000) == -2000 and _tdiv(-7, 5) == -1
    always = DumbBot(Scripted(0))
    assert always._pick((1000, 999, 998, 997)) == 3  # bar 0 everywhere: every draw of 0 passes on
    assert always._pick((1000, 900, 899)) == 0  # bar 50: a draw of 0 is below it


def test_equal_values_keep_the_first_candidate_in_daide_order() -> None:
    """C++ keys candidates by value in a std::map: insert keeps the first, assignment the last."""
    assert _keyed([(5, 1), (7, 2), (5, 3)]) == [(7, 2), (5, 1)]
    assert _keyed([(5, 1), (7, 2), (5, 3)], keep_last=True) == [(7, 2), (5, 3)]


def test_nodes_are_numbered_in_daide_token_order() -> None:
    """Inland, sea, coastal, bicoastal provinces (each without, then with, a centre); army, fleet, coasts."""
    order = [node("BOH"), node("UKR"), node("BUD"), node("ADR", True), node("ALB"), node("ALB", True)]
    order += [node("ANK"), node("STP"), node("STP/NC", True), node("STP/SC", True)]
    assert order == sorted(order)
    assert node("SPA/NC", True) < node("SPA/SC", True) and node("BUL/EC", True) < node("BUL/SC", True)


# --- values ---------------------------------------------------------------------------------------


def one_sweep(seeds: Mapping[int, int]) -> _Appraisal:
    """An appraisal whose only seeds are ``seeds`` and whose value is ``proximity[1]`` alone."""
    weights = Weights(0, 0, (0, 1, 0, 0, 0, 0, 0, 0, 0, 0), 0, 0)
    appraisal = _Appraisal(Position.initial(), "FRA", weights, DumbBot.SIZE)
    appraisal._seeds = [seeds.get(n, 0) for n in G.centres]
    return appraisal


def test_a_province_reached_by_two_coasts_counts_once_by_the_better() -> None:
    value = one_sweep({node("SPA/NC", True): 1000, node("SPA/SC", True): 600})
    assert value(node("MAO", True)) == 1000 // 5  # not (1000 + 600) / 5
    assert value(node("POR", True)) == 1000 // 5
    assert value(node("GAS", True)) == 1000 // 5  # next to the north coast only
    assert value(node("MAR", True)) == 600 // 5
    assert value(node("GAS")) == 0  # the army node of Spain had no seed


def test_proximities_are_whole_numbers_rounded_down() -> None:
    value = one_sweep({node("SPA/NC", True): 999})
    assert value(node("MAO", True)) == 199
    start = _Appraisal(Position.initial(), "FRA", DumbBot.SPRING, DumbBot.SIZE)
    assert all(isinstance(start(n), int) for n in range(len(G.province)))


def test_a_fleet_next_to_two_coasts_counts_twice_for_strength() -> None:
    position = Position.build("S1902M", {"FRA": ["F MAO", "A GAS"], "ITA": ["F WES"]})
    value = _Appraisal(position, "FRA", DumbBot.SPRING, DumbBot.SIZE)
    spa = M.location("SPA")
    assert value.strength(spa) == 3  # MAO by both coasts, GAS once
    assert value.strength(M.location("MAO")) == 1  # the fleet stands there
    assert value.competition(spa) == 1  # WES is next to the south coast only


def test_a_unit_on_our_centre_is_no_threat_to_it_one_next_door_is() -> None:
    """The defence value counts units that could move in, not the one already in."""
    centres = {"FRA": ["PAR", "BRE", "MAR"], "GER": ["MUN", "BER", "KIE", "HOL", "DEN"]}
    inside = Position.build("F1903M", {"FRA": ["A GAS"], "GER": ["A PAR"]}, centers=centres)
    assert _Appraisal(inside, "FRA", DumbBot.FALL, DumbBot.SIZE).defence(M.location("PAR")) == 0
    next_door = Position.build("F1903M", {"FRA": ["A GAS"], "GER": ["A BUR"]}, centers=centres)
    germany = 5 * 5 + 4 * 5 + 16
    assert _Appraisal(next_door, "FRA", DumbBot.FALL, DumbBot.SIZE).defence(M.location("PAR")) == germany


# --- movement -------------------------------------------------------------------------------------


def test_holding_is_worth_one_more_than_standing_so_it_wins_a_tie() -> None:
    position = Position.build("S1902M", {"GER": ["A MUN"]})
    tie = Values({node("MUN"): 100, node("BOH"): 100})
    assert movement(position, "GER", tie, Scripted(99))["MUN"] == eo.Hold(0, M.location("MUN"))


def test_a_move_worth_exactly_one_more_than_standing_hides_the_hold() -> None:
    """The hold goes in last, at value + 1: a move already keyed there keeps its place."""
    position = Position.build("S1902M", {"GER": ["A MUN"]})
    value = Values({node("MUN"): 10_000, node("BOH"): 10_001, node("TYR"): 9_999})
    seen = Counter(type(movement(position, "GER", value, random.Random(s))["MUN"]).__name__ for s in range(200))
    assert seen["Hold"] == 0 and seen["Move"] == 200


def test_a_unit_waits_for_ours_in_its_way_and_follows_it_out() -> None:
    position = Position.build("S1902M", {"GER": ["A MUN", "A BOH"]})
    value = Values({node("BOH"): 5_000, node("GAL"): 10_000, node("MUN"): 100})
    for seed in range(30):
        orders = movement(position, "GER", value, random.Random(seed))
        assert orders["BOH"] == eo.Move(0, M.location("BOH"), M.location("GAL"))
        assert orders["MUN"] == eo.Move(0, M.location("MUN"), M.location("BOH"))


def test_two_units_that_want_each_others_place_end_with_orders_and_no_swap() -> None:
    """The C++ bot would wait for ever here; ours holds the unit that has waited ``MAX_WAITS`` times."""
    position = Position.build("S1902M", {"GER": ["A KIE", "F BER"]})
    value = Values({node("BER"): 10_000, node("KIE"): 10, node("KIE", True): 10_000, node("BER", True): 10})
    for seed in range(10):
        orders = movement(position, "GER", value, random.Random(seed))
        assert orders == {"KIE": eo.Hold(0, M.location("KIE")), "BER": eo.Hold(1, M.location("BER"))}


def test_a_holding_unit_supports_only_what_is_worth_more_than_nothing_to_it() -> None:
    """The worth is that of the place to the supporting unit (here a fleet), not to the mover."""
    position = Position.build("S1902M", {"GER": ["F KIE", "A PRU"], "RUS": ["A SIL"]})
    for worth in (0, 50):
        value = Values({node("KIE", True): 100_000, node("BER"): 5_000, node("BER", True): worth}, {"BER": 1})
        orders = movement(position, "GER", value, Scripted(99))
        assert orders["PRU"] == eo.Move(0, M.location("PRU"), M.location("BER"))
        if worth:
            assert orders["KIE"] == eo.SupportMove(1, M.location("KIE"), 0, M.location("PRU"), M.location("BER"))
        else:
            assert orders["KIE"] == eo.Hold(1, M.location("KIE"))


# --- adjustments ----------------------------------------------------------------------------------


def test_builds_whatever_the_builds_are_worth() -> None:
    """No waiving while a free home centre is left, even when every build is worth less than nothing."""

    class Spiteful(DumbBot):  # every centre repels: all values negative, and all different
        WINTER = Weights(-1, 0, DumbBot.WINTER.proximity, 0, 0, 0)

    position = Position.build("W1901A", {"FRA": ["A SPA"]}, centers={"FRA": ["PAR", "MAR", "BRE", "SPA"]})
    for seed in range(5):
        bot = Spiteful(random.Random(seed))
        bot.start("FRA", M)
        orders = bot.orders(position, legal_orders(position, "FRA"))
        built = sorted(M.locations[M.province_of[o.location]] for o in orders if isinstance(o, eo.Build))
        assert built == ["BRE", "MAR", "PAR"]


def test_builds_of_equal_value_hide_each_other() -> None:
    """All worth 0: only the first build in DAIDE order (Paris, an inland centre) is ever a candidate."""

    class Indifferent(DumbBot):
        WINTER = Weights(0, 0, (0,) * 10, 0, 0, 0)

    position = Position.build("W1901A", {"FRA": ["A SPA"]}, centers={"FRA": ["PAR", "MAR", "BRE", "SPA"]})
    bot = Indifferent(random.Random(0))
    bot.start("FRA", M)
    orders = bot.orders(position, legal_orders(position, "FRA"))
    assert orders == [eo.Build(0, M.location("PAR")), eo.Waive(), eo.Waive()]


def test_removals_pass_on_with_even_odds_whatever_the_gap() -> None:
    """From the least valuable up, (here - next) / here is negative for positive values: no bar."""
    position = Position.build(
        "W1903A",
        {"GER": ["A BER", "A MUN", "F KIE", "A SIL"], "RUS": ["A WAR"]},
        centers={"GER": ["BER", "MUN", "KIE"], "RUS": ["WAR", "MOS", "SEV", "STP"]},
    )
    assert position.adjustments["GER"] == -1
    value = _Appraisal(position, "GER", DumbBot.WINTER, DumbBot.SIZE)
    units = sorted(position.units_of("GER"), key=lambda u: value(G.node[u.type][u.location]))
    worths = [value(G.node[u.type][u.location]) for u in units]
    assert all(w > 0 for w in worths) and len(set(worths)) == 4
    assert (worths[1] - worths[0]) * 5 > worths[0]  # a gap the old bar would never have let pass
    counts = Counter()
    draws = 4000
    for seed in range(draws):
        bot = DumbBot(random.Random(seed))
        bot.start("GER", M)
        (order,) = bot.orders(position, legal_orders(position, "GER"))
        counts[M.locations[order.location]] += 1
    shares = [counts[M.locations[u.location]] / draws for u in units]
    for share, expected in zip(shares, (1 / 2, 1 / 4, 1 / 8, 1 / 8), strict=True):
        assert share == pytest.approx(expected, abs=0.03)
