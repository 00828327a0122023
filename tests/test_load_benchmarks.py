"""The load benchmarks in their short versions (``--quick``): a real game server (and the
negotiation server) in this test's subprocess, its clients in another, every message
answered, and the summary of where each server's time goes written beside the figures.
No timing is asserted: the figures are the benchmarks' to print. Budget: about 30 s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_quick(script: str, tmp_path: Path) -> dict[str, Any]:
    env = {**os.environ, "BENCHMARK_RESULTS": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, f"benchmarks/{script}.py", "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    return {t["title"]: t["rows"] for t in json.loads((tmp_path / f"{script}.json").read_text())["tables"]}


def test_server_load_quick_plays_every_phase_and_says_where_the_time_goes(tmp_path: Path) -> None:
    tables = run_quick("server_load", tmp_path)
    levels = tables["Levels"]
    assert [row["games"] for row in levels] == [5, 10]
    for row in levels:
        assert row["phases"] == row["games"] * 2  # two phases of every game, each timed
        assert "MIS" not in row["notes"] and "REJ" not in row["notes"]
    stages = tables["Where the server's time goes"]
    for level, row in zip(levels, stages, strict=True):
        assert row["messages"] >= level["games"] * 7 * 2  # every SUB went through the stages
        assert row["parse_us"] > 0 and row["check_us"] > 0 and row["store_us"] > 0 and row["fanout_us"] > 0
    figures = {row["figure"].split(" with")[0].split(" of")[0] for row in tables["Verdict"]}
    assert any("seat" in figure for figure in figures)


def test_nego_load_quick_delivers_every_message_and_says_where_the_time_goes(tmp_path: Path) -> None:
    tables = run_quick("nego_load", tmp_path)
    rates = tables["Rates"]
    assert [row["rate"] for row in rates] == [100, 200]
    for row in rates:
        assert row["errors"] == 0 and row["delivered"] == row["sent"] == row["acks"]
    for row in tables["Where the negotiation server's time goes"]:
        assert row["messages"] > 0 and row["check_us"] > 0 and row["store_us"] > 0
