"""Seats by the spec they play under (``detente bot SPEC``, ``detente run --bots``).

A seat spec is a bot name (``dumbbot``, ``hana:revenger``), a bot of one's own
(``FILE.py:Class`` or ``package.module:Class``: a subclass of :class:`bots.base.Bot`, on the
command line only; a server plays the kit's bots alone), or a language model:
``llm:MODEL@BASE_URL`` (any OpenAI-compatible chat-completions endpoint) or
``llm:PROFILE`` (a profile of the ``--llm-config`` file). :func:`parse_seat` is the one
parser of seat specs; every entry point (``run``, ``tournament``, ``play``, ``bot``, the
in-process table) goes through it.

A bot class is imported only when its name is asked for, so a bot module that is missing
or broken fails the commands that use it and no others.

>>> bot_class("holdbot").__name__
'HoldBot'
>>> make_bot("randombot", seed=1).name
'randombot'
>>> bot_class("bots.base:HoldBot").__name__
'HoldBot'
>>> parse_seat("llm:qwen2.5:7b@http://127.0.0.1:11434/v1")
LLMSeat(model='qwen2.5:7b', base_url='http://127.0.0.1:11434/v1', profile=None)
>>> parse_seat("llm:team@home@https://api.example.com/v1").model
'team@home'
>>> parse_seat("llm:cheap")
LLMSeat(model=None, base_url=None, profile='cheap')
>>> parse_seat("llm:m@https://me:secret@api.example.com/v1")
Traceback (most recent call last):
...
bots.registry.UnknownBot: seat 'llm:m@https://...': a URL with a user or password is refused (seat specs are written into the records); give the key in DETENTE_LLM_API_KEY
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import os
import random
import re
import sys
import urllib.parse
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from bots.base import Bot
from engine.maps import Map

if TYPE_CHECKING:
    from bots.llm.config import LLMOptions

__all__ = [
    "BOTS",
    "LLM_PREFIX",
    "BotSeat",
    "LLMSeat",
    "Seat",
    "UnknownBot",
    "bot_class",
    "cannot_play",
    "checked_url",
    "is_own_bot",
    "make_bot",
    "parse_seat",
]

LLM_PREFIX = "llm:"
#: Where the URL of ``llm:MODEL@URL`` starts: the last ``@http://`` or ``@https://``.
_URL_START = re.compile(r"@(?=https?://)", re.IGNORECASE)
_PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

#: Bot name -> ``module:Class``.
BOTS: dict[str, str] = {
    "holdbot": "bots.base:HoldBot",
    "randombot": "bots.base:RandomBot",
    "dumbbot": "bots.dumbbot:DumbBot",
    "randomnegotiator": "bots.randomnegotiator:RandomNegotiator",
    "bordeaux": "bots.bordeaux:Bordeaux",
    "bordeaux:dumbbot-model": "bots.bordeaux:BordeauxDumbBotModel",
    "dipblue": "bots.dipblue:DipBlue",
    "dipblue:nopress": "bots.dipblue:DipBlueNoPress",
    "dipblue:slave": "bots.dipblue:DipBlueSlave",
    "dipblue:naive": "bots.dipblue:DipBlueNaive",
    "dbrane": "bots.dbrane:DBrane",
    "dbrane:nonego": "bots.dbrane:DBraneNoNego",
    "dbrane:x4": "bots.dbrane:DBraneX4",
    "dbrane:deep": "bots.dbrane:DBraneDeep",
    "thesis66": "bots.thesis66:Thesis66",
    "thesis66:nonego": "bots.thesis66:Thesis66NoNego",
    "always-accept": "bots.baselines:AlwaysAccept",
    "always-reject": "bots.baselines:AlwaysReject",
    "deal-breaker": "bots.baselines:DealBreaker",
    "sanctioning": "bots.baselines:Sanctioning",
    "dipgame-random": "bots.baselines:DipGameRandom",
    "hana": "bots.hana:Hana",
    "hana:revenger": "bots.hana:HanaRevenger",
    "hana:pacifist": "bots.hana:HanaPacifist",
    "hana:wait": "bots.hana:HanaWait",
    "hana:nonego": "bots.hana:HanaNoNego",
    "hana:informative": "bots.hana:HanaInformative",
    "hana:dynamic": "bots.hana:HanaDynamic",
}


class UnknownBot(LookupError):
    """A seat spec that is no bot name and no model seat, or whose class cannot be loaded."""


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A seat played by the bot called ``name``."""

    name: str


@dataclass(frozen=True, slots=True)
class LLMSeat:
    """A seat played by a language model: ``model`` at ``base_url``, or the named ``profile``."""

    model: str | None
    base_url: str | None
    profile: str | None


Seat = BotSeat | LLMSeat


