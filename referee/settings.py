"""The settings of one game: the one value every part of the system reads them from.

The game master, the negotiation, the servers and the experiment runner all take a
:class:`GameSettings`. It is checked where settings come in (the API's pydantic model
:class:`server.api_models.GameCreate`, the command lines of ``detente run`` and
``detente play``) and travels as the JSON of :meth:`GameSettings.to_json`, which is also
the body of ``POST /api/games``: the stored settings of a game, and those the game server's
feed sends, read back with :meth:`GameSettings.from_json`.

>>> s = GameSettings(press_level=10, deadlines=Deadlines(60, 30, 30), reserved=(("FRANCE", "you"),))
>>> GameSettings.from_json(s.to_json()) == s
True
>>> s.to_json()["deadlines"], s.to_json()["reserved"]
({'movement': 60, 'retreat': 30, 'adjustment': 30}, {'FRANCE': 'you'})
>>> GameSettings(protocol="shout")
Traceback (most recent call last):
...
ValueError: unknown protocol 'shout' (free, reply or bilateral)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.position import PHASE_KINDS
from protocol.daide.messages import VariantOption
from protocol.l import format_levels, parse_levels
from referee.deadlines import Deadlines

__all__ = ["PRESS_LEVELS", "PROTOCOLS", "Deadlines", "GameSettings", "keeps"]

PRESS_LEVELS: tuple[int, ...] = (*range(0, 140, 10), 8000)
"""The DAIDE syntax levels: 0 (no press) to 130 in steps of ten, and 8000 (free text)."""

PROTOCOLS: tuple[str, ...] = ("free", "reply", "bilateral")
"""The negotiation protocols: anything goes; one pending proposal per pair (definition 14);
one receiver a message."""


@dataclass(frozen=True, slots=True)
class GameSettings:
    """What a game is played with.

    ``press_level`` is the DAIDE press level (``HLO`` tells it; from 10 on, L reaches DAIDE
    players as ``FRM``); ``l_levels`` (canonical text such as ``1-4,6``) and ``protocol``
    govern negotiation; ``press_phases`` lists the kinds of phase (``movement``, ``retreat``,
    ``adjustment``) in which press is allowed. With ``binding``, the order commitments the
    notary confirmed replace the orders that break them. The game is drawn when it would
    go past the last phase of ``year_limit``. ``reserved`` keeps powers for the players who
    join with those names (pairs of power and ``NME`` name, sorted; see :func:`keeps`).
    """

    name: str = "game"
    press_level: int = 0
    l_levels: str = "1-8"
    protocol: str = "free"
    binding: bool = False
    press_phases: tuple[str, ...] = ("movement",)
    deadlines: Deadlines = field(default_factory=Deadlines)
    year_limit: int | None = None
    reserved: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.press_level <= 8000:
            raise ValueError(f"press level {self.press_level} is out of range")
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {self.protocol!r} (free, reply or bilateral)")
        unknown = set(self.press_phases) - set(PHASE_KINDS.values())
        if unknown:
            raise ValueError(f"unknown press phases {sorted(unknown)}")
        canonical = format_levels(parse_levels(self.l_levels))  # ValueError when it is no level list
        object.__setattr__(self, "l_levels", canonical)

    def variant(self) -> tuple[VariantOption, ...]:
        """The variant options of ``HLO``, in the document's order: LVL, MTL, RTL, BTL, then flags."""
        options = [VariantOption("LVL", self.press_level), *self.deadlines.variant_options()]
        if self.press_level >= 10:  # NPR and NPB exist from level 10 on
            if "retreat" not in self.press_phases:
                options.append(VariantOption("NPR"))
            if "adjustment" not in self.press_phases:
                options.append(VariantOption("NPB"))
        return tuple(options)

    def to_json(self) -> dict[str, Any]:
        """The JSON form: the body of ``POST /api/games`` (the standard map is the only one)."""
        return {
            "name": self.name,
            "map": "standard",
            "press_level": self.press_level,
            "l_levels": self.l_levels,
            "protocol": self.protocol,
            "binding": self.binding,
            "press_phases": list(self.press_phases),
            "deadlines": self.deadlines.to_json(),
            "year_limit": self.year_limit,
            "reserved": dict(self.reserved),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameSettings:
        """Settings from their JSON form; a key left out takes its default here."""
        defaults = cls()
        return cls(
            name=str(data.get("name", defaults.name)),
            press_level=int(data.get("press_level", defaults.press_level)),
            l_levels=str(data.get("l_levels", defaults.l_levels)),
            protocol=str(data.get("protocol", defaults.protocol)),
            binding=bool(data.get("binding", defaults.binding)),
            press_phases=tuple(data.get("press_phases", defaults.press_phases)),
            deadlines=Deadlines.from_json(data.get("deadlines")),
            year_limit=data.get("year_limit", defaults.year_limit),
            reserved=tuple(sorted(dict(data.get("reserved") or {}).items())),
        )


def keeps(reserved: str, name: str) -> bool:
    """Whether a seat reserved for ``reserved`` is kept for a player joining as ``name``.

    The names must be equal, except for AiClient's convention: a bot started with
    ``-rFRA:1234`` joins as ``FRA:<its name>`` and means the seat of France, so a seat
    reserved for ``"FRA:"`` (a power's token and a colon) is kept for any name beginning so.

    >>> keeps("you", "you"), keeps("you", "You"), keeps("FRA:", "FRA:DumbBot"), keeps("FRA:", "GER:DumbBot")
    (True, False, True, False)
    """
    if reserved.endswith(":") and len(reserved) == 4:
        return name.startswith(reserved)
    return reserved == name
