"""The negotiation baselines (bots/baselines.py): short in-process games to 1902, fixed seeds."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from bots.baselines import DealBreaker, Sanctioning, _SanctionedAppraisal
from bots.dumbbot import DumbBot, _Appraisal
from bots.inprocess import InProcessGame, seeds_for
from bots.registry import make_bot
from engine import Position, format_order, legal_orders
from engine.position import Phase
from protocol.l import ast as a
from protocol.l import parse
from referee.record import GameRecord
from referee.settings import GameSettings

BASELINES = ("always-accept", "always-reject", "deal-breaker", "sanctioning", "dipgame-random")


def play(names: Sequence[str], seed: int) -> tuple[InProcessGame, GameRecord]:
    """A game to 1902 as :func:`bots.inprocess.play_game` plays it, keeping the sessions."""
    settings = GameSettings(year_limit=1902)
    game_seed, *bot_seeds = seeds_for(seed, 1 + len(names))
    bots = [make_bot(name, s) for name, s in zip(names, bot_seeds, strict=True)]
    game = InProcessGame(bots, game_seed, settings, None, True, 3)
    game.play()
    return game, game.record(seed, names, {})


def power_of(record: GameRecord, name: str) -> str:
    return next(p for p, n in record.bots.items() if n == name)


def test_the_baselines_are_registered() -> None:
    for name in BASELINES:
        bot = make_bot(name, 1)
        assert bot.name == name and bot.negotiates
    assert isinstance(make_bot("deal-breaker", 1), DumbBot)
    assert not isinstance(make_bot("dipgame-random", 1), DumbBot)
    assert make_bot("randomnegotiator", 1).name == "randomnegotiator"  # ours stays


def test_every_baseline_plays_to_1902_with_legal_orders_and_answers_as_named() -> None:
    for seed in (1, 2):
        names = (*BASELINES, "randomnegotiator", "dumbbot")
        game, record = play(names, seed)
        assert record.last_year == 1902 and set(record.bots.values()) == set(names)
        assert all(not s.discarded and not s.rejected for s in game.sessions)
        said = Counter((m["sender"], m["kind"]) for m in record.messages)
        acceptor, rejector = power_of(record, "always-accept"), power_of(record, "always-reject")
        assert said[(acceptor, "accept")] > 0 and said[(rejector, "reject")] > 0
        for message in record.messages:
            if message["sender"] == acceptor:
                assert message["kind"] == "accept"
            if message["sender"] == rejector:
                assert message["kind"] == "reject"
        proposals_to = Counter(r for m in record.messages if m["kind"] == "propose" for r in m["recipients"])
        assert said[(acceptor, "accept")] == proposals_to[acceptor]  # every proposal answered
        assert said[(rejector, "reject")] == proposals_to[rejector]


def test_dipgame_random_proposes_once_a_turn_at_most_peace_or_alliance() -> None:
    names = ("dipgame-random",) * 4 + ("dumbbot",) * 3
    offers: set[type] = set()
    kinds: set[str] = set()
    for seed in (3, 4, 5):  # coin flips: over three games both offers and both answers appear
        game, record = play(names, seed)
        assert all(not s.discarded and not s.rejected for s in game.sessions)
        proposals = Counter((m["phase"], m["sender"]) for m in record.messages if m["kind"] == "propose")
        assert proposals and max(proposals.values()) == 1
        offers |= {type(parse(m["text"]).deal.formula) for m in record.messages if m["kind"] == "propose"}  # type: ignore[union-attr]
        kinds |= {m["kind"] for m in record.messages}
    assert offers == {a.Pce, a.Aly}
    assert {"accept", "reject"} <= kinds


def test_the_deal_breaker_breaks_a_confirmed_peace_and_the_partner_sanctions_it() -> None:
    names = ("deal-breaker", "sanctioning", "sanctioning", "sanctioning", "dumbbot", "dumbbot", "dumbbot")
    game, record = play(names, 7)
    assert all(not s.discarded and not s.rejected for s in game.sessions)
    breaker = power_of(record, "deal-breaker")
    sanctioners = {p for p, n in record.bots.items() if n == "sanctioning"}
    confirmed = [e for e in record.events if e["type"] == "confirmed" and breaker in e["participants"]]
    assert confirmed
    broken = [
        (e["phase"], partner)
        for e in record.events
        if e["type"] == "compliance"
        and any(c["deal"] == e["deal"] and c["participants"] == e["participants"] for c in confirmed)
        for r in e["reports"]
        if r["power"] == breaker.lower() and r["kept"] is False  # the reports write powers as L does
        for partner in e["participants"]
        if partner in sanctioners
    ]
    assert broken
    phase, partner = broken[0]
    after = [m for m in record.messages if Phase.parse(m["phase"]) > Phase.parse(phase)]
    answers = [m for m in after if m["sender"] == partner and m["recipients"] == [breaker]]
    assert answers and all(m["kind"] == "reject" for m in answers)
    assert any(m["sender"] == breaker and partner in m["recipients"] and m["kind"] == "propose" for m in after)
    # the sanctioning bots keep their own peace with powers that did not break it
    for e in record.events:
        if e["type"] == "compliance":
            for r in e["reports"]:
                if r["power"].upper() in sanctioners and not r["kept"]:
                    assert breaker in e["participants"], r


def test_a_sanction_raises_the_breakers_centres_and_stops_acceptance() -> None:
    start = Position.initial()
    bot = Sanctioning(random.Random(1))
    bot.start("FRA", start.map)
    peace = parse("propose(ger, fra, Agree([fra ger], pce([fra ger])))")
    assert isinstance(bot.on_message("GER", peace, start)[0], a.Accept)
    report = {"power": "ger", "part": "pce([fra ger])", "kept": False, "detail": "..."}
    bot.on_event({"type": "compliance", "phase": "S1901M", "deal": "", "participants": [], "reports": [report]}, start)
    assert bot.sanctioned(start) == {"GER"}
    assert isinstance(bot.on_message("GER", peace, start)[0], a.Reject)
    plain = _Appraisal(start, "FRA", bot.SPRING, bot.SIZE)
    sanctioned = _SanctionedAppraisal(start, "FRA", bot.SPRING, bot.SIZE, {"GER"}, set(), bot.SANCTION_WEIGHT)
    munich = plain.geometry.node[0][start.map.location("MUN")]
    assert sanctioned(munich) > plain(munich)
    later = Position.build("S1903M", {"FRA": ["A PAR"]})
    assert bot.sanctioned(later) == {"GER"}  # through Spring 1903: four movement phases after S1901
    assert bot.sanctioned(Position.build("F1903M", {"FRA": ["A PAR"]})) == set()


def test_the_deal_breaker_moves_against_a_partner_when_it_can() -> None:
    board = Position.build("S1901M", {"FRA": ["A BUR"], "GER": ["A RUH"]}, centers={"GER": ["MUN"], "FRA": ["PAR"]})
    bot = DealBreaker(random.Random(1))
    bot.start("FRA", board.map)
    bot.on_event({"type": "confirmed", "deal": "Agree([fra ger], pce([fra ger]))", "phase": "S1901M"}, board)
    orders = bot.orders(board, legal_orders(board, "FRA"))
    assert [format_order(board.map, o) for o in orders] in (["A BUR - MUN"], ["A BUR - RUH"])
