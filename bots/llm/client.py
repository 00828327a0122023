"""One client for every OpenAI-compatible chat-completions endpoint, with its record and replay.

:meth:`ChatClient.complete` makes one call: the request is looked up in the cache first
(``--llm-cache``), and only then sent, from a worker thread, so that the seat can stop
waiting at its time limit while the answer, if it comes late, is still logged and cached
as late; a replay then plays it late again, exactly as the run did. Each call is keyed by
its request *and* its place (seat, game, phase, the call's number in the phase and the
repair attempt): two identical prompts in different places are different calls.

The transport is httpx. What comes back is bounded: the body in bytes, the whole call in
time (a server trickling bytes forever is cut at the deadline, not at each read), the
retries on 429 and 5xx (backoff doubling from half a second, ``Retry-After`` honoured
within the time left), and the calls in flight to one endpoint (a semaphore per URL in
this process). A reply is a plain value: its ``outcome`` says what happened, never an
exception, since a model's answer is bad input like any other.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import os
import random
import threading
import time
import zlib
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_for
from dataclasses import asdict, dataclass, replace
from typing import Any

import httpx

from bots.llm.config import Profile
from bots.llm.recorder import Recorder

__all__ = ["CallPlace", "ChatClient", "Reply", "settle"]

#: Outcomes after which the same call may succeed if sent again.
RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_TOKENS_REPORTED = 10**9
_EXECUTOR = ThreadPoolExecutor(max_workers=32, thread_name_prefix="llm-call")
_IN_FLIGHT: set[Future[Reply]] = set()  # calls still running, a late answer among them
_ENDPOINTS: dict[str, _Endpoint] = {}
_ENDPOINTS_LOCK = threading.Lock()


def _forked() -> None:
    """In a child process (``--jobs``: a fork of the parent) nothing of the parent's calls holds:
    its worker threads are not there, its connections are the parent's sockets."""
    global _EXECUTOR, _ENDPOINTS_LOCK
    _EXECUTOR = ThreadPoolExecutor(max_workers=32, thread_name_prefix="llm-call")
    _IN_FLIGHT.clear()
    _ENDPOINTS.clear()
    _ENDPOINTS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forked)


@dataclass(frozen=True, slots=True)
class _Endpoint:
    """One URL's connections (kept alive between calls) and its slots for calls in flight."""

    http: httpx.Client
    slots: threading.BoundedSemaphore


@dataclass(frozen=True, slots=True)
class CallPlace:
    """Where a call is made: it keys the cache and stands in the log."""

    game: str
    seat: str
    phase: str
    task: str
    n: int  # the call's number in the phase, for this seat
    attempt: int  # 0, then 1 for the repair


@dataclass(frozen=True, slots=True)
class Reply:
    """What one call came to.

    ``outcome``: ``ok``; ``late`` (the answer, if any, came after the time limit);
    ``http_error`` (a status that retrying would not mend, or retries spent); ``unreachable``;
    ``unsupported`` (the endpoint refused structured output); ``too_big``; ``not_utf8``;
    ``bad_body`` (no JSON, or no answer in it); ``offline_miss`` (``--llm-offline`` and the
    call is not in the cache).
    """

    outcome: str
    content: str | None = None
    status: int | None = None
    latency: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    estimated: bool = False  # the endpoint reported no usage: tokens estimated at 4 bytes each
    retries: int = 0
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    def to_json(self) -> dict[str, Any]:
        record = asdict(self)
        del record["cached"]
        return record

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Reply:
        return cls(**{k: v for k, v in record.items() if k in cls.__dataclass_fields__})


