"""The sans-I/O game master: scripted clients, time passed as numbers, no sockets or sleeps."""

from __future__ import annotations

import json
import random

import pytest

from engine import Position, legal_orders, standard_map
from engine.orders import Build, Waive
from engine.position import ADJUSTMENTS
from protocol.daide.messages import POWERS, Mis, Snd, Sub
from protocol.daide.orders import order_from_engine
from protocol.daide.parser import parse
from referee.deadlines import Deadlines
from referee.effects import Close, Record, Step
from referee.game import GameMaster, GameState
from referee.settings import GameSettings

CONNS = [f"c{i}" for i in range(7)]


def texts(step: Step, conn: str) -> list[str]:
    """What ``conn`` was sent in ``step``, as DAIDE text."""
    return [str(s.message) for s in step.sends if s.to == conn]


def new_game(rng_seed: int = 7, **settings: object) -> GameMaster:
    return GameMaster("g1", GameSettings(name="test", **settings), now=0.0, rng=random.Random(rng_seed))  # type: ignore[arg-type]


def start(gm: GameMaster, now: float = 0.0, observer: bool = False) -> tuple[dict[str, str], list[Record], Step]:
    """Join seven players (and an observer first if asked): power abbreviation -> conn."""
    records: list[Record] = []
    if observer:
        gm.connect("obs", now)
        gm.receive("obs", "OBS", now)
    step = Step()
    for conn in CONNS:
        gm.connect(conn, now)
        step = gm.receive(conn, f"NME ('bot {conn}') ('1.0')", now)
        records += step.records
    by_power = {gm.roster.power_of(c) or "": c for c in CONNS}
    return by_power, records, step


def random_orders(position: Position, power: str, rng: random.Random) -> Sub:
    """A complete set of random legal orders of ``power``, in DAIDE form."""
    options = legal_orders(position, power)
    chosen = []
    if position.phase.kind == ADJUSTMENTS:
        owed = position.adjustments.get(power, 0)
        pool = options.get(None, [])
        if owed < 0:
            chosen = rng.sample(pool, -owed)
        else:
            builds = [o for o in pool if isinstance(o, Build)]
            rng.shuffle(builds)
            used: set[int] = set()
            for build in builds:
                province = position.map.province_of[build.location]
                if len(chosen) < owed and province not in used:
                    used.add(province)
                    chosen.append(build)
            chosen += [Waive()] * (owed - len(chosen))
    else:
        chosen = [rng.choice(unit_orders) for unit_orders in options.values()]
    return Sub(tuple(order_from_engine(power, o, position) for o in chosen))


def play_phase(gm: GameMaster, by_power: dict[str, str], rng: random.Random, now: float) -> list[Step]:
    steps = []
    for power in gm.must_order():
        conn = by_power[power]
        step = gm.receive(conn, random_orders(gm.position, power, rng), now)
        notes = [t for t in texts(step, conn) if t.startswith("THX")]
        assert notes and all(t.endswith("(MBV)") for t in notes), notes
        steps.append(step)
    return steps


# --- joining --------------------------------------------------------------------------------------


def test_join_gives_hlo_sco_now_and_unique_passcodes() -> None:
    gm = new_game()
    gm.connect("x", 0.0)
    assert texts(gm.receive("x", "MDF", 0.0), "x")[0].startswith("MDF (AUS ENG FRA GER ITA RUS TUR)")
    by_power, records, last = start(gm, observer=True)
    assert sorted(by_power) == sorted(POWERS)
    hlos = [t for c in CONNS for t in texts(last, c) if t.startswith("HLO")]
    assert len(hlos) == 7 and all(t.endswith("((LVL 0))") for t in hlos)
    passcodes = {p.passcode for p in gm.roster.players.values()}
    assert len(passcodes) == 7 and all(1 <= p <= 8191 for p in passcodes)
    for conn in [*CONNS, "obs"]:
        sent = texts(last, conn)
        assert [t[:3] for t in sent if t[:3] not in ("HLO", "YES", "MAP", "ADM")] == ["SCO", "NOW"]
        assert sent[-1].startswith("NOW (SPR 1901)")
    assert not any(t.startswith("HLO") for t in texts(last, "obs"))
    assert [r.kind for r in records] == ["join"] * 7 + ["start"]  # the last join starts the game (no MAP_WAIT)
    gm.connect("late", 1.0)
    assert texts(gm.receive("late", "NME ('late') ('1')", 1.0), "late") == ["REJ (NME ('late') ('1'))"]


def test_hlo_lists_level_and_deadlines() -> None:
    gm = new_game(press_level=10, deadlines=Deadlines(60, 30, None), press_phases=("movement",))
    _, _, last = start(gm)
    assert texts(last, "c0")[0].endswith("((LVL 10) (MTL 60) (RTL 30) (NPR) (NPB))")
    assert texts(last, "c0")[-1] == "TME (60)"
    assert gm.next_deadline == 60.0


def test_messages_from_a_client_that_has_not_joined_are_refused() -> None:
    gm = new_game()
    start(gm)
    gm.connect("stranger", 1.0)
    assert texts(gm.receive("stranger", "SUB ((ENG AMY LVP) HLD)", 1.0), "stranger") == [
        "REJ (SUB ((ENG AMY LVP) HLD))"
    ]
    assert texts(gm.receive("stranger", "GOF", 1.0), "stranger") == ["REJ (GOF)"]
    # public information is open to anyone, as to an observer
    assert texts(gm.receive("stranger", "NOW", 1.0), "stranger")[0].startswith("NOW (SPR 1901)")


def test_bad_text_gets_huh_or_prn_and_huh_gets_nothing() -> None:
    gm = new_game()
    gm.connect("x", 0.0)
    assert texts(gm.receive("x", "SUB ((ENG AMY LVP) HLD", 0.0), "x") == ["PRN (SUB ((ENG AMY LVP) HLD)"]
    assert texts(gm.receive("x", "SUB ((ENG AMY XYZ) HLD)", 0.0), "x") == ["HUH (SUB ((ENG AMY ERR XYZ) HLD))"]
    assert texts(gm.receive("x", "HUH (XYZ XYZ", 0.0), "x") == []


# --- orders ----------------------------------------------------------------------------------------


