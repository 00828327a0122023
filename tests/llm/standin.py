"""A scripted stand-in for a language-model provider: a real OpenAI-compatible HTTP server.

The model seats are tested against this process rather than a mock, so that what they get
is what a real endpoint sends: status codes, headers, bodies that are not JSON, bodies
that never end. Tests start it with :class:`StandIn`; by hand::

    python -m tests.llm.standin --port 0      # prints "PORT <n>" once listening

The request's ``model`` is the script: ``+``-separated behaviour words, some with
``=value`` (``good``, ``invalid-once``, ``429-once+slow=0.2``; see :data:`FLAGS` and
:data:`VALUED`). A word it does not know is answered 404, as a provider answers a model it
lacks, so that a typo in a test fails loudly instead of silently behaving as ``good``.

The answers read the détente seat's prompt (``bots/llm/prompt.py``): ``MARKER: value``
lines, found with regexes anchored at line starts, and ``REPAIR:`` user messages, which
count the attempt. The same request always gets the same answer (the id aside): choices
are seeded from the phase, the unit and the request's ``seed``.

``GET /v1/_stats`` and ``POST /v1/_reset`` let a test see what the server was sent
(requests, tokens, ``Authorization`` headers, the last bodies) and start again.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import math
import os
import random
import re
import selectors
import socket
import string
import subprocess
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

__all__ = ["Script", "StandIn", "create_app", "main", "parse_script", "proposal_parts"]

ROOT = Path(__file__).resolve().parents[2]  # the repository: where ``-m tests.llm.standin`` resolves
MAX_BODY = 4 * 1024 * 1024
CREATED = 1700000000  # a fixed timestamp: the same request must give the same body
KEPT_BODIES = 50
#: The order in which a peace partner is picked: the first power that is not the seat's own.
POWERS = ("eng", "fra", "ger", "ita", "aus", "rus", "tur")
FULL = {
    "aus": "AUSTRIA",
    "eng": "ENGLAND",
    "fra": "FRANCE",
    "ger": "GERMANY",
    "ita": "ITALY",
    "rus": "RUSSIA",
    "tur": "TURKEY",
}
TOKEN_OF = {name: token for token, name in FULL.items()}

#: Words without a value.
FLAGS = frozenset(
    {
        "good",
        "invalid-once",
        "invalid",
        "text",
        "429-once",
        "500-once",
        "503-once",
        "garbage",
        "binary",
        "huge",
        "endless",
        "empty",
        "null-content",
        "no-choices",
        "no-usage",
        "no-structured",
        "inject",
        "echo-incoming",
    }
)
#: Words that need ``=value``.
VALUED = frozenset({"slow", "429", "usage", "need-key"})

log = logging.getLogger("standin")


# --- the script: what the model field asks for -------------------------------------------


@dataclass(frozen=True, slots=True)
class Failure:
    """One scripted error answer: its status and, for rate limits, its ``Retry-After``."""

    status: int
    retry_after: str | None = None


@dataclass(frozen=True, slots=True)
class Script:
    """The behaviour words of one ``model`` value, parsed."""

    flags: frozenset[str] = frozenset()
    slow: float = 0.0
    #: The answer to the n-th sighting of the same body (0-based) while n < len(failures):
    #: the failure words in the order written, so ``429=2+500-once`` is 429, 429, 500, then normal.
    failures: tuple[Failure, ...] = ()
    usage: tuple[int, int] | None = None
    need_key: str | None = None

    def has(self, word: str) -> bool:
        return word in self.flags


def parse_script(model: str) -> Script:
    """The script of ``model``; ValueError (naming the word) if it is not one this server knows.

    >>> [(f.status, f.retry_after) for f in parse_script("429=2+500-once+slow=0.5").failures]
    [(429, '0.2'), (429, '0.2'), (500, None)]
    >>> parse_script("good+usage=3,4").usage
    (3, 4)
    >>> parse_script("goood")
    Traceback (most recent call last):
    ValueError: unknown behaviour word 'goood'
    """
    flags: set[str] = set()
    failures: list[Failure] = []
    slow = 0.0
    usage: tuple[int, int] | None = None
    need_key: str | None = None
    for word in model.split("+"):
        name, has_value, value = word.partition("=")
        if not has_value and name in FLAGS:
            flags.add(name)
            if name == "429-once":
                failures.append(Failure(429, "1"))
            elif name in ("500-once", "503-once"):
                failures.append(Failure(int(name[:3])))
            continue
        if not has_value or name not in VALUED:
            raise ValueError(f"unknown behaviour word {word!r}")
        try:
            if name == "slow":
                slow = float(value)
                if not (math.isfinite(slow) and slow >= 0):
                    raise ValueError
            elif name == "429":
                failures += [Failure(429, "0.2")] * _count(value)
            elif name == "usage":
                prompt, completion = value.split(",")
                usage = (_count(prompt), _count(completion))
            elif not value:  # need-key
                raise ValueError
            else:
                need_key = value
        except ValueError:
            raise ValueError(f"bad value in behaviour word {word!r}") from None
    return Script(frozenset(flags), slow, tuple(failures), usage, need_key)


def _count(text: str) -> int:
    n = int(text)
    if n < 0:
        raise ValueError
    return n


# --- the prompt: what the seat wrote -----------------------------------------------------


class BadPrompt(ValueError):
    """The messages lack what the scripted model needs (answered 400, so a test sees why)."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """The parts of a seat's request that the answers depend on."""

    me: str  # the seat's power, as its three-letter token
    phase: str  # e.g. S1901M
    task: str  # orders | press
    press_mode: str  # l | english
    legal: dict[str, Any]
    incoming: Any  # the INCOMING value as parsed (a list from the seat), None if absent
    attempt: int  # the number of REPAIR: messages: 0 on a first try
    seed: object


