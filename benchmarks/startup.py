"""How long the command takes to start: ``detente --help`` and friends beside ``python -c pass``.

Issue 29 measured ``detente --help`` at 2.2-3.1 s (every command's modules, the servers'
included, were imported to build the parser); the goal is under 0.3 s. Each command line runs
``--runs`` times in a fresh process, one after the other; the median and the slowest are
printed beside the reference, and written to ``benchmarks/results/startup.json`` and
``docs/results/startup.md``::

    .venv/bin/python benchmarks/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.machine import commit, describe, machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "startup.json"
PAGE = ROOT / "docs" / "results" / "startup.md"
DETENTE = [sys.executable, "-m", "detente"]
#: What is timed, the figure before (issue 29's, where it gives one) and the goal.
LINES: list[tuple[str, list[str], str | None, float | None]] = [
    ("python -c pass", [sys.executable, "-c", "pass"], "0.04 s", None),
    ("detente --help", [*DETENTE, "--help"], "2.2-3.1 s", 0.3),
    ("detente --version", [*DETENTE, "--version"], None, 0.3),
    ("detente run --help", [*DETENTE, "run", "--help"], None, None),
    ("detente serve --help", [*DETENTE, "serve", "--help"], None, None),
]


def timed(command: list[str], runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command line")
    args = parser.parse_args()
    print(f"start-up -- {datetime.datetime.now().isoformat(timespec='seconds')}; {describe()}; n = {args.runs} each")
    print(f"{'command':<24} {'median':>8} {'slowest':>8} {'before':>10} {'goal':>8}")
    rows: list[dict[str, Any]] = []
    for name, command, before, goal in LINES:
        seconds = timed(command, args.runs)
        median, slowest = statistics.median(seconds), max(seconds)
        met = None if goal is None else median < goal
        rows.append({"command": name, "median_s": round(median, 3), "slowest_s": round(slowest, 3),
                     "before": before, "goal_s": goal, "met": met})  # fmt: skip
        shown_goal = "" if goal is None else f"< {goal:g} s"
        print(f"{name:<24} {median:7.3f}s {slowest:7.3f}s {before or '':>10} {shown_goal:>8}")
    results = {
        "benchmark": "startup",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "commit": commit(),
        "n": args.runs,
        "rows": rows,
    }
    RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    render(results)
    return 0


def render(results: dict[str, Any]) -> None:
    m = results["machine"]
    lines = [
        "# Start-up",
        "",
        f"Written by `benchmarks/startup.py` on {results['date']} at commit {results['commit']}, on {m['cores']}"
        f" cores ({m['cpu']}, {m['python']}), {results['n']} runs of each; from `benchmarks/results/startup.json`.",
        "",
        "| command | median | slowest | before (issue 29) | goal |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results["rows"]:
        goal = "" if r["goal_s"] is None else f"< {r['goal_s']:g} s ({'met' if r['met'] else 'not met'})"
        lines.append(f"| `{r['command']}` | {r['median_s']:.3f} s | {r['slowest_s']:.3f} s | {r['before'] or ''} | {goal} |")
    PAGE.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
