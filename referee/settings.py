"""The settings of one game: the one model every part of the system reads them from.

The game master, the negotiation, the servers and the experiment runner all take a
:class:`GameSettings`, and its field defaults are the one default of each setting: the
edges read them rather than repeat them. Settings are checked where they come in: here
(:meth:`GameSettings.__post_init__`), and, with the HTTP API's own bounds, by its pydantic
model :class:`server.api_models.GameCreate`, whose :meth:`~server.api_models.GameCreate.of`
and :meth:`~server.api_models.GameCreate.settings` are the one conversion each way; the
command lines take them through :mod:`detente.game_options` (``detente run``,
``tournament`` and ``play``) and :mod:`server.settings` (``detente serve``'s open games).
They travel as the JSON of :meth:`GameSettings.to_json`, which is also the body of
``POST /api/games``: the stored settings of a game, and those the game server's feed sends,
read back with :meth:`GameSettings.from_json`.

>>> s = GameSettings(press_level=10, deadlines=Deadlines(60, 30, 30), reserved=(("FRA", "you"),))
>>> GameSettings.from_json(s.to_json()) == s
True
>>> s.to_json()["deadlines"], s.to_json()["reserved"]
({'movement': 60, 'retreat': 30, 'adjustment': 30}, {'FRANCE': 'you'})
>>> GameSettings(protocol="shout")
Traceback (most recent call last):
...
ValueError: unknown protocol 'shout' (free, reply or bilateral)
>>> GameSettings().year_limit, GameSettings(year_limit=None).year_limit
(1920, None)

The JSON names a reserved power by its full name, as the store always has; the settings by
its token:

>>> GameSettings.from_json({"reserved": {"FRANCE": "you"}}).reserved
(('FRA', 'you'),)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.maps import Map, variant_map
from engine.position import PHASE_KINDS
from protocol.daide.messages import POWERS, PROVINCES, VariantOption
from protocol.l import format_levels, parse_levels
from referee.deadlines import Deadlines

__all__ = [
    "FIRST_YEAR",
    "LAST_YEAR",
    "PRESS_LEVELS",
    "PROTOCOLS",
    "STAND_IN_AFTER_MAX",
    "Deadlines",
    "GameSettings",
    "check_daide_names",
    "check_year_limit",
    "keeps",
    "parse_year_limit",
    "year_limit_text",
]

PRESS_LEVELS: tuple[int, ...] = (*range(0, 140, 10), 8000)
"""The DAIDE syntax levels: 0 (no press) to 130 in steps of ten, and 8000 (free text)."""

PROTOCOLS: tuple[str, ...] = ("free", "reply", "bilateral")
"""The negotiation protocols: anything goes; one pending proposal per pair (definition 14);
one receiver a message."""

FIRST_YEAR = 1901
"""The smallest year limit: the game begins in 1901."""
LAST_YEAR = 9999
"""The largest year limit: a bound on what a client may ask a server to keep playing."""
STAND_IN_AFTER_MAX = 30 * 86400.0
"""The longest a seat may wait for its player before a stand-in comes: 30 days."""


@dataclass(frozen=True, slots=True)
class GameSettings:
    """What a game is played with.

    ``press_level`` is the DAIDE press level (``HLO`` tells it; from 10 on, L reaches DAIDE
    players as ``FRM``); ``l_levels`` (canonical text such as ``1-4,6``) and ``protocol``
    govern negotiation; ``press_phases`` lists the kinds of phase (``movement``, ``retreat``,
    ``adjustment``) in which press is allowed. With ``binding``, the order commitments the
    notary confirmed replace the orders that break them. The game is drawn when it would
    go past the last phase of ``year_limit`` (None: never). ``reserved`` keeps powers for the
    players who join with those names (pairs of power and ``NME`` name, sorted; see :func:`keeps`).
    ``bots`` gives powers to the server's own bots from the start (pairs of power and seat
    spec, sorted: see :mod:`referee.game.house`); ``stand_in`` names the bot that plays a
    person's seat once its player has been away ``stand_in_after`` seconds, until the player
    comes back (None: nobody stands in; the seat is in civil disorder); ``fill_with`` names
    the bot given every seat still empty (and kept for nobody) once a person has joined and
    ``fill_after`` seconds have passed since the last join (None: the game waits for people).

    Each field's default here is the setting's one default, which the API, the servers and
    the commands read (``GameSettings().year_limit``) instead of stating their own.
    """

    name: str = ""  # a name for people; the lobby shows a game without one as "(no name)"
    # the map's name: a shipped variant or a map file added (engine.maps.variant_map)
    map: str = "standard"
    press_level: int = 0
    l_levels: str = "1-8"
    protocol: str = "free"
    binding: bool = False
    press_phases: tuple[str, ...] = ("movement",)
    deadlines: Deadlines = field(default_factory=Deadlines)
    # 1920: what every experiment so far was played to (their seeded files must stay the
    # same); None, asked for explicitly, plays until a solo or a draw agreed
    year_limit: int | None = 1920
    reserved: tuple[tuple[str, str], ...] = ()
    bots: tuple[tuple[str, str], ...] = ()
    stand_in: str | None = None
    stand_in_after: float = 300.0
    fill_with: str | None = None
    fill_after: float = 300.0

    def __post_init__(self) -> None:
        board = variant_map(self.map)  # MapError (a ValueError) in one line for an unknown map
        _check_daide_names_once(board)
        for power, _ in (*self.reserved, *self.bots):
            if power not in board.powers:
                raise ValueError(f"{power} is not a power of the map {self.map} ({', '.join(board.powers)})")
        if isinstance(self.press_level, bool) or self.press_level not in PRESS_LEVELS:
            levels = ", ".join(map(str, PRESS_LEVELS))
            raise ValueError(f"the press level is one of {levels}; not {self.press_level!r}")
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {self.protocol!r} (free, reply or bilateral)")
        unknown = set(self.press_phases) - set(PHASE_KINDS.values())
        if unknown:
            raise ValueError(f"unknown press phases {sorted(unknown)}")
        if len(set(self.press_phases)) != len(self.press_phases):
            raise ValueError("the press phases list each kind of phase at most once")
        check_year_limit(self.year_limit)
        if set(dict(self.bots)) & set(dict(self.reserved)):
            raise ValueError("a power is either kept for a player or given to a bot, not both")
        for name, seconds in (("a stand-in", self.stand_in_after), ("a bot for an empty seat", self.fill_after)):
            if not 0 < seconds <= STAND_IN_AFTER_MAX:
                raise ValueError(
                    f"{name} comes after more than 0 and at most {STAND_IN_AFTER_MAX:.0f} seconds; not {seconds!r}"
                )
        object.__setattr__(self, "bots", tuple(sorted(self.bots)))
        canonical = format_levels(parse_levels(self.l_levels))  # ValueError when it is no level list
        object.__setattr__(self, "l_levels", canonical)
        # canonical order, so that equal settings compare and store equal
        phases = tuple(kind for kind in PHASE_KINDS.values() if kind in self.press_phases)
        object.__setattr__(self, "press_phases", phases)

    @property
    def board(self) -> Map:
        """The game's map (see :attr:`map`)."""
        return variant_map(self.map)

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
        """The JSON form: the body of ``POST /api/games``."""
        names = self.board.power_names
        return {
            "name": self.name,
            "map": self.map,
            "press_level": self.press_level,
            "l_levels": self.l_levels,
            "protocol": self.protocol,
            "binding": self.binding,
            "press_phases": list(self.press_phases),
            "deadlines": self.deadlines.to_json(),
            "year_limit": self.year_limit,
            "reserved": {names[p]: name for p, name in self.reserved},
            "bots": {names[p]: bot for p, bot in self.bots},
            "stand_in": self.stand_in,
            "stand_in_after": self.stand_in_after,
            "fill_with": self.fill_with,
            "fill_after": self.fill_after,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameSettings:
        """Settings from their JSON form; a key left out takes its default here."""
        defaults = cls()
        board = variant_map(str(data.get("map", defaults.map)))
        return cls(
            name=str(data.get("name", defaults.name)),
            map=board.name,
            press_level=int(data.get("press_level", defaults.press_level)),
            l_levels=str(data.get("l_levels", defaults.l_levels)),
            protocol=str(data.get("protocol", defaults.protocol)),
            binding=bool(data.get("binding", defaults.binding)),
            press_phases=tuple(data.get("press_phases", defaults.press_phases)),
            deadlines=Deadlines.from_json(data["deadlines"]) if "deadlines" in data else defaults.deadlines,
            year_limit=data.get("year_limit", defaults.year_limit),
            reserved=tuple(sorted((board.power(p), name) for p, name in dict(data.get("reserved") or {}).items())),
            bots=tuple((board.power(p), str(bot)) for p, bot in dict(data.get("bots") or {}).items()),
            stand_in=None if data.get("stand_in") is None else str(data["stand_in"]),
            stand_in_after=float(data.get("stand_in_after", defaults.stand_in_after)),
            fill_with=None if data.get("fill_with") is None else str(data["fill_with"]),
            fill_after=float(data.get("fill_after", defaults.fill_after)),
        )


def check_daide_names(board: Map) -> None:
    """Refuse, in one line, a map whose powers or provinces have no DAIDE token: every player
    of a game (bots, the page, DAIDE clients) speaks DAIDE, and the servers send the standard
    representation (an empty ``RM``), not one of the map's own.

    >>> from engine.maps import parse_map
    >>> odd = parse_map("[variant]\\nname=odd\\n[powers]\\nXYZ=Xyz\\n[provinces]\\nQQQ=Q\\nVIE=Vienna\\n"
    ...                 "[homes]\\nXYZ=QQQ\\n[positions]\\nXYZ=AMY QQQ\\n[borders]\\nQQQ=AMY VIE\\n")
    >>> check_daide_names(odd)
    Traceback (most recent call last):
    ...
    ValueError: the map odd names what DAIDE has no token for (powers XYZ; provinces QQQ): its powers and provinces must be named with DAIDE's standard tokens
    """
    powers = [p for p in board.powers if p not in POWERS]
    provinces = [board.locations[p] for p in board.provinces if board.locations[p] not in PROVINCES]
    if powers or provinces:
        what = "; ".join(
            f"{kind} {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}"
            for kind, names in (("powers", powers), ("provinces", provinces))
            if names
        )
        raise ValueError(
            f"the map {board.name} names what DAIDE has no token for ({what}): "
            "its powers and provinces must be named with DAIDE's standard tokens"
        )


@functools.cache
def _check_daide_names_once(board: Map) -> None:
    # settings are made for every game and every frame read back; a map is checked once
    check_daide_names(board)


def check_year_limit(year_limit: object) -> None:
    """ValueError unless ``year_limit`` is a year from :data:`FIRST_YEAR` to :data:`LAST_YEAR`, or None."""
    if year_limit is None:
        return
    if isinstance(year_limit, bool) or not isinstance(year_limit, int) or not FIRST_YEAR <= year_limit <= LAST_YEAR:
        raise ValueError(f"the year limit is a year from {FIRST_YEAR} to {LAST_YEAR}, or none; not {year_limit!r}")


def parse_year_limit(text: str) -> int | None:
    """The command-line form of a year limit: a year, or ``none`` for no limit.

    >>> parse_year_limit("1920"), parse_year_limit(" None ")
    (1920, None)
    >>> parse_year_limit("1900")
    Traceback (most recent call last):
    ...
    ValueError: the year limit is a year from 1901 to 9999, or none; not 1900
    """
    cleaned = text.strip().lower()
    if cleaned == "none":
        return None
    try:
        year = int(cleaned)
    except ValueError:
        raise ValueError(f"the year limit is a year from {FIRST_YEAR} to {LAST_YEAR}, or none; not {text!r}") from None
    check_year_limit(year)
    return year


def year_limit_text(year_limit: int | None) -> str:
    """The command-line form of a year limit, which :func:`parse_year_limit` reads back.

    >>> year_limit_text(GameSettings().year_limit), year_limit_text(None)
    ('1920', 'none')
    """
    return "none" if year_limit is None else str(year_limit)


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
