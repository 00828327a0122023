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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bots.inprocess import GameSetup, play_game
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


# --- negotiation at tables with programs ---------------------------------------------------------

ROUNDS_BOT = Path(__file__).with_name("rounds_bot.py")


def test_the_bots_negotiate_in_rounds_beside_programs_and_the_record_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = program(tmp_path)
    log = tmp_path / "heard.jsonl"
    powers = ("TUR", "ENG", "AUS", "FRA", "GER", "ITA", "RUS")
    peers = ("AUS", "FRA", "GER", "ITA", "RUS")
    monkeypatch.setenv("ROUNDS_BOT_LOG", str(log))
    monkeypatch.setenv("ROUNDS_BOT_PEERS", ",".join(peers))
    slots = (f"daide:{exe}", f"daide:{exe}", *[f"{ROUNDS_BOT}:RoundsBot"] * 5)
    record = play_daide_game(GameSetup(11, slots, GameSettings(year_limit=1902), rounds=3, powers=powers))
    assert record.last_year == 1902
    heard = [json.loads(line) for line in log.read_text().splitlines()]
    movements = [p.phase for p in record.phases if p.phase.endswith("M")]
    for phase in movements:  # every seat hears every round of every movement phase, in order
        for power in peers:
            rounds = [h["round"] for h in heard if h["phase"] == phase and h["power"] == power]
            assert rounds == [0, 1, 2], (phase, power, rounds)
    # a round begins once the last one is quiet: every proposal of it answered
    assert [h for h in heard if h.get("unanswered")] == []
    # the record holds the messages, as an in-process game's does: two proposals and two
    # acceptances a seat a movement phase, every one of them from a seat that negotiates
    assert len(record.messages) == len(movements) * len(peers) * 4
    assert {m["sender"] for m in record.messages} == set(peers)
    assert all(m["phase"] in movements and "text" in m for m in record.messages)  # L, no DAIDE press
    confirmed = [e for e in record.events if e["type"] == "confirmed"]
    assert len(confirmed) == len(movements) * len(peers) * 2
    # within a phase, the proposals of round 1 come after every acceptance of round 0
    for phase in movements:
        kinds = [m["kind"] for m in record.messages if m["phase"] == phase]
        first_round, second_round = kinds[: len(peers) * 2], kinds[len(peers) * 2 :]
        assert sorted(first_round) == sorted(second_round) == ["accept"] * 5 + ["propose"] * 5, kinds
    # the same table in process, HoldBots for the programs (which hold): the same negotiation,
    # to the last compliance report of the last phase (only the order within a round may differ)
    holding = tuple("holdbot" if s.startswith("daide:") else s for s in slots)
    log.unlink()
    alike = play_game(GameSetup(11, holding, GameSettings(year_limit=1902), rounds=3, powers=powers))

    def key(entry: Mapping[str, Any]) -> str:
        return json.dumps(entry, sort_keys=True)

    assert sorted(map(key, record.messages)) == sorted(map(key, alike.messages))
    assert sorted(map(key, record.events)) == sorted(map(key, alike.events))


def test_the_table_counts_messages_and_deals_and_says_when_there_were_none(tmp_path: Path) -> None:
    exe = program(tmp_path)

    def run(bots: str, out: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "detente", "run", "--bots", bots, "--games", "2", "--seed", "4",
             "--year-limit", "1901", "--out", str(out)],
            check=False, capture_output=True, text=True, timeout=300, cwd=ROOT,
        )  # fmt: skip

    talking = run(f"dbrane,dbrane,daide:{exe}", tmp_path / "talking")
    assert talking.returncode == 0, talking.stderr
    summary = json.loads((tmp_path / "talking" / "summary.json").read_text())
    rows = {row["bot"]: row for row in summary["table"]}
    lines = [json.loads(line) for line in (tmp_path / "talking" / "games.jsonl").read_text().splitlines()]
    said = sum(s["said"] for line in lines for s in line["scores"].values() if s["bot"] == "dbrane")
    assert said > 0 and rows["dbrane"]["said"] == said / rows["dbrane"]["plays"]
    assert rows[f"daide:{exe}"]["said"] == 0 and rows[f"daide:{exe}"]["deals"] == 0
    assert rows["dbrane"]["deals"] > 0
    assert "said" in talking.stdout and "deals" in talking.stdout and "No deal" not in talking.stdout

    # a negotiating bot alone among programs proposes to seats that never answer: the table says so
    alone = run(f"dbrane,daide:{exe}", tmp_path / "alone")
    assert alone.returncode == 0, alone.stderr
    assert "No deal: dbrane said " in alone.stdout and "yet made no deal" in alone.stdout


def test_press_the_programs_cannot_be_given_is_refused_in_one_line(tmp_path: Path) -> None:
    exe = program(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "detente", "run", "--bots", f"dbrane,daide:{exe}", "--games", "1",
         "--press-level", "10", "--out", str(tmp_path / "run")],
        check=False, capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "detente run: daide: seats get no press: --press-level 10 would relay L to them as DAIDE press; leave it at 0"
    ]
    assert not (tmp_path / "run").exists()
