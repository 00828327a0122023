"""What the bots' tests share: a board's centres, and a game over the network with a person's
side of a deal played in it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import engine.orders as eo
from engine import Position, format_order
from protocol.daide.messages import Ord, Sub, Turn
from protocol.daide.orders import order_from_engine, order_to_engine
from protocol.daide.parser import parse as parse_daide
from protocol.l import ast as a
from protocol.l import parse
from tests.server.nego_helpers import NegoClient, Pair
from tests.server.ws_helpers import TOKEN, DaideClient, http

#: Who owns which centre on the hand-built boards: every home centre, and the neutrals shared out.
CENTRES = {
    "FRA": ["PAR", "MAR", "BRE", "SPA", "POR"],
    "GER": ["MUN", "BER", "KIE", "HOL", "BEL", "DEN"],
    "ITA": ["ROM", "NAP", "VEN", "TUN"],
    "AUS": ["VIE", "BUD", "TRI", "SER"],
    "ENG": ["LON", "EDI", "LVP", "NWY"],
    "RUS": ["MOS", "WAR", "SEV", "STP", "SWE", "RUM"],
    "TUR": ["ANK", "CON", "SMY", "BUL", "GRE"],
}


async def create_game(pair: Pair, name: str, seats: Mapping[str, str]) -> str:
    """A new 1901-only game without deadlines on ``pair``'s game server, ``seats`` (power ->
    the name that may join as it) reserved; its id."""
    body = {"name": name, "deadlines": None, "year_limit": 1901, "reserved": dict(seats)}
    status, created = await http("POST", f"{pair.game.http}/api/games", body, token=TOKEN)
    assert status == 201, created
    return str(created["id"])


async def join_talks(pair: Pair, game: str, person: DaideClient, power: str) -> NegoClient:
    """``person`` (seated, playing ``power``: ``"AUS"``) says hello to the game, waits for the
    phase to open, and opens its negotiation link (welcomed)."""
    await person.hello()
    assert person.session is not None
    await person.expect("NOW")
    nego = await NegoClient.open(pair, game, power, person.session)
    await nego.expect("welcome")
    return nego


async def cancel(players: Iterable[asyncio.Task[Any]]) -> None:
    """Stops the players' tasks and waits until each has ended (how they ended is no matter here)."""
    tasks = list(players)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def proposal(frame: dict[str, object]) -> a.Propose | None:
    """The proposal a ``message`` frame carries, if it carries one."""
    if frame.get("type") != "message":
        return None
    message = parse(str(frame["text"]))
    return message if isinstance(message, a.Propose) else None


async def play_part(
    person: DaideClient, power: str, promised: Mapping[str, Sequence[eo.Order]], start: Position
) -> None:
    """``power`` (``person``'s seat) submits its part of the deals (``promised``, as
    :func:`referee.binding.binding_orders` gives it) and holds its other units."""
    mine = {o.location: o for o in promised.get(power, [])}
    orders = [mine.get(u.location, eo.Hold(u.type, u.location)) for u in start.units_of(power)]
    sub = Sub(tuple(order_from_engine(power, o, start) for o in orders), Turn.of(start.phase))
    await person.send(str(sub))


async def expect_kept(
    person: DaideClient,
    nego: NegoClient,
    promised: Mapping[str, Sequence[eo.Order]],
    promiser: str,
    deal: str,
    start: Position,
) -> None:
    """Every order ``promiser`` promised in ``deal`` is among those adjudicated (as ``person``
    hears them), and the compliance check ``nego`` hears calls the promiser's part kept."""
    results = [parse_daide(t) for t in await person.until("NOW") if t.startswith("ORD")]
    played = {order_to_engine(r.order, start.map) for r in results if isinstance(r, Ord) and r.order}
    for order in promised[promiser]:
        assert (promiser, order) in played, f"{format_order(start.map, order)} of {deal} was not played"
    compliance = await nego.expect("compliance", phase=str(start.phase), deal=deal)
    reports = [r for r in compliance["reports"] if start.map.power(r["power"]) == promiser]
    assert reports and all(r["kept"] for r in reports), compliance
