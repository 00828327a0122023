"""The sans-I/O client side of one DAIDE game: typed messages in, typed messages out.

A :class:`BotSession` is to a bot what the game master is to the server: it reads no
socket and no clock. A transport (the websocket client, or the in-process runner) hands
it each message of the server with :meth:`BotSession.receive` and sends what comes back;
when :attr:`BotSession.due` is true it calls :meth:`BotSession.submit` and sends the
``SUB`` it returns. Keeping the choice of *when* to submit with the transport is the seam
for negotiation: a transport may run negotiation rounds between the ``NOW`` of a phase
and the orders, or (over the network, where the orders go in as the phase opens) call
:meth:`BotSession.resubmit` after each negotiation event and send the replacing ``SUB``
it returns when the bot revised its orders (:meth:`Bot.revised_orders`).

The session follows the game's map. ``MAP ('standard')`` is the shipped standard map; for
any other name it asks ``MDF`` and plays on the map the answer defines
(:func:`protocol.daide.mdf.map_from_mdf`), which is the shipped map of that name only if it
is the same board: a name alone is never trusted. A bot that cannot play the map
(:meth:`Bot.cannot_play`), or a map definition the engine cannot read, is refused the DAIDE
way: ``REJ (MAP ('name'))`` and ``OFF``, the reason in :attr:`BotSession.declined`.

The session keeps the game as the engine sees it: ``SCO`` and ``NOW`` become a
:class:`~engine.position.Position` on the game's map (``MRT`` units become the
dislodged units with their retreat options), so a bot is asked for orders with exactly
the position and the legal orders the game master checks them against (only the order in
which units are listed may differ: ``NOW`` sorts them). The orders a bot
gives are cleaned before they go out: an order that is not legal is dropped, a unit left
without an order holds (disbands in a retreat phase), builds left over are waived and
removals left over are the first legal ones. The game master, without deadlines, waits
for complete orders; this makes sure it always gets them.

>>> from bots.base import HoldBot
>>> from protocol.daide.messages import Hlo, MapMessage
>>> session = BotSession(HoldBot())
>>> session.start()
[Nme(name='holdbot', version='1.0')]
>>> session.receive(MapMessage("standard"))
[Yes(content=MapMessage(name='standard'))]
>>> _ = session.receive(Hlo("ENG", 1234, ()))
>>> session.power, session.passcode
('ENG', 1234)

On another map the session asks for the map's definition first:

>>> from engine.maps import variant_map
>>> from protocol.daide.orders import map_definition
>>> pure = BotSession(HoldBot())
>>> pure.receive(MapMessage("pure"))
[Mdf(powers=(), centres=(), non_centres=(), adjacencies=())]
>>> pure.receive(map_definition(variant_map("pure")))
[Yes(content=MapMessage(name='pure'))]
>>> pure.map is variant_map("pure")  # the shipped map: its definition is the one received
True

>>> session.rejoin()
[Iam(power='ENG', passcode=1234, session=None), Hlo(power=None, passcode=None, variant=()), Sco(ownership=()), Now(turn=None, units=())]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import engine.orders as eo
from bots.base import Bot, LegalOrders
from engine import Position, legal_orders, standard_map
from engine.maps import Map, map_names, variant_map
from engine.position import ADJUSTMENTS, Dislodged, Unit
from protocol.daide.messages import (
    Adm,
    DaideUnit,
    Drw,
    Hlo,
    Iam,
    MapMessage,
    Mdf,
    MrtUnit,
    Nme,
    Not,
    Now,
    Obs,
    Off,
    Ord,
    Rej,
    Sco,
    Slo,
    Smr,
    Sub,
    Thx,
    Turn,
    Value,
    VariantOption,
    Yes,
)
from protocol.daide.mdf import MdfError, map_from_mdf, same_map
from protocol.daide.orders import (
    DaideOrderError,
    location_to_engine,
    order_to_engine,
    unit_to_engine,
)
from referee.orders import daide_order, listed

__all__ = ["BotSession", "complete_orders", "position_from"]

T = TypeVar("T")

#: The messages held while an ``MDF`` is awaited (a greeting, the centres, the position and a
#: little press); more, and the server is not answering the request.
MAX_HELD = 256


class BotSession:
    """One player (or, with ``observer=True``, one observer) of one game.

    ``position`` is the game as last told (``None`` before the first ``NOW``); ``result``
    the ``SLO`` or ``DRW`` that ended the game, ``summary`` its ``SMR``. ``over`` is true
    once the game has ended and its last position is known (after ``SMR`` the session asks
    for ``NOW``: the server sends it unasked after the last phase, not after a voted
    draw), the server said ``OFF``, or it refused to seat this client (``refused`` holds
    the refused message), or this client refused the game's map (``declined`` says why, in
    one line). ``map`` is the game's map (the standard one until ``MAP`` tells another). ``rejected`` lists the ``THX`` of orders the server did not take
    and ``discarded`` the bot's orders that were not legal: both stay empty for a sound bot.
    """

    def __init__(self, bot: Bot, name: str | None = None, version: str | None = None, observer: bool = False) -> None:
        self.bot = bot
        self.name = name if name is not None else bot.name
        self.version = version if version is not None else bot.version
        self.observer = observer
        self.map: Map = standard_map()
        self.power: str | None = None
        self.passcode: int | None = None
        self.session: str | None = None  # the session token of the server's ADM after YES (NME)
        self.variant: tuple[VariantOption, ...] = ()
        self.position: Position | None = None
        self.centres: tuple[str | None, ...] = Position.initial(self.map).centers
        self.legal: LegalOrders = {}
        self.due = False
        self.result: Slo | Drw | None = None
        self.summary: Smr | None = None
        self.refused: Value | None = None
        self.declined: str | None = None
        self._map_asked: str | None = None  # the name of the map whose MDF was asked for
        self._held: list[Value] = []  # what came while the MDF was awaited, read once the map is known
        self.off = False
        self.finished = False
        self.rejected: list[Thx] = []
        self.discarded: list[eo.Order] = []
        self._results: list[Ord] = []
        self._submitted: Sub | None = None  # sent again after a rejoin in the same phase
        self._replaced = False  # the phase's SUB was replaced (an adjustment's needs NOT (SUB) first)
        self.unacknowledged = 0  # orders sent that the server has not answered (THX) yet
        #: Whether the bot reads a phase's results (:meth:`Bot.on_results`). Results are kept
        #: only for a bot that does: they are most of what a phase says, and reading them back
        #: into engine orders is a good part of a phase's work; an in-process game does not
        #: even send them to the others.
        self.reads_results = type(bot).on_results is not Bot.on_results

    @property
    def over(self) -> bool:
        return self.finished or self.off or self.refused is not None or self.declined is not None

    # --- what the session sends of its own accord ----------------------------------------------

    def start(self) -> list[Value]:
        """The first messages on a new connection: ``NME`` (``OBS`` for an observer)."""
        if self.observer:
            return [Obs()]
        return [Nme(self.name, self.version)]

    def rejoin(self) -> list[Value]:
        """The first messages on a new connection after a lost one.

        With a seat (``HLO`` seen) it is ``IAM`` and requests for the greeting, the centres
        and the position, which the server does not resend by itself; without one the
        session starts over (the server frees a seat left while the game forms). The ``IAM``
        carries the session token when the server gave one (it takes the seat even if the
        server still holds the lost connection), else the passcode.
        """
        self.unacknowledged = 0  # what was sent on the lost connection is answered no more
        if self.power is None or self.passcode is None:
            return self.start()
        iam = Iam(self.power, session=self.session) if self.session is not None else Iam(self.power, self.passcode)
        return [iam, Hlo(), Sco(), Now()]

    def submit(self) -> list[Value]:
        """The ``SUB`` of the phase: the bot's orders, cleaned and completed (see the module)."""
        position, power = self.position, self.power
        if not self.due or position is None or power is None:
            return []
        self.due = False
        sub, discarded = self._sub(
            position, power, self.bot.orders(position, self.legal), Turn.of(position.phase)
        )
        self.discarded.extend(discarded)
        self._submitted, self._replaced = sub, False
        self.unacknowledged += len(sub.orders)
        return [sub]

    def resubmit(self) -> list[Value]:
        """The ``SUB`` replacing the phase's, if the bot revised its orders; else nothing.

        Asked after each negotiation message or event (:meth:`Bot.revised_orders`): at most
        one ``SUB`` each, and only when the cleaned orders differ from those sent. The game
        server takes a later order for a unit in place of the earlier one until the phase
        ends (after it, the ``SUB`` names a gone turn and is refused). In an adjustment phase
        builds and removals are counted, not replaced: ``NOT (SUB)`` clears them first.

        >>> from bots.base import HoldBot
        >>> from engine import format_order
        >>> from protocol.daide.parser import parse
        >>> class ToYork(HoldBot):  # holds, then (after a deal, say) moves to York
        ...     def revised_orders(self, position, legal):
        ...         return [o for os in legal.values() for o in os if format_order(position.map, o) == "A LVP - YOR"]
        >>> session = BotSession(ToYork())
        >>> _ = session.receive(parse("HLO (ENG) (1) ((LVL 0))"))
        >>> _ = session.receive(parse("NOW (SPR 1901) (ENG AMY LVP) (ENG FLT LON)"))
        >>> session.resubmit()  # nothing sent yet: the orders are still to come
        []
        >>> for message in [*session.submit(), *session.resubmit()]:
        ...     print(message)
        SUB (SPR 1901) ((ENG AMY LVP) HLD) ((ENG FLT LON) HLD)
        SUB (SPR 1901) ((ENG AMY LVP) MTO YOR) ((ENG FLT LON) HLD)
        >>> session.resubmit()  # the same orders again: nothing to send
        []
        """
        position, power, sent = self.position, self.power, self._submitted
        if self.due or self.over or self.result is not None or position is None or power is None:
            return []
        if sent is None or sent.turn != Turn.of(position.phase):
            return []
        chosen = self.bot.revised_orders(position, self.legal)
        if chosen is None:
            return []
        sub, discarded = self._sub(position, power, chosen, sent.turn)
        if set(sub.orders) == set(sent.orders):
            return []
        self.discarded.extend(discarded)
        self._submitted, self._replaced = sub, True
        return self._replacing(sub)

    @property
    def acknowledged(self) -> bool:
        """Whether the server has answered every order sent (so it took or refused them)."""
        return self.unacknowledged == 0

    def _sub(self, position: Position, power: str, chosen: Any, turn: Turn) -> tuple[Sub, list[Any]]:
        """The ``SUB`` of ``chosen`` orders for ``turn``, cleaned and completed, and the orders discarded."""
        orders, discarded = complete_orders(position, power, self.legal, chosen)
        return Sub(tuple(daide_order(power, order, position) for order in orders), turn), discarded

    def _replacing(self, sub: Sub) -> list[Value]:
        self.unacknowledged += len(sub.orders)
        position = self.position
        if self._replaced and position is not None and position.phase.kind == ADJUSTMENTS:
            return [Not(Sub()), sub]
        return [sub]

    # --- what the server says --------------------------------------------------------------------

    def receive(self, message: Value) -> list[Value]:
        """Take one message of the server; what to send back at once.

        That is ``YES`` to ``MAP``, the requests for the game's state an observer and the end
        of a game need, and, after a rejoin, the ``SUB`` already sent for the phase. New
        orders wait for :meth:`submit`.
        """
        if self.declined is not None:
            return []  # the client refused the game's map and left: it plays no part of it
        if self._map_asked is not None and not isinstance(message, Mdf):
            # a server may greet a player before its map is settled: the greeting waits for the map
            if len(self._held) >= MAX_HELD:
                return self._decline(self._map_asked, f"the server sent {MAX_HELD} messages and not the MDF asked for")
            self._held.append(message)
            return []
        if type(message) is Ord:  # most of what a phase says: every result, to everyone
            if message.turn is not None and self.reads_results:
                self._results.append(message)
            return []
        if isinstance(message, Now) and message.turn is not None:
            return self._now(message)
        if isinstance(message, Sco) and message.ownership:
            self.centres = centres_from(message, self.map)
        elif isinstance(message, Thx):
            self.unacknowledged = max(0, self.unacknowledged - 1)
            if message.note != "MBV":
                self.rejected.append(message)
        elif isinstance(message, Hlo) and message.power is not None:
            self._hello(message)
        elif isinstance(message, MapMessage) and message.name is not None:
            return self._map_named(message.name)
        elif isinstance(message, Mdf) and message.powers and self._map_asked is not None:
            return self._map_defined(message)
        elif isinstance(message, Adm) and message.session is not None and self.power is None:
            self.session = message.session  # before HLO only: no player may hand us another
        elif isinstance(message, Slo | Drw):
            self.result = message
            self.due = False
        elif isinstance(message, Smr) and message.turn is not None and self.summary is None:
            self.summary = message
            return [Now()]
        elif isinstance(message, Off):
            self.off = True
            self.due = False
        elif isinstance(message, Yes) and isinstance(message.content, Obs):
            return [Sco(), Now()]  # an observer may come in during the game
        elif isinstance(message, Rej) and isinstance(message.content, Nme | Obs | Iam):
            self.refused = message.content
        elif isinstance(message, Rej) and isinstance(message.content, Sub):  # a phase gone by
            self.unacknowledged = max(0, self.unacknowledged - len(message.content.orders))
        return []

    def _map_named(self, name: str) -> list[Value]:
        """``MAP ('name')``: the standard map is known; any other is asked for (``MDF``)."""
        if self.declined is not None:
            return []
        if self.power is not None:  # a copy, once the game has begun: its map is settled
            return [Yes(MapMessage(name))] if name.lower() == self.map.name else []
        if name.lower() == "standard":
            return self._play_on(name, standard_map())
        self._map_asked = name
        return [Mdf()]

    def _map_defined(self, mdf: Mdf) -> list[Value]:
        """The ``MDF`` asked for: the shipped map of the name if it is this very board, else the
        map the definition makes."""
        name = self._map_asked
        assert name is not None
        self._map_asked = None
        try:
            board = map_from_mdf(mdf, name.lower())
        except MdfError as error:
            return self._decline(name, f"cannot read the map {name!r}: {error}")
        if name.lower() in map_names():
            shipped = variant_map(name.lower())
            if same_map(shipped, board):
                board = shipped  # with the names, the first year and the victory the MDF leaves out
        answer = self._play_on(name, board)
        held, self._held = self._held, []
        for message in held:
            answer += self.receive(message)
        return answer

    def _play_on(self, name: str, board: Map) -> list[Value]:
        reason = None if self.observer else type(self.bot).cannot_play(board)
        if reason is not None:
            return self._decline(name, f"{self.name} cannot play the map {name!r}: {reason}")
        self.map = board
        self.centres = Position.initial(board).centers
        return [Yes(MapMessage(name))]

    def _decline(self, name: str, line: str) -> list[Value]:
        """Refuse the map as DAIDE says a client that cannot cope with it does, and leave."""
        self.declined = line
        self.due = False
        return [Rej(MapMessage(name)), Off()]

    def _hello(self, hlo: Hlo) -> None:
        assert hlo.power is not None
        power = hlo.power
        first = self.power is None
        self.power, self.passcode, self.variant = power, hlo.passcode, hlo.variant
        if first:
            self.bot.start(power, self.map)

    def _now(self, now: Now) -> list[Value]:
        if self.finished:
            return []
        before = self.position
        after = position_from(now, self.centres, self.map)
        if before is not None and self._results and before.phase != after.phase:
            self.bot.on_results(before, self._orders_given(), after)
        self._results = []
        self.position = after
        self.unacknowledged = 0  # the server answers a phase's orders before it ends the phase
        if self.summary is not None:
            self.finished = True
        if self.observer or self.power is None or self.result is not None or self.over:
            return []
        if self._submitted is not None and self._submitted.turn == now.turn:
            return self._replacing(self._submitted)  # back after a lost connection, in the phase already ordered
        self.legal = legal_orders(after, self.power)
        self.due = bool(self.legal)
        return []

    def _orders_given(self) -> dict[str, list[eo.Order]]:
        """The orders of the phase just played, by power, from its ``ORD`` results."""
        given: dict[str, list[eo.Order]] = {}
        for result in self._results:
            if result.order is None:
                continue
            try:
                power, order = order_to_engine(result.order, self.map)
            except DaideOrderError:
                continue
            given.setdefault(power, []).append(order)
        return given


