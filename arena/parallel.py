"""The game as a PettingZoo ``ParallelEnv``: one agent per power, moves simultaneous.

Each step is one phase: movement, and retreats and adjustments as steps of their own where
any power has something to do (the engine skips the others). Every agent observes the board
(:mod:`arena.observation`) and acts with one integer per location of the map
(:mod:`arena.vocabulary`); ``infos[agent]["action_mask"]`` says which are legal this phase,
in the form ``env.action_space(agent).sample(mask=...)`` takes, from the engine's legal-order
generator. A location where the agent has nothing to order, or an index that is not legal
there, gives no order: the unit holds (or disbands, or nothing is built).

Powers may be played by the bot kit inside the environment: ``opponents={"FRA": "dumbbot"}``,
or ``opponents="dumbbot"`` for every power but ``learners``. They are not agents; they order
as they would in a game of the kit.

A solo ends the game for everyone (``terminations``); a power with no unit and no centre is
terminated and leaves ``agents``; the year limit ends it by truncation. Rewards are 0 until
then, and at the end each agent's sum-of-squares score: its centres squared over the sum of
every power's squares, 1 to the winner of a solo.

>>> env = parallel_env(opponents="holdbot", learners=("ENG",), year_limit=1901)
>>> observations, infos = env.reset(seed=1)
>>> env.agents, observations["ENG"]["board"].shape
(['ENG'], (81, 9))
>>> mask = infos["ENG"]["action_mask"]
>>> action = env.action_space("ENG").sample(mask=mask)
>>> observations, rewards, terminations, truncations, infos = env.step({"ENG": action})
>>> str(env.position.phase)
'F1901M'
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from arena.vector import VectorEnv
from engine import Position, format_order
from engine.maps import Map
from engine.orders import Order
from engine.position import SEASONS
from referee.settings import GameSettings

__all__ = ["DiplomacyEnv", "parallel_env"]


class DiplomacyEnv(ParallelEnv):
    """Diplomacy as a ``ParallelEnv`` (see the module): one game of :class:`arena.VectorEnv`."""

    metadata: ClassVar[dict[str, Any]] = {"name": "diplomacy_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        *,
        opponents: Mapping[str, str] | str | None = None,
        learners: Sequence[str] | None = None,
        year_limit: int | None = 1920,
        render_mode: str | None = None,
        negotiation: GameSettings | bool = False,
        rounds: int = 2,
        game_map: Map | None = None,
    ) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: {self.metadata['render_modes']} or None")
        self.vector = VectorEnv(1, opponents=opponents, learners=learners, year_limit=year_limit, autoreset=False,
                                negotiation=negotiation, rounds=rounds, game_map=game_map)  # fmt: skip
        self.map, self.words, self.opponents = self.vector.map, self.vector.words, self.vector.opponents
        self.possible_agents = list(self.vector.possible_agents)
        self.render_mode = render_mode
        self.year_limit = year_limit
        self.agents: list[str] = []

    @property
    def position(self) -> Position:
        """The game as the engine's :class:`~engine.Position`."""
        return self.vector.position(0)

    @property
    def last_orders(self) -> list[Order]:
        """The orders the last phase was given."""
        return [order for orders in self.vector.given(0).values() for order in orders]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.vector.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.vector.action_space(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        self.vector.reset(seed=seed)
        self.agents = list(self.possible_agents)
        rng = random.Random(seed)
        for _ in self.opponents:  # the bots took the first draws of the seed (VectorEnv)
            rng.getrandbits(64)
        for agent in self.possible_agents:  # the spaces' own randomness follows the seed too
            self.action_space(agent).seed(rng.getrandbits(32))
        return self._observations(self.agents), self._infos(self.agents)

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        live = self.agents
        given = {a: _batched(actions[a]) for a in live if a in actions}
        rewards, terminated, truncated, over = self.vector.play(given)
        rows = [self.possible_agents.index(a) for a in live]
        out = (
            self._observations(live),
            {a: float(rewards[k, 0]) for a, k in zip(live, rows, strict=True)},
            {a: bool(terminated[k, 0]) for a, k in zip(live, rows, strict=True)},
            {a: bool(truncated[k, 0]) for a, k in zip(live, rows, strict=True)},
            self._infos(live),
        )
        active = self.vector.active[:, 0]
        self.agents = [] if over[0] else [a for a, k in zip(live, rows, strict=True) if active[k]]
        return out

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        p = self.position
        lines = [f"{p.phase}: " + ", ".join(f"{power} {n}" for power, n in p.center_counts.items())]
        for power in self.map.powers:
            units = " ".join(p.unit_name(u) for u in p.units if u.power == power)
            lines.append(f"  {power}: {units}")
        if self.last_orders:
            lines.append("  last orders: " + ", ".join(format_order(self.map, o) for o in self.last_orders))
        return "\n".join(lines)

    def close(self) -> None:
        self.vector.close()

    # --- helpers -------------------------------------------------------------------------------

    def _observations(self, agents: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The vector environment's observation of its one game, a fresh copy for each agent."""
        negotiating = self.vector.settings is not None
        out: dict[str, dict[str, Any]] = {}
        for a in agents:
            out[a] = {k: v[0] for k, v in self.vector._seen().items()}
            if negotiating:
                out[a].update({k: v[0] for k, v in self.vector.heard(a).items()})
        return out

    @functools.cached_property
    def _idle(self) -> tuple[np.ndarray, ...]:
        """The mask of a location with nothing to order ("no order" alone), shared and read-only."""
        masks = []
        for size in self.words.sizes:
            mask = np.zeros(int(size), dtype=np.int8)
            mask[0] = 1
            mask.flags.writeable = False
            masks.append(mask)
        return tuple(masks)

    def _infos(self, agents: Sequence[str]) -> dict[str, dict[str, Any]]:
        g, words = self.vector.games, self.words
        flat = g.index[0, : g.count[0]]
        location = words.location_of[flat]
        owner = g.owner[0]
        # one fresh mask per orderable location (the others share the read-only idle one): one
        # buffer for them all, cut where the locations change, legal entries set in one call
        change = np.empty(len(flat), dtype=bool)
        change[:1] = True
        np.not_equal(location[1:], location[:-1], out=change[1:])
        starts = np.flatnonzero(change)
        places = location[starts]
        base = np.zeros(len(places) + 1, dtype=np.int64)
        np.cumsum(words.sizes[places], out=base[1:])
        buffer = np.zeros(int(base[-1]), dtype=np.int8)
        buffer[base[:-1]] = 1
        buffer[base[np.cumsum(change) - 1] + flat - words.offsets[location]] = 1
        masks = {a: list(self._idle) for a in agents}
        orderable: dict[str, list[int]] = {a: [] for a in agents}
        powers, cuts = self.map.powers, base.tolist()
        for k, (place, w) in enumerate(zip(places.tolist(), owner[places].tolist(), strict=True)):
            agent = powers[w]
            if agent in masks:
                masks[agent][place] = buffer[cuts[k] : cuts[k + 1]]
                orderable[agent].append(place)
        year, season, kind = g.phase[0].tolist()
        phase = f"{SEASONS[season]}{year + self.map.first_year}{'MRA'[kind]}"  # str(Phase), without decoding the board
        infos = {
            agent: {"action_mask": tuple(masks[agent]), "orderable": sorted(orderable[agent]), "phase": phase}
            for agent in agents
        }
        for agent, frames in self.vector.frames().items():
            if agent in infos:
                infos[agent]["negotiation"] = frames[0]
        return infos


def _batched(action: Any) -> Any:
    """One game's action as the vector environment's batch of one."""
    if isinstance(action, Mapping):
        messages = action.get("messages") or ()
        return {"orders": np.asarray(action.get("orders", 0))[None], "messages": [messages]}
    return np.asarray(action)[None]


def parallel_env(**kwargs: Any) -> DiplomacyEnv:
    """A new :class:`DiplomacyEnv` (``opponents``, ``learners``, ``year_limit``, ``render_mode``)."""
    return DiplomacyEnv(**kwargs)
