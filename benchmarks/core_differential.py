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

from benchmarks import results
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
    compared, found = 0, []
    for number in range(1, args.phases + 1):
        position = random_position(rng, m, rng.choice(kinds))
        orders = random_orders(rng, position, args.garbage)
        found = differences(position, orders)
        compared = number
        if found:
            print(f"phase {number}: the cores differ\n{position.to_json()}\n{orders}\n" + "\n".join(found))
            break
        if number % 10_000 == 0:
            print(f"{number:,} phases agree ({time.perf_counter() - began:.0f} s)", flush=True)
    seconds = time.perf_counter() - began
    if not found:
        print(f"all {args.phases:,} phases agree (seed {args.seed}, {seconds:.0f} s)")
    before = kept_runs()
    row = {"phases": compared, "seed": args.seed, "differences": 1 if found else 0, "seconds": round(seconds, 1),
           "rate": round(compared / seconds) if seconds > 0 else None,
           "reference": "the pure-Python core: 0 differences expected", "before": before}  # fmt: skip
    note = (f"Random boards of every kind of phase (60 % movement, 20 % retreats, 20 % adjustments), random legal and"
            f" garbage orders (garbage share {args.garbage:g}); a run stops at the first difference.")  # fmt: skip
    seeds = [int(args.seed)] if args.seed.isdigit() else args.seed
    write(record("core_differential", "The compiled core against the pure-Python reference",
                 f"benchmarks/core_differential.py {args.phases}" + (f" --seed {args.seed}" if args.seed != "1" else ""),
                 compared, [Table("Agreement", COLUMNS, [row], note)], seeds=seeds))  # fmt: skip
    return 1 if found else 0


COLUMNS = (Column("phases", "random phases compared", True), Column("seed", "seed"),
           Column("differences", "phases that differ", True), Column("seconds", "seconds", True),
           Column("rate", "phases/s", True), Column("reference", "reference"), Column("before", "before"))  # fmt: skip


def kept_runs() -> str | None:
    """The runs of the record kept before this one, in words (its phases, seeds and differences, and its date)."""
    kept = results.kept("core_differential")
    if not kept:
        return None
    runs = [f"{row['phases']:,} phases (seed {row.get('seed', '?')}): {row['differences']} differ"
            for table in kept["tables"] for row in table["rows"]]  # fmt: skip
    return f"{'; '.join(runs)} ({kept.get('date', '')[:10]})" if runs else None


if __name__ == "__main__":
    sys.exit(main())
