"""DipBlue and its archetypes: trust, the negotiator's messages, obedience, legal orders, replays."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import engine.orders as eo
from bots.base import Bot, HoldBot
from bots.dipblue import DipBlue, DipBlueNaive, DipBlueNoPress, DipBlueSlave
from bots.dipblue.trust import PEACE
from bots.dumbbot import DumbBot
from bots.inprocess import InProcessGame
from bots.nego_client import play_negotiating
from bots.session import BotSession
from bots.ws_client import WsClient
from engine import Position, format_order, legal_orders, parse_order, standard_map
from protocol.l import parse
from referee.settings import GameSettings
from tests.server.nego_helpers import running_nego
from tests.server.ws_helpers import TOKEN, http, running_server

M = standard_map()
START = Position.initial(M)


def started(cls: type[DipBlue], power: str, seed: int = 1) -> DipBlue:
    bot = cls(random.Random(seed))
    bot.start(power, M)
    return bot


def said(messages: Iterable[object]) -> list[str]:
    return [str(m) for m in messages]


# A French army in Burgundy can take Belgium with the army in Picardy; England has two units
# next to Belgium, Germany (France's partner) an army in the Ruhr.
CONTESTED = Position.build(
    "S1902M",
    {
        "FRA": ["A BUR", "A PIC", "F BRE"],
        "GER": ["A RUH", "A MUN", "F KIE"],
        "ENG": ["A HOL", "F NTH", "F LON"],
    },
    centers={
        "FRA": ["PAR", "MAR", "BRE"],
        "GER": ["MUN", "KIE", "BER"],
        "ENG": ["LON", "EDI", "LVP", "HOL"],
    },
)


def attack_on_paris() -> tuple[Position, dict[str, list[eo.Order]]]:
    before = Position.build(
        "F1901M", {"FRA": ["A PAR"], "GER": ["A BUR"], "ITA": ["A PIE"]}, centers={"FRA": ["PAR", "MAR"]}
    )
    return before, {"GER": [parse_order(M, "A BUR - PAR")], "ITA": [parse_order(M, "A PIE H")]}


# --- trust ---------------------------------------------------------------------------------------


def test_trust_falls_after_an_attack_and_rises_for_kept_promises_and_quiet_neighbours() -> None:
    bot = started(DipBlue, "FRA")
    before, orders = attack_on_paris()
    bot.on_results(before, orders, before)
    assert bot.relations.trust("GER") < 1.0  # attacked Paris
    assert bot.relations.trust("ITA") > 1.0  # next to Marseilles and quiet
    assert bot.relations.trust("ENG") == 1.0  # nowhere near
    low = bot.relations.trust("GER")
    report = {"power": "ger", "part": "pce([fra ger])", "kept": True, "detail": ""}
    bot.on_event({"type": "compliance", "phase": "S1902M", "deal": "...", "reports": [report]}, START)
    assert bot.relations.trust("GER") > low


def betray(bot: DipBlue, phase: str) -> None:
    """Germany attacks Paris in ``phase``, and the server reports the peace with France broken."""
    before, orders = attack_on_paris()
    bot.on_results(before, orders, before)
    report = {"power": "ger", "part": "pce([fra ger])", "kept": False, "detail": "A BUR - PAR attacks fra in par"}
    bot.on_event({"type": "compliance", "phase": phase, "deal": "pce", "reports": [report]}, START)


def test_an_attack_by_a_partner_weighs_more_and_betrayals_end_the_peace() -> None:
    partner, stranger = started(DipBlue, "FRA"), started(DipBlue, "FRA")
    partner.relations.make_peace("GER")
    before, orders = attack_on_paris()
    partner.on_results(before, orders, before)
    stranger.on_results(before, orders, before)
    assert partner.relations.friction["GER"] > stranger.relations.friction["GER"] > 1.0
    report = {"power": "ger", "part": "pce([fra ger])", "kept": False, "detail": "A BUR - PAR attacks fra in par"}
    frame = {"type": "compliance", "phase": "F1901M", "deal": "pce", "reports": [report]}
    partner.on_event(frame, START)
    assert partner.relations.at_peace("GER")  # one incident is forgiven
    friction = partner.relations.friction["GER"]
    partner.on_event({**frame, "deal": "aly"}, START)  # the same act under another deal counts once
    assert partner.relations.friction["GER"] == friction
    betray(partner, "S1902M")
    assert not partner.relations.at_peace("GER")  # not two


def test_the_naive_accepts_what_partners_propose_and_never_notices_a_betrayal() -> None:
    naive, dipblue = started(DipBlueNaive, "FRA"), started(DipBlue, "FRA")
    peace = parse("propose(ger, fra, Agree([fra ger], pce([fra ger])))")
    against_england = parse("propose(ger, fra, Agree([fra ger], aly([fra ger], [eng])))")
    for bot in (naive, dipblue):
        assert said(bot.on_message("GER", peace, START)) == ["accept(fra, [ger], Agree([fra ger], pce([fra ger])))"]
        assert bot.relations.state["GER"] == PEACE
        betray(bot, "F1901M")
        betray(bot, "S1902M")
    assert naive.relations.friction["GER"] == 1.0 and naive.relations.at_peace("GER")
    assert said(naive.on_message("GER", against_england, START))[0].startswith("accept(")
    assert naive.relations.at_war("ENG")
    assert said(dipblue.on_message("GER", against_england, START))[0].startswith("reject(")
    assert said(dipblue.on_message("GER", peace, START))[0].startswith("reject(")


# --- the negotiator ---------------------------------------------------------------------------------


def test_peace_is_proposed_to_every_other_power_at_the_start_and_only_then() -> None:
    bot = started(DipBlue, "ITA")
    first = bot.on_phase(START)
    assert sorted(said(first)) == sorted(
        f"propose(ita, [{p}], Agree([{' '.join(sorted(['ita', p]))}], pce([{' '.join(sorted(['ita', p]))}])))"
        for p in ("aus", "eng", "fra", "ger", "rus", "tur")
    )
    assert bot.on_phase(CONTESTED) == []
    assert started(DipBlueSlave, "ITA").on_phase(START) == ()
    assert started(DipBlueNoPress, "ITA").on_phase(START) == ()


def test_an_alliance_against_the_strongest_and_a_support_request_go_to_a_partner() -> None:
    bot = started(DipBlue, "FRA")
    bot.on_phase(START)
    bot.on_message("GER", parse("accept(ger, fra, Agree([fra ger], pce([fra ger])))"), START)
    assert bot.relations.at_peace("GER")
    orders = {format_order(M, o) for o in bot.plan(CONTESTED).orders.values()}
    assert {"A BUR - BEL", "A PIC S A BUR - BEL"} <= orders  # two against England's two around Belgium
    assert said(bot.on_phase(CONTESTED)) == [
        "propose(fra, [ger], Agree([fra ger], aly([fra ger], [eng])))",
        "propose(fra, [ger], Commit(ger, [fra], Do(sup(Unit(ger, Region(ruh, amy)), mto(Unit(fra, Region(bur, amy)), Region(bel, amy))))))",
    ]
    bot.on_event({"type": "phase", "phase": "S1902M", "kind": "movement", "deadline": None, "open": True}, CONTESTED)
    bot.on_message("GER", parse("accept(ger, fra, Agree([fra ger], aly([fra ger], [eng])))"), CONTESTED)
    assert bot.relations.at_war("ENG")


def test_with_everyone_left_at_peace_the_truce_breaks_with_the_least_beneficial_partner() -> None:
    # France at peace with Germany and England, the only others alive: nobody to ally against
    position = Position.build(
        "S1905M",
        {"FRA": ["A PAR", "A MAR"], "GER": ["A MUN", "A BER", "A KIE"], "ENG": ["F LON", "F EDI"]},
        centers={"FRA": ["PAR", "MAR", "BRE"], "GER": ["MUN", "BER", "KIE", "HOL"], "ENG": ["LON", "EDI"]},
    )
    bot = started(DipBlue, "FRA")
    bot._peace_offered = True
    for other in ("GER", "ENG"):
        bot.relations.make_peace(other)
    out = said(bot.on_phase(position))
    # Germany, four centres next door, before England, two across the Channel: its truce ends,
    # and the alliance with England is proposed against it
    assert not bot.relations.at_peace("GER") and bot.relations.at_peace("ENG")
    assert "propose(fra, [eng], Agree([eng fra], aly([eng fra], [ger])))" in out
    # once someone is left to ally against, no further truce is broken
    bot.on_phase(position)
    assert bot.relations.at_peace("ENG")


def test_a_stale_proposal_is_not_answered() -> None:
    bot = started(DipBlue, "GER")
    ask = parse("propose(fra, ger, Agree([fra ger], pce([fra ger])))")
    assert bot.on_message("FRA", ask, CONTESTED) == ()  # no announcement of S1902M yet
    bot.on_event({"type": "phase", "phase": "S1902M", "kind": "movement", "deadline": None, "open": True}, CONTESTED)
    assert said(bot.on_message("FRA", ask, CONTESTED))[0].startswith("accept(")


# --- obedience ---------------------------------------------------------------------------------------


def test_the_slave_obeys_requests_and_accepts_only_what_it_can_do() -> None:
    slave = started(DipBlueSlave, "GER")
    support = parse(
        "propose(fra, ger, Commit(ger, fra, Do(sup(Unit(ger, Region(mun, amy)), mto(Unit(fra, Region(par, amy)), Region(bur, amy))))))"
    )
    keep_out = parse("propose(fra, ger, Commit(ger, fra, ~Do(mto(Unit(ger, Region(kie, coast)), Region(den, coast)))))")
    impossible = parse("propose(fra, ger, Commit(ger, fra, Do(mto(Unit(ger, Region(ber, amy)), Region(par, amy)))))")
    assert said(slave.on_message("FRA", support, START))[0].startswith("accept(")
    assert said(slave.on_message("FRA", keep_out, START))[0].startswith("accept(")
    assert said(slave.on_message("FRA", impossible, START))[0].startswith("reject(")
    orders = {format_order(M, o) for o in slave.orders(START, legal_orders(START, "GER"))}
    assert "A MUN S A PAR - BUR" in orders and "F KIE - DEN" not in orders
    free = {format_order(M, o) for o in started(DipBlueSlave, "GER").orders(START, legal_orders(START, "GER"))}
    assert {"A MUN - RUH", "F KIE - DEN"} <= free  # what it would have done unasked


# --- whole games -------------------------------------------------------------------------------------


def _game(seed: int, year_limit: int) -> InProcessGame:
    rng = random.Random(seed)
    bots: list[Bot] = [
        DipBlue(random.Random(rng.random())),
        DipBlue(random.Random(rng.random())),
        DipBlueNaive(random.Random(rng.random())),
        DipBlueSlave(random.Random(rng.random())),
        DipBlueNoPress(random.Random(rng.random())),
        DumbBot(random.Random(rng.random())),
        DumbBot(random.Random(rng.random())),
    ]
    settings = GameSettings(name="dipblue", year_limit=year_limit)
    game = InProcessGame(bots, seed, settings, negotiates=True)
    game.play()
    return game


def test_every_archetype_gives_legal_orders_and_a_seed_replays_the_game() -> None:
    game = _game(7, 1906)
    assert all(not s.discarded and not s.rejected for s in game.sessions)
    record = game.record(7, [s.bot.name for s in game.sessions], {})
    kinds = {m["kind"] for m in record.messages}
    assert {"propose", "accept"} <= kinds
    assert any("Do(sup(" in m["text"] for m in record.messages)
    again = _game(7, 1906).record(7, [s.bot.name for s in game.sessions], {})
    assert json.dumps(again.to_json()) == json.dumps(record.to_json())


def test_dipblue_orders_one_order_per_unit_without_bouncing_its_own_units() -> None:
    bot = started(DipBlue, "FRA")
    for position in (START, CONTESTED):
        orders = bot.plan(position).orders
        moves = [M.province_of[o.destination] for o in orders.values() if isinstance(o, eo.Move)]
        assert len(moves) == len(set(moves))
        staying = {M.province_of[u.location] for u, o in orders.items() if not isinstance(o, eo.Move)}
        assert not staying & set(moves)
        assert set(orders) == {u for u in position.units if u.power == "FRA"}


async def test_dipblues_negotiate_over_the_network(tmp_path: Path) -> None:
    async with running_server(tmp_path) as game_server, running_nego(game_server, tmp_path / "n.sqlite3") as port:
        # the talkers sit next to each other (France, Germany, England): with powers drawn at
        # random they may have only silent neighbours, and no peace to agree
        talkers_seats = {"FRA": "dipblue", "GER": "dipblue:naive", "ENG": "dipblue:slave"}
        body = {"name": "dipblue", "deadlines": None, "year_limit": 1902, "reserved": talkers_seats}
        status, created = await http("POST", f"{game_server.http}/api/games", body, token=TOKEN)
        assert status == 201
        nego_url = f"ws://127.0.0.1:{port}/nego"
        talkers = [DipBlue(random.Random(1)), DipBlueNaive(random.Random(2)), DipBlueSlave(random.Random(3))]
        # the press window closes when every order is in: the silent bots order their first phase
        # only once the notary has confirmed a deal, so that a loaded machine cannot close the
        # window before the talkers' answers arrive (an awaited event, not a pause)
        confirmed = asyncio.Event()
        for bot in talkers:
            heard = bot.on_event

            def on_event(event: Any, position: Any, heard: Any = heard) -> Any:
                if event.get("type") == "confirmed":
                    confirmed.set()
                return heard(event, position)

            bot.on_event = on_event  # type: ignore[method-assign]

        async def after_a_deal(client: WsClient) -> None:
            await confirmed.wait()

        async with asyncio.timeout(60):
            sessions = await asyncio.gather(
                *(play_negotiating(bot, game_server.ws, nego_url, created["id"]) for bot in talkers),
                *(
                    WsClient(BotSession(HoldBot()), game_server.ws, created["id"], before_orders=after_a_deal).run()
                    for _ in range(4)
                ),
            )
        assert all(s.result is not None and not s.discarded for s in sessions)
        status, log = await http("GET", f"http://127.0.0.1:{port}/api/games/{created['id']}/log", token=TOKEN)
        texts = [r["text"] for r in log["records"] if r["kind"] == "message"]
        assert any(t.startswith("accept(") and "pce(" in t for t in texts)
        assert any(bot.relations.partners() for bot in talkers)
