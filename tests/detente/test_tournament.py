"""Tournaments: the analysis of hand-made games, a real tournament in process, its report, and the command."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from detente import report_command, tournament_command
from detente.experiments import rotation, score_game
from detente.scoring import sum_of_squares
from detente.stats import estimate, paired
from detente.tournament import SetUp, Tournament, TournamentError, analyse, format_analysis, run_tournament
from engine import standard_map
from referee.settings import GameSettings

ROOT = Path(__file__).resolve().parents[2]
POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")  # as the files name them
FULL = standard_map().power_names


# --- the analysis, from games made by hand -----------------------------------------------------------


def write_games(out: Path, setup: SetUp, lone_centres: list[int]) -> None:
    """Games of ``setup``: the lone seat (AUSTRIA) with ``lone_centres[g]``, the field 4 centres each."""
    lines = []
    for g, mine in enumerate(lone_centres, 1):
        centres = {p: (mine if p == "AUSTRIA" else 4) for p in POWERS}
        bots = {p: (setup.lone if p == "AUSTRIA" else setup.field) for p in POWERS}
        scores = {s.power: s.to_json() for s in score_game(centres, {}, bots)}
        lines.append({"game": g, "seed": 100 + g, "outcome": "draw", "winner": None, "bots": bots, "scores": scores})
    (out / setup.name).mkdir(parents=True)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (out / setup.name / "games.jsonl").write_text(text, encoding="utf-8")


def sos(mine: int) -> float:
    return sum_of_squares({p: (mine if p == "AUSTRIA" else 4) for p in POWERS}, None)["AUSTRIA"]


LONE = {  # the lone seat's centres in games 1, 2, 3 of 1v6-<row>-<column>
    ("a", "b"): [9, 8, 10],
    ("a", "c"): [7, 9, 8],
    ("b", "a"): [2, 3, 1],
    ("b", "c"): [5, 6, 5],
    ("c", "a"): [3, 2, 3],
    ("c", "b"): [3, 2, 3],
}


@pytest.fixture
def made(tmp_path: Path) -> Path:
    tournament = Tournament(("a", "b", "c"), 3, 1, tmp_path)
    (tmp_path / "tournament.json").write_text(json.dumps(tournament.description()), encoding="utf-8")
    for setup in tournament.set_ups():
        write_games(tmp_path, setup, LONE[setup.lone, setup.field])
    return tmp_path


def test_the_cross_play_matrix_is_the_lone_seats_mean_per_game(made: Path) -> None:
    analysis = analyse(made)
    assert analysis.rows == analysis.columns == ["a", "b", "c"]
    assert set(analysis.cross) == set(LONE)
    for pair, centres in LONE.items():
        assert analysis.cross[pair]["centres"] == estimate(centres)
        assert analysis.cross[pair]["sum-of-squares"].mean == pytest.approx(statistics.fmean(map(sos, centres)))
    assert analysis.lone["b"]["centres"] == estimate([2, 3, 1, 5, 6, 5])  # over both its fields: six games


def test_paired_comparisons_pair_the_games_of_one_field(made: Path) -> None:
    analysis = analyse(made)
    pairs = {(p.field, p.a, p.b): p for p in analysis.pairs}
    assert set(pairs) == {("a", "b", "c"), ("b", "a", "c"), ("c", "a", "b")}
    against_c = pairs["c", "a", "b"].comparisons["centres"]
    assert against_c == paired([7, 9, 8], [5, 6, 5])
    assert against_c.difference.mean == pytest.approx(8 / 3) and against_c.difference.n == 3
    assert pairs["a", "b", "c"].comparisons["centres"].difference.mean == pytest.approx(-2 / 3)
    assert pairs["c", "a", "b"].kinds == ("1v6",)


def test_the_ratings_put_the_bot_that_beats_every_field_first(made: Path) -> None:
    ratings = analyse(made).ratings
    # a beats every field and loses to none; b beats c's field and c's lone seat loses to b's field
    assert [r.bot for r in ratings] == ["a", "b", "c"]
    assert all(r.games == 12 for r in ratings)  # each bot: 4 set-ups (2 alone, 2 as field) of 3 games
    assert ratings[0].ordinal == ratings[0].mu - 3 * ratings[0].sigma and ratings[0].mu > 25 > ratings[-1].mu
    text = format_analysis(analyse(made), "centres")
    assert "Cross-play, centres" in text and "9.00 [" in text and "Paired comparisons, centres" in text


def test_both_kinds_average_into_one_value_a_game(tmp_path: Path) -> None:
    tournament = Tournament(("a", "b"), 2, 1, tmp_path, kinds=("1v6", "6v1"))
    (tmp_path / "tournament.json").write_text(json.dumps(tournament.description()), encoding="utf-8")
    lone = {"1v6-a-b": [9, 7], "6v1-b-a": [5, 7], "1v6-b-a": [1, 2], "6v1-a-b": [3, 2]}
    for setup in tournament.set_ups():
        write_games(tmp_path, setup, lone[setup.name])
    analysis = analyse(tmp_path)
    assert analysis.cross["a", "b"]["centres"] == estimate([7, 7])  # (9 + 5) / 2, (7 + 7) / 2
    assert analysis.cross["b", "a"]["centres"] == estimate([2, 2])
    assert analysis.pairs == ()  # with two bots no two face the same field


def test_set_ups_and_bad_tournaments(tmp_path: Path) -> None:
    s = SetUp("1v6", "x", "y")
    assert (s.lone, s.field, s.lone_slot, s.slots) == ("x", "y", 0, ("x",) + ("y",) * 6)
    both = Tournament(("a", "b"), 7, 1, tmp_path, kinds=("1v6", "6v1")).set_ups()
    assert [x.name for x in both] == ["1v6-a-b", "1v6-b-a", "6v1-a-b", "6v1-b-a"]
    assert [x.lone for x in both] == ["a", "b", "b", "a"]
    named = Tournament(("dipblue:nopress",), 7, 1, tmp_path, opponents=("holdbot",)).set_ups()
    assert [x.name for x in named] == ["1v6-dipblue_nopress-holdbot"]
    with pytest.raises(TournamentError, match="set-ups"):
        Tournament(("a", "b"), 7, 1, tmp_path, kinds=("2v5",)).set_ups()
    with pytest.raises(TournamentError, match="two different bots"):
        Tournament(("a",), 7, 1, tmp_path).set_ups()
    with pytest.raises(TournamentError, match="cannot read"):
        analyse(tmp_path)


# --- a real tournament, in process --------------------------------------------------------------------


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Tournament, object]:
    out = tmp_path_factory.mktemp("tournament")
    tournament = Tournament(
        ("dumbbot", "holdbot", "randombot"),
        7,
        seed=3,
        out=out,
        kinds=("1v6", "6v1"),
        settings=GameSettings(name="tournament", year_limit=1902),
    )
    return tournament, run_tournament(tournament)


def lines(path: Path) -> list[dict]:
    return [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]


def test_every_set_up_is_a_run_directory_and_the_games_pair(played: tuple) -> None:
    tournament, analysis = played
    out = tournament.out
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["results.json", "tournament.json"]
    described = json.loads((out / "tournament.json").read_text())
    assert [s["name"] for s in described["setups"]] == [s.name for s in tournament.set_ups()]
    assert len(described["setups"]) == 12 and described["settings"]["year_limit"] == 1902
    assert json.loads((out / "results.json").read_text()) == json.loads(json.dumps(analysis.to_json()))
    powers = rotation(3, 7)
    runs = {}
    for setup in tournament.set_ups():
        run = out / setup.name
        assert {"games.jsonl", "summary.json", "manifest.json", "games"} <= {p.name for p in run.iterdir()}
        summary = json.loads((run / "summary.json").read_text())
        assert summary["bots"] == list(setup.slots) and summary["games"] == 7
        runs[setup.name] = lines(run / "games.jsonl")
        for n, line in enumerate(runs[setup.name]):
            (lone,) = [p for p, bot in line["bots"].items() if bot == setup.lone]
            assert lone == FULL[powers[n][setup.lone_slot]]  # the rotation: the lone seat's power is the slot's
        assert sorted(FULL[powers[n][setup.lone_slot]] for n in range(7)) == sorted(POWERS)  # every power once
    # the same seeds and the same powers: the lone seat against the same field, game by game
    for kind, field in (("1v6", "dumbbot"), ("6v1", "randombot")):
        first, second = (x for x in tournament.set_ups() if x.kind == kind and x.field == field)
        for a, b in zip(runs[first.name], runs[second.name], strict=True):
            assert a["seed"] == b["seed"]
            assert [p for p, bot in a["bots"].items() if bot == field] == [
                p for p, bot in b["bots"].items() if bot == field
            ]


def test_the_real_tournament_rates_dumbbot_first_and_compares_on_paired_games(played: tuple) -> None:
    tournament, analysis = played
    assert analysis.ratings[0].bot == "dumbbot"
    assert {r.bot: r.games for r in analysis.ratings} == dict.fromkeys(tournament.bots, 8 * 7)
    assert len(analysis.cross) == 6 and all(v["centres"].n == 7 for v in analysis.cross.values())
    pair = next(p for p in analysis.pairs if p.field == "randombot")
    assert (pair.a, pair.b, pair.kinds) == ("dumbbot", "holdbot", ("1v6", "6v1"))
    out = tournament.out

    def lone(name: str, bot: str) -> list[float]:
        return [
            next(s["centres"] for s in line["scores"].values() if s["bot"] == bot)
            for line in lines(out / name / "games.jsonl")
        ]

    a = [
        statistics.fmean(x)
        for x in zip(lone("1v6-dumbbot-randombot", "dumbbot"), lone("6v1-randombot-dumbbot", "dumbbot"), strict=True)
    ]
    b = [
        statistics.fmean(x)
        for x in zip(lone("1v6-holdbot-randombot", "holdbot"), lone("6v1-randombot-holdbot", "holdbot"), strict=True)
    ]
    assert pair.comparisons["centres"] == paired(a, b)


def test_a_tournament_run_again_plays_only_what_is_missing(played: tuple) -> None:
    tournament, analysis = played
    seen = []
    again = run_tournament(
        tournament,
        started=lambda i, s: pytest.fail("played again"),
        finished=lambda i, s, summary: seen.append(summary),
    )
    assert seen == [None] * 12 and again.to_json() == analysis.to_json()
    with pytest.raises(TournamentError, match="another tournament"):
        run_tournament(
            Tournament(
                tournament.bots, 8, tournament.seed, tournament.out, tournament.kinds, settings=tournament.settings
            )
        )


def test_the_report_of_a_tournament(played: tuple, tmp_path: Path) -> None:
    from tests.test_report import Page, assert_self_contained

    tournament, analysis = played
    parser = argparse.ArgumentParser()
    report_command.add_arguments(parser)
    page_path = tmp_path / "t.html"
    assert report_command.run(parser.parse_args([str(tournament.out), "-o", str(page_path), "--games-shown", "0"])) == 0
    text = page_path.read_text(encoding="utf-8")
    assert_self_contained(text)
    page = Page(text)
    assert page.sections[:2] == ["experiment", "tournament"]
    assert [s for s in page.sections if s.startswith("session-")] == [f"session-{n}" for n in range(1, 13)]
    rows = {row[0]: row for row in page.rows if row}
    assert [row[0] for row in page.rows if row and row[0] in tournament.bots][:3] == [r.bot for r in analysis.ratings]
    assert rows["rated bot"] == ["rated bot", "mu", "sigma", "ordinal", "games"]
    assert rows["lone \\ field"] == ["lone \\ field", "dumbbot", "holdbot", "randombot"]
    assert rows["field"][:3] == ["field", "a", "b"]
    section = text[text.index('<section id="tournament">') :]
    section = section[: section.index("</section>")]
    assert section.count("<svg") == 1  # the heatmap of the cross-play matrix, its cells labelled with the means
    heatmap = section[section.index("<svg") :]
    for value in analysis.cross.values():
        assert f">{value['sum-of-squares'].mean:.3f}<" in heatmap


# --- the command, end to end ----------------------------------------------------------------------------


def test_detente_tournament_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = ["--bots", "dumbbot,holdbot", "--games", "7", "--seed", "5", "--year-limit", "1902", "--jobs", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "detente", "tournament", *argv, "--out", str(out)],
        capture_output=True,
        check=False,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "1v6-dumbbot-holdbot",
        "1v6-holdbot-dumbbot",
        "results.json",
        "tournament.json",
    ]
    results = json.loads((out / "results.json").read_text())
    ratings = results["ratings"]
    assert [r["bot"] for r in ratings] == ["dumbbot", "holdbot"] and ratings[0]["ordinal"] > ratings[1]["ordinal"]
    assert results["openskill"].startswith("6.")
    printed = run.stdout.splitlines()
    rating_rows = [line.split()[0] for line in printed[3:5]]
    assert rating_rows == ["dumbbot", "holdbot"]
    assert "Paired comparisons: none" in run.stdout and "set-up 2/2 1v6-holdbot-dumbbot: 7 games" in run.stderr


def test_detente_tournament_refuses_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def command(*argv: str) -> int:
        parser = argparse.ArgumentParser()
        tournament_command.add_arguments(parser)
        return tournament_command.run(parser.parse_args([*argv, "--out", str(tmp_path / "x")]))

    assert command("--bots", "dumbbot,nobot", "--games", "1") == 2
    assert "unknown bot" in capsys.readouterr().err
    assert command("--bots", "holdbot", "--games", "1") == 2
    assert "two different bots" in capsys.readouterr().err
    assert command("--bots", "holdbot,dumbbot", "--games", "1", "--setups", "1v6,2v5") == 2
    assert "2v5" in capsys.readouterr().err
    assert command("--bots", "holdbot,dumbbot", "--games", "0") == 2
    assert not (tmp_path / "x").exists()
