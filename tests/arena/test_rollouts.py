"""Rollouts of the learning environment as Ray tasks on a local two-node cluster (issue 30): the
same episodes as local rollouts of the same seeds, run on both nodes. Budget: 30 to 50 s
(the cluster's start)."""

from __future__ import annotations

from arena.rollouts import rollout, rollouts_on_ray
from tests.ray_cluster import needs_ray, two_node_cluster  # noqa: F401 - the fixture

KWARGS = {"opponents": "dumbbot", "learners": ("ENG", "RUS"), "year_limit": 1903}


def test_a_rollout_replays_from_its_seed() -> None:
    first, again = rollout(4, KWARGS), rollout(4, KWARGS)
    assert first == again and first.steps >= 6 and set(first.returns) == {"ENG", "RUS"}
    assert rollout(5, KWARGS) != first


def rollout_where(seed: int) -> tuple[str, object]:
    """A rollout and the node it ran on."""
    import ray

    return ray.get_runtime_context().get_node_id(), rollout(seed, KWARGS)


@needs_ray
def test_rollouts_on_two_nodes_are_the_local_ones(two_node_cluster: str) -> None:  # noqa: F811
    import ray

    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    seeds = list(range(6))
    assert rollouts_on_ray(seeds, KWARGS) == [rollout(s, KWARGS) for s in seeds]
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    task = ray.remote(rollout_where)
    pinned = [task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False)).remote(7) for n in nodes]
    ran = ray.get(pinned)
    assert [where for where, _ in ran] == nodes  # each node played it
    assert all(episode == rollout(7, KWARGS) for _, episode in ran)
