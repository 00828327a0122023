"""The record of a finished game: every phase with its orders, results and position, the centres
after each year, who was eliminated when, the outcome, the press and the negotiation's events.

The same record comes from a game played in process (:mod:`bots.inprocess`) and from a game
replayed from a server's store (:mod:`detente.daide_game`): :func:`record_of` reads it off a
game master, whichever way it was driven.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine import Position
from protocol.daide.messages import Slo
from referee.game import GameMaster

__all__ = ["GameRecord", "PhaseRecord", "record_of"]


@dataclass(frozen=True, slots=True)
class PhaseRecord:
    """One phase played: the orders given (short notation), each unit's result words, the position after."""

    phase: str
    orders: Mapping[str, tuple[str, ...]]
    results: Mapping[str, tuple[str, ...]]
    position: Position

    def to_json(self) -> dict[str, Any]:
        """The phase as the game files write it, each power by its full name."""
        full = self.position.map.power_names
        return {
            "phase": self.phase,
            "orders": {full[power]: list(orders) for power, orders in self.orders.items()},
            "results": {unit: list(words) for unit, words in self.results.items()},
            "position": self.position.to_json(),
        }


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game.

    ``bots`` maps each power to the name of the bot that played it; ``centres`` maps each
    year to the supply centres of every power after it; ``eliminated`` each power that lost
    its last unit and centre to the phase in which it did. ``outcome`` is ``solo`` (then
    ``winner`` is the power) or ``draw`` (the year limit, or every survivor voting for one).
    ``messages`` are the press messages sent, in order, each with the ``phase`` it was sent in:
    DAIDE press (``press``) or L (``text``, with its ``level`` and ``kind``: propose, accept...);
    ``events`` the negotiation's ``confirmed``, ``conflict``, ``expired`` and ``compliance`` frames.
    ``power_names`` are the map's full names of the powers, which the game files write.
    """

    seed: int
    settings: Mapping[str, Any]
    bots: Mapping[str, str]
    outcome: str
    winner: str | None
    last_year: int
    final_centres: Mapping[str, int]
    centres: Mapping[int, Mapping[str, int]]
    eliminated: Mapping[str, str]
    phases: tuple[PhaseRecord, ...]
    power_names: Mapping[str, str]
    messages: tuple[Mapping[str, Any], ...] = ()
    events: tuple[Mapping[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The game as the game files write it, each power by its full name."""
        full = self.power_names

        def by_name(values: Mapping[str, Any]) -> dict[str, Any]:
            return {full[power]: value for power, value in values.items()}

        return {
            "seed": self.seed,
            "settings": dict(self.settings),
            "bots": by_name(self.bots),
            "outcome": self.outcome,
            "winner": None if self.winner is None else full[self.winner],
            "last_year": self.last_year,
            "final_centres": by_name(self.final_centres),
            "centres": {str(year): by_name(counts) for year, counts in self.centres.items()},
            "eliminated": by_name(self.eliminated),
            "phases": [phase.to_json() for phase in self.phases],
            "messages": [dict(message) for message in self.messages],
            "events": [dict(event) for event in self.events],
        }



def record_of(
    gm: GameMaster,
    seed: int,
    bots: Mapping[str, str],
    settings: Mapping[str, Any],
    messages: Iterable[Mapping[str, Any]] = (),
    events: Iterable[Mapping[str, Any]] = (),
) -> GameRecord:
    """The record of the game ``gm`` played (here, or on a server and replayed from its store):
    ``bots`` names the bot of each power."""
    phases: list[PhaseRecord] = []
    centres: dict[int, dict[str, int]] = {}
    eliminated: dict[str, str] = {}
    last_year = gm.position.phase.year
    for turned in gm.history:
        outcome = turned.adjudication
        assert outcome is not None
        before, after = outcome.before, outcome.position
        last_year = before.phase.year
        results = {before.unit_name(unit): words for unit, words in outcome.results.items()}
        phases.append(PhaseRecord(str(before.phase), turned.orders, results, after))
        if after.phase.year > before.phase.year or after.completed:
            centres[before.phase.year] = dict(after.center_counts)
        for power in gm.powers:
            if power not in eliminated and not after.units_of(power) and not after.center_counts[power]:
                eliminated[power] = str(before.phase)
    solo = gm.result.power if isinstance(gm.result, Slo) else None
    return GameRecord(
        seed=seed,
        settings=settings,
        bots=dict(bots),
        outcome="draw" if solo is None else "solo",
        winner=solo,
        last_year=last_year,
        final_centres=dict(gm.position.center_counts),
        centres=centres,
        eliminated=eliminated,
        phases=tuple(phases),
        power_names=gm.map.power_names,
        messages=tuple(messages),
        events=tuple(events),
    )
