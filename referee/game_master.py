"""The sans-I/O game master of one game: DAIDE messages in, DAIDE messages out.

Both transports (websocket and DAIDE TCP) drive the same :class:`GameMaster`. It reads no
clock, opens no socket and starts no task: time comes in as a number (``now``, seconds)
and the next moment it must be woken comes out as :attr:`GameMaster.next_deadline`. Every
input returns a :class:`Step`: the messages to send (:class:`Send`, :class:`Close`) and the
:class:`~referee.effects.Record` values to store *before* sending them (every accepted input and every
phase result); :meth:`GameMaster.replay` rebuilds the game from those records.

>>> gm = GameMaster("g1", GameSettings(name="demo"), now=0.0, rng=random.Random(1))
>>> step = gm.receive("c1", "NME ('bot') ('1.0')", now=1.0)
>>> [str(s.message) for s in step.sends][:2]
["YES (NME ('bot') ('1.0'))", "MAP ('standard')"]
>>> len(step.sends[2].message.session)  # the session token, in the server's ADM
22
>>> [e.kind for e in step.records]
['join']

Hostile clients
---------------

A connection is one client, and none may spoil the game of the others. The limits are
class attributes (a server, a test or a benchmark may set them on an instance); none of
them is game state: nothing about them is recorded, and a restart resets them.

- ``SND`` names each recipient once, and no more of them than there are powers: a list
  with a power twice (or the sender) is refused with ``REJ``, so one message is one
  ``FRM`` to each recipient.
- ``ADM`` is taken only from a connection that has joined (``NME``, ``OBS`` or ``IAM``),
  with a name of at most :attr:`GameMaster.ADM_MAX_NAME` characters and a text of at most
  :attr:`GameMaster.ADM_MAX_TEXT`, and at most :attr:`GameMaster.ADM_PER_MINUTE` a minute
  from one connection (a token bucket holding :attr:`GameMaster.ADM_BURST`); anything else
  is ``REJ``.
- ``IAM`` from a connection that has not joined, refused, is answered ``REJ (IAM ...)``
  and the connection is closed (:class:`Close`); what it sends after that is ignored.
  ``IAM`` never takes a seat whose player is connected: it is refused without looking at
  the passcode. A wrong passcode counts against the seat: after
  :attr:`GameMaster.IAM_FAILURES` wrong passcodes within :attr:`GameMaster.IAM_WINDOW`
  seconds, every ``IAM`` for that seat is refused without being checked until the oldest
  of them is that old. The failures are kept in memory only (not game state): a restart
  forgets them.

  With 5 failures a 300 s window an attacker makes at most one checked guess a minute at a
  seat, on average. A passcode is drawn uniformly from 1..8191 (13 bits), so guessing
  each value once takes on average (8191 + 1) / 2 = 4096 guesses: about 4096 minutes,
  68 hours (2.8 days), and at worst 8191 minutes (5.7 days), for one seat, and only while
  its player stays disconnected the whole time. Against the ``k`` disconnected seats of
  a server at once the first hit comes after about 8192 / (k + 1) minutes (seven seats:
  about 17 hours). The price is that an attacker who keeps a seat locked keeps its
  rightful player out too, while that player is disconnected.
- ``NME`` accepted is followed by the player's session token, in the server's ``ADM``
  (:func:`~protocol.daide.messages.session_adm`): 128 random bits, of which the game keeps
  and records only the SHA-256. ``IAM (power) ('token')`` rejoins with it, and takes the
  seat even while another connection plays it: that one gets ``ADM`` (:data:`TAKEN_OVER`),
  ``OFF`` and is closed. A wrong token is refused and closes, but is not counted against the
  seat (a lock an attacker sets would keep the rightful player out). No client may send an
  ``ADM`` in the server's name.
- A full game starts once every player has answered its ``MAP`` (``YES (MAP ('standard'))``),
  or :attr:`GameMaster.MAP_WAIT` seconds after its last ``NME``: AiClient bots ask for the
  map's definition before they answer, and drop a ``NOW`` that comes before it. The start is
  recorded, so a replay starts the game where it started.
- With :attr:`GameMaster.MESSAGE_RATE` set, every input of one connection passes a token
  bucket (that many a second, :attr:`GameMaster.MESSAGE_BURST` at once); one beyond is
  answered ``REJ`` and not handled. It is off (``None``) by default, since the game kept in
  memory (:mod:`referee.table`) gives every input the time 0.0; a server turns it on.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import engine.orders as eo
from engine import Adjudication, Position, adjudicate, standard_map
from engine.maps import ARMY, Map
from engine.position import ADJUSTMENTS, MOVEMENT, PHASE_KINDS, RETREATS, Unit
from engine.results import Result
from protocol.daide.messages import (
    SERVER_NAME,
    Adm,
    Ccd,
    DaideUnit,
    Drw,
    Frm,
    Gof,
    Hlo,
    Hst,
    Huh,
    Iam,
    MapMessage,
    Mdf,
    Mis,
    MrtUnit,
    Nme,
    Not,
    Now,
    Obs,
    Off,
    Ord,
    Order,
    Out,
    Ownership,
    PressMessage,
    Rej,
    Sco,
    Slo,
    Smr,
    SmrEntry,
    Snd,
    Sub,
    Thx,
    Tme,
    Turn,
    Value,
    Yes,
    session_adm,
    tokens,
)
from protocol.daide.orders import (
    location_from_engine,
    map_definition,
    turn_from_phase,
    unit_from_engine,
)
from protocol.daide.parser import DaideSyntaxError, parse, press_level
from referee.binding import apply_binding
from referee.deadlines import remaining_seconds
from referee.effects import Close, Effect, Notify, Record, Send, Step
from referee.guesses import SEAT_GUESSES, WINDOW, Guesses
from referee.notices import Notice, OverNotice, PhaseNotice, PressNotice, ResultsNotice
from referee.orders import check_order, daide_order, daide_text, order_key
from referee.players import Client, Player, Role, Roster, draw_passcode, new_session_token, session_digest
from referee.settings import GameSettings, keeps

__all__ = ["GameMaster"]

MAP_NAME = "standard"
TAKEN_OVER = "another connection took this seat with its session token"
"""The ``ADM`` text an older connection gets before its ``OFF`` when its seat is taken over."""


# --- values in and out ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Submitted:
    """An order accepted for this phase: as the player wrote it, and as the engine reads it."""

    daide: Order
    order: eo.Order


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A replayed phase the engine now adjudicates otherwise than the stored record says: the
    stored results that differ, the recomputed ones, and whether the position after differs.
    The stored outcome is kept (a rules upgrade never rewrites a game's past)."""

    phase: str
    stored: Mapping[str, list[str]]
    recomputed: Mapping[str, list[str]]
    position_differs: bool


