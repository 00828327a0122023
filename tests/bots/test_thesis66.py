"""The DipGame thesis's experiment agents (bots/thesis66.py): the strategy, the proposal and acceptance rules, a game."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import ClassVar

import engine.orders as eo
from bots.base import Outgoing
from bots.dumbbot import DumbBot
from bots.inprocess import InProcessGame, seeds_for
from bots.registry import make_bot
from bots.thesis66 import Thesis66, Thesis66NoNego
from engine import Position, format_order, legal_orders
from engine.position import MOVEMENT, Unit
from protocol.l import ast as a
from protocol.l import parse, to_text
from referee.settings import GameSettings
from tests.bots.helpers import CENTRES

#: Italy asks France's army in Kiel to support its army from Tyrolia into Munich.
ITALY_ASKS = (
    "propose(ita, [fra], [Commit(fra, [ita], Do(sup(Unit(fra, Region(kie, amy)), mto(Unit(ita, Region(tyr, amy)),"
    " Region(mun, amy))))) Commit(ita, [fra], Do(mto(Unit(ita, Region(tyr, amy)), Region(mun, amy))))])"
)


def position(french_army: str, centres: Mapping[str, list[str]] = CENTRES) -> Position:
    """Spring 1902: a French army, Germany's army in Munich, Italy's in Tyrolia; every centre owned."""
    return Position.build("S1902M", {"FRA": [f"A {french_army}"], "GER": ["A MUN"], "ITA": ["A TYR"]}, centres)


def agent(power: str, p: Position, cls: type[Thesis66] = Thesis66) -> Thesis66:
    """An agent of ``power`` that has begun the phase of ``p`` (and read its ``phase`` frame)."""
    bot = cls(random.Random(1))
    bot.start(power, p.map)
    bot.on_phase(p)
    bot.on_event({"type": "phase", "phase": str(p.phase)}, p)
    return bot


def orders_text(p: Position, orders: Mapping[Unit, eo.Order]) -> set[str]:
    return {format_order(p.map, o) for o in orders.values()}


def test_both_agents_are_registered_and_share_the_thesis_strategy() -> None:
    nego, plain = make_bot("thesis66", 3), make_bot("thesis66:nonego", 3)
    assert isinstance(nego, Thesis66) and isinstance(plain, Thesis66NoNego)
    assert nego.negotiates and not plain.negotiates
    assert isinstance(nego, DumbBot) and isinstance(plain, DumbBot)
    for weights in (nego.SPRING, nego.FALL, nego.WINTER):
        assert len(weights.proximity) == 5  # spread over 5 steps (DumbBot: 10)
    start = Position.initial()
    for power in start.map.powers:
        nego.start(power, start.map)
        plain.start(power, start.map)
        legal = legal_orders(start, power)
        given = plain.orders(start, legal)
        assert given == nego.orders(start, legal)  # the same strategy, the same seed: the same orders
        assert all(o in legal[u] for u, o in zip(start.units_of(power), given, strict=True))
        assert not any(isinstance(o, eo.Convoy) or getattr(o, "via_convoy", False) for o in given)


def test_the_plan_holds_or_moves_to_the_best_place_and_supports_orders_at_risk() -> None:
    p = position("KIE")
    france = agent("FRA", p)
    plan = france.plan(p)
    assert orders_text(p, plan.orders) == {"A KIE H"}  # a German centre to keep for the fall
    italy = agent("ITA", p)
    plan = italy.plan(p)
    assert orders_text(p, plan.orders) == {"A TYR - MUN"}
    tyr = p.unit_in("TYR")
    assert tyr is not None and plan.strength[tyr] == 1 and italy.competence(plan.ends[tyr]) == 1  # at risk
    assert plan.risk == 1
    # an input plan comes first and the rest completes it
    fixed = {tyr: eo.Hold(tyr.type, tyr.location)}
    assert orders_text(p, italy.plan(p, fixed).orders) == {"A TYR H"}


def test_the_proposal_is_the_best_ranked_support_of_an_order_at_risk() -> None:
    p = position("KIE")
    italy = agent("ITA", p)
    options = italy.options(p, italy.plan(p))
    assert [(format_order(p.map, o.order), format_order(p.map, o.support), o.resolves) for o in options] == [
        ("A TYR - MUN", "A KIE S A TYR - MUN", True)
    ]
    fresh = Thesis66(random.Random(1))
    fresh.start("ITA", p.map)
    (said,) = fresh.on_phase(p)
    assert said == parse(ITALY_ASKS)
    # no one can help Germany into Tyrolia or Kiel: it proposes nothing
    germany = Thesis66(random.Random(1))
    germany.start("GER", p.map)
    assert germany.on_phase(p) == ()


def test_a_proposal_is_accepted_only_when_the_completed_plan_is_as_good() -> None:
    asked = parse(ITALY_ASKS)
    assert isinstance(asked, a.Propose)
    # Kiel would hold anyway: supporting costs nothing
    p = position("KIE")
    france = agent("FRA", p)
    base = france.plan(p)
    kie, tyr = p.unit_in("KIE"), p.unit_in("TYR")
    assert kie is not None and tyr is not None
    support = eo.SupportMove(kie.type, kie.location, tyr.type, tyr.location, p.map.location("MUN"))
    completed = france.plan(p, {kie: support}, foreign={p.map.location("MUN")})
    assert completed.utility == base.utility and completed.risk == base.risk
    (answer,) = france.on_message("ITA", asked, p)
    assert isinstance(answer, a.Accept) and answer.deal == asked.deal
    assert france.orders(p, legal_orders(p, "FRA")) == [support]  # and it keeps its word
    # Munich is a French centre: helping Italy into it is a conflict (the risk grows)
    mine = {**CENTRES, "FRA": [*CENTRES["FRA"], "MUN"], "GER": CENTRES["GER"][1:]}
    p2 = position("KIE", mine)
    france = agent("FRA", p2)
    assert france.plan(p2, {kie: support}, foreign={p2.map.location("MUN")}).risk == france.plan(p2).risk + 1
    (answer,) = france.on_message("ITA", asked, p2)
    assert isinstance(answer, a.Reject)


def test_a_proposal_is_rejected_when_the_unit_had_better_to_do() -> None:
    p = position("BUR")
    france = agent("FRA", p)
    assert orders_text(p, france.plan(p).orders) == {"A BUR - RUH"}
    asked = parse(ITALY_ASKS.replace("kie", "bur"))
    (answer,) = france.on_message("ITA", asked, p)
    assert isinstance(answer, a.Reject)
    # anything but orders is rejected too
    peace = parse("propose(ita, fra, Agree([fra ita], pce([fra ita])))")
    (answer,) = france.on_message("ITA", peace, p)
    assert isinstance(answer, a.Reject)


class Witness(Thesis66):
    """Thesis66 that notes, for every proposal it answers, what the rule says of it: the plans
    compared, and whether the units asked for are free."""

    notes: ClassVar[list[tuple[str, bool, bool]]] = []

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        verdict = None
        if isinstance(message, a.Propose) and self._fresh and position.phase.kind == MOVEMENT:
            read = self._read(position, message.deal, sender)
            if read is not None and read[0]:
                c = self._commitments
                base = self.plan(position, c.ours, c.promised, c.foreign)
                foreign = c.foreign | self._foreign_of(position, read[0].values())
                completed = self.plan(position, {**c.ours, **read[0]}, c.promised, foreign)
                taken = any(
                    c.ours.get(unit, order) != order or self._reserved.get(unit, order) != order
                    for unit, order in read[0].items()
                )  # the unit is bound otherwise this phase (a deal, or our own pending proposal)
                verdict = completed.at_least_as_good_as(base) and not taken
        out = list(super().on_message(sender, message, position))
        if verdict is not None:
            kinds = {type(m).__name__ for m in out}
            Witness.notes.append((to_text(message.deal), verdict, kinds == {"Accept"}))
        return out


def test_a_game_with_negotiation_makes_support_deals_by_the_rules() -> None:
    Witness.notes = []
    names = ("thesis66",) * 4 + ("thesis66:nonego",) * 3
    game_seed, *bot_seeds = seeds_for(1, 8)
    bots = [
        Witness(random.Random(s)) if n == "thesis66" else Thesis66NoNego(random.Random(s))
        for n, s in zip(names, bot_seeds, strict=True)
    ]
    game = InProcessGame(bots, game_seed, GameSettings(year_limit=1903), None, True, 3)
    game.play()
    record = game.record(1, names, {})
    assert all(not s.discarded and not s.rejected for s in game.sessions)
    kinds = Counter(m["kind"] for m in record.messages)
    assert kinds["propose"] > 0 and kinds["accept"] > 0 and kinds["reject"] > 0
    # every answer follows the rule, and both answers occur
    assert Witness.notes and all(verdict == accepted for _, verdict, accepted in Witness.notes)
    assert {accepted for _, _, accepted in Witness.notes} == {True, False}
    nego = {p for p, n in record.bots.items() if n == "thesis66"}
    for message in record.messages:  # only the negotiating agents talk, in level 1 of L
        assert message["sender"] in nego and message["level"] == 1
    confirmed = [e for e in record.events if e["type"] == "confirmed"]
    assert confirmed and all("sup(" in e["deal"] and "mto(" in e["deal"] for e in confirmed)
    reports = [r for e in record.events if e["type"] == "compliance" for r in e["reports"]]
    assert reports and all(r["kept"] for r in reports)  # the agents keep their deals
