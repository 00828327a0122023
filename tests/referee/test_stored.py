"""The records name a power by its full name, as the store always has, whatever the game's
parts call it; a store written in either spelling replays to the same game."""

from __future__ import annotations

import json
import random

from engine import standard_map
from referee.deadlines import Deadlines
from referee.game import GameMaster
from referee.game.stored import POWER_FIELDS, from_store, to_store
from tests.referee.test_game_master import new_game, play_phase, start, state_of

M = standard_map()


def test_every_field_of_a_power_is_written_by_its_full_name_and_read_back_as_its_token() -> None:
    for kind, (powers, keyed) in POWER_FIELDS.items():
        for token, full in M.power_names.items():
            payload = {"at": 1.0, **dict.fromkeys(powers, token), **{k: {token: ["x"]} for k in keyed}}
            stored = to_store(kind, payload, M.power_names)
            assert all(stored[f] == full for f in powers) and all(stored[k] == {full: ["x"]} for k in keyed)
            assert from_store(kind, stored, M) == payload
            assert from_store(kind, payload, M) == payload  # a token read as it is


def test_press_keeps_the_tokens_it_was_sent_with() -> None:
    payload = {"at": 1.0, "sender": "ENG", "recipients": ["FRA"], "press": "PRP (PCE (ENG FRA))"}
    assert to_store("press", payload, M.power_names) == payload


def test_the_records_of_a_game_hold_full_names_and_replay_in_either_spelling() -> None:
    gm = new_game(deadlines=Deadlines(60, 30, 30), press_level=10)
    by_power, records, _ = start(gm)
    rng = random.Random(4)
    for turn in range(3):
        for step in play_phase(gm, by_power, rng, 10.0 * (turn + 1)):
            records += step.records
    written = json.loads(json.dumps([{"kind": e.kind, "payload": e.payload} for e in records]))
    joins = [r["payload"]["power"] for r in written if r["kind"] == "join"]
    assert sorted(joins) == sorted(M.power_names.values())
    given = next(r["payload"]["given"] for r in written if r["kind"] == "adjudicate")
    assert set(given) <= set(M.power_names.values())
    # the same records with tokens, as a store of this game could never have held them
    tokens = [{"kind": r["kind"], "payload": from_store(r["kind"], r["payload"], M)} for r in written]
    assert any(r["payload"].get("power") == "ENG" for r in tokens)
    for stored in (written, tokens):
        copy = GameMaster.replay("g1", gm.settings, 0.0, stored)
        assert state_of(copy) == state_of(gm)
        # each phase adjudicated again is the one stored (its units listed otherwise, by power)
        assert copy.mismatches == []
