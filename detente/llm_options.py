"""The ``--llm-*`` options of every command that seats players: one set, one reading.

``--llm-config PATH`` (profiles, prices, budgets: :mod:`bots.llm.config`), ``--llm-cache
PATH`` (every call recorded, and replayed when met again), ``--llm-offline`` (replay only:
a call not in the cache is not sent, and the seat's fallback plays it), ``--llm-timeout
SECONDS`` (each call's time limit; over the network the phase's deadline bounds it too),
and, for ``play`` and ``bot``, ``--llm-log DIR`` (the call log and usage files; ``run`` and
``tournament`` write them in their output directory).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable
from pathlib import Path

from bots.llm.config import ConfigError, LLMConfig, LLMOptions
from bots.registry import LLMSeat, UnknownBot, parse_seat

__all__ = ["add_arguments", "check_seats", "options_from"]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise argparse.ArgumentTypeError("the time limit per call is from 0 to 3600 seconds")
    return value


def add_arguments(parser: argparse.ArgumentParser, log: bool = False) -> None:
    """The ``--llm-*`` options (``log``: also ``--llm-log``)."""
    group = parser.add_argument_group("model seats (llm:MODEL@URL, llm:PROFILE)")
    group.add_argument("--llm-config", type=Path, metavar="PATH", help="profiles, prices and budgets (TOML)")
    group.add_argument(
        "--llm-cache", type=Path, metavar="PATH", help="record every call here, and replay what is in it"
    )
    group.add_argument(
        "--llm-offline", action="store_true", help="only replay from --llm-cache; send nothing to any endpoint"
    )
    group.add_argument(
        "--llm-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="the time limit of each call (default: the profile's, 60)",
    )
    if log:
        group.add_argument("--llm-log", type=Path, metavar="DIR", help="where the call log and usage files go")


def options_from(args: argparse.Namespace, log_dir: Path | None = None) -> LLMOptions:
    """The options given; :class:`ConfigError` (one line) when they cannot be used."""
    config = LLMConfig.load(args.llm_config) if args.llm_config is not None else LLMConfig()
    if args.llm_offline and args.llm_cache is None:
        raise ConfigError("--llm-offline replays from --llm-cache PATH: give it")
    if args.llm_offline and not args.llm_cache.is_file():
        raise ConfigError(f"--llm-offline: there is no cache at {args.llm_cache}")
    log = getattr(args, "llm_log", None)
    return LLMOptions(config, args.llm_cache, args.llm_offline, args.llm_timeout, log if log is not None else log_dir)


def check_seats(specs: Iterable[str], options: LLMOptions) -> None:
    """Every model seat among ``specs`` has a usable profile (:class:`ConfigError` if not)."""
    for spec in dict.fromkeys(specs):
        try:
            seat = parse_seat(spec)
        except UnknownBot:
            continue  # the caller names unknown bots in its own words
        if isinstance(seat, LLMSeat):
            options.profile_for(spec, seat)
