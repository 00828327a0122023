"""The scripted model stand-in, as a process of its own over loopback: what each behaviour
word makes it answer. One process serves the module; every wait is bounded by a timeout."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.llm.standin import StandIn

LEGAL = {
    "units": {
        "F LON": ["F LON H", "F LON - NTH", "F LON - ECH", "F LON - WAL", "F LON - YOR"],
        "F EDI": ["F EDI H", "F EDI - NTH", "F EDI - NWG", "F EDI - CLY"],
        "A LVP": ["A LVP H", "A LVP - YOR", "A LVP - EDI", "A LVP - WAL", "A LVP - CLY"],
    },
    "adjust": {"count": 0, "options": []},
}
PEACE = "propose(fra, [eng], Agree([eng fra], pce([eng fra])))"


def seat_body(
    model: str,
    task: str = "orders",
    incoming: list[dict[str, str]] | None = None,
    mode: str = "l",
    phase: str = "S1901M",
    repairs: int = 0,
) -> dict[str, Any]:
    """A request as the détente seat writes it (markers among other text, the phase with its gloss)."""
    lines = [
        "YOU ARE: ENGLAND (ENG)",
        f"PHASE: {phase} (spring 1901, movement)",
        f"TASK: {task}",
        *([f"PRESS MODE: {mode}"] if task == "press" else []),
        "BOARD:",
        "  ENGLAND (you): 3 centres EDI LON LVP; units A LVP, F EDI, F LON",
        "LEGAL ORDERS (JSON): " + json.dumps(LEGAL, separators=(",", ":")),
        "INCOMING (JSON): " + json.dumps(incoming or []),
        'Answer {"orders": ["..."]}.',
    ]
    messages = [{"role": "system", "content": "You play ENGLAND."}, {"role": "user", "content": "\n".join(lines)}]
    for _ in range(repairs):
        messages += [
            {"role": "assistant", "content": '{"orders": ["A PAR - MOS"]}'},
            {"role": "user", "content": "REPAIR: A PAR is not your unit. Answer again with the whole JSON object."},
        ]
    return {"model": model, "messages": messages, "seed": 7, "temperature": 0}


def content(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return json.loads(response.json()["choices"][0]["message"]["content"])


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    with StandIn() as running:
        yield running


@pytest.fixture
def client(standin: StandIn) -> Iterator[httpx.Client]:
    standin.reset()
    with httpx.Client(base_url=standin.base_url, timeout=10) as c:
        yield c


def test_good_orders_are_legal_options_one_a_unit_and_the_same_each_time(client: httpx.Client) -> None:
    first = client.post("/chat/completions", json=seat_body("good"))
    orders = content(first)["orders"]
    assert len(orders) == 3
    assert all(any(o in options for options in LEGAL["units"].values()) for o in orders)
    assert {o[:5] for o in orders} == set(LEGAL["units"])
    again = client.post("/chat/completions", json=seat_body("good"))
    assert {**again.json(), "id": None} == {**first.json(), "id": None}
    usage = first.json()["usage"]
    words = sum(len(m["content"].split()) for m in seat_body("good")["messages"])
    completion = len(first.json()["choices"][0]["message"]["content"].split())
    assert usage == {"prompt_tokens": words, "completion_tokens": completion, "total_tokens": words + completion}


def test_press_accepts_a_proposal_or_proposes_peace(client: httpx.Client) -> None:
    heard = [{"from": "FRANCE", "l": PEACE, "english": "France proposes to you: peace"}]
    accepted = content(client.post("/chat/completions", json=seat_body("good", "press", heard)))
    assert accepted == {"press": [{"l": "accept(eng, [fra], Agree([eng fra], pce([eng fra])))"}]}
    proposed = content(client.post("/chat/completions", json=seat_body("good", "press")))
    assert proposed == {"press": [{"l": "propose(eng, [fra], Agree([eng fra], pce([eng fra])))"}]}
    english = content(client.post("/chat/completions", json=seat_body("good", "press", mode="english")))
    assert english == {"press": [{"to": "FRANCE", "text": "Let us agree on peace between England and France."}]}
    silent = content(client.post("/chat/completions", json=seat_body("good", "press", phase="F1901R")))
    assert silent == {"press": []}


def test_invalid_once_is_mended_by_a_repair(client: httpx.Client) -> None:
    assert content(client.post("/chat/completions", json=seat_body("invalid-once")))["orders"] == ["A PAR - MOS"]
    mended = content(client.post("/chat/completions", json=seat_body("invalid-once", repairs=1)))["orders"]
    assert mended == content(client.post("/chat/completions", json=seat_body("good")))["orders"]


def test_429_once_then_an_answer(client: httpx.Client) -> None:
    limited = client.post("/chat/completions", json=seat_body("429-once"))
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "1"
    assert limited.json()["error"]["type"] == "rate_limit_error"
    assert client.post("/chat/completions", json=seat_body("429-once")).status_code == 200


def test_scripted_usage_and_authorization_show_in_the_stats(standin: StandIn, client: httpx.Client) -> None:
    headers = {"Authorization": "Bearer sk-test"}
    assert client.post("/chat/completions", json=seat_body("usage=3,4"), headers=headers).status_code == 200
    stats = standin.stats()
    assert (stats["requests"], stats["completions"]) == (1, 1)
    assert (stats["prompt_tokens"], stats["completion_tokens"]) == (3, 4)
    assert stats["by_model"] == {"usage=3,4": {"requests": 1, "prompt_tokens": 3, "completion_tokens": 4}}
    assert stats["authorization"] == ["Bearer sk-test"]
    assert stats["bodies"] == [seat_body("usage=3,4")]


def test_need_key(client: httpx.Client) -> None:
    assert client.post("/chat/completions", json=seat_body("need-key=k1")).status_code == 401
    answer = client.post("/chat/completions", json=seat_body("need-key=k1"), headers={"Authorization": "Bearer k1"})
    assert answer.status_code == 200


def test_endless_outlasts_a_read_timeout_and_the_server_carries_on(standin: StandIn, client: httpx.Client) -> None:
    # A byte every 0.1 s: a 1 s read timeout never fires, only a deadline on the whole
    # request ends it; here the test's own 2 s deadline.
    timeout = httpx.Timeout(10, read=1.0)
    received = b""
    deadline = time.monotonic() + 2.0
    with client.stream("POST", "/chat/completions", json=seat_body("endless"), timeout=timeout) as response:
        assert response.status_code == 200
        for chunk in response.iter_bytes():
            received += chunk
            if time.monotonic() > deadline:
                break
        else:
            pytest.fail("the endless answer ended")
    assert received.strip() == b"" and len(received) >= 5
    # the client is gone: the trickle stops (awaited, with a deadline), and the server still answers
    until = time.monotonic() + 5.0
    while standin.stats()["streams_open"] and time.monotonic() < until:
        time.sleep(0.05)
    assert standin.stats()["streams_open"] == 0
    assert client.post("/chat/completions", json=seat_body("good")).status_code == 200


def test_slow_beyond_the_read_timeout_is_a_read_timeout(client: httpx.Client) -> None:
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        client.post("/chat/completions", json=seat_body("slow=30"), timeout=httpx.Timeout(10, read=1.0))
    assert time.monotonic() - started < 2.5
    assert client.post("/chat/completions", json=seat_body("good+slow=0.1")).status_code == 200


def test_unknown_model_is_404(client: httpx.Client) -> None:
    answer = client.post("/chat/completions", json=seat_body("good+goood"))
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "model_not_found"


def test_binary_body_is_not_utf8(client: httpx.Client) -> None:
    answer = client.post("/chat/completions", json=seat_body("garbage+binary"))
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    with pytest.raises(UnicodeDecodeError):
        answer.content.decode("utf-8")


def test_broken_answers(client: httpx.Client) -> None:
    garbage = client.post("/chat/completions", json=seat_body("garbage")).json()["choices"][0]["message"]["content"]
    assert len(garbage) == 2000
    with pytest.raises(ValueError):
        json.loads(garbage)
    huge = client.post("/chat/completions", json=seat_body("huge"))
    assert len(huge.content) >= 1024 * 1024
    assert client.post("/chat/completions", json=seat_body("null-content")).json()["choices"][0]["message"] == {
        "role": "assistant",
        "content": None,
    }
    assert client.post("/chat/completions", json=seat_body("no-choices+no-usage")).json().keys() >= {"choices"}
    text = client.post("/chat/completions", json=seat_body("text")).json()["choices"][0]["message"]["content"]
    assert text.splitlines()[0] == "Here are my orders:" and len(text.splitlines()) == 4


def test_requests_refused(client: httpx.Client) -> None:
    assert client.post("/chat/completions", json={**seat_body("good"), "stream": True}).status_code == 400
    assert client.post("/chat/completions", content=b"{not json").json()["error"]["type"] == "invalid_request_error"
    assert client.post("/chat/completions", content=b" " * (4 * 1024 * 1024 + 1)).status_code == 413
    structured = {**seat_body("no-structured"), "response_format": {"type": "json_object"}}
    assert client.post("/chat/completions", json=structured).json()["error"]["param"] == "response_format"
    assert client.get("/models").json()["data"] == [{"id": "scripted", "object": "model"}]
