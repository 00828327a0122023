"""A DAIDE ``SUB`` from the lobby to the adjudicator, call by call: it never comes back into a
file it came through (no callback up the layers), the order conversions included.

The calls are those of one real ``SUB``, the last orders a phase waits for, so that it goes
all the way to ``engine.adjudicate``; a profiler sees each call and the files below it on the
stack (the project's own files only).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from engine import legal_orders
from protocol.daide.messages import Sub
from protocol.daide.orders import order_from_engine
from protocol.daide.parser import parse
from referee.game import GameMaster
from referee.lobby import Lobby, LobbyLimits
from referee.settings import GameSettings

ROOT = str(Path(__file__).resolve().parents[2]) + "/"


def _ours(frame: FrameType | None) -> list[str]:
    files = []
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(ROOT) and "/.venv/" not in name and "/tests/" not in name:
            files.append(name[len(ROOT) :])
        frame = frame.f_back
    return files


def trace(call: Any) -> tuple[list[tuple[str, str, str]], set[str]]:
    """Run ``call()`` under a profiler: each call into a file already on the stack below its
    caller's (a return up the layers), and every file entered."""
    again: list[tuple[str, str, str]] = []
    entered: set[str] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        here = _ours(frame)
        if not here:
            return
        callee, below = here[0], _ours(frame.f_back)
        entered.add(callee)
        if below and below[0] != callee and callee in below:
            again.append((callee, frame.f_code.co_name, " <- ".join(dict.fromkeys(below))))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return again, entered


def test_the_sub_that_completes_a_phase_goes_down_to_the_adjudicator_and_never_back() -> None:
    gm = GameMaster("g", GameSettings(), now=0.0, rng=random.Random(3))
    lobby = Lobby(LobbyLimits(message_rate=None))
    lobby.add(gm)
    conns = [f"c{i}" for i in range(7)]
    for conn in conns:
        lobby.connect(conn, "127.0.0.5", "g")
        lobby.receive(conn, "g", parse(f"NME ('{conn}') ('1')"), 0.0)
    by_power = {gm.roster.power_of(c): c for c in conns}
    rng = random.Random(1)
    position = gm.position
    subs = {}
    for power in gm.powers:
        options = legal_orders(position, power)
        subs[power] = Sub(tuple(order_from_engine(power, rng.choice(o), position) for o in options.values()))
    last = "ENG"
    for power, sub in subs.items():
        if power != last:
            lobby.receive(by_power[power], "g", sub, 1.0)
    assert str(gm.position.phase) == "S1901M"

    def the_last_sub() -> None:
        conn = by_power[last]
        assert lobby.admit(conn, 2.0).read
        route = lobby.route(conn, subs[last], 2.0)
        assert route.game == "g"
        lobby.receive(conn, "g", subs[last], 2.0)

    again, entered = trace(the_last_sub)
    assert str(gm.position.phase) == "F1901M"  # it was adjudicated
    # through the order book and the order checks, down to the board and the engine's adjudication
    path = {"referee/game/book.py", "referee/orders.py", "protocol/daide/orders.py", "referee/game/board.py"}
    assert path <= entered and any(f.startswith("engine/") for f in entered)
    assert again == []


def test_the_trace_sees_a_call_back_up() -> None:
    """The check can fail: ``f`` of one file calls ``g`` of another, which calls ``h`` of the first."""
    scope: dict[str, Any] = {}
    exec(compile("def f():\n    return g()\n\ndef h():\n    return 1\n", ROOT + "referee/upper.py", "exec"), scope)  # noqa: S102  # two files of code, made here
    exec(compile("def g():\n    return h()\n", ROOT + "referee/lower.py", "exec"), scope)  # noqa: S102
    again, entered = trace(scope["f"])
    assert [(file, name) for file, name, _ in again] == [("referee/upper.py", "h")]
    assert {"referee/upper.py", "referee/lower.py"} <= entered