# --- positions from messages ---------------------------------------------------------------------


def _same_as_last(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` (a cached one), answering at once when given the very objects of its last call.

    In one process the sessions of a game are handed the same message objects; a frozen
    message hashes all its parts again each time, which costs a cache lookup more than the
    rest of a phase's reading of ``NOW`` and ``SCO``.
    """
    last: list[Any] = [(), None]

    @functools.wraps(function)
    def wrapper(*args: Any) -> T:
        before, result = last
        if len(before) == len(args) and all(a is b for a, b in zip(args, before)):
            return cast(T, result)
        result = function(*args)
        last[:] = [args, result]
        return result

    return wrapper


@_same_as_last
@functools.lru_cache(maxsize=64)
def centres_from(sco: Sco, m: Map) -> tuple[str | None, ...]:
    """The engine's centre owners (by province) of an ``SCO`` message."""
    owners: list[str | None] = [None] * len(m.locations)
    for group in sco.ownership:
        power = group.power if group.power in m.powers else None  # None for UNO
        for name in group.centres:
            owners[m.province_of[m.location(name)]] = power
    return tuple(owners)


@_same_as_last
@functools.lru_cache(maxsize=64)
def position_from(now: Now, centres: tuple[str | None, ...], m: Map) -> Position:
    """The position of a ``NOW`` message with the centres of the last ``SCO``.

    Cached: the sessions of one process that are told the same thing share one
    :class:`Position`, and with it the engine's per-position caches (legal orders).
    """
    assert now.turn is not None
    units: list[Unit] = []
    dislodged: list[Dislodged] = []
    for unit in now.units:
        if isinstance(unit, MrtUnit):
            retreats = frozenset(location_to_engine(r, m) for r in unit.retreats)
            dislodged.append(Dislodged(_unit(unit.unit, m), retreats))
        else:
            units.append(_unit(unit, m))
    return Position(m, now.turn.phase, tuple(units), centres, tuple(dislodged))


#: The engine's unit of each DAIDE unit read, by (id, map), with the DAIDE unit itself: kept
#: alive here, no other object has its id while the entry stands.
_UNITS: dict[tuple[int, Map], tuple[DaideUnit, Unit]] = {}
_UNITS_KEPT = 4096


def _unit(unit: DaideUnit, m: Map) -> Unit:
    """``unit_to_engine(unit, m)``, made once per DAIDE unit object: in one process the game
    master names the very same unit objects in every ``NOW`` (a dataclass would hash in
    Python). Bounded: units parsed from a socket's text are new objects each time."""
    found = _UNITS.get((id(unit), m))
    if found is None:
        if len(_UNITS) >= _UNITS_KEPT:
            _UNITS.clear()
        found = _UNITS[id(unit), m] = (unit, unit_to_engine(unit, m))
    return found[1]


# --- cleaning a bot's orders ---------------------------------------------------------------------


def complete_orders(
    position: Position, power: str, legal: LegalOrders, chosen: Sequence[eo.Order]
) -> tuple[list[eo.Order], list[eo.Order]]:
    """A complete set of legal orders for ``power`` from the bot's ``chosen``, and those dropped.

    The first legal order for each unit counts; a unit left without one gets the default
    of :class:`~bots.base.HoldBot` (hold, disband). In an adjustment phase the first legal
    builds (one per province) or removals count, up to the number owed; builds left over
    are waived and removals left over are the first legal ones not chosen.
    """
    if position.phase.kind == ADJUSTMENTS:
        return _complete_adjustments(position, power, legal.get(None, ()), chosen)
    # A unit's orders all name its location, and no two units share one: the location of an
    # order finds the only unit it can be legal for (no need to hash every legal order).
    options_at: dict[int, Sequence[eo.Order]] = {}
    for unit, options in legal.items():
        assert unit is not None
        options_at[unit.location] = options
    ordered: dict[int, eo.Order] = {}  # location -> the order of the unit there
    discarded: list[eo.Order] = []
    for order in chosen:
        location = getattr(order, "location", None)  # None for a waive
        options = options_at.get(location)
        if options is None or location in ordered or not listed(order, options):
            discarded.append(order)
        else:
            ordered[location] = order
    out: list[eo.Order] = []
    for unit, options in legal.items():
        assert unit is not None
        order = ordered.get(unit.location)
        out.append(order if order is not None else next(o for o in options if isinstance(o, eo.Hold | eo.Disband)))
    return out, discarded


def _complete_adjustments(
    position: Position, power: str, options: Sequence[eo.Order], chosen: Sequence[eo.Order]
) -> tuple[list[eo.Order], list[eo.Order]]:
    owed = position.adjustments.get(power, 0)
    allowed = set(options)
    province_of = position.map.province_of
    out: list[eo.Order] = []
    discarded: list[eo.Order] = []
    used: set[int] = set()
    for order in chosen:
        if order not in allowed or len(out) == abs(owed):
            discarded.append(order)
            continue
        if isinstance(order, eo.Waive):
            if owed < 0:
                discarded.append(order)
            else:
                out.append(order)
            continue
        province = province_of[order.location]
        if province in used:
            discarded.append(order)
            continue
        used.add(province)
        out.append(order)
    if owed > 0:
        out.extend([eo.Waive()] * (owed - len(out)))
    else:
        spare = [o for o in options if isinstance(o, eo.Disband) and province_of[o.location] not in used]
        out.extend(spare[: -owed - len(out)])
    return out, discarded
