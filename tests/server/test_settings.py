"""The server's settings: precedence, kept credentials, validation."""

from __future__ import annotations

import argparse
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from referee.settings import GameSettings
from server.api_models import DeadlinesBody, GameCreate
from server.nego.settings import load_nego_settings
from server.settings import (
    OPEN_GAME_FILL_AFTER,
    OPEN_GAME_FILL_WITH,
    OPEN_GAME_STAND_IN,
    ADMIN_TOKEN_ENV,
    ADMIN_TOKEN_FILE,
    SECRET_ENV,
    SECRET_FILE,
    ServerSettings,
    SettingsError,
    load_settings,
)
from server.web import Limits


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_defaults(tmp_path: Path) -> None:
    settings, _ = load_settings({"data_dir": tmp_path}, {})
    assert (settings.host, settings.port, settings.daide_port) == ("127.0.0.1", 8700, 16713)
    assert settings.db == tmp_path / "detente.sqlite3"
    game = settings.game
    assert (game.press_level, game.l_levels, game.protocol) == (0, "1-8", "free")
    assert game.deadlines == DeadlinesBody(movement=60, retreat=30, adjustment=30)
    assert game.year_limit == GameSettings().year_limit
    # the API's defaults, not a list of its own, but for a stranger who leaves: a bot stands in
    assert game == GameCreate(stand_in=OPEN_GAME_STAND_IN, fill_with=OPEN_GAME_FILL_WITH, fill_after=OPEN_GAME_FILL_AFTER)
    assert game.stand_in_after == GameSettings().stand_in_after
    assert settings.nego_url is None
    none, _ = load_settings(
        {"data_dir": tmp_path, "stand_in": "None", "stand_in_after": "60", "fill_with": "none", "fill_after": "30"}, {}
    )
    assert (none.game.stand_in, none.game.stand_in_after, none.game.fill_with, none.game.fill_after) == (
        None,
        60.0,
        None,
        30.0,
    )
    with pytest.raises(SettingsError, match="--stand-in-after"):
        load_settings({"data_dir": tmp_path, "stand_in_after": "0"}, {})


def test_default_data_directory_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings, _ = load_settings({}, {})
    assert settings.db == Path("detente-data/detente.sqlite3")
    assert (tmp_path / "detente-data" / ADMIN_TOKEN_FILE).exists()


def test_db_alone_puts_the_data_directory_beside_it(tmp_path: Path) -> None:
    db = tmp_path / "elsewhere" / "games.sqlite3"
    settings, _ = load_settings({"db": str(db)}, {})
    assert settings.db == db and settings.data_dir == db.parent
    assert (db.parent / SECRET_FILE).exists()


def test_precedence_argument_then_environment_then_file(tmp_path: Path) -> None:
    (tmp_path / ADMIN_TOKEN_FILE).write_text("from-file\n")
    (tmp_path / SECRET_FILE).write_text("secret-from-file\n")
    (tmp_path / ADMIN_TOKEN_FILE).chmod(0o600)
    (tmp_path / SECRET_FILE).chmod(0o600)
    env = {ADMIN_TOKEN_ENV: "from-env", SECRET_ENV: "secret-from-env"}

    given, messages = load_settings({"data_dir": tmp_path, "admin_token": "from-arg", "secret": "secret-arg"}, env)
    assert (given.admin_token, given.secret) == ("from-arg", "secret-arg")
    from_env, _ = load_settings({"data_dir": tmp_path}, env)
    assert (from_env.admin_token, from_env.secret) == ("from-env", "secret-from-env")
    from_file, messages = load_settings({"data_dir": tmp_path}, {})
    assert (from_file.admin_token, from_file.secret) == ("from-file", "secret-from-file")
    assert messages == []
    mixed, _ = load_settings({"data_dir": tmp_path, "secret": "arg"}, {ADMIN_TOKEN_ENV: "env"})
    assert (mixed.admin_token, mixed.secret) == ("env", "arg")


def test_an_empty_environment_variable_does_not_count(tmp_path: Path) -> None:
    settings, messages = load_settings({"data_dir": tmp_path}, {ADMIN_TOKEN_ENV: "", SECRET_ENV: ""})
    assert len(messages) == 2
    assert settings.admin_token == (tmp_path / ADMIN_TOKEN_FILE).read_text().strip()


