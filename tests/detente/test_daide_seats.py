"""``daide:PATH`` seats in ``detente run``: external DAIDE programs on a real server, mixed with our bots.

The program here is a stand-in for an AiClient bot (``aiclient_stand_in.py``: AiClient's command
line and its order of messages, our HoldBot's orders), run as its own process and talking DAIDE
over TCP to the server the runner starts for each game. The real C++ DumbBot is played by
``tests/test_real_daide_bots.py`` where ``DETENTE_DAIDE_CLIENT`` names it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bots.inprocess import GameSetup
from detente.daide_game import DaideGameFailed, play_daide_game
from referee.settings import GameSettings

STAND_IN = Path(__file__).with_name("aiclient_stand_in.py")
ROOT = Path(__file__).resolve().parents[2]


def program(tmp_path: Path, *flags: str) -> Path:
    """An executable that runs the stand-in with this interpreter (and ``flags`` after AiClient's)."""
    path = tmp_path / "holdbot-aiclient"
    extra = "".join(f" {flag}" for flag in flags)
    path.write_text(f"#!/bin/sh\ncd {ROOT} && exec {sys.executable} {STAND_IN} \"$@\"{extra}\n")
    path.chmod(0o755)
    return path


def test_programs_take_the_powers_the_runner_chose_and_the_record_is_an_experiments(tmp_path: Path) -> None:
    exe = program(tmp_path)
    slots = (f"daide:{exe}", f"daide:{exe}", "dumbbot", "dumbbot", "dumbbot", "dumbbot", "dumbbot")
    powers = ("TUR", "ENG", "AUS", "FRA", "GER", "ITA", "RUS")
    record = play_daide_game(GameSetup(11, slots, GameSettings(year_limit=1902), powers=powers))
    assert record.bots == {power: bot for bot, power in zip(slots, powers, strict=True)}
    assert record.outcome == "draw" and record.last_year == 1902
    assert [p.phase for p in record.phases][:2] == ["S1901M", "F1901M"]
    for phase in record.phases:
        if phase.phase.endswith("M"):  # the programs hold: one order a unit, every movement phase
            units = [u for u in phase.orders.get("TUR", ())]
            assert units and all(order.endswith(" H") for order in units), (phase.phase, units)
    assert record.final_centres["TUR"] + record.final_centres["ENG"] <= 3 + 3 + 1  # holding gains little


def test_a_program_that_dies_mid_game_fails_the_game_with_its_reason(tmp_path: Path) -> None:
    exe = program(tmp_path, "-x2")
    setup = GameSetup(3, (f"daide:{exe}", *["holdbot"] * 6), GameSettings(year_limit=1903))
    with pytest.raises(DaideGameFailed, match="exited with status 3"):
        play_daide_game(setup)


def test_detente_run_mixes_programs_and_bots_with_rotation(tmp_path: Path) -> None:
    exe = program(tmp_path)
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "detente", "run", "--bots", f"daide:{exe},randombot", "--games", "7", "--seed", "4",
         "--jobs", "2", "--rotate", "--year-limit", "1901", "--out", str(out)],
        check=False, capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(lines) == 7
    program_powers = [next(p for p, b in line["bots"].items() if b.startswith("daide:")) for line in lines]
    assert sorted(program_powers) == ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert f"daide:{exe}" in json.dumps(manifest) and "sha256" in json.dumps(manifest)
    assert "daide:" in done.stdout and "randombot" in done.stdout
    assert "info" not in done.stderr  # the servers' steps stay out of the run's output


def test_a_missing_program_is_refused_before_any_game(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "detente", "run", "--bots", f"daide:{tmp_path}/nothing,dumbbot", "--games", "1",
         "--out", str(tmp_path / "run")],
        check=False, capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2
    assert "no executable" in done.stderr
    assert not (tmp_path / "run").exists()
