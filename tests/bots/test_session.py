"""The sans-I/O bot session: what it tells the bot, what it sends, the position it keeps."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots.base import Bot, HoldBot, LegalOrders, RandomBot, Results
from bots.inprocess import InProcessGame
from bots.session import BotSession, complete_orders
from engine import ARMY, FLEET, Position, format_order, legal_orders, parse_order
from engine.orders import Build, Disband, Hold, Move, Order, Waive
from protocol.daide.messages import (
    Drw,
    Hlo,
    Iam,
    Location,
    MapMessage,
    Nme,
    Now,
    Obs,
    Ord,
    Rej,
    Sco,
    Smr,
    SmrEntry,
    Sub,
    Turn,
    DaideUnit,
    Yes,
)
from protocol.daide.orders import order_from_engine, unit_from_engine
from referee.settings import GameSettings


def same(a: Position, b: Position) -> bool:
    """The same game state, whatever the order the units are listed in."""

    def key(p: Position) -> tuple[object, ...]:
        units = sorted((u.power, u.type, u.location) for u in p.units)
        return str(p.phase), units, p.centers, frozenset(p.dislodged)

    return key(a) == key(b)


class Recording(RandomBot):
    """A RandomBot that keeps what it was told."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.results: list[tuple[Position, Results, Position]] = []

    def on_results(self, before: Position, orders: Results, after: Position) -> None:
        self.results.append((before, orders, after))


def test_sessions_see_the_position_of_the_game_master_in_every_phase() -> None:
    bots = [Recording(random.Random(i)) for i in range(7)]
    kinds: set[str] = set()

    def check(game: InProcessGame) -> None:
        gm = game.gm
        kinds.add(gm.position.phase.kind)
        for session in game.sessions:
            assert session.position is not None and same(session.position, gm.position)
            assert session.power is not None
            # the same legal orders (listed in another order: NOW sorts the units, the engine does not)
            expected = legal_orders(gm.position, session.power)
            assert {u: set(o) for u, o in session.legal.items()} == {u: set(o) for u, o in expected.items()}
            assert session.due == bool(session.legal)

    game = InProcessGame(bots, seed=7, settings=GameSettings(year_limit=1904), before_orders=check)
    game.play()
    assert kinds == {"M", "R", "A"}  # retreats (dislodged units with their options) and adjustments were met
    for session, bot in zip(game.sessions, bots, strict=True):
        assert session.over and isinstance(session.result, Drw) and session.summary is not None
        assert session.position is not None and same(session.position, game.gm.position)
        assert not session.rejected and not session.discarded
        # the bot heard the results of every phase, with the orders every power gave
        assert [str(before.phase) for before, _, _ in bot.results] == [
            str(t.adjudication.before.phase) for t in game.gm.history if t.adjudication is not None
        ]
        for (before, orders, after), turned in zip(bot.results, game.gm.history, strict=True):
            assert turned.adjudication is not None
            assert same(before, turned.adjudication.before) and same(after, turned.adjudication.position)
            assert sum(len(o) for o in orders.values()) == len(turned.results)


def test_the_greeting_and_the_seat() -> None:
    bot = HoldBot()
    session = BotSession(bot, name="mine", version="2")
    assert session.start() == [Nme("mine", "2")]
    assert session.receive(Yes(Nme("mine", "2"))) == []
    assert session.receive(MapMessage("standard")) == [Yes(MapMessage("standard"))]
    assert session.receive(Hlo("FRA", 77, ())) == []
    assert (session.power, session.passcode, bot.power) == ("FRA", 77, "FRA")
    assert session.rejoin() == [Iam("FRA", 77), Hlo(), Sco(), Now()]
    assert not session.over


def test_a_refused_join_ends_the_session_and_a_seatless_rejoin_starts_over() -> None:
    session = BotSession(HoldBot())
    assert session.rejoin() == [Nme("holdbot", "1.0")]
    session.receive(Rej(Nme("holdbot", "1.0")))
    assert session.over and session.refused == Nme("holdbot", "1.0")


def test_an_observer_never_orders_and_asks_for_the_game_when_seated() -> None:
    session = BotSession(Bot(), observer=True)
    assert session.start() == [Obs()]
    assert session.receive(Yes(Obs())) == [Sco(), Now()]
    assert session.receive(Now(Turn("SPR", 1901), (DaideUnit("ENG", "FLT", Location("LON")),))) == []
    assert not session.due and session.position is not None and len(session.position.units) == 1


