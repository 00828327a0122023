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


def test_broken_json_gets_one_plain_line_with_line_and_column() -> None:
    run = detente("adjudicate", "-", stdin='{\n  "start": {,\n}')
    assert run.returncode == 2
    assert run.stderr == "detente adjudicate: invalid JSON: Expecting property name enclosed in double quotes (line 2, column 13)\n"


def test_with_json_the_error_is_a_json_object_in_utf_8() -> None:
    run = detente("adjudicate", "--json", "-", stdin='{"start": {"phase": "ÉTÉ", "units": {}}, "turns": []}')
    assert run.returncode == 2
    assert "\\u" not in run.stderr and "ÉTÉ" in json.loads(run.stderr)["error"]
    broken = detente("adjudicate", "--json", "-", stdin='{\n  "start": {,\n}')
    error = json.loads(broken.stderr)
    assert (error["line"], error["column"]) == (2, 13)


def test_a_case_of_the_wrong_shape_gets_an_error() -> None:
    run = detente("adjudicate", "-", stdin='{"start": {"phase": "SPRING", "units": {}}, "turns": []}')
    assert run.returncode == 2
    [line] = run.stderr.splitlines()
    assert line.startswith("detente adjudicate: ") and "phase" in line


def test_a_missing_file_gets_an_error(tmp_path: Path) -> None:
    run = detente("adjudicate", str(tmp_path / "nothing.json"))
    assert run.returncode == 2
    assert run.stderr.startswith(f"detente adjudicate: cannot read {tmp_path / 'nothing.json'}: ")


def test_every_command_is_wired(tmp_path: Path) -> None:
    from detente.cli import build_parser, main

    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(commands) == {"adjudicate", "check", "serve", "nego", "bot", "run", "report", "play", "store", "tournament", "convert", "replay"}
    assert main(["report", str(tmp_path / "nowhere"), "-o", str(tmp_path / "r.html")]) == 2


# --- the start position is checked: retreat options a dislodged unit could not take ------------------------


def retreat_case(name: str, dislodged: str, power: str, retreats: list[str]) -> dict:
    """A fall retreat phase: Italy in Trieste, Spain and Budapest; ``dislodged`` waits to retreat."""
    return {
        "name": name,
        "start": {
            "phase": "F1901R",
            "units": {"ITALY": ["A TRI", "F SPA/SC", "A BUD"]},
            "centers": {},
            "dislodged": {dislodged: {"power": power, "retreats": retreats}},
        },
        "turns": [{"orders": {}}],
    }


def adjudicate_errors(*cases: dict) -> tuple[subprocess.CompletedProcess[str], list, list[dict]]:
    run = detente("adjudicate", "--json", "-", stdin=json.dumps(list(cases)))
    assert "Traceback" not in run.stderr
    return run, json.loads(run.stdout), [json.loads(line) for line in run.stderr.splitlines()]


def test_a_retreat_option_not_adjacent_is_an_error_naming_case_and_unit() -> None:
    run, answers, errors = adjudicate_errors(retreat_case("far away", "A TRI", "AUSTRIA", ["ALB", "VIE", "MOS"]))
    assert run.returncode == 2
    assert answers == [None]
    assert errors == [
        {
            "error": "case 0 (far away): dislodged A TRI: retreat option MOS is not adjacent to TRI",
            "case": 0,
            "name": "far away",
            "unit": "A TRI",
        }
    ]


def test_a_retreat_option_occupied_in_the_start_position_is_an_error() -> None:
    run, answers, errors = adjudicate_errors(retreat_case("occupied", "A TRI", "AUSTRIA", ["BUD", "VIE"]))
    assert run.returncode == 2
    assert answers == [None]
    [error] = errors
    assert error["error"] == "case 0 (occupied): dislodged A TRI: retreat option BUD is occupied by A BUD (ITALY)"
    assert (error["case"], error["unit"]) == (0, "A TRI")


def test_a_retreat_option_the_unit_type_cannot_reach_is_an_error() -> None:
    army_to_sea = retreat_case("army to sea", "A TRI", "AUSTRIA", ["ADR", "VIE"])
    fleet_inland = retreat_case("fleet inland", "F TRI", "AUSTRIA", ["ALB", "VIE"])
    other_coast = retreat_case("other coast", "F SPA/SC", "FRANCE", ["WES", "GAS", "POR", "MAR"])
    no_coast = retreat_case("no coast", "F MAO", "FRANCE", ["SPA", "SPA/NC"])
    no_coast["start"]["units"]["ITALY"] = ["F MAO", "A BUD"]
    run, answers, errors = adjudicate_errors(army_to_sea, fleet_inland, other_coast, no_coast)
    assert run.returncode == 2
    assert answers == [None, None, None, None]
    assert [(e["case"], e["unit"], e["error"]) for e in errors] == [
        (0, "A TRI", "case 0 (army to sea): dislodged A TRI: retreat option ADR is a sea: an army cannot go there"),
        (1, "F TRI", "case 1 (fleet inland): dislodged F TRI: retreat option VIE is inland: a fleet cannot go there"),
        (
            2,
            "F SPA/SC",
            "case 2 (other coast): dislodged F SPA/SC: retreat option GAS cannot be reached by a fleet on SPA/SC",
        ),
        (
            3,
            "F MAO",
            "case 3 (no coast): dislodged F MAO: retreat option SPA names no coast: a fleet goes to SPA/NC or SPA/SC",
        ),
    ]


