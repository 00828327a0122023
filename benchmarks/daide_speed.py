#!/usr/bin/env python
"""How fast are DAIDE messages read? Messages per second, parse plus check, on one core.

For each kind of message, two figures from the same run:

* ``check``: ``protocol.daide.parser.check``, what ``detente check daide`` does with a
  message: the text form tokenized, parsed by the LALR parser into typed messages as it
  reduces, the press level computed and the canonical text printed;
* ``parse``: ``protocol.daide.parser.parse`` alone, text to typed message.

The kinds are those a game server and its bots exchange most: ``NOW`` of the opening
position (22 units), ``ORD`` results, ``SUB`` with 17 orders, press proposals (``PRP`` of
``PCE``, ``ALY``, ``XDO`` and an ``AND`` of them, inside ``SND``), ``HLO``, and the ``MDF``
of the standard map (once a game, but the largest message). ``overall`` is the mix with
one message of each kind in turn. Nothing is memoised. Every figure is the best of several
timed passes, with the garbage collector off during each: noise on a machine only ever
adds time. Nothing here asserts a speed.

    .venv/bin/python benchmarks/daide_speed.py            # about half a minute
    .venv/bin/python benchmarks/daide_speed.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from machine import print_header

from benchmarks.results import Column, Table, kept_column, record, write
from engine import Position, legal_orders
from protocol.daide.messages import Now, Ord, Sub, Turn
from protocol.daide.orders import map_definition, order_from_engine, unit_from_engine
from protocol.daide.parser import check, parse


def messages() -> dict[str, list[str]]:
    """Typical messages by kind, made from the engine's opening position."""
    start = Position.initial()
    m = start.map
    turn = Turn.of(start.phase)
    now = Now(turn, tuple(unit_from_engine(u, m) for u in start.units))
    orders = []
    for power in m.powers:
        for legal in legal_orders(start, power).values():
            orders.append(order_from_engine(power, legal[len(orders) % len(legal)], start))
    sub = Sub(tuple(orders[:17]), turn)
    ords = [
        str(Ord(Turn("SPR", 1901), order, result))
        for order, result in zip(orders[:4], ("SUC", "BNC", "CUT", "SUC"), strict=True)
    ]
    press = [
        "SND (FRA GER) (PRP (PCE (ENG FRA GER)))",
        "SND (FRA) (PRP (ALY (ENG FRA) VSS (GER TUR)))",
        "SND (FRA) (PRP (XDO ((ENG FLT LON) MTO NTH)))",
        "SND (FRA) (PRP (AND (PCE (ENG FRA)) (XDO ((ENG FLT LON) MTO NTH)) (XDO ((FRA FLT BRE) MTO MAO))))",
    ]
    return {
        "NOW (22 units)": [str(now)],
        "ORD": ords,
        "SUB (17 orders)": [str(sub)],
        "press PRP": press,
        "HLO": ["HLO (ENG) (1234) ((LVL 20) (MTL 1200) (RTL 300) (BTL 300))"],
        "MDF (standard)": [str(map_definition(m))],
    }


def rate(work: Callable[[str], object], texts: list[str], seconds: float, passes: int) -> float:
    """Messages per second: the best of ``passes`` timed passes of about ``seconds`` each."""

    def run(rounds: int) -> float:
        begin = time.perf_counter()
        for _ in range(rounds):
            for text in texts:
                work(text)
        return time.perf_counter() - begin

    rounds = 1
    while run(rounds) < seconds / 4:  # find a count that takes long enough to time well
        rounds *= 2
    rounds = max(1, int(rounds * seconds / max(run(rounds), 1e-9)))
    best = float("inf")
    for _ in range(passes):
        gc.collect()
        gc.disable()
        try:
            best = min(best, run(rounds))
        finally:
            gc.enable()
    return rounds * len(texts) / best


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--quick", action="store_true", help="short passes, for a smoke run")
    args = options.parse_args(argv)
    seconds, passes = (0.02, 2) if args.quick else (0.3, 5)

    def checked(text: str) -> object:
        result = check(text)
        assert result["ok"], result
        return result

    kinds = messages()
    print_header("DAIDE messages per second, one core", "lark")
    header = f"{'messages':<18}{'tokens':>8}{'check':>10}{'parse':>10}"
    print(header)
    print("-" * len(header))
    rows = []
    before, before_date = kept_column("daide_speed", "messages", "check")
    mix = [texts[0] for texts in kinds.values()]
    for name, texts in [*kinds.items(), ("overall (mix)", mix)]:
        tokens = sum(len(parse(t).tokens()) for t in texts) / len(texts)
        checks, parses = rate(checked, texts, seconds, passes), rate(parse, texts, seconds, passes)
        rows.append({"messages": name, "tokens": round(tokens), "check": round(checks), "parse": round(parses),
                     "before": before.get(name)})  # fmt: skip
        print(f"{name:<18}{tokens:>8.0f}{checks:>10,.0f}{parses:>10,.0f}")
    print()
    print("check = parse + press level + canonical text; tokens = average tokens per message; no memo.")
    columns = [Column("messages", "messages"), Column("tokens", "tokens", True), Column("check", "check /s", True),
               Column("parse", "parse /s", True), Column("before", "check /s before", True)]  # fmt: skip
    note = ("check = parse + press level + canonical text; tokens = average tokens a message; no memo; best of"
            f" {passes} passes, one core. No goal was set; the L figures of benchmarks/l_speed.py are the nearest"
            " reference." + (f" Before: the check figures of the record this run replaced ({before_date})."
                             if before_date else ""))  # fmt: skip
    command = "benchmarks/daide_speed.py" + (" --quick" if args.quick else "")
    write(
        record(
            "daide_speed",
            "DAIDE messages per second, one core",
            command,
            passes,
            [Table("Messages per second", columns, rows, note)],
        )
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