@dataclass(frozen=True, slots=True)
class Turned:
    """What one processed turn told everyone, kept for ``HST`` and ``ORD``."""

    turn: Turn
    phase_kind: str
    results: tuple[Ord, ...]
    sco: Sco
    now: Now
    orders: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """power -> the orders it gave (short notation); defaulted orders are not listed."""
    adjudication: Adjudication | None = None
    """The engine's outcome of the turn (the position before and after, each unit's result)."""


@dataclass(slots=True)
class _Bucket:
    """A token bucket: ``rate`` tokens a second, at most ``burst`` kept; full when made."""

    tokens: float
    last: float

    def take(self, now: float, rate: float, burst: float) -> bool:
        """Take a token at ``now`` if there is one."""
        self.tokens = min(float(burst), self.tokens + max(0.0, now - self.last) * rate)
        self.last = max(self.last, now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


# --- the game master ---------------------------------------------------------------------------

FORMING, PLAYING, OVER = "forming", "playing", "over"



T = TypeVar("T")

class PerPosition(Generic[T]):
    """A value worked out once per position: the last position's, kept until another comes
    (positions are values, compared here by identity: a new position is a new object).

    >>> calls = []
    >>> units = PerPosition(lambda position: calls.append(position) or len(position.units))
    >>> start = Position.initial()
    >>> units(start), units(start), len(calls)
    (22, 22, 1)
    """

    __slots__ = ("_last", "_make")

    def __init__(self, make: Callable[[Position], T]) -> None:
        self._make = make
        self._last: tuple[Position, T] | None = None

    def __call__(self, position: Position) -> T:
        last = self._last
        if last is None or last[0] is not position:
            last = self._last = (position, self._make(position))
        return last[1]


class GameMaster:
    """One game: its players, the current position, the orders given, the deadline.

    Inputs are :meth:`connect`, :meth:`receive`, :meth:`disconnect` and :meth:`tick`; each
    returns a :class:`Step`. ``passcode_in_use`` lets a server keep passcodes unique
    across its games (``IAM`` finds the game by passcode). The limits against hostile
    clients (see the module) are the class attributes below.
    """

    ADM_MAX_NAME = 64
    """The longest name an ``ADM`` may give, in characters."""
    ADM_MAX_TEXT = 400
    """The longest text an ``ADM`` may carry, in characters."""
    ADM_PER_MINUTE = 6.0
    """``ADM`` taken from one connection a minute, on average."""
    ADM_BURST = 3
    """``ADM`` taken from one connection at once."""
    IAM_FAILURES = SEAT_GUESSES
    """Wrong passcodes for one seat within :attr:`IAM_WINDOW` after which its ``IAM`` are refused unchecked."""
    IAM_WINDOW = WINDOW
    """The window, in seconds, over which :attr:`IAM_FAILURES` are counted."""
    MESSAGE_RATE: float | None = None
    """Inputs taken from one connection a second, on average; ``None``: no limit (see the module)."""
    MESSAGE_BURST = 200
    MAP_WAIT: float | None = None
    """Seconds a full game waits for its players to answer ``MAP`` before it starts anyway;
    ``None``: it starts on its last ``NME`` (the game kept in memory, :mod:`referee.table`, whose
    bots need no map). A server sets it (see the module)."""
    """Inputs taken from one connection at once, when :attr:`MESSAGE_RATE` is set."""

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
        self.passcode_in_use = passcode_in_use
        self.map = standard_map()
        self.position = Position.initial(self.map)
        self.roster = Roster()
        self.state = FORMING
        self.result: Value | None = None  # SLO (power) or DRW once the game is over
        self.pending: dict[str, dict[str, Submitted]] = {}  # power -> key -> order
        self.holding: set[str] = set()  # powers that sent NOT (GOF) this phase
        self.draw_votes: set[str] = set()
        self.deadline: float | None = None
        self.binding: dict[str, tuple[eo.Order, ...]] = {}  # power -> committed orders this phase
        self.requests: set[str] = set()  # ids of the negotiation's requests applied: each applies once
        # who asked for TME alarms -> the seconds before deadlines: a player's are kept by its power
        # (recorded: they outlive its connections and a restart), an observer's by its connection
        self.alarms: dict[str, set[int]] = {}
        self._rung: set[tuple[str, int]] = set()  # alarms already sent this phase
        self.history: list[Turned] = []
        self.mismatches: list[Mismatch] = []
        self.start_by: float | None = None  # a full game starts then at the latest, maps answered or not
        self._maps: set[str] = set()  # connections that answered MAP
        self._replay_starts: bool | None = None  # in a replay: whether the records hold "start"  # replayed phases whose recomputed outcome was not the stored one
        self.eliminated: dict[str, int] = {}  # power -> year it was eliminated
        self._effects: list[Effect] = []
        self._records: list[Record] = []
        # worked out once per position: every SUB of a phase asks again, and a phase's
        # position after is the next one's before
        self._owed_of = PerPosition(self._work_out_owed)  # see _owed
        self._json = PerPosition(Position.to_json)  # position.to_json(), one dict for the record and the notice
        self._by_power = PerPosition(self._sorted_units)  # units as NOW and ORD list them
        self._turn_of = PerPosition(lambda position: turn_from_phase(position.phase))  # every SUB names it
        # not game state (never recorded): the limits against hostile clients
        self._closed: set[str] = set()  # connections this game master closed: their input is ignored
        self._adm_buckets: dict[str, _Bucket] = {}  # conn -> its ADM bucket
        self._message_buckets: dict[str, _Bucket] = {}  # conn -> its bucket of inputs
        self._iam_failures = Guesses()  # by power: not game state, never recorded
        # connections whose client said it reads no phase results (ORD): they are not sent
        # them. Only a game kept in memory sets it (:mod:`bots.inprocess`: most of what a
        # phase says, 10,000 messages a game of DumbBots, none read); a server never does.
        self.results_unread: frozenset[str] = frozenset()

    # --- public inputs ------------------------------------------------------------------------

    @property
    def next_deadline(self) -> float | None:
        """When to call :meth:`tick` next, if ever: the deadline, or an earlier ``TME`` alarm."""
        if self.state == FORMING and self.start_by is not None:
            return self.start_by
        if self.state != PLAYING or self.deadline is None:
            return None
        due = [self.deadline - s for c, seconds in self.alarms.items() for s in seconds if (c, s) not in self._rung]
        return min([self.deadline, *due])

    @property
    def powers(self) -> tuple[str, ...]:
        return self.map.powers

    @property
    def open_seats(self) -> bool:
        """Whether an ``NME`` may still find a seat: forming, and not full (a full game may wait
        for its players' maps before it starts)."""
        return self.state == FORMING and len(self.roster.players) < len(self.powers)

    def connect(self, conn: str, now: float) -> Step:
        """A new connection: it may send NME, OBS or IAM."""
        self.roster.clients[conn] = Client(conn)
        self._closed.discard(conn)
        return self._step()

    def disconnect(self, conn: str, now: float) -> Step:
        """A connection went away; a player is in civil disorder until it comes back with IAM."""
        self._disconnect(conn, now)
        return self._step()

    def _disconnect(self, conn: str, now: float) -> None:
        self.alarms.pop(conn, None)  # an observer's; a player's stay with its power
        self._closed.discard(conn)
        self._adm_buckets.pop(conn, None)
        self._message_buckets.pop(conn, None)
        client = self.roster.leave(conn)
        if client is not None and client.power is not None:
            if self.state == FORMING:
                self._record("leave", now, power=client.power)
                self.roster.unseat(client.power)
            elif self.state == PLAYING:
                self._broadcast(Ccd(self._abbr(client.power)))

    def vacate(self, now: float) -> Step:
        """Free the seats of a forming game whose players are not connected (after a restart:
        they have no ``HLO`` yet, so no passcode to come back with; they join again with ``NME``)."""
        if self.state == FORMING:
            for power in [p for p in self.roster.players if p not in self.roster.connection_of]:
                self._record("leave", now, power=power)
                self.roster.unseat(power)
        return self._step()

    # --- shift_deadline: the time a server was stopped does not count (detente play) -----------

    def shift_deadline(self, seconds: float, now: float) -> Step:
        """Move the phase's deadline ``seconds`` later, recorded as ``shift``: the time the
        game's server was stopped, which should not count against the players (``detente play``
        resumes a game so). Nothing happens without a deadline, before the game starts, after it
        ends, or for ``seconds`` not above 0. Players connected are told the time left."""
        if self.state == PLAYING and self.deadline is not None and seconds > 0:
            self.deadline += seconds
            self._record("shift", now, seconds=seconds)
            self._send_tme(now)
            self._notify_phase()
        return self._step()

    # --- end of shift_deadline ---------------------------------------------------------------

    def tick(self, now: float) -> Step:
        """Time passes: start a full game whose players were given :attr:`MAP_WAIT` to answer
        their map, or process the phase if its deadline is reached."""
        if self.state == FORMING and self.start_by is not None and now >= self.start_by:
            if len(self.roster.players) == len(self.powers):
                self._start(now)
            else:
                self.start_by = None  # someone left meanwhile: the next full house sets it again
        if self.state == PLAYING and self.deadline is not None:
            for holder, seconds in self.alarms.items():
                for s in sorted(seconds, reverse=True):
                    if (holder, s) not in self._rung and now >= self.deadline - s:
                        self._rung.add((holder, s))
                        self._to(self.roster.connection_of.get(holder, holder), Tme(s))
        if self.state == PLAYING and self.deadline is not None and now >= self.deadline:
            self._process(now, at_deadline=True)
        return self._step()

    def receive(self, conn: str, message: Value | str, now: float) -> Step:
        """A message from ``conn``, typed or as DAIDE text (parse errors get HUH or PRN).

        A connection this game master has closed is not heard; one over its message rate
        (:attr:`MESSAGE_RATE`) gets ``REJ``."""
        if conn in self._closed:
            return self._step()
        if conn not in self.roster.clients:
            self.roster.clients[conn] = Client(conn)
        over_rate = self.MESSAGE_RATE is not None and not self._take(
            self._message_buckets, conn, now, self.MESSAGE_RATE, self.MESSAGE_BURST
        )
        if isinstance(message, str):
            try:
                message = parse(message)
            except DaideSyntaxError as error:
                if error.may_reply and not over_rate:
                    self._to(conn, error.reply)
                return self._step()
        if over_rate:
            self._to(conn, Rej(message))
        else:
            self._handle(conn, message, now)
        return self._step()

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
        """The game rebuilt from its records: :class:`~referee.effects.Record` values, ``{"kind", "payload"[, "at"]}``
        dicts, or any objects with ``kind`` and ``payload`` (and ``at``) such as a store's rows.

        Connections are not records: every player comes back disconnected and rejoins
        with IAM. The deadline is the one recorded, so a past one fires at the next tick.
        A record that cannot be applied raises, or with ``on_error`` is handed to it with the
        error and skipped (a server quarantines it rather than lose the whole game).
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
                gm._apply(Record(kind, payload))
            except Exception as error:
                if on_error is None:
                    raise
                on_error(record, error)
            gm._effects.clear()  # nobody is connected during a replay
        gm._records.clear()
        gm._replay_starts = None  # live from here on
        return gm

    def _apply(self, event: Record) -> None:
        p, at = event.payload, float(event.payload["at"])
        if event.kind == "join":
            player = Player(p["power"], p["name"], p["version"], int(p["passcode"]), p.get("session"))
            self._join(None, player, at)
        elif event.kind == "leave":
            self.roster.unseat(p["power"])
        elif event.kind == "orders":
            for text in p["orders"]:
                self._store(p["power"], _order(text))
        elif event.kind == "cancel":
            self._cancel(p["power"], None if p["order"] is None else _order(p["order"]))
        elif event.kind == "gof":
            (self.holding.discard if p["go"] else self.holding.add)(p["power"])
        elif event.kind == "draw":
            (self.draw_votes.add if p["wants"] else self.draw_votes.discard)(p["power"])
        elif event.kind == "adjudicate":
            if p["phase"] != str(self.position.phase):
                raise ValueError(f"record for {p['phase']} met the game in {self.position.phase}")
            self._process(at, at_deadline=bool(p.get("deadline")), stored=p if "after" in p else None)
        elif event.kind == "draw_declared":
            self._end(Drw())
        elif event.kind == "binding":
            self._bind(p["phase"], p["orders"])
            if p.get("request") is not None:
                self.requests.add(p["request"])
        elif event.kind == "press" and p.get("request") is not None:
            self.requests.add(p["request"])  # a relay delivered: not again
        elif event.kind == "start":
            self._start(at)
        elif event.kind == "alarm":
            if p["on"]:
                self.alarms.setdefault(p["power"], set()).add(int(p["seconds"]))
            else:
                self._alarm_off(p["power"], p["seconds"])
        elif event.kind == "shift" and self.deadline is not None:  # see shift_deadline
            self.deadline += float(p["seconds"])
        # press and admin records change nothing

    # --- plumbing -----------------------------------------------------------------------------

    def _step(self) -> Step:
        step = Step(tuple(self._records), tuple(self._effects))
        self._records.clear()
        self._effects.clear()
        return step

    def _record(self, kind: str, at: float, **payload: Any) -> None:
        self._records.append(Record(kind, {"at": at, **payload}))

    def _to(self, conn: str | None, message: Value) -> None:
        if conn is not None:
            self._effects.append(Send(conn, message))

    def _broadcast(self, message: Value, exclude: str | None = None) -> None:
        for conn in self.roster.watching():
            if conn != exclude:
                self._to(conn, message)

    def _broadcast_all(self, messages: Iterable[Value]) -> None:
        """Each of ``messages`` to every player and observer, in order (a phase's results),
        but those in :attr:`results_unread`."""
        watching = self.roster.watching()
        if self.results_unread:
            watching = [conn for conn in watching if conn not in self.results_unread]
        self._effects += [Send(conn, message) for message in messages for conn in watching]

    def _close(self, conn: str) -> None:
        """Close ``conn`` after what was sent it; until it is gone, nothing it says is heard."""
        self._effects.append(Close(conn))
        self._closed.add(conn)

    @staticmethod
    def _take(buckets: dict[str, _Bucket], conn: str, now: float, rate: float, burst: float) -> bool:
        """A token from the bucket of ``conn`` in ``buckets`` (a full one made if it has none)."""
        bucket = buckets.get(conn)
        if bucket is None:
            bucket = buckets[conn] = _Bucket(float(burst), now)
        return bucket.take(now, rate, burst)

    def _notify(self, notice: Notice) -> None:
        self._effects.append(Notify(notice))

    def _abbr(self, power: str) -> str:
        return self.map.abbreviation_of[power]

    def _full(self, abbreviation: str) -> str | None:
        return self.map.power_abbreviations.get(abbreviation)

    # --- dispatch -----------------------------------------------------------------------------

    def _handle(self, conn: str, msg: Value, now: float) -> None:
        client = self.roster.clients[conn]
        power = client.power if client.role is Role.PLAYER else None
        if isinstance(msg, Nme):
            self._nme(conn, client, msg, now)
        elif isinstance(msg, Obs):
            self._obs(conn, client, msg)
        elif isinstance(msg, Iam):
            self._iam(conn, client, msg, now)
        elif isinstance(msg, MapMessage):
            if msg.name is None:  # a request for another copy; a client never names a map
                self._to(conn, MapMessage(MAP_NAME))
            else:
                self._to(conn, Rej(msg))
        elif isinstance(msg, Mdf):
            self._to(conn, map_definition(self.map))
        elif isinstance(msg, Yes | Rej) and isinstance(msg.content, MapMessage):
            self._map_answered(conn, now)
        elif isinstance(msg, Sco) and not msg.ownership:
            self._to(conn, self._sco())
        elif isinstance(msg, Now) and msg.turn is None:
            self._to(conn, self._now())
        elif isinstance(msg, Hst):
            self._hst(conn, msg)
        elif isinstance(msg, Ord) and msg.turn is None:
            self._ord_request(conn)
        elif isinstance(msg, Tme):
            self._tme(conn, msg, now)
        elif isinstance(msg, Not) and isinstance(msg.content, Tme):
            self._not_tme(conn, msg, now)
        elif isinstance(msg, Smr) and msg.turn is None:
            self._smr_request(conn)
        elif isinstance(msg, Adm):
            self._adm(conn, client, msg, now)
        elif isinstance(msg, Off):
            self._effects.append(Close(conn))
            self._disconnect(conn, now)
        elif power is None:
            # the rest are player commands (or server messages a client has no business sending)
            self._to(conn, Rej(msg))
        else:
            self._player(conn, power, msg, now)

    def _player(self, conn: str, power: str, msg: Value, now: float) -> None:
        if isinstance(msg, Sub):
            self._sub(conn, power, msg, now)
        elif isinstance(msg, Mis) and not msg.units and msg.count is None:
            self._to(conn, self.missing(power) if self.state == PLAYING else Rej(msg))
        elif isinstance(msg, Gof):
            self._gof(conn, power, msg, go=True, now=now)
        elif isinstance(msg, Drw):
            self._drw(conn, power, msg, wants=True, now=now)
        elif isinstance(msg, Not) and isinstance(msg.content, Sub):
            self._not_sub(conn, power, msg, now)
        elif isinstance(msg, Not) and isinstance(msg.content, Gof):
            self._gof(conn, power, msg, go=False, now=now)
        elif isinstance(msg, Not) and isinstance(msg.content, Drw):
            self._drw(conn, power, msg, wants=False, now=now)
        elif isinstance(msg, Hlo) and msg.power is None and self.state != FORMING:
            player = self.roster.players[power]
            self._to(conn, Hlo(self._abbr(power), player.passcode, self.settings.variant()))
        elif isinstance(msg, Snd):
            self._snd(conn, power, msg, now)
        else:
            self._to(conn, Rej(msg))

    # --- joining -----------------------------------------------------------------------------

    def keeps_seat_for(self, name: str) -> bool:
        """Whether a power not yet taken is reserved for a player joining as ``name``."""
        return bool(self._kept_for(name))

    def _kept_for(self, name: str) -> list[str]:
        return [p for p, r in self.settings.reserved if keeps(r, name) and p not in self.roster.players]

    def _nme(self, conn: str, client: Client, msg: Nme, now: float) -> None:
        reserved = dict(self.settings.reserved)
        kept = self._kept_for(msg.name)
        free = kept or [p for p in self.powers if p not in self.roster.players and p not in reserved]
        if self.state != FORMING or client.role is not Role.NEW or not free:
            self._to(conn, Rej(msg))
            return
        power = free[0] if kept else self.rng.choice(free)
        taken = [p.passcode for p in self.roster.players.values()]
        token = new_session_token()
        passcode = draw_passcode(self.rng, taken, self.passcode_in_use)
        player = Player(power, msg.name, msg.version, passcode, session_digest(token))
        self._record(
            "join", now, power=power, name=msg.name, version=msg.version, passcode=passcode, session=player.session
        )
        self._to(conn, Yes(msg))
        self._to(conn, MapMessage(MAP_NAME))
        self._to(conn, session_adm(token))
        self._join(conn, player, now)

    def _join(self, conn: str | None, player: Player, at: float) -> None:
        self.roster.seat(conn, player)
        if len(self.roster.players) < len(self.powers):
            return
        if self._replay_starts is None and self.MAP_WAIT is None:
            self._start(at)
        elif self._replay_starts is None:  # live: once every player has its map (or MAP_WAIT has passed)
            self.start_by = at + self.MAP_WAIT
            self._start_if_maps(at)
        elif not self._replay_starts:  # a store of an earlier version: it started on the last join
            self._start(at)
        # else: the replay starts the game at its "start" record

    def _map_answered(self, conn: str, now: float) -> None:
        """A client answered ``MAP`` (``YES`` or ``REJ``): it has its map, so it may be greeted."""
        self._maps.add(conn)
        self._start_if_maps(now)

    def _start_if_maps(self, now: float) -> None:
        """Start a full game whose players have all answered their ``MAP``: AiClient bots drop a
        ``NOW`` that comes before the map they asked for, and never order that phase."""
        full = len(self.roster.players) == len(self.powers)
        if self.state == FORMING and full and all(c in self._maps for c in self.roster.connection_of.values()):
            self._start(now)

    def _start(self, at: float) -> None:
        self._record("start", at)
        self.state = PLAYING
        self.start_by = None
        for power, player in self.roster.players.items():
            self._to(
                self.roster.connection_of.get(power),
                Hlo(self._abbr(power), player.passcode, self.settings.variant()),
            )
        self._begin_phase(at)
        self._broadcast(self._sco())
        self._broadcast(self._now())
        self._send_tme(at)
        self._notify_phase()

    def _notify_phase(self) -> None:
        phase = self.position.phase
        self._notify(PhaseNotice(self.game_id, str(phase), PHASE_KINDS[phase.kind], self.deadline))

    def _obs(self, conn: str, client: Client, msg: Obs) -> None:
        if client.role is not Role.NEW:
            self._to(conn, Rej(msg))
            return
        self.roster.clients[conn] = Client(conn, Role.OBSERVER)
        self._to(conn, Yes(msg))
        self._to(conn, MapMessage(MAP_NAME))

    def _iam(self, conn: str, client: Client, msg: Iam, now: float) -> None:
        """``IAM``: a player back on a new connection. Refused, it closes the connection (see the
        module); a passcode never takes a seat whose player is connected, a session token does."""
        if client.role is not Role.NEW:
            self._to(conn, Rej(msg))  # already in the game: nothing is checked
            return
        power = self._full(msg.power)
        player = self.roster.players.get(power) if power is not None else None
        if msg.session is not None:
            self._iam_session(conn, power, player, msg)
            return
        if (
            power is None
            or player is None
            or self.state == FORMING
            or power in self.roster.connection_of  # its player is connected: not waiting for a replacement
            or self._iam_failures.recent(power, now, self.IAM_WINDOW) >= self.IAM_FAILURES
        ):
            self._refuse_iam(conn, msg)
            return
        if player.passcode != msg.passcode:
            self._iam_failures.failed(power, now)
            self._refuse_iam(conn, msg)
            return
        self._iam_failures.forget(power)
        self.roster.seat(conn, player)
        self._to(conn, Yes(msg))
        if self.state == PLAYING:
            self._broadcast(Not(Ccd(msg.power)), exclude=conn)

    def _iam_session(self, conn: str, power: str | None, player: Player | None, msg: Iam) -> None:
        """``IAM`` with the session token: the seat, whether its player is connected or not (the
        older connection is told and closed). A wrong token is refused but not counted against
        the seat, which an attacker could otherwise lock against its own player."""
        assert msg.session is not None
        if power is None or player is None or not player.has_session(msg.session):
            self._refuse_iam(conn, msg)
            return
        older = self.roster.connection_of.get(power)
        if older is not None:
            self._to(older, Adm(SERVER_NAME, TAKEN_OVER))
            self._to(older, Off())
            self._close(older)
            self.roster.leave(older)  # not a disconnection: the seat stays taken
            self.alarms.pop(older, None)
        self._iam_failures.forget(power)
        self.roster.seat(conn, player)
        self._to(conn, Yes(msg))
        if self.state == PLAYING and older is None:
            self._broadcast(Not(Ccd(msg.power)), exclude=conn)

    def _refuse_iam(self, conn: str, msg: Iam) -> None:
        self._to(conn, Rej(msg))
        self._close(conn)

    def _adm(self, conn: str, client: Client, msg: Adm, now: float) -> None:
        """``ADM``: stored and sent to every player and observer, from one that joined, short, not too often."""
        if (
            client.role is Role.NEW
            or msg.name == SERVER_NAME  # the server's own name: a client may not speak as the server
            or len(msg.name) > self.ADM_MAX_NAME
            or len(msg.text) > self.ADM_MAX_TEXT
            or not self._take(self._adm_buckets, conn, now, self.ADM_PER_MINUTE / 60.0, self.ADM_BURST)
        ):
            self._to(conn, Rej(msg))
            return
        self._record("admin", now, conn=conn, name=msg.name, text=msg.text)
        self._broadcast(msg)

    # --- information -------------------------------------------------------------------------

    def _sco(self, position: Position | None = None) -> Sco:
        position = position or self.position
        names = self.map.locations
        owned: dict[str | None, list[str]] = {}  # owner (None: nobody) -> its centres' names
        for p in self.map.supply_centers:
            owned.setdefault(position.centers[p], []).append(names[p])
        groups = [Ownership(self._abbr(p), tuple(sorted(owned[p]))) for p in self.powers if p in owned]
        if None in owned:
            groups.append(Ownership("UNO", tuple(sorted(owned[None]))))
        return Sco(tuple(groups))

    def _now(self, position: Position | None = None) -> Now:
        position = position or self.position
        m = self.map
        units: list[Any] = [_daide_unit(u, m) for u in self._by_power(position)]
        for d in position.dislodged:
            retreats = tuple(sorted((location_from_engine(r, m) for r in d.retreats), key=str))
            units.append(MrtUnit(_daide_unit(d.unit, m), retreats))
        return Now(turn_from_phase(position.phase), tuple(units))

    def _hst(self, conn: str, msg: Hst) -> None:
        if msg.turn is None:
            start = Position.initial(self.map)
            self._to(conn, self._sco(start))
            self._to(conn, self._now(start))
            return
        for turned in self.history:
            if turned.turn == msg.turn:
                for result in turned.results:
                    self._to(conn, result)
                self._to(conn, turned.sco)
                self._to(conn, turned.now)
                return
        self._to(conn, Rej(msg))

    def _ord_request(self, conn: str) -> None:
        movement = [i for i, t in enumerate(self.history) if t.phase_kind == MOVEMENT]
        if not movement:
            self._to(conn, Rej(Ord()))
            return
        for turned in self.history[movement[-1] :]:
            for result in turned.results:
                self._to(conn, result)

    def _alarm_holder(self, conn: str) -> str:
        """Whose alarms a connection sets: its power's if it plays one (recorded), else its own."""
        return self.roster.power_of(conn) or conn

    def _tme(self, conn: str, msg: Tme, now: float) -> None:
        """``TME``: the seconds left; ``TME (seconds)``: ring when only that many are left."""
        if msg.seconds is not None:
            if self.settings.deadlines.longest is None or msg.seconds <= 0:
                self._to(conn, Rej(msg))
                return
            holder = self._alarm_holder(conn)
            if holder in self.roster.players:
                self._record("alarm", now, power=holder, seconds=msg.seconds, on=True)
            self.alarms.setdefault(holder, set()).add(msg.seconds)
            self._to(conn, Yes(msg))
        elif self.state != PLAYING or self.deadline is None:
            self._to(conn, Rej(Tme()))
        else:
            self._to(conn, Tme(remaining_seconds(now, self.deadline)))

    def _not_tme(self, conn: str, msg: Not, now: float) -> None:
        """``NOT (TME (seconds))`` cancels that alarm; ``NOT (TME)`` every alarm of the connection."""
        tme = msg.content
        assert isinstance(tme, Tme)
        holder = self._alarm_holder(conn)
        mine = self.alarms.get(holder, set())
        if not (tme.seconds is None and mine) and tme.seconds not in mine:
            self._to(conn, Rej(msg))
            return
        if holder in self.roster.players:
            self._record("alarm", now, power=holder, seconds=tme.seconds, on=False)
        self._alarm_off(holder, tme.seconds)
        self._to(conn, Yes(msg))

    def _alarm_off(self, holder: str, seconds: int | None) -> None:
        if seconds is None:
            self.alarms.pop(holder, None)
        else:
            self.alarms.get(holder, set()).discard(seconds)

    def _send_tme(self, now: float) -> None:
        if self.deadline is not None and self.state == PLAYING:
            self._broadcast(Tme(remaining_seconds(now, self.deadline)))

    def _smr_request(self, conn: str) -> None:
        if self.state != OVER or self.result is None:
            self._to(conn, Rej(Smr()))
            return
        self._to(conn, self.result)
        self._to(conn, self._smr())

    def _smr(self) -> Smr:
        entries = []
        for power in self.powers:
            player = self.roster.players.get(power) or Player(power, "", "", 0)
            centres = len(self.position.centers_of(power))
            year = self.eliminated.get(power, self.position.phase.year) if centres == 0 else None
            entries.append(SmrEntry(self._abbr(power), player.name, player.version, centres, year))
        return Smr(turn_from_phase(self.position.phase), tuple(entries))

    # --- orders ------------------------------------------------------------------------------

    def must_order(self) -> tuple[str, ...]:
        """The powers that have orders to give this phase."""
        if self.state != PLAYING:
            return ()
        return tuple(self._owed())

    def _owed(self) -> dict[str, frozenset[str]]:
        """The powers that have orders to give this phase, in power order, each with the keys
        (:func:`~referee.orders.order_key`) of its units to order (none in an adjustment
        phase); worked out once per position, as every ``SUB`` asks."""
        return self._owed_of(self.position)

    def _work_out_owed(self, position: Position) -> dict[str, frozenset[str]]:
        kind = position.phase.kind
        keys: dict[str, set[str]] = {}
        m = self.map
        if kind == MOVEMENT:
            for u in position.units:
                keys.setdefault(u.power, set()).add(order_key(m, u.location))
        elif kind == RETREATS:
            for d in position.dislodged:
                keys.setdefault(d.unit.power, set()).add(order_key(m, d.unit.location))
        else:
            keys = {power: set() for power in position.adjustments}
        return {p: frozenset(keys[p]) for p in self.powers if p in keys}

    def missing(self, power: str) -> Mis:
        """What ``power`` has still to order, as ``MIS`` (bare when nothing; :meth:`_complete`
        says whether it is bare without making it)."""
        position = self.position
        m = self.map
        given = self.pending.get(power, {})
        kind = position.phase.kind
        if kind == MOVEMENT:
            units = [u for u in position.units if u.power == power and order_key(m, u.location) not in given]
            return Mis(tuple(unit_from_engine(u, m) for u in units))
        if kind == RETREATS:
            mrt = []
            for d in position.dislodged:
                if d.unit.power == power and order_key(m, d.unit.location) not in given:
                    retreats = tuple(sorted((location_from_engine(r, m) for r in d.retreats), key=str))
                    mrt.append(MrtUnit(unit_from_engine(d.unit, m), retreats))
            return Mis(tuple(mrt))
        owed = position.adjustments.get(power, 0)
        left = abs(owed) - len(given)
        if left <= 0:
            return Mis()
        return Mis(count=-left if owed > 0 else left)  # negative: builds owed, positive: removals

    def _complete(self, power: str) -> bool:
        """Whether ``power`` has nothing left to order (its ``MIS`` would be bare)."""
        given = self.pending.get(power, {})
        position = self.position
        if position.phase.kind == ADJUSTMENTS:
            return abs(position.adjustments.get(power, 0)) <= len(given)
        return self._owed().get(power, frozenset()) <= given.keys()

    def _sub(self, conn: str, power: str, msg: Sub, now: float) -> None:
        if self.state != PLAYING or power in self.eliminated:
            self._to(conn, Rej(msg))
            return
        if msg.turn is not None and msg.turn != self._turn():
            self._to(conn, Rej(msg))
            return
        accepted = []
        effects = self._effects
        for order in msg.orders:
            note = self._store(power, order)
            effects.append(Send(conn, Thx(order, note)))
            if note == "MBV":
                accepted.append(daide_text(order))
        if accepted:
            self._record("orders", now, power=power, orders=accepted)
        if not self._complete(power):
            self._to(conn, self.missing(power))
        self._maybe_advance(now)

    def _store(self, power: str, order: Order) -> str:
        """Check ``order`` of ``power`` and keep it if valid; the THX note."""
        note, key, engine_order = check_order(self.position, power, order)
        if engine_order is None or key is None:
            return note
        given = self.pending.setdefault(power, {})
        if self.position.phase.kind == ADJUSTMENTS:
            owed = self.position.adjustments.get(power, 0)
            others = [k for k in given if k != key]
            if len(others) >= abs(owed):
                return "NMB" if owed > 0 else "NMR"
            if key == "WVE":  # several waives may stand side by side
                key = f"WVE{sum(1 for k in given if k.startswith('WVE'))}"
        given[key] = Submitted(order, engine_order)
        return note

    def _not_sub(self, conn: str, power: str, msg: Not, now: float) -> None:
        sub = msg.content
        assert isinstance(sub, Sub)
        if self.state != PLAYING or len(sub.orders) > 1:
            self._to(conn, Rej(msg))
            return
        order = sub.orders[0] if sub.orders else None
        if not self._cancel(power, order):
            self._to(conn, Rej(msg))
            return
        self._record("cancel", now, power=power, order=None if order is None else str(order))
        self._to(conn, Yes(msg))

    def _cancel(self, power: str, order: Order | None) -> bool:
        given = self.pending.setdefault(power, {})
        if order is None:
            given.clear()
            return True
        for key, submitted in given.items():
            if submitted.daide == order or str(submitted.daide) == str(order):
                del given[key]
                return True
        return False

    def _gof(self, conn: str, power: str, msg: Value, go: bool, now: float) -> None:
        if self.state != PLAYING or power in self.eliminated:
            self._to(conn, Rej(msg))
            return
        self._record("gof", now, power=power, go=go)
        (self.holding.discard if go else self.holding.add)(power)
        self._to(conn, Yes(msg))
        if go and power in self.must_order() and not self._complete(power):
            self._to(conn, self.missing(power))
        self._maybe_advance(now)

    def _maybe_advance(self, now: float) -> None:
        """End the phase early when every power due has ordered in full and none holds it."""
        if self.state != PLAYING:
            return
        due = self.must_order()
        if all(self._complete(p) for p in due) and not self.holding.intersection(due):
            self._process(now, at_deadline=False)

    # --- processing a phase -------------------------------------------------------------------

    def _begin_phase(self, at: float) -> None:
        self.pending = {}
        self.holding = set()
        self.draw_votes = set()
        self.binding = {}
        self._rung = set()
        self.deadline = self.settings.deadlines.deadline(self.position.phase.kind, at)

    def _process(self, at: float, at_deadline: bool, stored: Mapping[str, Any] | None = None) -> None:
        """Adjudicate the phase and begin the next. Its record holds what was decided: the
        orders given, the orders adjudicated (after binding), each unit's result and the
        position after, so that the history is read from the store, never recomputed. In a
        replay (``stored``: that record), what is recomputed is checked against it; on a
        difference (another engine version, another rule) the stored outcome stands, and
        the difference is kept in :attr:`mismatches` for the server to log."""
        before = self.position
        turn = turn_from_phase(before.phase)
        if at_deadline:
            for power in self.must_order():
                if not self._complete(power):
                    self._broadcast(Ccd(self._abbr(power), turn))
        orders = {power: [s.order for s in given.values()] for power, given in self.pending.items()}
        bound = bool(self.settings.binding and self.binding)
        if bound:
            orders = apply_binding(before, orders, self.binding)
        outcome = adjudicate(before, orders)
        outcome = self._check_stored(outcome, stored)
        results = tuple(Ord(turn, order, result, ret) for order, result, ret in self._results(before, outcome.results))
        after = outcome.position
        self.position = after
        counts = after.center_counts
        for power in self.powers:
            if power not in self.eliminated and not counts[power] and not after.units_of(power):
                self.eliminated[power] = before.phase.year
        self._broadcast_all(results)
        sco, now_message = self._sco(), self._now()
        centres_changed = before.phase.season in ("F", "W") and after.phase.kind != RETREATS
        if centres_changed or after.completed:
            self._broadcast(sco)
        m = self.map
        given = {
            power: tuple(eo.format_order(m, s.order) for s in submitted.values())
            for power, submitted in self.pending.items()
            if submitted
        }
        self.history.append(Turned(turn, before.phase.kind, results, sco, now_message, given, outcome))
        # without a binding the orders adjudicated are those given, in the same order
        adjudicated = (
            {p: tuple(eo.format_order(m, o) for o in os) for p, os in orders.items() if os} if bound else given
        )
        unit_results = [(before.unit_name(u), words) for u, words in outcome.results.items()]
        before_json = self._json(before)
        after_json = self._json(after)  # one dict for the record and the notice: neither is changed
        self._record(
            "adjudicate",
            at,
            phase=str(before.phase),
            deadline=at_deadline,
            given={p: list(texts) for p, texts in given.items()},
            orders={p: list(texts) for p, texts in adjudicated.items()},
            results={name: list(words) for name, words in unit_results},
            after=after_json,
        )
        if after.completed and after.winner is not None:
            self._end(Slo(self._abbr(after.winner)))
        elif self.settings.year_limit is not None and after.phase.year > self.settings.year_limit:
            self._end(Drw())
        self._notify(
            ResultsNotice(
                self.game_id,
                str(before.phase),
                dict(adjudicated),
                {name: tuple(words) for name, words in unit_results},
                before_json,
                after_json,
            )
        )
        if self.state == PLAYING:
            self._begin_phase(at)
        self._broadcast(now_message)
        self._send_tme(at)
        if self.state == PLAYING:
            self._notify_phase()

    def _turn(self) -> Turn:
        """The turn of the current position."""
        return self._turn_of(self.position)

    def _sorted_units(self, position: Position) -> list[Unit]:
        """The units of ``position`` by power, then location."""
        rank = {power: i for i, power in enumerate(self.powers)}
        return sorted(position.units, key=lambda u: (rank[u.power], u.location))

    def _check_stored(self, outcome: Adjudication, stored: Mapping[str, Any] | None) -> Adjudication:
        """``outcome`` if it is what ``stored`` (an adjudicate record's payload) says, else the
        stored outcome, with the difference noted in :attr:`mismatches`."""
        if stored is None:
            return outcome
        before = outcome.before
        results = {before.unit_name(u): list(words) for u, words in outcome.results.items()}
        stored_after = _stored_position(stored["after"], outcome.position, self.map)
        if results == stored["results"] and outcome.position == stored_after:
            return outcome
        self.mismatches.append(
            Mismatch(
                str(before.phase),
                {k: v for k, v in stored["results"].items() if results.get(k) != v},
                {k: v for k, v in results.items() if stored["results"].get(k) != v},
                outcome.position != stored_after,
            )
        )
        by_name = {before.unit_name(u): u for u in before.units}
        by_name.update({before.unit_name(d.unit): d.unit for d in before.dislodged})
        kept = {by_name[name]: tuple(words) for name, words in stored["results"].items() if name in by_name}
        return Adjudication(before, stored_after, kept, outcome.unreadable)

    def _results(
        self, before: Position, results: Mapping[Unit, tuple[str, ...]]
    ) -> list[tuple[Order, str | None, bool]]:
        """Each order of the phase (given or defaulted) with its DAIDE result and RET flag."""
        m = self.map
        kind = before.phase.kind
        out: list[tuple[Order, str | None, bool]] = []
        if kind == MOVEMENT:
            for unit in self._by_power(before):
                given = self.pending.get(unit.power, {}).get(order_key(m, unit.location))
                order = given.order if given is not None else eo.Hold(unit.type, unit.location)
                result, ret = _movement_result(results.get(unit, ()))
                out.append((daide_order(unit.power, order, before), result, ret))
        elif kind == RETREATS:
            for d in before.dislodged:
                given = self.pending.get(d.unit.power, {}).get(order_key(m, d.unit.location))
                order = given.order if given is not None else eo.Disband(d.unit.type, d.unit.location)
                words = results.get(d.unit, ())
                result = "SUC" if words in ((Result.OK,), (Result.DISBAND,)) else "BNC" if Result.BOUNCE in words else "NSO"
                out.append((daide_order(d.unit.power, order, before), result, False))
        else:
            removed_by_order: set[Unit | None] = set()
            for power in self.powers:
                for submitted in self.pending.get(power, {}).values():
                    order = submitted.order
                    if isinstance(order, eo.Build):
                        built = Unit(power, order.type if order.type is not None else ARMY, order.location)
                        result = "SUC" if results.get(built) == (Result.OK,) else "NSO"
                    elif isinstance(order, eo.Disband):
                        removed = before.unit_at.get(m.province_of[order.location])
                        removed_by_order.add(removed)
                        result = "SUC" if removed is not None and results.get(removed) == (Result.OK,) else "NSO"
                    else:
                        result = "SUC"
                    out.append((daide_order(power, order, before), result, False))
            for unit, words in results.items():
                if words == (Result.DISBAND,) and unit not in removed_by_order:  # civil disorder removal
                    order = eo.Disband(unit.type, unit.location)
                    out.append((daide_order(unit.power, order, before), "SUC", False))
        return out

    def _end(self, result: Value) -> None:
        self.state = OVER
        self.result = result
        self.deadline = None
        self._broadcast(result)
        self._broadcast(self._smr())
        winner = self._full(result.power) if isinstance(result, Slo) else None
        self._notify(OverNotice(self.game_id, str(self.position.phase), winner, self.surviving()))

    # --- draws ---------------------------------------------------------------------------------

    def surviving(self) -> tuple[str, ...]:
        return tuple(p for p in self.powers if p not in self.eliminated)

    def _drw(self, conn: str, power: str, msg: Value, wants: bool, now: float) -> None:
        drw = msg if isinstance(msg, Drw) else getattr(msg, "content", None)
        if self.state != PLAYING or power in self.eliminated or not isinstance(drw, Drw) or drw.powers:
            self._to(conn, Rej(msg))  # partial draws (PDA) are not offered
            return
        self._record("draw", now, power=power, wants=wants)
        (self.draw_votes.add if wants else self.draw_votes.discard)(power)
        self._to(conn, Yes(msg))
        if set(self.surviving()) <= self.draw_votes:
            self._record("draw_declared", now)
            self._end(Drw())

    # --- press ---------------------------------------------------------------------------------

    def _snd(self, conn: str, power: str, msg: Snd, now: float) -> None:
        level = press_level(msg)
        if level > self.settings.press_level:
            # press above the game's level is a syntax error at this level: ERR before the press
            echo = tokens(msg)
            at = len(echo) - len(tokens(msg.press)) - 1
            self._to(conn, Huh(tuple(echo[:at]) + ("ERR",) + tuple(echo[at:])))
            return
        sender = self._abbr(power)
        kind = PHASE_KINDS[self.position.phase.kind]
        press_kinds = self.settings.press_phases
        recipients = msg.recipients
        if (
            self.state != PLAYING
            or power in self.eliminated
            or len(recipients) > len(self.powers)
            or len(set(recipients)) != len(recipients)  # each recipient once: one FRM each
            or sender in recipients
            or kind not in press_kinds
            or (msg.turn is not None and msg.turn != self._turn())
        ):
            self._to(conn, Rej(msg))
            return
        targets = []
        for abbreviation in msg.recipients:
            recipient = self._full(abbreviation)
            if recipient is None:
                self._to(conn, Rej(msg))
                return
            if recipient in self.eliminated:
                self._to(conn, Out(abbreviation, msg))
                return
            target = self.roster.connection_of.get(recipient)
            if target is None:
                self._to(conn, Ccd(abbreviation, send=msg))
                return
            targets.append(target)
        self._record("press", now, sender=sender, recipients=list(msg.recipients), press=str(msg))
        self._to(conn, Yes(msg))
        delivered = Frm(sender, msg.recipients, msg.press)
        for target in targets:
            self._to(target, delivered)
        self._notify(PressNotice(self.game_id, str(self.position.phase), sender, tuple(msg.recipients), str(msg.press)))

    # --- the negotiation server's inputs ------------------------------------------------------

    def deliver(
        self, sender: str, recipients: Iterable[str], press: PressMessage, now: float, request: str | None = None
    ) -> Step:
        """Press that the negotiation server relays (an L message said in DAIDE): ``FRM`` to the
        connected players among ``recipients`` (DAIDE power tokens). The negotiation sends a
        request again until it hears the answer: one whose ``request`` id was applied already
        (:attr:`requests`, replay included) is not delivered twice."""
        if request is not None and request in self.requests:
            return self._step()
        recipients = tuple(recipients)
        extra = {} if request is None else {"request": request}
        self._record("press", now, sender=sender, recipients=list(recipients), press=str(press), via="nego", **extra)
        if request is not None:
            self.requests.add(request)
        delivered = Frm(sender, recipients, press)
        for abbreviation in dict.fromkeys(recipients):  # one FRM to each, however often named
            power = self._full(abbreviation)
            self._to(self.roster.connection_of.get(power) if power is not None else None, delivered)
        return self._step()

    def bind(self, phase: str, orders: Mapping[str, Iterable[str]], now: float, request: str | None = None) -> Step:
        """The order commitments confirmed for ``phase`` (power -> orders in the short notation),
        replacing those given before; ignored for another phase than the current one, and for
        a ``request`` id applied already (the negotiation sends a request again until it hears
        the answer). Whether the game holds it: ``request in gm.requests``."""
        if request is not None and request in self.requests:
            return self._step()
        if self.state == PLAYING and phase == str(self.position.phase):
            texts = {power: list(given) for power, given in orders.items()}
            extra = {} if request is None else {"request": request}
            self._record("binding", now, phase=phase, orders=texts, **extra)
            self._bind(phase, texts)
            if request is not None:
                self.requests.add(request)
        return self._step()

    def _bind(self, phase: str, orders: Mapping[str, Iterable[str]]) -> None:
        if phase != str(self.position.phase):
            return
        binding: dict[str, tuple[eo.Order, ...]] = {}
        for power, texts in orders.items():
            if power in self.powers:
                binding[power] = tuple(_parsed(self.map, texts))
        self.binding = binding


def _parsed(m: Map, texts: Iterable[str]) -> Iterable[eo.Order]:
    """The orders among ``texts`` that parse (the short notation); the others are void."""
    for text in texts:
        try:
            yield eo.parse_order(m, text)
        except eo.OrderSyntaxError:
            continue


def _order(text: str) -> Order:
    """An order recorded as text (``(ENG FLT LON) MTO NTH``), read back as ``SUB`` reads it."""
    sub = parse(f"SUB ({text})")
    assert isinstance(sub, Sub) and len(sub.orders) == 1
    return sub.orders[0]


_DAIDE_UNITS: dict[tuple[Map, str, int, int], DaideUnit] = {}


def _daide_unit(unit: Unit, m: Map) -> DaideUnit:
    """``unit`` in DAIDE (cached: a game names the same few hundred units over and over).

    Keyed by the unit's plain fields: a tuple of them hashes and compares in C, a ``Unit``
    (a dataclass) in Python, and each position holds units of its own, equal but not the same.
    """
    key = (m, unit.power, unit.type, unit.location)
    found = _DAIDE_UNITS.get(key)
    if found is None:
        found = _DAIDE_UNITS[key] = unit_from_engine(unit, m)
    return found


#: The DAIDE result of an order (``ORD``) for the engine's first result word.
DAIDE_RESULTS = {
    Result.OK: "SUC",
    Result.BOUNCE: "BNC",
    Result.CUT: "CUT",
    Result.DISRUPTED: "DSR",
    Result.NO_CONVOY: "NSO",
    Result.VOID: "NSO",
}


@functools.cache  # a handful of different results, thousands of times a game
def _movement_result(words: tuple[str, ...]) -> tuple[str | None, bool]:
    ret = Result.DISLODGED in words
    base = [w for w in words if w not in (Result.DISLODGED, Result.DISBAND)]
    if base:
        return DAIDE_RESULTS[Result(base[0])], ret
    return (None, True) if ret else ("SUC", False)


def _stored_position(data: Mapping[str, Any], computed: Position, m: Map) -> Position:
    """The position an adjudicate record stored. A game's last one, after a solo, is written
    ``COMPLETED``, which names no phase: it is read as the phase the engine reached, completed."""
    if data.get("phase") != "COMPLETED":
        return Position.from_json(data, m)
    return dataclasses.replace(Position.from_json({**data, "phase": str(computed.phase)}, m), completed=True)
