"""Orders changed during the phase over the network: real game and negotiation servers on
loopback, and a scripted person.

Over the network the client sends a bot's orders as the phase opens and the negotiation goes
on after them. A deal made later that binds the bot to another order must still be played:
after each negotiation frame the link asks the bot whether it revises its orders
(:meth:`bots.base.Bot.revised_orders`) and the client sends a replacing ``SUB``, once, and
only when they changed. A person proposes to a bot a deal that needs another order than the
one it gave; the bot accepts, the notary confirms, and the order adjudicated is the promised
one, which the compliance check calls kept.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import engine.orders as eo
from bots.base import Bot, HoldBot, LegalOrders, Outgoing
from bots.nego_client import NegoLink
from bots.registry import make_bot
from bots.session import BotSession
from bots.ws_client import WsClient
from engine import Position, format_order
from protocol.daide.messages import Sub, Value
from protocol.daide.orders import order_to_engine
from protocol.daide.parser import parse as parse_daide
from protocol.l import ast as a
from protocol.l import parse, to_text
from referee.binding import binding_orders
from tests.bots.helpers import cancel, create_game, expect_kept, join_talks, play_part, proposal
from tests.server.nego_helpers import running_pair
from tests.server.ws_helpers import DaideClient

START = Position.initial()
PERSON = "AUS"
PROMISER = "RUS"
#: Russia's army in Warsaw supports Austria's army from Vienna into Galicia; Austria makes the move.
DEAL = (
    "[Commit(rus, [aus], Do(sup(Unit(rus, Region(war, amy)), mto(Unit(aus, Region(vie, amy)), Region(gal, amy)))))"
    " Commit(aus, [rus], Do(mto(Unit(aus, Region(vie, amy)), Region(gal, amy))))]"
)


class Promiser(HoldBot):
    """Holds, accepts every proposal, and plays its part of every deal it accepted."""

    name = "promiser"
    negotiates = True

    def __init__(self) -> None:
        super().__init__()
        self.promised: dict[int, eo.Order] = {}  # location -> the order promised there

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        return [*self.promised.values(), *super().orders(position, legal)]  # the first order of a unit counts

    def revised_orders(self, position: Position, legal: LegalOrders) -> list[eo.Order] | None:
        return self.orders(position, legal)

    def on_phase(self, position: Position) -> Outgoing:
        self.promised = {}
        return ()

    def on_message(self, sender: str, message: a.Message, position: Position) -> Outgoing:
        if not isinstance(message, a.Propose):
            return ()
        for order in binding_orders([message.deal], position).get(self.power, []):
            self.promised[order.location] = order
        return (a.Accept(self.power, frozenset({message.sender}), message.deal),)


class CountingSession(BotSession):
    """A session that keeps its first ``SUB`` (and says when it is made), and notes every replacing one."""

    def __init__(self, bot: Bot) -> None:
        super().__init__(bot)
        self.submitted = asyncio.Event()
        self.first: list[Value] = []
        self.replacements: list[Value] = []

    def submit(self) -> list[Value]:
        out = super().submit()
        self.first = self.first or out
        self.submitted.set()
        return out

    def resubmit(self) -> list[Value]:
        out = super().resubmit()
        self.replacements += out
        return out


# --- the session, without a server ------------------------------------------------------------------


class Builder(HoldBot):
    """Waives its builds, then (revised) builds an army in Edinburgh."""

    def revised_orders(self, position: Position, legal: LegalOrders) -> list[eo.Order] | None:
        return [o for o in legal.get(None, ()) if format_order(position.map, o) == "A EDI B"]


def winter(bot: Bot) -> BotSession:
    """A session of England owing two builds."""
    session = BotSession(bot)
    for text in ("HLO (ENG) (1) ((LVL 0))", "SCO (ENG EDI LON LVP NWY)", "NOW (WIN 1901) (ENG FLT LON)"):
        session.receive(parse_daide(text))
    return session


def test_a_bot_that_does_not_revise_never_resubmits() -> None:
    session = winter(HoldBot())
    assert [str(m) for m in session.submit()] == ["SUB (WIN 1901) (ENG WVE) (ENG WVE)"]
    assert session.resubmit() == []


def test_builds_are_cleared_before_they_are_replaced_also_after_a_rejoin() -> None:
    """The game server counts builds (it does not replace one): ``NOT (SUB)`` goes first."""
    session = winter(Builder())
    session.submit()
    replaced = [str(m) for m in session.resubmit()]
    assert replaced == ["NOT (SUB)", "SUB (WIN 1901) ((ENG AMY EDI) BLD) (ENG WVE)"]
    assert session.resubmit() == []  # no change since
    session.rejoin()
    assert [str(m) for m in session.receive(parse_daide("NOW (WIN 1901) (ENG FLT LON)"))] == replaced


def test_the_session_counts_the_orders_the_server_has_not_answered() -> None:
    session = winter(Builder())
    session.submit()
    session.resubmit()
    assert session.unacknowledged == 4 and not session.acknowledged
    for text in ("THX (ENG WVE) (MBV)", "THX (ENG WVE) (MBV)", "THX ((ENG AMY EDI) BLD) (MBV)"):
        session.receive(parse_daide(text))
    assert not session.acknowledged
    session.receive(parse_daide("THX (ENG WVE) (MBV)"))
    assert session.acknowledged


def negotiating(bot: Bot, ws: str, nego: str, game: str) -> tuple[CountingSession, NegoLink, asyncio.Task[BotSession]]:
    """``bot`` playing ``game`` and negotiating, wired as ``detente play`` and ``detente bot`` wire it."""
    session = CountingSession(bot)
    client = WsClient(session, ws, game)
    link = NegoLink(session, nego)
    client.before_orders = link.before_orders
    return session, link, asyncio.create_task(client.run())


async def test_a_deal_made_after_the_orders_went_in_replaces_them_and_is_kept(tmp_path: Path) -> None:
    async with running_pair(tmp_path) as pair, asyncio.timeout(30):
        game = await create_game(pair, "resub", {PERSON: "person", PROMISER: "promiser"})
        person = await DaideClient.open(f"{pair.game.ws}?game={game}")
        await person.join("person")
        session, link, player = negotiating(Promiser(), pair.game.ws, pair.nego, game)
        players = [player]
        players += [asyncio.create_task(WsClient(BotSession(HoldBot()), pair.game.ws, game).run()) for _ in range(5)]
        try:
            nego = await join_talks(pair, game, person, "AUS")
            assert person.power == "AUS"
            # the promiser's orders (holds) went in as the phase opened: it said on_phase, and
            # the negotiation's ``phase`` frame reached it after them
            await session.submitted.wait()
            assert not session.replacements

            proposal = parse(f"propose(aus, [rus], {DEAL})")
            assert isinstance(proposal, a.Propose)
            deal = to_text(proposal.deal)
            sent = await nego.say(f"propose(aus, [rus], {DEAL})")
            assert sent["type"] == "ack", sent
            confirmed = await nego.expect("confirmed", deal=deal)
            assert confirmed["phase"] == "S1901M"

            # Austria plays its part and holds the rest; every order is then in
            promised = binding_orders([proposal.deal], START)
            await play_part(person, PERSON, promised, START)
            await expect_kept(person, nego, promised, PROMISER, deal, START)
            # one replacement, though the bot was asked after every frame (the proposal, the
            # confirmation, ...): only a change is sent
            assert len(session.replacements) == 1 and isinstance(session.replacements[0], Sub)
            await nego.close()
        finally:
            await cancel(players)
            await link.close()


async def test_hana_proposes_a_deal_against_the_orders_it_gave_and_plays_its_part(tmp_path: Path) -> None:
    """Russia's HANA (seed 2) first proposes to Austria; once Austria has said no, its next
    round asks Turkey to support its fleet into the Black Sea instead of Rumania, where it had
    ordered it. Turkey accepts: the orders adjudicated are the deal's."""
    async with running_pair(tmp_path) as pair, asyncio.timeout(30):
        game = await create_game(pair, "resub", {"AUS": "austria", "TUR": "turkey", "RUS": "hana"})
        people = {}
        for power, name in (("AUS", "austria"), ("TUR", "turkey")):
            people[power] = await DaideClient.open(f"{pair.game.ws}?game={game}")
            await people[power].join(name)
        session, link, player = negotiating(make_bot("hana", 2), pair.game.ws, pair.nego, game)
        players = [player]
        players += [
            asyncio.create_task(WsClient(BotSession(make_bot("dumbbot", 10 + i)), pair.game.ws, game).run())
            for i in range(4)
        ]
        try:
            negos = {}
            for power, person in people.items():
                negos[power] = await join_talks(pair, game, person, power)
            await session.submitted.wait()
            first = session.first[0]
            assert isinstance(first, Sub)
            gave = {order_to_engine(o, START.map)[1] for o in first.orders}

            async def austria_says_no() -> None:
                while True:
                    frame = await negos["AUS"].expect(lambda f: proposal(f) is not None)
                    offer = proposal(frame)
                    assert offer is not None
                    await negos["AUS"].say(to_text(a.Reject("aus", frozenset({offer.sender}), offer.deal)))

            async def turkey_takes_a_change() -> a.Propose:
                while True:
                    offer = proposal(await negos["TUR"].expect(lambda f: proposal(f) is not None))
                    assert offer is not None
                    if set(binding_orders([offer.deal], START).get("RUS", [])) - gave:
                        return offer
                    await negos["TUR"].say(to_text(a.Reject("tur", frozenset({offer.sender}), offer.deal)))

            no = asyncio.create_task(austria_says_no())
            offer = await turkey_takes_a_change()
            no.cancel()
            await asyncio.gather(no, return_exceptions=True)
            yes = await negos["TUR"].say(to_text(a.Accept("tur", frozenset({offer.sender}), offer.deal)))
            assert yes["type"] == "ack", yes
            deal = to_text(offer.deal)
            await negos["TUR"].expect("confirmed", deal=deal)

            # Turkey plays its part, Austria holds; every order is then in
            promised = binding_orders([offer.deal], START)
            for power, person in people.items():
                await play_part(person, power, promised, START)
            await expect_kept(people["TUR"], negos["TUR"], promised, "RUS", deal, START)
            assert session.replacements  # the orders HANA gave first were replaced
            for nego in negos.values():
                await nego.close()
        finally:
            await cancel(players)
            await link.close()