def test_sub_notes_mis_replacement_and_cancel() -> None:
    gm = new_game()
    by_power, _, _ = start(gm)
    eng = by_power["ENG"]
    step = gm.receive(eng, "SUB ((FRA AMY PAR) HLD) ((ENG FLT LON) MTO NTH) ((ENG AMY LVP) MTO MOS)", 1.0)
    assert texts(step, eng) == [
        "THX ((FRA AMY PAR) HLD) (NYU)",
        "THX ((ENG FLT LON) MTO NTH) (MBV)",
        "THX ((ENG AMY LVP) MTO MOS) (FAR)",
        "MIS (ENG FLT EDI) (ENG AMY LVP)",
    ]
    step = gm.receive(eng, "SUB (PAR HLD) ((ENG AMY YOR) HLD) ((ENG AMY LVP) RTO YOR) ((ENG AMY LVP) HLD)", 1.0)
    assert texts(step, eng)[:4] == [
        "THX (PAR HLD) (NYU)",
        "THX ((ENG AMY YOR) HLD) (NSU)",
        "THX ((ENG AMY LVP) RTO YOR) (NRS)",
        "THX ((ENG AMY LVP) HLD) (MBV)",
    ]
    # a new order for a unit replaces the old one
    gm.receive(eng, "SUB ((ENG FLT LON) MTO ECH)", 1.0)
    assert str(gm.book.pending["ENG"]["LON"].daide) == "(ENG FLT LON) MTO ECH"
    assert texts(gm.receive(eng, "MIS", 1.0), eng) == ["MIS (ENG FLT EDI)"]
    assert texts(gm.receive(eng, "NOT (SUB ((ENG FLT LON) MTO ECH))", 1.0), eng) == [
        "YES (NOT (SUB ((ENG FLT LON) MTO ECH)))"
    ]
    assert texts(gm.receive(eng, "NOT (SUB ((ENG FLT LON) MTO ECH))", 1.0), eng) == [
        "REJ (NOT (SUB ((ENG FLT LON) MTO ECH)))"
    ]
    assert texts(gm.receive(eng, "NOT (SUB)", 1.0), eng) == ["YES (NOT (SUB))"]
    assert texts(gm.receive(eng, "MIS", 1.0), eng) == ["MIS (ENG FLT EDI) (ENG FLT LON) (ENG AMY LVP)"]
    assert texts(gm.receive(eng, "SUB (FAL 1901) ((ENG AMY LVP) HLD)", 1.0), eng) == [
        "REJ (SUB (FAL 1901) ((ENG AMY LVP) HLD))"
    ]


def test_convoy_and_support_notes() -> None:
    gm = new_game()
    by_power, _, _ = start(gm)
    eng = by_power["ENG"]
    step = gm.receive(eng, "SUB ((ENG FLT LON) CVY (ENG AMY LVP) CTO NWY) ((ENG FLT EDI) SUP (ENG AMY YOR))", 1.0)
    assert texts(step, eng)[:2] == [
        "THX ((ENG FLT LON) CVY (ENG AMY LVP) CTO NWY) (NAS)",
        "THX ((ENG FLT EDI) SUP (ENG AMY YOR)) (NSU)",
    ]


def test_phase_ends_when_all_orders_are_in_with_ord_sco_now() -> None:
    gm = new_game(deadlines=Deadlines(600, 600, 600))
    by_power, _, _ = start(gm, observer=True)
    rng = random.Random(3)
    steps = play_phase(gm, by_power, rng, now=5.0)
    last = steps[-1]
    sent = texts(last, "obs")
    assert sum(t.startswith("ORD (SPR 1901)") for t in sent) == 22
    assert sent[-2].startswith("NOW (FAL 1901)") and sent[-1] == "TME (600)"
    assert [r.kind for r in last.records] == ["orders", "adjudicate"]
    assert gm.next_deadline == 605.0


def test_not_gof_holds_the_phase_until_the_deadline() -> None:
    gm = new_game(deadlines=Deadlines(60, 30, 30))
    by_power, _, _ = start(gm)
    held = by_power["TUR"]
    assert texts(gm.receive(held, "NOT (GOF)", 1.0), held) == ["YES (NOT (GOF))"]
    play_phase(gm, by_power, random.Random(1), now=2.0)
    assert str(gm.position.phase) == "S1901M"  # everything is in, but Turkey holds it
    assert gm.tick(59.0).effects == ()
    step = gm.tick(60.0)
    assert str(gm.position.phase) == "F1901M"
    assert any(t.startswith("NOW (FAL 1901)") for t in texts(step, held))
    assert [r.kind for r in step.records] == ["adjudicate"]


def test_gof_after_not_gof_ends_the_phase_at_once() -> None:
    gm = new_game(deadlines=Deadlines(60, 30, 30))
    by_power, _, _ = start(gm)
    held = by_power["TUR"]
    gm.receive(held, "NOT (GOF)", 1.0)
    play_phase(gm, by_power, random.Random(1), now=2.0)
    step = gm.receive(held, "GOF", 3.0)
    assert texts(step, held)[0] == "YES (GOF)"
    assert str(gm.position.phase) == "F1901M"
    assert gm.next_deadline == 63.0


def test_civil_disorder_at_the_deadline() -> None:
    gm = new_game(deadlines=Deadlines(60, 30, 30))
    by_power, _, _ = start(gm)
    absent = by_power["ITA"]
    gm.disconnect(absent, 1.0)
    rng = random.Random(5)
    for power in gm.must_order():
        if power != "ITA":
            gm.receive(by_power[power], random_orders(gm.position, power, rng), 2.0)
    assert str(gm.position.phase) == "S1901M" and gm.next_deadline == 60.0
    step = gm.tick(61.0)
    sent = texts(step, by_power["FRA"])
    assert sent[0] == "CCD (ITA) (SPR 1901)"
    assert "ORD (SPR 1901) ((ITA FLT NAP) HLD) (SUC)" in sent
    assert str(gm.position.phase) == "F1901M" and gm.next_deadline == 121.0