def now_of(turn: Turn, position: Position) -> Now:
    return Now(turn, tuple(unit_from_engine(u, position.map) for u in position.units))


def test_orders_are_sent_for_the_turn_and_sent_again_after_a_rejoin_in_the_same_turn() -> None:
    session = BotSession(HoldBot())
    session.receive(Hlo("ENG", 5, ()))
    now = now_of(Turn("SPR", 1901), Position.initial())
    assert session.receive(now) == [] and session.due
    (sub,) = session.submit()
    assert isinstance(sub, Sub) and sub.turn == Turn("SPR", 1901) and len(sub.orders) == 3
    assert str(sub.orders[0]).endswith("HLD") and not session.due and session.submit() == []
    assert session.receive(now) == [sub]  # the NOW asked for after IAM: same turn, same orders


def test_the_end_asks_for_the_last_position_and_reports_the_last_results() -> None:
    bot = Recording(random.Random(1))
    session = BotSession(bot)
    session.receive(Hlo("ENG", 5, ()))
    start = Position.initial()
    session.receive(now_of(Turn("SPR", 1901), start))
    session.submit()
    hold = order_from_engine("ENG", parse_order(start.map, "F LON H"), start)
    session.receive(Ord(Turn("SPR", 1901), hold, "SUC"))
    session.receive(Drw())
    assert not session.over and not session.due
    entry = SmrEntry("ENG", "holdbot", "1.0", 3)
    assert session.receive(Smr(Turn("SPR", 1901), (entry,))) == [Now()]
    session.receive(now_of(Turn("FAL", 1901), start))
    assert session.over and not session.due
    assert [(str(b.phase), dict(o), str(a.phase)) for b, o, a in bot.results] == [
        ("S1901M", {"ENG": [parse_order(start.map, "F LON H")]}, "F1901M")
    ]


# --- cleaning the bot's orders -------------------------------------------------------------------


def orders_of(position: Position, power: str, chosen: Sequence[Order]) -> tuple[list[str], list[Order]]:
    legal: LegalOrders = legal_orders(position, power)
    out, discarded = complete_orders(position, power, legal, chosen)
    return [format_order(position.map, o) for o in out], discarded


def test_illegal_and_second_orders_are_dropped_and_missing_units_hold() -> None:
    start = Position.initial()
    m = start.map
    chosen = [
        parse_order(m, "A LVP - YOR"),
        parse_order(m, "A LVP - WAL"),  # a second order for LVP
        parse_order(m, "F LON - MAO"),  # not a move F LON can make
    ]
    out, discarded = orders_of(start, "ENG", chosen)
    assert sorted(out) == ["A LVP - YOR", "F EDI H", "F LON H"]
    assert discarded == chosen[1:]


def test_a_dislodged_unit_without_an_order_disbands() -> None:
    position = Position.build(
        "S1901R", {"ENG": ["F LON"], "FRA": ["A PAR"]}, dislodged={"A BUR": ("FRA", ["MAR", "GAS"])}
    )
    out, _ = orders_of(position, "FRA", [])
    assert out == ["A BUR D"]


def test_builds_left_over_are_waived_and_removals_left_over_are_the_first_legal_ones() -> None:
    builds = Position.build(
        "W1901A",
        {"ENG": ["F NTH"]},
        centers={"ENG": ["LON", "EDI", "LVP", "NWY"]},
    )
    assert builds.adjustments["ENG"] == 3
    m = builds.map
    lon = m.location("LON")
    chosen: list[Order] = [Build(FLEET, lon), Build(ARMY, lon), Move(ARMY, m.location("PAR"), m.location("BUR"))]
    out, discarded = orders_of(builds, "ENG", chosen)
    assert out[0] == "F LON B" and out[1:] == ["WAIVE", "WAIVE"]
    assert discarded == chosen[1:]

    removals = Position.build("W1901A", {"FRA": ["A PAR", "A MAR", "F BRE"]}, centers={"FRA": ["PAR"]})
    assert removals.adjustments["FRA"] == -2
    mar = m.location("MAR")
    out, discarded = orders_of(removals, "FRA", [Disband(ARMY, mar), Waive(), Hold(ARMY, mar)])
    assert out[0] == "A MAR D" and len(out) == 2 and out[1] != "A MAR D"
    assert len(discarded) == 2
