"""The environment under PettingZoo's versioned name, as its own environments are offered:
``from arena import diplomacy_v0; env = diplomacy_v0.parallel_env()`` (or ``env()``, the AEC twin).

The version moves when observations, actions or rewards change meaning (see
:data:`arena.observation.VERSION` and :data:`arena.vocabulary.VERSION`).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import parallel_to_aec
from pettingzoo.utils.env import AECEnv

from arena.parallel import DiplomacyEnv, parallel_env

__all__ = ["env", "parallel_env", "raw_env"]


def raw_env(**kwargs: Any) -> DiplomacyEnv:
    """The parallel environment itself (PettingZoo's name for an environment before wrappers)."""
    return DiplomacyEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC twin: agents act one after the other, through PettingZoo's own conversion."""
    return parallel_to_aec(parallel_env(**kwargs))
