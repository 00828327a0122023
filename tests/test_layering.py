"""The layers of the house, enforced: what each top-level package may import.

    engine      the rules: imports nothing of ours
    protocol    DAIDE, L and English: the engine (and the grammars)
    referee     the sans-I/O core of a game: the engine and the protocols, and no I/O
    bots        the bot kit: everything but the servers
    arena       the learning environment: the engine, the protocols, the referee, the bot kit
                and the game files; never the servers or the command line
    server      the I/O of both servers
    detente     the command line: only the modules that start servers import ``server``;
                reading a store takes its store module alone; reading game formats
                takes nothing of ``server``

Every ``import`` is read from the source (those inside functions too), so a lazy import
cannot slip past. A second check imports the tools in a fresh interpreter and looks at
what came in with them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("engine", "protocol", "grammar", "formats", "referee", "bots", "arena", "server", "detente")

#: Modules of the standard library and of the packages that do I/O, which the sans-I/O
#: layers must not import: no clock, socket, task, database or web framework.
IO_MODULES = (
    "asyncio",
    "socket",
    "sqlite3",
    "time",
    "threading",
    "subprocess",
    "selectors",
    "ssl",
    "http",
    "urllib",
    "starlette",
    "uvicorn",
    "websockets",
    "pydantic",
    "structlog",
)

#: The one module of ``server`` a store reader needs, and what it may import.
STORE = "server.store"


def modules_of(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, absolute, anywhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing package
                name = module_name(path)
                package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                yield ".".join([*base, node.module] if node.module else base)
            elif node.module is not None:
                yield node.module


def top(module: str) -> str:
    return module.split(".")[0]


def offences(package: str, allowed: set[str], forbidden_modules: tuple[str, ...] = ()) -> list[str]:
    found = []
    for path in modules_of(package):
        for module in imports(path):
            if top(module) in OURS and top(module) not in allowed | {package}:
                found.append(f"{module_name(path)} imports {module}")
            if top(module) in forbidden_modules:
                found.append(f"{module_name(path)} imports {module}, which does I/O")
    return found


def test_the_engine_imports_nothing_of_ours() -> None:
    assert offences("engine", set(), IO_MODULES) == []


def test_the_protocols_import_only_the_engine_and_the_grammars() -> None:
    # the DAIDE parser keeps the message being parsed in thread-local storage (its grammar's
    # callbacks read the echo of a HUH from it), so that one parser serves every thread: no I/O
    no_io = tuple(m for m in IO_MODULES if m != "threading")
    assert offences("protocol", {"engine", "grammar"}, no_io) == []


def test_the_referee_imports_only_the_engine_and_the_protocols_and_does_no_io() -> None:
    assert offences("referee", {"engine", "protocol"}, IO_MODULES) == []


def test_the_bots_never_import_the_servers() -> None:
    assert offences("bots", {"engine", "protocol", "grammar", "referee"}) == []


def test_the_learning_environment_never_imports_the_servers_or_the_command_line() -> None:
    assert offences("arena", {"engine", "protocol", "grammar", "referee", "bots", "formats"}) == []


def test_the_servers_do_not_reach_into_the_bots_or_the_command_line() -> None:
    assert offences("server", {"engine", "protocol", "grammar", "formats", "referee"}) == []


def imported_names(path: Path) -> Iterator[tuple[str, str]]:
    """Each ``from MODULE import NAME`` of ``path`` (absolute), anywhere in the file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module is not None:
            yield from ((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from ((alias.name, "") for alias in node.names)


def public_names(module: str) -> set[str]:
    """What ``module`` offers: its ``__all__`` (read from the source), or its submodules for a package."""
    path = ROOT.joinpath(*module.split("."))
    source = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    names: set[str] = {p.stem for p in path.glob("*.py")} if path.is_dir() else set()
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            names |= set(ast.literal_eval(node.value))
    return names


#: The parts of a game (seats, order book, clock, board, handlers): the game's and the lobby's alone.
GAME_INSIDE = "referee.game."


def test_the_servers_reach_the_referee_only_through_its_public_interface() -> None:
    """``server`` calls the referee through the lobby, the game (``referee.game``) and the shared
    values (effects, notices, settings, ...): never a part inside a game, never a name a module
    does not offer in its ``__all__``."""
    found = []
    for path in modules_of("server"):
        for module, name in imported_names(path):
            if top(module) != "referee":
                continue
            if module.startswith(GAME_INSIDE):
                found.append(f"{module_name(path)} imports {module}: inside a game")
            elif name and name not in public_names(module):
                found.append(f"{module_name(path)} imports {name} from {module}, which does not offer it")
    assert found == []


#: The parts of a game that ``server`` must not touch: it reads a game through its public
#: methods (``view()``, ``state``, ``position``, ...) and the lobby.
GAME_PARTS = frozenset({"seats", "book", "clock", "board", "out", "roster"})


def touches_of_parts(path: Path) -> Iterator[str]:
    """``gm.<part>`` (or ``….gm.<part>``) anywhere in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in GAME_PARTS:
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            if name == "gm":
                yield f"{path.name}:{node.lineno} touches gm.{node.attr}"


def test_the_servers_never_touch_the_parts_inside_a_game() -> None:
    assert [t for path in modules_of("server") for t in touches_of_parts(path)] == []


def test_the_parts_check_sees_a_touch(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f(game):\n    return game.gm.roster.players, gm.view()\n")
    assert [t.split(" ", 1)[1] for t in touches_of_parts(sample)] == ["touches gm.roster"]


def test_the_public_interface_check_sees_a_private_name(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from referee.game.seats import Seats\nfrom referee.lobby import _Conn\n")
    names = list(imported_names(sample))
    assert ("referee.game.seats", "Seats") in names and "_Conn" not in public_names("referee.lobby")


def test_the_game_formats_read_and_write_json_over_the_engine_alone() -> None:
    assert offences("formats", {"engine"}, tuple(m for m in IO_MODULES if m != "json")) == []


#: The modules of ``detente`` that start servers, and may import ``server``.
STARTS_SERVERS = {"detente.cli", "detente.play", "detente.daide_game", "detente.replay_command", "detente.house"}
#: The modules that read (or tend) a server's store: through the store module alone, and the
#: retention policy that works on it.
READS_STORES = {"detente.report", "detente.store_command"}
STORE_MODULES = {STORE, "server.retention"}


def test_in_the_command_line_only_the_modules_that_start_servers_import_them() -> None:
    found = []
    for path in modules_of("detente"):
        name = module_name(path)
        for module in imports(path):
            if top(module) != "server" or name in STARTS_SERVERS:
                continue
            if name in READS_STORES and module in STORE_MODULES:
                continue
            found.append(f"{name} imports {module}")
    assert found == []


def test_the_store_module_stands_alone() -> None:
    own = [m for m in imports(ROOT / "server" / "store.py") if top(m) in OURS]
    assert own == []


@pytest.mark.parametrize(
    ("module", "unwanted"),
    [
        ("detente.report", ("starlette", "uvicorn", "websockets", "server.service", "server.app", "server.web_api")),
        ("detente.cases", ("server", "starlette", "uvicorn")),
        ("detente.experiments", ("server", "starlette", "uvicorn", "websockets")),
        ("referee.table", ("server", "asyncio", "sqlite3", "starlette", "pydantic", "structlog")),
    ],
)
def test_tools_load_no_server_code(module: str, unwanted: tuple[str, ...]) -> None:
    """What importing a tool brings in, in a fresh interpreter (the report loaded 700+
    modules of the web stack to reach one function before the referee existed)."""
    script = (
        f"import sys, {module}\n"
        f"print('\\n'.join(m for m in sys.modules if m.split('.')[0] in {unwanted!r} or m in {unwanted!r}))"
    )
    loaded = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert loaded.stdout.split() == []


def test_the_checks_see_a_forbidden_import(tmp_path: Path) -> None:
    """The reader of imports finds plain, relative and lazy imports (so the tests above can fail)."""
    sample = tmp_path / "sample.py"
    sample.write_text("import asyncio\nfrom server.store import Store\n\ndef f():\n    from bots import base\n")
    assert list(imports(sample)) == ["asyncio", "server.store", "bots"]


@pytest.mark.parametrize("package", OURS)
def test_no_code_that_runs_imports_the_agpl_diplomacy_package(package: str) -> None:
    """``diplomacy`` (AGPL) checks our formats and speeds in tests and benchmarks only."""
    assert offences(package, set(OURS), ("diplomacy",)) == []