def _marker(text: str, pattern: str) -> str | None:
    found = re.search(pattern, text, re.MULTILINE)
    return found.group(1) if found else None


def parse_prompt(messages: Sequence[Any], seed: object) -> Prompt:
    """Read the markers of ``messages``.

    The markers are looked for in every system and user message but the repairs, first
    match winning: the seat puts them in message 1, and looking further costs nothing. A
    JSON value stays on one line, so text inside it cannot fake a marker line.
    """
    texts: list[str] = []
    attempt = 0
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str) or message.get("role") not in ("system", "user"):
            continue
        if content.startswith("REPAIR:"):
            attempt += message.get("role") == "user"
        else:
            texts.append(content)
    text = "\n".join(texts)
    task = _marker(text, r"^TASK: (\w+)[ \t]*$")
    if task not in ("orders", "press"):
        raise BadPrompt(f"stand-in: no 'TASK: orders' or 'TASK: press' line (got {task!r})")
    you = _marker(text, r"^YOU ARE: (.+?)[ \t]*$") or ""
    token = re.search(r"\((\w{3})\)", you)
    me = token.group(1).lower() if token else TOKEN_OF.get(you.strip().upper(), "")
    if me not in FULL:
        raise BadPrompt(f"stand-in: no power in the 'YOU ARE:' line ({you!r})")
    # the seat writes "PHASE: S1901M (spring 1901, movement)": the phase is the first word
    phase = _marker(text, r"^PHASE: (\S+)") or ""
    legal = _json_marker(text, "LEGAL ORDERS")
    if task == "orders" and not isinstance(legal, dict):
        raise BadPrompt("stand-in: no 'LEGAL ORDERS (JSON):' object for an orders task")
    mode = _marker(text, r"^PRESS MODE: (\w+)[ \t]*$") or "l"
    return Prompt(
        me=me,
        phase=phase,
        task=task,
        press_mode=mode,
        legal=legal if isinstance(legal, dict) else {},
        incoming=_json_marker(text, "INCOMING"),
        attempt=attempt,
        seed=seed,
    )


