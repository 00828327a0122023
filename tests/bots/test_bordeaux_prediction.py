"""The Bordeaux diplomat's opponent models: the one learnt by observation, and the DumbBot copy."""

from __future__ import annotations

import pytest

import engine.orders as eo
from bots.bordeaux import Bordeaux, BordeauxDumbBotModel
from bots.bordeaux.prediction import DumbBotModel, ObservedModel, _Board, features
from bots.dumbbot import DumbBot
from bots.inprocess import GameSetup, InProcessGame
from bots.registry import bot_class, make_bot
from engine import Position, legal_orders, parse_order
from referee.settings import GameSettings

START = Position.initial()
POWERS = START.map.powers


def test_the_learnt_model_uses_no_dumbbot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default model predicts and learns with DumbBot's orders unavailable: it does not run its code."""

    def refuse(*args: object) -> None:
        raise AssertionError("DumbBot asked")

    monkeypatch.setattr(DumbBot, "orders", refuse)
    model = ObservedModel(POWERS)
    for power in POWERS:
        predicted = model.predict(START, power)
        legal = legal_orders(START, power)
        assert len(predicted) == len(START.units_of(power))
        assert all(any(order == o for options in legal.values() for o in options) for order in predicted)
    model.observe(START, {p: model.predict(START, p) for p in POWERS})
    assert model.observed == sum(len(START.units_of(p)) for p in POWERS)


def test_it_learns_a_power_that_always_holds() -> None:
    model = ObservedModel(POWERS)
    assert any(isinstance(o, eo.Move) for o in model.predict(START, "ITA"))  # the prior moves
    holds = {"ITA": [eo.Hold(u.type, u.location) for u in START.units_of("ITA")]}
    for _ in range(8):
        model.observe(START, holds)
    assert all(isinstance(o, eo.Hold) for o in model.predict(START, "ITA"))
    # learnt per power: France still moves (the shared weights moved less than Italy's own)
    assert model.weight("ITA", "hold") > model.weight("FRA", "hold")


def test_features_of_moves_holds_and_supports() -> None:
    board = _Board(START, None)
    m = START.map
    (bud,) = [u for u in START.units_of("AUS") if m.name_of(u.location) == "BUD"]
    (vie,) = [u for u in START.units_of("AUS") if m.name_of(u.location) == "VIE"]
    assert "move:neutral-centre" in features(board, bud, parse_order(m, "A BUD - SER"))  # type: ignore[operator]
    assert "move:away" in features(board, bud, parse_order(m, "A BUD - GAL"))  # type: ignore[operator]  # SER is 1 away
    assert "support:move" in features(board, vie, parse_order(m, "A VIE S A BUD - GAL"))  # type: ignore[operator]
    assert features(board, vie, parse_order(m, "A VIE S A VEN - TYR")) is None  # another power's unit


def test_two_units_to_one_place_make_a_support() -> None:
    """RES5's rule in the prediction: of two units of a power moving to one province, one supports."""
    board = Position.build("S1901M", {"FRA": ["A PAR", "A MAR"], "GER": ["A BUR"]})
    model = ObservedModel(board.map.powers, {"move:neutral-centre": 0.0, "move:closer": 0.0, "defended": 3.0})
    given = model.predict(board, "FRA")
    into = {board.map.name_of(o.destination) for o in given if isinstance(o, eo.Move)}
    supports = [o for o in given if isinstance(o, eo.SupportMove)]
    assert len(supports) == 1 and into == {board.map.name_of(supports[0].destination)}


def test_the_variants_and_their_counts() -> None:
    assert bot_class("bordeaux") is Bordeaux and bot_class("bordeaux:dumbbot-model") is BordeauxDumbBotModel
    names = ("bordeaux", "bordeaux:dumbbot-model", *["dumbbot"] * 5)
    setup = GameSetup(seed=5, bots=names, settings=GameSettings(year_limit=1902))
    bots = [make_bot(name, i) for i, name in enumerate(names)]
    InProcessGame(bots, 5, setup.settings, None, True).play()
    learnt, copy = bots[0], bots[1]
    assert isinstance(learnt.model, ObservedModel) and isinstance(copy.model, DumbBotModel)  # type: ignore[attr-defined]
    for bot in (learnt, copy):
        assert 0 < bot.hits <= bot.predicted  # type: ignore[attr-defined]