def test_tme_alarms_ring_before_the_deadline_each_phase_until_cancelled() -> None:
    gm = new_game(deadlines=Deadlines(60, 30, 30))
    by_power, _, _ = start(gm)
    eng, fra = by_power["ENG"], by_power["FRA"]
    assert texts(gm.receive(eng, "TME (10)", 1.0), eng) == ["YES (TME (10))"]
    assert texts(gm.receive(eng, "TME (45)", 1.0), eng) == ["YES (TME (45))"]
    assert texts(gm.receive(fra, "NOT (TME (10))", 1.0), fra) == ["REJ (NOT (TME (10)))"]  # not FRA's
    assert gm.next_deadline == 15.0
    assert texts(gm.tick(15.0), eng) == ["TME (45)"]
    assert gm.next_deadline == 50.0
    assert texts(gm.tick(50.0), eng) == ["TME (10)"] and texts(gm.tick(50.0), eng) == []
    assert gm.next_deadline == 60.0
    gm.tick(60.0)  # the deadline: the next phase rings again
    assert str(gm.position.phase) == "F1901M" and gm.next_deadline == 75.0
    assert texts(gm.receive(eng, "NOT (TME (45))", 61.0), eng) == ["YES (NOT (TME (45)))"]
    assert gm.next_deadline == 110.0
    assert texts(gm.receive(eng, "NOT (TME)", 62.0), eng) == ["YES (NOT (TME))"]
    assert gm.next_deadline == 120.0


def test_tme_alarms_are_refused_without_deadlines() -> None:
    gm = new_game()
    by_power, _, _ = start(gm)
    assert texts(gm.receive(by_power["ENG"], "TME (10)", 1.0), by_power["ENG"]) == ["REJ (TME (10))"]


def test_a_forming_game_replayed_frees_the_seats_of_players_not_connected() -> None:
    gm = new_game()
    records: list[Record] = []
    for conn in CONNS[:3]:
        records += gm.receive(conn, f"NME ('bot {conn}') ('1.0')", 0.0).records
    again = GameMaster.replay("g1", gm.settings, 0.0, records, rng=random.Random(7))
    assert len(again.roster.players) == 3
    step = again.vacate(5.0)
    assert [e.kind for e in step.records] == ["leave"] * 3 and not again.roster.players
    assert texts(again.receive("new", "NME ('back') ('1.0')", 6.0), "new")[0].startswith("YES (NME")
    replayed = GameMaster.replay("g1", gm.settings, 0.0, [*records, *step.records], rng=random.Random(7))
    assert not replayed.roster.players
    assert new_game().vacate(0.0).records == ()  # nobody seated: nothing to record


def test_a_reserved_power_goes_only_to_the_player_it_is_kept_for() -> None:
    gm = new_game(reserved=(("ENG", "alice"),))
    for conn in CONNS[:6]:
        assert texts(gm.receive(conn, f"NME ('bot {conn}') ('1.0')", 0.0), conn)[0].startswith("YES")
    assert "ENG" not in gm.roster.players
    assert texts(gm.receive("x", "NME ('bob') ('1.0')", 0.0), "x") == ["REJ (NME ('bob') ('1.0'))"]
    step = gm.receive("alice", "NME ('alice') ('1.0')", 0.0)
    assert gm.roster.power_of("alice") == "ENG" and gm.state == "playing"
    assert any(t.startswith("HLO (ENG)") for t in texts(step, "alice"))


def test_a_power_reserved_for_its_token_and_a_colon_goes_to_an_aiclient_bot_started_for_it() -> None:
    gm = new_game(reserved=(("FRA", "FRA:"), ("TUR", "TUR:")))
    assert gm.keeps_seat_for("FRA:DumbBot") and not gm.keeps_seat_for("GER:DumbBot")
    assert not gm.keeps_seat_for("DumbBot")
    assert texts(gm.receive("a", "NME ('TUR:DumbBot') ('8~3')", 0.0), "a")[0].startswith("YES")
    assert texts(gm.receive("b", "NME ('FRA:DumbBot') ('8~3')", 0.0), "b")[0].startswith("YES")
    assert gm.roster.power_of("a") == "TUR" and gm.roster.power_of("b") == "FRA"
    assert not gm.keeps_seat_for("FRA:DumbBot")  # taken: a second one is dealt a free power, if any
    gm.receive("c", "NME ('FRA:DumbBot') ('8~3')", 0.0)
    assert gm.roster.power_of("c") not in (None, "FRA", "TUR")


# --- joining again ------------------------------------------------------------------------------------


def test_rejoin_with_iam_and_a_wrong_passcode_refused() -> None:
    gm = new_game()
    by_power, _, _ = start(gm, observer=True)
    eng = by_power["ENG"]
    passcode = gm.roster.players["ENG"].passcode
    assert texts(gm.receive("x", f"IAM (ENG) ({passcode})", 1.0), "x") == [f"REJ (IAM (ENG) ({passcode}))"]
    step = gm.disconnect(eng, 1.0)
    assert texts(step, by_power["FRA"]) == ["CCD (ENG)"] and texts(step, "obs") == ["CCD (ENG)"]
    wrong = passcode % 8191 + 1
    gm.connect("guess", 2.0)
    step = gm.receive("guess", f"IAM (ENG) ({wrong})", 2.0)
    assert texts(step, "guess") == [f"REJ (IAM (ENG) ({wrong}))"] and step.effects[-1] == Close("guess")
    gm.disconnect("guess", 2.0)
    gm.connect("back", 2.0)
    step = gm.receive("back", f"IAM (ENG) ({passcode})", 2.0)
    assert texts(step, "back") == [f"YES (IAM (ENG) ({passcode}))"]
    assert texts(step, by_power["FRA"]) == ["NOT (CCD (ENG))"]
    assert (
        texts(gm.receive("back", "SUB ((ENG FLT LON) MTO NTH)", 3.0), "back")[0] == "THX ((ENG FLT LON) MTO NTH) (MBV)"
    )
    assert texts(gm.receive("back", "HLO", 3.0), "back") == [f"HLO (ENG) ({passcode}) ((LVL 0))"]


