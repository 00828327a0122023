"""Relays and bindings as requests the game master acknowledges: outstanding until answered,
stored, rebuilt by a replay, lapsing with their phase; and applied once by the game master."""

from __future__ import annotations

import random
from typing import Any

from protocol.daide.parser import parse
from protocol.l import parse as parse_l
from protocol.l import to_text
from referee.effects import Bind, Relay, Step
from referee.game import GameMaster
from referee.negotiation import Negotiation
from referee.notices import PhaseNotice
from referee.settings import GameSettings

BINDING = GameSettings(binding=True, press_level=10)
MOVE = "Commit(fra, ger, Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy))))"
FLEET = "Commit(fra, ger, Do(mto(Unit(fra, Region(bre, coast)), Region(mao, sea))))"
PEACE = "Agree([fra ger], pce([fra ger]))"


def normal(deal: str) -> str:
    """A deal's text as the frames give it."""
    return to_text(parse_l(f"propose(fra, ger, {deal})").deal)  # type: ignore[attr-defined]


def started(settings: GameSettings = BINDING, await_answers: bool = True) -> tuple[Negotiation, list[dict[str, Any]]]:
    """A negotiation in S1901M with FRA and GER reading L, and the records it stored so far."""
    n = Negotiation("g", settings, await_answers=await_answers)
    records = [dict(r.payload) for r in n.feed(PhaseNotice("g", "S1901M", "movement", None)).records]
    n.readers |= {"FRA", "GER"}
    return n, records


