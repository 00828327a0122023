"""Which core adjudicates: the compiled one (``engine/_core.c``) or the pure-Python reference.

The compiled core is a C extension built by ``pip install`` where a C compiler is present.
It is chosen at import unless ``DETENTE_PURE_PYTHON=1`` is set; where it is missing (no
compiler at install time), one warning line says so and the pure-Python engine runs alone.
Either way every caller goes through the same functions (``engine.adjudicate``,
``engine.legal_orders``...), and the results are the same, bit for bit: the compiled core
answers only inputs it models exactly and hands anything odd (an index out of range, two
units in one province) back to the reference.

>>> active_core() in ("compiled C", "pure Python")
True
>>> with pure_python():
...     active_core()
'pure Python'
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from engine.maps import Map

COMPILED, PURE = "compiled C", "pure Python"
ENV = "DETENTE_PURE_PYTHON"

_log = logging.getLogger("engine")


def _load() -> tuple[ModuleType | None, str | None]:
    """The extension module, or None and why not."""
    if os.environ.get(ENV, "") not in ("", "0"):
        return None, f"{ENV} is set"
    try:
        from engine import _core  # type: ignore[attr-defined]
    except ImportError as error:
        # one line, once per process: the engine works, only slower
        _log.warning("engine: the compiled core (engine._core) is not built; using the pure-Python engine")
        return None, f"not built ({error})"
    return _core, None


_compiled, why_not = _load()
_enabled = _compiled is not None
_hidden = False  # as if not loaded (without_module)


def compiled_available() -> bool:
    """Whether the compiled core was built and loaded (whatever :func:`pure_python` says now)."""
    return _compiled is not None


def active_core() -> str:
    """``"compiled C"`` or ``"pure Python"``: the core that adjudicates now."""
    return COMPILED if _enabled else PURE


_modules: dict[str, ModuleType | None] = {}


def compiled_module(name: str) -> ModuleType | None:
    """Another C extension of the engine, ``engine.<name>`` (as ``engine._graph``), while the
    compiled core is active (same switches); None otherwise or where it is not built."""
    if not _enabled:
        return None
    if name not in _modules:
        try:
            _modules[name] = importlib.import_module(f"engine.{name}")
        except ImportError:
            _log.warning("engine: engine.%s is not built; using its pure-Python twin", name)
            _modules[name] = None
    return _modules[name]


@contextlib.contextmanager
def pure_python(pure: bool = True) -> Iterator[None]:
    """Run the block on the pure-Python reference (``pure=False``: on the compiled core, if built).

    For tests and benchmarks that compare the two cores in one process; not thread-safe.
    """
    global _enabled
    before = _enabled
    _enabled = _compiled is not None and not pure
    try:
        yield
    finally:
        _enabled = before


@contextlib.contextmanager
def without_module() -> Iterator[None]:
    """Run the block as a process runs where the compiled module is not loaded (no compiler at
    install, or ``DETENTE_PURE_PYTHON=1``): the pure-Python engine, and the readers and writers
    of files in Python too. For tests and benchmarks in one process; not thread-safe."""
    global _enabled, _hidden
    before = (_enabled, _hidden)
    _enabled, _hidden = False, True
    try:
        yield
    finally:
        _enabled, _hidden = before


# map -> its compiled tables (maps hash by identity and live as long as the process); kept
# out of the map itself so that a map still pickles and deep-copies
_cores: dict[Map, Any] = {}


def core_for(m: Map) -> Any:
    """The compiled core's tables for map ``m`` (built once per map), or None for the reference."""
    return compiled_tables(m) if _enabled else None


def compiled_tables(m: Map) -> Any:
    """The compiled module's tables for map ``m`` whichever core adjudicates (its readers and
    writers of files serve the pure-Python engine too), or None where it is not loaded."""
    if _compiled is None or _hidden:
        return None
    try:
        return _cores[m]
    except KeyError:
        core = _cores[m] = _build(m)
        return core


def _build(m: Map) -> Any:
    """``_core.MapCore`` for a map, or None for a map too large for it."""
    # imported here: these modules import this one
    from engine.batch import words
    from engine.legal import _moves
    from engine.movement import MovementOutcome
    from engine.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, Waive
    from engine.position import Dislodged, Unit, named_unit

    assert _compiled is not None
    n = len(m.locations)
    if n > _compiled.MAX_LOCATIONS or len(m.powers) > 32 or not all(type(p) is str for p in m.powers):
        # one line, once a map: the games still play, on the reference, many times slower
        _log.warning(
            "map %r has %d locations and %d powers: the compiled core takes at most %d and 32,"
            " so its games run on the pure-Python engine",
            m.name, n, len(m.powers), _compiled.MAX_LOCATIONS,
        )  # fmt: skip
        return None
    power_index = {power: i for i, power in enumerate(m.powers)}
    names = sorted(set(m.english_names))
    rank = {name: i for i, name in enumerate(names)}
    tables = {
        "province_of": list(m.province_of),
        "kind": list(m.kind),
        # the frozensets as they iterate: a retreat set is built in the reference's order
        "army_moves": [list(s) for s in m.army_moves],
        "fleet_moves": [list(s) for s in m.fleet_moves],
        "fleet_reach": [list(s) for s in m.fleet_reach],
        "seas_touching": [list(s) for s in m.seas_touching],
        "shores": [list(s) for s in m.shores],
        "coasts": [list(c) for c in m.coasts],
        "reach_sorted": [[list(r) for r in by_type] for by_type in m.sorted_reach],
        "is_center": [int(c) for c in m.is_supply_center],
        "home_of": [-1 if owner is None else power_index[owner] for owner in m.home_of],
        "homes": [list(m.homes.get(power, ())) for power in m.powers],
        "distance": [list(row) for row in m.distances],
        "english_rank": [rank[name] for name in m.english_names],
        "victory": m.victory_centers,
    }
    objects = {
        "Hold": Hold,
        "Move": Move,
        "SupportHold": SupportHold,
        "SupportMove": SupportMove,
        "Convoy": Convoy,
        "Retreat": Retreat,
        "Disband": Disband,
        "Build": Build,
        "Waive": Waive,
        "Unit": Unit,
        "Dislodged": Dislodged,
        "MovementOutcome": MovementOutcome,
        "named_unit": named_unit,
        "moves": _moves,
        "map": m,
        "powers": tuple(m.powers),
        "words": tuple(words(code) for code in range(32)),
    }
    return _compiled.MapCore(tables, objects)
