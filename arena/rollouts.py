"""Rollouts of the environment as plain Ray tasks, on any cluster a lab already runs.

:func:`rollout` plays one episode of :func:`arena.parallel_env` to its end with a policy
(by default uniformly random among the legal actions, from the mask), and returns an
:class:`Episode`: plain numbers that travel back from any node. :func:`rollouts_on_ray`
runs one task an episode on the cluster Ray is connected to (``ray.init(address=...)``
first, or it starts a local one); an episode depends on its seed and arguments alone, so
the episodes are those of local rollouts of the same seeds, wherever the tasks run. RLlib is
left to its users: it needs torch, which the registries here offer only as a multi-gigabyte
build.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.parallel import parallel_env

__all__ = ["Episode", "Policy", "random_policy", "rollout", "rollouts_on_ray"]

#: A policy: (agent, observation, info, action space) -> action.
Policy = Callable[[str, Mapping[str, np.ndarray], Mapping[str, Any], Any], Any]


def random_policy(agent: str, observation: Mapping[str, np.ndarray], info: Mapping[str, Any], space: Any) -> Any:
    """A legal action drawn uniformly at each location, from the action mask."""
    return space.sample(mask=info["action_mask"])


@dataclass(frozen=True)
class Episode:
    """One episode: its seed, the steps played, each agent's return, the centres at the end."""

    seed: int
    steps: int
    returns: Mapping[str, float]
    centres: Mapping[str, int]
    last_phase: str


def rollout(seed: int, env_kwargs: Mapping[str, Any] | None = None, policy: Policy = random_policy) -> Episode:
    """Play one episode of ``parallel_env(**env_kwargs)`` from ``reset(seed=seed)`` to its end."""
    env = parallel_env(**dict(env_kwargs or {}))
    observations, infos = env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while env.agents:
        actions = {a: policy(a, observations[a], infos[a], env.action_space(a)) for a in env.agents}
        observations, rewards, _, _, infos = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += float(reward)
        steps += 1
    centres = dict(env.position.center_counts)
    env.close()
    return Episode(seed, steps, returns, centres, str(env.position.phase))


def rollouts_on_ray(
    seeds: Sequence[int], env_kwargs: Mapping[str, Any] | None = None, policy: Policy = random_policy
) -> list[Episode]:
    """:func:`rollout` of each seed as a Ray task, in the order of ``seeds``."""
    import ray

    if not ray.is_initialized():
        ray.init(address="local", include_dashboard=False)
    task = ray.remote(rollout)
    return ray.get([task.remote(seed, dict(env_kwargs or {}), policy) for seed in seeds])
