"""Record and replay: ``--llm-cache PATH --llm-offline`` plays a recorded run again, byte for
byte, with the provider gone; a call the cache lacks is not sent.

Time budget: about 10 s.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.llm.conftest import play
from tests.llm.standin import StandIn

SAME = ("games.jsonl", "summary.json", "usage.json", "games/1.json", "games/2.json")


def test_an_offline_replay_of_a_recorded_run_is_the_same_byte_for_byte(tmp_path: Path) -> None:
    cache = tmp_path / "calls.sqlite"
    with StandIn() as provider:
        config = (
            f'[profiles.a]\nmodel = "invalid-once"\nbase_url = "{provider.base_url}"\n'
            f'[profiles.b]\nmodel = "good+429-once"\nbase_url = "{provider.base_url}"\npress = "english"\n'
        )
        recorded = play(
            tmp_path / "recorded", ["llm:a", "llm:b", "dumbbot"], config=config, games=2, cache=cache, jobs=2
        )
        sent = provider.stats()["requests"]
    assert sent > 0 and recorded.summary["games"] == 2
    # the provider is gone: every call must come from the cache
    replayed = play(
        tmp_path / "replayed", ["llm:a", "llm:b", "dumbbot"], config=config, games=2, cache=cache, offline=True, jobs=2
    )
    for name in SAME:
        assert (tmp_path / "recorded" / name).read_bytes() == (tmp_path / "replayed" / name).read_bytes(), name
    calls = replayed.calls()
    assert calls and all(c["cached"] for c in calls)


def test_a_call_not_in_the_cache_is_not_sent_offline(tmp_path: Path) -> None:
    cache = tmp_path / "calls.sqlite"
    with StandIn() as provider:
        play(tmp_path / "one", [f"llm:good@{provider.base_url}", "holdbot"], cache=cache, seed=1)
        provider.reset()
        # another seed: other games, other calls, none of them in the cache
        ran = play(tmp_path / "two", [f"llm:good@{provider.base_url}", "holdbot"], cache=cache, seed=2, offline=True)
        assert provider.stats()["requests"] == 0
    seat = ran.seat
    assert set(seat["outcomes"]) == {"offline_miss"} and seat["orders_by_model"] == 0
    assert ran.summary["games"] == 1


def test_a_late_answer_is_cached_as_late_and_replayed_late(tmp_path: Path) -> None:
    cache = tmp_path / "calls.sqlite"
    with StandIn() as provider:
        spec = f"llm:good+slow=0.6@{provider.base_url}"
        recorded = play(tmp_path / "recorded", [spec, "holdbot"], cache=cache, timeout=0.3)
    replayed = play(tmp_path / "replayed", [spec, "holdbot"], cache=cache, timeout=0.3, offline=True)
    assert recorded.seat["outcomes"] == {"late": recorded.seat["calls"]} == replayed.seat["outcomes"]
    assert all(c["cached"] for c in replayed.calls())
    assert (tmp_path / "recorded/games/1.json").read_bytes() == (tmp_path / "replayed/games/1.json").read_bytes()
    late = [json.loads(line) for line in (tmp_path / "recorded/llm/calls.jsonl").read_text().splitlines()]
    answered = [c for c in late if c["response"] is not None]
    assert answered and all(c["outcome"] == "late" for c in answered)  # the late answers were kept
