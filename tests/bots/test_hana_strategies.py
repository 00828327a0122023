"""HANA's negotiation strategies (thesis section 5.4): the aspiration level of definition 25, the
measures f_UC, f_H, f_C, g_min as their time-weighted combination, and the conservative,
informative and dynamic agents on a constructed state and in seeded games."""

from __future__ import annotations

import random

import pytest

from bots.hana import Hana, HanaDynamic, HanaInformative
from bots.hana.beliefs import Beliefs, candidates
from bots.hana.measures import Measures, confidence, information
from bots.hana.negotiation import STRATEGIES, aspiration, aspiration_level, concedes, gain, read
from bots.hana.personality import PERSONALITIES
from bots.hana.search import Plan, Ranked
from bots.inprocess import GameSetup, play_game
from bots.registry import make_bot
from engine import Position
from protocol.l import parse
from protocol.l import ast as a
from referee.settings import GameSettings

from .test_hana import CENTRES

# --- definition 25 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_the_aspiration_falls_from_the_top_to_g_min(seed: int) -> None:
    rng = random.Random(seed)
    g_min = rng.random()
    top = g_min + (1 - g_min) * rng.random()
    tau = rng.uniform(0.05, 1.0)
    assert aspiration_level(g_min, 0.0, tau, top) == pytest.approx(top)  # A = 1 (the top) at t = 0
    assert aspiration_level(g_min, 0.0, tau) == pytest.approx(1.0)
    assert aspiration_level(g_min, 1.0, tau, top) == pytest.approx(g_min)  # A = g_min at the deadline
    times = sorted(rng.random() for _ in range(20))
    levels = [aspiration_level(g_min, t, tau, top) for t in times]
    assert all(g_min - 1e-12 <= x <= top + 1e-12 for x in levels)
    assert all(x >= y - 1e-12 for x, y in zip(levels, levels[1:], strict=False))  # concedes as time goes by
    t = rng.uniform(0.05, 0.95)
    if top > g_min:  # a smaller decay rate keeps the aspiration high for longer
        assert aspiration_level(g_min, t, tau / 2, top) > aspiration_level(g_min, t, tau, top)
    # the gain scale the agent uses is the same rule: gain >= aspiration iff value >= A(s, t)
    value = g_min + (top - g_min) * rng.random()
    level = aspiration_level(g_min, t, tau, top)
    if abs(value - level) > 1e-9 and top > g_min:
        assert (gain(value, g_min, top) >= aspiration(t, tau)) == (value >= level)


def test_tau_zero_never_concedes() -> None:
    """With τ = 0, ((t_max - t)/t_max)^0 = 1: the aspiration stays at the top (the thesis's τ > 0 matters)."""
    assert aspiration_level(0.3, 0.99, 0.0) == 1.0


# --- the strategies ----------------------------------------------------------------------------------------


def test_the_dynamic_strategy_moves_from_f_h_to_f_uc() -> None:
    dynamic = STRATEGIES["dynamic"]
    m = Measures(utility=0.8, information=0.2)
    assert dynamic.value(m, 0.0) == pytest.approx(m.information)
    assert dynamic.value(m, 1.0) == pytest.approx(m.utility)
    values = [dynamic.value(m, t / 10) for t in range(11)]
    assert all(x < y for x, y in zip(values, values[1:], strict=False))
    assert dynamic.value(m, 0.25) == pytest.approx(0.75 * 0.2 + 0.25 * 0.8)  # w1 = (t_max - t)/t_max
    for t in (0.0, 0.3, 1.0):
        assert sum(dynamic.weights_at(t).values()) == pytest.approx(1.0)
    # g_min at the deadline is the conservative one, at the start the informative one
    assert aspiration_level(dynamic.value(m, 1.0), 1.0, 0.5) == pytest.approx(STRATEGIES["conservative"].value(m, 1.0))
    assert aspiration_level(dynamic.value(m, 0.0), 0.0, 0.5, 0.2) == pytest.approx(
        STRATEGIES["informative"].value(m, 0.0)
    )


def test_the_conservative_value_is_f_uc_exactly_and_weights_must_sum_to_one() -> None:
    m = Measures(utility=0.123456789, information=0.9)
    assert STRATEGIES["conservative"].value(m, 0.4) == m.utility  # bit for bit: hana replays its games
    assert STRATEGIES["informative"].value(m, 0.4) == m.information
    with pytest.raises(ValueError):
        type(STRATEGIES["dynamic"])("bad", (("f_H", 1.0, 0.5),))


def test_informative_concedes_on_information_and_never_gives_utility_away() -> None:
    here = Measures(0.5, 0.3)
    clearer, richer, poorer = Measures(0.5, 0.5), Measures(0.7, 0.2), Measures(0.49, 0.9)
    informative, conservative = STRATEGIES["informative"], STRATEGIES["conservative"]
    assert concedes(informative, here, clearer, 0.5, 0.0, 0.5, 0.002)
    assert not concedes(conservative, here, clearer, 0.5, 0.0, 0.5, 0.002)
    assert concedes(conservative, here, richer, 0.7, 0.0, 0.5, 0.002)
    assert not concedes(informative, here, richer, 0.5, 0.0, 0.5, 0.002)
    assert not concedes(informative, here, poorer, 0.9, 0.9, 0.5, 0.002)  # more information, less utility


