"""The model seat against a scripted provider behind a real local HTTP server: good answers,
repairs, fallbacks, retries, limits, budgets, the key, and the accounting.

Time budget: about 40 s.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Position, legal_orders
from tests.llm.conftest import play
from tests.llm.standin import StandIn


def spec(provider: StandIn, model: str) -> str:
    return f"llm:{model}@{provider.base_url}"


def test_a_good_model_plays_every_order_and_the_accounting_adds_up_to_the_providers(
    provider: StandIn, tmp_path: Path
) -> None:
    ran = play(tmp_path, [spec(provider, "good"), "holdbot"], year=1902)
    seat, stats = ran.seat, provider.stats()
    assert ran.summary["games"] == 1
    assert seat["orders_by_fallback"] == 0 and seat["repairs"] == 0 and seat["orders_by_model"] > 0
    assert seat["calls"] == stats["completions"] == stats["requests"]
    assert seat["input_tokens"] == stats["prompt_tokens"] and seat["output_tokens"] == stats["completion_tokens"]
    calls = ran.calls()
    assert len(calls) == seat["calls"] and {c["outcome"] for c in calls} == {"ok"}
    assert sum(c["usage"]["input_tokens"] for c in calls) == stats["prompt_tokens"]
    # the orders the model gave are the orders adjudicated
    record = ran.record()
    power = next(p for p, bot in record["bots"].items() if bot.startswith("llm:"))
    first = record["phases"][0]["orders"][power]
    answered = json.loads(next(c for c in calls if c["task"] == "orders")["response"])["orders"]
    assert sorted(first) == sorted(answered)
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    profile = manifest["bots"][spec(provider, "good")]["profile"]
    assert profile["temperature"] == 0.2 and profile["model"] == "good"


def test_an_invalid_answer_goes_back_once_with_the_reason_and_the_repair_is_played(
    provider: StandIn, tmp_path: Path
) -> None:
    ran = play(tmp_path, [spec(provider, "invalid-once"), "holdbot"])
    seat = ran.seat
    assert seat["repairs"] >= 2 and seat["orders_by_fallback"] == 0
    repairs = [b for b in provider.stats()["bodies"] if len(b["messages"]) == 4]
    repair = next(b for b in repairs if "TASK: orders" in b["messages"][1]["content"])
    assert repair["messages"][2]["role"] == "assistant"
    assert "'A PAR - MOS' is not one of your legal orders" in repair["messages"][3]["content"]


def test_what_stays_invalid_is_played_by_the_fallback_and_counted(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, [spec(provider, "invalid"), "holdbot"])
    seat = ran.seat
    assert seat["orders_by_model"] == 0 and seat["orders_by_fallback"] > 0
    assert seat["press_refused"] > 0 and seat["press_sent"] == 0
    assert ran.summary["games"] == 1


@pytest.mark.parametrize(
    ("model", "outcome"),
    [
        ("huge", "too_big"),
        ("garbage+binary", "not_utf8"),
        ("no-choices", "bad_body"),
        ("null-content", "bad_body"),
        ("need-key=other", "http_error"),
    ],
)
def test_a_broken_answer_never_stops_the_game(provider: StandIn, tmp_path: Path, model: str, outcome: str) -> None:
    ran = play(tmp_path, [spec(provider, model), "holdbot"])
    seat = ran.seat
    assert ran.summary["games"] == 1
    assert set(seat["outcomes"]) == {outcome}, seat["outcomes"]
    assert seat["orders_by_model"] == 0 and seat["phases_by_fallback"] >= 2


@pytest.mark.parametrize("model", ["garbage", "empty"])
def test_an_answer_that_is_no_orders_is_repaired_then_replaced(provider: StandIn, tmp_path: Path, model: str) -> None:
    ran = play(tmp_path, [spec(provider, model), "holdbot"])
    seat = ran.seat
    assert seat["outcomes"] == {"ok": seat["calls"]} and seat["repairs"] >= 2
    assert seat["orders_by_model"] == 0 and seat["orders_by_fallback"] > 0


def test_plain_text_orders_are_read(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, [spec(provider, "text"), "holdbot"])
    assert ran.seat["orders_by_fallback"] == 0 and ran.seat["repairs"] == 0


@pytest.mark.parametrize("model", ["429-once", "503-once"])
def test_429_and_5xx_are_retried(provider: StandIn, tmp_path: Path, model: str) -> None:
    ran = play(tmp_path, [spec(provider, model), "holdbot"])
    seat = ran.seat
    assert seat["outcomes"] == {"ok": seat["calls"]} and seat["retries"] == seat["calls"]
    assert seat["orders_by_fallback"] == 0


def test_an_endless_answer_is_cut_at_the_time_limit(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, [spec(provider, "endless"), "holdbot"], timeout=0.3)
    seat = ran.seat
    assert seat["outcomes"] == {"late": seat["calls"]} and seat["orders_by_model"] == 0
    assert max(seat_latencies(ran)) <= 0.3
    assert ran.summary["games"] == 1


def seat_latencies(ran: object) -> list[float]:
    return list(ran.usage["games"][0]["latencies"])  # type: ignore[attr-defined]


def test_an_endpoint_without_structured_output_is_asked_in_plain_text(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, [spec(provider, "no-structured"), "holdbot"])
    seat = ran.seat
    assert seat["outcomes"]["unsupported"] == 2 and seat["orders_by_fallback"] == 0
    bodies = provider.stats()["bodies"]
    asked = [b["response_format"]["type"] for b in bodies[:2]]
    assert asked == ["json_schema", "json_object"] and all("response_format" not in b for b in bodies[2:])


def test_the_schema_allows_only_the_legal_orders(provider: StandIn, tmp_path: Path) -> None:
    play(tmp_path, [spec(provider, "good"), "holdbot"])
    body = next(b for b in provider.stats()["bodies"] if "TASK: orders" in b["messages"][1]["content"])
    allowed = body["response_format"]["json_schema"]["schema"]["properties"]["orders"]["items"]["enum"]
    content = body["messages"][1]["content"]
    table = json.loads(next(x for x in content.splitlines() if x.startswith("LEGAL ORDERS")).split(": ", 1)[1])
    assert sorted(allowed) == sorted({o for options in table["units"].values() for o in options})


def test_a_seat_budget_ends_in_the_fallback_and_says_so(provider: StandIn, tmp_path: Path) -> None:
    config = f'[profiles.tight]\nmodel = "good"\nbase_url = "{provider.base_url}"\n[profiles.tight.budget]\ncalls = 2\n'
    ran = play(tmp_path, ["llm:tight", "holdbot"], config=config, year=1902)
    seat = ran.usage["games"][0]
    assert seat["calls"] == 2 and seat["exhausted"] == "calls"
    assert seat["phases_by_fallback"] >= 2 and provider.stats()["requests"] == 2


def test_a_run_budget_holds_over_every_seat(provider: StandIn, tmp_path: Path) -> None:
    config = f'[budget]\ncalls = 3\n[profiles.other]\nmodel = "good+slow=0.01"\nbase_url = "{provider.base_url}"\n'
    ran = play(tmp_path, [spec(provider, "good"), "llm:other", "holdbot"], config=config)
    assert sum(s["calls"] for s in ran.usage["games"]) == 3 == provider.stats()["requests"]
    assert all(s["exhausted"] == "run calls" for s in ran.usage["games"])


def test_dollars_follow_the_price_table(provider: StandIn, tmp_path: Path) -> None:
    config = (
        f'[profiles.priced]\nmodel = "good+usage=1000,100"\nbase_url = "{provider.base_url}"\n'
        '[prices."good+usage=1000,100"]\ninput = 2.0\noutput = 10.0\n'
    )
    ran = play(tmp_path, ["llm:priced", "holdbot"], config=config)
    seat = ran.seat
    assert seat["input_tokens"] == 1000 * seat["calls"]
    assert seat["dollars"] == pytest.approx(seat["calls"] * (1000 * 2.0 + 100 * 10.0) / 1e6)


def test_the_api_key_is_sent_and_never_written(
    provider: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-test-7d1c0f4e9a2b"
    monkeypatch.setenv("DETENTE_LLM_API_KEY", key)
    ran = play(tmp_path, [spec(provider, "good"), "holdbot"], cache=tmp_path / "cache.sqlite")
    assert ran.seat["outcomes"] == {"ok": ran.seat["calls"]}
    assert provider.stats()["authorization"] == [f"Bearer {key}"]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path


def test_a_hostile_answer_orders_nothing_but_its_own_legal_orders(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, [spec(provider, "inject"), "holdbot"])
    record = ran.record()
    name = next(p for p, bot in record["bots"].items() if bot.startswith("llm:"))  # the game file's: in full
    start = Position.initial()
    legal = {o for options in legal_orders(start, start.map.power(name)).values() for o in options}
    from engine import format_order

    texts = {format_order(start.map, o) for o in legal}
    assert set(record["phases"][0]["orders"][name]) <= texts
    assert all(len(m["text"]) < 1000 for m in record["messages"])
    assert ran.seat["repairs"] >= 1


def test_the_call_log_says_where_each_call_was_made(provider: StandIn, tmp_path: Path) -> None:
    ran = play(tmp_path, [spec(provider, "good"), "holdbot"])
    calls = ran.calls()
    assert [c["phase"] for c in calls if c["task"] == "orders"][:2] == ["S1901M", "F1901M"]
    assert {c["game"] for c in calls} == {str(ran.record()["seed"])}
    assert all(c["request"]["messages"][1]["content"].startswith("YOU ARE: ") for c in calls)
