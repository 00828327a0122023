"""One game in this process: the server's game master and a bot session per power, no sockets.

The game master (:class:`referee.game.GameMaster`) and the sessions
(:class:`bots.session.BotSession`) are the very ones the websocket server and client
drive; here a :class:`referee.table.Table` hands them each other's typed DAIDE messages
directly, with no text in between, so an experiment pays no network or parsing cost and a bot plays as it would
over the network. The clock stands still (the game has no deadlines: a phase ends when
every order is in).

A seed fixes the whole game: from it come the game master's randomness (the powers it
hands out), each bot's own :class:`random.Random`, and the order in which the bots join.

Negotiation runs on the same :class:`referee.negotiation.Negotiation` as the
negotiation server, on a simulated clock: each phase, before the sessions are asked for
their orders, the negotiating bots (``Bot.negotiates``) get :attr:`InProcessGame.rounds`
rounds. In the first, each says what :meth:`Bot.on_phase` returns; in each later one it
first gets ``{"type": "round", "round": r, "rounds": n}`` through :meth:`Bot.on_event` (the
simulated clock: ``r`` counts from 1 to ``n - 1``); in every round, each gets the frames the previous round produced for it (``message`` frames through
:meth:`Bot.on_message`, the others through :meth:`Bot.on_event`, errors included) and
what it answers is said at once, in the order of the powers. Frames left at the last
round wait for the next phase. The table passes the game master's notices and the
negotiation's requests between the two. :attr:`InProcessGame.before_orders` is a further
seam, called after the rounds.

The game is played on its settings' map (``GameSettings.map``), as every session learns it
from the game master's ``MAP`` and ``MDF``; a bot that cannot play that map
(:meth:`Bot.cannot_play`) stops the game before it starts, with one line (:class:`CannotPlay`).

>>> record = play_game(GameSetup(seed=7, bots=("holdbot",) * 7, settings=GameSettings(year_limit=1901)))
>>> record.outcome, record.winner, record.last_year, [p.phase for p in record.phases]
('draw', None, 1901, ['S1901M', 'F1901M'])
"""

from __future__ import annotations

import contextlib
import gc
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bots.base import Bot
from bots.llm.client import settle
from bots.llm.config import LLMOptions
from bots.registry import make_bot
from bots.session import BotSession
from protocol.daide.messages import Value
from protocol.l import LError, parse, to_text
from protocol.l import ast as la
from referee.game import GameMaster, GameState
from referee.negotiation import Negotiation
from referee.record import GameRecord, record_of
from referee.settings import GameSettings
from referee.table import Table

__all__ = ["ROUNDS", "CannotPlay", "GameSetup", "GameStuck", "InProcessGame", "play_game", "seeds_for"]

ROUNDS = 3
"""The negotiation rounds of each phase, unless a game is given others (``--rounds``)."""

#: Called once per phase, before the sessions that owe orders are asked for them.
PhaseHook = Callable[["InProcessGame"], None]


class CannotPlay(ValueError):
    """A bot of the game cannot play its map: the one line saying which, and why."""


