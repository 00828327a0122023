"""The house's rules in the game master, sans I/O: bots' seats, stand-ins, returns, replays."""

from __future__ import annotations

import random

from protocol.daide.messages import Adm, Hlo, Now, Off
from referee.effects import Close, Record
from referee.game import GameMaster
from referee.game.house import HOUSE_VERSION, PLAYED_YOURS, PLAYER_BACK
from referee.settings import GameSettings
from tests.referee.test_game_master import random_orders, texts

BOTS = (("AUS", "holdbot"), ("GER", "holdbot"), ("ITA", "holdbot"), ("RUS", "holdbot"), ("TUR", "holdbot"))


def two_people(after: float = 10.0) -> tuple[GameMaster, dict[str, str], list[Record]]:
    """England and France joined by people at 0 s, five holdbots seated by the house: playing
    (the game, each power's connection, the records written)."""
    settings = GameSettings(
        bots=BOTS, reserved=(("ENG", "eng"), ("FRA", "fra")), stand_in="dumbbot", stand_in_after=after
    )
    gm = GameMaster("g1", settings, now=0.0, rng=random.Random(3))
    assert gm.house_wanted() == list(BOTS)
    conns, records = {}, []
    for power, name in (("ENG", "eng"), ("FRA", "fra")):
        gm.connect(name, 0.0)
        records += gm.receive(name, f"NME ('{name}') ('1.0')", 0.0).records
        conns[power] = name
    for i, (power, bot) in enumerate(BOTS):
        step = gm.house(f"h{i}", power, bot, 0.0)
        assert [r.payload["version"] for r in step.records if r.kind == "join"] == [HOUSE_VERSION]
        records += step.records
        conns[power] = f"h{i}"
    assert gm.state.value == "playing" and gm.house_wanted() == []
    return gm, conns, records


def test_a_bots_seat_is_kept_for_the_house_and_nme_never_takes_it() -> None:
    gm = GameMaster("g1", GameSettings(bots=(("ENG", "dumbbot"),)), now=0.0, rng=random.Random(1))
    for i in range(6):
        gm.connect(f"c{i}", 0.0)
        gm.receive(f"c{i}", f"NME ('p{i}') ('1.0')", 0.0)
    assert "ENG" not in gm.roster.players
    gm.connect("late", 0.0)
    assert texts(gm.receive("late", "NME ('late') ('1.0')", 0.0), "late") == ["REJ (NME ('late') ('1.0'))"]
    assert gm.house_wanted() == [("ENG", "dumbbot")]
    step = gm.house("h", "ENG", "holdbot", 1.0)  # not the game's bot: refused, closed
    assert "ENG" not in gm.roster.players and any(isinstance(e, Close) and e.to == "h" for e in step.effects)
    gm.house("h2", "ENG", "dumbbot", 1.0)
    assert gm.roster.players["ENG"].name == "dumbbot" and gm.state.value == "playing"


def test_a_stand_in_comes_after_the_time_only_while_another_person_is_there() -> None:
    gm, conns, _ = two_people(after=10.0)
    gm.disconnect(conns["FRA"], 5.0)
    assert gm.next_deadline == 15.0 and gm.house_wanted() == []
    gm.tick(14.9)
    assert gm.house_wanted() == []
    gm.tick(15.0)
    assert gm.house_wanted() == [("FRA", "dumbbot")]
    assert gm.next_deadline is None  # wanted, not due again: a server with no house is not woken for ever
    gm.disconnect(conns["ENG"], 16.0)  # nobody else: the game waits for its people
    assert gm.house_wanted() == []
    assert gm.people_away_since() == 16.0


def test_a_stand_in_orders_for_the_power_and_leaves_when_its_player_comes_back() -> None:
    gm, conns, _ = two_people(after=10.0)
    passcode = gm.roster.players["FRA"].passcode
    gm.disconnect(conns["FRA"], 1.0)
    gm.tick(11.0)
    step = gm.house("s", "FRA", "dumbbot", 11.0)
    assert [(r.kind, r.payload) for r in step.records] == [
        ("stand_in", {"at": 11.0, "power": "FRANCE", "bot": "dumbbot", "phase": "S1901M"})
    ]
    sent = [s.message for s in step.sends if s.to == "s"]
    assert isinstance(sent[0], Hlo) and sent[0].power == "FRA" and isinstance(sent[-1], Now)
    told = [s.message for s in step.sends if s.to == "eng"]
    assert told == [Adm("detente", "France is played by dumbbot until its player returns")]
    view = {s.power: s for s in gm.view().seats}["FRA"]
    assert (view.stand_in, view.connected, view.civil_disorder) == ("dumbbot", False, False)
    rng, conns["FRA"] = random.Random(5), "s"
    for power in gm.must_order():
        gm.receive(conns[power], random_orders(gm.position, power, rng), 12.0)
    assert str(gm.position.phase) == "F1901M"  # the stand-in's orders were France's
    gm.connect("back", 20.0)
    step = gm.receive("back", f"IAM (FRA) ({passcode})", 20.0)  # the passcode: the stand-in is no player
    assert texts(step, "back") == [
        f"YES (IAM (FRA) ({passcode}))",
        f"ADM ('detente') ('dumbbot {PLAYED_YOURS}')",
    ]
    assert [s.message for s in step.sends if s.to == "s"][:2] == [Adm("detente", PLAYER_BACK), Off()]
    assert [r.kind for r in step.records] == ["returned"]
    view = {s.power: s for s in gm.view().seats}["FRA"]
    assert (view.stand_in, view.connected) == (None, True)