def test_generated_once_then_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first, messages = load_settings({"data_dir": data}, {})
    assert len(first.admin_token) >= 32 and len(first.secret) >= 32 and first.admin_token != first.secret
    assert len(messages) == 2
    assert (
        first.admin_token in messages[0]
        and "admin token" in messages[0]
        and str(data / ADMIN_TOKEN_FILE) in messages[0]
    )
    assert first.secret in messages[1] and str(data / SECRET_FILE) in messages[1]
    for name in (ADMIN_TOKEN_FILE, SECRET_FILE):
        assert _mode(data / name) == 0o600
    assert not [p for p in data.iterdir() if p.name.startswith(".")]  # no temporary files left

    second, messages = load_settings({"data_dir": data}, {})
    assert (second.admin_token, second.secret) == (first.admin_token, first.secret)
    assert messages == []


def test_given_credentials_touch_no_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    load_settings({"data_dir": data, "admin_token": "a", "secret": "b"}, {})
    assert not data.exists()


def test_loose_permissions_are_tightened_and_reported(tmp_path: Path) -> None:
    load_settings({"data_dir": tmp_path}, {})
    (tmp_path / SECRET_FILE).chmod(0o644)
    _, messages = load_settings({"data_dir": tmp_path}, {})
    assert _mode(tmp_path / SECRET_FILE) == 0o600
    assert len(messages) == 1 and "644" in messages[0]


def test_an_empty_kept_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ADMIN_TOKEN_FILE).write_text("\n")
    with pytest.raises(SettingsError, match="empty"):
        load_settings({"data_dir": tmp_path}, {})


def test_command_line_text_forms(tmp_path: Path) -> None:
    settings, _ = load_settings(
        {
            "data_dir": tmp_path,
            "port": "8800",
            "daide_port": "0",
            "press_level": "8000",
            "l_levels": "1-4, 6",
            "protocol": "bilateral",
            "deadlines": "120,60.5,30",
            "year_limit": "none",
            "nego_url": "http://127.0.0.1:8701",
            "host": None,  # argparse's "not given"
        },
        {},
    )
    assert (settings.port, settings.daide_port, settings.game.press_level) == (8800, 0, 8000)
    assert settings.game.l_levels == "1-4,6" and settings.game.protocol == "bilateral"
    assert settings.game.deadlines == DeadlinesBody(movement=120, retreat=60.5, adjustment=30)
    assert settings.game.year_limit is None and settings.host == "127.0.0.1"
    none, _ = load_settings({"data_dir": tmp_path, "deadlines": "none", "year_limit": 1910}, {})
    assert none.game.deadlines is None and none.game.year_limit == 1910
    text, _ = load_settings({"data_dir": tmp_path, "year_limit": " 1930 "}, {})
    assert text.game.year_limit == 1930


