"""Bots by the name they play under (``detente bot NAME``, ``detente run --bots``).

A bot class is imported only when its name is asked for, so a bot module that is missing
or broken fails the commands that use it and no others.

>>> bot_class("holdbot").__name__
'HoldBot'
>>> make_bot("randombot", seed=1).name
'randombot'
"""

from __future__ import annotations

import importlib
import random

from bots.base import Bot

__all__ = ["BOTS", "UnknownBot", "bot_class", "make_bot"]

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
    """A bot name not in :data:`BOTS`, or whose class cannot be loaded."""


def bot_class(name: str) -> type[Bot]:
    """The class of the bot called ``name``."""
    try:
        module_name, _, class_name = BOTS[name].partition(":")
    except KeyError:
        raise UnknownBot(f"unknown bot {name!r}; the bots are {', '.join(sorted(BOTS))}") from None
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise UnknownBot(f"bot {name!r} cannot be loaded: {error}") from None
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise UnknownBot(f"{BOTS[name]} is not a Bot")
    return cls


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot called ``name`` whose randomness comes from ``seed`` (none: unseeded)."""
    return bot_class(name)(random.Random(seed))
