"""A model seat over the network: real game and negotiation servers on loopback, the seat on
the websocket and ``/nego`` as ``detente bot`` plays it, a scripted person beside it.

Time budget: about 15 s.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from bots.llm.config import LLMOptions
from bots.nego_client import play_negotiating
from bots.registry import make_bot
from bots.session import BotSession
from bots.ws_client import WsClient
from protocol.l import ast as a
from protocol.l import to_text
from tests.bots.helpers import cancel, create_game, join_talks
from tests.llm.standin import StandIn
from tests.server.nego_helpers import Pair, running_pair
from tests.server.ws_helpers import TOKEN, DaideClient, http

PEACE = to_text(
    a.Propose("aus", frozenset({"rus"}), a.Agree(frozenset({"aus", "rus"}), a.Pce(frozenset({"aus", "rus"}))))
)


async def seat_everyone(pair: Pair, game: str, spec: str, log: Path) -> list[asyncio.Task[object]]:
    """The model seat (Russia) and five DumbBots, playing ``game``."""
    model = make_bot(spec, 0, LLMOptions(log_dir=log), game=game)
    players: list[asyncio.Task[object]] = [asyncio.create_task(play_negotiating(model, pair.game.ws, pair.nego, game))]
    players += [
        asyncio.create_task(WsClient(BotSession(make_bot("dumbbot", 10 + i)), pair.game.ws, game).run())
        for i in range(5)
    ]
    return players


async def table(pair: Pair, spec: str, log: Path) -> tuple[str, DaideClient, list[asyncio.Task[object]]]:
    """A game with Austria kept for a person (joined) and Russia for the model seat; everyone seated."""
    game = await create_game(pair, "llm", {"AUSTRIA": "person", "RUSSIA": spec})
    person = await DaideClient.open(f"{pair.game.ws}?game={game}")
    await person.join("person")
    return game, person, await seat_everyone(pair, game, spec, log)


async def test_a_person_proposes_peace_to_a_model_seat_and_the_notary_confirms_it(tmp_path: Path) -> None:
    with StandIn() as provider:
        spec = f"llm:good@{provider.base_url}"
        async with running_pair(tmp_path) as pair, asyncio.timeout(40):
            game, person, players = await table(pair, spec, tmp_path / "llm")
            try:
                nego = await join_talks(pair, game, person, "AUS")
                answer = await nego.say(PEACE)
                assert answer["type"] == "ack", answer
                accepted = await nego.expect(
                    lambda f: f.get("type") == "message" and f["text"].startswith("accept(rus")
                )
                assert accepted["from"] == "RUS"
                confirmed = await nego.expect("confirmed")
                assert sorted(confirmed["participants"]) == ["AUS", "RUS"]
                await nego.close()
            finally:
                await cancel(players)
    calls = [json.loads(line) for line in (tmp_path / "llm" / "calls.jsonl").read_text().splitlines()]
    shown = [c for c in calls if c["task"] == "press" and "Austria" in c["request"]["messages"][1]["content"]]
    assert shown, "the person's proposal reached the model, in English, from Austria"
    assert {c["game"] for c in calls} == {game}


async def test_a_slow_model_never_holds_up_the_event_loop(tmp_path: Path) -> None:
    """The servers, the person and the model seat share one loop here, as in ``detente play``:
    while the model's first call is still unanswered, the person's round trips go through."""
    with StandIn() as provider:
        spec = f"llm:good+slow=4@{provider.base_url}"
        async with running_pair(tmp_path) as pair, asyncio.timeout(40):
            game, person, players = await table(pair, spec, tmp_path / "llm")
            try:
                nego = await join_talks(pair, game, person, "AUS")
                while (await asyncio.to_thread(provider.stats))["requests"] == 0:
                    await asyncio.sleep(0.05)  # polling the stand-in's own count: the call has begun
                for _ in range(3):
                    answer = await nego.say(PEACE)  # a round trip through both servers
                    assert answer["type"] == "ack", answer
                    await person.send("NOW")
                    await person.until("NOW")
                assert (await asyncio.to_thread(provider.stats))["completions"] == 0, "the loop waited on the model"
                await nego.close()
            finally:
                await cancel(players)


async def test_over_the_network_the_phase_deadline_bounds_a_models_thinking(tmp_path: Path) -> None:
    """A model slower than the phase: its call gives up before the deadline (less a margin for
    the orders to travel), the fallback's orders go in, and the game goes on."""
    with StandIn() as provider:
        spec = f"llm:good+slow=30@{provider.base_url}"
        async with running_pair(tmp_path) as pair, asyncio.timeout(40):
            body = {
                "name": "llm",
                "deadlines": {"movement": 5, "retreat": 5, "adjustment": 5},
                "year_limit": 1901,
                "reserved": {"AUSTRIA": "person", "RUSSIA": spec},
            }
            status, created = await http("POST", f"{pair.game.http}/api/games", body, token=TOKEN)
            assert status == 201, created
            game = str(created["id"])
            person = await DaideClient.open(f"{pair.game.ws}?game={game}")
            await person.join("person")
            model = make_bot(spec, 0, LLMOptions(log_dir=tmp_path / "llm"), game=game)
            players = [asyncio.create_task(WsClient(BotSession(model), pair.game.ws, game).run())]
            players += [
                asyncio.create_task(WsClient(BotSession(make_bot("dumbbot", 10 + i)), pair.game.ws, game).run())
                for i in range(5)
            ]
            try:
                await person.hello()
                sub, _ = person.holds(await person.expect("NOW"))
                await person.send(sub)
                ordered = [t for t in await person.until("NOW") if t.startswith("ORD") and "RUS" in t]
                assert ordered and not any("NRS" in t or "NRM" in t for t in ordered), ordered
            finally:
                await cancel(players)
    seat = model.meter.to_json()
    assert seat["outcomes"] == {"late": 1} and seat["orders_by_fallback"] == 4
    # the call's limit (what the seat counts as its latency when it gives up): the five seconds of
    # the phase, less the two kept in hand for the orders to travel
    assert seat["latencies"][0] <= 3.0