class GameStuck(RuntimeError):
    """No session owes orders and yet the game master waits: a bug of the SDK or the server."""


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What an in-process game is played with: a seed, a bot name per power (in slot order), the
    game's settings, the negotiation ``rounds`` of each phase, and ``powers``: the power of
    each slot (None: the game master deals them at random, from the seed)."""

    seed: int
    bots: tuple[str, ...]
    settings: GameSettings = field(default_factory=GameSettings)
    rounds: int = ROUNDS
    powers: tuple[str, ...] | None = None
    #: how the model seats (``llm:...``) play: the ``--llm-*`` options (None: the defaults)
    llm: LLMOptions | None = None

    def to_json(self) -> dict[str, Any]:
        s = self.settings
        return {
            "year_limit": s.year_limit,
            "press_level": s.press_level,
            "l_levels": s.l_levels,
            "protocol": s.protocol,
            "binding": s.binding,
            "rounds": self.rounds,
            # named only off the standard map: the records of standard games stay as they were
            **({"map": s.map} if s.map != "standard" else {}),
        }


@dataclass
class InProcessGame:
    """A table and one session per bot.

    ``bots`` are in slot order; ``seed`` gives the game master its randomness and the
    order of joining (the bots' own randomness is the caller's: :func:`play_game` seeds it).
    With ``negotiates`` (and a bot that negotiates) the game has a negotiation.
    """

    bots: Sequence[Bot]
    seed: int
    settings: GameSettings = field(default_factory=GameSettings)
    before_orders: PhaseHook | None = None
    negotiates: bool = False
    rounds: int = ROUNDS
    powers: Sequence[str] | None = None

    def __post_init__(self) -> None:
        board = self.settings.board
        for bot in self.bots:
            reason = type(bot).cannot_play(board)
            if reason is not None:
                raise CannotPlay(f"{bot.name} cannot play the map {board.name!r}: {reason}")
        rng = random.Random(self.seed)
        settings = self.settings
        names: list[str | None] = [None] * len(self.bots)
        if self.powers is not None:  # each slot's power kept for its session's name, as a server keeps seats
            names = [f"{bot.name}#{slot}" for slot, bot in enumerate(self.bots)]
            settings = replace(settings, reserved=tuple(sorted(zip(self.powers, names, strict=True))))
        gm = GameMaster("in-process", settings, now=0.0, rng=random.Random(rng.getrandbits(64)))
        self.join_order = rng.sample(range(len(self.bots)), len(self.bots))
        self.sessions = [BotSession(bot, name) for bot, name in zip(self.bots, names, strict=True)]
        self.conns = [f"s{slot}" for slot in range(len(self.bots))]
        receive = {conn: session.receive for conn, session in zip(self.conns, self.sessions, strict=True)}
        # a session whose bot reads no results would drop them unread: they are not sent
        gm.results_unread = frozenset(c for c, s in zip(self.conns, self.sessions, strict=True) if not s.reads_results)
        negotiates = self.negotiates and any(bot.negotiates for bot in self.bots)
        negotiation = Negotiation("in-process", self.settings) if negotiates else None
        self.table = Table(gm, negotiation, lambda conn, message: receive[conn](message), receive)

    @property
    def gm(self) -> GameMaster:
        return self.table.gm

    @property
    def negotiation(self) -> Negotiation | None:
        return self.table.negotiation

    def deliver(self, slot: int, messages: Iterable[Value]) -> None:
        """Messages from the session in ``slot`` to the game master, and all that follows."""
        self.table.receive(self.conns[slot], messages)

    def negotiate(self) -> None:
        """The negotiation rounds of the phase (see the module)."""
        n = self.negotiation
        if n is None or not n.window_open:
            return
        speakers = sorted((s.power, s) for s in self.sessions if s.bot.negotiates and s.power is not None)
        for round_number in range(self.rounds):
            for power, session in speakers:
                position = session.position
                if position is None:
                    continue
                bot = session.bot
                if round_number == 0:
                    out: list[la.Message | str] = list(bot.on_phase(position))
                else:  # the simulated clock: a bot that concedes over time reads it here
                    out = list(bot.on_event({"type": "round", "round": round_number, "rounds": self.rounds}, position))
                for frame in self.table.inbox.pop(power, []):
                    if frame["type"] == "message":
                        try:
                            message = parse(frame["text"])
                        except LError:
                            continue
                        out.extend(bot.on_message(frame["from"], message, position))
                    else:
                        out.extend(bot.on_event(frame, position))
                for said in out:
                    self.table.say(power, said if isinstance(said, str) else to_text(said))

    def play(self) -> None:
        """Join every bot, then play phase after phase until the game is over."""
        with _collector_paused():
            self._play()

    def _play(self) -> None:
        for slot in self.join_order:
            self.deliver(slot, self.sessions[slot].start())
        if self.negotiation is not None:
            self.negotiation.readers = {s.power for s in self.sessions if s.bot.negotiates and s.power}
            s = self.settings
            welcome = {"type": "welcome", "levels": s.l_levels, "protocol": s.protocol, "binding": s.binding}
            for session in self.sessions:
                if session.bot.negotiates:
                    session.bot.on_welcome(welcome)
        while self.gm.state != GameState.OVER:
            due = [slot for slot, session in enumerate(self.sessions) if session.due]
            if not due:
                raise GameStuck(f"nobody owes orders in {self.gm.position.phase}, yet the game waits")
            self.negotiate()
            if self.before_orders is not None:
                self.before_orders(self)
            for slot in due:
                self.deliver(slot, self.sessions[slot].submit())

    def record(self, seed: int, names: Sequence[str], settings: Mapping[str, Any]) -> GameRecord:
        """The record of the game played: ``seed`` and ``settings`` as the experiment knows them,
        ``names`` the bots' names by slot."""
        slot_of = {s.power: slot for slot, s in enumerate(self.sessions)}
        bots = {power: names[slot_of[power]] for power in self.gm.powers if power in slot_of}
        return record_of(self.gm, seed, bots, settings, self.table.press, self.table.events)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the ``with`` block (on again after, if it was on).

    A game allocates millions of short-lived objects and leaves next to no cycles: the
    collector's passes over young objects and, now and then, over the whole heap cost a
    tenth of a game of seven DumbBots (13 ms of 120). What a game leaves is collected after it.

    On the way out, the objects made meanwhile and still alive (the game itself, until its
    record is returned) are moved to the oldest generation untraversed (``freeze`` then
    ``unfreeze``): otherwise the first allocation after would traverse them all, a young
    generation of a whole game (~4 ms), only to promote them. They are freed by their
    reference counts as usual; a cycle among them waits for the next full collection.
    Skipped where someone froze objects on purpose (the server does), as unfreeze would
    release those too.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


def seeds_for(seed: int, count: int) -> list[int]:
    """``count`` seeds drawn from ``seed``: the seeds of a run's games, or of one game's parts."""
    rng = random.Random(seed)
    return [rng.getrandbits(64) for _ in range(count)]


def play_game(setup: GameSetup, before_orders: PhaseHook | None = None) -> GameRecord:
    """Play the game ``setup`` describes to its end and return its record."""
    game_seed, *bot_seeds = seeds_for(setup.seed, 1 + len(setup.bots))
    bots = [
        make_bot(name, bot_seed, setup.llm, game=str(setup.seed), seat=str(slot))
        for slot, (name, bot_seed) in enumerate(zip(setup.bots, bot_seeds, strict=True))
    ]
    game = InProcessGame(bots, game_seed, setup.settings, before_orders, True, setup.rounds, setup.powers)
    game.play()
    if any(b.blocking for b in bots):
        settle()  # a model's late answers are kept before the game counts as played
    return game.record(setup.seed, setup.bots, setup.to_json())
