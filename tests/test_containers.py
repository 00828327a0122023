"""The container files against the command line, since no container engine runs here.

``docker-compose.yml`` is read as Compose reads it (YAML, ``${VAR:-default}`` taken with
no variable set), and every service's command is parsed by the real ``detente`` parser:
the ports the commands listen on are the ports published, the volume is where the data
directory is, the negotiation server and the bots name the game server's service and
port, the health checks ask the ports the servers listen on. The ``Dockerfile``'s command
and health check are held to the same, and ``.dockerignore`` to leaving in everything the
install needs and out every store and credential. Last, the services' commands run for
real on loopback (ports and paths changed, credentials left to the servers as Compose
leaves them): the health checks pass, the negotiation server follows the game server
with the secret found in the shared data directory, and seven bots play a game to its end.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import tomllib
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import pytest
import yaml  # type: ignore[import-untyped]

from bots.registry import BOTS
from detente.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"


# --- reading the files -----------------------------------------------------------------------------


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """``value`` with Compose's ``${NAME}``, ``${NAME:-default}``, ``${NAME-default}`` and ``$$`` resolved.

    Any other form fails the test rather than be read wrongly.
    """
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if not isinstance(value, str):
        return value

    def resolve(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, operator, default = match.group("name", "operator", "default")
        if operator is None:
            return env.get(name, "")
        if operator == ":-":
            return env.get(name) or default
        if operator == "-":
            return env.get(name, default)
        pytest.fail(f"the test does not read ${{{name}{operator}...}} in {value!r}")

    return re.sub(r"\$\$|\$\{(?P<name>\w+)(?:(?P<operator>:?[-?+])(?P<default>[^}]*))?\}", resolve, value)


def compose(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``docker-compose.yml`` as Compose sees it with the variables of ``env`` (none by default)."""
    config = interpolate(yaml.safe_load(COMPOSE.read_text(encoding="utf-8")), env or {})
    assert isinstance(config, dict)
    return config


def dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions, ``(INSTRUCTION, arguments)``, continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for line in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).strip().partition(" ")
        instructions.append((keyword.upper(), arguments.strip()))
        pending = ""
    return instructions


def instruction(name: str) -> str:
    """The arguments of the Dockerfile's last ``name`` instruction (the one that counts)."""
    found = [arguments for keyword, arguments in dockerfile() if keyword == name]
    assert found, f"the Dockerfile has no {name}"
    return found[-1]


def parse(command: Sequence[str]) -> argparse.Namespace:
    """A service's command (``detente ...``) parsed by the real ``detente`` parser."""
    assert command[0] == "detente", f"{command} does not run detente"
    try:
        return build_parser().parse_args(list(command[1:]))
    except SystemExit:
        pytest.fail(f"detente rejects {shlex.join(command)}")


def published(service: Mapping[str, Any]) -> dict[int, int]:
    """The ports a service publishes, container port -> host port (``[HOST:]PUBLISHED:TARGET``)."""
    ports = {}
    for entry in service.get("ports", []):
        *_, host_port, container_port = str(entry).removesuffix("/tcp").split(":")
        ports[int(container_port)] = int(host_port)
    return ports


def mounts(service: Mapping[str, Any]) -> dict[str, str]:
    """A service's volumes, path in the container -> named volume (``NAME:PATH[:MODE]``)."""
    return {entry.split(":")[1]: entry.split(":")[0] for entry in service.get("volumes", [])}


def data_dir(args: argparse.Namespace) -> str:
    """Where a server keeps its store and credentials: ``--data-dir``, or beside ``--db``."""
    return str(args.data_dir or Path(args.db).parent)


def health_url(test: Sequence[str]) -> str:
    """The URL a health check (``CMD python -c CODE``) asks; the code must compile."""
    assert list(test[:3]) == ["CMD", "python", "-c"], f"{test} is not a Python check (slim has no curl)"
    compile(test[3], "<healthcheck>", "exec")
    [url] = re.findall(r"'(http://[^']+)'", test[3])
    return str(url)


# --- compose ---------------------------------------------------------------------------------------


