"""The vectorised environment (issue 30): the compiled games against the object API, the
vector environment against the single one game for game (bots, seeds and resets included),
threads against one thread, and the sparse legal choices against the dense masks.
Budget: about 40 s."""

from __future__ import annotations

import numpy as np
import pytest

import arena
from arena.games import Games
from engine import _native, legal_orders, standard_map

needs_core = pytest.mark.skipif(_native.core_for(standard_map()) is None, reason="the compiled core is not built")


def _random_actions(games: Games, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal choice at every orderable location, whatever the order of the
    legal entries (so that both cores get the same actions)."""
    words = games.words
    actions = np.zeros((games.n, len(games.map.powers), len(games.map.locations)), dtype=np.int32)
    draws = rng.random((games.n, len(games.map.locations)))
    for i in range(games.n):
        flat = np.sort(games.index[i, : games.count[i]])
        locations = words.location_of[flat]
        for location in np.unique(locations):
            choices = flat[locations == location]
            pick = choices[int(draws[i, location] * len(choices))]
            actions[i, games.owner[i, location], location] = pick - words.offsets[location]
    return actions


def _trace(pure: bool, n: int, steps: int) -> list[tuple]:
    context = _native.pure_python(pure)
    with context:
        games = Games(standard_map(), n)
        assert games.compiled is not pure
        for i in range(n):
            games.reset(i)
        rng, trace = np.random.default_rng(5), []
        for _ in range(steps):
            games.step(_random_actions(games, rng))
            arrays = (
                games.board,
                games.phase,
                games.builds,
                games.centres,
                games.units,
                games.last_orders,
                games.owner,
            )
            legal = [sorted(games.index[i, : games.count[i]].tolist()) for i in range(n)]
            trace.append((*(a.copy() for a in arrays), legal, games.completed.copy(), str(games.position(0).phase)))
        return trace


@needs_core
def test_the_compiled_games_write_what_the_object_api_writes() -> None:
    compiled, reference = _trace(False, 5, 120), _trace(True, 5, 120)
    assert compiled[-1][-1] == reference[-1][-1] and compiled[-1][-1] != "S1901M"
    for step, (ours, theirs) in enumerate(zip(compiled, reference, strict=True)):
        for field, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b, (step, field)


def test_the_legal_choices_are_the_engines_legal_orders() -> None:
    env = arena.VectorEnv(3, year_limit=1903)
    env.reset(seed=2)
    for _ in range(8):
        game, location, index = env.legal()
        for i in range(3):
            position = env.position(i)
            mine = game == i
            ours = {env.words.order(int(loc), int(k)) for loc, k in zip(location[mine], index[mine], strict=True)}
            theirs = {o for p in env.map.powers for orders in legal_orders(position, p).values() for o in orders}
            assert ours == {o for o in theirs if type(o).__name__ != "Waive"}
        env.step(env.sample())


def _row(observation: dict, i: int) -> dict:
    return {k: v[i] for k, v in observation.items()}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_the_vector_env_plays_each_game_as_the_single_env_does() -> None:
    """Three games against a DumbBot each, reset as they end: every observation, reward, flag
    and mask equal to a single environment's fed the same actions, seeded as the vector says."""
    n, kwargs = 3, {"opponents": {"AUS": "dumbbot", "TUR": "randombot"}, "year_limit": 1902}
    vector = arena.VectorEnv(n, **kwargs)
    singles = [arena.parallel_env(**kwargs) for _ in range(n)]
    observations, _ = vector.reset(seed=11)
    for i, single in enumerate(singles):
        seen, _ = single.reset(seed=vector.seeds[i])
        assert _same(seen["FRA"], _row(observations["FRA"], i))
    rng, resets = np.random.default_rng(0), 0
    for _ in range(16):
        actions = vector.sample(rng)
        observations, rewards, terminations, truncations, infos = vector.step(actions)
        masks = vector.action_mask("ENG")
        for i, single in enumerate(singles):
            got = single.step({a: actions[a][i] for a in single.agents})
            ended = "_final_observation" in infos["FRA"] and infos["FRA"]["_final_observation"][i]
            last = infos["FRA"]["final_observation"] if ended else observations["FRA"]
            for agent in got[1]:
                assert _same(got[0][agent], _row(last, i))
                assert got[1][agent] == rewards[agent][i]
                assert got[2][agent] == terminations[agent][i] and got[3][agent] == truncations[agent][i]
            if ended:
                assert not single.agents
                resets += 1
                seen, single_infos = single.reset(seed=vector.seeds[i])
                assert _same(seen["FRA"], _row(observations["FRA"], i))
            else:
                single_infos = got[4]
            if "ENG" in single_infos:
                assert all(
                    np.array_equal(m[i], s) for m, s in zip(masks, single_infos["ENG"]["action_mask"], strict=True)
                )
    assert resets >= n  # every game reached the year limit and began again


@needs_core
def test_two_threads_play_the_games_one_thread_plays() -> None:
    runs = []
    for threads in (1, 2):
        env = arena.VectorEnv(6, threads=threads, year_limit=1904)
        env.reset(seed=3)
        rng, boards = np.random.default_rng(1), []
        for _ in range(20):
            observations, *_ = env.step(env.sample(rng))
            boards.append(observations["ITA"]["board"])
        env.close()
        runs.append(np.stack(boards))
    assert np.array_equal(*runs)


def test_a_sample_gives_one_legal_order_at_every_orderable_location() -> None:
    env = arena.VectorEnv(4, year_limit=1905)
    observations, infos = env.reset(seed=4)
    for _ in range(10):
        for agent in env.possible_agents:  # every row is an observation of the single game's space
            assert all(env.observation_space(agent).contains(_row(observations[agent], i)) for i in range(4))
        actions = env.sample()
        for agent, action in actions.items():
            masks = env.action_mask(agent)
            orderable = infos[agent]["orderable"]
            assert np.array_equal(action > 0, orderable)
            for i, location in zip(*np.nonzero(action), strict=True):
                assert masks[location][i, action[i, location]] == 1
        observations, _, _, _, infos = env.step(actions)


def test_bad_sizes_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="n >= 1"):
        arena.VectorEnv(0)
    env = arena.VectorEnv(2)
    env.reset(seed=1)
    with pytest.raises(ValueError):
        env.step({"FRA": np.zeros((3, 81), dtype=np.int64)})


