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

from arena.observation import observe, space
from arena.vocabulary import Vocabulary
from bots.base import Bot
from bots.registry import make_bot
from engine import Position, adjudicate, format_order, legal_orders, standard_map
from engine.maps import Map
from engine.orders import Order

__all__ = ["DiplomacyEnv", "parallel_env"]


class DiplomacyEnv(ParallelEnv):
    """Diplomacy as a ``ParallelEnv`` (see the module)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "diplomacy_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        *,
        opponents: Mapping[str, str] | str | None = None,
        learners: Sequence[str] | None = None,
        year_limit: int | None = 1920,
        render_mode: str | None = None,
        game_map: Map | None = None,
    ) -> None:
        self.map = game_map or standard_map()
        powers = list(self.map.powers)
        if isinstance(opponents, str):
            chosen = [self.map.power(p) for p in (learners or ())]
            self.opponents = {p: opponents for p in powers if p not in chosen}
        else:
            self.opponents = {self.map.power(p): spec for p, spec in (opponents or {}).items()}
        for spec in set(self.opponents.values()):
            make_bot(spec)  # an unknown bot is refused here, in one line, not at the first step
        self.possible_agents = [p for p in powers if p not in self.opponents]
        if not self.possible_agents:
            raise ValueError("every power is an opponent: no agent is left to learn")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.year_limit = year_limit
        self.words = Vocabulary.of(self.map)
        self.position = Position.initial(self.map)
        self.agents: list[str] = []
        self.bots: dict[str, Bot] = {}
        self.last_orders: list[Order] = []

    @functools.cache  # noqa: B019 - one space per agent, for the environment's life, as PettingZoo expects
    def observation_space(self, agent: str) -> spaces.Space:
        return space(self.map, self.year_limit)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space:
        return spaces.MultiDiscrete(self.words.sizes)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        rng = random.Random(seed)
        self.position = Position.initial(self.map)
        self.agents = list(self.possible_agents)
        self.last_orders = []
        self.bots = {}
        for power, spec in sorted(self.opponents.items()):
            bot = make_bot(spec, rng.getrandbits(64))
            bot.start(power, self.map)
            self.bots[power] = bot
        for agent in self.possible_agents:  # the spaces' own randomness follows the seed too
            self.action_space(agent).seed(rng.getrandbits(32))
        return self._observations(), self._infos()

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        before = self.position
        given: dict[str, list[Order]] = {}
        for power in self.map.powers:
            legal = legal_orders(before, power)
            if not legal:
                continue
            if power in self.bots:
                given[power] = list(self.bots[power].orders(before, legal))
            elif power in self.agents and power in actions:
                given[power] = self.words.decode(np.asarray(actions[power]), legal)
        outcome = adjudicate(before, given)
        self.position = outcome.position
        for bot in self.bots.values():
            bot.on_results(before, given, self.position)
        self.last_orders = [order for orders in given.values() for order in orders]
        live = list(self.agents)
        winner = self.position.winner
        over_by_year = self.year_limit is not None and self.position.phase.year > self.year_limit
        ended = winner is not None or self.position.completed or over_by_year
        terminations = {a: winner is not None or self.position.completed or self._eliminated(a) for a in live}
        truncations = {a: bool(over_by_year and not terminations[a]) for a in live}
        rewards = {a: self._score(a) if ended or terminations[a] else 0.0 for a in live}
        observations, infos = self._observations(live), self._infos(live)
        self.agents = [] if ended else [a for a in live if not terminations[a]]
        return observations, rewards, terminations, truncations, infos

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
        self.bots = {}

    # --- helpers -------------------------------------------------------------------------------

    def _observations(self, agents: Sequence[str] | None = None) -> dict[str, dict[str, np.ndarray]]:
        seen = observe(self.position, self.last_orders)
        return {a: {k: v.copy() for k, v in seen.items()} for a in (self.agents if agents is None else agents)}

    def _infos(self, agents: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        out = {}
        for agent in self.agents if agents is None else agents:
            legal = legal_orders(self.position, agent) if not self.position.completed else {}
            out[agent] = {
                "action_mask": self.words.mask(legal),
                "orderable": self.words.orderable(legal),
                "phase": str(self.position.phase),
            }
        return out

    def _eliminated(self, power: str) -> bool:
        p = self.position
        return not any(u.power == power for u in p.units) and not p.center_counts.get(power, 0)

    def _score(self, power: str) -> float:
        counts = self.position.center_counts
        winner = self.position.winner
        if winner is not None:
            return 1.0 if power == winner else 0.0
        squares = sum(n * n for n in counts.values())
        return counts.get(power, 0) ** 2 / squares if squares else 0.0


def parallel_env(**kwargs: Any) -> DiplomacyEnv:
    """A new :class:`DiplomacyEnv` (``opponents``, ``learners``, ``year_limit``, ``render_mode``)."""
    return DiplomacyEnv(**kwargs)