class _Pending:
    """A call in flight: the seat either takes its reply or gives it up as late, never both."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.abandoned = False


class ChatClient:
    """Calls for one seat's profile, with its API key (held here only, never written)."""

    def __init__(self, profile: Profile, key: str | None, recorder: Recorder, offline: bool = False) -> None:
        self.profile = profile
        self._key = key
        self.recorder = recorder
        self.offline = offline
        self.url = f"{profile.base_url}/chat/completions"
        with _ENDPOINTS_LOCK:
            if profile.base_url not in _ENDPOINTS:
                http = httpx.Client(follow_redirects=False, limits=httpx.Limits(max_connections=profile.concurrency))
                _ENDPOINTS[profile.base_url] = _Endpoint(http, threading.BoundedSemaphore(profile.concurrency))
            endpoint = _ENDPOINTS[profile.base_url]
        self._http, self._slots = endpoint.http, endpoint.slots

    def complete(self, body: Mapping[str, Any], place: CallPlace, limit: float) -> Reply:
        """The reply to ``body`` within ``limit`` seconds (from the cache, or from the endpoint)."""
        key = _key(body, place)
        cached = self.recorder.lookup(key)
        if cached is not None:
            reply = replace(Reply.from_json(cached), cached=True)
            if reply.outcome == "late":  # as the seat saw it when it gave up: no answer, at the limit
                reply = replace(reply, latency=min(reply.latency, limit), input_tokens=0, output_tokens=0)
            self.recorder.log(place, self.profile, body, reply)
            return reply
        if self.offline:
            reply = Reply("offline_miss", error="--llm-offline: this call is not in the cache")
            self.recorder.log(place, self.profile, body, reply)
            return reply
        pending = _Pending()
        limit = max(0.0, limit)
        future = _EXECUTOR.submit(self._exchange, dict(body), place, key, limit, pending)
        with _ENDPOINTS_LOCK:
            _IN_FLIGHT.add(future)
        future.add_done_callback(_landed)
        try:
            return future.result(timeout=limit + 0.05)  # the worker itself gives up at its hard bound
        except FutureTimeout:
            with pending.lock:
                if not future.done():
                    pending.abandoned = True
                    return Reply("late", latency=limit, error=f"no answer within {limit:.1f} s")
            return future.result()

    # --- the worker ---------------------------------------------------------------------------

    def _exchange(self, body: dict[str, Any], place: CallPlace, key: str, limit: float, pending: _Pending) -> Reply:
        started = time.monotonic()
        # a late answer is still awaited a while, to be logged and cached as late (replays play it late)
        hard = started + max(2 * limit, 1.0)
        reply = self._send(body, started, hard, random.Random(key))
        with pending.lock:
            if pending.abandoned or reply.latency > limit:
                reply = replace(reply, outcome="late", error=reply.error or f"answered after {limit:.1f} s")
        self.recorder.store(key, reply.to_json())
        self.recorder.log(place, self.profile, body, reply)
        return reply

    def _send(self, body: dict[str, Any], started: float, hard: float, jitter: random.Random) -> Reply:
        retries = 0
        while True:
            reply, wait = self._once(body, started, hard)
            left = hard - time.monotonic()
            if wait is None or retries >= self.profile.retries or wait >= left:
                return replace(reply, retries=retries)
            retries += 1
            time.sleep(min(wait * (1 + 0.1 * jitter.random()), max(0.0, left)))

    def _once(self, body: dict[str, Any], started: float, hard: float) -> tuple[Reply, float | None]:
        """One HTTP exchange: the reply, and how long to wait before trying again (None: do not)."""
        # identity: the size bound holds for the bytes read (a provider that compresses anyway is
        # decoded piece by piece, each piece counted before the next is read)
        headers = {"Accept-Encoding": "identity"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        cap = self.profile.max_response_bytes
        left = hard - time.monotonic()
        if left <= 0:
            return Reply("late", latency=time.monotonic() - started, error="out of time"), None
        if not self._slots.acquire(timeout=left):  # every slot of the endpoint busy until the deadline
            return Reply("late", latency=time.monotonic() - started, error="the endpoint's calls were all in use"), None
        try:
            try:
                timeout = httpx.Timeout(left, connect=min(left, 10.0))
                with self._http.stream("POST", self.url, json=body, headers=headers, timeout=timeout) as response:
                    inflate = _inflater(response.headers.get("content-encoding", ""))
                    if inflate is False:
                        return self._failed("bad_body", started, response.status_code, "an unknown encoding"), None
                    data = bytearray()
                    for chunk in response.iter_raw():
                        # what a compressed answer inflates to is bounded too: never past the cap
                        data += inflate.decompress(chunk, cap + 1 - len(data)) if inflate else chunk
                        if len(data) > cap or (inflate and inflate.unconsumed_tail):
                            return self._failed("too_big", started, response.status_code, f"over {cap} bytes"), None
                        if time.monotonic() > hard:
                            return self._failed("late", started, response.status_code, "answer still coming"), None
                    status, retry_after = response.status_code, response.headers.get("retry-after")
            except httpx.TimeoutException:
                return self._failed("late", started, None, "timed out"), None
            except httpx.HTTPError as error:
                return self._failed("unreachable", started, None, self._scrub(f"{type(error).__name__}: {error}")), 0.5
        finally:
            self._slots.release()
        latency = time.monotonic() - started
        if status != 200:
            text = bytes(data[:2000]).decode("utf-8", "replace")
            if _refuses_format(status, body, text):
                return Reply("unsupported", status=status, latency=latency, error=_error_message(text)), None
            wait = _retry_after(retry_after) if status in RETRIED_STATUS else None
            return Reply("http_error", status=status, latency=latency, error=_error_message(text)), wait
        return _answer(bytes(data), body, latency), None

    def _failed(self, outcome: str, started: float, status: int | None, error: str) -> Reply:
        return Reply(outcome, status=status, latency=time.monotonic() - started, error=error)

    def _scrub(self, text: str) -> str:
        """``text`` without the API key (an error may quote a header back)."""
        return text.replace(self._key, "[key]") if self._key else text


def _inflater(encoding: str) -> Any:
    """A decompressor for a body sent with ``encoding`` (None: as it is; False: unknown). The
    request asks for none, but a provider may compress anyway."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    return False


def _landed(future: Future[Reply]) -> None:
    with _ENDPOINTS_LOCK:
        _IN_FLIGHT.discard(future)


def settle(timeout: float | None = None) -> None:
    """Wait for the calls still running (late answers, each bounded by its hard limit) to be
    logged and cached: a game's record is written after its calls are, so a replay finds them."""
    with _ENDPOINTS_LOCK:
        running = list(_IN_FLIGHT)
    if running:
        wait_for(running, timeout)


def _refuses_format(status: int, body: Mapping[str, Any], text: str) -> bool:
    """Whether the endpoint refused the request's structured output: a 400 or 422 as OpenAI
    and vLLM answer, or the 500 of llama-cpp-python's server, naming the format."""
    if body.get("response_format") is None or status not in (400, 422, 500, 501):
        return False
    return any(word in text for word in ("response_format", "json_schema", "json_object"))


def _retry_after(value: str | None) -> float:
    """Seconds to wait: ``Retry-After`` (seconds or an HTTP date), else the first backoff."""
    if value is None:
        return 0.5
    try:
        return max(0.0, min(float(value), 60.0))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return 0.5
    return max(0.0, min(when - time.time(), 60.0))


def _error_message(text: str) -> str:
    """The provider's error message, if its body is OpenAI's error JSON; else its first 200 characters."""
    try:
        message = json.loads(text)["error"]["message"]
        if isinstance(message, str):
            return message[:200]
    except (ValueError, KeyError, TypeError):
        pass
    return text[:200]


def _tokens(value: object) -> int | None:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS_REPORTED else None
    )