def test_other_cases_are_still_answered_and_the_exit_status_is_2(tmp_path: Path) -> None:
    good_retreat = retreat_case("fine", "A TRI", "AUSTRIA", ["ALB", "VIE"])
    good_retreat["turns"] = [{"orders": {"AUSTRIA": ["A TRI R VIE"]}}]
    bad = retreat_case("bad", "A TRI", "AUSTRIA", ["ADR"])
    bad.pop("name")
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([CASE, bad, good_retreat]))
    run = detente("adjudicate", str(path))
    assert run.returncode == 2
    assert run.stderr == "detente adjudicate: case 1: dislodged A TRI: retreat option ADR is a sea: an army cannot go there\n"
    run = detente("adjudicate", "--json", str(path))
    first, second, third = json.loads(run.stdout)
    assert first[0]["results"]["A PAR"] == ["bounce"]
    assert second is None
    assert third[0]["units"]["AUSTRIA"] == ["A VIE"] and third[0]["results"]["A TRI"] == ["ok"]
    [error] = (json.loads(line) for line in run.stderr.splitlines())
    assert error == {
        "error": "case 1: dislodged A TRI: retreat option ADR is a sea: an army cannot go there",
        "case": 1,
        "unit": "A TRI",
    }


def test_a_sound_retreat_start_exits_0() -> None:
    run, answers, errors = adjudicate_errors(retreat_case("fine", "A TRI", "AUSTRIA", ["ALB", "VIE", "SER"]))
    assert run.returncode == 0 and errors == []
    assert answers[0][0]["results"]["A TRI"] == ["disband"]


# --- matplotlib is an extra: only ``detente report`` needs it ---------------------------------------------

WITHOUT_MATPLOTLIB = (
    "import sys; sys.modules['matplotlib'] = None; from detente.cli import main; sys.exit(main(sys.argv[1:]))"
)


def without_matplotlib(*args: str) -> subprocess.CompletedProcess[str]:
    """``detente ARGS`` in a process where ``import matplotlib`` fails, as where it is not installed."""
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_MATPLOTLIB, *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_report_without_matplotlib_says_how_to_install_it(tmp_path: Path) -> None:
    run = without_matplotlib("report", str(tmp_path), "-o", str(tmp_path / "report.html"))
    assert run.returncode == 2
    assert run.stderr == "detente report: needs matplotlib, which is not installed: pip install 'detente[report]'\n"
    assert not (tmp_path / "report.html").exists()


def test_other_commands_run_without_matplotlib() -> None:
    run = without_matplotlib("adjudicate", "example")
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)) == 1


# --- a command line a newcomer reads --------------------------------------------------------------


def subcommands() -> dict:
    from detente.cli import build_parser

    return build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]


def test_every_command_has_a_description_and_shows_its_defaults() -> None:
    for name, parser in subcommands().items():
        assert parser.description, name
        text = parser.format_help()
        assert "default: None" not in text and "default: False" not in text, name
    play = " ".join(subcommands()["play"].format_help().split())  # the help as one line: no wrapping
    for shown in ("(default: randomnegotiator)", "(default: 8700)", "(default: data)", "(default: 1920)"):
        assert shown in play
    assert "France" in play and "--new" in play
    run = " ".join(subcommands()["run"].format_help().split())
    assert "{free,reply,bilateral}" in run and "(default: free)" in run and "(default: 3)" in run
    report = " ".join(subcommands()["report"].format_help().split())
    assert "(default: 4)" in report


def test_help_of_each_command_runs() -> None:
    for name in ("play", "run", "bot", "report"):
        run = detente(name, "--help")
        assert run.returncode == 0 and run.stderr == "", name
        assert run.stdout.startswith(f"usage: detente {name}")


def test_a_power_in_any_common_spelling() -> None:
    from detente.cli import build_parser

    parser = build_parser()
    for spelling in ("france", "FRA", "France", "fra", "FRANCE", "French"):
        assert parser.parse_args(["play", "--power", spelling]).power == "FRA"


def test_an_unknown_power_is_a_one_line_error() -> None:
    run = detente("play", "--power", "xanadu")
    assert run.returncode == 2
    assert "'xanadu' is not a power: one of Austria, England, France" in run.stderr
    assert "Traceback" not in run.stderr