@pytest.mark.parametrize(
    ("cli", "message"),
    [
        ({"port": -1}, "--port"),
        ({"port": 65536}, "--port"),
        ({"daide_port": -1}, "--daide-port"),
        ({"port": "eighty"}, "--port: not a whole number"),
        ({"press_level": 15}, "--press-level"),
        ({"press_level": 140}, "--press-level"),
        ({"l_levels": "0-8"}, "--l-levels"),
        ({"l_levels": "5-2"}, "--l-levels"),
        ({"protocol": "round-robin"}, "--protocol"),
        ({"deadlines": "60,30"}, "--deadlines: deadlines are three numbers"),
        ({"deadlines": "60,-30,30"}, "--deadlines: retreat"),
        ({"deadlines": "60,0,30"}, "--deadlines: retreat"),
        ({"deadlines": "soon"}, "--deadlines"),
        ({"year_limit": 1800}, "--year-limit"),
        ({"year_limit": "1800"}, "--year-limit: the year limit is a year from 1901"),
        ({"year_limit": "soon"}, "--year-limit: the year limit is a year"),
        ({"admin_token": "has space"}, "--admin-token"),
        ({"prot": "free"}, "unknown settings: prot"),
        ({"deadlines": "1e-300,30,30"}, "--deadlines: movement"),
        ({"max_body_bytes": 10}, "--max-body-bytes"),
        ({"max_body_bytes": "lots"}, "--max-body-bytes: not a whole number"),
        ({"max_header_bytes": 10**9}, "--max-header-bytes"),
        ({"request_timeout": 0}, "--request-timeout"),
        ({"keep_alive_timeout": -1}, "--keep-alive-timeout"),
        ({"max_connections": 0}, "--max-connections"),
        ({"ws_first_message_timeout": 1e-300}, "--ws-first-message-timeout"),
    ],
)
def test_bad_values_are_rejected_with_the_option_named(tmp_path: Path, cli: dict, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings({"data_dir": tmp_path, "secret": "s", **cli}, {})


def test_several_problems_are_reported_together(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as info:
        load_settings({"data_dir": tmp_path, "secret": "s", "admin_token": "a", "port": 70000, "protocol": "x"}, {})
    assert "--port" in str(info.value) and "--protocol" in str(info.value)


def test_credentials_stay_out_of_the_repr(tmp_path: Path) -> None:
    settings, _ = load_settings({"data_dir": tmp_path, "admin_token": "tok-123", "secret": "sec-456"}, {})
    assert "tok-123" not in repr(settings) and "sec-456" not in str(settings)


def test_settings_are_frozen(tmp_path: Path) -> None:
    settings, _ = load_settings({"data_dir": tmp_path}, {})
    with pytest.raises(ValueError):
        settings.port = 1  # type: ignore[misc]


def test_open_game_carries_the_game_settings(tmp_path: Path) -> None:
    settings, _ = load_settings(
        {"data_dir": tmp_path, "press_level": 20, "protocol": "reply", "deadlines": "none", "year_limit": 1920}, {}
    )
    game = settings.open_game("open 1")
    assert isinstance(game, GameCreate)
    assert (game.name, game.press_level, game.protocol, game.deadlines, game.year_limit) == (
        "open 1",
        20,
        "reply",
        None,
        1920,
    )
    assert ServerSettings.model_json_schema()["properties"]["port"]["maximum"] == 65535


def test_the_limits_have_safe_defaults_and_reach_the_web_layer(tmp_path: Path) -> None:
    settings, _ = load_settings({"data_dir": tmp_path, "secret": "s", "admin_token": "a"}, {})
    assert settings.limits() == Limits()
    assert settings.limits() == Limits(
        max_body_bytes=65_536,
        max_header_bytes=16_384,
        request_timeout=10.0,
        keep_alive_timeout=5.0,
        max_connections=1_000,
        ws_first_message_timeout=30.0,
    )
    given = {"max_body_bytes": "4096", "request_timeout": 2.5, "max_connections": 50, "ws_first_message_timeout": 5}
    settings, _ = load_settings({"data_dir": tmp_path, "secret": "s", "admin_token": "a", **given}, {})
    limits = settings.limits()
    assert (limits.max_body_bytes, limits.request_timeout, limits.max_connections) == (4096, 2.5, 50)
    assert limits.ws_first_message_timeout == 5.0


def test_the_negotiation_server_takes_the_same_limits(tmp_path: Path) -> None:
    base = {"game_server": "http://127.0.0.1:8700", "data_dir": tmp_path, "secret": "s", "admin_token": "a"}
    settings, _ = load_nego_settings(base, {})
    # the same limits, but that the game server's page may open /nego (under each loopback name)
    page = frozenset({"http://127.0.0.1:8700", "http://localhost:8700", "http://[::1]:8700"})
    assert settings.limits() == replace(Limits(), allowed_origins=page)
    settings, _ = load_nego_settings({**base, "request_timeout": 3, "max_connections": 20}, {})
    assert (settings.limits().request_timeout, settings.limits().max_connections) == (3.0, 20)
    with pytest.raises(SettingsError, match="--max-connections"):
        load_nego_settings({**base, "max_connections": 0}, {})


def test_the_guards_have_safe_defaults_and_reach_the_web_layer(tmp_path: Path) -> None:
    base = {"data_dir": tmp_path, "secret": "s", "admin_token": "a"}
    settings, _ = load_settings(base, {})
    limits = settings.limits()
    assert limits.allowed_hosts == {"127.0.0.1", "localhost", "::1"}
    assert (limits.allowed_origins, limits.public_metrics, limits.trusted_proxies) == (frozenset(), False, ())
    assert limits.max_connections_per_address == 64
    # a specific address bound to is allowed too; a wildcard bind adds nothing (see --allowed-hosts)
    assert load_settings({**base, "host": "10.1.2.3"}, {})[0].limits().allowed_hosts == {
        "127.0.0.1",
        "localhost",
        "::1",
        "10.1.2.3",
    }
    assert load_settings({**base, "host": "0.0.0.0"}, {})[0].limits().allowed_hosts == {"127.0.0.1", "localhost", "::1"}
    given = {
        "allowed_hosts": "Game, nego.,[::1]",
        "allowed_origins": "https://play.example, http://LOCALHOST:9000/",
        "public_metrics": True,
        "trusted_proxy": "10.0.0.0/8,::1",
        "max_connections_per_address": "5",
    }
    limits = load_settings({**base, **given}, {})[0].limits()
    assert limits.allowed_hosts == {"game", "nego", "::1"}
    assert limits.allowed_origins == {"https://play.example:443", "http://localhost:9000"}
    assert (limits.public_metrics, limits.trusted_proxies, limits.max_connections_per_address) == (
        True,
        ("10.0.0.0/8", "::1"),
        5,
    )
    assert load_settings({**base, "allowed_hosts": "*"}, {})[0].limits().allowed_hosts is None


@pytest.mark.parametrize(
    ("values", "option"),
    [
        ({"allowed_hosts": "a b"}, "--allowed-hosts"),
        ({"allowed_hosts": ","}, "--allowed-hosts"),
        ({"allowed_origins": "evil"}, "--allowed-origins"),
        ({"trusted_proxy": "proxy.example"}, "--trusted-proxy"),
        ({"max_connections_per_address": 0}, "--max-connections-per-address"),
    ],
)
def test_bad_guards_name_their_option(tmp_path: Path, values: dict[str, object], option: str) -> None:
    with pytest.raises(SettingsError, match=option):
        load_settings({"data_dir": tmp_path, "secret": "s", "admin_token": "a", **values}, {})
    with pytest.raises(SettingsError, match=option):
        load_nego_settings({"game_server": "http://g:8700", "data_dir": tmp_path, "secret": "s", **values}, {})


def test_both_commands_take_the_guards_as_options() -> None:
    from server.main import add_serve_arguments
    from server.nego.main import add_nego_arguments

    for add, required in ((add_serve_arguments, []), (add_nego_arguments, ["--game-server", "http://g:8700"])):
        parser = argparse.ArgumentParser()
        add(parser)
        args = parser.parse_args(
            [*required, "--allowed-hosts", "a,b", "--allowed-origins", "http://x:1", "--public-metrics"]
            + ["--trusted-proxy", "10.0.0.1", "--max-connections-per-address", "3"]
        )
        assert (args.allowed_hosts, args.allowed_origins, args.public_metrics) == ("a,b", "http://x:1", True)
        assert (args.trusted_proxy, args.max_connections_per_address) == ("10.0.0.1", 3)
        unset = parser.parse_args(required)
        assert unset.public_metrics is None and unset.allowed_hosts is None


def test_the_open_game_limits_have_defaults_options_and_bounds(tmp_path: Path) -> None:
    from server.main import add_serve_arguments

    base = {"data_dir": tmp_path, "secret": "s", "admin_token": "a"}
    settings, _ = load_settings(base, {})
    assert (settings.max_open_games, settings.max_seats_per_address) == (8, 7)
    settings, _ = load_settings({**base, "max_open_games": "0", "max_seats_per_address": "100"}, {})
    assert (settings.max_open_games, settings.max_seats_per_address) == (0, 100)  # 0: no open game
    for values, option in (
        ({"max_open_games": -1}, "--max-open-games"),
        ({"max_open_games": "many"}, "--max-open-games"),
        ({"max_seats_per_address": 0}, "--max-seats-per-address"),
    ):
        with pytest.raises(SettingsError, match=option):
            load_settings({**base, **values}, {})
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    args = parser.parse_args(["--max-open-games", "3", "--max-seats-per-address", "14"])
    assert (args.max_open_games, args.max_seats_per_address) == (3, 14)
    unset = parser.parse_args([])
    assert unset.max_open_games is None and unset.max_seats_per_address is None
    # the negotiation server has no open games: it does not take these
    with pytest.raises(SettingsError, match="max_open_games"):
        load_nego_settings({"game_server": "http://g:8700", "data_dir": tmp_path, "max_open_games": 1}, {})
