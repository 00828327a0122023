"""HANA (bots/hana): belief review, personalities and broken deals, replay, proposing early, keeping commitments."""

from __future__ import annotations

import math
import random

import pytest

from bots.hana import Hana, HanaNoNego, HanaPacifist, HanaRevenger, HanaWait
import engine.orders as eo
from bots.hana.beliefs import Beliefs, degree, normalise, relative_entropy, review, uncertainty
from bots.hana.negotiation import read
from bots.hana.search import Plan
from bots.inprocess import GameSetup, play_game
from bots.registry import make_bot
from engine import Position, format_order, legal_orders
from engine.position import Unit
from protocol.l import parse
from protocol.l import ast as a
from referee.binding import binding_orders
from referee.compliance import attacks
from referee.settings import GameSettings
from tests.bots.helpers import CENTRES


def tyrolia() -> Position:
    """Spring 1902: Italy's army in Tyrolia could take Munich from Germany with the French army's support."""
    return Position.build("S1902M", {"FRA": ["A BUR"], "GER": ["A MUN"], "ITA": ["A TYR"]}, CENTRES)


def agent(cls: type[Hana], power: str, p: Position, seed: int = 1) -> Hana:
    bot = cls(random.Random(seed))
    bot.start(power, p.map)
    return bot


# --- the belief review (definition 18, footnote 3) -----------------------------------------------------


def random_distribution(rng: random.Random, n: int) -> dict[int, float]:
    weights = [rng.random() + 0.01 for _ in range(n)]
    total = sum(weights)
    return {i: w / total for i, w in enumerate(weights)}


@pytest.mark.parametrize("seed", range(20))
def test_review_keeps_the_new_beliefs_sums_to_one_and_keeps_old_proportions(seed: int) -> None:
    rng = random.Random(seed)
    old = random_distribution(rng, rng.randint(2, 7))
    fixed = rng.sample(sorted(old), rng.randint(1, len(old) - 1))
    share = rng.random()
    new = {k: share / len(fixed) for k in fixed}
    out = review(old, new)
    assert math.isclose(sum(out.values()), 1.0)
    assert all(math.isclose(out[k], v) for k, v in new.items())
    free = [k for k in old if k not in new]
    ratios = {out[k] / old[k] for k in free}
    assert max(ratios) - min(ratios) < 1e-9  # the rest keeps its old proportions


@pytest.mark.parametrize("seed", range(20))
def test_review_is_the_minimum_relative_entropy_distribution(seed: int) -> None:
    """No other distribution that satisfies the new beliefs is closer (in KL) to the old one."""
    rng = random.Random(100 + seed)
    old = random_distribution(rng, 5)
    new = {0: 0.4 * rng.random()}
    best = review(old, new)
    base = relative_entropy(best, old)
    for _ in range(50):
        other = random_distribution(rng, 4)
        candidate = {0: new[0], **{k + 1: v * (1 - new[0]) for k, v in other.items()}}
        assert relative_entropy(candidate, old) >= base - 1e-12


def test_set_constraints_and_degenerate_cases() -> None:
    out = normalise({"a": 0.2, "b": 0.3, "c": 0.5}, {frozenset({"a", "b"}): 0.1})
    assert math.isclose(out["a"] / out["b"], 0.2 / 0.3) and math.isclose(out["c"], 0.9)
    assert review({"a": 0.5, "b": 0.5}, {"a": 0.7, "b": 0.6}) == pytest.approx({"a": 0.7 / 1.3, "b": 0.6 / 1.3})
    assert review({"a": 1.0}, {"b": 1.0}) == {"a": 0.0, "b": 1.0}  # a new event takes its place


def test_uncertainty_is_zero_when_certain_and_one_when_uniform() -> None:
    assert uncertainty([{"a": 1.0, "b": 0.0}]) == 0.0
    assert math.isclose(uncertainty([{i: 0.25 for i in range(4)}]), 1.0)
    p = Position.initial()
    unit = p.unit_in("PAR")
    assert isinstance(unit, Unit)
    beliefs = Beliefs({unit: {"x": 0.5, "y": 0.5}}).committed({unit: "x"})  # type: ignore[dict-item]
    assert beliefs.uncertainty() == 0.0  # a commitment at degree 1 removes the uncertainty
    other = p.unit_in("MAR")
    assert other is not None
    two = {unit: {"x": 0.5, "y": 0.5}, other: {"z": 0.2, "w": 0.8}}
    assert math.isclose(degree(two, [(unit, "x"), (other, "z")]), 0.1)  # type: ignore[list-item]  # eq. 5.3


# --- registration -------------------------------------------------------------------------------------


