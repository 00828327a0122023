"""What the game master tells the followers of a game: typed notices and their JSON.

The game master emits a notice (inside a :class:`referee.effects.Notify`) when a game is
announced, a phase begins, a phase is adjudicated, a DAIDE player sends press, and the game
ends. In one process (:mod:`referee.table`) the notice is handed to the negotiation as it
is; between the two servers it travels as the JSON of :func:`to_json` over the game
server's feed and is read back with :func:`from_json`. Either way
:meth:`referee.negotiation.Negotiation.feed` takes it. A notice names a power by its token;
its JSON, like the positions it carries, by its full name (press keeps DAIDE's tokens).

>>> notice = PhaseNotice("g1", "F1901M", "movement", None)
>>> from_json(to_json(notice)) == notice
True
>>> to_json(notice)
{'type': 'phase', 'game': 'g1', 'phase': 'F1901M', 'kind': 'movement', 'deadline': None}
>>> from_json({"type": "phase", "game": "g1"})
Traceback (most recent call last):
...
ValueError: a phase notice without phase
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.maps import power_names, power_spellings
from referee.settings import GameSettings

__all__ = [
    "GameNotice",
    "Notice",
    "OverNotice",
    "PhaseNotice",
    "PressNotice",
    "ResultsNotice",
    "from_json",
    "to_json",
]


@dataclass(frozen=True, slots=True)
class GameNotice:
    """A game and where it stands (``state`` forming, playing or over): sent for every
    game when a follower connects, and for each game when it is created or starts."""

    game: str
    settings: GameSettings
    state: str
    phase: str | None  # None while the game is forming
    kind: str | None
    deadline: float | None


@dataclass(frozen=True, slots=True)
class PhaseNotice:
    """A phase begins (``kind`` movement, retreat or adjustment); ``deadline`` in the
    game master's time, or None."""

    game: str
    phase: str
    kind: str
    deadline: float | None


@dataclass(frozen=True, slots=True)
class ResultsNotice:
    """A phase was adjudicated: the orders by power (short notation, after binding; units
    without one held or disbanded), each unit's result words, and the positions before and
    after in the adjudication-case JSON."""

    game: str
    phase: str
    orders: Mapping[str, tuple[str, ...]]
    results: Mapping[str, tuple[str, ...]]
    before: Mapping[str, Any]
    after: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class PressNotice:
    """Press a DAIDE player sent (powers as DAIDE tokens, ``press`` as DAIDE text)."""

    game: str
    phase: str
    sender: str
    recipients: tuple[str, ...]
    press: str


@dataclass(frozen=True, slots=True)
class OverNotice:
    """The game ended: ``winner`` the power with a solo, or None for a draw."""

    game: str
    phase: str
    winner: str | None
    survivors: tuple[str, ...]


Notice = GameNotice | PhaseNotice | ResultsNotice | PressNotice | OverNotice

_TYPES: dict[type, str] = {
    GameNotice: "game",
    PhaseNotice: "phase",
    ResultsNotice: "results",
    PressNotice: "press",
    OverNotice: "over",
}


def to_json(notice: Notice) -> dict[str, Any]:
    """The feed's frame of ``notice``."""
    full = power_names()  # a notice does not carry its game's map; a power's token is one name
    out: dict[str, Any] = {"type": _TYPES[type(notice)], "game": notice.game}
    if isinstance(notice, GameNotice):
        out.update(settings=notice.settings.to_json(), state=notice.state, phase=notice.phase)
        out.update(kind=notice.kind, deadline=notice.deadline)
    elif isinstance(notice, PhaseNotice):
        out.update(phase=notice.phase, kind=notice.kind, deadline=notice.deadline)
    elif isinstance(notice, ResultsNotice):
        out.update(
            phase=notice.phase,
            orders={full[power]: list(orders) for power, orders in notice.orders.items()},
            results={unit: list(words) for unit, words in notice.results.items()},
            before=dict(notice.before),
            after=dict(notice.after),
        )
    elif isinstance(notice, PressNotice):
        out.update(phase=notice.phase, sender=notice.sender, recipients=list(notice.recipients), press=notice.press)
    else:
        winner = None if notice.winner is None else full[notice.winner]
        out.update(phase=notice.phase, winner=winner, survivors=[full[p] for p in notice.survivors])
    return out


def from_json(frame: Mapping[str, Any]) -> Notice:
    """The notice of a feed frame; ValueError if it is not one."""
    kind, game = frame.get("type"), frame.get("game")
    if not isinstance(game, str):
        raise ValueError("a notice without game")
    spellings = power_spellings()

    def power(name: Any) -> str:
        token = spellings.get(str(name).upper())
        if token is None:
            raise ValueError(f"a {kind} notice naming no power: {name!r}")
        return token

    def field(name: str) -> Any:
        if name not in frame:
            raise ValueError(f"a {kind} notice without {name}")
        return frame[name]

    if kind == "game":
        settings = GameSettings.from_json(field("settings"))
        return GameNotice(game, settings, field("state"), field("phase"), field("kind"), field("deadline"))
    if kind == "phase":
        return PhaseNotice(game, field("phase"), field("kind"), field("deadline"))
    if kind == "results":
        orders = {power(name): tuple(texts) for name, texts in field("orders").items()}
        results = {unit: tuple(words) for unit, words in field("results").items()}
        return ResultsNotice(game, field("phase"), orders, results, field("before"), field("after"))
    if kind == "press":
        return PressNotice(game, field("phase"), field("sender"), tuple(field("recipients")), field("press"))
    if kind == "over":
        winner = None if field("winner") is None else power(field("winner"))
        return OverNotice(game, field("phase"), winner, tuple(map(power, field("survivors"))))
    raise ValueError(f"no notice has type {kind!r}")