def is_own_bot(spec: str) -> bool:
    """Whether ``spec`` names a bot class of one's own, ``FILE.py:Class`` or ``package.module:Class``
    (a bot name of the kit has no dot or slash before its colon).

    >>> is_own_bot("greedy_bot.py:GreedyBot"), is_own_bot("mylab.bots:Greedy"), is_own_bot("hana:revenger")
    (True, True, False)
    """
    where, colon, name = spec.rpartition(":")
    return bool(colon and name.isidentifier() and where and not spec.startswith(LLM_PREFIX)) and (
        where.endswith(".py") or "." in where or "/" in where
    )


def parse_seat(spec: str) -> Seat:
    """The seat ``spec`` names (see the module); :class:`UnknownBot` says why it names none."""
    if not spec.startswith(LLM_PREFIX):
        if spec not in BOTS and not is_own_bot(spec):
            near = difflib.get_close_matches(spec, [*BOTS, "llm:"], n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise UnknownBot(
                f"unknown bot {spec!r}{hint}; the bots are {', '.join(sorted(BOTS))}, FILE.py:Class, or llm:MODEL@URL"
            )
        return BotSeat(spec)
    rest = spec[len(LLM_PREFIX) :]
    starts = [m.start() for m in _URL_START.finditer(rest)]
    if not starts:
        if not _PROFILE_NAME.fullmatch(rest):
            raise UnknownBot(
                f"seat {spec!r}: llm: takes MODEL@http(s)://HOST/v1 or the name of a profile of --llm-config"
            )
        return LLMSeat(None, None, rest)
    model, url = rest[: starts[-1]], rest[starts[-1] + 1 :]
    shown = f"seat '{LLM_PREFIX}{model[:80]}@{url.split('://', 1)[0][:8]}://...'"
    if not model or len(spec) > 512 or any(c.isspace() or c == "," for c in spec):
        raise UnknownBot(f"{shown}: llm: takes MODEL@http(s)://HOST[:PORT]/PATH, with no spaces or commas")
    return LLMSeat(model, checked_url(url, shown), None)


def checked_url(url: str, where: str) -> str:
    """``url`` as a model seat's base URL (no trailing slash), or :class:`UnknownBot` naming ``where``."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise UnknownBot(
            f"{where}: a URL with a user or password is refused (seat specs are written into the records);"
            " give the key in DETENTE_LLM_API_KEY"
        )
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or any(c.isspace() for c in url):
        raise UnknownBot(f"{where}: the base URL is http(s)://HOST[:PORT]/PATH")
    return url.rstrip("/")


def bot_class(name: str) -> type[Bot]:
    """The class of the bot that plays the seat ``name`` (a model seat: :class:`bots.llm.LLMBot`)."""
    if isinstance(parse_seat(name), LLMSeat):
        from bots.llm.bot import LLMBot

        return LLMBot
    where = name if is_own_bot(name) else BOTS.get(name)
    if where is None:
        raise UnknownBot(f"unknown bot {name!r}; the bots are {', '.join(sorted(BOTS))}") from None
    module_name, _, class_name = where.rpartition(":")
    try:
        module = _from_file(module_name) if module_name.endswith(".py") else importlib.import_module(module_name)
        cls = getattr(module, class_name)
    except (ImportError, AttributeError, OSError, SyntaxError) as error:
        raise UnknownBot(f"bot {name!r} cannot be loaded: {error}") from None
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise UnknownBot(f"{where} is not a Bot (a subclass of bots.base.Bot)")
    return cls


def cannot_play(spec: str, board: Map) -> str | None:
    """Why the seat ``spec`` cannot play a game on ``board``, as one line naming both (None: it
    can): what a game checks of its seats before it starts (:meth:`Bot.cannot_play`).

    >>> from engine.maps import variant_map
    >>> cannot_play("dumbbot", variant_map("pure")) is None
    True
    """
    reason = bot_class(spec).cannot_play(board)
    return None if reason is None else f"{spec} cannot play the map {board.name!r}: {reason}"


def _from_file(path: str) -> ModuleType:
    """The module of the Python file at ``path``, loaded once per process (the workers of a run
    load it again, by the same path)."""
    key = "detente_own_bot_" + hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:16]
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    if spec is None or spec.loader is None or not os.path.isfile(path):
        raise ImportError(f"no Python file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module


def make_bot(
    name: str, seed: int | None = None, llm: LLMOptions | None = None, game: str = "", seat: str = ""
) -> Bot:
    """A new bot for the seat spec ``name`` whose randomness comes from ``seed`` (none: unseeded).

    A model seat is configured by ``llm`` (the ``--llm-*`` options; none: the defaults) and
    knows its ``game`` and ``seat`` (its slot), which key its calls in the log and the cache.
    """
    spec = parse_seat(name)
    if isinstance(spec, LLMSeat):
        from bots.llm.bot import LLMBot
        from bots.llm.config import LLMOptions

        options = llm if llm is not None else LLMOptions()
        return LLMBot(options.profile_for(name, spec), options, random.Random(seed), game=game, seat=seat)
    return bot_class(name)(random.Random(seed))
