"""``detente check l|daide`` as a bot writer runs it: a real process."""

from __future__ import annotations

import json
import subprocess
import sys

L1 = "propose(eng, fra, Agree([eng fra], pce([eng fra])))"


def detente(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "detente", *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def test_a_valid_l_message_prints_its_level_and_normal_form() -> None:
    run = detente("check", "l", L1)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("level 1: propose(eng, ")


def test_l_messages_from_standard_input_one_json_answer_per_line() -> None:
    run = detente("check", "l", "--levels", "1-4", "--json", "-", stdin=f"{L1}\ninform(eng, fra, Feel(eng, Happy))\n")
    assert run.returncode == 1
    first, second = (json.loads(line) for line in run.stdout.splitlines())
    assert first["ok"] and first["level"] == 1
    assert (second["ok"], second["kind"], second["line"]) == (False, "level", 1)
    assert "Feel" in second["message"]


def test_an_l_syntax_error_names_line_and_column() -> None:
    run = detente("check", "l", "--json", "propose(eng, fra, Agree([eng fra], pce([eng fra]))")
    answer = json.loads(run.stdout)
    assert run.returncode == 1
    assert answer["kind"] == "syntax" and answer["line"] == 1 and answer["column"] > 1


def test_a_bad_levels_option_is_a_usage_error() -> None:
    run = detente("check", "l", "--levels", "nine", L1)
    assert run.returncode == 2
    assert "--levels" in run.stderr


def test_daide_messages_and_their_errors() -> None:
    run = detente(
        "check", "daide", "--json", "-", stdin="SUB (SPR 1901) ((ENG FLT LON) MTO NTH)\nNOW (SPR 1901) (ENG AMY NTH\n"
    )
    ok, unbalanced = (json.loads(line) for line in run.stdout.splitlines())
    assert run.returncode == 1
    assert ok == {"ok": True, "level": 0, "text": "SUB (SPR 1901) ((ENG FLT LON) MTO NTH)"}
    assert unbalanced["ok"] is False and "PRN" in unbalanced["message"]