@needs_core
def test_two_threads_on_one_slot_are_refused_not_raced() -> None:
    """A slot's scratch memory serves one thread at a time: a second thread asking for it while
    the first steps is told so (and a reset or a read waits for no step) instead of corrupting."""
    import threading

    games = Games(standard_map(), 256)
    for i in range(256):
        games.reset(i)
    actions = np.zeros((256, 7, 81), dtype=np.int32)
    errors: list[str] = []
    started, done = threading.Event(), threading.Event()

    def long_steps() -> None:
        started.set()
        while not done.is_set():
            games.step(actions, 0, 128, 0)

    worker = threading.Thread(target=long_steps)
    worker.start()
    started.wait()
    try:
        for _ in range(2000):
            try:
                games.step(actions, 128, 256, 0)
            except RuntimeError as e:
                errors.append(str(e))
                break
    finally:
        done.set()
        worker.join()
    assert errors and "slot 0 is in use" in errors[0]
    games.step(actions, 128, 256, 1)  # its own slot: fine


def test_a_choice_out_of_range_is_refused_not_wrapped() -> None:
    env = arena.parallel_env(year_limit=1902)
    env.reset(seed=1)
    action = np.zeros(81, dtype=np.int64)
    action[5] = 2**32 + 1  # narrowed to 32 bits it would read 1, a legal index somewhere
    with pytest.raises(ValueError, match=r"^[A-Z]{3}: choice 4294967297 at location 5 is not in \[0, "):
        env.step({"AUS": action})
    with pytest.raises(ValueError, match="AUS: an action is 1 x 81 choices"):
        env.step({"AUS": np.zeros(7, dtype=np.int64)})
    with pytest.raises(ValueError, match="-1 at location 0"):
        env.step({"AUS": np.full(81, -1)})


@pytest.mark.parametrize("name", ["pure", "france_austria", "fleet_rome"])
def test_the_environments_play_every_shipped_variant(name: str) -> None:
    from engine.maps import variant_map

    m = variant_map(name)
    env = arena.VectorEnv(3, game_map=m, year_limit=1904)
    observations, _ = env.reset(seed=2)
    assert env.possible_agents == list(m.powers)
    assert observations[m.powers[0]]["board"].shape == (3, len(m.locations), 9)
    for _ in range(12):
        observations, *_ = env.step(env.sample())
    for i in range(3):
        position = env.position(i)
        mine = env.legal()[0] == i
        assert mine.sum() == sum(
            1
            for p in m.powers
            for orders in legal_orders(position, p).values()
            for o in orders
            if type(o).__name__ != "Waive"
        )
    parallel_api_test = pytest.importorskip("pettingzoo.test").parallel_api_test
    parallel_api_test(arena.parallel_env(game_map=m, year_limit=1902), num_cycles=8)
