"""The sans-I/O game master of one game: DAIDE messages in, DAIDE messages out.

Both transports (websocket and DAIDE TCP) and the game kept in memory reach a
:class:`GameMaster` through the lobby (:mod:`referee.lobby`). It reads no clock, opens no
socket and starts no task: time comes in as a number (``now``, seconds) and the next moment
it must be woken comes out as :attr:`GameMaster.next_deadline`. Every input returns a
:class:`~referee.effects.Step`: the :class:`~referee.effects.Record` values to store
*before* performing its effects (every accepted input and every phase result);
:meth:`GameMaster.replay` rebuilds the game from those records.

A game is four parts, each a plain state with no reference to the game: its seats
(:mod:`referee.game.seats`), its order book (:mod:`referee.game.book`), its clock
(:mod:`referee.game.clock`) and its board (:mod:`referee.game.board`); one collector
(:mod:`referee.game.out`) takes what they all produce. A message reaches its handler
through one table (:mod:`referee.game.dispatch`); the game's life is another
(:mod:`referee.game.state`).

>>> gm = GameMaster("g1", GameSettings(name="demo"), now=0.0, rng=random.Random(1))
>>> step = gm.receive("c1", "NME ('bot') ('1.0')", now=1.0)
>>> [str(s.message) for s in step.sends][:2]
["YES (NME ('bot') ('1.0'))", "MAP ('standard')"]
>>> len(step.sends[2].message.session)  # the session token, in the server's ADM
22
>>> [e.kind for e in step.records]
['join']

The limits against hostile clients are class attributes (a server, a test or a benchmark
may set them on an instance); none is game state. ``SND`` names each recipient once and
not the sender; ``ADM`` comes only from a connection that joined, short, at most
:attr:`GameMaster.ADM_PER_MINUTE` a minute; a refused ``IAM`` closes its connection, and
a passcode is checked as :mod:`referee.game.seats` says. A full game starts once every
player has answered its ``MAP``, or :attr:`GameMaster.MAP_WAIT` seconds after its last
``NME`` (AiClient bots drop a ``NOW`` that comes before the map they asked for).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine import Position
from engine.position import PHASE_KINDS, RETREATS
from protocol.daide.messages import Ccd, Drw, Frm, Hlo, Mis, PressMessage, Slo, Tme, Value
from protocol.daide.parser import DaideSyntaxError, parse
from referee.deadlines import remaining_seconds
from referee.effects import Record, Step
from referee.game import house
from referee.game.board import Board
from referee.game.book import OrderBook
from referee.game.clock import Clock
from referee.game.dispatch import dispatch
from referee.game.joining import guessed, kept_for
from referee.game.out import Out
from referee.game.replay import apply
from referee.game.seats import Seats
from referee.game.state import Event, GameState, Mismatch, Turned, moved
from referee.game.view import GameView, Outcome, outcome_of, view_of
from referee.notices import OverNotice, PhaseNotice, ResultsNotice
from referee.players import Player, Roster
from referee.settings import GameSettings

__all__ = ["GameMaster"]


class GameMaster:
    """One game: its seats, its order book, its clock and its board."""

    ADM_MAX_NAME = 64
    """The longest name an ``ADM`` may give, in characters."""
    ADM_MAX_TEXT = 400
    """The longest text an ``ADM`` may carry, in characters."""
    ADM_PER_MINUTE = 6.0
    """``ADM`` taken from one connection a minute, on average."""
    ADM_BURST = 3
    """``ADM`` taken from one connection at once."""
    MAP_WAIT: float | None = None
    """Seconds a full game waits for its players to answer ``MAP`` before it starts anyway;
    ``None``: it starts on its last ``NME`` (the game kept in memory, whose bots need no map)."""

    def __init__(
        self,
        game_id: str,
        settings: GameSettings,
        now: float,
        rng: random.Random | None = None,
        passcode_in_use: Callable[[int], bool] = lambda code: False,
    ) -> None:
        self.game_id = game_id
        self.settings = settings
        self.created = now
        self.rng = rng if rng is not None else random.Random()
        self.map = settings.board
        self.powers: tuple[str, ...] = self.map.powers
        self.seats = Seats(self.rng, passcode_in_use)
        self.book = OrderBook(self.map)
        self.clock = Clock(settings.deadlines)
        self.board = Board(self.map)
        self.out = Out(self.map.power_names)
        self.state = GameState.FORMING
        self.result: Value | None = None  # SLO (power) or DRW once the game is over
        self.requests: set[str] = set()  # ids of the negotiation's requests applied: each applies once
        self._replay_starts: bool | None = None  # in a replay: whether the records hold "start"
        # connections whose client said it reads no phase results (ORD): they are not sent
        # them. Only a game kept in memory sets it (most of what a phase says, none read).
        self.results_unread: frozenset[str] = frozenset()

    # --- what the game is ---------------------------------------------------------------------

    @property
    def position(self) -> Position:
        return self.board.position

    @property
    def roster(self) -> Roster:
        return self.seats.roster

    @property
    def history(self) -> list[Turned]:
        return self.board.history

    @property
    def mismatches(self) -> list[Mismatch]:
        return self.board.mismatches

    @property
    def eliminated(self) -> dict[str, int]:
        return self.board.eliminated

    @property
    def deadline(self) -> float | None:
        return self.clock.deadline

    @property
    def next_deadline(self) -> float | None:
        """When to call :meth:`tick` next, if ever: the deadline, an earlier ``TME`` alarm, or
        when a full game starts without its maps."""
        if self.state is GameState.FORMING:
            wakes = [t for t in (self.clock.start_by, house.fill_due(self)) if t is not None]
            return min(wakes, default=None)
        if self.state is not GameState.PLAYING:
            return None
        wakes = [t for t in (self.clock.next_wake(), house.next_call(self)) if t is not None]
        return min(wakes, default=None)

    @property
    def open_seats(self) -> bool:
        """Whether an ``NME`` may still find a seat: forming, and not full."""
        return self.state is GameState.FORMING and len(self.roster.players) < len(self.powers)

    def keeps_seat_for(self, name: str) -> bool:
        """Whether a power not yet taken is reserved for a player joining as ``name``."""
        return bool(kept_for(self, name))

    def must_order(self) -> tuple[str, ...]:
        """The powers that have orders to give this phase."""
        return tuple(self.book.owed(self.position)) if self.state is GameState.PLAYING else ()

    def missing(self, power: str) -> Mis:
        return self.book.missing(self.position, power)

    def surviving(self) -> tuple[str, ...]:
        return self.board.surviving()

    def outcome(self) -> Outcome:
        """How the game ended (or ``cancelled``, if it did not)."""
        return outcome_of(self)

    def view(self) -> GameView:
        """Where the game stands, as one frozen value."""
        return view_of(self)

    def session(self, power: str, token: str) -> bool:
        """Whether ``token`` is the session token of ``power``'s player."""
        return self.seats.session_player(power, token) is not None

    def people_present(self) -> bool:
        """Whether a person (not the server's bot) plays a power of the game from a connection now."""
        return any(house.present(self, p) for p in house.people(self))

    def people_away_since(self) -> float | None:
        """Since when none of the game's people has been connected: None while one is; the
        game's creation if none ever was."""
        if self.people_present():
            return None
        people = house.people(self)
        return max((self.seats.absent_since[p] for p in people if p in self.seats.absent_since), default=self.created)

    def connected(self, powers: Iterable[str]) -> list[str]:
        """Those of ``powers`` whose player is connected."""
        return [p for p in powers if p in self.roster.connection_of]

    # --- inputs -------------------------------------------------------------------------------

    def connect(self, conn: str, now: float, address: str | None = None) -> Step:
        """A new connection (from ``address``, if known): it may send NME, OBS or IAM."""
        self.seats.connect(conn, address)
        return self.out.step()

    def disconnect(self, conn: str, now: float) -> Step:
        """A connection went away; a player is in civil disorder until it comes back with IAM."""
        self.leave(conn, now)
        return self.out.step()

    def receive(self, conn: str, message: Value | str, now: float) -> Step:
        """A message from ``conn``, typed or as DAIDE text (parse errors get HUH or PRN). A
        connection this game master has closed is not heard."""
        seats = self.seats
        if conn in seats.closed:
            return self.out.step()
        if conn not in seats.roster.clients:
            seats.connect(conn, None)
        if isinstance(message, str):
            try:
                message = parse(message)
            except DaideSyntaxError as error:
                if error.may_reply:
                    self.out.to(conn, error.reply)
                return self.out.step()
        if dispatch(self, conn, message, now):
            self.maybe_advance(now)
        return self.out.step()

    def tick(self, now: float) -> Step:
        """Time passes: start a full game whose players were given :attr:`MAP_WAIT` to answer
        their map, ring the alarms due, or process the phase if its deadline is reached."""
        clock = self.clock
        if self.state is GameState.FORMING:
            house.fill(self, now)
        if self.state is GameState.FORMING and clock.start_by is not None and now >= clock.start_by:
            if len(self.roster.players) == len(self.powers):
                self.start(now)
            else:
                clock.start_by = None  # someone left meanwhile: the next full house sets it again
        if self.state is GameState.PLAYING:
            house.due(self, now)
            for holder, seconds in clock.ringing(now):
                self.out.to(self.roster.connection_of.get(holder, holder), Tme(seconds))
            if clock.due(now):
                self.process(now, at_deadline=True)
        return self.out.step()

    def vacate(self, now: float) -> Step:
        """Free the seats of a forming game whose players are not connected (after a restart:
        they have no ``HLO`` yet, so no passcode to come back with; they join again with ``NME``)."""
        if self.state is GameState.FORMING:
            for power in [p for p in self.roster.players if p not in self.roster.connection_of]:
                self.out.record("leave", now, power=power)
                self.seats.unseat(power)
        elif self.state is GameState.PLAYING:  # away from now on: a stand-in's time counts from here
            for power in [p for p in self.roster.players if p not in self.roster.connection_of]:
                self.seats.absent_since.setdefault(power, now)
        return self.out.step()

    def house_wanted(self) -> list[tuple[str, str]]:
        """The seats the server's own bots should play now, each with its bot (see
        :mod:`referee.game.house`)."""
        return house.wanted(self)

    def house(self, conn: str, power: str, bot: str, now: float) -> Step:
        """The server's connection ``conn`` plays ``power`` with ``bot``, if :meth:`house_wanted`
        asks for it (else ``conn`` is closed): trusted, from the server's process, never a client."""
        house.seat(self, conn, power, bot, now)
        return self.out.step()

    def shift_deadline(self, seconds: float, now: float) -> Step:
        """Move the phase's deadline ``seconds`` later, recorded as ``shift``: the time the
        game's server was stopped, which should not count against the players (``detente play``
        resumes a game so). Nothing happens without a deadline, outside play, or for ``seconds``
        not above 0. Players connected are told the time left."""
        if self.state is GameState.PLAYING and self.clock.deadline is not None and seconds > 0:
            self.clock.shift(seconds)
            self.out.record("shift", now, seconds=seconds)
            self._send_tme(now)
            self._notify_phase()
        return self.out.step()

    def guess(self, power: str, passcode: int, address: str | None, now: float) -> Step:
        """A passcode for ``power`` that an ``IAM`` without a game named tried here while it went
        to another game (:mod:`referee.lobby`): checked, and charged to this seat if wrong."""
        guessed(self, power, passcode, address, now)
        return self.out.step()

    # --- the negotiation server's inputs ------------------------------------------------------

    def deliver(
        self, sender: str, recipients: Iterable[str], press: PressMessage, now: float, request: str | None = None
    ) -> Step:
        """Press that the negotiation server relays (an L message said in DAIDE): ``FRM`` to the
        connected players among ``recipients`` (DAIDE power tokens). A request whose id was
        applied already (:attr:`requests`, replay included) is not delivered twice."""
        if request is not None and request in self.requests:
            return self.out.step()
        recipients = tuple(recipients)
        extra = {} if request is None else {"request": request}
        self.out.record("press", now, sender=sender, recipients=list(recipients), press=str(press), via="nego", **extra)
        if request is not None:
            self.requests.add(request)
        delivered = Frm(sender, recipients, press)
        for power in dict.fromkeys(recipients):  # one FRM to each, however often named
            self.out.to(self.roster.connection_of.get(power), delivered)
        return self.out.step()

    def bind(self, phase: str, orders: Mapping[str, Iterable[str]], now: float, request: str | None = None) -> Step:
        """The order commitments confirmed for ``phase`` (power -> orders in the short notation),
        replacing those given before; ignored for another phase than the current one, and for
        a ``request`` id applied already. Whether the game holds it: ``request in gm.requests``."""
        if request is not None and request in self.requests:
            return self.out.step()
        if self.state is GameState.PLAYING and phase == str(self.position.phase):
            texts = {power: list(given) for power, given in orders.items()}
            extra = {} if request is None else {"request": request}
            self.out.record("binding", now, phase=phase, orders=texts, **extra)
            self.book.bind(texts)
            if request is not None:
                self.requests.add(request)
        return self.out.step()

    # --- replay -------------------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        game_id: str,
        settings: GameSettings,
        created: float,
        events: Iterable[Any],
        rng: random.Random | None = None,
        passcode_in_use: Callable[[int], bool] = lambda code: False,
        on_error: Callable[[Any, Exception], None] | None = None,
    ) -> GameMaster:
        """The game rebuilt from its records: :class:`~referee.effects.Record` values, ``{"kind",
        "payload"[, "at"]}`` dicts, or any objects with ``kind`` and ``payload`` (and ``at``).

        Connections are not records: every player comes back disconnected and rejoins with
        IAM. The deadline is the one recorded, so a past one fires at the next tick. A record
        that cannot be applied raises, or with ``on_error`` is handed to it and skipped.
        """
        gm = cls(game_id, settings, created, rng=rng, passcode_in_use=passcode_in_use)
        events = list(events)
        gm._replay_starts = any((r["kind"] if isinstance(r, Mapping) else r.kind) == "start" for r in events)
        for record in events:
            if isinstance(record, Mapping):
                kind, payload, at = record["kind"], dict(record["payload"]), record.get("at")
            else:
                kind, payload, at = record.kind, dict(record.payload), getattr(record, "at", None)
            payload.setdefault("at", at)
            try:
                apply(gm, Record(kind, payload))
            except Exception as error:
                if on_error is None:
                    raise
                on_error(record, error)
            gm.out.discard()  # nobody is connected during a replay
        gm._replay_starts = None  # live from here on
        return gm

    # --- what the handlers share --------------------------------------------------------------

    def broadcast(self, message: Value, exclude: str | None = None) -> None:
        for conn in self.seats.watching():
            if conn != exclude:
                self.out.to(conn, message)

    def close(self, conn: str) -> None:
        """Close ``conn`` after what was sent it; until it is gone, nothing it says is heard."""
        self.out.close(conn)
        self.seats.close(conn)

    def leave(self, conn: str, now: float) -> None:
        self.clock.alarms.pop(conn, None)  # an observer's; a player's stay with its power
        client = self.seats.leave(conn)
        if client is not None and client.power is not None:
            if self.state is GameState.FORMING:
                self.out.record("leave", now, power=client.power)
                self.seats.unseat(client.power)
            elif self.state is GameState.PLAYING:
                self.seats.absent_since.setdefault(client.power, now)
                self.broadcast(Ccd(client.power))

    def greet(self, conn: str, power: str) -> None:
        """What a player joining a game under way must hear: its ``HLO``, the centres, the position."""
        player = self.roster.players[power]
        self.out.to(conn, Hlo(power, player.passcode, self.settings.variant()))
        self.out.to(conn, self.board.sco())
        self.out.to(conn, self.board.now())

    def join(self, conn: str | None, player: Player, at: float, network: str | None = None) -> None:
        self.seats.seat(conn, player, network)
        self.seats.last_join = at
        if len(self.roster.players) < len(self.powers):
            return
        if self._replay_starts is None and self.MAP_WAIT is None:
            self.start(at)
        elif self._replay_starts is None:  # live: once every player has its map (or MAP_WAIT has passed)
            self.clock.start_by = at + self.MAP_WAIT
            self.start_if_maps(at)
        elif not self._replay_starts:  # a store of an earlier version: it started on the last join
            self.start(at)
        # else: the replay starts the game at its "start" record

    def start_if_maps(self, now: float) -> None:
        """Start a full game whose players have all answered their ``MAP``."""
        full = len(self.roster.players) == len(self.powers)
        maps = self.seats.maps
        if self.state is GameState.FORMING and full and all(c in maps for c in self.roster.connection_of.values()):
            self.start(now)

    def maybe_advance(self, now: float) -> None:
        """End the phase early when every power due has ordered in full and none holds it."""
        if self.state is GameState.PLAYING and self.book.all_in(self.position):
            self.process(now, at_deadline=False)

    def end(self, result: Value) -> None:
        self.state = moved(self.state, Event.END)
        self.result = result
        self.clock.stop()
        self.broadcast(result)
        self.broadcast(self.board.smr(self.roster.players))
        winner = result.power if isinstance(result, Slo) else None
        self.out.notify(OverNotice(self.game_id, str(self.position.phase), winner, self.surviving()))

    # --- the game's life ----------------------------------------------------------------------

    def start(self, at: float) -> None:
        self.out.record("start", at)
        self.state = moved(self.state, Event.START)
        self.clock.start_by = None
        if self._replay_starts is None:  # live: a player not connected is away from now
            for power in [p for p in self.roster.players if p not in self.roster.connection_of]:
                self.seats.absent_since.setdefault(power, at)
        for power, player in self.roster.players.items():
            self.out.to(
                self.roster.connection_of.get(power),
                Hlo(power, player.passcode, self.settings.variant()),
            )
        self._begin_phase(at)
        self.broadcast(self.board.sco())
        self.broadcast(self.board.now())
        self._send_tme(at)
        self._notify_phase()

    def _begin_phase(self, at: float) -> None:
        self.book.clear()
        self.clock.begin(self.position.phase.kind, at)

    def _send_tme(self, now: float) -> None:
        if self.clock.deadline is not None and self.state is GameState.PLAYING:
            self.broadcast(Tme(remaining_seconds(now, self.clock.deadline)))

    def _notify_phase(self) -> None:
        phase = self.position.phase
        self.out.notify(PhaseNotice(self.game_id, str(phase), PHASE_KINDS[phase.kind], self.clock.deadline))

    def process(self, at: float, at_deadline: bool, stored: Mapping[str, Any] | None = None) -> None:
        """Adjudicate the phase and begin the next. Its record holds what was decided: the
        orders given, the orders adjudicated (after binding), each unit's result and the
        position after, so that the history is read from the store, never recomputed."""
        board, before = self.board, self.position
        if at_deadline:
            turn = board.turn()
            for power in self.must_order():
                if not self.book.complete(before, power):
                    self.broadcast(Ccd(power, turn))
        done = board.adjudicate(self.book, bool(self.settings.binding and self.book.binding), stored)
        after = board.position
        watching = self.seats.watching()
        if self.results_unread:
            watching = [conn for conn in watching if conn not in self.results_unread]
        self.out.each(watching, done.results)
        turned = board.history[-1]
        centres_changed = before.phase.season in ("F", "W") and after.phase.kind != RETREATS
        if centres_changed or after.completed:
            self.broadcast(turned.sco)
        before_json, after_json = board.json(before), board.json(after)
        self.out.record(
            "adjudicate",
            at,
            phase=str(before.phase),
            deadline=at_deadline,
            given={p: list(texts) for p, texts in done.given.items()},
            orders={p: list(texts) for p, texts in done.adjudicated.items()},
            results={name: list(words) for name, words in done.unit_results},
            after=after_json,
        )
        # the phase's results, then the game's end: a negotiation that hears the end first
        # closes the game, and would never judge how the last phase's deals were kept
        self.out.notify(
            ResultsNotice(
                self.game_id,
                str(before.phase),
                dict(done.adjudicated),
                dict(done.unit_results),
                before_json,
                after_json,
            )
        )
        if after.completed and after.winner is not None:
            self.end(Slo(after.winner))
        elif self.settings.year_limit is not None and after.phase.year > self.settings.year_limit:
            self.end(Drw())
        if self.state is GameState.PLAYING:
            self._begin_phase(at)
        self.broadcast(turned.now)
        self._send_tme(at)
        if self.state is GameState.PLAYING:
            self._notify_phase()
