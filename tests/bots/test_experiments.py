"""Experiments: scoring by hand-made results, and ``detente run`` end to end in a temporary directory."""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bots import registry
from bots.base import Bot, LegalOrders
from detente import run_command
from detente.experiments import Progress, format_table, score_game, slots_from, summarise
from engine import Position
from engine.orders import Order

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
ROOT = Path(__file__).resolve().parents[2]


def scores(centres: dict[str, int], eliminated: dict[str, str] | None = None) -> dict[str, tuple[float, float]]:
    bots = dict.fromkeys(centres, "bot")
    return {s.power: (s.win, s.rank) for s in score_game(centres, eliminated or {}, bots)}


def test_a_solo_wins_alone_and_the_others_rank_by_centres() -> None:
    got = scores({"AUSTRIA": 18, "ENGLAND": 7, "FRANCE": 5, "GERMANY": 3, "ITALY": 1, "RUSSIA": 0, "TURKEY": 0})
    assert got["AUSTRIA"] == (1.0, 1.0)
    assert [got[p][1] for p in ("ENGLAND", "FRANCE", "GERMANY", "ITALY")] == [2.0, 3.0, 4.0, 5.0]
    assert got["RUSSIA"] == got["TURKEY"] == (0.0, 6.5)  # not eliminated, same centres: they share ranks 6 and 7


def test_ties_share_the_win_and_their_ranks() -> None:
    got = scores({"AUSTRIA": 8, "ENGLAND": 8, "FRANCE": 8, "GERMANY": 4, "ITALY": 4, "RUSSIA": 2, "TURKEY": 0})
    assert [got[p][0] for p in POWERS] == [1 / 3, 1 / 3, 1 / 3, 0.0, 0.0, 0.0, 0.0]
    assert [got[p][1] for p in POWERS] == [2.0, 2.0, 2.0, 4.5, 4.5, 6.0, 7.0]
    two_way = scores({"AUSTRIA": 10, "ENGLAND": 10, "FRANCE": 0})
    assert two_way["AUSTRIA"][0] == two_way["ENGLAND"][0] == 0.5


def test_among_the_eliminated_later_is_better() -> None:
    got = scores(
        {"AUSTRIA": 9, "ENGLAND": 9, "FRANCE": 0, "GERMANY": 0, "ITALY": 0, "RUSSIA": 16, "TURKEY": 0},
        {"FRANCE": "W1905A", "GERMANY": "F1905M", "ITALY": "F1905R", "TURKEY": "S1910M"},
    )
    assert [got[p][1] for p in ("TURKEY", "FRANCE", "ITALY", "GERMANY")] == [4.0, 5.0, 6.0, 7.0]
    assert got["RUSSIA"] == (1.0, 1.0) and got["AUSTRIA"] == got["ENGLAND"] == (0.0, 2.5)


def test_summary_per_bot() -> None:
    def line(*plays: tuple[str, int, float, float]) -> dict[str, object]:
        return {
            "scores": {f"P{i}": {"bot": b, "centres": c, "win": w, "rank": r} for i, (b, c, w, r) in enumerate(plays)}
        }

    table = summarise(
        [
            line(("dumb", 10, 1.0, 1.0), ("rand", 4, 0.0, 2.0), ("rand", 2, 0.0, 3.0)),
            line(("dumb", 6, 0.5, 1.5), ("rand", 6, 0.5, 1.5), ("rand", 0, 0.0, 3.0)),
        ]
    )
    dumb, rand = table
    assert (dumb.bot, dumb.plays, dumb.mean_centres, dumb.wins, dumb.win_rate, dumb.mean_rank) == (
        "dumb",
        2,
        8.0,
        1.5,
        0.75,
        1.25,
    )
    assert dumb.games == 2 and dumb.se_centres == pytest.approx(math.sqrt(8) / math.sqrt(2))
    assert dumb.se_win_rate == pytest.approx(0.25) and dumb.se_rank == pytest.approx(0.25)
    assert (rand.plays, rand.games, rand.mean_centres, rand.wins, rand.mean_rank) == (4, 2, 3.0, 0.5, 2.375)
    # the standard error is over games, not seats: rand has 3 centres a seat in each game (4 and 2, 6 and 0),
    # so none at all; over its four seats as if independent it would be sqrt(20 / 3) / 2
    assert rand.se_centres == 0.0
    assert rand.se_win_rate == pytest.approx(0.125) and rand.se_rank == pytest.approx(0.125)  # 0 and 0.25; 2.5 and 2.25
    low, high = dumb.per_game["centres"].low, dumb.per_game["centres"].high
    # Student's t with one degree of freedom, kept within 0 to 34 centres (it would reach -17.4)
    assert low == 0.0 and high == pytest.approx(8.0 + 12.706 * 2.0, abs=1e-3)
    win = dumb.per_game["win_rate"]  # a share of wins: Wilson's interval, inside 0 to 1
    assert 0.0 <= win.low < 0.75 < win.high <= 1.0
    row = dumb.to_json()
    assert row["per_game"]["centres"] == {"mean": 8.0, "se": row["se_centres"], "n": 2, "low": low, "high": high}
    assert {"bot", "plays", "mean_centres", "se_centres", "wins", "win_rate", "mean_rank"} < row.keys()  # old keys kept
    text = format_table([row.to_json() for row in table])
    # lines of a run made before messages and deals were counted: those columns show "-"
    assert text.splitlines()[2].split() == ["dumb", "2", "2", "8.00", "2.00", "1.50", "75.0", "25.0", "1.25", "0.25", "-", "-"]
    (single,) = summarise([line(("only", 3, 1.0, 1.0))])
    assert single.se_centres is None and "-" in format_table([single.to_json()]).splitlines()[2].split()
    # a summary.json written before the per-game keys reads as before, what it lacks shown as -
    old_keys = ("bot", "plays", "mean_centres", "se_centres", "wins", "win_rate", "mean_rank")
    old = {k: v for k, v in row.items() if k in old_keys}
    expected = ["dumb", "-", "2", "8.00", "2.00", "1.50", "75.0", "-", "1.25", "-", "-", "-"]
    assert format_table([old]).splitlines()[2].split() == expected