def test_personalities_name_their_strategies_and_the_variants_are_registered() -> None:
    assert make_bot("hana", 1).strategy.name == "conservative"  # type: ignore[attr-defined]
    for name, cls, strategy in (("hana:informative", HanaInformative, "informative"),
                                ("hana:dynamic", HanaDynamic, "dynamic")):  # fmt: skip
        bot = make_bot(name, 1)
        assert type(bot) is cls and bot.strategy.name == strategy  # type: ignore[attr-defined]
    for p in PERSONALITIES.values():
        assert p.strategy in STRATEGIES


# --- the measures ------------------------------------------------------------------------------------------


def test_information_and_confidence() -> None:
    p = Position.build("S1902M", {"FRA": ["A BUR"], "ITA": ["A TYR"]}, CENTRES)
    (bur,), (tyr,) = p.units_of("FRA"), p.units_of("ITA")
    assert information(Beliefs({})) == 1.0  # nothing believed about: nothing uncertain
    options = candidates(p, bur)
    spread = Beliefs({bur: {o: 1 / len(options) for o in options}})
    assert information(spread) == pytest.approx(0.0)  # f_H = 1 - H (definition 21)
    assert 0.0 < information(spread.committed({bur: options[0]}, 0.9)) < 1.0
    assert information(spread.committed({bur: options[0]}, 1.0)) == pytest.approx(1.0)
    alone = Ranked(Plan(((tyr, candidates(p, tyr)[0]),)), 0.5, 1.0)
    joint = Ranked(Plan(((tyr, candidates(p, tyr)[0]),), ((bur, options[0]),)), 0.7, 0.3)
    assert confidence([alone]) == 0.0 and confidence([alone, joint]) == 0.3  # f_C over joint plans


# --- the agents on a constructed state ---------------------------------------------------------------------


def galicia() -> Position:
    """Spring 1902: Italy's army in Tyrolia would take Munich; Austria's army in Galicia cannot touch it."""
    units = {"FRA": ["A BUR"], "GER": ["A MUN"], "ITA": ["A TYR"], "AUS": ["A GAL"]}
    return Position.build("S1902M", units, CENTRES)


def answer(cls: type[Hana], text: str) -> tuple[a.Message, Measures, Measures]:
    """What the Italian ``cls`` answers to ``text`` in its first round, and the measures of the
    state and of next(s, δ) it judged by."""
    p = galicia()
    bot = cls(random.Random(1))
    bot.start("ITA", p.map)
    bot.clocked = True  # in process, on the simulated clock, nothing proposed yet
    s = bot._phase(p)
    bot._search(s)
    message = parse(text)
    assert isinstance(message, a.Propose)
    terms = read(p, "ITA", message.deal)
    assert terms is not None
    trust = bot._trust_in(terms)
    here, there = bot._measures(s), bot._measures(s, terms, trust, bot._value_with(s, terms, trust))
    sender = p.map.power(message.sender)
    return bot.on_message(sender, message, p)[0], here, there


AUSTRIA_LEAVES = ("propose(aus, [ita], [Commit(ita, [aus], Do(mto(Unit(ita, Region(tyr, amy)), Region(mun, amy))))"
                  " Commit(aus, [ita], Do(mto(Unit(aus, Region(gal, amy)), Region(ukr, amy))))])")  # fmt: skip


def test_informative_accepts_a_deal_that_only_informs_and_conservative_does_not() -> None:
    """Austria offers: Italy makes the move it would make alone, Austria moves its army away
    from anything Italy's plan touches. The utility is the same, the uncertainty lower."""
    said = {}
    for cls in (Hana, HanaInformative, HanaDynamic):
        said[cls.name], here, there = answer(cls, AUSTRIA_LEAVES)
        assert there.utility == pytest.approx(here.utility) and there.information > here.information + 0.01
    assert isinstance(said["hana"], a.Reject)
    assert isinstance(said["hana:informative"], a.Accept)
    assert isinstance(said["hana:dynamic"], a.Accept)  # at t = 0 the dynamic agent is informative


# --- seeded games --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["hana:informative", "hana:dynamic"])
def test_a_seeded_game_of_each_variant_replays_exactly(variant: str) -> None:
    bots = (variant, variant, variant, "dipblue", "always-accept", "dumbbot", "dumbbot")
    setup = GameSetup(seed=5, bots=bots, settings=GameSettings(year_limit=1902))
    first, second = play_game(setup), play_game(setup)
    assert first.to_json() == second.to_json()
    mine = {p.lower() for p, bot in first.bots.items() if bot == variant}  # as L text writes them
    assert any(m.get("kind") == "propose" and m["text"][len("propose(") :][:3] in mine for m in first.messages)
