"""The game as a learning environment (PettingZoo), on the engine, the referee and the bot kit.

``arena.parallel_env(...)`` is a PettingZoo ``ParallelEnv`` (:mod:`arena.parallel`),
``arena.env(...)`` its AEC twin, ``arena.VectorEnv(n)`` n games stepped in one call
(:mod:`arena.vector`), and :mod:`arena.diplomacy_v0` offers both under
PettingZoo's versioned name. Observations are numpy arrays (:mod:`arena.observation`),
actions one integer per location of the map over a fixed vocabulary of orders
(:mod:`arena.vocabulary`), with a legal-action mask each step. Never on the servers.
"""

from __future__ import annotations

from arena.diplomacy_v0 import env, parallel_env
from arena.parallel import DiplomacyEnv
from arena.vector import VectorEnv
from arena.vocabulary import Vocabulary

__all__ = ["DiplomacyEnv", "VectorEnv", "Vocabulary", "diplomacy_v0", "env", "parallel_env"]
