"""One model of a game's settings, one default of each: every place that shows a default reads it.

``referee.settings.GameSettings`` holds the defaults; the API's ``GameCreate``, the server's
open games, the options of ``detente run``, ``tournament`` and ``play`` (through
``detente.game_options``) and those of ``detente serve`` all show the same. Each place is
read here as a user meets it, so that a default stated a second time anywhere fails.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from bots.inprocess import ROUNDS, GameSetup
from detente import game_options, play, run_command, tournament_command
from detente.experiments import Experiment
from detente.tournament import Tournament
from referee.deadlines import Deadlines
from referee.settings import GameSettings, year_limit_text
from server.api_models import SERVER_DEADLINES, GameCreate
from server.settings import (
    GAME_OPTIONS,
    OPEN_GAME_FILL_AFTER,
    OPEN_GAME_FILL_WITH,
    OPEN_GAME_STAND_IN,
    ServerSettings,
    load_settings,
)

REQUIRED = {
    "run": ["--bots", "holdbot", "--games", "1", "--out", "x"],
    "tournament": ["--bots", "holdbot,dumbbot", "--games", "1", "--out", "x"],
    "play": [],
}
"""What each command needs besides the game options."""

COMMANDS = {"run": run_command, "tournament": tournament_command, "play": play}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    from detente.cli import build_parser

    return build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]


def command_settings(name: str, *argv: str) -> GameSettings:
    """The settings ``detente NAME`` would play with, read as the command reads its options."""
    args = subcommands()[name].parse_args([*REQUIRED[name], *argv])
    return game_options.settings_from(args, "x")


def serve_game(tmp_path: Path, *argv: str) -> GameCreate:
    """The open games' settings of ``detente serve ARGV``, read as the command reads them."""
    args = subcommands()["serve"].parse_args(list(argv))
    settings, _ = load_settings({"data_dir": tmp_path, **{key: getattr(args, key) for key in GAME_OPTIONS}}, {})
    return settings.open_game()


def test_the_year_limit_has_one_default_wherever_it_shows(tmp_path: Path) -> None:
    default = GameSettings().year_limit
    assert default == 1920  # the one statement of the chosen value: every other place reads it
    shown = {
        "GameSettings.from_json": GameSettings.from_json({}).year_limit,
        "GameCreate": GameCreate().year_limit,
        "GameCreate from {}": GameCreate.model_validate({}).year_limit,
        "ServerSettings": ServerSettings(admin_token="a", secret="s").game.year_limit,
        "detente serve": serve_game(tmp_path).year_limit,
        "GameSetup": GameSetup(1, ("holdbot",) * 7).settings.year_limit,
        "Experiment": Experiment(("holdbot",) * 7, 1, 1, tmp_path).settings.year_limit,
        "Tournament": Tournament(("holdbot", "dumbbot"), 1, 1, tmp_path).settings.year_limit,
        **{f"detente {name}": command_settings(name).year_limit for name in COMMANDS},
    }
    assert shown == dict.fromkeys(shown, default)
    # and the help of each command says so
    for name in COMMANDS:
        assert f"(default: {default})" in " ".join(subcommands()[name].format_help().split()), name
    assert f"or none ({default})" in " ".join(subcommands()["serve"].format_help().split())


def test_every_default_of_the_api_and_the_commands_is_the_models(tmp_path: Path) -> None:
    model = GameSettings()
    api = GameCreate().settings()
    # the one exception, named once: a game on a server has deadlines unless its creator says null
    assert api.deadlines == SERVER_DEADLINES != model.deadlines
    assert dataclasses.replace(api, deadlines=model.deadlines) == model
    # and the other, for strangers: bots stand in for a player who left and fill the seats nobody came to
    assert serve_game(tmp_path) == GameCreate(
        stand_in=OPEN_GAME_STAND_IN, fill_with=OPEN_GAME_FILL_WITH, fill_after=OPEN_GAME_FILL_AFTER
    )
    for name in COMMANDS:
        assert command_settings(name) == GameSettings(name="x"), name
    for name in ("run", "tournament"):
        assert game_options.rounds_from(subcommands()[name].parse_args(REQUIRED[name])) == ROUNDS
    assert GameSetup(1, ("holdbot",) * 7).rounds == Experiment(("holdbot",) * 7, 1, 1, tmp_path).rounds == ROUNDS


def test_no_limit_is_none_on_every_command_line(tmp_path: Path) -> None:
    for name in COMMANDS:
        for spelling in ("none", "None", "NONE"):
            assert command_settings(name, "--year-limit", spelling).year_limit is None, name
        assert command_settings(name, "--year-limit", "1903").year_limit == 1903
    assert serve_game(tmp_path, "--year-limit", "none").year_limit is None
    assert serve_game(tmp_path, "--year-limit", "1903").year_limit == 1903
    assert year_limit_text(None) == "none" and year_limit_text(1903) == "1903"


