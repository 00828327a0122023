"""Negotiation as actions (issue 30): L messages through the referee's negotiation, deals the
notary confirms, bindings that replace the orders given, compliance reports, and bad input
answered with the protocol's own errors. Budget: about 10 s."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

import arena
from arena.talk import MAX_MESSAGES, MAX_TEXT
from engine import parse_order
from referee.settings import GameSettings

DEAL = "Commit(fra, eng, Do(mto(Unit(fra, Region(bre, coast)), Region(mao, sea))))"


def _act(env, agent: str, orders: list[str] = (), messages: tuple[str, ...] = ()) -> dict:
    action = np.zeros(len(env.map.locations), dtype=np.int64)
    for text in orders:
        location, index = env.words.index(parse_order(env.map, text))
        action[location] = index
    return {"orders": action, "messages": messages}


def _play(binding: bool) -> tuple[arena.DiplomacyEnv, list[dict], list[dict]]:
    env = arena.parallel_env(opponents="holdbot", learners=("ENG", "FRA"), negotiation=GameSettings(binding=binding))
    observations, infos = env.reset(seed=1)
    assert observations["ENG"]["round"].tolist() == [0]
    seen, frames = [], []
    for k in range(3):  # talk: France proposes; talk: England accepts; the orders: France breaks the deal
        actions = {
            "ENG": _act(env, "ENG", messages=(f"accept(eng, fra, {DEAL})",) if k == 1 else ()),
            "FRA": _act(
                env, "FRA", ["F BRE - ENG"] if k == 2 else [], (f"propose(fra, eng, {DEAL})",) if k == 0 else ()
            ),
        }
        observations, _, _, _, infos = env.step(actions)
        seen.append(observations)
        frames.append(infos)
    return env, seen, frames


def test_a_deal_proposed_and_accepted_is_confirmed_and_bound() -> None:
    env, seen, frames = _play(binding=True)
    assert seen[0]["ENG"]["messages"] == (f"propose(fra, [eng], {DEAL.replace('eng,', '[eng],')})",)
    assert str(env.position.phase) == "F1901M" and seen[1]["ENG"]["round"].tolist() == [2]
    assert [f["type"] for f in frames[1]["FRA"]["negotiation"] if f["type"] == "accepted"] == ["accepted"]
    assert seen[1]["FRA"]["commitments"] == seen[1]["ENG"]["commitments"] != ()
    # France ordered F BRE - ENG; the binding put its committed order in its place
    assert "F MAO" in [env.position.unit_name(u) for u in env.position.units]
    reports = [f for f in frames[2]["FRA"]["negotiation"] if f["type"] == "compliance"]
    assert reports and all(r["kept"] for report in reports for r in report["reports"]), reports


def test_without_binding_the_broken_deal_is_reported() -> None:
    env, _, frames = _play(binding=False)
    assert "F ECH" in [env.position.unit_name(u) for u in env.position.units]
    reports = [r for f in frames[2]["ENG"]["negotiation"] if f["type"] == "compliance" for r in f["reports"]]
    assert reports and not any(r["kept"] for r in reports), reports


def test_bad_messages_get_the_protocols_own_errors() -> None:
    env = arena.parallel_env(learners=("ENG",), opponents="holdbot", negotiation=True)
    env.reset(seed=2)
    texts = ("propose(eng, fra, pce(", "propose(fra, eng, Agree([eng fra], pce([eng fra])))", "x" * (MAX_TEXT + 1), 7)
    texts += ("propose(eng, fra, Agree([eng fra], pce([eng fra])))",) * (MAX_MESSAGES - len(texts) + 2)
    *_, infos = env.step({"ENG": {"orders": np.zeros(81, dtype=np.int64), "messages": texts}})
    frames = [f for f in infos["ENG"]["negotiation"] if f["type"] in ("error", "ack")]
    codes = [f.get("code", f["type"]) for f in frames]
    assert codes[:4] == ["syntax", "identity", "size", "size"]
    assert codes[4:] == ["ack"] * (MAX_MESSAGES - 4) + ["size"]


def test_the_negotiating_env_passes_pettingzoos_api_test() -> None:
    parallel_api_test(arena.parallel_env(year_limit=1901, negotiation=True, rounds=1), num_cycles=12)


def test_games_of_a_vector_env_negotiate_apart() -> None:
    env = arena.VectorEnv(2, negotiation=True, rounds=1, year_limit=1902)
    env.reset(seed=3)
    sample = env.sample()
    actions = {a: {"orders": sample[a], "messages": [(), ()]} for a in env.possible_agents}
    actions["FRA"]["messages"] = [("propose(fra, eng, Agree([eng fra], pce([eng fra])))",), ()]
    observations, *_ = env.step(actions)
    assert observations["ENG"]["messages"][0] and observations["ENG"]["messages"][1] == ()
    assert observations["ENG"]["round"][:, 0].tolist() == [1, 1]
    observations, *_ = env.step(actions)  # the orders: the phase moves on in both games
    assert [str(env.position(i).phase) for i in range(2)] == ["F1901M", "F1901M"]


@pytest.mark.parametrize("rounds", [-1])
def test_a_negative_number_of_rounds_is_refused(rounds: int) -> None:
    with pytest.raises(ValueError, match="rounds"):
        arena.VectorEnv(1, negotiation=True, rounds=rounds)


def test_one_text_is_one_message() -> None:
    env = arena.parallel_env(learners=("ENG",), opponents="holdbot", negotiation=True)
    env.reset(seed=2)
    text = "propose(eng, fra, Agree([eng fra], pce([eng fra])))"
    *_, infos = env.step({"ENG": {"orders": np.zeros(81, dtype=np.int64), "messages": text}})
    assert [f["type"] for f in infos["ENG"]["negotiation"] if f["type"] in ("ack", "error")] == ["ack"]


def test_a_game_that_ends_keeps_its_last_messages_in_the_final_observation() -> None:
    env = arena.VectorEnv(1, negotiation=True, rounds=0, year_limit=1901)
    env.reset(seed=5)
    text = "propose(fra, eng, Agree([eng fra], pce([eng fra])))"
    env.step({})  # spring
    _, _, _, truncations, infos = env.step(
        {"FRA": {"orders": np.zeros((1, 81), dtype=np.int64), "messages": [(text,)]}}
    )
    if not truncations["ENG"][0]:  # a winter to play first
        _, _, _, truncations, infos = env.step({})
    assert truncations["ENG"][0] and infos["ENG"]["_final_observation"][0]
    final = infos["ENG"]["final_observation"]
    assert env.observation_space("ENG").contains({k: v[0] for k, v in final.items()})
    frames = [f["type"] for f in infos["ENG"]["negotiation"][0]]
    assert "over" in frames or "phase" in frames