def _answer(data: bytes, body: Mapping[str, Any], latency: float) -> Reply:
    """The model's text and usage from a 200 body, or the reason there is none."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Reply("not_utf8", status=200, latency=latency, error="the body is not UTF-8")
    try:
        document = json.loads(text)
        message = document["choices"][0]["message"]
        content = message.get("content")
        if content is None and message.get("tool_calls"):
            content = message["tool_calls"][0]["function"]["arguments"]
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
        return Reply("bad_body", status=200, latency=latency, error="no chat completion in the body")
    if not isinstance(content, str):
        return Reply("bad_body", status=200, latency=latency, error="the answer has no text")
    usage = document.get("usage") if isinstance(document, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    prompt, completion = _tokens(usage.get("prompt_tokens")), _tokens(usage.get("completion_tokens"))
    estimated = prompt is None or completion is None
    if prompt is None:
        prompt = len(json.dumps(body.get("messages", ()), ensure_ascii=False).encode()) // 4
    if completion is None:
        completion = len(content.encode()) // 4
    return Reply("ok", content, 200, latency, prompt, completion, estimated)


def _key(body: Mapping[str, Any], place: CallPlace) -> str:
    """The cache key of a call: its request and its place."""
    text = json.dumps({"place": asdict(place), "request": body}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()