def test_the_options_of_each_command_keep_their_names() -> None:
    taken = {
        name: {action.dest for action in subcommands()[name]._actions} & set(game_options.OPTIONS) for name in COMMANDS
    }
    assert taken == {
        "run": {"map", "year_limit", "press_level", "l_levels", "protocol", "binding", "rounds"},
        "tournament": {"map", "year_limit", "rounds"},
        "play": {"map", "year_limit", "l_levels", "deadlines"},
    }
    settings = command_settings(
        "run", "--press-level", "10", "--l-levels", "1-4, 6", "--protocol", "reply", "--binding", "--year-limit", "1905"
    )
    assert settings == GameSettings(
        name="x", press_level=10, l_levels="1-4,6", protocol="reply", binding=True, year_limit=1905
    )
    assert command_settings("play", "--deadlines", "300,60,60").deadlines == Deadlines(300, 60, 60)


def test_every_command_takes_a_map_by_name_or_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.maps as maps

    monkeypatch.setattr(maps, "_ADDED", {})
    monkeypatch.setattr(maps, "_added_from", {})
    for name in COMMANDS:
        assert command_settings(name, "--map", "pure").map == "pure", name
    assert serve_game(tmp_path, "--map", "fleet_rome").map == "fleet_rome"
    path = tmp_path / "mine.map"
    path.write_text("[variant]\nbase=standard\nname=mine\nvictory=20\n")
    assert command_settings("run", "--map", str(path)).board.victory_centers == 20
    assert serve_game(tmp_path, "--map", str(path)).map == "mine"
    with pytest.raises(ValueError, match=r"^--map: unknown map 'atlantis': the maps are "):
        command_settings("run", "--map", "atlantis")
    with pytest.raises(ValueError, match=r"^--map: cannot read the map file .*nowhere.map"):
        command_settings("tournament", "--map", str(tmp_path / "nowhere.map"))


@pytest.mark.parametrize(
    ("name", "argv", "option"),
    [
        ("run", ["--year-limit", "1900"], "--year-limit"),
        ("run", ["--year-limit", "soon"], "--year-limit"),
        ("run", ["--press-level", "7"], "--press-level"),
        ("run", ["--l-levels", "9"], "--l-levels"),
        ("tournament", ["--year-limit", "1800"], "--year-limit"),
        ("play", ["--year-limit", "99999"], "--year-limit"),
        ("play", ["--deadlines", "60,30"], "--deadlines"),
        ("play", ["--deadlines", "a,b,c"], "--deadlines"),
    ],
)
def test_a_bad_game_option_is_one_line_naming_it(name: str, argv: list[str], option: str) -> None:
    with pytest.raises(ValueError) as info:
        command_settings(name, *argv)
    assert str(info.value).startswith(f"{option}: ") and "\n" not in str(info.value)


def test_detente_tournament_and_play_refuse_a_bad_year_limit_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def status(name: str, *argv: str) -> int:
        args = subcommands()[name].parse_args([*argv])
        return int(COMMANDS[name].run(args))

    out = str(tmp_path / "t")
    assert status("tournament", "--bots", "holdbot,dumbbot", "--games", "1", "--out", out, "--year-limit", "1800") == 2
    err = capsys.readouterr().err
    assert err.startswith("detente tournament: --year-limit: ") and err.count("\n") == 1
    assert status("play", "--data-dir", str(tmp_path / "p"), "--year-limit", "1800") == 2
    err = capsys.readouterr().err
    assert err.startswith("detente play: --year-limit: ") and err.count("\n") == 1
    # the server's own bounds, at its edge: a phase of a hundredth of a second
    assert status("play", "--data-dir", str(tmp_path / "p"), "--deadlines", "0.01,1,1") == 2
    err = capsys.readouterr().err
    assert err.startswith("detente play: --deadlines: ") and err.count("\n") == 1
    assert not (tmp_path / "t").exists() and not (tmp_path / "p").exists()


def test_detente_play_sends_the_settings_the_options_give() -> None:
    args = subcommands()["play"].parse_args(["--power", "fra", "--year-limit", "none", "--deadlines", "300,60,60"])
    plan: Any = play._plan(args)
    create = GameCreate.model_validate(plan.game)
    settings = create.settings()
    assert settings.year_limit is None and settings.deadlines == Deadlines(300, 60, 60)
    assert settings.name == "detente play" and [power for power, _ in settings.reserved] == ["FRA"]
    assert dataclasses.replace(settings, reserved=()) == GameSettings(
        name="detente play", year_limit=None, deadlines=Deadlines(300, 60, 60)
    )