def _json_marker(text: str, name: str) -> Any:
    value = _marker(text, rf"^{name} \(JSON\): (.+?)[ \t]*$")
    if value is None:
        return None
    try:
        return json.loads(value)
    except ValueError:
        raise BadPrompt(f"stand-in: the '{name} (JSON):' line is not JSON") from None


# --- the answers -------------------------------------------------------------------------


def good_orders(p: Prompt) -> list[str]:
    """One legal option a unit, seeded so that the same request gets the same orders, but
    different units (and phases, and seeds) do not all take their first option."""
    orders: list[str] = []
    units = p.legal.get("units") or {}
    for unit, options in units.items() if isinstance(units, dict) else ():
        if isinstance(options, list) and options:
            orders.append(random.Random(f"{p.phase}|{unit}|{p.seed}").choice(options))
    adjust = p.legal.get("adjust") or {}
    count = adjust.get("count", 0) if isinstance(adjust, dict) else 0
    options = adjust.get("options", []) if isinstance(adjust, dict) else []
    if isinstance(count, int) and isinstance(options, list):
        orders += options[: abs(count)]  # builds (count > 0) or removals (count < 0) alike
    return orders


def proposal_parts(text: str) -> tuple[str, str] | None:
    """The sender and the deal of an L ``propose(...)``, or None if it is not one.

    The deal is everything after the second top-level comma (a time included), so that an
    acceptance names the very deal proposed; depth counts both kinds of bracket.

    >>> proposal_parts("propose(fra, [eng], Agree([eng fra], pce([eng fra])))")
    ('fra', 'Agree([eng fra], pce([eng fra]))')
    >>> proposal_parts("propose(fra, [eng]") is None
    True
    """
    if not text.startswith("propose("):
        return None
    start = len("propose(")
    depth, commas = 1, []
    for i in range(start, len(text)):
        char = text[i]
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                if len(commas) < 2:
                    return None
                sender = text[start : commas[0]].strip().strip("[]").strip().lower()
                return sender, text[commas[1] + 1 : i].strip()
        elif char == "," and depth == 1:
            commas.append(i)
    return None


@dataclass(frozen=True, slots=True)
class Move:
    """One press decision: accept ``to``'s proposal of ``deal``, or (deal None) propose peace to ``to``."""

    to: str
    deal: str | None = None


def press_moves(p: Prompt) -> list[Move]:
    """Accept every proposal heard; with none, propose peace in a movement phase."""
    moves: list[Move] = []
    for item in p.incoming if isinstance(p.incoming, list) else ():
        if not isinstance(item, dict):
            continue
        l_text = item.get("l")
        if isinstance(l_text, str):
            parts = proposal_parts(l_text)
            if parts and parts[0] in FULL:
                moves.append(Move(parts[0], parts[1]))
        elif isinstance(item.get("english"), str) and "propose" in item["english"].lower():
            # in English mode the seat shows no L, only the sender and the English
            sender = TOKEN_OF.get(str(item.get("from", "")).upper())
            if sender:
                moves.append(Move(sender, ""))
    if not moves and p.phase.endswith("M"):
        moves.append(Move(next(x for x in POWERS if x != p.me)))
    return moves


def peace_proposal(me: str, other: str) -> str:
    return f"propose({me}, [{other}], Agree([{me} {other}], pce([{me} {other}])))"


def press_item(p: Prompt, move: Move) -> dict[str, str]:
    if p.press_mode == "english":
        if move.deal is not None:
            return {"to": FULL[move.to], "text": "I accept"}
        mine, theirs = FULL[p.me].capitalize(), FULL[move.to].capitalize()
        return {"to": FULL[move.to], "text": f"Let us agree on peace between {mine} and {theirs}."}
    if move.deal is not None:
        return {"l": f"accept({p.me}, [{move.to}], {move.deal})"}
    return {"l": peace_proposal(p.me, move.to)}


def invalid_payload(p: Prompt) -> dict[str, Any]:
    """An answer the seat must refuse: a foreign unit's order, broken L, English nobody reads."""
    if p.task == "orders":
        return {"orders": ["A PAR - MOS"]}
    if p.press_mode == "english":
        return {"press": [{"to": "FRANCE", "text": "blorp zzkx qq"}]}
    return {"press": [{"l": "propose(me"}]}