def test_the_services_and_the_volume() -> None:
    config = compose()
    assert set(config["services"]) == {"game", "nego", "bots"}
    assert set(config["volumes"]) == {"detente-data"}
    for name, service in config["services"].items():
        assert service["build"] == ".", f"{name} must build the image here: no public image is called detente"
        assert service["image"] == config["services"]["game"]["image"], "one image for every service"


def test_the_game_server_publishes_the_ports_it_listens_on_and_keeps_its_data_in_the_volume() -> None:
    game = compose()["services"]["game"]
    args = parse(game["command"])
    assert args.command == "serve"
    assert args.host == "0.0.0.0", "in a container the server must listen beyond its loopback"
    assert published(game) == {args.port: args.port, args.daide_port: args.daide_port}
    assert (args.port, args.daide_port) == (8700, 16713), "the ports the README and the bots know"
    assert mounts(game) == {data_dir(args): "detente-data"}


def test_the_negotiation_server_follows_the_game_service_and_shares_its_volume_and_secret() -> None:
    config = compose()
    services = config["services"]
    game, nego = parse(services["game"]["command"]), parse(services["nego"]["command"])
    assert nego.command == "nego" and nego.host == "0.0.0.0"
    url = urlsplit(nego.game_server)
    assert (url.scheme, url.hostname, url.port) == ("http", "game", game.port)
    assert published(services["nego"]) == {nego.port: nego.port} and nego.port == 8701
    # one volume: with no DETENTE_SECRET set, the secret the game server keeps there is the nego server's
    assert mounts(services["nego"]) == {data_dir(nego): "detente-data"} and data_dir(nego) == data_dir(game)
    assert services["nego"]["depends_on"] == {"game": {"condition": "service_healthy"}}
    raw = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    for variable in ("DETENTE_SECRET", "DETENTE_ADMIN_TOKEN"):
        assert raw["game"]["environment"][variable] == raw["nego"]["environment"][variable] == f"${{{variable}:-}}"
    given = compose({"DETENTE_SECRET": "s3cret"})["services"]
    assert given["game"]["environment"]["DETENTE_SECRET"] == given["nego"]["environment"]["DETENTE_SECRET"] == "s3cret"


def test_the_bots_reach_both_servers_by_service_name_and_scale() -> None:
    services = compose()["services"]
    game, nego = parse(services["game"]["command"]), parse(services["nego"]["command"])
    bots = services["bots"]
    args = parse(bots["command"])
    assert args.command == "bot" and args.name in BOTS
    assert args.server == f"ws://game:{game.port}/daide"
    assert args.nego == f"ws://nego:{nego.port}/nego"
    assert parse(compose({"DETENTE_BOT": "dumbbot"})["services"]["bots"]["command"]).name == "dumbbot"
    # --scale needs containers that claim no host port and no fixed name
    assert "ports" not in bots and "container_name" not in bots
    assert bots["deploy"]["replicas"] == 7, "one full game by default"
    assert bots["depends_on"] == {name: {"condition": "service_healthy"} for name in ("game", "nego")}
    assert bots["restart"] == "unless-stopped", "a bot plays one game: the restart sends it to the next"
    assert bots["healthcheck"] == {"disable": True}, "the image's check asks a port no bot opens"


def test_the_health_checks_ask_the_ports_the_servers_listen_on() -> None:
    services = compose()["services"]
    for name in ("game", "nego"):
        args = parse(services[name]["command"])
        url = urlsplit(health_url(services[name]["healthcheck"]["test"]))
        assert (url.hostname, url.port, url.path) == ("127.0.0.1", args.port, "/healthz"), name


def test_the_ports_are_published_on_loopback_unless_told_otherwise() -> None:
    for name, service in compose()["services"].items():
        assert all(str(entry).startswith("127.0.0.1:") for entry in service.get("ports", [])), name
    opened = compose({"DETENTE_PUBLISH": "0.0.0.0"})["services"]["game"]["ports"]
    assert all(entry.startswith("0.0.0.0:") for entry in opened)


# --- Dockerfile ------------------------------------------------------------------------------------


def test_the_image_serves_games_by_default_as_the_game_service_does() -> None:
    command = json.loads(instruction("CMD"))
    args = parse(command)
    assert command == compose()["services"]["game"]["command"]
    assert args.command == "serve" and args.host == "0.0.0.0"
    assert {args.port, args.daide_port} <= {int(port) for port in instruction("EXPOSE").split()}
    assert json.loads(instruction("VOLUME")) == [data_dir(args)]


