"""Choosing the core: the environment variable, the version line, the fallback."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

from engine import _native, parse_order
from engine.movement import adjudicate_movement, reference_adjudicate_movement
from engine.position import Position, Unit


def _version(env: dict[str, str]) -> str:
    code = "from detente.cli import version_line; print(version_line())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip()


def test_the_version_names_the_core_and_the_variable_forces_the_reference() -> None:
    env = {k: v for k, v in os.environ.items() if k != _native.ENV}
    built = importlib.util.find_spec("engine._core") is not None  # whatever this process was told
    expected = "compiled C" if built else "pure Python"
    assert _version(env).endswith(f"(engine core: {expected})")
    assert _version({**env, _native.ENV: "1"}).endswith("(engine core: pure Python)")


def test_pure_python_switches_the_core_for_a_block() -> None:
    before = _native.active_core()
    with _native.pure_python():
        assert _native.active_core() == _native.PURE
        assert _native.core_for(Position.initial().map) is None
    assert _native.active_core() == before


def test_an_input_the_core_does_not_model_goes_to_the_reference() -> None:
    """Two units in one province (a Position built by hand): the reference's answer, unchanged."""
    start = Position.initial()
    odd = Position(start.map, start.phase, start.units + (Unit("FRA", 0, start.map.location("PAR")),), start.centers)
    orders = {"FRA": [parse_order(start.map, "A PAR - BUR"), parse_order(start.map, "A MAR - BUR")]}
    assert adjudicate_movement(odd, orders) == reference_adjudicate_movement(odd, orders)
    generator_orders = {"ENG": (o for o in [])}  # an iterable the core leaves to the reference
    assert adjudicate_movement(start, generator_orders).results == {}


def test_a_position_pickles_and_copies_with_its_compiled_legal_orders() -> None:
    import copy
    import pickle

    from engine import legal_orders

    start = Position.initial()
    before = legal_orders(start, "FRA")
    twice = [
        pickle.loads(pickle.dumps(start)),
        copy.deepcopy(start),
        pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(start)))),  # a copy of a copy
        copy.deepcopy(copy.deepcopy(start)),
    ]
    for again in twice:
        assert legal_orders(again, "FRA") == before
