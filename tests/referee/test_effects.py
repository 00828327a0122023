"""The referee's values at its edges: settings, notices, effects and the feed into a negotiation."""

from __future__ import annotations

import random

import pytest

from protocol.daide.parser import parse
from referee import notices
from referee.deadlines import Deadlines
from referee.effects import Bind, Notify, Reply, Send
from referee.game import GameMaster
from referee.negotiation import Negotiation
from referee.notices import GameNotice, OverNotice, PhaseNotice, PressNotice, ResultsNotice
from referee.settings import GameSettings

SETTINGS = GameSettings(press_level=10, binding=True, deadlines=Deadlines(60, 30, None), reserved=(("FRA", "x"),))

NOTICES = [
    GameNotice("g", SETTINGS, "playing", "S1901M", "movement", 12.5),
    GameNotice("g", GameSettings(), "forming", None, None, None),
    PhaseNotice("g", "F1901M", "movement", None),
    ResultsNotice("g", "S1901M", {"FRA": ("A PAR - BUR",)}, {"A PAR": ("ok",)}, {"phase": "S1901M"}, {}),
    PressNotice("g", "S1901M", "FRA", ("ENG", "GER"), "PRP (PCE (FRA ENG))"),
    OverNotice("g", "W1905A", None, ("ENG", "FRA")),
]


@pytest.mark.parametrize("notice", NOTICES, ids=lambda n: type(n).__name__)
def test_every_notice_travels_as_json_and_back(notice: notices.Notice) -> None:
    assert notices.from_json(notices.to_json(notice)) == notice


@pytest.mark.parametrize(
    "frame",
    [{"type": "phase"}, {"type": "phase", "game": "g"}, {"type": "auth", "game": "g"}, {"type": "over", "game": 3}],
)
def test_a_frame_that_is_no_notice_is_refused(frame: dict) -> None:
    with pytest.raises(ValueError):
        notices.from_json(frame)


def test_settings_travel_as_json_and_check_what_they_hold() -> None:
    assert GameSettings.from_json(SETTINGS.to_json()) == SETTINGS
    assert GameSettings(l_levels="3, 1-2").l_levels == "1-3"  # one canonical text
    for bad in ({"protocol": "loud"}, {"press_phases": ("lunch",)}, {"l_levels": "9"}, {"press_level": -10}):
        with pytest.raises(ValueError):
            GameSettings(**bad)  # type: ignore[arg-type]


def test_the_game_master_tells_the_negotiation_what_happens() -> None:
    gm = GameMaster("g", GameSettings(name="t"), now=0.0, rng=random.Random(1))
    told = []
    for i in range(7):
        step = gm.receive(f"c{i}", parse(f"NME ('p{i}') ('1')"), now=1.0)
        told += [e.notice for e in step.effects if isinstance(e, Notify)]
    assert told == [PhaseNotice("g", "S1901M", "movement", None)]
    n = Negotiation("g", GameSettings())
    step = n.feed(told[0])
    assert n.window_open and [r.kind for r in step.records] == ["phase"]
    assert {s.to for s in step.sends} == {"AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"}


def test_a_confirmed_binding_deal_asks_the_game_master_to_bind_with_an_id_from_its_record() -> None:
    n = Negotiation("g", GameSettings(binding=True))
    n.feed(PhaseNotice("g", "S1901M", "movement", None))
    deal = "[Commit(fra, ger, Do(mto(Unit(fra, Region(par, amy)), Region(bur, amy)))) Commit(ger, fra, pce([fra ger]))]"
    n.say("FRA", f"propose(fra, ger, {deal})")
    step = n.say("GER", f"accept(ger, fra, {deal})")
    assert step.reply is not None and step.reply["type"] == "ack"
    binds = [e for e in step.effects if isinstance(e, Bind)]
    [record] = [r for r in step.records if r.kind == "message"]
    assert binds == [Bind(f"bind:{record.payload['seq']}", "S1901M", {"FRA": ("A PAR - BUR",)})]
    assert isinstance(step.effects[0], Reply)  # the answer comes first, then the frames, then the requests
    assert isinstance(step.effects[-1], Bind) and any(isinstance(e, Send) for e in step.effects)
