"""D-Brane: invincible plans checked with the engine, the branch and bound, deals, credits,
concession, the notary in process, legal orders and replays."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Mapping, Sequence

import pytest

import bots.registry as registry
import engine.orders as eo
from bots.base import Bot, LegalOrders
from bots.dbrane import DBrane, DBraneNoNego
from bots.dbrane.nb3 import Ledger, credit
from bots.dbrane.tactics import STAY, Item, Plan, Tactics, order_of_key
from bots.dumbbot import DumbBot
from bots.inprocess import GameSetup, InProcessGame, play_game, seeds_for
from engine import Position, adjudicate, legal_orders, standard_map
from referee.settings import GameSettings

M = standard_map()


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """A D-Brane that checks its orders, in the registry for these tests."""
    monkeypatch.setitem(registry.BOTS, "dbrane:checked", "tests.bots.test_dbrane:CheckedDBrane")


def assert_legal(position: Position, power: str, legal: LegalOrders, orders: Sequence[eo.Order]) -> None:
    allowed = {o for options in legal.values() for o in options}
    for order in orders:
        assert order in allowed, (str(position.phase), power, eo.format_order(M, order))
    places = [M.province_of[o.location] for o in orders if not isinstance(o, eo.Waive)]
    assert len(places) == len(set(places))
    if position.phase.kind == "M":
        assert len(orders) == len(legal)


class CheckedDBrane(DBrane):
    """D-Brane that asserts its orders are legal, one per unit, every unit ordered."""

    name = "dbrane:checked"

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        orders = super().orders(position, legal)
        assert_legal(position, self.power, legal, orders)
        return orders


def dumbbot_positions(seed: int, last_year: int) -> list[Position]:
    """The movement positions of a game of seven DumbBots."""
    bots = {power: DumbBot(random.Random(seed * 10 + i)) for i, power in enumerate(M.powers)}
    for power, bot in bots.items():
        bot.start(power, M)
    position = Position.initial()
    seen = []
    while not position.completed and position.phase.year <= last_year:
        if position.phase.kind == "M":
            seen.append(position)
        orders = {p: bot.orders(position, legal_orders(position, p)) for p, bot in bots.items()}
        position = adjudicate(position, orders).position
    return seen


# --- the strategic component ------------------------------------------------------------------------


def _hostile(order: eo.Order, places: set[int]) -> bool:
    """An order that attacks, or helps attack, one of ``places`` (the plan's provinces)."""
    province = M.province_of
    if isinstance(order, eo.Move | eo.SupportMove | eo.Convoy):
        return province[order.destination] in places
    if isinstance(order, eo.SupportHold):
        return province[order.supported_location] in places
    return False


def replies(position: Position, power: str, plans: Sequence[Plan], rng: random.Random, samples: int):
    """Every order profile of the adversary units near the plans' targets (all of them when there
    are few, else a sample biased to hostile orders); the units further off hold."""
    targets = {plan.target for plan in plans}
    places = set(targets) | {u for plan in plans for u, _ in plan.orders}
    near = [
        u
        for u in position.units
        if u.power != power and min(M.distances[M.province_of[u.location]][t] for t in targets) <= 3
    ]
    options = [legal_orders(position, u.power)[u] for u in near]
    if math.prod(len(o) for o in options) <= samples:
        for choice in itertools.product(*options):
            yield dict(zip(near, choice, strict=True))
        return
    for _ in range(samples):
        choice = {}
        for unit, orders in zip(near, options, strict=True):
            hostile = [o for o in orders if _hostile(o, places)]
            choice[unit] = rng.choice(hostile if hostile and rng.random() < 0.85 else orders)
        yield choice


def conquers(position: Position, power: str, plans: Sequence[Plan], enemy: Mapping) -> bool:
    """Whether at least one plan takes (or keeps) its target when played against ``enemy``."""
    tactics = Tactics(position)
    keys = {u: k for plan in plans for u, k in plan.orders}
    ours = [
        order_of_key(tactics.board, M.province_of[u.location], keys.get(M.province_of[u.location], STAY))
        for u in position.units
        if u.power == power
    ]
    orders: dict[str, list[eo.Order]] = {power: ours}
    for unit, order in enemy.items():
        orders.setdefault(unit.power, []).append(order)
    after = adjudicate(position, orders).position
    return any(
        after.unit_at.get(plan.target, None) is not None and after.unit_at[plan.target].power == power for plan in plans
    )


def test_invincible_plans_and_pairs_win_against_every_reply_tried() -> None:
    rng = random.Random(7)
    checked_plans = checked_pairs = 0
    for position in [Position.initial(), *dumbbot_positions(3, 1905)[1::2]]:
        tactics = Tactics(position)
        for power in M.powers:
            view = tactics.view(power)
            items, _ = tactics.items(view, {})
            for item in items:
                if not item.invincible:
                    continue
                if len(item.plans) == 1 and checked_plans < 80:
                    checked_plans += 1
                elif len(item.plans) == 2:
                    checked_pairs += 1
                else:
                    continue
                for enemy in replies(position, power, item.plans, rng, 60):
                    assert conquers(position, power, item.plans, enemy), (str(position.phase), power, item, enemy)
    assert checked_plans >= 60 and checked_pairs >= 3, (checked_plans, checked_pairs)


def test_a_plan_that_is_not_invincible_has_a_reply_that_beats_it() -> None:
    position = Position.build("F1901M", {"ENG": ["F NTH"], "GER": ["A HOL", "A RUH"]})
    tactics = Tactics(position)
    strong, weak = tactics.plans(tactics.view("ENG"), M.location("BEL"), frozenset({"ENG"}))
    assert not strong and weak and weak[0].margin <= 0
    beaten = [
        e
        for e in replies(position, "ENG", weak[:1], random.Random(1), 200)
        if not conquers(position, "ENG", weak[:1], e)
    ]
    assert beaten  # e.g. A HOL - BEL, A RUH S A HOL - BEL


def test_the_branch_and_bound_finds_the_largest_compatible_set() -> None:
    # France's armies can each take one of several neutral centres; Germany and Italy stand by.
    position = Position.build(
        "F1901M",
        {"FRA": ["A BUR", "A PIC", "A GAS", "F MAO", "A PIE"], "GER": ["A KIE", "A BOH"], "ITA": ["A ROM"]},
        {"FRA": ["PAR", "BRE", "MAR"], "GER": ["KIE"], "ITA": ["ROM"]},
    )
    tactics = Tactics(position)
    view = tactics.view("FRA")
    items, _ = tactics.items(view, {})
    certain = [item for item in items if item.invincible]
    chosen = tactics.best_set([Item.of(*i.plans, value=1.0) for i in certain], {}, {}, {})
    best = 0
    for size in range(len(certain), 0, -1):
        for subset in itertools.combinations(certain, size):
            if _compatible(subset):
                best = size
                break
        if best:
            break
    assert len(chosen) == best >= 3
    assert _compatible(chosen)
    assert len({t for i in certain for t in i.targets}) > best or len(certain) > best  # a real choice


def _compatible(items: Sequence[Item]) -> bool:
    targets = [t for item in items for t in item.targets]
    if len(targets) != len(set(targets)):
        return False
    orders: dict[int, tuple] = {}
    moves: dict[int, int] = {}
    for item in items:
        for unit, key in item.orders:
            if unit in orders and orders[unit] != key and STAY not in (orders[unit], key):
                return False
            orders[unit] = key
        for destination, unit in item.moves:
            if moves.setdefault(destination, unit) != unit:
                return False
    return True


def test_a_deal_filters_the_plans() -> None:
    # England's fleet cannot take Belgium from the German army alone; with France's support it can.
    owned = {"ENG": ["EDI", "LON", "NWY", "DEN", "HOL"], "GER": ["BEL"]}  # nothing else to take
    position = Position.build("F1901M", {"ENG": ["F NTH"], "FRA": ["A PIC"], "GER": ["A BEL"]}, owned)
    tactics = Tactics(position)
    nth, pic, bel = (M.location(p) for p in ("NTH", "PIC", "BEL"))
    partners = frozenset({"FRA"})
    alone = tactics.solve("ENG", partners, True)
    supported = tactics.solve("ENG", partners, True, {pic: ("S", nth, bel)})
    assert bel not in {t for item in alone.items if item.invincible for t in item.targets}
    assert bel in {t for item in supported.items if item.invincible for t in item.targets}
    assert supported.orders == (eo.Move(eo.FLEET, nth, bel),)
    held = tactics.solve("ENG", partners, True, {pic: ("S", nth, bel), nth: ("H",)})
    assert held.orders == (eo.Hold(eo.FLEET, nth),) and held.guaranteed == alone.guaranteed
    view = tactics.view("ENG", partners, True, frozenset({pic}))
    items, _ = tactics.items(view, {pic: ("S", nth, bel)})
    assert any(item.invincible and item.targets == (bel,) for item in items)
    items, _ = tactics.items(tactics.view("ENG", partners, True), {})
    assert not any(item.invincible and item.targets == (bel,) for item in items)


def test_orders_are_legal_and_no_partner_is_attacked() -> None:
    bots: dict[str, Bot] = {power: DumbBot(random.Random(i)) for i, power in enumerate(M.powers)}
    bots["FRA"], bots["GER"] = DBraneNoNego(random.Random(1)), DBrane(random.Random(2))
    for power, bot in bots.items():
        bot.start(power, M)
    bots["GER"].partners = frozenset({"FRA"})  # type: ignore[attr-defined]
    position = Position.initial()
    while position.phase.year <= 1904:
        orders = {}
        for power, bot in bots.items():
            legal = legal_orders(position, power)
            if legal:
                orders[power] = bot.orders(position, legal)
                if isinstance(bot, DBraneNoNego):
                    assert_legal(position, power, legal, orders[power])
        for order in orders.get("GER", ()):  # Germany keeps the peace with France (implicit agreements)
            if isinstance(order, eo.Move | eo.SupportMove | eo.Retreat):
                into = M.province_of[order.destination]
                occupant = position.unit_at.get(into)
                assert position.centers[into] != "FRA", eo.format_order(M, order)
                assert occupant is None or occupant.power != "FRA" or position.phase.kind == "R"
        position = adjudicate(position, orders).position


# --- negotiation ---------------------------------------------------------------------------------


def test_credits_follow_equation_3_and_the_propositions() -> None:
    assert [credit(d) for d in (-2, -1, 0, 1, 2)] == pytest.approx([-1.2, -0.6, 0.0, 0.4, 0.8])
    ledger = Ledger()
    one = {("ENG", "FRA"): 1}
    assert ledger.gain("ENG", ["FRA"], one) == pytest.approx(0.4)  # giving, balance 0
    assert ledger.gain("FRA", ["ENG"], one) == pytest.approx(-0.6)  # receiving, balance 0
    ledger.give("FRA", "ENG", 2)  # England owes France two supports
    assert ledger.balance("ENG", "FRA") == -2
    assert ledger.gain("ENG", ["FRA"], one) == pytest.approx(0.6)  # paying back is worth more (prop. 5)
    assert ledger.gain("FRA", ["ENG"], one) == pytest.approx(-0.4)  # being paid back costs less (prop. 4)
    # proposition 2: a support that loses a centre is never worth giving
    assert -1 + ledger.gain("ENG", ["FRA"], one) < 0


def test_the_aspiration_concedes_towards_the_deadline() -> None:
    bot = DBrane(random.Random(1))
    bot.start("ENG", M)
    position = Position.initial()
    bot.on_phase(position)
    bot._best = 0.65
    levels = []
    for r in range(1, 5):
        bot.on_event({"type": "round", "round": r, "rounds": 5}, position)
        levels.append(bot._aspiration())
    assert levels == pytest.approx([0.5, 0.35, 0.2, 0.05])
    # over the network there are no rounds: every message is a moment
    bot.on_phase(position)
    bot._best = 0.65
    before = bot._aspiration()
    bot.on_event({"type": "phase"}, position)
    assert bot._aspiration() < before


def test_a_deal_is_proposed_accepted_confirmed_by_the_notary_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Tactics, "STAY", (0.9, 0.9))  # the German army all but surely holds in Belgium
    names = ("dbrane", "dbrane") + ("holdbot",) * 5
    bots = [registry.make_bot(name, seed) for name, seed in zip(names, seeds_for(4, 7), strict=True)]
    settings = GameSettings(name="hand-made", year_limit=1901)
    game = InProcessGame(bots, 4, settings, negotiates=True, rounds=5)
    powers = _powers_of(names, 4)
    england, france = powers[0], powers[1]
    others = [p for p in M.powers if p not in (england, france)]
    units = {england: ["F NTH"], france: ["A PIC"], others[0]: ["A BEL"]}
    units.update({p: [home] for p, home in zip(others[1:], ("A MOS", "A CON", "A NAP", "A VIE"), strict=False)})
    # every other centre next to the fleet or the army is already theirs: Belgium is the only prize
    owned = {england: ["EDI", "LON", "NWY", "DEN", "HOL"], france: ["PAR", "BRE"], others[0]: ["BEL"]}
    owned.update({p: [home[2:]] for p, home in zip(others[1:], ("A MOS", "A CON", "A NAP", "A VIE"), strict=False)})
    game.gm.board.position = Position.build("F1901M", units, owned)
    game.play()
    record = game.record(4, names, {})
    deals = [e for e in record.events if e["type"] == "confirmed" and "Commit" in e["deal"]]
    assert deals, [m["text"] for m in record.messages]
    assert "sup(Unit(" in deals[0]["deal"] and "Region(bel" in deals[0]["deal"]
    kept = [e for e in record.events if e["type"] == "compliance" and e["deal"] == deals[0]["deal"]]
    assert kept and all(r["kept"] for e in kept for r in e["reports"])
    first = record.phases[0]
    assert "F NTH - BEL" in first.orders[england] and first.results["F NTH"] == ("ok",)


def _powers_of(names: Sequence[str], seed: int) -> list[str]:
    """The powers the game master hands the slots in a game of ``seed`` (a dry run of the joining)."""
    bots = [registry.make_bot(name, s) for name, s in zip(names, seeds_for(seed, 7), strict=True)]
    game = InProcessGame(bots, seed, GameSettings(year_limit=1901))
    for slot in game.join_order:
        game.deliver(slot, game.sessions[slot].start())
    return [session.power or "" for session in game.sessions]


def test_a_seed_replays_a_game_exactly() -> None:
    setup = GameSetup(seed=21, bots=("dbrane:checked",) * 3 + ("dumbbot",) * 4, settings=GameSettings(year_limit=1902), rounds=5)
    first = json.dumps(play_game(setup).to_json(), sort_keys=True)
    assert json.dumps(play_game(setup).to_json(), sort_keys=True) == first
    other = GameSetup(seed=22, bots=setup.bots, settings=GameSettings(year_limit=1902), rounds=5)
    assert json.dumps(play_game(other).to_json(), sort_keys=True) != first
    assert any(m["kind"] == "propose" for m in json.loads(first)["messages"])