def test_registered_with_their_personalities() -> None:
    kinds = {"hana": Hana, "hana:revenger": HanaRevenger, "hana:pacifist": HanaPacifist, "hana:wait": HanaWait,
             "hana:nonego": HanaNoNego}  # fmt: skip
    for name, cls in kinds.items():
        bot = make_bot(name, 1)
        assert type(bot) is cls and bot.name == name and bot.negotiates
    assert make_bot("hana:revenger", 1).personality.name == "revenger"  # type: ignore[attr-defined]


# --- proposals from the first round, or once the search is done ------------------------------------------


def rounds_of(bot: Hana, p: Position, rounds: int = 3) -> list[list[str]]:
    said = [[str(m) for m in bot.on_phase(p)]]
    for r in range(1, rounds):
        said.append([str(m) for m in bot.on_event({"type": "round", "round": r, "rounds": rounds}, p)])
    return said


def test_hana_proposes_from_the_first_round_and_wait_only_when_its_search_is_done() -> None:
    p = tyrolia()
    early = rounds_of(agent(Hana, "ITA", p), p)
    late = rounds_of(agent(HanaWait, "ITA", p), p)
    support = "sup(Unit(fra, Region(bur, amy)), mto(Unit(ita, Region(tyr, amy)), Region(mun, amy)))"
    assert any(support in m and m.startswith("propose(ita, [fra]") for m in early[0])
    assert late[0] == [] and late[1] == []
    assert any(support in m for m in late[2])


def test_proposals_wait_for_the_negotiation_to_open_the_phase() -> None:
    """After the first phase, a phase the game server told before the negotiation server opened
    it gets its proposals when the negotiation's ``phase`` frame comes; hana:wait still waits."""
    p = tyrolia()
    said = {}
    for cls in (Hana, HanaWait):
        bot = agent(cls, "ITA", p)
        bot.first = "S1901M"
        assert [str(m) for m in bot.on_phase(p)] == []
        said[cls.name] = [str(m) for m in bot.on_event({"type": "phase", "phase": str(p.phase)}, p)]
    assert any(m.startswith("propose(ita, [fra]") for m in said["hana"])
    assert said["hana:wait"] == []


def test_over_the_network_an_answer_moves_the_clock_and_the_orders_revised_keep_what_follows() -> None:
    """Over the network the orders are asked for as the phase opens and no round is told: an
    answer received is a step of the negotiation's time (after a rejection HANA proposes
    again, after its orders), and the orders it revises then (which the client sends if
    they changed) keep what it proposes."""
    p = Position.initial()
    bot = make_bot("hana", 0)
    bot.start("RUS", p.map)
    first = [m for m in bot.on_phase(p) if isinstance(m, a.Propose) and m.receivers == {"AUS"}]
    assert first
    legal = legal_orders(p, "RUS")
    assert bot.revised_orders(p, legal) is None  # nothing given yet: nothing to revise
    bot.orders(p, legal)
    then = bot.on_message("AUS", a.Reject("aus", frozenset({"rus"}), first[0].deal), p)
    again = [m for m in then if isinstance(m, a.Propose)]
    assert again and all(m.deal != first[0].deal for m in again)
    revised = bot.revised_orders(p, legal)
    assert revised is not None
    for m in again:
        assert set(binding_orders([m.deal], p).get("RUS", [])) <= set(revised)


def test_the_search_spends_its_node_budget_per_round() -> None:
    """The anytime search is counted in plan evaluations: at most NODES a round, so a seeded
    game costs the same on any machine."""
    p = piedmont()
    bot = agent(HanaNoNego, "ITA", p)
    bot.on_phase(p)
    first = bot.nodes
    bot.on_event({"type": "round", "round": 1, "rounds": 3}, p)
    assert 0 < first <= bot.NODES and 0 < bot.nodes - first <= bot.NODES


def test_nonego_never_proposes_and_rejects() -> None:
    p = tyrolia()
    bot = agent(HanaNoNego, "ITA", p)
    assert rounds_of(bot, p) == [[], [], []]
    offer = parse("propose(ger, [ita], Agree([ger ita], pce([ger ita])))")
    assert isinstance(bot.on_message("GER", offer, p)[0], a.Reject)


def test_a_confirmed_deal_is_kept() -> None:
    """Italy promises to stay in Tyrolia and support nothing else: its orders keep it."""
    p = tyrolia()
    bot = agent(Hana, "ITA", p)
    bot.on_phase(p)
    deal = ("[Commit(ita, [fra], Do(hld(Unit(ita, Region(tyr, amy)))))"
            " Commit(fra, [ita], Do(hld(Unit(fra, Region(bur, amy)))))]")  # fmt: skip
    bot.on_event({"type": "confirmed", "deal": deal, "participants": ["FRA", "ITA"], "phase": str(p.phase)}, p)
    assert [format_order(p.map, o) for o in bot.orders(p, legal_orders(p, "ITA"))] == ["A TYR H"]