def test_a_refused_iam_closes_the_connection_and_what_it_says_after_is_not_heard() -> None:
    gm = new_game()
    by_power, _, _ = start(gm)
    passcode = gm.roster.players["ENG"].passcode
    gm.disconnect(by_power["ENG"], 1.0)
    gm.connect("x", 1.0)
    step = gm.receive("x", f"IAM (ENG) ({passcode % 8191 + 1})", 1.0)
    assert [type(e).__name__ for e in step.effects] == ["Send", "Close"] and step.effects[1] == Close("x")
    assert [r.kind for r in step.records] == ["guess"]  # charged to the seat, and kept
    # closed: even the right passcode, or a request, is not heard until the connection is gone
    assert gm.receive("x", f"IAM (ENG) ({passcode})", 1.0).effects == ()
    assert gm.receive("x", "NOW", 1.0).effects == ()
    assert "ENG" not in gm.roster.connection_of
    # a player (or observer) who says IAM is refused but keeps its connection: nothing is checked
    step = gm.receive(by_power["FRA"], f"IAM (ENG) ({passcode})", 1.0)
    assert texts(step, by_power["FRA"]) == [f"REJ (IAM (ENG) ({passcode}))"]
    assert not any(isinstance(e, Close) for e in step.effects)
    # before the game starts there is nothing to come back to
    forming = new_game()
    forming.connect("a", 0.0)
    forming.receive("a", "NME ('a') ('1')", 0.0)
    code = next(iter(forming.roster.players.values())).passcode
    power = next(iter(forming.roster.players))
    step = forming.receive("b", f"IAM ({power}) ({code})", 0.0)
    assert texts(step, "b") == [f"REJ (IAM ({power}) ({code}))"] and step.effects[-1] == Close("b")


def test_iam_never_takes_the_seat_of_a_connected_player() -> None:
    gm = new_game()
    by_power, _, _ = start(gm, observer=True)
    eng = by_power["ENG"]
    passcode = gm.roster.players["ENG"].passcode
    for i in range(25):  # the right passcode, over and over: never a failure
        step = gm.receive(f"thief{i}", f"IAM (ENG) ({passcode})", 1.0)
        assert texts(step, f"thief{i}") == [f"REJ (IAM (ENG) ({passcode}))"] and step.effects[-1] == Close(f"thief{i}")
        assert texts(step, by_power["FRA"]) == [] and texts(step, eng) == []
    assert gm.roster.connection_of["ENG"] == eng
    assert texts(gm.receive(eng, "SUB ((ENG FLT LON) MTO NTH)", 2.0), eng)[0] == "THX ((ENG FLT LON) MTO NTH) (MBV)"
    # the rightful player drops and comes back at once (no failure was counted against the seat)
    gm.disconnect(eng, 3.0)
    step = gm.receive("back", f"IAM (ENG) ({passcode})", 3.0)
    assert texts(step, "back") == [f"YES (IAM (ENG) ({passcode}))"]
    assert gm.roster.connection_of["ENG"] == "back"


def _seated_from(gm: GameMaster, addresses: dict[str, str]) -> dict[str, str]:
    """Seven players joined from ``addresses`` (conn -> address): power abbreviation -> conn."""
    for conn, address in addresses.items():
        gm.connect(conn, 0.0, address)
        gm.receive(conn, f"NME ('bot {conn}') ('1.0')", 0.0)
    return {gm.roster.power_of(c) or "": c for c in addresses}


def test_a_passcode_from_outside_the_seats_network_is_never_checked_and_locks_nothing() -> None:
    gm = new_game()
    by_power = _seated_from(gm, {c: f"127.0.1.{i + 1}" for i, c in enumerate(CONNS)})
    passcode = gm.roster.players["ENG"].passcode
    home = gm.seats.last_address["ENG"]
    gm.disconnect(by_power["ENG"], 1.0)
    assert gm.seats.network["ENG"] == "127.0.1.0/24"
    # the right passcode from another network: refused, unchecked, counted nowhere
    for i in range(50):
        gm.connect(f"far{i}", 2.0, f"127.{i + 2}.0.9")
        step = gm.receive(f"far{i}", f"IAM (ENG) ({passcode})", 2.0)
        assert texts(step, f"far{i}") == [f"REJ (IAM (ENG) ({passcode}))"] and step.effects[-1] == Close(f"far{i}")
    assert gm.seats.guesses.seen == {}
    gm.connect("back", 3.0, home)
    assert texts(gm.receive("back", f"IAM (ENG) ({passcode})", 3.0), "back") == [f"YES (IAM (ENG) ({passcode}))"]


def test_wrong_passcodes_from_the_seats_network_are_a_budget_its_own_address_does_not_share() -> None:
    gm = new_game()
    by_power = _seated_from(gm, {c: f"127.0.1.{i + 1}" for i, c in enumerate(CONNS)})
    passcode = gm.roster.players["ENG"].passcode
    home = gm.seats.last_address["ENG"]
    gm.disconnect(by_power["ENG"], 1.0)
    wrong = [c for c in range(1, 200) if c != passcode]
    budget = gm.seats.STRANGER_GUESSES
    records = []
    for i in range(budget):  # neighbours in the seat's /24, each address once
        conn = f"n{i}"
        gm.connect(conn, 2.0, f"127.0.1.{100 + i}")
        step = gm.receive(conn, f"IAM (ENG) ({wrong[i]})", 2.0 + i)
        assert texts(step, conn) == [f"REJ (IAM (ENG) ({wrong[i]}))"]
        assert [(r.kind, r.payload["key"]) for r in step.records] == [("guess", "ENG")]
        records += step.records
    # the budget is spent: the right passcode from a neighbour is refused, unchecked
    gm.connect("late", 30.0, "127.0.1.250")
    assert texts(gm.receive("late", f"IAM (ENG) ({passcode})", 30.0), "late")[0].startswith("REJ")
    # a day later it still is (a budget, not a window)
    gm.connect("later", 86_400.0, "127.0.1.251")
    assert texts(gm.receive("later", f"IAM (ENG) ({passcode})", 86_400.0), "later")[0].startswith("REJ")
    assert gm.receive("later", "NOW", 86_400.0).records == ()  # unchecked: nothing more recorded
    # the rightful player, from its own address, is not locked out by its neighbours
    gm.connect("back", 86_401.0, home)
    assert texts(gm.receive("back", f"IAM (ENG) ({passcode})", 86_401.0), "back")[0].startswith("YES")
    # and nothing resets the budget: the game's, for its whole life
    assert gm.seats.guesses.recent("ENG", 86_402.0, float("inf")) == budget