def inject_payload(p: Prompt) -> dict[str, Any]:
    """A good answer with extras a seat must drop: other powers' units, oversized strings."""
    if p.task == "orders":
        mine = set((p.legal.get("units") or {}).keys())
        foreign = [o for o in ("A BER - MUN", "F CON - BLA", "A VIE - TRI", "F BRE - MAO") if o[:5] not in mine]
        return {"orders": good_orders(p) + foreign[:2] + ["x" * 10_000]}
    other = next(x for x in POWERS if x != p.me)
    first = press_item(p, Move(other))
    key = "l" if p.press_mode != "english" else "text"
    return {"press": [first, {**first, key: "x" * 5000}]}


def payload(script: Script, p: Prompt) -> dict[str, Any]:
    if script.has("invalid") or (script.has("invalid-once") and p.attempt == 0):
        return invalid_payload(p)
    if script.has("inject"):
        return inject_payload(p)
    if p.task == "orders":
        answer: dict[str, Any] = {"orders": good_orders(p)}
        if script.has("echo-incoming"):
            answer["seen"] = p.incoming
        return answer
    return {"press": [press_item(p, m) for m in press_moves(p)]}


def as_text(p: Prompt, answer: dict[str, Any]) -> str:
    """The ``text`` answer: what a chatty model writes when it ignores "JSON only"."""
    if "orders" in answer:
        return "\n".join(["Here are my orders:", *(f"- {o}" for o in answer["orders"])])
    lines = []
    for item in answer["press"]:
        lines.append(item["l"] if "l" in item else f"TO {item['to']}: {item['text']}")
    return "\n".join(lines)


def junk(size: int = 2000) -> str:
    """Printable junk, the same every time; '@' cannot begin a JSON text, so it never parses."""
    rng = random.Random("garbage")
    alphabet = string.ascii_letters + string.digits + string.punctuation + " "
    return "@" + "".join(rng.choice(alphabet) for _ in range(size - 1))


def huge() -> str:
    """About a mebibyte that starts like an orders answer and never closes."""
    return ('{"orders": [' + '"A PAR H", ' * 100_000)[: 1024 * 1024]


def words(text: str) -> int:
    return len(text.split())


# --- the server --------------------------------------------------------------------------


@dataclass(slots=True)
class ModelStats:
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(slots=True)
class Stats:
    """What a test can ask about; :meth:`State.reset` starts a fresh one."""

    requests: int = 0
    completions: int = 0  # 200 answers sent whole (an endless one never is)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    authorization: list[str] = field(default_factory=list)
    by_model: dict[str, ModelStats] = field(default_factory=dict)
    bodies: deque[Any] = field(default_factory=lambda: deque(maxlen=KEPT_BODIES))
    seen: dict[str, int] = field(default_factory=dict)  # sightings of each body, for the failure words


@dataclass(slots=True)
class State:
    stats: Stats = field(default_factory=Stats)
    streams_open: int = 0  # endless answers still trickling: a test can await their end
    next_id: int = 0  # never reset, so that ids stay unique for the life of the process

    def reset(self) -> None:
        self.stats = Stats()

    def snapshot(self) -> dict[str, Any]:
        s = self.stats
        return {
            "requests": s.requests,
            "completions": s.completions,
            "prompt_tokens": s.prompt_tokens,
            "completion_tokens": s.completion_tokens,
            "authorization": list(s.authorization),
            "by_model": {
                m: {"requests": v.requests, "prompt_tokens": v.prompt_tokens, "completion_tokens": v.completion_tokens}
                for m, v in s.by_model.items()
            },
            "bodies": list(s.bodies),
            "streams_open": self.streams_open,
        }


