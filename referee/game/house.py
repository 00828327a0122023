"""The house: the server's own bots, in the seats given to them and standing in for absent players.

A game names its bots in its settings. ``bots`` gives powers to them from the start (a game
made to be played against bots); ``fill_with`` gives them the seats still empty ``fill_after``
seconds after the last person joined (a game that would wait for ever for its last
players); ``stand_in`` names the bot that plays a person's seat once
its player has been away ``stand_in_after`` seconds, until the player comes back (civil
disorder as webDiplomacy and diplicity handle it: the game goes on, and the seat is the
player's again the moment the player is). The game master runs no bot. It says which seats
the house should play now (:func:`wanted`), and the server, which runs the bots, seats each
on a connection of its own with :func:`seat`. That connection comes from the server's own
process, never from a client, so it needs no passcode and no token; the bot on it is told
what any player is told (``HLO``, ``SCO``, ``NOW``) and orders as any player does.

When a stand-in comes
    A person's seat (a power not given to a bot) is *due* once its player has been away
    ``stand_in_after`` seconds while the game is being played, the power not eliminated.
    A seat due is *wanted* while another person is connected: a game whose people have all
    gone waits for them, rather than being played out by bots alone (the stand-ins already
    in go on). Away means no connection: a player connected who does not order is the
    deadlines' business. After a restart every player is away from the moment the game
    came back, not from before.

What is kept
    A bot's seat is a player like any other: its ``join`` record names the bot's spec and
    :data:`HOUSE_VERSION`; a bot seated again in its seat (after a restart) is given a new
    session token, recorded as ``session`` (its digest); seats filled are recorded as ``fill`` (the powers and their bot),
    before their bots join. A stand-in is recorded as ``stand_in`` (the power, the bot, the
    phase) when it takes the seat, and ``returned`` (the power, the phase) when the player
    is back: the history says who played each phase, and a restart brings the stand-in back
    (:func:`wanted` asks for it again). Everyone is told both, by the server's ``ADM`` to
    every player and observer, and the game's view says who stands in (``SeatView.stand_in``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from protocol.daide.messages import SERVER_NAME, Adm, MapMessage, Off, session_adm
from referee.game.state import GameState
from referee.players import new_session_token, session_digest

if TYPE_CHECKING:
    from referee.game.master import GameMaster

__all__ = [
    "HOUSE_VERSION",
    "PLAYER_BACK",
    "bots_of",
    "due",
    "fill",
    "fill_due",
    "next_call",
    "returned",
    "seat",
    "tell_back",
    "wanted",
]

HOUSE_VERSION = "detente-house"
"""The ``NME`` version recorded for a bot the server plays in a seat given to it."""
PLAYER_BACK = "your player is back"
"""The ``ADM`` text a stand-in gets before its ``OFF`` when the seat's player returns."""
PLAYED_YOURS = "played your seat while you were away; the orders it gave this phase stand until you change them"
"""What the returning player is told (after the stand-in's name)."""


def bots_of(g: GameMaster) -> dict[str, str]:
    """The powers given to bots, each with its bot: by the settings, or filled (see :func:`fill`)."""
    return dict(g.settings.bots) | g.seats.filled


def people(g: GameMaster) -> list[str]:
    """The powers of the game's people: those not given to a bot."""
    bots = bots_of(g)
    return [p for p in g.roster.players if p not in bots]


def present(g: GameMaster, power: str) -> bool:
    """Whether ``power``'s own player is connected (not a stand-in)."""
    return power in g.roster.connection_of and power not in g.seats.stood_in


def wanted(g: GameMaster) -> list[tuple[str, str]]:
    """The seats the house should play now, each with its bot: the bots' seats not taken (or
    not connected, once the game has started), the stand-ins recorded but not connected
    (after a restart), and the people's seats wanted (see the module)."""
    bots, seats, connected = bots_of(g), g.seats, g.roster.connection_of
    if g.state is GameState.FORMING:
        return [(p, b) for p, b in sorted(bots.items()) if p not in g.roster.players]
    if g.state is not GameState.PLAYING:
        return []
    out = [(p, b) for p, b in sorted(bots.items()) if p not in connected and p not in g.eliminated]
    out += [(p, b) for p, b in sorted(seats.stood_in.items()) if p not in connected and p not in g.eliminated]
    if seats.wanted and g.settings.stand_in is not None:
        for power in sorted(seats.wanted):
            if any(present(g, other) for other in people(g) if other != power):
                out.append((power, g.settings.stand_in))
    return out


def _waiting(g: GameMaster) -> dict[str, float]:
    """The people's seats a stand-in may come to, and when (see the module)."""
    if g.settings.stand_in is None or g.state is not GameState.PLAYING:
        return {}
    seats, after = g.seats, g.settings.stand_in_after
    return {
        p: seats.absent_since[p] + after
        for p in people(g)
        if p in seats.absent_since and p not in seats.stood_in and p not in seats.wanted and p not in g.eliminated
        and p not in g.roster.connection_of
    }  # fmt: skip


