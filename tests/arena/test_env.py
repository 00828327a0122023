"""The learning environment (issue 30, first part): PettingZoo's own API tests, the action
vocabulary against the engine's legal orders, masks, seeds, opponents. Budget: about 10 s."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

import arena
from arena import diplomacy_v0
from arena.observation import observe
from arena.vocabulary import Vocabulary
from engine import Game, Position, legal_orders, standard_map
from engine.orders import Waive


def test_the_parallel_env_and_its_aec_twin_pass_pettingzoos_api_tests() -> None:
    parallel_api_test(arena.parallel_env(year_limit=1903), num_cycles=30)
    api_test(arena.env(year_limit=1902), num_cycles=40)
    api_test(diplomacy_v0.env(opponents="randombot", learners=("TUR",), year_limit=1902), num_cycles=20)


def test_a_seed_replays_the_game_opponents_included() -> None:
    parallel_seed_test(lambda: arena.parallel_env(opponents="dumbbot", learners=("ENG", "FRA"), year_limit=1903))


def test_every_legal_order_of_random_games_has_its_place_in_the_vocabulary() -> None:
    words = Vocabulary.of(standard_map())
    checked = 0
    for seed in range(4):
        rng, game = random.Random(seed), Game()
        while not game.position.completed and game.position.phase.year < 1910:
            given = {}
            for power in game.position.map.powers:
                legal = legal_orders(game.position, power)
                for orders in legal.values():
                    for order in orders:
                        if not isinstance(order, Waive):
                            location, index = words.index(order)  # KeyError: an order with no place
                            assert words.order(location, index) == order
                            checked += 1
                given[power] = [rng.choice(orders) for orders in legal.values()]
            game.play(given)
    assert checked > 10_000


def test_a_masked_sample_decodes_to_one_legal_order_at_each_orderable_location() -> None:
    env = arena.parallel_env(year_limit=1905)
    _, infos = env.reset(seed=3)
    words = env.words
    for _ in range(12):
        if not env.agents:
            break
        actions = {}
        for agent in env.agents:
            info = infos[agent]
            action = env.action_space(agent).sample(mask=info["action_mask"])
            chosen = [loc for loc, i in enumerate(action) if i]
            assert set(chosen) <= set(info["orderable"])
            legal = legal_orders(env.position, agent)
            decoded = words.decode(action, legal)
            assert len(decoded) == len(chosen)  # every masked choice is a legal order
            assert np.array_equal(words.encode(decoded), action)
            actions[agent] = action
        *_, infos = env.step(actions)


def test_one_learner_against_six_dumbbots_plays_to_the_year_limit_and_is_truncated() -> None:
    env = arena.parallel_env(opponents="dumbbot", learners=("AUS",), year_limit=1904)
    _, infos = env.reset(seed=5)
    steps = 0
    while env.agents:
        action = env.action_space("AUS").sample(mask=infos["AUS"]["action_mask"])
        observations, rewards, terminations, truncations, infos = env.step({"AUS": action})
        steps += 1
    assert steps >= 8 and env.position.phase.year == 1905
    assert truncations == {"AUS": True} or terminations == {"AUS": True}
    assert 0.0 <= rewards["AUS"] <= 1.0
    assert env.observation_space("AUS").contains(observations["AUS"])


def test_the_observation_says_what_the_board_holds() -> None:
    start = Position.initial()
    seen = observe(start)
    m = start.map
    lon = m.location("LON")
    assert seen["board"][lon, 0] == 2 and m.powers[seen["board"][lon, 1] - 1] == "ENG"
    assert seen["board"][lon, 6] == 1 + m.powers.index("ENG")  # a home centre of England
    assert list(seen["centres"]) == [3, 3, 3, 3, 3, 4, 3] and list(seen["phase"]) == [0, 0, 0]


def test_an_unknown_opponent_or_no_agent_is_refused_at_once() -> None:
    from bots.registry import UnknownBot

    with pytest.raises(UnknownBot, match="did you mean dumbbot"):
        arena.parallel_env(opponents="dumbot", learners=("ENG",))
    with pytest.raises(ValueError, match="no agent"):
        arena.parallel_env(opponents={p: "holdbot" for p in standard_map().powers})


def test_a_language_model_seat_plays_a_power_inside_the_env() -> None:
    """``llm:MODEL@URL`` is an opponent like any bot: here the scripted stand-in provider
    behind a real local HTTP server (tests/llm/standin.py) plays Austria."""
    from tests.llm.standin import StandIn

    with StandIn() as provider:
        env = arena.parallel_env(opponents={"AUS": f"llm:good@{provider.base_url}"}, year_limit=1901)
        env.reset(seed=1)
        start = {u for u in env.position.units if u.power == "AUS"}
        while env.agents:
            env.step({a: np.zeros(len(env.map.locations), dtype=np.int64) for a in env.agents})
        moved = {u for u in env.position.units if u.power == "AUS"}
        assert provider.stats()["completions"] >= 2 and moved != start
