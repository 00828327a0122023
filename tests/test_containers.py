"""The container files: built and run for real whenever a container engine answers, read otherwise.

The real tests (the last part) build the image with ``docker compose build``, once, and run the
compose stack as a user would: the game server, the negotiation server and seven bots, reached
only through the ports Compose publishes on 127.0.0.1. The stack plays a short game (the game
server's command as shipped, with ``--year-limit 1901 --deadlines none`` added by an override
file), keeps it over ``docker compose down`` and ``up``, and stops at once on ``docker compose
stop``. They skip when no engine answers (``docker info``), except under ``CI=true``, where
they fail: ``.ci/run`` starts one with ``../shared/tools/container-engine.sh`` when it is there.

The other tests read the files and hold them to what the real tests cannot see on every
machine, or cannot see at all: ``docker-compose.yml`` is read as Compose reads it (YAML,
``${VAR:-default}`` taken with no variable set) and every service's command is parsed by the
real ``detente`` parser; the ``Dockerfile``'s command and health check are held to the game
service's; ``requirements/runtime.txt`` to ``pyproject.toml``; ``.dockerignore`` to leaving in
everything the install needs and out every store and credential.

``python -m tests.test_containers lock`` prints ``requirements/runtime.txt`` anew from the
development environment (the pins of everything ``pip install .`` installs there).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml  # type: ignore[import-untyped]
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bots.registry import BOTS
from detente.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
RUNTIME_PINS = ROOT / "requirements" / "runtime.txt"
BUILD_PINS = ROOT / "requirements" / "build.txt"


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


def pins(path: Path) -> dict[str, tuple[str, str]]:
    """A pin file's lines, canonical name -> (name as written, version); any other line fails."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!-]*)", line.strip())
        assert match, f"{path.name}: {line!r} is not NAME==VERSION"
        name = canonicalize_name(match.group(1))
        assert name not in found, f"{path.name} pins {name} twice"
        found[name] = (match.group(1), match.group(2))
    return found


def runtime_closure() -> dict[str, tuple[str, str]]:
    """What ``pip install .`` installs, as installed in this environment: pyproject.toml's
    dependencies (no extras) and theirs, canonical name -> (name, version)."""
    closure: dict[str, tuple[str, str]] = {}
    wanted = [Requirement(text) for text in project()["dependencies"]]
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if name in closure:
            continue
        distribution = metadata.distribution(requirement.name)
        closure[name] = (distribution.metadata["Name"], distribution.version)
        for text in distribution.requires or []:
            child = Requirement(text)
            if child.marker is None or child.marker.evaluate({"extra": ""}):
                wanted.append(child)
    return closure


