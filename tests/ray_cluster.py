"""A local Ray cluster of two nodes (``ray.cluster_utils.Cluster``), for the tests that run work
past one node: the learning environment's rollouts, and the servers at scale after it."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is not installed")


@pytest.fixture(scope="module")
def two_node_cluster() -> Iterator[str]:
    """A head and a second node, one CPU each, on loopback; the driver connected; its address."""
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address)
        try:
            yield cluster.address
        finally:
            ray.shutdown()
    finally:
        cluster.shutdown()
