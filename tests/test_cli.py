"""``detente adjudicate`` as a user runs it: a real process, files and pipes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CASE = {
    "name": "two armies bounce",
    "start": {"phase": "S1901M", "units": {"FRA": ["A PAR"], "GERMANY": ["A MUN"]}, "centers": {}},
    "turns": [{"orders": {"FRANCE": ["A PAR - BUR"], "GER": ["A MUN - BUR", "A MUN flies away"]}}],
}


def detente(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "detente", *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def test_a_case_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(CASE))
    run = detente("adjudicate", str(path))
    assert run.returncode == 0, run.stderr
    [[after]] = json.loads(run.stdout)
    assert after["phase"] == "F1901M"
    assert after["units"] == {"FRANCE": ["A PAR"], "GERMANY": ["A MUN"]}
    assert after["results"]["A PAR"] == ["bounce"]
    assert after["results"]["A MUN flies away"] == ["void"]


def test_a_list_of_cases_from_standard_input() -> None:
    run = detente("adjudicate", "-", stdin=json.dumps([CASE, CASE]))
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)) == 2


def test_the_shipped_example_runs() -> None:
    run = detente("adjudicate", "example")
    assert run.returncode == 0, run.stderr
    [[moved, retreated]] = json.loads(run.stdout)
    assert moved["phase"] == "S1901R" and retreated["phase"] == "F1901M"
    assert retreated["results"]["F TRI"] == ["bounce", "disband"]


def test_broken_json_gets_an_error_with_line_and_column() -> None:
    run = detente("adjudicate", "-", stdin='{\n  "start": {,\n}')
    assert run.returncode == 2
    error = json.loads(run.stderr)
    assert (error["line"], error["column"]) == (2, 13)
    assert "Traceback" not in run.stderr


def test_a_case_of_the_wrong_shape_gets_an_error() -> None:
    run = detente("adjudicate", "-", stdin='{"start": {"phase": "SPRING", "units": {}}, "turns": []}')
    assert run.returncode == 2
    assert "phase" in json.loads(run.stderr)["error"]


def test_a_missing_file_gets_an_error(tmp_path: Path) -> None:
    run = detente("adjudicate", str(tmp_path / "nothing.json"))
    assert run.returncode == 2
    assert "cannot read" in json.loads(run.stderr)["error"]


def test_every_command_is_wired(tmp_path: Path) -> None:
    from detente.cli import build_parser, main

    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(commands) == {"adjudicate", "check", "serve", "nego", "bot", "run", "report", "play"}
    assert main(["report", str(tmp_path / "nowhere"), "-o", str(tmp_path / "r.html")]) == 2
