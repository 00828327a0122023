"""What an experiment was run with, written beside its results (``DIR/manifest.json``), so a
figure can be traced to the code, the versions, the bots' constants and the seeds behind it.

>>> m = manifest(("dumbbot", "holdbot"), seed=9, game_seeds=[1, 2], settings={"year_limit": 1903})
>>> sorted(m), m["bots"]["holdbot"]["class"]
(['bots', 'code', 'game_seeds', 'python', 'seed', 'settings', 'versions'], 'bots.base.HoldBot')
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import platform
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bots.llm.config import LLMOptions
from bots.registry import LLM_PREFIX, LLMSeat, make_bot, parse_seat
from detente.daide_game import is_daide, program_of

__all__ = ["manifest"]

#: The distributions whose versions can move a figure.
PACKAGES = ("detente", "lark", "pydantic", "websockets", "uvicorn", "starlette", "structlog", "openskill", "numpy", "diplomacy")
_ROOT = Path(__file__).resolve().parent.parent


def manifest(
    slots: Sequence[str],
    seed: int,
    game_seeds: Iterable[int],
    settings: Mapping[str, Any],
    llm: LLMOptions | None = None,
) -> dict[str, Any]:
    """The manifest of a run of ``slots`` (bot names) from ``seed``: the code (git commit, and
    whether the tree had changes), the package versions, each bot's class and constants, the
    seeds and the game settings. Nothing that differs between two runs of the same code and
    seed (no time, no number of jobs), so that it is part of what a seed reproduces. A model
    seat's entry is its profile (model, URL, temperature, seed...) and the ``--llm-*`` options:
    what it spent is in the run's ``usage.json``, which varies."""
    record = {
        "code": _code(),
        "versions": _versions(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "bots": {name: _bot(name, llm) for name in dict.fromkeys(slots)},
        "seed": seed,
        "game_seeds": list(game_seeds),
        "settings": dict(settings),
    }
    if any(name.startswith(LLM_PREFIX) for name in slots):
        record["llm"] = (llm or LLMOptions()).manifest()
    return record


def _code() -> dict[str, Any]:
    """The commit of the checkout détente runs from, if it is one."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=_ROOT, capture_output=True, text=True, timeout=10, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip()

    commit = git("rev-parse", "HEAD")
    changes = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit, "changed": bool(changes) if changes is not None else None}


def _versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def _bot(name: str, llm: LLMOptions | None = None) -> dict[str, Any]:
    """A bot's class and the constants it plays with: its plain attributes and frozen settings
    (dataclasses), as a fresh instance holds them. A ``daide:PATH`` program: its path and the
    SHA-256 of its executable (its constants are compiled in)."""
    if is_daide(name):
        program = program_of(name)
        return {"program": str(program), "sha256": hashlib.sha256(program.read_bytes()).hexdigest()}
    seat = parse_seat(name)
    if isinstance(seat, LLMSeat):
        profile = (llm or LLMOptions()).profile_for(name, seat)
        return {"class": "bots.llm.bot.LLMBot", "profile": profile.manifest(), "fallback": _bot(profile.fallback)}
    bot = make_bot(name, seed=0)
    constants: dict[str, Any] = {}
    for attribute, value in sorted(_attributes(bot).items()):
        if attribute.startswith("_") or attribute in ("rng", "map", "power"):
            continue
        if isinstance(value, bool | int | float | str):
            constants[attribute] = value
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            constants[attribute] = _plain(dataclasses.asdict(value))
    kind = type(bot)
    return {"class": f"{kind.__module__}.{kind.__qualname__}", "constants": constants}


def _attributes(bot: object) -> dict[str, Any]:
    """The instance's attributes, then those of its classes (constants are often class attributes)."""
    found = dict(getattr(bot, "__dict__", {}))
    for cls in type(bot).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(bot, slot):
                found.setdefault(slot, getattr(bot, slot))
        for attribute, value in vars(cls).items():
            if not callable(value) and not isinstance(value, property | staticmethod | classmethod):
                found.setdefault(attribute, value)
    return found


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it (tuples as lists, sets sorted, other objects as text)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_plain(v) for v in value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
