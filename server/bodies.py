"""JSON bodies in and errors out, as every JSON endpoint of the game server reads and answers them."""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

from server.api_models import ErrorBody

__all__ = ["MAX_BODY_BYTES", "error_response", "read_body"]

MAX_BODY_BYTES = 65_536

Body = TypeVar("Body", bound=BaseModel)


def error_response(status: int, message: str, line: int | None = None, column: int | None = None) -> JSONResponse:
    """An :class:`~server.api_models.ErrorBody` answer, with where in the input when known."""
    return JSONResponse(ErrorBody(error=message, line=line, column=column).model_dump(exclude_none=True), status)


async def read_body(request: Request, model: type[Body]) -> Body | JSONResponse:
    """The JSON body as ``model``, or the error answer (413, 400 with line and column, or 422)
    to return instead."""
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        return error_response(413, "the body is too large")
    try:
        data = json.loads(raw or b"{}")
    except json.JSONDecodeError as exc:
        return error_response(400, f"invalid JSON: {exc.msg}", exc.lineno, exc.colno)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors())
        return error_response(422, problems)
