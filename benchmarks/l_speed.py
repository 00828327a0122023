#!/usr/bin/env python
"""How fast are L messages read? Messages per second, parse plus check, on one core.

For each set of messages, three figures from the same run:

* ``check``: what the negotiation server does with a message, ``protocol.l.check``:
  parse with the AST built during the LALR parse, the level check against levels 1-8,
  the ontology check against the standard map, and the normal form printed;
* ``parse``: ``protocol.l.parse`` alone, text to AST;
* ``lark tree``: the reference, a plain ``Lark(grammar, parser="lalr")`` on the same
  grammar, which builds a parse tree and nothing more.

The sets are the short L1 proposal of the issue, ``propose(eng, fra, Agree([eng fra],
pce([eng fra])))`` (goal: 5,000 per second on one core), and one sample message of each
level 1 to 8. Nothing is memoised: every message is parsed from its text each time.
Every figure is the best of several timed passes, with the garbage collector off during
each: noise on a machine only ever adds time. Nothing here asserts a speed.

    .venv/bin/python benchmarks/l_speed.py            # about half a minute
    .venv/bin/python benchmarks/l_speed.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lark import Lark
from machine import print_header

from benchmarks.results import Column, Table, kept_column, record, write
from engine import standard_map
from protocol.l import check, parse
from protocol.l.levels import ALL_LEVELS
from protocol.l.parser import GRAMMAR, _parse_cached

GOAL = 5000.0
L1_PROPOSAL = "propose(eng, fra, Agree([eng fra], pce([eng fra])))"
SAMPLES = {
    1: "propose(ita, rus, [Commit(ita, rus, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy)))) "
    "Commit(rus, ita, Do(sup(Unit(rus, Region(spa, scs)), mto(Unit(ita, Region(mar, amy)), Region(par, amy)))))])",
    2: "inform(ita, eng, Agree([ita rus], pce([ita rus])) & Belief(ita, dmz([rus], [gal ukr])))",
    3: "query(eng, ita, Unknown(eng, Agree([ita rus], pce([ita rus]))))",
    4: "query(rus, ita, answer(ita, eng, Agree([ita rus], pce([ita rus]))))",
    5: "query(ita, rus, answer(ita, eng, Agree([ita rus], pce([ita rus]))) -> Feel(rus, Sad))",
    6: "propose(fra, eng, Commit(fra, eng, Do(hld(Unit(fra, Region(bre, coast))), (spr, 1902))), (fal, 1901))",
    7: "query(ita, rus, Explain(Belief(tur, Agree([ita rus], pce([ita rus]))) -> Feel(rus, Angry)))",
    8: "inform(rus, eng, Support(Agree([ita rus], aly([ita rus], eng)) & Desire(ita, dmz([ita], [par])), "
    "Desire(ita, Do(mto(Unit(ita, Region(mar, amy)), Region(par, amy))))))",
}


def rate(work: Callable[[str], object], text: str, seconds: float, passes: int) -> float:
    """Messages per second: the best of ``passes`` timed passes of about ``seconds`` each."""
    n = 1
    while True:  # find a count that takes long enough to time well
        start = time.perf_counter()
        for _ in range(n):
            work(text)
        if time.perf_counter() - start > seconds / 4:
            break
        n *= 2
    n = max(1, int(n * seconds / max(time.perf_counter() - start, 1e-9)))
    best = float("inf")
    for _ in range(passes):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            for _ in range(n):
                work(text)
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return n / best


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--quick", action="store_true", help="short passes, for a smoke run")
    args = options.parse_args(argv)
    seconds, passes = (0.02, 2) if args.quick else (0.2, 4)

    the_map = standard_map()
    tree_parser = Lark(GRAMMAR, parser="lalr")

    def checked(text: str) -> object:
        _parse_cached.cache_clear()  # every message read afresh: the memo would time a dict lookup
        result = check(text, ALL_LEVELS, the_map)
        assert result["ok"], result
        return result

    def parsed_afresh(text: str) -> object:
        _parse_cached.cache_clear()
        return parse(text)

    print_header("L messages per second, one core", "lark")
    header = f"{'messages':<24}{'check':>10}{'parse':>10}{'lark tree':>11}{'check/tree':>12}"
    print(header)
    print("-" * len(header))
    rows = [("L1 proposal (issue)", L1_PROPOSAL)] + [(f"level {n} sample", text) for n, text in SAMPLES.items()]
    kept = []
    before, before_date = kept_column("l_speed", "messages", "check")
    for name, text in rows:
        assert tree_parser.parse(text) is not None and parse(text) is not None
        ours = rate(checked, text, seconds, passes)
        parsed = rate(parsed_afresh, text, seconds, passes)
        reference = rate(tree_parser.parse, text, seconds, passes)
        print(f"{name:<24}{ours:>10,.0f}{parsed:>10,.0f}{reference:>11,.0f}{ours / reference:>11.2f}x")
        goal = name.startswith("L1 proposal")
        kept.append({"messages": name, "check": round(ours), "parse": round(parsed), "tree": round(reference),
                     "ratio": round(ours / reference, 2), "before": before.get(name), "goal": f">= {GOAL:,.0f}/s" if goal else None,
                     "met": (ours >= GOAL) if goal else None})  # fmt: skip
        if goal:
            verdict = "met" if ours >= GOAL else "NOT met"
            print(f"{'':<24}goal: {GOAL:,.0f} checked L1 proposals per second -- {verdict}")
    print()
    print("check = parse + level check (1-8) + ontology check (standard map) + normal form;")
    print("the parse memo (protocol.l.parse keeps the last 8,192 texts) is cleared before each message.")
    columns = [Column("messages", "messages"), Column("check", "check /s", True), Column("parse", "parse /s", True),
               Column("tree", "lark tree /s (reference)", True), Column("ratio", "check / tree", True),
               Column("before", "check /s before", True), Column("goal", "goal"), Column("met", "met")]  # fmt: skip
    note = ("check = parse + level check (1-8) + ontology check (standard map) + normal form; the reference is a plain"
            " Lark LALR parse tree of the same grammar (the issue quotes about 4,000 a second for one); best of"
            f" {passes} passes, one core."
            + (f" Before: the check figures of the record this run replaced ({before_date})." if before_date else ""))  # fmt: skip
    command = "benchmarks/l_speed.py" + (" --quick" if args.quick else "")
    rec = record(
        "l_speed",
        "L messages per second, one core",
        command,
        passes,
        [Table("Messages per second", columns, kept, note)],
    )
    print(f"written to {write(rec)} (n: timed passes per figure, the best kept)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