def test_a_seats_network_and_its_wrong_passcodes_are_recorded_and_a_replay_keeps_them() -> None:
    gm = new_game()
    addresses = {c: f"127.0.1.{i + 1}" for i, c in enumerate(CONNS)}
    records = []
    for conn, address in addresses.items():
        gm.connect(conn, 0.0, address)
        records += gm.receive(conn, f"NME ('bot {conn}') ('1.0')", 0.0).records
    joins = [r for r in records if r.kind == "join"]
    assert {r.payload["network"] for r in joins} == {"127.0.1.0/24"}
    eng = next(c for c in CONNS if gm.roster.power_of(c) == "ENG")
    passcode = gm.roster.players["ENG"].passcode
    gm.disconnect(eng, 1.0)
    gm.connect("moved", 2.0, "127.9.9.9")
    assert gm.receive("moved", f"IAM (ENG) ({passcode % 8191 + 1})", 2.0).records == ()  # another network
    for i in range(3):  # three wrong ones from the network: recorded
        gm.connect(f"n{i}", 2.0, f"127.0.1.{50 + i}")
        records += gm.receive(f"n{i}", f"IAM (ENG) ({passcode % 8191 + 1})", 2.0).records
    again = GameMaster.replay("g1", gm.settings, 0.0, records)
    assert again.seats.network["ENG"] == "127.0.1.0/24"
    assert again.seats.guesses.recent("ENG", 3.0, float("inf")) == 3  # a restart forgets none
    again.connect("far", 3.0, "127.9.9.9")
    assert texts(again.receive("far", f"IAM (ENG) ({passcode})", 3.0), "far")[0].startswith("REJ")
    again.connect("near", 3.0, "127.0.1.77")
    assert texts(again.receive("near", f"IAM (ENG) ({passcode})", 3.0), "near")[0].startswith("YES")
    rejoin = again.disconnect("near", 4.0)
    assert rejoin.records == ()


def test_the_guess_budget_is_an_attribute_a_caller_may_change() -> None:
    gm = new_game()
    gm.seats.STRANGER_GUESSES = 1
    by_power, _, _ = start(gm)  # no addresses: every address counts as inside the network
    passcode = gm.roster.players["ENG"].passcode
    gm.disconnect(by_power["ENG"], 0.0)
    gm.receive("g", f"IAM (ENG) ({passcode % 8191 + 1})", 1.0)
    assert texts(gm.receive("h", f"IAM (ENG) ({passcode})", 2.0), "h")[0].startswith("REJ")
    assert type(gm.seats).STRANGER_GUESSES == 20  # the class keeps its default


def test_leaving_before_the_start_frees_the_power() -> None:
    gm = new_game()
    gm.connect("a", 0.0)
    gm.receive("a", "NME ('a') ('1')", 0.0)
    assert len(gm.roster.players) == 1
    step = gm.receive("a", "OFF", 1.0)
    assert step.effects[-1].to == "a" and [r.kind for r in step.records] == ["leave"]
    assert gm.roster.players == {}


# --- press ---------------------------------------------------------------------------------------


def test_press_refused_at_level_0() -> None:
    gm = new_game()
    by_power, _, _ = start(gm)
    eng = by_power["ENG"]
    step = gm.receive(eng, "SND (FRA) (PRP (PCE (ENG FRA)))", 1.0)
    assert texts(step, eng) == ["HUH (SND (FRA) (ERR PRP (PCE (ENG FRA))))"]
    assert texts(step, by_power["FRA"]) == []


def test_press_delivered_at_level_10_to_the_named_power_only() -> None:
    gm = new_game(press_level=10)
    by_power, _, _ = start(gm, observer=True)
    eng, fra = by_power["ENG"], by_power["FRA"]
    step = gm.receive(eng, "SND (FRA) (PRP (PCE (ENG FRA)))", 1.0)
    assert texts(step, eng) == ["YES (SND (FRA) (PRP (PCE (ENG FRA))))"]
    assert texts(step, fra) == ["FRM (ENG) (FRA) (PRP (PCE (ENG FRA)))"]
    assert {s.to for s in step.sends} == {eng, fra}  # not the observer, not the others
    assert [r.kind for r in step.records] == ["press"]
    # above the game's level
    step = gm.receive(eng, "SND (FRA) (PRP (XDO ((ENG FLT LON) MTO NTH)))", 1.0)
    assert texts(step, eng)[0].startswith("HUH (SND (FRA) (ERR PRP")
    # to oneself, to a power in civil disorder, from an observer
    assert texts(gm.receive(eng, "SND (ENG) (PRP (PCE (ENG FRA)))", 1.0), eng)[0].startswith("REJ")
    gm.disconnect(by_power["GER"], 2.0)
    step = gm.receive(eng, "SND (FRA GER) (PRP (PCE (ENG FRA GER)))", 2.0)
    assert texts(step, eng) == ["CCD (GER) (SND (FRA GER) (PRP (PCE (ENG FRA GER))))"]
    assert texts(step, fra) == []
    assert texts(gm.receive("obs", "SND (FRA) (PRP (PCE (ENG FRA)))", 2.0), "obs")[0].startswith("REJ")


def test_snd_naming_a_recipient_twice_or_too_many_is_refused() -> None:
    gm = new_game(press_level=10)
    by_power, _, _ = start(gm, observer=True)
    eng, fra = by_power["ENG"], by_power["FRA"]
    flood = "SND (" + " ".join(["FRA"] * 500) + ") (PRP (PCE (ENG FRA)))"
    step = gm.receive(eng, flood, 1.0)
    assert texts(step, eng) == [f"REJ ({flood})"]
    assert texts(step, fra) == [] and step.records == ()
    step = gm.receive(eng, "SND (FRA GER FRA) (PRP (PCE (ENG FRA GER)))", 1.0)
    assert texts(step, eng) == ["REJ (SND (FRA GER FRA) (PRP (PCE (ENG FRA GER))))"] and texts(step, fra) == []
    # more recipients than powers, all of them known
    many = "SND (" + " ".join(["FRA", "GER", "ITA", "AUS", "RUS", "TUR"] * 2) + ") (PRP (PCE (ENG FRA)))"
    assert texts(gm.receive(eng, many, 1.0), eng)[0].startswith("REJ (SND")
    # each of the six others once: one FRM each
    six = "SND (FRA GER ITA AUS RUS TUR) (PRP (PCE (ENG FRA)))"
    step = gm.receive(eng, six, 1.0)
    assert texts(step, eng) == [f"YES ({six})"]
    assert sorted(s.to for s in step.sends if str(s.message).startswith("FRM")) == sorted(
        c for p, c in by_power.items() if p != "ENG"
    )


