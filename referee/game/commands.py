"""What only a player may say: its orders (``SUB``, ``NOT (SUB)``, ``MIS``, ``GOF``), its
vote for a draw (``DRW``), its press (``SND``) and its greeting again (``HLO``).

:mod:`referee.game.dispatch` calls these only for a connection that plays a power, and
only in the states its table allows; each handler checks what the table cannot (the
turn named, a power out of the game). Whether the phase is then over is the game's to see
(``Rule.advances``): a handler never calls back into it for that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.position import PHASE_KINDS
from protocol.daide.messages import Ccd, Drw, Frm, Gof, Hlo, Huh, Mis, Not, Out, Rej, Snd, Sub, Thx, Value, Yes, tokens
from protocol.daide.parser import press_level
from referee.effects import Send
from referee.game.state import GameState
from referee.notices import PressNotice

if TYPE_CHECKING:
    from referee.game.master import GameMaster

def sub(g: GameMaster, conn: str, power: str, msg: Sub, now: float) -> None:
    if power in g.board.eliminated or (msg.turn is not None and msg.turn != g.board.turn()):
        g.out.to(conn, Rej(msg))
        return
    accepted = []
    effects = g.out.effects
    position, book = g.board.position, g.book
    for order in msg.orders:
        note, text = book.store(position, power, order)
        effects.append(Send(conn, Thx(order, note)))
        if text is not None:
            accepted.append(text)
    if accepted:
        g.out.record("orders", now, power=power, orders=accepted)
    if not book.complete(position, power):
        g.out.to(conn, book.missing(position, power))


def not_sub(g: GameMaster, conn: str, power: str, msg: Not, now: float) -> None:
    content = msg.content
    assert isinstance(content, Sub)
    order = content.orders[0] if content.orders else None
    if len(content.orders) > 1 or not g.book.cancel(power, order):
        g.out.to(conn, Rej(msg))
        return
    g.out.record("cancel", now, power=power, order=None if order is None else str(order))
    g.out.to(conn, Yes(msg))


def mis(g: GameMaster, conn: str, power: str, msg: Mis, now: float) -> None:
    g.out.to(conn, g.book.missing(g.board.position, power))


def gof(g: GameMaster, conn: str, power: str, msg: Value, now: float) -> None:
    """``GOF`` (go on) and ``NOT (GOF)`` (hold the phase)."""
    go = isinstance(msg, Gof)
    if power in g.board.eliminated:
        g.out.to(conn, Rej(msg))
        return
    g.out.record("gof", now, power=power, go=go)
    (g.book.holding.discard if go else g.book.holding.add)(power)
    g.out.to(conn, Yes(msg))
    position = g.board.position
    if go and power in g.book.owed(position) and not g.book.complete(position, power):
        g.out.to(conn, g.book.missing(position, power))


def drw(g: GameMaster, conn: str, power: str, msg: Value, now: float) -> None:
    """``DRW`` (a vote for a draw of every survivor) and ``NOT (DRW)``; partial draws are not offered."""
    wants = isinstance(msg, Drw)
    vote = msg if wants else getattr(msg, "content", None)
    if power in g.board.eliminated or not isinstance(vote, Drw) or vote.powers:
        g.out.to(conn, Rej(msg))
        return
    g.out.record("draw", now, power=power, wants=wants)
    (g.book.draw_votes.add if wants else g.book.draw_votes.discard)(power)
    g.out.to(conn, Yes(msg))
    if set(g.board.surviving()) <= g.book.draw_votes:
        g.out.record("draw_declared", now)
        g.end(Drw())


def hlo(g: GameMaster, conn: str, power: str, msg: Hlo, now: float) -> None:
    if msg.power is not None:
        g.out.to(conn, Rej(msg))
        return
    player = g.seats.roster.players[power]
    g.out.to(conn, Hlo(power, player.passcode, g.settings.variant()))


def snd(g: GameMaster, conn: str, power: str, msg: Snd, now: float) -> None:
    level = press_level(msg)
    if level > g.settings.press_level:
        # press above the game's level is a syntax error at this level: ERR before the press
        echo = tokens(msg)
        at = len(echo) - len(tokens(msg.press)) - 1
        g.out.to(conn, Huh(tuple(echo[:at]) + ("ERR",) + tuple(echo[at:])))
        return
    sender = power
    recipients = msg.recipients
    board = g.board
    if (
        g.state is not GameState.PLAYING
        or power in board.eliminated
        or len(recipients) > len(g.powers)
        or len(set(recipients)) != len(recipients)  # each recipient once: one FRM each
        or sender in recipients
        or PHASE_KINDS[board.position.phase.kind] not in g.settings.press_phases
        or (msg.turn is not None and msg.turn != board.turn())
    ):
        g.out.to(conn, Rej(msg))
        return
    targets = []
    for recipient in recipients:
        if recipient not in g.map.powers:
            g.out.to(conn, Rej(msg))
            return
        if recipient in board.eliminated:
            g.out.to(conn, Out(recipient, msg))
            return
        target = g.seats.roster.connection_of.get(recipient)
        if target is None:
            g.out.to(conn, Ccd(recipient, send=msg))
            return
        targets.append(target)
    g.out.record("press", now, sender=sender, recipients=list(recipients), press=str(msg))
    g.out.to(conn, Yes(msg))
    delivered = Frm(sender, recipients, msg.press)
    for target in targets:
        g.out.to(target, delivered)
    g.out.notify(PressNotice(g.game_id, str(board.position.phase), sender, tuple(recipients), str(msg.press)))