def test_a_peace_is_kept_for_the_rest_of_the_game() -> None:
    p = tyrolia()
    bot = agent(Hana, "ITA", p)
    bot.on_phase(p)
    deal = "Agree([ger ita], pce([ger ita]))"
    bot.on_event({"type": "confirmed", "deal": deal, "participants": ["GER", "ITA"], "phase": str(p.phase)}, p)
    later = Position.build("F1902M", {"FRA": ["A BUR"], "GER": ["A MUN"], "ITA": ["A TYR"]}, CENTRES)
    for position in (p, later):
        orders = [format_order(p.map, o) for o in bot.orders(position, legal_orders(position, "ITA"))]
        assert orders != ["A TYR - MUN"]


def test_a_deal_the_notary_confirmed_overrules_one_we_accepted_after_it() -> None:
    """We accepted a deal (bound at once) that clashes with one the notary had already
    confirmed: ours will get a conflict, perhaps only after the phase (experiment E,
    informative, game 5, F1905M): the confirmed one's orders are given."""
    p = tyrolia()
    bot = agent(Hana, "ITA", p)
    bot.on_phase(p)
    move = ("[Commit(ita, [fra], Do(mto(Unit(ita, Region(tyr, amy)), Region(mun, amy))))"
            " Commit(fra, [ita], Do(sup(Unit(fra, Region(bur, amy)),"
            " mto(Unit(ita, Region(tyr, amy)), Region(mun, amy)))))]")  # fmt: skip
    hold = ("[Commit(ita, [fra], Do(hld(Unit(ita, Region(tyr, amy)))))"
            " Commit(fra, [ita], Do(hld(Unit(fra, Region(bur, amy)))))]")  # fmt: skip
    deal = bot._parse_deal(p, move)
    assert deal is not None
    terms = read(p, "ITA", deal)
    assert terms is not None
    bot._bind(bot._phase(p), move, terms)  # what accepting France's proposal does
    bot.on_event({"type": "confirmed", "deal": hold, "participants": ["FRA", "ITA"], "phase": str(p.phase)}, p)
    assert [format_order(p.map, o) for o in bot.orders(p, legal_orders(p, "ITA"))] == ["A TYR H"]


def test_a_peace_confirmed_as_a_phase_ends_binds_from_the_next_phase() -> None:
    """In process, what is confirmed in a phase's last round is told as the next phase opens
    (experiment E, game 1: Turkey accepted Austria's peace in Spring 1902's last round, and
    Austria's F AEG - CON broke it in the fall). The peace holds from its phase on, as the
    referee checks it: no attack on the partner, in the referee's own sense."""
    p = tyrolia()
    fall = Position.build("F1902M", {"FRA": ["A BUR"], "GER": ["A BER"], "ITA": ["A TYR", "A VEN"],
                                     "AUS": ["A TRI", "A VIE"]}, CENTRES)  # fmt: skip
    late = {"type": "confirmed", "deal": "Agree([ger ita], pce([ger ita]))", "participants": ["GER", "ITA"],
            "phase": str(p.phase)}  # fmt: skip
    hits = []
    for told in (False, True):
        bot = agent(Hana, "ITA", p)
        bot.on_phase(p)
        bot.orders(p, legal_orders(p, "ITA"))
        bot.on_phase(fall)
        if told:
            bot.on_event(late, fall)
        given = bot.orders(fall, legal_orders(fall, "ITA"))
        hits.append([h for h in attacks(fall, {"ITA": given}) if h.victim == "GER"])
    assert hits[0], "without the peace HANA would not attack Germany: the test shows nothing"
    assert hits[1] == []


def test_no_retreat_into_a_partners_centre() -> None:
    """The referee counts a retreat into a partner's supply centre as an attack."""
    board = Position.build("F1902R", {"GER": ["A BER"], "FRA": ["A BOH"]}, CENTRES,
                           dislodged={"A BOH": ("ITA", ["MUN", "TYR", "GAL", "VIE"])})  # fmt: skip
    hits = []
    for peace in (False, True):
        bot = agent(Hana, "ITA", board)
        if peace:
            bot.on_event({"type": "confirmed", "deal": "Agree([ger ita], pce([ger ita]))",
                          "participants": ["GER", "ITA"], "phase": "S1902M"}, board)  # fmt: skip
        given = bot.orders(board, legal_orders(board, "ITA"))
        hits.append([h for h in attacks(board, {"ITA": given}) if h.victim == "GER"])
    assert hits[0], "without the peace HANA would not retreat into Munich: the test shows nothing"
    assert hits[1] == []


# --- personalities: a broken deal ---------------------------------------------------------------------------


