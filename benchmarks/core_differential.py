#!/usr/bin/env python
"""The compiled engine core against the pure-Python reference, on many random phases.

Random boards of every phase kind (movement, retreats, adjustments) with random legal and
garbage orders, from ``tests/engine_core/boards.py``: for each, the adjudication (units,
dislodged units, centres, every result word, all in order) and every legal-order list must
be the same under both cores, and the batch API's outcome and legal orders the same as the
reference's. The test suite checks a few thousand; this checks as many as asked, and stops
at the first difference, which it prints.

    .venv/bin/python benchmarks/core_differential.py 1000000     # a million phases
    .venv/bin/python benchmarks/core_differential.py 20000 --seed 7
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results import Column, Table, record, write
from engine import _native, standard_map
from engine.position import ADJUSTMENTS, MOVEMENT, RETREATS
from tests.engine_core.boards import differences, random_orders, random_position


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("phases", type=int, nargs="?", default=100_000, help="phases to compare (default 100000)")
    parser.add_argument("--seed", default="1", help="seed (default 1)")
    parser.add_argument("--garbage", type=float, default=0.5, help="share of powers given garbage orders too")
    args = parser.parse_args(argv)
    if not _native.compiled_available():
        print(f"the compiled core is not available ({_native.why_not})", file=sys.stderr)
        return 2
    m = standard_map()
    rng = random.Random(args.seed)
    kinds = [MOVEMENT] * 6 + [RETREATS] * 2 + [ADJUSTMENTS] * 2
    began = time.perf_counter()
    for number in range(1, args.phases + 1):
        position = random_position(rng, m, rng.choice(kinds))
        orders = random_orders(rng, position, args.garbage)
        found = differences(position, orders)
        if found:
            print(f"phase {number}: the cores differ\n{position.to_json()}\n{orders}\n" + "\n".join(found))
            return 1
        if number % 10_000 == 0:
            print(f"{number:,} phases agree ({time.perf_counter() - began:.0f} s)", flush=True)
    seconds = time.perf_counter() - began
    print(f"all {args.phases:,} phases agree (seed {args.seed}, {seconds:.0f} s)")
    columns = [Column("phases", "random phases compared", True), Column("differences", "phases that differ", True),
               Column("reference", "reference"), Column("seconds", "seconds", True)]  # fmt: skip
    row = {"phases": args.phases, "differences": 0, "reference": "the pure-Python core (0 differences expected)",
           "seconds": round(seconds, 1)}  # fmt: skip
    note = f"Random boards of every kind of phase, random legal and garbage orders (garbage share {args.garbage:g})."
    write(record("core_differential", "The compiled core against the pure-Python reference", f"benchmarks/core_differential.py {args.phases}",
                 args.phases, [Table("Agreement", columns, [row], note)], seeds=[int(args.seed)] if args.seed.isdigit() else args.seed))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