def test_relayed_press_naming_a_power_twice_is_delivered_once() -> None:
    gm = new_game(press_level=10)
    by_power, _, _ = start(gm)
    snd = parse("SND (FRA) (PRP (PCE (ENG FRA)))")
    assert isinstance(snd, Snd)
    step = gm.deliver("ENG", ["FRA", "FRA", "FRA"], snd.press, 1.0)
    assert texts(step, by_power["FRA"]) == ["FRM (ENG) (FRA FRA FRA) (PRP (PCE (ENG FRA)))"]


# --- admin messages ---------------------------------------------------------------------------------


def test_adm_only_from_a_connection_that_joined() -> None:
    gm = new_game()
    by_power, _, _ = start(gm, observer=True)
    gm.connect("stranger", 1.0)
    step = gm.receive("stranger", "ADM ('evil') ('server going down')", 1.0)
    assert texts(step, "stranger") == ["REJ (ADM ('evil') ('server going down'))"]
    assert step.records == () and [s.to for s in step.sends] == ["stranger"]
    # a player and an observer may
    step = gm.receive(by_power["ENG"], "ADM ('ENG') ('lagging')", 2.0)
    assert [r.kind for r in step.records] == ["admin"]
    assert {s.to for s in step.sends} == {*by_power.values(), "obs"}
    step = gm.receive("obs", "ADM ('obs') ('hi')", 2.0)
    assert [r.kind for r in step.records] == ["admin"] and texts(step, by_power["FRA"]) == ["ADM ('obs') ('hi')"]
    # a forming game too, from a player who joined but not from a newcomer
    forming = new_game()
    forming.receive("a", "NME ('a') ('1')", 0.0)
    assert [r.kind for r in forming.receive("a", "ADM ('a') ('hello')", 0.0).records] == ["admin"]
    assert texts(forming.receive("b", "ADM ('b') ('hello')", 0.0), "b") == ["REJ (ADM ('b') ('hello'))"]


def test_adm_is_bounded_in_length_and_rate() -> None:
    gm = new_game()
    by_power, _, _ = start(gm, observer=True)
    eng = by_power["ENG"]
    long_text = "a" * (GameMaster.ADM_MAX_TEXT + 1)
    step = gm.receive(eng, f"ADM ('ENG') ('{long_text}')", 1.0)
    assert texts(step, eng)[0].startswith("REJ (ADM") and step.records == ()
    long_name = "n" * (GameMaster.ADM_MAX_NAME + 1)
    assert texts(gm.receive(eng, f"ADM ('{long_name}') ('x')", 1.0), eng)[0].startswith("REJ (ADM")
    edge = "a" * GameMaster.ADM_MAX_TEXT
    assert [r.kind for r in gm.receive(eng, f"ADM ('ENG') ('{edge}')", 1.0).records] == ["admin"]
    # the burst (one already spent), then refusals, then one more a refill later
    burst = GameMaster.ADM_BURST
    kinds = [[r.kind for r in gm.receive(eng, f"ADM ('ENG') ('{i}')", 1.0).records] for i in range(burst + 5)]
    assert kinds == [["admin"]] * (burst - 1) + [[]] * 6
    refused = gm.receive(eng, "ADM ('ENG') ('again')", 1.0)
    assert texts(refused, eng) == ["REJ (ADM ('ENG') ('again'))"] and texts(refused, by_power["FRA"]) == []
    later = 1.0 + 60.0 / GameMaster.ADM_PER_MINUTE
    assert [r.kind for r in gm.receive(eng, "ADM ('ENG') ('later')", later).records] == ["admin"]
    assert gm.receive(eng, "ADM ('ENG') ('too soon')", later).records == ()
    # the bucket is per connection: another player still may
    assert [r.kind for r in gm.receive(by_power["FRA"], "ADM ('FRA') ('x')", 1.0).records] == ["admin"]


# --- the end of the game -----------------------------------------------------------------------


def test_a_whole_game_of_random_orders_to_the_year_limit() -> None:
    gm = new_game(year_limit=1904, deadlines=Deadlines(60, 30, 30))
    by_power, _, _ = start(gm, observer=True)
    rng = random.Random(11)
    now = 0.0
    seen: list[str] = []
    for _ in range(100):
        if gm.state == "over":
            break
        now += 1.0
        for step in play_phase(gm, by_power, rng, now):
            seen += texts(step, "obs")
    assert gm.state == "over"
    assert "DRW" in seen and any(t.startswith("SMR (WIN 1904)") or t.startswith("SMR (SPR 1905)") for t in seen)
    assert gm.next_deadline is None
    assert texts(gm.receive("obs", "SMR", now), "obs")[0] == "DRW"
    assert texts(gm.receive(by_power["ENG"], "SUB ((ENG FLT LON) HLD)", now), by_power["ENG"])[0].startswith("REJ")
    # the history of a turn: its ORD messages, then SCO and NOW
    history = texts(gm.receive("obs", "HST (FAL 1901)", now), "obs")
    assert history[0].startswith("ORD (FAL 1901)") and history[-2].startswith("SCO") and history[-1].startswith("NOW")
    assert texts(gm.receive("obs", "HST (SPR 1950)", now), "obs") == ["REJ (HST (SPR 1950))"]


def test_draw_when_every_surviving_power_asks() -> None:
    gm = new_game()
    by_power, _, _ = start(gm, observer=True)
    for abbreviation in POWERS[:-1]:
        assert texts(gm.receive(by_power[abbreviation], "DRW", 1.0), by_power[abbreviation]) == ["YES (DRW)"]
    last = by_power[POWERS[-1]]
    gm.receive(by_power["AUS"], "NOT (DRW)", 1.0)
    gm.receive(last, "DRW", 1.0)
    assert gm.state == "playing"
    step = gm.receive(by_power["AUS"], "DRW", 2.0)
    assert texts(step, "obs")[0] == "DRW" and texts(step, "obs")[1].startswith("SMR (SPR 1901) (AUS ('bot")
    assert [r.kind for r in step.records] == ["draw", "draw_declared"]