def error(
    status: int,
    message: str,
    kind: str = "invalid_request_error",
    *,
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """An error in OpenAI's shape: ``{"error": {"message", "type", [param], [code]}}``."""
    detail: dict[str, str] = {"message": message, "type": kind}
    if param is not None:
        detail["param"] = param
    if code is not None:
        detail["code"] = code
    return JSONResponse({"error": detail}, status_code=status, headers=headers)


async def read_body(request: Request) -> bytes | None:
    """The body, or None if it is over :data:`MAX_BODY`. An oversized body is still drained
    (up to a bound) rather than left unread, so that the client gets the 413 instead of a
    connection reset in the middle of its upload."""
    declared = request.headers.get("content-length", "")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size <= MAX_BODY:
            chunks.append(chunk)
        elif size > 16 * MAX_BODY:
            break
    if size > MAX_BODY or (declared.isdigit() and int(declared) > MAX_BODY):
        return None
    return b"".join(chunks)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN would break the stats' own JSON later


async def _disconnected(request: Request) -> None:
    """Return when the client goes away. Only called once the body is read, when the next
    ASGI message can only be the disconnect."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def pause(request: Request, seconds: float) -> bool:
    """Sleep ``seconds``; False if the client left first. A client that gave up must not leave
    a handler sleeping behind it, or stopping the server waits on it."""
    sleeper = asyncio.ensure_future(asyncio.sleep(seconds))
    watcher = asyncio.ensure_future(_disconnected(request))
    done, pending = await asyncio.wait({sleeper, watcher}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    return sleeper in done


def create_app() -> Starlette:
    """The application, with a state of its own (each process, or each in-process test, starts clean)."""
    state = State()

    async def trickle() -> AsyncIterator[bytes]:
        # One byte every 0.1 s keeps any read timeout from firing: only a deadline on the
        # whole request stops this. Starlette cancels it when the client disconnects.
        state.streams_open += 1
        try:
            while True:
                yield b" "
                await asyncio.sleep(0.1)
        finally:
            state.streams_open -= 1

    async def completions(request: Request) -> Response:
        stats = state.stats
        stats.requests += 1
        auth = request.headers.get("authorization")
        if auth is not None and auth not in stats.authorization:
            stats.authorization.append(auth)
        raw = await read_body(request)
        if raw is None:
            return error(413, f"request body over {MAX_BODY} bytes")
        try:
            body = json.loads(raw, parse_constant=_reject_constant)
        except ValueError as e:  # UnicodeDecodeError included
            return error(400, f"the body is not valid JSON: {e}")
        stats.bodies.append(body)
        if not isinstance(body, dict):
            return error(400, "the body must be a JSON object")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            return error(400, "you must provide a model parameter", param="model")
        per_model = stats.by_model.setdefault(model, ModelStats())
        per_model.requests += 1
        try:
            script = parse_script(model)
        except ValueError as e:
            return error(404, f"model {model!r} not found ({e})", code="model_not_found", param="model")
        if script.need_key is not None and auth != f"Bearer {script.need_key}":
            return error(401, "incorrect API key provided", code="invalid_api_key")
        if body.get("stream") is True:
            return error(400, "streaming is not supported by this server", param="stream")
        if script.has("no-structured") and ("response_format" in body or "tools" in body):
            return error(400, "response_format is not supported by this server", param="response_format")
        messages = body.get("messages")
        if not isinstance(messages, list):
            return error(400, "messages must be a list", param="messages")

        if script.slow and not await pause(request, script.slow):
            return Response(status_code=499)  # nobody is there to read it
        # The whole body, canonically, is the key: a retry of the same request is the same
        # request, whatever the client's key order.
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        sighting = stats.seen.get(key, 0)
        stats.seen[key] = sighting + 1
        if sighting < len(script.failures):
            failure = script.failures[sighting]
            kind = "rate_limit_error" if failure.status == 429 else "server_error"
            headers = {"Retry-After": failure.retry_after} if failure.retry_after else None
            return error(failure.status, f"scripted {failure.status}", kind, headers=headers)
        if script.has("endless"):
            return StreamingResponse(trickle(), media_type="application/json")
        if script.has("binary"):
            stats.completions += 1
            return Response(b"\xff\xfe" + junk().encode(), media_type="application/json")

        content: str | None
        if script.has("null-content"):
            content = None
        elif script.has("empty"):
            content = ""
        elif script.has("garbage"):
            content = junk()
        elif script.has("huge"):
            content = huge()
        else:
            try:
                prompt = parse_prompt(messages, body.get("seed") if body.get("seed") is not None else 0)
            except BadPrompt as e:
                return error(400, str(e), param="messages")
            answer = payload(script, prompt)
            content = as_text(prompt, answer) if script.has("text") else json.dumps(answer)

        state.next_id += 1
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{state.next_id}",
            "object": "chat.completion",
            "created": CREATED,
            "model": model,
            "choices": []
            if script.has("no-choices")
            else [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        }
        if not script.has("no-usage"):
            if script.usage is not None:
                prompt_tokens, completion_tokens = script.usage
            else:
                prompt_tokens = sum(
                    words(m["content"]) for m in messages if isinstance(m, dict) and isinstance(m.get("content"), str)
                )
                if script.has("no-choices") or content is None:
                    completion_tokens = 0
                elif script.has("garbage") or script.has("huge"):
                    completion_tokens = len(content.encode()) // 4
                else:
                    completion_tokens = words(content)
            reply["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
            stats.prompt_tokens += prompt_tokens
            stats.completion_tokens += completion_tokens
            per_model.prompt_tokens += prompt_tokens
            per_model.completion_tokens += completion_tokens
        stats.completions += 1
        return JSONResponse(reply)

    async def models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    async def get_stats(request: Request) -> Response:
        return JSONResponse(state.snapshot())

    async def reset(request: Request) -> Response:
        state.reset()
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/v1/_stats", get_stats, methods=["GET"]),
            Route("/v1/_reset", reset, methods=["POST"]),
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.llm.standin", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--log-level", default="warning", help="of the logs on stderr")
    args = parser.parse_args(argv)
    # stdout carries the PORT line and nothing else: uvicorn's own logging config would send
    # its access log there, so it gets none and everything goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper())
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    # Listening before the PORT line is printed: a client that connects at once waits in the
    # backlog until uvicorn accepts, instead of being refused.
    sock.listen(128)
    config = uvicorn.Config(
        create_app(),
        log_config=None,
        log_level=args.log_level,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=1,  # an endless answer must not hold up a stop for ever
    )
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


# --- for tests ---------------------------------------------------------------------------


class StandIn:
    """The stand-in as a process of its own, for a ``with`` block: ``base_url`` is what a
    seat's ``base_url`` setting takes."""

    START_TIMEOUT = 20.0
    STOP_TIMEOUT = 5.0

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.base_url = ""

    def __enter__(self) -> Self:
        # stderr is inherited: pytest captures it, and a pipe nobody reads could fill and stall the server
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.llm.standin", "--port", "0"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
        try:
            self.port = self._read_port()
        except BaseException:
            self._stop()
            raise
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self._stop()

    def _read_port(self) -> int:
        """The port from the ``PORT <n>`` line, awaited (not slept for) up to :attr:`START_TIMEOUT`."""
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + self.START_TIMEOUT
        seen = b""
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in seen:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise TimeoutError(f"the stand-in printed no PORT line in {self.START_TIMEOUT} s")
                chunk = os.read(fd, 256)
                if not chunk:
                    raise RuntimeError(f"the stand-in exited before listening (status {self.process.wait()})")
                seen += chunk
        line = seen.split(b"\n", 1)[0].decode(errors="replace").strip()
        found = re.fullmatch(r"PORT (\d+)", line)
        if not found:
            raise RuntimeError(f"the stand-in printed {line!r}, not 'PORT <n>'")
        return int(found.group(1))

    def _stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(self.STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def stats(self) -> dict[str, Any]:
        response = httpx.get(f"{self.base_url}/_stats", timeout=10)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def reset(self) -> None:
        httpx.post(f"{self.base_url}/_reset", timeout=10).raise_for_status()


if __name__ == "__main__":
    main()