def next_call(g: GameMaster) -> float | None:
    """When a person's seat falls due next (None: none will unless someone leaves)."""
    return min(_waiting(g).values(), default=None)


def due(g: GameMaster, now: float) -> None:
    """The people's seats whose players have been away long enough are wanted from now on."""
    for power, when in _waiting(g).items():
        if when <= now:
            g.seats.wanted.add(power)


def _empty(g: GameMaster) -> list[str]:
    """The seats no player holds, kept for nobody and given to no bot."""
    kept, bots = dict(g.settings.reserved), bots_of(g)
    return [p for p in g.powers if p not in g.roster.players and p not in kept and p not in bots]


def fill_due(g: GameMaster) -> float | None:
    """When a forming game's empty seats get bots: ``fill_after`` seconds after its last join,
    once a person has joined (None: not, or never)."""
    if g.settings.fill_with is None or g.state is not GameState.FORMING or g.seats.last_join is None:
        return None
    if not people(g) or not _empty(g):
        return None
    return g.seats.last_join + g.settings.fill_after


def fill(g: GameMaster, now: float) -> None:
    """Give the empty seats to ``fill_with`` if it is time (recorded ``fill``); the people are told."""
    when, bot = fill_due(g), g.settings.fill_with
    if when is None or when > now or bot is None:
        return
    given = dict.fromkeys(_empty(g), bot)
    g.out.record("fill", now, bots=given)
    g.seats.filled.update(given)
    g.broadcast(Adm(SERVER_NAME, f"{len(given)} empty seats are played by {bot}: the game starts"))


def seat(g: GameMaster, conn: str, power: str, bot: str, now: float) -> bool:
    """The house's connection ``conn`` plays ``power`` with ``bot``, if :func:`wanted` asks for
    that; whether it does (else ``conn`` is closed)."""
    if (power, bot) not in wanted(g):
        g.close(conn)
        return False
    g.seats.connect(conn, None)
    player = g.roster.players.get(power)
    if player is None:  # a bot's seat in a forming game: it joins as NME would
        player, token = g.seats.new_player(power, bot, HOUSE_VERSION)
        g.out.record(
            "join", now, power=power, name=bot, version=HOUSE_VERSION, passcode=player.passcode, session=player.session
        )
        g.out.to(conn, MapMessage(g.map.name))
        g.out.to(conn, session_adm(token))  # a negotiating bot opens the negotiation with it
        g.join(conn, player, now)
        return True
    if power not in bots_of(g) and power not in g.seats.stood_in:
        g.out.record("stand_in", now, power=power, bot=bot, phase=str(g.position.phase))
        g.seats.stand_ins.began(power, bot, str(g.position.phase))
        name = g.map.power_names[power].title()
        g.broadcast(Adm(SERVER_NAME, f"{name} is played by {bot} until its player returns"))
    elif power in bots_of(g):
        # a bot's seat played again (after a restart): its new bot gets a new session token, the
        # one way into the negotiation server (only digests are kept, so the old one is lost)
        token = new_session_token()
        player = replace(player, session=session_digest(token))
        g.out.record("session", now, power=power, session=player.session)
        g.out.to(conn, session_adm(token))
    g.seats.wanted.discard(power)
    g.seats.roster.seat(conn, player)
    g.greet(conn, power)
    return True


def returned(g: GameMaster, power: str, now: float) -> str | None:
    """``power``'s player is back: its stand-in, if any, is told, closed and recorded gone; the
    stand-in's bot (tell the player with :func:`tell_back`), or None."""
    if power not in g.seats.stood_in:
        return None
    conn = g.roster.connection_of.get(power)
    if conn is not None:
        g.out.to(conn, Adm(SERVER_NAME, PLAYER_BACK))
        g.out.to(conn, Off())
        g.close(conn)
        g.seats.roster.leave(conn)  # not a disconnection: the seat is its player's again
        g.clock.alarms.pop(conn, None)
    bot = g.seats.stand_ins.ended(power, str(g.position.phase))
    g.out.record("returned", now, power=power, phase=str(g.position.phase))
    name = g.map.power_names[power].title()
    g.broadcast(Adm(SERVER_NAME, f"the player of {name} is back; {bot} no longer plays it"))
    return bot


def tell_back(g: GameMaster, conn: str, bot: str | None) -> None:
    """Tell the player back on ``conn`` that ``bot`` stood in (nothing if none did)."""
    if bot is not None:
        g.out.to(conn, Adm(SERVER_NAME, f"{bot} {PLAYED_YOURS}"))