def test_the_image_checks_its_health_on_the_port_it_serves() -> None:
    args = parse(json.loads(instruction("CMD")))
    options, _, test = instruction("HEALTHCHECK").partition(" CMD ")
    assert options.startswith("--")
    url = urlsplit(health_url(["CMD", *json.loads(test)]))
    assert (url.hostname, url.port, url.path) == ("127.0.0.1", args.port, "/healthz")


def test_the_image_is_slim_python_runs_as_another_user_and_installs_as_the_readme_does() -> None:
    assert instruction("FROM") == "python:3.11-slim"
    user = instruction("USER").split(":")[0]
    assert user not in ("0", "root"), "the servers must not run as root"
    installs = [arguments for keyword, arguments in dockerfile() if keyword == "RUN" and "pip install" in arguments]
    assert installs and all(" -e " not in f" {arguments} " for arguments in installs), "not editable: sources go"


# --- .dockerignore ---------------------------------------------------------------------------------


def _pattern(pattern: str) -> re.Pattern[str]:
    """A ``.dockerignore`` pattern as Docker matches it: from the context's root, ``*`` within one
    folder, ``**`` across folders, and a folder that matches taking everything below it."""
    text, parts, i = pattern.strip().lstrip("/"), [], 0
    while i < len(text):
        if text.startswith("**/", i):
            parts.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            parts.append(".*")
            i += 2
        elif text[i] == "*":
            parts.append("[^/]*")
            i += 1
        elif text[i] == "?":
            parts.append("[^/]")
            i += 1
        elif text[i] == "[":
            end = text.index("]", i)
            parts.append(text[i : end + 1])
            i = end + 1
        else:
            parts.append(re.escape(text[i]))
            i += 1
    return re.compile("".join(parts) + "(?:/.*)?")


def ignored(path: str) -> bool:
    """Whether ``path`` (relative to the context) stays out of the build context: the last pattern that
    matches decides, a ``!`` pattern taking the path back."""
    verdict = False
    for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if _pattern(line.removeprefix("!")).fullmatch(path):
            verdict = not negated
    return verdict


def test_the_ignore_patterns_match_as_docker_does() -> None:
    assert _pattern("data").fullmatch("data/x.sqlite3") and not _pattern("data").fullmatch("engine/data/standard.map")
    assert _pattern("**/__pycache__").fullmatch("engine/__pycache__/a.pyc")
    assert _pattern("**/*.py[cod]").fullmatch("a/b.pyc") and not _pattern("*.egg-info").fullmatch("a/b.egg-info")


def package_files() -> Iterator[str]:
    """Every file of the packages pyproject.toml installs (package data too), relative to the root."""
    include = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"][
        "find"
    ]["include"]
    for top in {pattern.rstrip("*") for pattern in include}:
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                yield path.relative_to(ROOT).as_posix()


def test_the_build_context_holds_what_the_install_needs() -> None:
    needed = ["pyproject.toml", "README.md", *package_files()]
    assert {"engine/data/standard.map", "grammar/l.lark", "grammar/daide.lark", "detente/cli.py"} <= set(needed)
    assert [path for path in needed if ignored(path)] == []


@pytest.mark.parametrize(
    "path",
    [".env", "detente-data/secret", "detente-data/admin-token", "data/detente.sqlite3", "data/nego.sqlite3-wal"]
    + [".venv/bin/python", ".git/config", "tests/test_cli.py", "engine/__pycache__/maps.cpython-311.pyc"],
)
def test_the_build_context_leaves_out_stores_credentials_and_the_rest(path: str) -> None:
    assert ignored(path)


def context_files() -> Iterator[str]:
    """Every file Docker sends as the build context, relative to the root (a folder that is ignored is
    not walked: there is no ``!`` pattern to take anything in it back)."""
    assert not any(line.strip().startswith("!") for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines())
    for folder, folders, names in os.walk(ROOT):
        here = Path(folder).relative_to(ROOT)
        folders[:] = [name for name in folders if not ignored((here / name).as_posix())]
        yield from (path for name in names if not ignored(path := (here / name).as_posix()))