def broken(deal: str, phase: str = "S1902M") -> dict[str, object]:
    return {"type": "compliance", "phase": phase, "deal": deal, "participants": ["FRA", "ITA"],
            "reports": [{"power": "fra", "part": "pce([fra ita])", "kept": False, "detail": "A BUR - MAR attacks ita"},
                        {"power": "ita", "part": "pce([fra ita])", "kept": True,
                         "detail": "no attack on fra"}]}  # fmt: skip


def piedmont() -> Position:
    """Spring 1902: Italy's army in Piedmont is next to France's Marseilles."""
    return Position.build("S1902M", {"FRA": ["A BUR"], "ITA": ["A PIE", "A TYR"]}, CENTRES)


def test_a_broken_deal_lowers_trust_and_a_revenger_wants_revenge_more_than_a_pacifist() -> None:
    p = piedmont()
    reactions = {}
    for cls in (HanaPacifist, Hana, HanaRevenger):
        bot = agent(cls, "ITA", p)
        before = bot.trust.of("FRA")
        bot.on_event(broken("Agree([fra ita], pce([fra ita]))"), p)
        assert bot.trust.of("FRA") < before
        reactions[cls.name] = bot._intentions(p).attack.get("FRA", 0.0)
    assert reactions["hana:pacifist"] < reactions["hana"] < reactions["hana:revenger"]
    assert reactions["hana:pacifist"] == 0.0


def test_a_revenger_refuses_peace_with_a_deal_breaker_and_stops_talking_to_it() -> None:
    p = piedmont()
    peace = parse("propose(fra, [ita], Agree([fra ita], pce([fra ita])))")
    answers = {}
    for cls in (HanaPacifist, HanaRevenger):
        bot = agent(cls, "ITA", p)
        bot.on_phase(p)
        for phase in ("F1901M", "S1902M"):
            bot.on_event(broken("Agree([fra ita], pce([fra ita]))", phase), p)
        answers[cls.name] = bot.on_message("FRA", peace, p)
        assert "FRA" not in {o.to for o, _ in bot._options(bot._phase(p))} or cls is HanaPacifist
    assert isinstance(answers["hana:revenger"][0], a.Reject)


def test_revenge_makes_plans_against_the_breaker_worth_more() -> None:
    """Example 3: the revengeful agent values damaging the breaker beyond its rational utility."""
    p = piedmont()
    m = p.map
    pie, tyr = p.unit_in("PIE"), p.unit_in("TYR")
    assert pie is not None and tyr is not None
    hold = Plan(((pie, eo.Hold(pie.type, pie.location)), (tyr, eo.Hold(tyr.type, tyr.location))))
    attack = Plan(((pie, eo.Move(pie.type, pie.location, m.location("MAR"))), hold.orders[1]))
    gains = []
    for cls in (Hana, HanaRevenger):
        bot = agent(cls, "ITA", p)
        for phase in ("F1901M", "S1902M"):
            bot.on_event(broken("Agree([fra ita], pce([fra ita]))", phase), p)
        s = bot._phase(p)
        futures = bot._futures(s, s.prior)
        gains.append(s.evaluator.expected(attack, futures) - s.evaluator.expected(hold, futures))
    assert gains[1] > gains[0]


# --- whole games ----------------------------------------------------------------------------------------------


def test_a_seeded_game_replays_exactly() -> None:
    bots = ("hana", "hana:revenger", "deal-breaker", "always-accept", "dumbbot", "dumbbot", "dumbbot")
    setup = GameSetup(seed=11, bots=bots,
                      settings=GameSettings(year_limit=1902))  # fmt: skip
    first, second = play_game(setup), play_game(setup)
    assert first.to_json() == second.to_json()
    hana = {p.lower() for p, bot in first.bots.items() if bot.startswith("hana")}  # as L text writes them
    assert any(m.get("kind") == "propose" and m["text"][len("propose(") :][:3] in hana for m in first.messages)


def test_hana_keeps_every_commitment_its_partners_keep() -> None:
    """With partners that accept everything and keep nothing in particular, every compliance
    report on a HANA power's part of a deal whose other side was kept says kept."""
    setup = GameSetup(seed=3, bots=("hana", "hana", "always-accept", "always-accept", "dumbbot", "dumbbot", "dumbbot"),
                      settings=GameSettings(year_limit=1903))  # fmt: skip
    record = play_game(setup)
    hana = {p.lower() for p, bot in record.bots.items() if bot == "hana"}  # as the reports write them
    confirmed = [e for e in record.events if e.get("type") == "confirmed"]
    assert confirmed, "no deal was made: the test shows nothing"
    ours = [r for e in record.events if e.get("type") == "compliance" for r in e["reports"] if r["power"] in hana]
    reports = [r for e in record.events if e.get("type") == "compliance" for r in e["reports"]]
    breakers = {r["power"] for r in reports if not r["kept"]}
    assert ours
    assert all(r["kept"] for r in ours if not (breakers - hana)), [r for r in ours if not r["kept"]]