def test_a_solo_ends_the_game_with_slo_and_smr() -> None:
    gm = new_game()
    by_power, _, _ = start(gm)
    centres = "BRE MAR PAR SPA POR BEL LON LVP EDI KIE BER MUN DEN SWE NWY TUN NAP".split()
    gm.board.position = Position.build("F1901M", {"FRA": ["A RUH"], "ENG": ["F NTH"]}, {"FRA": centres})
    gm.receive(by_power["ENG"], "SUB ((ENG FLT NTH) HLD)", 1.0)
    step = gm.receive(by_power["FRA"], "SUB ((FRA AMY RUH) MTO HOL)", 1.0)
    sent = texts(step, by_power["ENG"])
    assert sent[0] == "ORD (FAL 1901) ((ENG FLT NTH) HLD) (SUC)"
    assert [t[:3] for t in sent[2:]] == ["SCO", "SLO", "SMR", "NOW"]
    assert sent[3] == "SLO (FRA)"
    assert gm.state == "over"


# --- records ------------------------------------------------------------------------------------


def state_of(gm: GameMaster) -> tuple:
    return (
        gm.position.to_json(),
        gm.state,
        dict(gm.roster.players),
        {p: {k: str(s.daide) for k, s in given.items()} for p, given in gm.book.pending.items() if given},
        gm.book.holding,
        gm.book.draw_votes,
        gm.deadline,
        gm.eliminated,
        [str(t.now) for t in gm.history],
    )


@pytest.mark.parametrize("seed", [2, 9])
def test_replaying_the_records_rebuilds_the_same_game(seed: int) -> None:
    gm = new_game(deadlines=Deadlines(60, 30, 30), press_level=10)
    by_power, records, _ = start(gm)
    rng = random.Random(seed)
    now = 0.0
    for _ in range(7):
        now += 10.0
        for step in play_phase(gm, by_power, rng, now):
            records += step.records
    # a phase half done: some orders, a NOT (GOF), a draw vote, a cancelled order, press
    for text, conn in [
        ("NOT (GOF)", by_power["TUR"]),
        ("DRW", by_power["AUS"]),
        ("SND (FRA) (PRP (PCE (ENG FRA)))", by_power["ENG"]),
    ]:
        records += gm.receive(conn, text, now + 1).records
    power = gm.must_order()[0]
    conn = by_power[power]
    records += gm.receive(conn, random_orders(gm.position, power, rng), now + 2).records
    records += gm.receive(conn, "NOT (SUB)", now + 3).records
    records += gm.receive(conn, random_orders(gm.position, power, rng), now + 4).records
    records += gm.tick(now + 5).records  # before the deadline: nothing
    as_dicts = json.loads(json.dumps([{"kind": e.kind, "payload": e.payload} for e in records]))
    copy = GameMaster.replay("g1", gm.settings, 0.0, as_dicts)
    assert state_of(copy) == state_of(gm)
    assert all(p is None for p in copy.roster.connection_of.values())  # everyone rejoins with IAM
    # and the copy plays on like the original
    assert copy.tick(gm.next_deadline or 0).records[0].kind == "adjudicate"
    gm.tick(gm.next_deadline or 0)
    assert state_of(copy) == state_of(gm)


def _joined_with_sessions(gm: GameMaster) -> tuple[dict[str, str], dict[str, str], list[Record]]:
    """Seven players joined: conn by power, and the session token each got in the server's ADM."""
    sessions: dict[str, str] = {}
    records: list[Record] = []
    for conn in CONNS:
        gm.connect(conn, 0.0)
        step = gm.receive(conn, f"NME ('bot {conn}') ('1.0')", 0.0)
        records += step.records
        adm = [parse(t) for t in texts(step, conn) if t.startswith("ADM ('detente') ('session ")]
        assert len(adm) == 1
        sessions[conn] = adm[0].session  # type: ignore[union-attr]
    by_power = {gm.roster.power_of(c) or "": c for c in CONNS}
    return by_power, sessions, records


def test_the_session_token_is_given_once_recorded_as_a_digest_and_takes_a_connected_seat() -> None:
    gm = new_game()
    by_power, sessions, records = _joined_with_sessions(gm)
    assert len(set(sessions.values())) == 7 and all(len(s) == 22 for s in sessions.values())
    stored = json.dumps([r.payload for r in records])
    assert not any(token in stored for token in sessions.values())  # only the digest is kept
    eng = by_power["ENG"]
    # the passcode never takes a connected seat; the session token does, and the older
    # connection is told, sent OFF and closed, and nobody sees a civil disorder
    gm.connect("thief", 1.0)
    passcode = gm.roster.players["ENG"].passcode
    assert texts(gm.receive("thief", f"IAM (ENG) ({passcode})", 1.0), "thief") == [f"REJ (IAM (ENG) ({passcode}))"]
    gm.connect("phone", 2.0)
    step = gm.receive("phone", f"IAM (ENG) ('{sessions[eng]}')", 2.0)
    assert texts(step, "phone") == [f"YES (IAM (ENG) ('{sessions[eng]}'))"]
    told = texts(step, eng)
    assert told[0].startswith("ADM ('detente') ('another connection took this seat") and told[1] == "OFF"
    assert any(isinstance(e, Close) and e.to == eng for e in step.effects)
    assert not any("CCD" in t for c in CONNS for t in texts(step, c))
    assert gm.roster.power_of("phone") == "ENG" and gm.roster.power_of(eng) is None
    assert gm.receive(eng, "NOW", 3.0).effects == ()  # the closed connection is no longer heard
    # its going away later changes nothing for the seat
    assert not any("CCD" in t for c in CONNS for t in texts(gm.disconnect(eng, 4.0), c))
    assert gm.roster.connection_of["ENG"] == "phone"


