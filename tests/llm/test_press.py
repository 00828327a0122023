"""Model seats negotiating: L checked at the game's levels, English through the dialogue
assistant, incoming press marked with its sender, and what the notary confirmed in the records.

Time budget: about 15 s.
"""

from __future__ import annotations

import json
from pathlib import Path

from detente.diplomacy import summarise_diplomacy
from engine.powers import Power
from tests.llm.conftest import play
from tests.llm.standin import StandIn

#: The scripted model proposes peace to the first of eng, fra, ger... that is not itself: the two
#: model seats play England and France, so that each proposes to the other.
FIRST_TWO = ("ENG", "FRA", "AUS", "GER", "ITA", "RUS", "TUR")


def two_models(provider: StandIn, press: str) -> str:
    return f'[defaults]\npress = "{press}"\n[profiles.a]\nmodel = "good"\nbase_url = "{provider.base_url}"\n'


def test_two_models_agree_in_l_and_the_notary_confirms_it(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, ["llm:a", "llm:a", "holdbot"], config=two_models(provider, "l"), powers=FIRST_TWO)
    record = ran.record()
    models = {Power.of(p) for p, bot in record["bots"].items() if bot == "llm:a"}  # the file's full names, read
    kinds = {(m["sender"], m["kind"]) for m in record["messages"]}
    assert any(kind == "propose" for _, kind in kinds) and any(kind == "accept" for _, kind in kinds)
    confirmed = [e for e in record["events"] if e["type"] == "confirmed"]
    assert confirmed and {p for e in confirmed for p in e["participants"]} <= models
    row = next(r for r in summarise_diplomacy([record]) if r["bot"] == "llm:a")
    assert row["totals"]["confirmed"] == 2 * len(confirmed)  # each deal has two parties, both model seats
    assert row["totals"]["proposed"] >= 1 and row["totals"]["accepted"] >= 1
    seat = ran.seat
    assert seat["press_sent"] == len(record["messages"]) and seat["press_refused"] == 0


def test_english_press_becomes_l_through_the_dialogue_assistant(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, ["llm:a", "llm:a", "holdbot"], config=two_models(provider, "english"), powers=FIRST_TWO)
    record = ran.record()
    assert {m["kind"] for m in record["messages"]} >= {"propose", "accept"}
    assert any(e["type"] == "confirmed" for e in record["events"])
    english = [c for c in ran.calls() if c["task"] == "press" and '"text"' in (c["response"] or "")]
    assert english, "the model wrote English"


def test_incoming_press_reaches_the_model_in_english_marked_with_its_sender(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, ["llm:a", "llm:a", "holdbot"], config=two_models(provider, "l"), powers=FIRST_TWO)
    record = ran.record()
    said = {(m["sender"], m["text"]) for m in record["messages"]}
    shown = []
    for call in ran.calls():
        content = call["request"]["messages"][1]["content"]
        line = next(x for x in content.splitlines() if x.startswith("INCOMING (JSON): "))
        shown += json.loads(line.removeprefix("INCOMING (JSON): "))
    assert shown
    tokens = {
        "AUSTRIA": "AUS",
        "ENGLAND": "ENG",
        "FRANCE": "FRA",
        "GERMANY": "GER",
        "ITALY": "ITA",
        "RUSSIA": "RUS",
        "TURKEY": "TUR",
    }
    for item in shown:
        assert (tokens[item["from"]], item["l"]) in said  # only what that player said, under its name
        assert item["english"] and "(" not in item["english"]


def test_l_above_the_games_levels_is_sent_back_and_not_said(provider: StandIn, tmp_path: Path) -> None:
    config = f'[profiles.a]\nmodel = "invalid"\nbase_url = "{provider.base_url}"\n'
    ran = play(tmp_path, ["llm:a", "holdbot"], config=config)
    assert ran.record()["messages"] == [] and ran.seat["press_refused"] > 0 and ran.seat["repairs"] > 0
