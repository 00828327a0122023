"""Ctrl-C in ``detente run`` and ``detente tournament`` stops at once with one line and keeps the
finished games; the same command resumes, and the files are those of a run never stopped
(issue 29). Budget: about 20 s."""

from __future__ import annotations

import filecmp
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from detente.cli import main

RUN = ["run", "--bots", "randombot", "--games", "40", "--jobs", "2", "--year-limit", "1906", "--seed", "3"]


#: ``detente`` with Ctrl-C heard as a terminal's: a test run in the background of a shell
#: inherits SIGINT ignored, which Python would keep.
AS_FROM_A_TERMINAL = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler);"
    " sys.argv[0] = 'detente'; runpy.run_module('detente', run_name='__main__')"
)


def same_files(a: Path, b: Path) -> bool:
    """Every file of a run but its manifest (which names the time) the same in ``a`` and ``b``."""
    names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name != "manifest.json")
    assert names == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file() and p.name != "manifest.json")
    return all(filecmp.cmp(a / n, b / n, shallow=False) for n in names)


def stopped(command: list[str], kept: Path) -> str:
    """``detente COMMAND`` started as a person does and stopped with Ctrl-C once a game is in
    ``kept`` (a ``games.jsonl``): its stderr."""
    process = subprocess.Popen(
        [sys.executable, "-c", AS_FROM_A_TERMINAL, *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not kept.exists() or not kept.read_text():  # polled: a file's first line is no event to await
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    return err


def stopped_run(out: Path) -> str:
    return stopped([*RUN, "--out", str(out)], out / "games.jsonl")


def test_ctrl_c_keeps_the_finished_games_and_the_same_command_resumes(tmp_path: Path) -> None:
    out, whole = tmp_path / "stopped", tmp_path / "whole"
    err = stopped_run(out)
    assert err.splitlines() == [err.strip()] and "the same command resumes" in err and "Traceback" not in err
    kept = len((out / "games.jsonl").read_text().splitlines())
    assert 1 <= kept < 40 and not (out / "summary.json").exists() and (out / "run.json").exists()
    assert main([*RUN, "--out", str(out)]) == 0
    assert main([*RUN, "--out", str(whole)]) == 0
    assert not (out / "run.json").exists()  # done: nothing to resume
    assert same_files(out, whole)


def test_a_resume_drops_a_torn_line_and_finds_the_runs_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, whole = tmp_path / "stopped", tmp_path / "whole"
    stopped_run(out)
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join(lines) + "\n" + '{"game": ' + str(len(lines) + 1))  # cut short
    without_seed = RUN[: RUN.index("--seed")] + RUN[RUN.index("--seed") + 2 :]
    assert main([*without_seed, "--out", str(out)]) == 0  # the unfinished run's seed, not a new one
    assert f"{len(lines)} of 40 games kept" in capsys.readouterr().err
    assert main([*RUN, "--out", str(whole)]) == 0
    assert same_files(out, whole)


def test_other_options_or_a_finished_run_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done, stopped = tmp_path / "done", tmp_path / "stopped"
    assert main([*RUN, "--out", str(done)]) == 0
    capsys.readouterr()
    assert main([*RUN, "--out", str(done)]) == 2  # finished: nothing to resume
    assert "already holds a finished run" in capsys.readouterr().err
    stopped_run(stopped)
    other = [*RUN[:4], "41", *RUN[5:]]
    assert main([*other, "--out", str(stopped)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other options (games differ)" in err
    assert json.loads((stopped / "run.json").read_text())["games"] == 40  # untouched


TOURNAMENT = ["tournament", "--bots", "randombot,holdbot", "--games", "14", "--jobs", "2", "--year-limit", "1905"]
TOURNAMENT += ["--seed", "5"]


def test_ctrl_c_in_a_tournament_keeps_whole_set_ups_and_finished_games_and_the_same_command_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, whole = tmp_path / "stopped", tmp_path / "whole"
    err = stopped([*TOURNAMENT, "--out", str(out)], out / "1v6-holdbot-randombot" / "games.jsonl")  # the second
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and last.startswith("detente tournament: stopped; 1 of 2 set-ups complete")
    assert last.endswith("the same command resumes")
    half = len((out / "1v6-holdbot-randombot" / "games.jsonl").read_text().splitlines())
    assert main([*TOURNAMENT, "--out", str(out)]) == 0
    said = capsys.readouterr().err
    assert "1v6-randombot-holdbot: complete already, kept" in said
    assert f"1v6-holdbot-randombot: resuming, {half} of 14 games kept" in said
    assert main([*TOURNAMENT, "--out", str(whole)]) == 0
    assert same_files(out, whole)
