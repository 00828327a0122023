"""What anyone in a game may ask: the board (``SCO``, ``NOW``, ``HST``, ``ORD``), the
summary (``SMR``), and the time (``TME`` and its alarms)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import Position
from protocol.daide.messages import Hst, Not, Ord, Rej, Smr, Tme, Value, Yes
from referee.deadlines import remaining_seconds
from referee.game.state import GameState

if TYPE_CHECKING:
    from referee.game.master import GameMaster


def sco(g: GameMaster, conn: str, msg: Value, now: float) -> None:
    g.out.to(conn, g.board.sco())


def now_request(g: GameMaster, conn: str, msg: Value, now: float) -> None:
    g.out.to(conn, g.board.now())


def hst(g: GameMaster, conn: str, msg: Hst, now: float) -> None:
    if msg.turn is None:
        start = Position.initial(g.map)
        g.out.to(conn, g.board.sco(start))
        g.out.to(conn, g.board.now(start))
        return
    turned = g.board.turned(msg.turn)
    if turned is None:
        g.out.to(conn, Rej(msg))
        return
    for result in turned.results:
        g.out.to(conn, result)
    g.out.to(conn, turned.sco)
    g.out.to(conn, turned.now)


def ord_request(g: GameMaster, conn: str, msg: Value, now: float) -> None:
    results = g.board.last_movement_results()
    if results is None:
        g.out.to(conn, Rej(Ord()))
        return
    for result in results:
        g.out.to(conn, result)


def smr(g: GameMaster, conn: str, msg: Value, now: float) -> None:
    if g.state is not GameState.OVER or g.result is None:
        g.out.to(conn, Rej(Smr()))
        return
    g.out.to(conn, g.result)
    g.out.to(conn, g.board.smr(g.seats.roster.players))


def _alarm_holder(g: GameMaster, conn: str) -> str:
    """Whose alarms a connection sets: its power's if it plays one (recorded), else its own."""
    return g.seats.roster.power_of(conn) or conn


def tme(g: GameMaster, conn: str, msg: Tme, now: float) -> None:
    """``TME``: the seconds left; ``TME (seconds)``: ring when only that many are left."""
    if msg.seconds is not None:
        if g.settings.deadlines.longest is None or msg.seconds <= 0:
            g.out.to(conn, Rej(msg))
            return
        holder = _alarm_holder(g, conn)
        if holder in g.seats.roster.players:
            g.out.record("alarm", now, power=holder, seconds=msg.seconds, on=True)
        g.clock.alarm_on(holder, msg.seconds)
        g.out.to(conn, Yes(msg))
    elif g.state is not GameState.PLAYING or g.clock.deadline is None:
        g.out.to(conn, Rej(Tme()))
    else:
        g.out.to(conn, Tme(remaining_seconds(now, g.clock.deadline)))


def not_tme(g: GameMaster, conn: str, msg: Not, now: float) -> None:
    """``NOT (TME (seconds))`` cancels that alarm; ``NOT (TME)`` every alarm of the connection."""
    seconds = msg.content.seconds  # type: ignore[union-attr]  # the table sends only NOT (TME)
    holder = _alarm_holder(g, conn)
    if not g.clock.has_alarm(holder, seconds):
        g.out.to(conn, Rej(msg))
        return
    if holder in g.seats.roster.players:
        g.out.record("alarm", now, power=holder, seconds=seconds, on=False)
    g.clock.alarm_off(holder, seconds)
    g.out.to(conn, Yes(msg))
