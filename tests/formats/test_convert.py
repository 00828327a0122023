"""``detente convert`` and the compact JSON of ``detente adjudicate``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from detente.cases import adjudicate_text, answer_cases
from detente.cli import main

DATA = Path(__file__).parent.parent / "data" / "formats"
DATC = Path(__file__).parent.parent / "datc" / "data"


def convert(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "detente", "convert", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_mila_to_detente_and_back(tmp_path: Path) -> None:
    ours, back = tmp_path / "game.json", tmp_path / "game.mila.json"
    assert main(["convert", str(DATA / "mila_sample.json"), "--to", "detente", "-o", str(ours)]) == 0
    document = json.loads(ours.read_text())
    assert document["source"]["format"] == "mila" and document["phases"]
    assert main(["convert", str(ours), "--to", "mila", "-o", str(back), "--indent", "2"]) == 0
    saved, original = json.loads(back.read_text()), json.loads((DATA / "mila_sample.json").read_text())
    assert [p["name"] for p in saved["phases"]] == [p["name"] for p in original["phases"]]
    assert back.read_text().startswith('{\n  "id"')


def test_cicero_to_mila_on_standard_output() -> None:
    run = convert(str(DATA / "cicero_sample.json"), "--to", "mila")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["phases"][0]["name"] == "S1901M"


def test_marked_phases_are_counted_on_standard_error(tmp_path: Path) -> None:
    saved = json.loads((DATA / "mila_sample.json").read_text())
    # a recorded state no adjudicator would reach: a French army in Moscow
    saved["phases"][1]["state"]["units"]["FRANCE"].append("A MOS")
    for power, units in saved["phases"][1]["state"]["units"].items():
        if power != "FRANCE" and "A MOS" in units:
            units.remove("A MOS")
    run = convert("-", "--to", "detente", stdin=json.dumps(saved))
    assert run.returncode == 0, run.stderr
    # S1901M does not lead there, and F1901M (played from the recorded state) does not
    # lead to the next recorded state, which has no such army
    assert "2 phase(s) of standard input adjudicate differently" in run.stderr
    first, second = [p for p in json.loads(run.stdout)["phases"] if "note" in p]
    assert first["phase"] == "S1901M" and "A MOS" in first["position"]["units"]["FRANCE"]
    assert second["phase"] == "F1901M" and "A MOS" in second["differences"]["units"]["FRANCE"][1]


@pytest.mark.parametrize(
    ("stdin", "expected"),
    [
        ('{"phases": [1,', "detente convert: invalid JSON in standard input: Expecting value (line 1, column 15)"),
        ('{"start": {}, "turns": []}', None),
        ("[]", None),
    ],
)
def test_bad_input_is_one_plain_line_and_status_2(stdin: str, expected: str | None) -> None:
    run = convert("-", "--to", "mila", stdin=stdin)
    assert run.returncode == 2 and run.stdout == ""
    [line] = run.stderr.splitlines()
    if expected is not None:
        assert line == expected
    else:
        assert line.startswith("detente convert: standard input: ")


def test_with_json_bad_input_is_one_json_object() -> None:
    run = convert("-", "--to", "mila", "--json", stdin='{"phases": [1,')
    assert run.returncode == 2
    assert json.loads(run.stderr) == {"error": "invalid JSON in standard input: Expecting value", "line": 1, "column": 15}


def test_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    run = convert(str(tmp_path / "missing.json"), "--to", "detente")
    assert run.returncode == 2
    assert run.stderr == f"detente convert: cannot read {tmp_path / 'missing.json'}: No such file or directory\n"


def datc_cases() -> list[Any]:
    cases: list[Any] = []
    for path in sorted(DATC.glob("*.json")):
        data = json.loads(path.read_text())
        cases.extend(data if isinstance(data, list) else data.get("cases", [data]))
    return cases


def test_the_compact_answer_is_the_answer() -> None:
    """The compact path writes JSON straight from the positions: it must say what the
    dictionaries of :func:`answer_cases` say, on every DATC case and the example."""
    cases = datc_cases()
    assert len(cases) > 100
    text, errors = adjudicate_text(cases)
    answer, expected_errors = answer_cases(cases)
    assert json.loads(text) == json.loads(json.dumps(answer)) and errors == expected_errors


def test_unusual_cases_take_the_long_way_with_the_same_answer() -> None:
    case = {
        "start": {"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "centers": {}},
        "turns": [{"orders": {"FRANCE": ["A PAR - BUR", 7]}}],
    }
    from detente.cases import CaseError

    with pytest.raises(CaseError):
        adjudicate_text(case)
    with pytest.raises(CaseError):
        answer_cases(case)


def test_the_version_says_which_engine_core_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from detente import cli
    from engine._native import active_core

    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.strip().endswith(f"(engine core: {active_core()})")