def test_slots_are_padded_with_the_last_bot() -> None:
    assert slots_from(["dumbbot", "randombot"]) == ("dumbbot",) + ("randombot",) * 6
    assert slots_from(["holdbot"]) == ("holdbot",) * 7
    with pytest.raises(ValueError):
        slots_from(["a"] * 8)
    with pytest.raises(ValueError):
        slots_from([""])


def test_the_progress_bar_redraws_one_line() -> None:
    stream = io.StringIO()
    bar = Progress(4, stream)
    bar.update(1)
    bar.update(2)
    assert bar.close() >= 0
    text = stream.getvalue()
    assert text.startswith("\r1/4 [#######") and "\r2/4 [###############..." in text and text.endswith("\n")
    quiet = io.StringIO()
    silent = Progress(4, quiet, enabled=False)
    silent.update(3)
    silent.close()
    assert quiet.getvalue() == ""


# --- detente run ---------------------------------------------------------------------------------


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    run_command.add_arguments(parser)
    return run_command.run(parser.parse_args(list(argv)))


def files(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*.json*"))}


def test_detente_run_end_to_end_is_the_same_with_one_or_two_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = (
        "--bots",
        "randombot,holdbot",
        "--games",
        "4",
        "--seed",
        "9",
        "--year-limit",
        "1903",
        "--l-levels",
        "1-4, 6",
    )
    assert run(*common, "--jobs", "2", "--out", str(tmp_path / "two")) == 0
    printed = capsys.readouterr().out
    assert run(*common, "--jobs", "1", "--out", str(tmp_path / "one")) == 0
    two = files(tmp_path / "two")
    assert two == files(tmp_path / "one")
    assert sorted(two) == [
        "games.jsonl",
        "games/1.json",
        "games/2.json",
        "games/3.json",
        "games/4.json",
        "manifest.json",
        "summary.json",
    ]
    made = json.loads(two["manifest.json"])
    assert made["seed"] == 9 and made["game_seeds"] == [json.loads(x)["seed"] for x in two["games.jsonl"].splitlines()]
    assert set(made["bots"]) == {"randombot", "holdbot"} and made["bots"]["randombot"]["class"] == "bots.base.RandomBot"
    assert made["code"]["commit"] is None or len(made["code"]["commit"]) == 40
    assert made["versions"]["lark"] and made["settings"]["year_limit"] == 1903

    lines = [json.loads(line) for line in two["games.jsonl"].splitlines()]
    assert [line["game"] for line in lines] == [1, 2, 3, 4]
    assert len({line["seed"] for line in lines}) == 4
    for line in lines:
        assert sorted(line["bots"].values()) == ["holdbot"] * 6 + ["randombot"]
        assert line["outcome"] == "draw" and line["winner"] is None and line["last_year"] == 1903
        assert list(line["centres"]) == ["1901", "1902", "1903"]
        assert math.isclose(sum(s["win"] for s in line["scores"].values()), 1.0)
        assert (
            sum(s["rank"] for s in line["scores"].values()) == 28 and line["final_centres"] == line["centres"]["1903"]
        )
        record = json.loads(two[f"games/{line['game']}.json"])
        assert record["seed"] == line["seed"] and record["bots"] == line["bots"]
        assert record["settings"] == {
            "year_limit": 1903,
            "press_level": 0,
            "l_levels": "1-4,6",
            "protocol": "free",
            "binding": False,
            "rounds": 3,
        }
        assert record["phases"][0]["phase"] == "S1901M" and record["messages"] == []

    summary = json.loads(two["summary.json"])
    assert summary["seed"] == 9 and summary["games"] == 4 and summary["draws"] == 4 and summary["solos"] == 0
    assert summary["bots"] == ["randombot"] + ["holdbot"] * 6
    assert [row["bot"] for row in summary["table"]] == ["randombot", "holdbot"]  # in the order of --bots
    rows = {row["bot"]: row for row in summary["table"]}
    assert rows["randombot"]["plays"] == 4 and rows["holdbot"]["plays"] == 24
    assert math.isclose(rows["randombot"]["wins"] + rows["holdbot"]["wins"], 4.0)
    assert "randombot" in printed and "holdbot" in printed and format_table(summary["table"]) in printed


def test_detente_run_refuses_bad_options_and_an_old_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x")
    assert run("--bots", "nobot", "--games", "1", "--out", out) == 2
    assert "unknown bot" in capsys.readouterr().err
    assert run("--bots", "holdbot", "--games", "0", "--out", out) == 2
    assert run("--bots", "holdbot", "--games", "1", "--press-level", "7", "--out", out) == 2
    assert run("--bots", "holdbot", "--games", "1", "--l-levels", "9", "--out", out) == 2
    capsys.readouterr()
    for year in ("1900", "soon", "10000"):  # one plain line, as for every other bad option
        assert run("--bots", "holdbot", "--games", "1", "--year-limit", year, "--out", out) == 2
        err = capsys.readouterr().err
        assert err.startswith("detente run: --year-limit: the year limit is a year from 1901") and err.count("\n") == 1
    assert run("--bots", "holdbot", "--games", "1", "--rounds", "-1", "--out", out) == 2
    assert "--rounds" in capsys.readouterr().err
    assert run("--bots", "holdbot", "--games", "1", "--year-limit", "1901", "--jobs", "1", "--out", out) == 0
    capsys.readouterr()
    assert run("--bots", "holdbot", "--games", "1", "--out", out) == 2
    assert "already holds a finished run (games.jsonl)" in capsys.readouterr().err


def test_the_same_seed_gives_the_same_files_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Processes with other string hashes (as spawned workers would have) play the same games."""
    script = (
        "import sys, argparse; from detente import run_command as r; p = argparse.ArgumentParser();"
        " r.add_arguments(p); sys.exit(r.run(p.parse_args(sys.argv[1:])))"
    )
    outputs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / hash_seed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        args = ["--bots", "randombot", "--games", "2", "--seed", "5", "--year-limit", "1903", "--jobs", "1"]
        subprocess.run([sys.executable, "-c", script, *args, "--out", str(out)], cwd=ROOT, env=env, check=True)
        outputs.append(files(out))
    assert "games.jsonl" in outputs[0] and outputs[0] == outputs[1]


def test_the_negotiating_bots_play_the_same_games_whatever_the_hash_seed(tmp_path: Path) -> None:
    """The papers' bots too: Bordeaux once summed its alliances' values in the order of a set of
    names, so a near tie fell one way or the other with the process's string hashes (hash seeds
    1 and 3 played game 2 of this run differently from 1904 on). Both processes run at once."""
    script = (
        "import sys, argparse; from detente import run_command as r; p = argparse.ArgumentParser();"
        " r.add_arguments(p); sys.exit(r.run(p.parse_args(sys.argv[1:])))"
    )
    args = ["--bots", "dipblue,bordeaux,dbrane,randomnegotiator,dumbbot", "--games", "2", "--seed", "11"]
    args += ["--year-limit", "1904", "--binding", "--jobs", "1"]
    runs = []
    for hash_seed in ("1", "3"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        command = [sys.executable, "-c", script, *args, "--out", str(tmp_path / hash_seed)]
        runs.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL))
    assert [run.wait(timeout=600) for run in runs] == [0, 0]
    first, second = files(tmp_path / "1"), files(tmp_path / "3")
    assert "games/2.json" in first and first == second


class CrashBot(Bot):
    """Fails in its first phase."""

    name = "crashbot"

    def orders(self, position: Position, legal: LegalOrders) -> list[Order]:
        raise RuntimeError("boom")


def test_a_failing_game_stops_the_run_and_says_which_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.BOTS, "crashbot", f"{__name__}:CrashBot")
    with pytest.raises(RuntimeError, match="boom") as raised:
        run("--bots", "holdbot,crashbot", "--games", "3", "--seed", "1", "--jobs", "2", "--out", str(tmp_path))
    assert any(re.match(r"in game [123] \(seed \d+, bots holdbot, crashbot, ", note) for note in raised.value.__notes__)