def lock() -> str:
    """``requirements/runtime.txt`` as this environment pins it: its comment, then the closure."""
    comment = [line for line in RUNTIME_PINS.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    lines = [f"{name}=={version}" for name, version in sorted(runtime_closure().values(), key=lambda p: p[0].lower())]
    return "\n".join([*comment, *lines]) + "\n"


def project() -> dict[str, Any]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert isinstance(project, dict)
    return project


# --- compose ---------------------------------------------------------------------------------------


def test_one_image_built_once_for_every_service() -> None:
    services = compose()["services"]
    assert set(services) == {"game", "nego", "bots"}
    assert {service["image"] for service in services.values()} == {"detente:local"}
    # `up --build` builds each service that has a build: one, so one build (the real test counts them)
    assert [name for name, service in services.items() if "build" in service] == ["game"]
    assert services["game"]["build"] == ".", "no public image is called detente: it is built here"
    for name, service in services.items():
        assert service["pull_policy"] == "never", f"{name} must not look for detente:local in a registry"


def test_every_service_runs_under_init_restarts_and_rotates_its_log() -> None:
    for name, service in compose()["services"].items():
        assert service["init"] is True, f"{name}: PID 1 must pass SIGTERM on (a bot as PID 1 ignores it)"
        assert service["restart"] == "unless-stopped", name
        logging = service["logging"]
        assert logging["driver"] == "json-file", name
        size = re.fullmatch(r"(\d+)([kmg])", logging["options"]["max-size"])
        assert size and int(size.group(1)) * {"k": 1, "m": 1024, "g": 1024**2}[size.group(2)] <= 100 * 1024, name
        assert 1 <= int(logging["options"]["max-file"]) <= 10, name


def test_the_servers_share_the_named_volume_and_the_credentials_the_bots_nothing() -> None:
    config = compose()
    services = config["services"]
    game, nego = parse(services["game"]["command"]), parse(services["nego"]["command"])
    assert set(config["volumes"]) == {"detente-data"}
    assert mounts(services["game"]) == {data_dir(game): "detente-data"}
    # one volume: with no DETENTE_SECRET set, the secret the game server keeps there is the nego server's
    assert mounts(services["nego"]) == {data_dir(nego): "detente-data"} and data_dir(nego) == data_dir(game)
    assert "volumes" not in services["bots"], "a bot keeps nothing"
    raw = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    for variable in ("DETENTE_SECRET", "DETENTE_ADMIN_TOKEN"):
        assert raw["game"]["environment"][variable] == raw["nego"]["environment"][variable] == f"${{{variable}:-}}"
    given = compose({"DETENTE_SECRET": "s3cret"})["services"]
    assert given["game"]["environment"]["DETENTE_SECRET"] == given["nego"]["environment"]["DETENTE_SECRET"] == "s3cret"


def test_the_services_name_each_other_and_the_bots_scale() -> None:
    services = compose()["services"]
    game, nego = parse(services["game"]["command"]), parse(services["nego"]["command"])
    assert (game.command, game.host, game.port, game.daide_port) == ("serve", "0.0.0.0", 8700, 16713)
    assert (nego.command, nego.host, nego.port, nego.game_server) == ("nego", "0.0.0.0", 8701, "http://game:8700")
    bots = services["bots"]
    args = parse(bots["command"])
    assert args.command == "bot" and args.name in BOTS
    assert (args.server, args.nego) == ("ws://game:8700/daide", "ws://nego:8701/nego")
    assert parse(compose({"DETENTE_BOT": "dumbbot"})["services"]["bots"]["command"]).name == "dumbbot"
    # --scale needs containers that claim no host port and no fixed name
    assert "ports" not in bots and "container_name" not in bots
    assert bots["deploy"]["replicas"] == 7, "one full game by default"
    assert bots["depends_on"] == {name: {"condition": "service_healthy"} for name in ("game", "nego")}
    assert services["nego"]["depends_on"] == {"game": {"condition": "service_healthy"}}
    assert bots["healthcheck"] == {"disable": True}, "the image's check asks a port no bot opens"


def test_the_ports_are_published_on_loopback_unless_told_otherwise() -> None:
    services = compose()["services"]
    assert published(services["game"]) == {8700: 8700, 16713: 16713} and published(services["nego"]) == {8701: 8701}
    for name, service in services.items():
        assert all(str(entry).startswith("127.0.0.1:") for entry in service.get("ports", [])), name
    moved = compose({"DETENTE_PUBLISH": "0.0.0.0", "DETENTE_HTTP_PORT": "18700", "DETENTE_NEGO_PORT": "18701"})
    assert moved["services"]["game"]["ports"][0] == "0.0.0.0:18700:8700"
    assert moved["services"]["nego"]["ports"] == ["0.0.0.0:18701:8701"]


# --- Dockerfile ------------------------------------------------------------------------------------


def test_the_image_serves_games_by_default_as_the_game_service_does() -> None:
    command = json.loads(instruction("CMD"))
    args = parse(command)
    # the stack's game service is the image's command, told where the stack's negotiation
    # server is published for the page (the image alone has none), and where its own bots
    # reach it inside the stack's network (by its service name)
    served = compose()["services"]["game"]["command"]
    assert served[: len(command)] == command
    assert served[len(command) :] == ["--nego-url", "http://127.0.0.1:8701", "--house-nego-url", "ws://nego:8701/nego"]
    assert {args.port, args.daide_port} <= {int(port) for port in instruction("EXPOSE").split()}
    options, _, test = instruction("HEALTHCHECK").partition(" CMD ")
    assert options.startswith("--")
    assert ["CMD", *json.loads(test)] == compose()["services"]["game"]["healthcheck"]["test"]
    assert re.fullmatch(r"http://127\.0\.0\.1:8700/healthz", health_url(["CMD", *json.loads(test)]))


def test_the_image_has_two_stages_and_declares_no_volume() -> None:
    steps = dockerfile()
    assert "VOLUME" not in [keyword for keyword, _ in steps], "VOLUME gives every bot container an anonymous volume"
    assert [arguments for keyword, arguments in steps if keyword == "FROM"] == [
        "python:3.11-slim AS build",
        "python:3.11-slim",
    ]
    last = max(i for i, (keyword, _) in enumerate(steps) if keyword == "FROM")
    final = [f"{keyword} {arguments}" for keyword, arguments in steps[last + 1 :]]
    assert not any("pip" in step for step in final if step.startswith("RUN")), "the image copies the environment"
    assert "COPY --from=build /opt/detente /opt/detente" in final
    assert instruction("USER").split(":")[0] not in ("0", "root"), "the servers must not run as root"


def test_the_dependencies_are_installed_before_the_sources_are_copied() -> None:
    steps = dockerfile()
    copies = [i for i, (keyword, arguments) in enumerate(steps) if keyword == "COPY" and "--from" not in arguments]
    [pins_copy, sources_copy] = copies
    assert steps[pins_copy][1].split()[:-1] == ["requirements/build.txt", "requirements/runtime.txt"]
    assert steps[sources_copy][1].split()[0] == "."
    between = " ".join(arguments for keyword, arguments in steps[pins_copy:sources_copy] if keyword == "RUN")
    assert "-r /tmp/requirements/runtime.txt" in between and "-r /tmp/requirements/build.txt" in between
    after = " ".join(arguments for keyword, arguments in steps[sources_copy:] if keyword == "RUN")
    assert "--no-deps" in after and "--no-build-isolation" in after and "pip check" in after
    assert " -e " not in after, "not editable: the sources stay in the build stage"


# --- the pins --------------------------------------------------------------------------------------


def test_the_runtime_pins_satisfy_pyproject_and_leave_the_extras_out() -> None:
    pinned = pins(RUNTIME_PINS)
    for text in project()["dependencies"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"requirements/runtime.txt does not pin {requirement.name}"
        assert requirement.specifier.contains(pinned[name][1], prereleases=True), (text, pinned[name])
    extras = {
        canonicalize_name(Requirement(text).name)
        for group in ("report", "test", "ray", "bench")
        for text in project()["optional-dependencies"][group]
    }
    assert extras.isdisjoint(pinned), "an extra's package would go into the server image"
    assert "numpy" not in pinned and "pillow" not in pinned, "matplotlib's weight stays out"


def test_the_build_pins_satisfy_the_build_system() -> None:
    pinned = pins(BUILD_PINS)
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    for text in build:
        requirement = Requirement(text)
        assert requirement.specifier.contains(pinned[canonicalize_name(requirement.name)][1]), text


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
            # a compiled core built in place by pip install -e is no source: the image compiles its own
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".so":
                yield path.relative_to(ROOT).as_posix()


def test_the_build_context_holds_what_the_install_needs() -> None:
    needed = ["pyproject.toml", "README.md", *package_files()]
    assert {"engine/data/standard.map", "grammar/l.lark", "grammar/daide.lark", "detente/cli.py"} <= set(needed)
    assert [path for path in needed if ignored(path)] == []


@pytest.mark.parametrize(
    "path",
    [".env", "detente-data/secret", "detente-data/admin-token", "data/detente.sqlite3", "data/nego.sqlite3-wal"]
    + [".venv/bin/python", ".git/config", "tests/test_cli.py", "engine/__pycache__/maps.cpython-311.pyc"]
    + ["docs/protocol.md", "benchmarks/soak.py", ".ci/run"],
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


# --- for real: the image and the compose stack on a container engine --------------------------------

ENGINE_SCRIPT = ROOT.parent / "shared" / "tools" / "container-engine.sh"
ENGINE_DOCKER_CONFIG = Path(os.environ.get("CONTAINER_WORK", "/var/tmp/container-engine")) / "dockercfg"
IMAGE = f"detente:test-{os.getpid()}"
"""The image the real tests build and run (DETENTE_IMAGE): a name of their own, so that two runs at
once on one engine (two developers' test suites) do not replace each other's image."""
BUILD_SECONDS = 420
"""A cold build downloads the base's packages from PyPI; a warm one (the usual case) takes seconds."""
STACK_SECONDS = 300
"""The whole run of the stack: up, a game, the checks, down and up again, stop, down."""
STOP_SECONDS = 8.0
"""``docker compose stop`` of the nine containers; a container that ignored SIGTERM alone takes 10 s."""

T = TypeVar("T")


def docker_env() -> dict[str, str]:
    """The environment of the docker commands: no DETENTE_ variable of the caller's, the plugins of
    container-engine.sh when DOCKER_CONFIG is not set, BuildKit."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("DETENTE_")}
    if "DOCKER_CONFIG" not in env and (ENGINE_DOCKER_CONFIG / "cli-plugins" / "docker-compose").exists():
        env["DOCKER_CONFIG"] = str(ENGINE_DOCKER_CONFIG)
    env["DOCKER_BUILDKIT"] = "1"
    env["DETENTE_IMAGE"] = IMAGE
    return env


def engine_problem(env: Mapping[str, str]) -> str | None:
    """Why no container engine can be used here, or None when ``docker`` and ``docker compose`` answer."""
    if shutil.which("docker") is None:
        return "no docker command"
    for command in (["docker", "info"], ["docker", "compose", "version"]):
        try:
            answer = subprocess.run(command, env=dict(env), capture_output=True, text=True, timeout=60, check=False)
        except subprocess.TimeoutExpired:
            return f"{shlex.join(command)} did not answer in 60 s"
        if answer.returncode != 0:
            return f"{shlex.join(command)}: {answer.stderr.strip()[-400:]}"
    return None


@dataclass
class Budget:
    """A deadline that every command and every wait of a test shares."""

    seconds: float
    start: float = field(default_factory=time.monotonic)

    def left(self, what: str) -> float:
        left = self.start + self.seconds - time.monotonic()
        if left <= 0:
            pytest.fail(f"over the budget of {self.seconds:.0f} s before {what}")
        return left


def run(command: Sequence[str], env: Mapping[str, str], budget: Budget, timeout: float = 120, **kwargs: Any) -> str:
    """Run a command within the budget; its output (stdout and stderr), or a failure that shows it."""
    limit = min(timeout, budget.left(shlex.join(command)))
    try:
        done = subprocess.run(
            list(command), env=dict(env), cwd=ROOT, capture_output=True, text=True, timeout=limit, check=False, **kwargs
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{shlex.join(command)} took over {limit:.0f} s: {error.stderr!r:.2000}")
    output = done.stdout + done.stderr
    if done.returncode != 0:
        pytest.fail(f"{shlex.join(command)} exited {done.returncode}:\n{output[-3000:]}")
    return output


def poll(check: Callable[[], T | None], what: str, seconds: float, budget: Budget) -> T:
    """``check()`` again every half second until it returns something (not None); a failure past the deadline."""
    deadline = time.monotonic() + min(seconds, budget.left(what))
    last: object = None
    while True:
        try:
            found = check()
        except (OSError, ValueError, KeyError) as error:  # not up yet: refused, reset, a 5xx, half a body
            found, last = None, error
        if found is not None:
            return found
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {seconds:.0f} s (last: {last!r})")
        time.sleep(0.5)


def get_json(port: int, path: str) -> Any:
    """GET http://127.0.0.1:PORT/PATH, the body as JSON (an error status raises)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
        return json.load(answer)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def engine() -> dict[str, str]:
    """The docker commands' environment; a skip without an engine, a failure under CI=true."""
    env = docker_env()
    problem = engine_problem(env)
    if problem is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and no container engine answers ({problem}): .ci/run starts one with {ENGINE_SCRIPT}")
        pytest.skip(f"no container engine answers ({problem}); bash {ENGINE_SCRIPT} starts one")
    return env


@pytest.fixture(scope="module")
def image(engine: dict[str, str]) -> Iterator[str]:
    """The image, built as ``docker compose up --build`` builds it: the build's output."""
    budget = Budget(BUILD_SECONDS)
    try:
        output = run(["docker", "compose", "--progress", "plain", "build"], engine, budget, timeout=BUILD_SECONDS)
        print(f"docker compose build: {time.monotonic() - budget.start:.1f} s")
        yield output
    finally:
        subprocess.run(["docker", "rmi", IMAGE], env=engine, capture_output=True, timeout=60, check=False)
        # the images earlier builds left without a name (their name moved on to a newer build)
        prune = ["docker", "image", "prune", "--force", "--filter", "label=org.opencontainers.image.title=detente"]
        subprocess.run(prune, env=engine, capture_output=True, timeout=120, check=False)


def test_compose_builds_the_image_once(image: str) -> None:
    assert len(re.findall(rf"naming to \S*{re.escape(IMAGE)}\b", image)) == 1, image[-3000:]


def test_the_image_holds_the_environment_and_nothing_to_build_with(engine: dict[str, str], image: str) -> None:
    budget = Budget(120)
    code = (
        "import importlib.util, json, os, sys; "
        "print(json.dumps({'uid': os.getuid(), 'cwd': os.getcwd(), 'prefix': sys.prefix, 'found': "
        "[m for m in ('detente', 'server', 'pip', 'setuptools', 'wheel', 'matplotlib', 'numpy') "
        "if importlib.util.find_spec(m)]}))"
    )
    output = run(["docker", "run", "--rm", "--entrypoint", "python", IMAGE, "-c", code], engine, budget)
    seen = json.loads(output.strip().splitlines()[-1])
    assert seen == {"uid": 10001, "cwd": "/data", "prefix": "/opt/detente", "found": ["detente", "server"]}
    tools = run(
        ["docker", "run", "--rm", "--entrypoint", "sh", IMAGE, "-c", "command -v gcc cc make pip; true"], engine, budget
    )
    assert tools.strip() == "", f"build tools in the image: {tools}"
    sizes = {
        name: int(run(["docker", "image", "inspect", "--format", "{{.Size}}", name], engine, budget))
        for name in (IMAGE, "python:3.11-slim")
    }
    added = (sizes[IMAGE] - sizes["python:3.11-slim"]) / 1e6
    print(f"image {sizes[IMAGE] / 1e6:.0f} MB, {added:.0f} MB over the base")
    assert added < 60, f"détente adds {added:.0f} MB to the base image (matplotlib alone is over 100)"
    declared = json.loads(
        run(["docker", "image", "inspect", "--format", "{{json .Config.Volumes}}", IMAGE], engine, budget)
    )
    assert declared is None, f"the image declares volumes {declared}: every bot would get an anonymous one"


def test_the_image_runs_the_compiled_engine_core(engine: dict[str, str], image: str) -> None:
    """The build stage compiles engine/_core.c into the wheel; the runtime stage, without a compiler, runs it."""
    version = run(["docker", "run", "--rm", "--entrypoint", "detente", IMAGE, "--version"], engine, Budget(60))
    assert "(engine core: compiled C)" in version, version


def test_an_edit_of_the_sources_rebuilds_without_downloading(
    engine: dict[str, str], image: str, tmp_path: Path
) -> None:
    """The same Dockerfile on a copy of the context with one source file edited: the layer of the
    dependencies comes from the cache, and only the wheel is built anew."""
    budget = Budget(240)
    context = tmp_path / "context"
    for path in context_files():
        (context / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, context / path)
    with (context / "detente" / "__init__.py").open("a", encoding="utf-8") as source:
        source.write(f"\n# an edit, {time.time()}\n")
    tag = f"detente:edit-check-{os.getpid()}"
    try:
        output = run(
            ["docker", "build", "--progress", "plain", "-f", str(DOCKERFILE), "-t", tag, str(context)],
            engine,
            budget,
            timeout=BUILD_SECONDS,
        )
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], env=engine, capture_output=True, timeout=60, check=False)
    steps = dict(re.findall(r"^(#\d+) \[build [^\]]*\] (RUN|COPY) ", output, flags=re.MULTILINE))
    cached = set(re.findall(r"^(#\d+) CACHED$", output, flags=re.MULTILINE))
    runs = [step for step, keyword in steps.items() if keyword == "RUN"]
    assert len(runs) == 2, output[-3000:]
    dependencies, sources = runs
    assert dependencies in cached, f"the dependencies were installed anew:\n{output[-3000:]}"
    assert sources not in cached, "the edited sources were not built"


@dataclass
class Stack:
    """The compose stack under a project name of its own, on free ports of 127.0.0.1, playing short
    games: the game service's command as shipped plus ``--year-limit 1901 --deadlines none``."""

    env: dict[str, str]
    override: Path
    budget: Budget
    project: str = field(default_factory=lambda: f"detente-test-{os.getpid()}")
    ports: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ports = {"http": free_port(), "daide": free_port(), "nego": free_port()}
        self.env = self.env | {
            "DETENTE_PUBLISH": "127.0.0.1",
            "DETENTE_HTTP_PORT": str(self.ports["http"]),
            "DETENTE_DAIDE_PORT": str(self.ports["daide"]),
            "DETENTE_NEGO_PORT": str(self.ports["nego"]),
        }
        command = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["game"]["command"]
        short = {"services": {"game": {"command": [*command, "--year-limit", "1901", "--deadlines", "none"]}}}
        self.override.write_text(yaml.safe_dump(short), encoding="utf-8")

    def compose(self, *arguments: str, timeout: float = 120) -> str:
        files = ["-f", str(COMPOSE), "-f", str(self.override)]
        return run(["docker", "compose", "-p", self.project, *files, *arguments], self.env, self.budget, timeout)

    def containers(self) -> dict[str, dict[str, Any]]:
        """The project's containers by name, as ``docker inspect`` tells them."""
        ids = self.compose("ps", "--all", "--quiet").split()
        assert ids, "no container"
        found = json.loads(run(["docker", "inspect", *ids], self.env, self.budget))
        return {container["Name"].lstrip("/"): container for container in found}

    def healthy(self) -> None:
        """Both servers answer on 127.0.0.1 and the negotiation server follows the game server."""
        poll(
            lambda: get_json(self.ports["http"], "/healthz")["status"] == "ok" or None, "game /healthz", 90, self.budget
        )
        poll(lambda: get_json(self.ports["nego"], "/healthz")["following"] or None, "nego following", 90, self.budget)

    def token(self) -> str:
        return self.compose("exec", "-T", "game", "cat", "/data/admin-token").strip()


def service(container: Mapping[str, Any]) -> str:
    return str(container["Config"]["Labels"]["com.docker.compose.service"])


def image_id(stack: Stack) -> str:
    return run(["docker", "image", "inspect", "--format", "{{.Id}}", IMAGE], stack.env, stack.budget).strip()


def finished_game(port: int) -> dict[str, Any] | None:
    games = get_json(port, "/api/games?finished=50")["games"]
    return next((game for game in games if game["status"] == "finished" and game["result"]), None)


async def against_bots(http_port: int, nego_port: int) -> None:
    """A game against bots through the published ports: the person joins over the websocket,
    proposes peace to England on ``/nego``, and the bot playing England accepts."""
    from tests.server.test_house import against_accepting_bots
    from tests.server.ws_helpers import Running

    _, person, talk = await against_accepting_bots(Running(http_port, 0, Path()), nego_port)
    assert (await talk.say("propose(fra, [eng], Agree([eng fra], pce([eng fra])))"))["type"] == "ack"
    answer = await talk.expect("message", **{"from": "ENG"})
    assert answer["text"] == "accept(eng, [fra], Agree([eng fra], pce([eng fra])))"
    await talk.close()
    await person.close()


def test_the_stack_plays_keeps_its_games_over_down_and_up_and_stops_at_once(
    engine: dict[str, str], image: str, tmp_path: Path
) -> None:
    stack = Stack(engine, tmp_path / "short-games.yml", Budget(STACK_SECONDS))
    try:
        started = time.monotonic()
        stack.compose("up", "--detach", timeout=180)
        print(f"up: {time.monotonic() - started:.1f} s")
        stack.healthy()

        # only through ports on 127.0.0.1
        for name, port in (("game", 8700), ("game", 16713), ("nego", 8701)):
            assert re.fullmatch(r"127\.0\.0\.1:\d+", stack.compose("port", name, str(port)).strip()), (name, port)

        # seven bots play a game to its end; each says how it ended
        game = poll(lambda: finished_game(stack.ports["http"]), "a finished game in /api/games", 150, stack.budget)
        assert game["result"]["outcome"] in ("draw", "solo") and game["result"]["powers"], game

        def endings() -> list[str] | None:
            lines = re.findall(r"game (?:drawn|won alone)", stack.compose("logs", "--no-color", "bots"))
            return lines if len(lines) >= 7 else None

        assert len(poll(endings, "seven bots telling how their game ended", 60, stack.budget)) >= 7

        # a person plays against the server's own bots, which negotiate inside the stack's network
        asyncio.run(against_bots(stack.ports["http"], stack.ports["nego"]))

        containers = stack.containers()
        by_service = {name: service(container) for name, container in containers.items()}
        assert sorted(by_service.values()) == ["bots"] * 7 + ["game", "nego"]
        for name, container in containers.items():
            if by_service[name] in ("game", "nego"):
                assert container["State"]["Health"]["Status"] == "healthy", name
                assert [(m["Type"], m["Name"], m["Destination"]) for m in container["Mounts"]] == [
                    ("volume", f"{stack.project}_detente-data", "/data")
                ], name
            else:
                assert container["Mounts"] == [], f"{name} has a volume: {container['Mounts']}"
            assert container["HostConfig"]["Init"] is True, name
            log = container["HostConfig"]["LogConfig"]
            assert log["Type"] == "json-file" and {"max-size", "max-file"} <= set(log["Config"]), (name, log)
            assert container["Config"]["User"] == "10001:10001", name
            assert container["Config"]["Image"] == IMAGE, name

        # `up --build` again builds once more (from the cache) and recreates only what runs an older image:
        # with the context unchanged, no container is recreated or restarted, and no game in progress is lost
        servers = {name: containers[name]["State"]["StartedAt"] for name in containers if "bots" not in name}
        assert {container["Image"] for container in containers.values()} == {image_id(stack)}
        stack.compose("up", "--detach", "--build", timeout=180)
        again = stack.containers()
        if (
            {container["Image"] for container in again.values()}
            == {image_id(stack)}
            == {container["Image"] for container in containers.values()}
        ):
            assert {name: again[name]["State"]["StartedAt"] for name in servers} == servers
            assert {name: c["Id"] for name, c in again.items()} == {name: c["Id"] for name, c in containers.items()}
        else:  # someone edited the sources meanwhile: a new image, which every container must run now
            assert {container["Image"] for container in again.values()} == {image_id(stack)}

        # down and up: the volume keeps the games and the credentials
        token = stack.token()
        stack.compose("down", timeout=60)
        stack.compose("up", "--detach", timeout=180)
        stack.healthy()
        kept = get_json(stack.ports["http"], f"/api/games/{game['id']}")
        assert (kept["status"], kept["result"]) == ("finished", game["result"])
        assert stack.token() == token

        # stop: every container at once (a bot that ignored SIGTERM would take 10 s and exit 137)
        started = time.monotonic()
        stack.compose("stop", timeout=60)
        stopped = time.monotonic() - started
        codes = {name: container["State"]["ExitCode"] for name, container in stack.containers().items()}
        print(f"docker compose stop: {stopped:.1f} s, exit codes {codes}")
        assert all(code in (0, 143) for code in codes.values()), codes
        assert stopped < STOP_SECONDS, f"docker compose stop took {stopped:.1f} s"
    except BaseException:
        logs = subprocess.run(
            ["docker", "compose", "-p", stack.project, "-f", str(COMPOSE), "logs", "--no-color", "--tail", "20"],
            env=stack.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        print(logs.stdout[-6000:], logs.stderr[-2000:])
        raise
    finally:
        subprocess.run(
            ["docker", "compose", "-p", stack.project, "-f", str(COMPOSE), "down", "--volumes", "--timeout", "2"],
            env=stack.env,
            cwd=ROOT,
            capture_output=True,
            timeout=120,
            check=False,
        )
    print(f"the stack's test: {time.monotonic() - stack.budget.start:.1f} s")


if __name__ == "__main__":
    if sys.argv[1:] != ["lock"]:
        sys.exit("usage: python -m tests.test_containers lock > requirements/runtime.txt")
    sys.stdout.write(lock())
