"""A misspelt option or power gets one line with the closest there is, and exit status 2 (issue 29)."""

from __future__ import annotations

import pytest

from detente.cli import main


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["run", "--gamez", "3", "--bots", "holdbot", "--out", "x"],
            "detente run: unknown option --gamez (did you mean --games?)",
        ),
        (
            ["run", "--bots", "holdbot", "--games", "1", "--out", "x", "--year-limt=1902"],
            "(did you mean --year-limit?)",
        ),
        (["serve", "--zzz"], "detente serve: unknown option --zzz; detente serve --help lists them"),
    ],
)
def test_a_misspelt_option_gets_the_closest(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err


def test_a_misspelt_power_gets_the_closest_and_a_unique_prefix_is_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["play", "--power", "englnd"])
    assert stopped.value.code == 2 and "(did you mean England?)" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # --bot is --bots (argparse's prefixes): what is missing is --games
        main(["tournament", "--bot", "holdbot"])
    err = capsys.readouterr().err
    assert "unknown option" not in err and "--games" in err
