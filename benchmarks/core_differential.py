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
    print(f"all {args.phases:,} phases agree (seed {args.seed}, {time.perf_counter() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