def test_the_wheel_the_image_installs_holds_every_file_of_the_packages(tmp_path: Path) -> None:
    """The image installs with ``pip install`` (not editable): a package setuptools does not find, or data
    that ``[tool.setuptools.package-data]`` does not name, would be missing from it."""
    context = tmp_path / "context"
    for path in context_files():
        (context / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, context / path)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path), str(context)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    [wheel] = tmp_path.glob("detente-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        installed = set(archive.namelist())
    assert [path for path in package_files() if path not in installed and not ignored(path)] == []


# --- the commands, run ------------------------------------------------------------------------------


def _on_loopback(command: Sequence[str], **values: str) -> list[str]:
    """A service's command with some options' values changed (``port="0"`` sets ``--port 0``)."""
    command = list(command)
    for name, value in values.items():
        option = "--" + name.replace("_", "-")
        command[command.index(option) + 1] = value
    return command


def _read_lines(stream: IO[str], lines: queue.Queue[str]) -> None:
    with stream:
        for line in stream:
            lines.put(line)


def _start(command: Sequence[str], env: Mapping[str, str]) -> tuple[subprocess.Popen[str], int]:
    """Start a server's command; its process and the port it says it listens on."""
    process = subprocess.Popen(
        [sys.executable, "-m", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(env),
    )
    lines: queue.Queue[str] = queue.Queue()
    # a thread reads the lines (to the end, so the pipe never fills): the server may print
    # several at once, which select() on the pipe would not see
    threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
    deadline = time.monotonic() + 60
    try:
        while True:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            match = re.search(r"listening on http://[\d.]+:(\d+)", line)
            if match:
                return process, int(match.group(1))
    except queue.Empty:
        process.kill()
        pytest.fail(f"{shlex.join(command)} did not listen within 60 s (exit status {process.poll()})")


def _healthy(test: Sequence[str], port: int, env: Mapping[str, str]) -> bool:
    """Run a health check (``CMD python -c CODE``), the service's port changed to ``port``."""
    code = re.sub(r"(http://127\.0\.0\.1):\d+/", rf"\g<1>:{port}/", test[3])
    return subprocess.run([sys.executable, "-c", code], env=dict(env), capture_output=True, timeout=30).returncode == 0


def _until(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_the_services_run_together_on_loopback(tmp_path: Path) -> None:
    services = compose()["services"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DETENTE_")}
    env.update(services["game"]["environment"])  # as Compose passes them: empty, so the servers make their own
    env["PYTHONUNBUFFERED"] = "1"
    volume = str(tmp_path / "data")
    game_command = _on_loopback(
        services["game"]["command"], host="127.0.0.1", port="0", daide_port="0", data_dir=volume
    )
    processes: list[subprocess.Popen[str]] = []
    try:
        game, game_port = _start([*game_command, "--year-limit", "1901", "--deadlines", "none"], env)
        processes.append(game)
        assert _healthy(services["game"]["healthcheck"]["test"], game_port, env)

        nego_command = _on_loopback(
            services["nego"]["command"],
            game_server=f"http://127.0.0.1:{game_port}",
            host="127.0.0.1",
            port="0",
            data_dir=volume,
        )
        nego, nego_port = _start(nego_command, env)
        processes.append(nego)
        # healthy only once it follows the game server: the secret in the shared volume was the right one
        assert _until(lambda: _healthy(services["nego"]["healthcheck"]["test"], nego_port, env), 30)

        bot_command = [
            part.replace("game:8700", f"127.0.0.1:{game_port}").replace("nego:8701", f"127.0.0.1:{nego_port}")
            for part in services["bots"]["command"]
        ]
        bots = [
            subprocess.Popen([sys.executable, "-m", *bot_command], stdout=subprocess.PIPE, text=True, env=dict(env))
            for _ in range(services["bots"]["deploy"]["replicas"])
        ]
        processes.extend(bots)
        endings = [bot.communicate(timeout=120)[0] for bot in bots]
        assert [bot.returncode for bot in bots] == [0] * len(bots), endings
        assert all("game drawn" in ending or "won alone" in ending for ending in endings), endings
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
