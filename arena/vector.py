"""Many games at once: ``arena.VectorEnv(n)`` steps n games in one call of the compiled core.

The batched twin of :class:`arena.parallel.DiplomacyEnv`, for training loops that want
throughput: every agent's observation, action, reward and flag carries a first axis of
length ``n``, one row a game. One :meth:`VectorEnv.step` plays every game one phase in C
with the GIL released (:mod:`arena.games`); ``threads=k`` splits the games over k threads.
A game that ends (a solo, the year limit, or no agent left in it) is reset in the same step,
as Gymnasium's vector environments do in their "same step" mode: the step returns the first
observation of the new game, and ``infos[agent]["final_observation"]`` (with the mask
``infos[agent]["_final_observation"]``) the last one of the game that ended, whose rewards,
terminations and truncations are the step's.

The legal choices are kept sparse, as the core writes them: :meth:`VectorEnv.legal` lists
them as (game, location, index) arrays, :meth:`VectorEnv.sample` draws a uniformly random
legal order at every orderable location of every game in a few numpy calls, and
:meth:`VectorEnv.action_mask` builds the dense per-location masks of one agent on demand.

>>> env = VectorEnv(4, year_limit=1901)
>>> observations, infos = env.reset(seed=7)
>>> observations["FRA"]["board"].shape, infos["FRA"]["orderable"].shape
((4, 81, 9), (4, 81))
>>> actions = env.sample()
>>> actions["FRA"].shape, [str(env.position(i).phase) for i in range(4)]
((4, 81), ['S1901M', 'S1901M', 'S1901M', 'S1901M'])
>>> for _ in range(2):  # every unit holds: no centre changes hands, no winter, 1902 is past the limit
...     observations, rewards, terminations, truncations, infos = env.step({})
>>> bool(truncations["FRA"].all()), bool(infos["FRA"]["_final_observation"].all())
(True, True)
>>> [str(env.position(i).phase) for i in range(4)]
['S1901M', 'S1901M', 'S1901M', 'S1901M']
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from arena.games import Games
from arena.observation import space
from arena.talk import CHARSET, MAX_TEXT, Talk
from arena.vocabulary import Vocabulary
from bots.base import Bot
from bots.registry import make_bot
from engine import Position, legal_orders, standard_map
from engine.maps import Map
from engine.orders import Order, Waive
from referee.settings import GameSettings

__all__ = ["VectorEnv", "seats"]

Arrays = dict[str, np.ndarray]


def seats(m: Map, opponents: Mapping[str, str] | str | None, learners: Sequence[str] | None) -> dict[str, str]:
    """The powers the bot kit plays, power -> bot spec: ``opponents`` as given, or that spec for
    every power but ``learners``. An unknown bot is refused here, in one line."""
    if isinstance(opponents, str):
        chosen = [m.power(p) for p in (learners or ())]
        chosen_opponents = {p: opponents for p in m.powers if p not in chosen}
    else:
        chosen_opponents = {m.power(p): spec for p, spec in (opponents or {}).items()}
    for spec in set(chosen_opponents.values()):
        make_bot(spec)
    if len(chosen_opponents) == len(m.powers):
        raise ValueError("every power is an opponent: no agent is left to learn")
    return chosen_opponents


class VectorEnv:
    """``n`` games of Diplomacy stepped together (see the module)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "diplomacy_vector_v0", "autoreset_mode": "same-step"}

    def __init__(
        self,
        n: int,
        *,
        opponents: Mapping[str, str] | str | None = None,
        learners: Sequence[str] | None = None,
        year_limit: int | None = 1920,
        threads: int = 1,
        autoreset: bool = True,
        negotiation: GameSettings | bool = False,
        rounds: int = 2,
        game_map: Map | None = None,
    ) -> None:
        if n < 1 or threads < 1 or rounds < 0:
            raise ValueError("VectorEnv needs n >= 1 games, threads >= 1 and rounds >= 0")
        self.map = game_map or standard_map()
        self.num_envs = n
        self.opponents = seats(self.map, opponents, learners)
        self.possible_agents = [p for p in self.map.powers if p not in self.opponents]
        self.agents = list(self.possible_agents)
        self.year_limit = year_limit
        self.autoreset = autoreset
        self.games = Games(self.map, n)
        self.words = self.games.words
        self.threads = min(threads, n)
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 and self.games.compiled else None
        self._index = {p: w for w, p in enumerate(self.map.powers)}
        self._agent_rows = np.array([self._index[a] for a in self.possible_agents])
        #: whether each agent still plays in each game (agents x games)
        self.active = np.ones((len(self.possible_agents), n), dtype=bool)
        self.seeds: list[int | None] = [None] * n
        self.bots: list[dict[str, Bot]] = [{} for _ in range(n)]
        self._owner_before = self.games.owner.copy()
        self._seeder = self._rng = np.random.default_rng()
        #: the game's settings where agents negotiate (:mod:`arena.talk`), else None
        self.settings = GameSettings() if negotiation is True else negotiation or None
        self.rounds = rounds if self.settings is not None else 0
        self.talks: list[Talk | None] = [None] * n
        self._left: dict[int, dict[str, list[dict[str, Any]]]] = {}  # an ended game's frames not yet read
        #: the steps of talk each game has had in its phase
        self.round = np.zeros(n, dtype=np.int16)

    @functools.cache  # noqa: B019 - one space per agent, for the environment's life
    def observation_space(self, agent: str) -> spaces.Space:
        """One game's observation space (every row of the batch is one such observation)."""
        seen = space(self.map, self.year_limit)
        if self.settings is None:
            return seen
        texts = spaces.Sequence(spaces.Text(MAX_TEXT, charset=CHARSET))
        rounds = spaces.Box(0, self.rounds, shape=(1,), dtype=np.int16)
        return spaces.Dict({**seen.spaces, "messages": texts, "commitments": texts, "round": rounds})

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space:
        """One game's action space: one choice per location (a batch of actions is (n, locations));
        where agents negotiate, a ``Dict`` of those ``orders`` and the L ``messages`` to say."""
        orders = spaces.MultiDiscrete(self.words.sizes)
        if self.settings is None:
            return orders
        return spaces.Dict({"orders": orders, "messages": spaces.Sequence(spaces.Text(MAX_TEXT, charset=CHARSET))})

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Every game anew, game ``i`` seeded ``seed + i``; later games seeded from ``seed`` too."""
        self._seeder, self._rng = np.random.default_rng(seed), np.random.default_rng(seed)
        for i in range(self.num_envs):
            self._reset_game(i, None if seed is None else seed + i)
        self.active[:] = True
        return self._observations(), self._infos()

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Every game one phase; ``actions[agent]``: (n, locations) choices (a missing agent orders nothing)."""
        rewards, terminated, truncated, over = self.play(actions)
        final = None
        if self.autoreset and over.any():
            final = self._observations()  # each agent's, its last messages included
            for i in np.flatnonzero(over):
                talk = self.talks[int(i)]
                if talk is not None:  # what the ended game told the agents still reaches them, in this step's infos
                    self._left[int(i)] = {power: talk.take(power) for power in self.map.powers}
                self._reset_game(int(i), None)
            self.active[:, over] = True
        observations, infos = self._observations(), self._infos()
        if final is not None:
            for agent in self.possible_agents:
                infos[agent]["final_observation"] = final[agent]
                infos[agent]["_final_observation"] = over
        names = self.possible_agents
        return (
            observations,
            {a: rewards[k] for k, a in enumerate(names)},
            {a: terminated[k] for k, a in enumerate(names)},
            {a: truncated[k] for k, a in enumerate(names)},
            infos,
        )

    def play(self, actions: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`step` without resets and without building its dictionaries: every game one
        phase, and the rewards, terminations and truncations as (agents, games) arrays, with the
        games that are over (ended, or no agent left in them). The arrays of :attr:`games` hold
        the observations."""
        games, n = self.games, self.num_envs
        wide = np.zeros((n, len(self.map.powers), len(self.map.locations)), dtype=np.int64)
        said: dict[str, Sequence[Any]] = {}
        for agent, action in actions.items():
            if agent in self._index and agent not in self.opponents:
                if isinstance(action, Mapping):
                    said[agent] = action.get("messages") or [()] * n
                    action = action.get("orders", 0)
                try:
                    wide[:, self._index[agent]] = np.asarray(action).reshape(n, -1)
                except (ValueError, TypeError):
                    shape = getattr(np.asarray(action, dtype=object), "shape", ())
                    raise ValueError(
                        f"{agent}: an action is {n} x {len(self.map.locations)} choices, not {shape}"
                    ) from None
        bad = (wide < 0) | (wide >= self.words.sizes)
        if bad.any():  # checked before narrowing: a huge number must not wrap into a legal index
            _, w, location = (int(x[0]) for x in np.nonzero(bad))
            value = int(wide[np.nonzero(bad)][0])
            raise ValueError(
                f"{self.map.powers[w]}: choice {value} at location {location} is not in [0, {self.words.sizes[location]})"
            )
        chosen = wide.astype(np.int32)
        playing = self._talk(said, chosen) if self.settings is not None else None
        before = self._bots_order(chosen, playing) if self.opponents or playing is not None else None
        self._owner_before[:] = games.owner
        if self._pool is None:
            games.step(chosen, which=playing)
        else:
            bounds = np.linspace(0, n, self.threads + 1).astype(int)
            step = lambda k: games.step(chosen, bounds[k], bounds[k + 1], k, playing)
            list(self._pool.map(step, range(self.threads)))
        for i, position in (before or {}).items():
            after, given = games.position(i), games.orders(i, self._owner_before[i])
            for bot in self.bots[i].values():
                bot.on_results(position, given, after)
            talk = self.talks[i]
            if talk is not None:
                talk.results(position, given)
                talk.begin(after)
                self.round[i] = 0
        return self._settle()

    def sample(self, rng: np.random.Generator | None = None) -> dict[str, np.ndarray]:
        """Uniformly random legal orders for every agent: one at each orderable location of each game."""
        rng = rng or self._rng
        game, location, index = self.legal()
        key = game * len(self.map.locations) + location
        change = np.empty(len(key), dtype=bool)
        change[:1] = True
        np.not_equal(key[1:], key[:-1], out=change[1:])
        starts = np.flatnonzero(change)
        sizes = np.diff(starts, append=len(key))
        picked = starts + (rng.random(len(starts)) * sizes).astype(np.int64)
        g, loc = game[picked], location[picked]
        power = self.games.owner[g, loc]
        out = {}
        for agent in self.possible_agents:
            action = np.zeros((self.num_envs, len(self.map.locations)), dtype=np.int64)
            mine = power == self._index[agent]
            action[g[mine], loc[mine]] = index[picked][mine]
            out[agent] = action
        return out

    def legal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every legal choice of this phase as (game, location, index) arrays, grouped by game and
        location; ``games.owner[game, location]`` is the power whose it is."""
        games = self.games
        index, count = games.index, games.count.tolist()
        flat = np.concatenate([index[i, :c] for i, c in enumerate(count)])  # the rows' used parts
        game = np.repeat(np.arange(self.num_envs), games.count)
        location = self.words.location_of[flat].astype(np.int64)
        return game, location, flat - self.words.offsets[location]

    def action_mask(self, agent: str) -> tuple[np.ndarray, ...]:
        """``agent``'s legal-action mask, one (n, choices) ``int8`` array per location ("no order",
        0, always allowed): row ``i`` of each is the single environment's mask of game ``i``."""
        game, location, index = self.legal()
        mine = self.games.owner[game, location] == self._index[agent]
        flat = np.zeros((self.num_envs, int(self.words.offsets[-1])), dtype=np.int8)
        flat[:, self.words.offsets[:-1]] = 1
        flat[game[mine], self.words.offsets[location[mine]] + index[mine]] = 1
        return tuple(np.split(flat, self.words.offsets[1:-1], axis=1))

    def position(self, i: int) -> Position:
        """Game ``i`` as the engine's :class:`~engine.Position`."""
        return self.games.position(i)

    def given(self, i: int) -> dict[str, list[Order]]:
        """The orders game ``i``'s last phase was given, by power."""
        return self.games.orders(i, self._owner_before[i])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self.bots = [{} for _ in range(self.num_envs)]

    # --- helpers -------------------------------------------------------------------------------

    def _reset_game(self, i: int, seed: int | None) -> None:
        seed = int(self._seeder.integers(2**63)) if seed is None else seed
        self.seeds[i] = seed
        self.games.reset(i)
        if self.settings is not None:
            self.talks[i] = Talk(f"arena-{seed}", self.settings, self.map)
            self.talks[i].begin(Position.initial(self.map))  # type: ignore[union-attr]
            self.round[i] = 0
        rng = random.Random(seed)
        self.bots[i] = {}
        for power, spec in sorted(self.opponents.items()):  # as the single environment seeds them
            bot = make_bot(spec, rng.getrandbits(64))
            bot.start(power, self.map)
            self.bots[i][power] = bot

    def _talk(self, said: Mapping[str, Sequence[Any]], chosen: np.ndarray) -> np.ndarray:
        """Every agent's messages said, in each game; the games whose phase is played this step
        (the others talk on), their bindings written into ``chosen``."""
        playing = np.ones(self.num_envs, dtype=bool)
        for i, talk in enumerate(self.talks):
            assert talk is not None
            for k, agent in enumerate(self.possible_agents):
                texts = said.get(agent)
                if texts is not None and self.active[k, i]:
                    mine = texts[i] if i < len(texts) else ()
                    talk.said(agent, (mine,) if isinstance(mine, str) else mine)  # one text is one message
            if talk.open and self.round[i] < self.rounds:
                playing[i] = False
                self.round[i] += 1
            else:
                bind(self.words, chosen[i], talk.bound(), self.map, int(self.games.phase[i, 2]), self.games.builds[i])
        return playing

    def _bots_order(self, chosen: np.ndarray, playing: np.ndarray | None = None) -> dict[int, Position]:
        """The bots' orders written into ``chosen``; the positions played from, by game (of the
        games ``playing`` marks)."""
        before = {}
        for i in range(self.num_envs):
            if self.games.completed[i] or (playing is not None and not playing[i]):
                continue
            position = before[i] = self.games.position(i)
            for power, bot in self.bots[i].items():
                legal = legal_orders(position, power)
                if legal:
                    orders = [
                        o for o in bot.orders(position, legal) if not isinstance(o, Waive) and o in self.words.where
                    ]
                    chosen[i, self._index[power]] = self.words.encode(orders)
        return before

    def _settle(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Rewards and flags of the step (agents x games), and the games now over."""
        games = self.games
        rows = self._agent_rows
        centres, units = games.centres.astype(np.int64), games.units
        completed = games.completed.astype(bool)
        year = games.phase[:, 0].astype(np.int64) + self.map.first_year
        by_year = (year > self.year_limit) if self.year_limit is not None else np.zeros(self.num_envs, dtype=bool)
        ended = completed | by_year
        eliminated = ((units == 0) & (centres == 0))[:, rows].T
        terminated = self.active & (completed[None, :] | eliminated)
        truncated = self.active & by_year[None, :] & ~terminated
        paid = self.active & (ended[None, :] | terminated)
        rewards = np.where(paid, scores(centres, completed)[:, rows].T, 0.0) if paid.any() else np.zeros(paid.shape)
        self.active &= ~terminated & ~ended[None, :]
        return rewards, terminated, truncated, ended | ~self.active.any(axis=0)

    def _seen(self) -> Arrays:
        g = self.games
        return {
            "board": g.board.copy(),
            "phase": g.phase.copy(),
            "builds": g.builds.copy(),
            "centres": g.centres.copy(),
            "last_orders": g.last_orders.copy(),
        }

    def _observations(self) -> dict[str, Arrays]:
        """Every agent sees the same board: one set of fresh arrays, shared by the agents' entries
        (where agents negotiate, each has its own messages and commitments besides)."""
        seen = self._seen()
        if self.settings is None:
            return dict.fromkeys(self.possible_agents, seen)
        return {a: {**seen, **self.heard(a)} for a in self.possible_agents}

    def heard(self, agent: str) -> dict[str, Any]:
        """What ``agent`` observes of the negotiation, a row a game: the L texts it received in
        the last step, the commitments that bind it, and the step of talk of the phase."""
        talks = [t for t in self.talks if t is not None]
        return {
            "messages": [t.received(agent) for t in talks],
            "commitments": [t.commitments(agent) for t in talks],
            "round": self.round[:, None].copy(),
        }

    def _infos(self) -> dict[str, dict[str, Any]]:
        owner = self.games.owner
        infos = {
            a: {"orderable": owner == self._index[a], "active": self.active[k].copy()}
            for k, a in enumerate(self.possible_agents)
        }
        for agent, frames in self.frames().items():
            infos[agent]["negotiation"] = frames
        return infos

    def frames(self) -> dict[str, list[list[dict[str, Any]]]]:
        """Each agent's negotiation frames since the last call, a list a game (an ended game's
        last ones first); empty where agents do not negotiate. What the bots were told is
        dropped: they do not negotiate."""
        out: dict[str, list[list[dict[str, Any]]]] = {}
        for i, talk in enumerate(self.talks):
            if talk is None:
                continue
            left = self._left.pop(i, {})
            for power in self.map.powers:
                frames = left.get(power, []) + talk.take(power)
                if power not in self.opponents:
                    out.setdefault(power, []).append(frames)
        return out


def bind(
    words: Vocabulary, chosen: np.ndarray, bound: Mapping[str, Sequence[Order]], m: Map, kind: int, owed: np.ndarray
) -> None:
    """Write the ``bound`` orders into one game's ``chosen`` (powers x locations), as
    :func:`referee.binding.apply_binding` puts them into the orders given: a committed order
    replaces the one given for its unit; in an adjustment phase (``kind`` 2) the committed
    builds and removals go first, so the power's other choices count only up to what it owes."""
    for power, orders in bound.items():
        w = m.powers.index(power)
        places = [words.where[o] for o in orders if o in words.where]
        for location, index in places:
            chosen[w, location] = index
        if kind == 2 and places:
            room = abs(int(owed[w])) - len(places)
            committed = {location for location, _ in places}
            for location in np.flatnonzero(chosen[w]):
                if int(location) not in committed:
                    if room <= 0:
                        chosen[w, location] = 0
                    room -= 1


def scores(centres: np.ndarray, completed: np.ndarray) -> np.ndarray:
    """Each power's score, (games, powers): 1 to the winner of a solo (0 to the others), else
    its centres squared over the sum of every power's squares (0 where no power has a centre).

    >>> scores(np.array([[18, 4, 0], [2, 2, 0]]), np.array([True, False])).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]
    """
    centres = centres.astype(np.float64)
    squares = (centres**2).sum(axis=1, keepdims=True)
    share = np.divide(centres**2, squares, out=np.zeros_like(centres), where=squares > 0)
    winner = np.zeros_like(centres)
    winner[np.arange(len(centres)), centres.argmax(axis=1)] = 1.0
    return np.where(completed[:, None], winner, share)
