"""Hostile game files get one line and exit status 2 from every command that reads them (issue 29):
the bounds of the HTTP API's import, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from detente.cli import main

HOSTILE = {
    "nested too deeply": "[" * 200_000 + "]" * 200_000,
    "a number with too many digits": '{"id": ' + "9" * 200_000 + "}",
}


@pytest.mark.parametrize(
    "command",
    [["convert", "{}", "--to", "mila"], ["adjudicate", "{}"], ["replay", "{}", "--no-browser", "--port", "0"]],
)
@pytest.mark.parametrize("why", sorted(HOSTILE))
def test_a_hostile_file_gets_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], why: str
) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(HOSTILE[why])
    assert main([str(path) if part == "{}" else part for part in command]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and why in err and "Traceback" not in err


def test_a_game_without_a_phase_is_not_converted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.json"
    path.write_text('{"id": "x", "phases": []}')
    assert main(["convert", str(path), "--to", "mila"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "no phase in this game" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("why", sorted(HOSTILE))
@pytest.mark.parametrize("name", ["games.jsonl", "summary.json"])
def test_a_run_directory_with_a_hostile_file_gets_one_line_from_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], why: str, name: str
) -> None:
    run = tmp_path / "run"
    assert main(["run", "--bots", "holdbot", "--games", "1", "--year-limit", "1901", "--out", str(run)]) == 0
    (run / name).write_text(HOSTILE[why])
    capsys.readouterr()
    assert main(["report", str(run), "-o", str(tmp_path / "report.html")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and err.startswith(f"detente report: {run / name}")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "said"),
    [("a = " + "[" * 200_000 + "]" * 200_000, "nested too deeply"), ("a = " + "9" * 200_000, "too many digits")],
)
def test_a_hostile_llm_config_gets_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str) -> None:
    path = tmp_path / "llm.toml"
    path.write_text(text)
    run = ["run", "--bots", "holdbot", "--games", "1", "--out", str(tmp_path / "run"), "--llm-config", str(path)]
    assert main(run) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and said in err and "Traceback" not in err
