"""Joining a game, watching it, coming back to it, and talking to all of it (``ADM``).

The handlers of ``NME``, ``OBS``, ``IAM``, ``ADM``, ``OFF`` and the map's exchange, as
:mod:`referee.game.dispatch` calls them: each reads the game, changes its seats and writes
to its one collector.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.daide.messages import (
    SERVER_NAME,
    Adm,
    Ccd,
    Iam,
    MapMessage,
    Nme,
    Not,
    Obs,
    Off,
    Rej,
    Value,
    Yes,
    session_adm,
)
from protocol.daide.orders import map_definition
from referee.game import house
from referee.game.seats import Verdict
from referee.game.state import GameState
from referee.players import Client, Player, Role
from referee.settings import keeps

if TYPE_CHECKING:
    from referee.game.master import GameMaster

__all__ = ["TAKEN_OVER"]

TAKEN_OVER = "another connection took this seat with its session token"
"""The ``ADM`` text an older connection gets before its ``OFF`` when its seat is taken over."""


def kept_for(g: GameMaster, name: str) -> list[str]:
    """The powers not yet taken that are reserved for a player joining as ``name``."""
    return [p for p, r in g.settings.reserved if keeps(r, name) and p not in g.seats.roster.players]


def nme(g: GameMaster, conn: str, msg: Nme, now: float) -> None:
    roster = g.seats.roster
    reserved = dict(g.settings.reserved)
    kept = kept_for(g, msg.name)
    bots = house.bots_of(g)
    free = kept or [p for p in g.powers if p not in roster.players and p not in reserved and p not in bots]
    if g.state is not GameState.FORMING or not free:
        g.out.to(conn, Rej(msg))
        return
    power = free[0] if kept else g.rng.choice(free)
    player, token = g.seats.new_player(power, msg.name, msg.version)
    network = g.seats.network_of_conn(conn)
    extra = {} if network is None else {"network": network}
    g.out.record(
        "join", now, power=power, name=msg.name, version=msg.version, passcode=player.passcode, session=player.session,
        **extra,
    )  # fmt: skip
    g.out.to(conn, Yes(msg))
    g.out.to(conn, MapMessage(g.map.name))
    g.out.to(conn, session_adm(token))
    g.join(conn, player, now, network)


def obs(g: GameMaster, conn: str, msg: Obs, now: float) -> None:
    g.seats.roster.clients[conn] = Client(conn, Role.OBSERVER)
    g.out.to(conn, Yes(msg))
    g.out.to(conn, MapMessage(g.map.name))


def iam(g: GameMaster, conn: str, msg: Iam, now: float) -> None:
    """``IAM``: a player back on a new connection. Refused, it closes the connection; a passcode
    is checked as :mod:`referee.game.seats` says, and never takes a seat whose player is
    connected; a session token takes it from anywhere, even from a connected player."""
    power = msg.power if msg.power in g.map.powers else None
    if msg.session is not None:
        _iam_session(g, conn, power, msg, now)
        return
    if power is None or g.state is GameState.FORMING:
        _refuse(g, conn, msg)
        return
    if not guessed(g, power, msg.passcode, g.seats.address_of.get(conn), now):
        _refuse(g, conn, msg)
        return
    stood_in = _rejoin(g, conn, g.seats.roster.players[power], now)
    g.out.to(conn, Yes(msg))
    house.tell_back(g, conn, stood_in)
    if g.state is GameState.PLAYING:
        g.broadcast(Not(Ccd(msg.power)), exclude=conn)


def _iam_session(g: GameMaster, conn: str, power: str | None, msg: Iam, now: float) -> None:
    """The session token: the seat, whether its player is connected or not (the older connection
    is told and closed). A wrong token is refused but not counted against the seat, which an
    attacker could otherwise lock against its own player."""
    assert msg.session is not None
    player = g.seats.session_player(power, msg.session) if power is not None else None
    if power is None or player is None:
        _refuse(g, conn, msg)
        return
    stood_in = house.returned(g, power, now)  # a stand-in leaves the seat to its player: not "taken over"
    older = g.seats.roster.connection_of.get(power)
    if older is not None:
        g.out.to(older, Adm(SERVER_NAME, TAKEN_OVER))
        g.out.to(older, Off())
        g.close(older)
        g.seats.roster.leave(older)  # not a disconnection: the seat stays taken
        g.clock.alarms.pop(older, None)
    _rejoin(g, conn, player, now)
    g.out.to(conn, Yes(msg))
    house.tell_back(g, conn, stood_in)
    if g.state is GameState.PLAYING and older is None:
        g.broadcast(Not(Ccd(msg.power)), exclude=conn)


def guessed(g: GameMaster, power: str, passcode: int, address: str | None, now: float) -> bool:
    """Whether ``passcode`` takes ``power``'s seat from ``address``; a wrong one is charged to
    the seat's budget and recorded (``guess``: a restart keeps the count)."""
    verdict, key = g.seats.verdict(power, passcode, address, now)
    if verdict is Verdict.WRONG:
        g.seats.charge(key, now)
        g.out.record("guess", now, key=key)
    return verdict is Verdict.TAKE


def _rejoin(g: GameMaster, conn: str, player: Player, now: float) -> str | None:
    """``conn`` plays ``player`` again; a new network for the seat is recorded (see seats). The
    bot that stood in for the player, if one did."""
    stood_in = house.returned(g, player.power, now)
    network = g.seats.network_of_conn(conn)
    if network is not None and g.seats.network.get(player.power) != network:
        g.out.record("rejoin", now, power=player.power, network=network)
    g.seats.seat(conn, player, network)
    return stood_in


def _refuse(g: GameMaster, conn: str, msg: Iam) -> None:
    g.out.to(conn, Rej(msg))
    g.close(conn)


def adm(g: GameMaster, conn: str, msg: Adm, now: float) -> None:
    """``ADM``: stored and sent to every player and observer, from one that joined, short, not too often."""
    if (
        msg.name == SERVER_NAME  # the server's own name: a client may not speak as the server
        or len(msg.name) > g.ADM_MAX_NAME
        or len(msg.text) > g.ADM_MAX_TEXT
        or not g.seats.take_adm(conn, now, g.ADM_PER_MINUTE / 60.0, g.ADM_BURST)
    ):
        g.out.to(conn, Rej(msg))
        return
    g.out.record("admin", now, conn=conn, name=msg.name, text=msg.text)
    g.broadcast(msg)


def off(g: GameMaster, conn: str, msg: Off, now: float) -> None:
    g.out.close(conn)
    g.leave(conn, now)


def map_request(g: GameMaster, conn: str, msg: MapMessage, now: float) -> None:
    # a request for another copy; a client never names a map
    g.out.to(conn, MapMessage(g.map.name) if msg.name is None else Rej(msg))


def mdf(g: GameMaster, conn: str, msg: Value, now: float) -> None:
    g.out.to(conn, map_definition(g.map))


def map_answered(g: GameMaster, conn: str, msg: Value, now: float) -> None:
    """A client answered ``MAP`` (``YES`` or ``REJ``): it has its map, so it may be greeted."""
    g.seats.maps.add(conn)
    g.start_if_maps(now)
