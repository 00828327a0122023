"""JSON in and out, fast: orjson when it is installed, the standard library otherwise.

The saved-game formats repeat the whole board in every phase (MILA's ``state`` holds
units, centres, homes, influence, builds...): reading a MILA file with the standard
library's parser takes about half as long as adjudicating its phases again, and an
indented dump, through its pure-Python encoder, longer than that. orjson reads such a
file about three times as fast and writes compact JSON about ten times as fast.

Whatever orjson refuses (``NaN``, integers beyond 64 bits, non-string keys) goes to the
standard library, so the answers do not depend on which one ran; an error names the
line and column as :class:`json.JSONDecodeError` does, in the standard library's words.

>>> loads(b'{"a": [1, 2]}')
{'a': [1, 2]}
>>> dumps({"a": [1, "é"]})
'{"a":[1,"é"]}'
>>> dump_line({"a": "é"}) == '{"a":"é"}\\n'.encode()
True
>>> print(dumps({"a": [1]}, indent=1))
{
 "a": [
  1
 ]
}
"""

from __future__ import annotations

import codecs
import json
import sys
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the standard library still works
    orjson = None  # type: ignore[assignment]

__all__ = ["BeyondBounds", "dump_bytes", "dump_line", "dumps", "loads", "write_stdout"]


class BeyondBounds(ValueError):
    """JSON that may be well formed but that is not read: nested too deeply, or a number with
    more digits than Python converts (4,300), as the HTTP API refuses them too."""


def loads(text: str | bytes) -> Any:
    """Parse JSON text; :class:`json.JSONDecodeError` (line, column) when it is not JSON,
    :class:`BeyondBounds` when it is beyond what is read.

    >>> loads("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    formats.jsonio.BeyondBounds: nested too deeply
    >>> loads("9" * 5000)
    Traceback (most recent call last):
    ...
    formats.jsonio.BeyondBounds: a number with too many digits
    """
    if orjson is not None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # the standard library reads it (NaN, big integers) or words the error
    try:
        return json.loads(text)
    except RecursionError:
        raise BeyondBounds("nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # int() over 4,300 digits
        if "integer string conversion" in str(error):
            raise BeyondBounds("a number with too many digits") from None
        raise


def dumps(data: Any, indent: int | None = None) -> str:
    """JSON text: compact unless ``indent`` (spaces), non-ASCII characters as they are."""
    if indent is None:
        if orjson is not None:
            try:
                return orjson.dumps(data).decode("utf-8")
            except (TypeError, orjson.JSONEncodeError):
                pass
        return _compact(data)
    if indent == 2 and orjson is not None:
        try:
            return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8")
        except (TypeError, orjson.JSONEncodeError):
            pass
    return json.dumps(data, indent=indent, ensure_ascii=False)


def dump_bytes(data: Any) -> bytes:
    """Compact JSON as UTF-8 bytes: what :func:`dumps` writes, encoded.

    >>> dump_bytes([1, "é"]) == dumps([1, "é"]).encode()
    True
    """
    if orjson is not None:
        try:
            return orjson.dumps(data)
        except (TypeError, orjson.JSONEncodeError):
            pass
    return _compact(data).encode("utf-8")


def dump_line(data: Any) -> bytes:
    """Compact JSON and a newline, as UTF-8 bytes: what :func:`dumps` writes, without making a
    ``str`` of it to encode again when it goes to a file."""
    if orjson is not None:
        try:
            return orjson.dumps(data, option=orjson.OPT_APPEND_NEWLINE)
        except (TypeError, orjson.JSONEncodeError):
            pass
    return (_compact(data) + "\n").encode("utf-8")


def write_stdout(data: bytes) -> None:
    """UTF-8 bytes to standard output: straight to its buffer when it writes UTF-8 (a megabyte
    of JSON is not decoded to be encoded again), as text otherwise."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is not None and codecs.lookup(getattr(out, "encoding", None) or "ascii").name == "utf-8":
        out.flush()
        buffer.write(data)
        buffer.flush()
    else:
        out.write(data.decode("utf-8"))
        out.flush()


def _compact(data: Any) -> str:
    """The standard library's compact JSON: what orjson declines (NaN, big integers) or is missing for."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
