"""JSON bodies in and errors out, as every JSON endpoint of the game server reads and answers them.

A body is read no further than the limit: one whose ``Content-Length`` says it is larger is
refused before any of it is read, and a chunked one as soon as it passes the limit (413,
and the connection closes). What is read must be UTF-8 JSON: a syntax error, a byte that is
not UTF-8, ``NaN`` or ``Infinity``, a number too long or out of range, or nesting too deep is
a 400 (with the line and column when there is a place to point at), and JSON that is not the
model a 422. None of them is a 500.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

from server.api_models import ErrorBody

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_ERROR_CHARS",
    "MAX_PROBLEMS",
    "BodyError",
    "body_limit",
    "error_response",
    "parse_json",
    "read_body",
    "read_raw",
    "validate",
]

MAX_BODY_BYTES = 65_536
"""The default body limit; an application's :class:`server.web.Limits` may set another."""

MAX_PROBLEMS = 5
"""The validation problems a 422 names; the rest are counted."""

MAX_ERROR_CHARS = 1_000
"""The longest error message answered."""

MAX_PROBLEM_CHARS = 200
"""The longest a problem of a 422 is told (a message may quote the input)."""

Body = TypeVar("Body", bound=BaseModel)


class BodyError(ValueError):
    """A body that cannot be used: the status and :class:`ErrorBody` fields of the answer."""

    def __init__(self, status: int, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.line, self.column = status, message, line, column

    def response(self) -> JSONResponse:
        headers = {"Connection": "close"} if self.status == 413 else None  # the rest of it is not read
        return error_response(self.status, self.message, self.line, self.column, headers)


def error_response(
    status: int,
    message: str,
    line: int | None = None,
    column: int | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """An :class:`~server.api_models.ErrorBody` answer, with where in the input when known; a
    message that quotes the input (a path of 16 KiB) is cut to :data:`MAX_ERROR_CHARS`."""
    if len(message) > MAX_ERROR_CHARS:
        message = message[: MAX_ERROR_CHARS - 3] + "..."
    body = ErrorBody(error=message, line=line, column=column).model_dump(exclude_none=True)
    return JSONResponse(body, status, headers=headers)


def body_limit(request: Request) -> int:
    """The body limit of the application serving ``request`` (``app.state.limits``), or the default."""
    limits = getattr(getattr(request.scope.get("app"), "state", None), "limits", None)
    return getattr(limits, "max_body_bytes", MAX_BODY_BYTES)


async def read_raw(request: Request, limit: int) -> bytes:
    """The body's bytes, read no further than ``limit``; :class:`BodyError` (413) beyond it."""
    declared = request.headers.get("content-length")
    if declared is not None:
        # the server checked it is digits; more of them than any limit is refused unread
        # (and is not given to int(), which refuses more than 4,300 digits with a ValueError)
        declared = declared.strip()
        if not declared.isdigit():
            raise BodyError(400, "bad Content-Length")
        if len(declared) > 18 or int(declared) > limit:
            raise BodyError(413, f"the body is too large: at most {limit} bytes")
    raw = bytearray()
    try:
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > limit:
                raise BodyError(413, f"the body is too large: at most {limit} bytes")
    except ClientDisconnect:
        raise BodyError(400, "the body did not arrive whole") from None
    return bytes(raw)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]}{'...' if len(text) > 20 else ''} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _where(raw: bytes, offset: int) -> tuple[int, int]:
    """The line and column (from 1, in characters) of byte ``offset`` of ``raw``."""
    line_start = raw.rfind(b"\n", 0, offset) + 1
    column = len(raw[line_start:offset].decode("utf-8", "replace")) + 1
    return raw.count(b"\n", 0, offset) + 1, column


def parse_json(raw: bytes) -> Any:
    """The JSON value of ``raw`` (an empty body is ``{}``); :class:`BodyError` (400) if it is not
    strict UTF-8 JSON that Python can hold."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _where(raw, exc.start)
        raise BodyError(400, "invalid JSON: the body is not UTF-8", line, column) from None
    if not text.strip():
        return {}
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise BodyError(400, f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise BodyError(400, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # parse_float, parse_constant, and int() over 4,300 digits
        message = str(exc)
        if "integer string conversion" in message:
            message = "a number with too many digits"
        raise BodyError(400, f"invalid JSON: {message}") from None


def validate(data: Any, model: type[Body]) -> Body:
    """``data`` as ``model``; :class:`BodyError` (422) naming the first problems if it is not."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        problems = [_clip(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}") for e in errors[:MAX_PROBLEMS]]
        if len(errors) > MAX_PROBLEMS:
            problems.append(f"and {len(errors) - MAX_PROBLEMS} more")
        raise BodyError(422, "; ".join(problems)) from None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_PROBLEM_CHARS else text[: MAX_PROBLEM_CHARS - 3] + "..."


async def read_body(request: Request, model: type[Body]) -> Body | JSONResponse:
    """The JSON body as ``model``, or the error answer (413, 400 with line and column, or 422)
    to return instead."""
    try:
        return validate(parse_json(await read_raw(request, body_limit(request))), model)
    except BodyError as exc:
        return exc.response()
