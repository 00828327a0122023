"""The Lark grammars of the protocols, shipped as package data (issue 3), and the one way they
are made into parsers: :func:`parser`.

Building the LALR tables of the DAIDE grammar takes about 0.3 s and those of L 0.15 s, paid
on the first message a process reads (``detente play``'s first seat, every worker of a run).
Lark keeps the tables in a cache file and loads them in a fifth of the time; the file is
named by a hash of the grammar, the options and Lark's version, so a change of any makes a
new one. It lives in ``$DETENTE_CACHE_DIR``, else ``$XDG_CACHE_HOME/detente``, else
``~/.cache/detente``; where that cannot be written (a read-only home, a container's user
without one) the tables are built every time, as without a cache.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import lark

__all__ = ["cache_dir", "parser"]


def cache_dir() -> Path | None:
    """Where the parsers' tables are cached, made if need be; None where it cannot be written."""
    chosen = os.environ.get("DETENTE_CACHE_DIR")
    if not chosen:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        chosen = os.path.join(base, "detente")
    try:
        os.makedirs(chosen, exist_ok=True)
    except OSError:
        return None
    return Path(chosen) if os.access(chosen, os.W_OK | os.X_OK) else None


def parser(grammar: str, **options: Any) -> lark.Lark:
    """``lark.Lark(grammar, **options)`` (LALR), its tables cached as the module says."""
    where = cache_dir()
    if where is None:
        return lark.Lark(grammar, **options)
    # the transformer is an object given again at each load: not part of what the tables depend on
    shape = sorted((k, v if isinstance(v, str | bool | int | list | tuple) else getattr(v, "__qualname__", "?"))
                   for k, v in options.items() if k != "transformer")  # fmt: skip
    key = hashlib.sha256(f"{lark.__version__}\n{shape!r}\n{grammar}".encode()).hexdigest()[:24]
    return lark.Lark(grammar, cache=str(where / f"lark-{key}.cache"), **options)
