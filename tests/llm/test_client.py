"""The client against providers that misbehave at the HTTP level: compressed answers (one a
bomb), redirects, a ``Retry-After`` of years, a connection cut short. Each is a real local
server on its own loopback address, answering one scripted response to every request.

Time budget: about 5 s.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
from collections.abc import Iterator

import pytest

from bots.llm.client import CallPlace, ChatClient, Reply
from bots.llm.config import Profile
from bots.llm.recorder import Recorder

ANSWER = json.dumps(
    {"choices": [{"message": {"content": '{"orders": []}'}}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
).encode()


def response(status: str, body: bytes, *headers: str) -> bytes:
    head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", "Connection: close", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


CASES = {
    "gzip": response("200 OK", gzip.compress(ANSWER), "Content-Encoding: gzip"),
    "bomb": response("200 OK", gzip.compress(b"{" + b" " * (64 << 20)), "Content-Encoding: gzip"),
    "brotli": response("200 OK", b"\x00\x01", "Content-Encoding: br"),
    "redirect": response("302 Found", b"", "Location: http://127.0.0.1:9/v1/chat/completions"),
    "years": response("429 Too Many Requests", b'{"error": {"message": "slow down"}}', "Retry-After: 99999999"),
    "cut": b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"choi',
}


@pytest.fixture
def scripted(request: pytest.FixtureRequest) -> Iterator[str]:
    """A server on 127.0.0.4 giving ``CASES[name]`` to every request; its base URL."""
    answer = CASES[request.param]
    listener = socket.create_server(("127.0.0.4", 0))
    listener.settimeout(0.05)  # accept() wakes to see the stop: closing the socket would not wake it
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(5)
            with conn:
                conn.recv(1 << 16)
                try:
                    conn.sendall(answer)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.4:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join(5)
    listener.close()


def call(base_url: str) -> Reply:
    client = ChatClient(Profile(name="x", model="m", base_url=base_url, retries=2), "sk-x", Recorder(None, None))
    return client.complete({"model": "m", "messages": []}, CallPlace("g", "s", "S1901M", "orders", 0, 0), 5.0)


@pytest.mark.parametrize(
    ("scripted", "outcome"),
    [("gzip", "ok"), ("bomb", "too_big"), ("brotli", "bad_body"), ("redirect", "http_error"),
     ("years", "http_error"), ("cut", "unreachable")],
    indirect=["scripted"],
)  # fmt: skip
def test_a_misbehaving_provider_gets_a_plain_outcome(scripted: str, outcome: str) -> None:
    reply = call(scripted)
    assert reply.outcome == outcome, reply
    if outcome == "ok":
        assert reply.content == '{"orders": []}' and (reply.input_tokens, reply.output_tokens) == (3, 2)
    if outcome == "http_error":
        assert reply.retries == 0  # a redirect is not followed; years of Retry-After are not waited for
    if outcome == "unreachable":
        assert reply.retries == 2
