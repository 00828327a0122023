"""One game in this process: the server's game master and seven bot sessions, no sockets.

The game master (:class:`server.game_master.GameMaster`) and the sessions
(:class:`bots.session.BotSession`) are the very ones the websocket server and client
drive; here they hand each other the typed DAIDE messages directly, with no text in
between, so an experiment pays no network or parsing cost and a bot plays as it would
over the network. The clock stands still (the game has no deadlines: a phase ends when
every order is in).

A seed fixes the whole game: from it come the game master's randomness (the powers it
hands out), each bot's own :class:`random.Random`, and the order in which the bots join.

The seam for negotiation is :attr:`InProcessGame.before_orders`: once every message of a
phase has been delivered and before any session is asked for its orders, it is called
with the game, which may deliver messages (:meth:`InProcessGame.deliver`) as it likes.

>>> record = play_game(GameSetup(seed=7, bots=("holdbot",) * 7, year_limit=1901))
>>> record.outcome, record.winner, record.last_year, [p.phase for p in record.phases]
('draw', None, 1901, ['S1901M', 'F1901M'])
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.base import Bot
from bots.registry import make_bot
from bots.session import BotSession
from engine import Position
from protocol.daide.messages import Slo, Value
from server.game_master import OVER, GameMaster, GameSettings, Send

__all__ = ["GameRecord", "GameSetup", "GameStuck", "InProcessGame", "PhaseRecord", "play_game"]

#: Called once per phase, before the sessions that owe orders are asked for them.
PhaseHook = Callable[["InProcessGame"], None]


class GameStuck(RuntimeError):
    """No session owes orders and yet the game master waits: a bug of the SDK or the server."""


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What an in-process game is played with: a seed and seven bot names (in slot order).

    ``press_level`` goes to the game master (``HLO`` tells it); ``l_levels`` is only
    recorded until negotiation comes in process.
    """

    seed: int
    bots: tuple[str, ...]
    year_limit: int = 1920
    press_level: int = 0
    l_levels: str = "1-8"

    def settings(self) -> GameSettings:
        return GameSettings(name=f"seed {self.seed}", press_level=self.press_level, year_limit=self.year_limit)

    def to_json(self) -> dict[str, Any]:
        return {"year_limit": self.year_limit, "press_level": self.press_level, "l_levels": self.l_levels}


@dataclass(frozen=True, slots=True)
class PhaseRecord:
    """One phase played: the orders given (short notation), each unit's result words, the position after."""

    phase: str
    orders: Mapping[str, tuple[str, ...]]
    results: Mapping[str, tuple[str, ...]]
    position: Position

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "orders": {power: list(orders) for power, orders in self.orders.items()},
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
    ``messages`` are the press messages sent, in order, each with the ``phase`` it was sent in.
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
    messages: tuple[Mapping[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "settings": dict(self.settings),
            "bots": dict(self.bots),
            "outcome": self.outcome,
            "winner": self.winner,
            "last_year": self.last_year,
            "final_centres": dict(self.final_centres),
            "centres": {str(year): dict(counts) for year, counts in self.centres.items()},
            "eliminated": dict(self.eliminated),
            "phases": [phase.to_json() for phase in self.phases],
            "messages": [dict(message) for message in self.messages],
        }


@dataclass
class InProcessGame:
    """A game master and one session per bot, wired together in memory.

    ``bots`` are in slot order; ``seed`` gives the game master its randomness and the
    order of joining (the bots' own randomness is the caller's: :func:`play_game` seeds it).
    """

    bots: Sequence[Bot]
    seed: int
    settings: GameSettings = field(default_factory=GameSettings)
    before_orders: PhaseHook | None = None

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.gm = GameMaster("in-process", self.settings, now=0.0, rng=random.Random(rng.getrandbits(64)))
        self.join_order = rng.sample(range(len(self.bots)), len(self.bots))
        self.sessions = [BotSession(bot) for bot in self.bots]
        self.conns = [f"s{slot}" for slot in range(len(self.bots))]
        self._session_of = dict(zip(self.conns, self.sessions, strict=True))
        self.press: list[dict[str, Any]] = []

    def deliver(self, slot: int, messages: Iterable[Value]) -> None:
        """Messages from the session in ``slot`` to the game master, and everything that follows
        from them, until no message is left in flight."""
        conn = self.conns[slot]
        queue: deque[tuple[str, Value]] = deque((conn, m) for m in messages)
        gm, session_of = self.gm, self._session_of
        while queue:
            sender, message = queue.popleft()
            step = gm.receive(sender, message, 0.0)
            for record in step.records:
                if record.kind == "press":
                    fields = {k: v for k, v in record.payload.items() if k != "at"}
                    self.press.append({"phase": str(gm.position.phase), **fields})
            for action in step.actions:
                if isinstance(action, Send):
                    replies = session_of[action.conn].receive(action.message)
                    queue.extend((action.conn, reply) for reply in replies)

    def play(self) -> None:
        """Join every bot, then play phase after phase until the game is over."""
        for slot in self.join_order:
            self.deliver(slot, self.sessions[slot].start())
        while self.gm.state != OVER:
            due = [slot for slot, session in enumerate(self.sessions) if session.due]
            if not due:
                raise GameStuck(f"nobody owes orders in {self.gm.position.phase}, yet the game waits")
            if self.before_orders is not None:
                self.before_orders(self)
            for slot in due:
                self.deliver(slot, self.sessions[slot].submit())

    def record(self, seed: int, names: Sequence[str], settings: Mapping[str, Any]) -> GameRecord:
        """The record of the game played: ``seed`` and ``settings`` as the experiment knows them,
        ``names`` the bots' names by slot."""
        gm = self.gm
        slot_of = {s.power: slot for slot, s in enumerate(self.sessions)}
        bots = {power: names[slot_of[power]] for power in gm.powers if power in slot_of}
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
            bots=bots,
            outcome="draw" if solo is None else "solo",
            winner=None if solo is None else gm.map.power_abbreviations[solo],
            last_year=last_year,
            final_centres=dict(gm.position.center_counts),
            centres=centres,
            eliminated=eliminated,
            phases=tuple(phases),
            messages=tuple(self.press),
        )


def seeds_for(seed: int, count: int) -> list[int]:
    """``count`` seeds drawn from ``seed``: the seeds of a run's games, or of one game's parts."""
    rng = random.Random(seed)
    return [rng.getrandbits(64) for _ in range(count)]


def play_game(setup: GameSetup, before_orders: PhaseHook | None = None) -> GameRecord:
    """Play the game ``setup`` describes to its end and return its record."""
    game_seed, *bot_seeds = seeds_for(setup.seed, 1 + len(setup.bots))
    bots = [make_bot(name, bot_seed) for name, bot_seed in zip(setup.bots, bot_seeds, strict=True)]
    game = InProcessGame(bots, game_seed, setup.settings(), before_orders)
    game.play()
    return game.record(setup.seed, setup.bots, setup.to_json())
