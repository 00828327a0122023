"""The options that shape a game, for every command that makes games: one set, one reading.

``--map NAME|FILE``, ``--year-limit YEAR|none``, ``--press-level``, ``--l-levels``, ``--protocol``, ``--binding``
and ``--deadlines`` give the fields of :class:`referee.settings.GameSettings`, their defaults
its defaults; ``--rounds`` the negotiation rounds of each phase of an in-process game
(:data:`bots.inprocess.ROUNDS`). A command takes those that mean something for its games
(:func:`add_arguments`; ``detente run`` plays in process, with no clock: no ``--deadlines``),
and :func:`settings_from` and :func:`rounds_from` read them: a bad value is a ValueError of
one line that names the option, which the command prints before it exits with status 2.

>>> parser = argparse.ArgumentParser()
>>> add_arguments(parser, ("year_limit", "deadlines"))
>>> settings_from(parser.parse_args([]), "x") == GameSettings(name="x")
True
>>> settings_from(parser.parse_args(["--year-limit", "none", "--deadlines", "300,60,60"]), "x").year_limit is None
True
>>> settings_from(parser.parse_args(["--year-limit", "1899"]), "x")
Traceback (most recent call last):
...
ValueError: --year-limit: the year limit is a year from 1901 to 9999, or none; not 1899
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from bots.inprocess import ROUNDS
from engine.maps import map_named
from referee.deadlines import Deadlines
from referee.settings import PROTOCOLS, GameSettings, parse_year_limit, year_limit_text

__all__ = ["OPTIONS", "add_arguments", "rounds_from", "settings_from"]

OPTIONS: dict[str, str] = {
    "map": "--map",
    "year_limit": "--year-limit",
    "press_level": "--press-level",
    "l_levels": "--l-levels",
    "protocol": "--protocol",
    "binding": "--binding",
    "deadlines": "--deadlines",
    "rounds": "--rounds",
}
"""Each game option: its destination (a field of GameSettings, but ``rounds``) and its name."""


def read_map(text: str) -> str:
    """``--map``: the name of the map a user names, by name or file (:func:`engine.maps.map_named`)."""
    return map_named(text).name


_READ: dict[str, Callable[[Any], Any]] = {
    "map": read_map,
    "year_limit": parse_year_limit,
    "deadlines": Deadlines.parse,
}
"""How the options given as text become values of the settings (the others come typed)."""


def _arguments() -> dict[str, dict[str, Any]]:
    # the defaults are the model's, in their command-line form: the help shows them
    # (detente's HelpFormatter adds "(default: ...)") and the reading of a default is the
    # reading of the same text typed
    default = GameSettings()
    return {
        "map": {"default": default.map, "metavar": "NAME|FILE", "help": "the map: a variant's name or a map file"},
        "year_limit": {"default": year_limit_text(default.year_limit), "help": "the last year played, or none"},
        "press_level": {"type": int, "default": default.press_level, "help": "DAIDE press level"},
        "l_levels": {"default": default.l_levels, "help": "L levels of the negotiation, e.g. 1-4,6"},
        "protocol": {"choices": PROTOCOLS, "default": default.protocol, "help": "negotiation protocol"},
        "binding": {"action": "store_true", "help": "confirmed order commitments bind"},
        "deadlines": {
            "default": default.deadlines.text(),
            "help": "seconds per movement,retreat,adjustment phase (e.g. 300,60,60), or none",
        },
        "rounds": {"type": int, "default": ROUNDS, "help": "negotiation rounds per phase"},
    }


def add_arguments(parser: argparse.ArgumentParser, names: Iterable[str]) -> None:
    """The game options ``names`` (keys of :data:`OPTIONS`), in that order."""
    arguments = _arguments()
    for name in names:
        parser.add_argument(OPTIONS[name], dest=name, **arguments[name])


def settings_from(args: argparse.Namespace, name: str) -> GameSettings:
    """The settings named ``name`` that the game options in ``args`` give; the fields whose
    options the command does not take keep their defaults. ValueError names a bad option."""
    settings = GameSettings(name=name)
    for field, option in OPTIONS.items():
        if field == "rounds" or not hasattr(args, field):
            continue
        value, read = getattr(args, field), _READ.get(field)
        try:
            # one field at a time, so that the check that fails names its option
            settings = replace(settings, **{field: value if read is None else read(value)})
        except ValueError as error:
            raise ValueError(f"{option}: {str(error).splitlines()[0]}") from None
    return settings


def rounds_from(args: argparse.Namespace) -> int:
    """The negotiation rounds per phase ``--rounds`` gives; ValueError if negative."""
    if args.rounds < 0:
        raise ValueError(f"--rounds: a number of rounds, 0 or more; not {args.rounds}")
    return int(args.rounds)
