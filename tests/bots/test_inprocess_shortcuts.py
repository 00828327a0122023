"""The in-process game's shortcuts give what the long way gives (issue 19).

A game kept in memory sends no phase results to a session whose bot reads none; the
sessions and the game master keep the DAIDE form of plain orders (and what the game master
made of them) instead of converting them each time. Each must be exact: the bots that read
results get them all, and every kept conversion is the one :mod:`protocol.daide.orders` makes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import replace

import engine.orders as eo
from bots.base import Bot, HoldBot, Results
from bots.dumbbot import DumbBot
from bots.inprocess import InProcessGame
from bots.session import _unit
from engine import Position, legal_orders
from protocol.daide.messages import Hold, Move, Ord, Order, Value
from protocol.daide.orders import order_from_engine, order_to_engine, unit_from_engine, unit_to_engine
from referee import orders as ro
from referee.orders import check_order, daide_order, daide_text
from referee.settings import GameSettings


class Listener(HoldBot):
    """Holds, and keeps every phase's results it is told."""

    name = "listener"

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple[str, Results]] = []

    def on_results(self, before: Position, orders: Results, after: Position) -> None:
        self.heard.append((str(before.phase), orders))


def test_results_go_only_to_the_sessions_whose_bots_read_them() -> None:
    bots: list[Bot] = [Listener(), *[DumbBot(random.Random(seed)) for seed in range(6)]]
    game = InProcessGame(bots, seed=3, settings=GameSettings(year_limit=1902))
    sent: dict[str, int] = {}
    receive = game.table.receivers
    assert receive is not None

    def counting(conn: str) -> Callable[[Value], Iterable[Value]]:
        inner = receive[conn]

        def counted(message: Value) -> Iterable[Value]:
            if type(message) is Ord:
                sent[conn] = sent.get(conn, 0) + 1
            return inner(message)

        return counted

    game.table.receivers = {conn: counting(conn) for conn in game.conns}
    game.play()
    assert game.gm.results_unread == frozenset(game.conns[1:])
    assert set(sent) == {game.conns[0]}
    listener = bots[0]
    assert isinstance(listener, Listener)
    turns = game.gm.history
    phases = [str(t.adjudication.before.phase) for t in turns if t.adjudication is not None]
    assert len(phases) == len(turns) >= 5
    assert [phase for phase, _ in listener.heard] == phases
    for (_, heard), turned in zip(listener.heard, turns, strict=True):  # every order, as the results said
        assert sum(len(orders) for orders in heard.values()) == len(turned.results)
    assert sent[game.conns[0]] == sum(len(t.results) for t in turns)


def test_the_kept_conversions_are_those_of_the_protocol() -> None:
    """Every legal order of every power, on the positions of a short game of DumbBots."""
    positions = _positions_of_a_short_game(seed=5)
    checked = 0
    for position in positions:
        m = position.map
        for power in m.powers:
            for options in legal_orders(position, power).values():
                for order in options:
                    expected = order_from_engine(power, order, position)
                    kept = daide_order(power, order, position)
                    assert kept == expected and str(kept) == str(expected)
                    assert daide_order(power, order, position) is kept or not _plain(order)
                    assert daide_text(kept) == str(expected)
                    if isinstance(kept, Hold | Move) and (plain := ro._plain(kept, m, power)) is not None:
                        assert plain[0] == order_to_engine(expected, m, power)[1]
                    checked += 1
    assert checked > 1000


def test_the_quick_check_answers_as_the_full_one() -> None:
    """The game master's check of a plain hold or move (the unit's province, type, location and
    power, no legal list) gives what the full check gives: for every legal order of every
    power on the positions of a short game, checked on each of those positions (where its unit
    may be gone, moved or another's) by its power and another."""
    positions = _positions_of_a_short_game(seed=8)
    kept: dict[int, tuple[str, Order]] = {}
    for position in positions:
        for power in position.map.powers:
            for options in legal_orders(position, power).values():
                for order in options:
                    daide = daide_order(power, order, position)
                    kept[id(daide)] = (power, daide)
    powers = positions[0].map.powers
    notes: set[str] = set()
    for position in positions:
        for power, daide in kept.values():
            other = powers[(powers.index(power) + 1) % len(powers)]
            for asking in (power, other):
                answer = check_order(position, asking, daide)
                assert (
                    answer == ro._full_check(position, asking, daide) == check_order(position, asking, replace(daide))
                )
                notes.add(answer[0])
    assert {"MBV", "NSU", "NYU", "NRS"} <= notes
    for position in positions:  # a session reads each unit of a NOW once, as the protocol does
        for unit in position.units:
            daide_unit = unit_from_engine(unit, position.map)
            assert _unit(daide_unit, position.map) == unit_to_engine(daide_unit, position.map) == unit
            assert _unit(daide_unit, position.map) is _unit(daide_unit, position.map)


def _plain(order: eo.Order) -> bool:
    """An order whose DAIDE form is kept (see :func:`referee.orders.daide_order`)."""
    if isinstance(order, eo.Move):
        return not order.via_convoy and order.type is not None
    return isinstance(order, eo.Hold | eo.Retreat | eo.Disband | eo.Build) and order.type is not None


def _positions_of_a_short_game(seed: int) -> list[Position]:
    """The position before each phase's orders of a game of seven DumbBots to 1902."""
    bots: list[Bot] = [DumbBot(random.Random(s)) for s in range(7)]
    game = InProcessGame(bots, seed=seed, settings=GameSettings(year_limit=1902))
    positions: list[Position] = []

    def keep(g: InProcessGame) -> None:
        position = g.sessions[0].position
        assert position is not None
        positions.append(position)

    game.before_orders = keep
    game.play()
    assert len(positions) >= 5
    return positions