def test_a_replay_keeps_the_stand_in_and_the_house_is_asked_for_it_again() -> None:
    gm, conns, records = two_people(after=10.0)
    gm.disconnect(conns["FRA"], 1.0)
    gm.tick(11.0)
    records += gm.house("s", "FRA", "dumbbot", 11.0).records
    again = GameMaster.replay("g1", gm.settings, 0.0, records)
    assert again.seats.stood_in == {"FRA": "dumbbot"}
    assert again.house_wanted() == [*BOTS, ("FRA", "dumbbot")]  # every bot, and the stand-in
    again.vacate(30.0)  # the restart: every person is away from now
    assert again.next_deadline == 40.0  # England's time runs from the restart, not from before


def test_an_eliminated_power_is_never_stood_in_for() -> None:
    gm, conns, _ = two_people(after=1.0)
    gm.board.eliminated["FRA"] = 1902  # as the board marks a power that lost its last centre
    gm.disconnect(conns["FRA"], 0.0)
    gm.tick(5.0)
    assert gm.house_wanted() == []


def test_the_seats_still_empty_after_the_last_join_get_bots_and_the_game_starts() -> None:
    settings = GameSettings(fill_with="holdbot", fill_after=10.0, reserved=(("TUR", "kept"),))
    gm = GameMaster("g1", settings, now=0.0, rng=random.Random(2))
    assert gm.next_deadline is None  # nobody came: nothing to fill for
    records: list[Record] = []
    for name, at in (("ann", 0.0), ("bob", 5.0)):
        gm.connect(name, at)
        records += gm.receive(name, f"NME ('{name}') ('1.0')", at).records
    assert gm.next_deadline == 15.0  # from the last join
    assert gm.tick(14.0).records == ()
    step = gm.tick(15.0)
    [fill] = step.records
    empty = sorted(set(gm.powers) - set(gm.roster.players) - {"TUR"})
    assert fill.kind == "fill" and sorted(fill.payload["bots"]) == sorted(gm.map.power_names[p] for p in empty)
    assert "TUR" not in fill.payload["bots"].values()  # a seat kept for a name is not a bot's
    assert [t for t in texts(step, "ann") if t.startswith("ADM")] == [
        "ADM ('detente') ('4 empty seats are played by holdbot: the game starts')"
    ]
    assert gm.house_wanted() == [(p, "holdbot") for p in empty]
    records += step.records
    again = GameMaster.replay("g1", settings, 0.0, records)
    assert again.house_wanted() == gm.house_wanted()  # the fill is kept: a restart seats the same bots
    for i, power in enumerate(empty):
        gm.house(f"h{i}", power, "holdbot", 15.0)
    view = {s.power: s for s in gm.view().seats}
    assert [view[p].bot for p in empty] == ["holdbot"] * 4 and view["TUR"].bot is None
    gm.connect("kept", 16.0)
    gm.receive("kept", "NME ('kept') ('1.0')", 16.0)
    assert gm.state.value == "playing"


def test_a_bot_seated_again_gets_a_new_session_token_which_a_replay_keeps() -> None:
    gm, conns, records = two_people()
    old = gm.roster.players["AUS"].session
    gm.disconnect(conns["AUS"], 2.0)  # the house's bot went (a restart, a bot that failed)
    assert ("AUS", "holdbot") in gm.house_wanted()
    step = gm.house("again", "AUS", "holdbot", 3.0)
    [record] = step.records
    assert record.kind == "session" and record.payload["session"] != old
    adm = next(s.message for s in step.sends if s.to == "again" and isinstance(s.message, Adm))
    assert adm.session is not None and gm.session("AUS", adm.session)  # the new token opens the seat
    again = GameMaster.replay("g1", gm.settings, 0.0, [*records, *step.records])
    assert again.session("AUS", adm.session)