def frames(step: Step, kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [(s.to, s.message) for s in step.sends if s.message["type"] == kind]


def kept(records: list[dict[str, Any]], step: Step) -> Step:
    records.extend(dict(r.payload) for r in step.records)
    return step


def requested(n: Negotiation, deal: str, records: list[dict[str, Any]] | None = None) -> Step:
    """GER asks FRA for ``deal`` (which commits FRA alone) and FRA accepts: the step of the
    acceptance, which confirms the deal. ``records`` gets both steps'."""
    offer = n.say("GER", f"propose(ger, fra, {deal})")
    accept = n.say("FRA", f"accept(fra, ger, {deal})")
    if records is not None:
        kept(records, offer)
        kept(records, accept)
    return accept


def test_a_binding_deal_is_pending_until_the_game_master_holds_it() -> None:
    n, records = started()
    step = requested(n, MOVE, records)  # only FRA is committed: its acceptance confirms
    assert [to for to, _ in frames(step, "pending")] == ["FRA", "GER"]
    assert not frames(step, "confirmed")
    [bind] = [e for e in step.effects if isinstance(e, Bind)]
    [request] = [r.payload for r in step.records if r.kind == "request"]  # stored with the message
    assert request["id"] == bind.id and request["held"][0]["type"] == "confirmed"
    assert n.outstanding() == [bind]

    done = kept(records, n.answered(bind.id, True))
    assert [r.kind for r in done.records] == ["request_done"]
    confirmed = frames(done, "confirmed")
    assert [to for to, _ in confirmed] == ["FRA", "GER"] and confirmed[0][1]["phase"] == "S1901M"
    assert n.requests == {} and n.answered(bind.id, True) == Step()  # a second answer changes nothing


def test_a_deal_without_orders_is_confirmed_at_once_even_in_a_binding_game() -> None:
    n, _ = started()
    n.say("FRA", f"propose(fra, ger, {PEACE})")
    step = n.say("GER", f"accept(ger, fra, {PEACE})")
    assert [to for to, _ in frames(step, "confirmed")] == ["FRA", "GER"]
    assert not [e for e in step.effects if isinstance(e, Bind)] and n.requests == {}


def test_without_answers_awaited_a_binding_deal_is_confirmed_at_once() -> None:
    n, _ = started(await_answers=False)  # one process: the game master takes it in the same call
    step = requested(n, MOVE)
    assert frames(step, "confirmed") and not frames(step, "pending")
    assert [e for e in step.effects if isinstance(e, Bind)] and n.requests == {}
    assert not [r for r in step.records if r.kind == "request"]


def test_a_later_binding_holds_the_earlier_ones_of_its_phase() -> None:
    n, _ = started()
    first = next(e for e in requested(n, MOVE).effects if isinstance(e, Bind))
    second = next(e for e in requested(n, FLEET).effects if isinstance(e, Bind))
    assert second.orders == {"FRA": ("A PAR - BUR", "F BRE - MAO")}
    assert n.outstanding() == [second]  # only the last is sent again: it holds both
    step = n.answered(second.id, True)
    assert sorted(frame["deal"] for _, frame in frames(step, "confirmed")) == sorted([normal(MOVE), normal(FLEET)] * 2)
    assert n.requests == {}
    assert n.answered(first.id, True) == Step()


def test_a_binding_not_held_when_its_phase_ends_is_unbound_never_confirmed() -> None:
    n, _ = started()
    requested(n, MOVE)
    step = n.feed(PhaseNotice("g", "F1901M", "movement", None))
    unbound = frames(step, "unbound")
    assert [to for to, _ in unbound] == ["FRA", "GER"]
    first = unbound[0][1]
    assert first["deal"] == normal(MOVE) and first["phase"] == "S1901M" and "phase ended" in first["reason"]
    assert not frames(step, "confirmed") and n.requests == {}


def test_a_refused_binding_is_unbound() -> None:
    n, _ = started()
    bind = next(e for e in requested(n, MOVE).effects if isinstance(e, Bind))
    step = n.answered(bind.id, False, "the game is over")
    assert [(to, f["reason"]) for to, f in frames(step, "unbound")] == [
        ("FRA", "the deal could not be made binding: the game is over"),
        ("GER", "the deal could not be made binding: the game is over"),
    ]


def test_a_relay_lapses_with_its_phase_and_its_sender_hears() -> None:
    n, _ = started(GameSettings(press_level=10))
    n.readers.discard("GER")  # GER reads DAIDE only
    step = n.say("FRA", f"propose(fra, ger, {PEACE})")
    [relay] = [e for e in step.effects if isinstance(e, Relay)]
    assert relay.id == "relay:1" and n.outstanding() == [relay]
    lapsed = n.feed(PhaseNotice("g", "F1901M", "movement", None))
    assert frames(lapsed, "undelivered") == [
        (
            "FRA",
            {
                "type": "undelivered",
                "seq": 1,
                "to": ["GER"],
                "phase": "S1901M",
                "reason": "the message did not reach DAIDE: its phase ended before the game server took it",
            },
        )
    ]
    assert n.requests == {}


def test_a_replay_rebuilds_the_outstanding_requests() -> None:
    n, records = started()
    n.readers.discard("GER")
    requested(n, MOVE, records)
    requested(n, FLEET, records)
    relay, first, relay_too, second = list(n.requests)
    kept(records, n.answered(relay, True))
    again = Negotiation("g", BINDING, await_answers=True)
    for record in records:
        again.apply(record)
    assert list(again.requests) == [first, relay_too, second] and again.outstanding() == n.outstanding()
    step = again.answered(second, True)  # the confirmations held back were stored with the requests
    assert len(frames(step, "confirmed")) == 4


def test_untranslated_press_keeps_its_huh_ids_over_a_replay() -> None:
    n, records = started(GameSettings(press_level=10))
    first = kept(records, n.daide_press("ENG", ["FRA"], "PRP (ORR (PCE (ENG FRA)) (PCE (ENG GER)))"))
    again = Negotiation("g", GameSettings(press_level=10), await_answers=True)
    for record in records:
        again.apply(record)
    again.readers |= {"FRA"}
    second = again.daide_press("ENG", ["FRA"], "PRP (ORR (PCE (ENG FRA)) (PCE (ENG GER)))")
    ids = [e.id for step in (first, second) for e in step.effects if isinstance(e, Relay)]
    assert ids == ["huh:1:FRA", "huh:2:FRA"]  # the game master applies each id once: they must differ


def playing(records: list[Any]) -> GameMaster:
    """A binding game in S1901M; ``records`` gets what a store would hold of it."""
    gm = GameMaster("g", GameSettings(binding=True), now=0.0, rng=random.Random(1))
    for i in range(7):
        records.extend(gm.receive(f"c{i}", parse(f"NME ('p{i}') ('1')"), now=1.0).records)
    return gm


def test_the_game_master_applies_a_request_once_replay_included() -> None:
    records: list[Any] = []
    gm = playing(records)
    step = gm.bind("S1901M", {"FRA": ["A PAR - BUR"]}, 2.0, "bind:3")
    assert [(r.kind, r.payload["request"]) for r in step.records] == [("binding", "bind:3")]
    records += step.records
    records += gm.bind("S1901M", {"FRA": ["A PAR - PIC"]}, 3.0, "bind:5").records
    assert gm.bind("S1901M", {"FRA": ["A PAR - BUR"]}, 4.0, "bind:3") == Step()  # sent again: not applied
    assert "bind:3" in gm.requests and "A PAR - PIC" in str(gm.book.binding)
    assert gm.bind("F1901M", {"FRA": ["A PAR H"]}, 4.0, "bind:6") == Step()  # not its phase: not held
    assert "bind:6" not in gm.requests
    snd = parse("SND (FRA) (PRP (PCE (ENG FRA)))")
    delivered = gm.deliver("ENG", ["FRA"], snd.press, 5.0, "relay:4")  # type: ignore[attr-defined]
    assert [r.payload["request"] for r in delivered.records] == ["relay:4"] and delivered.sends
    records += delivered.records
    assert gm.deliver("ENG", ["FRA"], snd.press, 6.0, "relay:4") == Step()  # type: ignore[attr-defined]

    replayed = GameMaster.replay("g", GameSettings(binding=True), 0.0, records, rng=random.Random(1))
    assert {"bind:3", "bind:5", "relay:4"} <= replayed.requests
    assert "A PAR - PIC" in str(replayed.book.binding)
    assert replayed.deliver("ENG", ["FRA"], snd.press, 7.0, "relay:4") == Step()  # type: ignore[attr-defined]