def test_wrong_session_tokens_are_refused_and_lock_nothing_and_a_replay_keeps_the_tokens() -> None:
    gm = new_game()
    by_power, sessions, records = _joined_with_sessions(gm)
    fra = by_power["FRA"]
    gm.disconnect(fra, 1.0)
    for i in range(25):
        gm.connect(f"x{i}", 2.0)
        step = gm.receive(f"x{i}", f"IAM (FRA) ('forged{i}')", 2.0)
        assert texts(step, f"x{i}") == [f"REJ (IAM (FRA) ('forged{i}'))"]
        assert any(isinstance(e, Close) for e in step.effects)
    # the game rebuilt from its records (a restart) still knows the token
    again = GameMaster.replay("g1", gm.settings, 0.0, records, rng=random.Random(1))
    again.connect("back", 3.0)
    assert texts(again.receive("back", f"IAM (FRA) ('{sessions[fra]}')", 3.0), "back")[0].startswith("YES (IAM")
    # and a client may not send an ADM in the server's name
    ger = by_power["GER"]
    forged = "ADM ('detente') ('session AAAAAAAAAAAAAAAAAAAAAA')"
    assert texts(gm.receive(ger, forged, 4.0), ger) == [f"REJ ({forged})"]


def test_a_players_tme_alarms_are_recorded_and_ring_on_its_new_connection_after_a_replay() -> None:
    gm = new_game(deadlines=Deadlines(movement=100.0, retreat=100.0, adjustment=100.0))
    by_power, sessions, records = _joined_with_sessions(gm)
    eng = by_power["ENG"]
    step = gm.receive(eng, "TME (30)", 1.0)
    assert texts(step, eng) == ["YES (TME (30))"] and [r.kind for r in step.records] == ["alarm"]
    records += step.records
    again = GameMaster.replay("g1", gm.settings, 0.0, records, rng=random.Random(1))
    assert again.clock.alarms == {"ENG": {30}}
    again.connect("back", 2.0)
    again.receive("back", f"IAM (ENG) ('{sessions[eng]}')", 2.0)
    deadline = again.deadline
    assert deadline is not None and again.next_deadline == deadline - 30
    assert "TME (30)" in texts(again.tick(deadline - 29.0), "back")
    # NOT (TME) cancels them, recorded too
    step = again.receive("back", "NOT (TME)", deadline - 20.0)
    assert [r.kind for r in step.records] == ["alarm"] and again.clock.alarms == {}


def test_a_full_game_waits_for_its_players_maps_or_map_wait_and_a_replay_starts_it_where_it_started() -> None:
    """AiClient bots ask for the map's definition before they answer MAP and drop a NOW that
    comes first: with MAP_WAIT set (a server sets it) nobody is greeted before its map."""
    gm = new_game()
    gm.MAP_WAIT = 5.0
    records: list[Record] = []
    for conn in CONNS:
        gm.connect(conn, 0.0)
        step = gm.receive(conn, f"NME ('bot {conn}') ('1.0')", 1.0)
        records += step.records
        assert not any(t.startswith(("HLO", "NOW")) for c in CONNS for t in texts(step, c))
    assert gm.state == "forming" and not gm.open_seats and gm.next_deadline == 6.0
    for conn in CONNS[:6]:
        step = gm.receive(conn, "YES (MAP ('standard'))", 2.0)
        assert gm.state == "forming" and not step.sends
    step = gm.receive(CONNS[6], "YES (MAP ('standard'))", 3.0)  # the last map: greeted at once
    records += step.records
    assert gm.state == "playing" and [r.kind for r in step.records] == ["start"]
    assert all(any(t.startswith("HLO") for t in texts(step, c)) for c in CONNS)
    # one that never answers is greeted MAP_WAIT seconds after the last NME
    late = new_game()
    late.MAP_WAIT = 5.0
    for conn in CONNS:
        late.connect(conn, 0.0)
        late.receive(conn, f"NME ('bot {conn}') ('1.0')", 1.0)
    assert late.tick(5.9).sends == () and late.state == "forming"
    assert late.tick(6.0).records[0].kind == "start" and late.state == "playing"
    # the replay starts the game at its start record, not at the last join
    again = GameMaster.replay("g1", gm.settings, 0.0, records, rng=random.Random(1))
    assert again.state == "playing" and again.deadline == gm.deadline


def test_a_stored_phase_after_which_the_game_was_won_replays() -> None:
    """The last adjudicate record of a solo stores its position as ``COMPLETED`` (no phase to
    read back): a replay must take it, not fail (it did, for every game won outright)."""
    from engine import adjudicate
    from engine.orders import parse_order
    m = standard_map()
    owned = ["PAR", "MAR", "BRE", "SPA", "POR", "BEL", "HOL", "LON", "LVP", "EDI", "NWY", "SWE", "DEN", "KIE",
             "BER", "MUN", "ROM"]  # fmt: skip
    before = Position.build("F1905M", {"FRA": ["A PIE"]}, {"FRA": owned}, m=m)
    won = adjudicate(before, {"FRA": [parse_order(m, "A PIE - VEN")]}).position
    assert won.completed and won.to_json()["phase"] == "COMPLETED"
    assert Position.from_json(won.to_json(), m, played=before.phase) == won
    again = Position.from_json(before.to_json(), m, played=before.phase)
    assert again == before and not again.completed


def test_a_power_is_complete_exactly_when_its_mis_is_bare() -> None:
    """``_complete`` (the quick answer every SUB asks) never drifts from ``missing`` (MIS):
    checked for every power before, between and after partial submissions, through random games."""
    checked = 0
    for seed in range(3):
        rng = random.Random(seed)
        gm = new_game(rng_seed=seed)
        by_power, _, _ = start(gm)
        now = 0.0
        for _ in range(40):  # phases, at most
            if gm.state != GameState.PLAYING or gm.position.phase.year >= 1905:
                break
            before = gm.position
            for power in gm.must_order():
                conn = by_power[power]
                orders = random_orders(gm.position, power, rng).orders
                cut = rng.randrange(len(orders) + 1)
                for part in (orders[:cut], orders[cut:]):
                    for p in gm.powers:
                        assert gm.book.complete(gm.position, p) == (gm.missing(p) == Mis()), (str(gm.position.phase), p)
                        checked += 1
                    if part:
                        gm.receive(conn, Sub(tuple(part)), now)
            assert gm.position is not before, "every order given: the phase is played"
            now += 1.0
    assert checked > 500
