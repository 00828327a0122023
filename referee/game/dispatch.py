"""Every message a client may send a game, in one table: who may send it, when, and what handles it.

A message's kind is its type, and for ``NOT``, ``YES`` and ``REJ`` the type of what they
carry (``NOT (SUB ...)`` is ``"NOT SUB"``). :data:`RULES` maps each kind to a
:class:`Rule`: the roles that may send it, the game's states in which it is taken, a test
of its form (a request, not a server's statement), and its handler. Anything else, or a
message sent by the wrong role, in the wrong state or in the wrong form, is answered
``REJ`` and changes nothing.

>>> RULES["SUB"].roles, sorted(RULES["SUB"].states)
(frozenset({<Role.PLAYER: 'player'>}), [<GameState.PLAYING: 'playing'>])
>>> from protocol.daide.parser import parse
>>> kind_of(parse("NOT (GOF)")), kind_of(parse("YES (MAP ('standard'))"))
('NOT GOF', 'YES MAP')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocol.daide.messages import MapMessage, Not, Rej, Value, Yes
from referee.game import asking, commands, joining
from referee.game.state import GameState
from referee.players import Role

if TYPE_CHECKING:
    from referee.game.master import GameMaster

__all__ = ["RULES", "Rule", "dispatch", "kind_of"]

ALWAYS = frozenset(GameState)
ANYONE = frozenset(Role)
JOINED = frozenset({Role.OBSERVER, Role.PLAYER})
NEWCOMER = frozenset({Role.NEW})
PLAYER = frozenset({Role.PLAYER})
PLAYING = frozenset({GameState.PLAYING})


@dataclass(frozen=True, slots=True)
class Rule:
    """Who may send a kind of message and when; ``handler(game, conn, message, now)``, or with
    ``for_power`` ``handler(game, conn, power, message, now)``."""

    handler: Callable[..., None]
    roles: frozenset[Role] = ANYONE
    states: frozenset[GameState] = ALWAYS
    form: Callable[[Any], bool] | None = None
    """The message's form must pass this (a client asks ``NOW``; the server states ``NOW (turn) ...``)."""
    for_power: bool = False
    advances: bool = False
    """Taken, it may complete the phase's orders: the game then sees whether to adjudicate."""


def _bare_turn(msg: Any) -> bool:
    return msg.turn is None


RULES: Mapping[str, Rule] = {
    # joining, watching, coming back, talking to everyone
    "NME": Rule(joining.nme, NEWCOMER),
    "OBS": Rule(joining.obs, NEWCOMER),
    "IAM": Rule(joining.iam, NEWCOMER),
    "ADM": Rule(joining.adm, JOINED),
    "OFF": Rule(joining.off),
    "MAP": Rule(joining.map_request),
    "MDF": Rule(joining.mdf),
    "YES MAP": Rule(joining.map_answered),
    "REJ MAP": Rule(joining.map_answered),
    # asking
    "SCO": Rule(asking.sco, form=lambda m: not m.ownership),
    "NOW": Rule(asking.now_request, form=_bare_turn),
    "HST": Rule(asking.hst),
    "ORD": Rule(asking.ord_request, form=_bare_turn),
    "SMR": Rule(asking.smr, form=_bare_turn),
    "TME": Rule(asking.tme),
    "NOT TME": Rule(asking.not_tme),
    # playing
    "SUB": Rule(commands.sub, PLAYER, PLAYING, for_power=True, advances=True),
    "NOT SUB": Rule(commands.not_sub, PLAYER, PLAYING, for_power=True),
    "MIS": Rule(commands.mis, PLAYER, PLAYING, form=lambda m: not m.units and m.count is None, for_power=True),
    "GOF": Rule(commands.gof, PLAYER, PLAYING, for_power=True, advances=True),
    "NOT GOF": Rule(commands.gof, PLAYER, PLAYING, for_power=True, advances=True),
    "DRW": Rule(commands.drw, PLAYER, PLAYING, for_power=True),
    "NOT DRW": Rule(commands.drw, PLAYER, PLAYING, for_power=True),
    "HLO": Rule(commands.hlo, PLAYER, frozenset({GameState.PLAYING, GameState.OVER}), for_power=True),
    "SND": Rule(commands.snd, PLAYER, for_power=True),  # it checks the press level before the state
}

_WRAPPERS = (Not, Yes, Rej)
_NAMES: dict[type, str] = {MapMessage: "MAP"}  # the others are named as their class


def kind_of(msg: Value) -> str:
    """The key of ``msg`` in :data:`RULES`."""
    name = _NAMES.get(type(msg))
    if name is None:
        name = _NAMES[type(msg)] = type(msg).__name__.upper()
    if isinstance(msg, _WRAPPERS):
        return f"{name} {kind_of(msg.content) if isinstance(msg.content, Value) else ''}".rstrip()
    return name


def dispatch(g: GameMaster, conn: str, msg: Value, now: float) -> bool:
    """Hand ``msg`` from ``conn`` to its handler, or answer ``REJ``; whether the phase's orders
    may be complete now (the game sees whether to adjudicate)."""
    rule = RULES.get(kind_of(msg))
    client = g.seats.roster.clients[conn]
    if (
        rule is None
        or client.role not in rule.roles
        or g.state not in rule.states
        or (rule.form is not None and not rule.form(msg))
    ):
        g.out.to(conn, Rej(msg))
        return False
    if rule.for_power:
        rule.handler(g, conn, client.power, msg, now)
    else:
        rule.handler(g, conn, msg, now)
    return rule.advances
