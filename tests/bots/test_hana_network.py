"""HANA over the network: real game and negotiation servers on loopback, and a scripted person.

Over the network the client asks a bot for its orders as soon as the phase opens, and there
is no simulated clock of rounds: HANA's negotiation time moves on the L messages it receives.
A person who rejects HANA's first proposal must see a second one in the same phase (the
clock moved on the answer, after HANA's orders were given), and a deal the person accepts
must be kept: HANA's part is among the orders adjudicated.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bots.nego_client import play_negotiating
from bots.registry import make_bot
from bots.session import BotSession
from bots.ws_client import WsClient
from engine import Position
from protocol.l import ast as a
from protocol.l import to_text
from referee.binding import binding_orders
from tests.bots.helpers import cancel, create_game, expect_kept, join_talks, play_part, proposal
from tests.server.nego_helpers import running_pair
from tests.server.ws_helpers import DaideClient

START = Position.initial()
PERSON = "AUS"
#: Russia's HANA proposes to Austria from its first round; England's talks to no one here
#: who answers. The other four seats are DumbBots, which do not negotiate: Russia hears
#: the person alone, so what it says is the same every run.
SEATS = {PERSON: "person", "RUS": "hana", "ENG": "hana:revenger"}


async def test_a_person_rejects_hana_gets_another_proposal_accepts_it_and_hana_keeps_its_part(tmp_path: Path) -> None:
    async with running_pair(tmp_path) as pair, asyncio.timeout(30):
        game = await create_game(pair, "hana", SEATS)
        person = await DaideClient.open(f"{pair.game.ws}?game={game}")
        await person.join("person")
        hanas = [make_bot("hana", 0), make_bot("hana:revenger", 2)]
        players = [asyncio.create_task(play_negotiating(bot, pair.game.ws, pair.nego, game)) for bot in hanas]
        players += [
            asyncio.create_task(WsClient(BotSession(make_bot("dumbbot", 10 + i)), pair.game.ws, game).run())
            for i in range(4)
        ]
        try:
            nego = await join_talks(pair, game, person, PERSON)
            assert person.power == PERSON

            # the first proposal, made as the phase opened: the person rejects it
            first_frame = await nego.expect(lambda f: proposal(f) is not None)
            first = proposal(first_frame)
            assert first is not None and first_frame["phase"] == "S1901M"
            hana = first.sender
            no = await nego.say(to_text(a.Reject("aus", frozenset({hana}), first.deal)))
            assert no["type"] == "ack", no

            # HANA's clock moved on the answer: another proposal, in the same phase, still open
            second_frame = await nego.expect(lambda f: (p := proposal(f)) is not None and p.sender == hana)
            second = proposal(second_frame)
            assert second is not None and second_frame["phase"] == "S1901M" and second.deal != first.deal
            yes = await nego.say(to_text(a.Accept("aus", frozenset({hana}), second.deal)))
            assert yes["type"] == "ack", yes
            deal = to_text(second.deal)
            confirmed = await nego.expect("confirmed", deal=deal)
            assert confirmed["phase"] == "S1901M"

            # the person keeps its part too and holds the rest; every order is then in
            promised = binding_orders([second.deal], START)
            assert promised.get(hana), f"the deal binds {hana} to no order: {deal}"
            await play_part(person, PERSON, promised, START)

            # HANA's part is among the orders adjudicated, and the compliance check says kept
            await expect_kept(person, nego, promised, hana, deal, START)
            await nego.close()
        finally:
            await cancel(players)
