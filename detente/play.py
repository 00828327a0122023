"""``detente play``: one process, both servers, six bots, and a page for the person; a session to leave and resume.

It starts the game server and the negotiation server on SQLite databases in ``./data``
(``--data-dir``), creates a game in which one power (``--power``, in any spelling, or one
drawn at random) is kept for the person, seats six bots in the others (``--bots``: one to
six names, the last filling the remaining seats; negotiating bots also join the
negotiation server), and prints what the person needs on standard output::

    detente: game g1a2b3c4d: you play France against England holdbot, Germany randombot, ...
    detente: your seat (open it in any browser): http://127.0.0.1:8700/#/game/g1a2b3c4d?power=FRA&session=TOKEN
    detente: Ctrl-C stops; detente play then resumes this game (--new starts another); logs in data/detente.log

Phases have no deadline unless ``--deadlines`` says so: the bots order at once, so each
phase waits for the person. It runs until the game ends (``detente: the game is over``,
exit 0) or it is stopped.

**The seat.** The person's power is kept for a secret name (the lobby says which power is
kept, never for whom). ``detente play`` claims it itself, at once, with a DAIDE client of
its own (``NME`` with the secret name), keeps the session token the server gives (its
``ADM`` after ``YES (NME ...)``) and holds that connection, so the seat is never left
while the game forms (a disconnection then frees it). The link it prints carries the
token: the page that opens it says ``IAM (FRA) ('TOKEN')``, which takes the seat over
(the older connection, ours or another browser's, is told and closed). The same link works
in any browser, any number of times, for the whole game.

**Stopping.** Ctrl-C (SIGINT) or SIGTERM stops within about a second: the bots leave, the
servers close, one line says ``detente: stopped; run detente play again to resume game
ID``, and the exit status is 0. The servers' logs never reach the terminal: they are
appended, JSON lines from the info level up, to ``detente.log`` in the data directory.

**Resuming.** What a resume needs is kept in ``play.json`` in the data directory (mode
0600, like the credentials beside it): the game's id, the person's power, secret name and
session token, each bot's name, power, passcode and session token, and ``alive``, the
last moment the process was known to run (written every few seconds and when it stops).
The next ``detente play`` in that directory resumes that game if it is unfinished: the
game server restores it from its store, each bot comes back to its own seat with ``IAM``
and its session token, and the seat link is printed again (the options that shape a game,
``--power``, ``--bots``, ``--deadlines``, ... apply only to a new one). A game stopped
before it started (still forming) keeps no seat: the bots and the person join it again.
The time ``detente play`` was stopped does not count: before the servers start, the phase's
deadline is moved later by it, as a ``shift`` record of the game (see
:meth:`referee.game.GameMaster.shift_deadline`), so a replay of the game's records
gives the same deadline and nobody falls into civil disorder meanwhile. ``--new`` starts
another game.

**No orphans.** ``detente play`` owns its data directory: the server there opens no game
for strangers, and every unfinished game in its store other than the one it resumes (the
previous game, with ``--new``, or one left by an older version) is finished as
``cancelled`` before the servers start. A second ``detente play`` on the same data
directory, or on a port in use, says so and exits with status 2 without touching anything.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import errno
import json
import logging
import os
import random
import secrets
import signal
import socket
import sys
import time
import traceback
import urllib.parse
import urllib.request
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import structlog
import websockets
from pydantic import ValidationError

from bots.llm.config import LLMOptions
from bots.nego_client import NegoLink
from bots.registry import BOTS, BotSeat, UnknownBot, make_bot, parse_seat
from bots.session import BotSession
from bots.ws_client import WsClient
from detente import game_options, llm_options
from engine import Power
from protocol.daide.messages import Adm, Drw, MapMessage, Rej, Slo, Yes
from protocol.daide.parser import DaideSyntaxError, parse
from server.api_models import GameCreate, GameResult
from server.settings import SettingsError, load_settings
from server.store import Store, StoreError

__all__ = ["add_arguments", "power_name", "run"]

STATE_FILE = "play.json"
"""What a resume needs, in the data directory (see the module)."""
LOG_FILE = "detente.log"
"""The servers' logs, in the data directory."""
LOCK_FILE = "play.lock"
"""Held (``flock``) by the ``detente play`` that uses the data directory."""
HEARTBEAT = 5.0
"""Seconds between two writes of ``alive`` to the state file."""
STOP_GRACE = 1.2
"""Seconds the servers get to close their connections once stopped."""
BOTS_GRACE = 0.5
"""Seconds the bots get to close their connections once stopped."""
SEATED_TIMEOUT = 20.0
"""Seconds to wait for every seat to be taken before printing the link anyway."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop ``detente play`` (Ctrl-C, kill)."""


def power_name(text: str) -> str:
    """The power (its token) of a name in any common spelling (``france``, ``FRA``, ``French``)."""
    try:
        return Power.of(text).value
    except KeyError:
        names = ", ".join(p.english for p in Power)
        near = difflib.get_close_matches(text.lower(), [p.english.lower() for p in Power], n=1)
        hint = f" (did you mean {near[0].title()}?)" if near else ""
        raise argparse.ArgumentTypeError(f"{text!r} is not a power{hint}: one of {names} (or FRA, ENG, ...)") from None


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65534:
        raise argparse.ArgumentTypeError("a port is a number from 1 to 65534, or 0 to pick free ones")
    return port


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        default="randomnegotiator",
        help=f"one to six bot names, bots of your own (FILE.py:Class) or model seats (llm:MODEL@URL, llm:PROFILE),"
        f" comma-separated; the last fills"
        f" the remaining seats ({', '.join(sorted(BOTS))})",
    )
    llm_options.add_arguments(parser, log=True)
    parser.add_argument(
        "--power",
        type=power_name,
        metavar="POWER",
        help="the power you play, in any spelling: "
        + ", ".join(p.english for p in Power)
        + " (FRA, france, French, ...); default: one drawn at random",
    )
    game_options.add_arguments(parser, ("map", "l_levels", "deadlines", "year_limit"))
    parser.add_argument(
        "--port",
        type=_port,
        default=8700,
        help="the game server's port (the negotiation server's is the next; 0 picks)",
    )
    parser.add_argument("--data-dir", dest="data_dir", default="data", help="the databases, credentials, state and log")
    parser.add_argument("--new", action="store_true", help="start a new game (the unfinished one is cancelled)")
    parser.add_argument("--no-browser", dest="browser", action="store_false", help="only print the seat's link")
    parser.add_argument("--seed", type=int, help="the seed of the bots and of the power drawn (default: unseeded)")


@dataclass
class _Plan:
    """The checked options: what a new game would be."""

    seats: list[str]
    game: dict[str, Any]
    power: str
    secret: str  # the name the person's power is kept for
    rng: random.Random
    llm: LLMOptions


class _Stopped(Exception):
    """Ctrl-C before the servers were up."""


def run(args: argparse.Namespace) -> int:
    """``detente play``: 0 when the game ended or the person stopped it, 2 for a bad option, a
    port in use or a data directory in use, 1 for anything else (said in one line)."""
    try:
        return _run(args)
    except KeyboardInterrupt:  # Ctrl-C before the game was made
        _stopped_line(None)
        return 0


def _run(args: argparse.Namespace) -> int:
    try:
        plan = _plan(args)
    except (ValueError, UnknownBot) as error:
        return _fail(str(error))
    for port in (args.port, args.port + 1) if args.port else ():
        if _port_in_use(port):
            return _port_taken(port, args.port)
    data = Path(args.data_dir)
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return _fail(f"cannot use the data directory {data}: {error.strerror or error}")
    lock = _lock(data)
    if lock is None:
        return _fail(
            f"another detente play is running on the data directory {data}; stop it, or use another --data-dir"
        )
    terminal = sys.stderr
    log_path = data / LOG_FILE
    try:
        log = open(log_path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115  # closed below
    except OSError as error:
        lock.close()
        return _fail(f"cannot write the log {log_path}: {error.strerror or error}")
    sys.stderr = log  # every log line, warning and library message goes to the file, not the terminal
    game_id: str | None = None
    try:
        session = _Session(args, plan, data, log_path, terminal)
        # a signal waits until the servers are up and ours are the handlers (see _Session.play):
        # uvicorn's, in place while they start, would stop one half-started; blocked before any
        # thread starts, it stays blocked in every worker thread, so only the event loop hears it
        _block_signals(True)
        try:
            code = asyncio.run(session.play())
        finally:
            game_id = session.game_id
            _block_signals(False)
        return code
    except (KeyboardInterrupt, _Stopped):
        _stopped_line(game_id)
        return 0
    except SettingsError as error:
        return _fail(str(error), terminal)
    except StoreError as error:
        return _fail(f"the store in {data} cannot be used: {error}", terminal)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return _port_taken(args.port, args.port, terminal)
        return _fail(f"cannot listen: {error.strerror or error}", terminal, 1)
    except Exception as error:  # noqa: BLE001  # a newcomer gets one line; the details are in the log
        traceback.print_exc(file=log)
        return _fail(f"stopped by an error: {error} (details in {log_path})", terminal, 1)
    finally:
        sys.stderr = terminal
        log.close()
        lock.close()


def _plan(args: argparse.Namespace) -> _Plan:
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    if not 1 <= len(names) <= 6:
        raise ValueError("--bots names one to six bots")
    for name in names:
        if isinstance(parse_seat(name), BotSeat):
            make_bot(name)
    llm = llm_options.options_from(args, Path(args.data_dir) / "llm")
    llm_options.check_seats(names, llm)
    settings = game_options.settings_from(args, "detente play")
    rng = random.Random(args.seed)
    power = args.power or rng.choice(sorted(p.value for p in Power))
    # the kept power goes to the player who joins with this name: a secret (the lobby says
    # which powers are kept, never for whom); detente play claims it itself (see the module)
    secret = secrets.token_urlsafe(16)
    settings = replace(settings, reserved=((power, secret),))
    try:
        game = GameCreate.of(settings).model_dump(mode="json")  # the server's bounds, such as 0.1 s a phase
    except ValidationError as error:
        first = error.errors()[0]
        option = f"--{str(first['loc'][0]).replace('_', '-')}" if first["loc"] else "the game"
        raise ValueError(f"{option}: {first['msg']}") from None
    return _Plan((names + [names[-1]] * 6)[:6], game, power, secret, rng, llm)


def _fail(message: str, out: TextIO | None = None, code: int = 2) -> int:
    print(f"detente play: {message}", file=out or sys.stderr, flush=True)
    return code


def _port_taken(port: int, asked: int, out: TextIO | None = None) -> int:
    other = asked + 2 if asked else 8702
    return _fail(
        f"port {port} is in use (another detente play, or another server); "
        f"choose another with --port, e.g. --port {other} (the negotiation server takes the next one too)",
        out,
    )


def _stopped_line(game_id: str | None) -> None:
    if game_id is None:
        print("detente: stopped", flush=True)
    else:
        print(f"detente: stopped; run detente play again to resume game {game_id}", flush=True)


def _block_signals(block: bool) -> None:
    """Hold back (or let through) SIGINT and SIGTERM in this thread and those it starts."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK if block else signal.SIG_UNBLOCK, STOP_SIGNALS)


def _free_port(host: str = "127.0.0.1") -> int:
    """A port no server listens on now, as the system picks one for a bind to port 0."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a server listens on ``port`` already (bound as uvicorn binds, with SO_REUSEADDR,
    so connections of a server that just stopped do not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def _lock(data: Path) -> TextIO | None:
    """The data directory's lock file, locked; None if another process holds it."""
    handle = open(data / LOCK_FILE, "a+", encoding="utf-8")  # noqa: SIM115  # held as long as we run
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Unix: no lock
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


# --- the state file --------------------------------------------------------------------------


def read_state(data: Path) -> dict[str, Any] | None:
    """The state kept in ``data`` (see the module), or None when there is none usable. The file
    names the powers (the person's and the seats') by their full names; the state by their tokens."""
    try:
        state = json.loads((data / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or not isinstance(state.get("game"), str):
        return None
    try:
        state["power"] = Power.of(state["power"]).value
        for seat in state.get("seats", []):
            seat["power"] = Power.of(seat["power"]).value
    except (KeyError, TypeError, AttributeError):  # a power of no name, or not where it should be
        return None
    return state


def write_state(data: Path, state: dict[str, Any]) -> None:
    """Write the state whole (a reader never sees half of it), readable by its owner only, its
    powers by their full names, as the files write them."""
    written = {
        **state,
        "power": Power(state["power"]).full_name,
        "seats": [{**seat, "power": Power(seat["power"]).full_name} for seat in state.get("seats", [])],
    }
    path = data / STATE_FILE
    tmp = path.with_name(f".{STATE_FILE}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(written, handle, indent=1)
    os.replace(tmp, path)


def _prepare_store(db: Path, keep: str | None, now: float, alive: float | None) -> dict[str, Any] | None:
    """Before the servers start: the game ``keep``, if unfinished, has its deadline moved by the
    time since ``alive`` (a ``shift`` record); every other unfinished game is cancelled.
    What is known of ``keep``: ``{"state", "phase", "shifted"}``, or None (no such unfinished game)."""
    from referee.game import GameMaster, GameState

    kept: dict[str, Any] | None = None
    store = Store.open(db)
    try:
        for stored in store.games(True):
            create = GameCreate.model_validate(stored.settings)
            events = store.events(stored.id)
            gm = GameMaster.replay(stored.id, create.settings(), stored.created, events, on_error=lambda e, x: None)
            if gm.state == GameState.OVER:  # it ended, but its server stopped before marking it so: the server will
                continue
            if stored.id == keep:
                step = gm.shift_deadline(now - alive, now) if alive is not None else None
                if step is not None and step.records:
                    store.append_many(stored.id, [(r.kind, r.payload, r.at) for r in step.records])
                shifted = float(step.records[0].payload["seconds"]) if step is not None and step.records else 0.0
                kept = {"state": gm.state, "phase": str(gm.position.phase), "shifted": shifted}
                continue
            result = GameResult(outcome="cancelled", phase=str(gm.position.phase))
            store.finish(stored.id, result.model_dump(mode="json"), now)
            structlog.get_logger("detente.play").info("game cancelled: detente play keeps one game", game=stored.id)
    finally:
        store.close()
    return kept


# --- the bots and the person's seat ----------------------------------------------------------


@dataclass
class _Bot:
    """One bot at the table: its session, its client, its negotiation link."""

    name: str
    session: BotSession
    client: WsClient
    link: NegoLink | None = None  # for a negotiating bot

    @classmethod
    def seat(
        cls, name: str, seed: int, ws: str, nego: str, game: str, kept: dict[str, Any] | None, llm: LLMOptions, slot: int
    ) -> _Bot:
        """A bot joining ``game`` afresh, or with ``kept`` (its power, passcode and token) coming back."""
        bot = make_bot(name, seed, llm, game=game, seat=str(slot))
        session = BotSession(bot)
        client = WsClient(session, ws, game)
        me = cls(name, session, client)
        if bot.negotiates:
            # the link opens at the first phase, and sends the orders the bot revises on ``client``
            me.link = NegoLink(session, nego)
            client.before_orders = me.link.before_orders
        if kept is not None:
            session.power, session.passcode, session.session = kept["power"], int(kept["passcode"]), kept["session"]
            bot.start(kept["power"], session.map)
            client.connections = 1  # not the first connection: the session says IAM with its token
        return me

    async def play(self) -> BotSession:
        try:
            return await self.client.run()
        finally:
            if self.link is not None:
                await self.link.close()

    def kept(self) -> dict[str, Any] | None:
        session = self.session
        if session.power is None or session.passcode is None or session.session is None:
            return None
        return {"bot": self.name, "power": session.power, "passcode": session.passcode, "session": session.session}


async def _hold_seat(url: str, name: str, token: asyncio.Future[str | None]) -> None:
    """Claim the power kept for ``name`` and hold it until another connection takes it over
    with the session token (set in ``token``; None if the seat was refused)."""
    try:
        async with websockets.connect(url, open_timeout=15) as ws:
            await ws.send(f"NME ('{name}') ('1.0')")
            async for text in ws:
                if token.done() or not isinstance(text, str):
                    continue
                with contextlib.suppress(DaideSyntaxError):
                    message = parse(text)
                    if isinstance(message, MapMessage) and message.name is not None:
                        await ws.send(str(Yes(message)))  # the seat has its map: the game need not wait
                    elif isinstance(message, Adm) and message.session is not None:
                        token.set_result(message.session)
                    elif isinstance(message, Rej):
                        token.set_result(None)
                        return
    except (OSError, websockets.WebSocketException):
        pass
    finally:
        if not token.done():
            token.set_result(None)


# --- the session -----------------------------------------------------------------------------


@dataclass
class _Session:
    args: argparse.Namespace
    plan: _Plan
    data: Path
    log_path: Path
    terminal: TextIO
    game_id: str | None = None
    state: dict[str, Any] = field(default_factory=dict)

    async def play(self) -> int:
        from server.main import serve
        from server.nego.main import serve_nego
        from server.nego.settings import load_nego_settings
        from server.web import configure_logging

        args, data = self.args, self.data
        now = time.time()
        # with --port 0 the negotiation server's port is picked now, not when it starts: the game
        # server tells the page where it is, and it starts first
        nego_port = args.port + 1 if args.port else _free_port()
        settings, messages = load_settings(
            # max_open_games 0: no game for strangers; the person's game is created below and named by id
            {
                "port": args.port,
                "daide_port": 0,
                "data_dir": str(data),
                "nego_url": f"ws://127.0.0.1:{nego_port}/nego",
                "deadlines": "none",
                "max_open_games": 0,
            },
            {},
        )
        configure_logging(json_logs=True, level=logging.INFO)  # into the log file: sys.stderr is it
        for message in messages:  # generated credentials: the person never needs them
            print(f"detente: {message}", file=sys.stderr, flush=True)
        saved = None if args.new else read_state(data)
        alive = saved.get("alive") if saved is not None else None
        resumed = await asyncio.to_thread(
            _prepare_store,
            settings.db,
            saved["game"] if saved is not None else None,
            now,
            float(alive) if isinstance(alive, int | float) else None,
        )
        if resumed is None:
            saved = None

        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        game_ready: asyncio.Future[int] = loop.create_future()
        game_task = asyncio.create_task(serve(settings, lambda h, p: game_ready.set_result(p), stop))
        nego_task: asyncio.Task[None] | None = None
        tasks: list[asyncio.Task[Any]] = []
        stopping = asyncio.Event()
        try:
            port = await started(game_ready, game_task)
            base = f"http://127.0.0.1:{port}"
            nego_settings, _ = load_nego_settings(
                {"game_server": base, "port": nego_port, "data_dir": str(data), "secret": settings.secret}, {}
            )
            nego_ready: asyncio.Future[int] = loop.create_future()
            nego_task = asyncio.create_task(serve_nego(nego_settings, lambda h, p: nego_ready.set_result(p), stop))
            nego = f"ws://127.0.0.1:{await started(nego_ready, nego_task)}/nego"
            # both servers are up, and uvicorn has put its signal handlers in: ours replace them
            for signum in STOP_SIGNALS:
                loop.add_signal_handler(signum, stopping.set)
            _block_signals(False)  # one sent meanwhile is handled now

            if saved is None:
                self.game_id = await asyncio.to_thread(create_game, base, settings.admin_token, self.plan.game)
                power = self.plan.power
                self.state = {
                    "game": self.game_id,
                    "power": power,
                    "name": self.plan.secret,
                    "bots": self.plan.seats,
                    "person": None,
                    "seats": [],
                }
            else:
                self.state, self.game_id = saved, saved["game"]
            self.state["alive"] = time.time()
            await asyncio.to_thread(write_state, data, self.state)
            playing = resumed is not None and resumed["state"] != "forming"
            if resumed is not None:
                self._resuming_line(resumed)

            ws = f"ws://127.0.0.1:{port}/daide"
            game_ws = f"{ws}?game={urllib.parse.quote(self.game_id)}"
            token: asyncio.Future[str | None] = loop.create_future()
            if playing:
                token.set_result(self.state.get("person"))
            else:
                tasks.append(asyncio.create_task(_hold_seat(game_ws, self.state["name"], token)))
            kept = {s["power"]: s for s in self.state.get("seats", [])} if playing else {}
            llm = self.plan.llm
            bots = (
                [
                    _Bot.seat(s["bot"], self.plan.rng.getrandbits(64), ws, nego, self.game_id, s, llm, slot)
                    for slot, s in enumerate(kept.values())
                ]
                if kept
                else [
                    _Bot.seat(n, self.plan.rng.getrandbits(64), ws, nego, self.game_id, None, llm, slot)
                    for slot, n in enumerate(self.state["bots"])
                ]
            )
            playing_bots = [asyncio.create_task(b.play()) for b in bots]
            tasks.extend(playing_bots)
            person = await token
            await self._seated(bots)
            self.state["person"] = person
            await asyncio.to_thread(write_state, data, self.state)
            self._seat_lines(base, bots, person)
            tasks.append(asyncio.create_task(self._heartbeat()))

            ended = asyncio.gather(*playing_bots)
            ended.add_done_callback(lambda f: f.cancelled() or f.exception())  # cancelled by _stop: no error
            waiter = asyncio.create_task(stopping.wait())
            await asyncio.wait({ended, waiter}, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            if stopping.is_set():
                await self._stop(tasks, stop, game_task, nego_task)
                _stopped_line(self.game_id)
                return 0
            sessions = ended.result()
            if any(isinstance(s.result, Slo | Drw) for s in sessions):
                print("detente: the game is over", flush=True)
                self.state = {}  # nothing to resume
                with contextlib.suppress(OSError):
                    (data / STATE_FILE).unlink()
                return 0
            print(f"detente play: the bots left the game (details in {self.log_path})", file=self.terminal, flush=True)
            return 1
        finally:
            await self._stop(tasks, stop, game_task, nego_task)

    async def _stop(
        self, tasks: list[asyncio.Task[Any]], stop: asyncio.Event, *servers: asyncio.Task[None] | None
    ) -> None:
        """The bots and the seat's holder leave, then the servers close (each within its grace);
        ``alive`` is written last."""
        if stop.is_set():
            return
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=BOTS_GRACE)
        stop.set()
        running = [s for s in servers if s is not None]
        if running:
            await asyncio.wait(running, timeout=STOP_GRACE)
            for server in running:
                if server.done() and not server.cancelled() and server.exception() is not None:
                    print(f"server stopped with {server.exception()!r}", file=sys.stderr)
        if self.state:
            self.state["alive"] = time.time()
            with contextlib.suppress(OSError):
                await asyncio.to_thread(write_state, self.data, self.state)

    async def _seated(self, bots: list[_Bot]) -> None:
        """Wait (a bounded time) until every bot has its seat (HLO: the game started), and keep the seats."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SEATED_TIMEOUT):
                while not all(b.session.power is not None for b in bots):
                    await asyncio.sleep(0.05)
        seats = [b.kept() for b in bots]
        self.state["seats"] = [s for s in seats if s is not None]

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            self.state["alive"] = time.time()
            with contextlib.suppress(OSError):
                await asyncio.to_thread(write_state, self.data, self.state)

    def _resuming_line(self, resumed: dict[str, Any]) -> None:
        where = "forming" if resumed["state"] == "forming" else resumed["phase"]
        line = f"detente: resuming game {self.game_id} ({where})"
        if resumed["shifted"]:
            line += f"; its deadline moved {resumed['shifted']:.0f} s later, the time detente play was stopped"
        print(line, flush=True)
        if self.args.power is not None and self.args.power != self.state["power"]:
            playing = Power(self.state["power"]).full_name
            print(f"detente: --power applies to a new game (detente play --new): you play {playing}")

    def _seat_lines(self, base: str, bots: list[_Bot], person: str | None) -> None:
        power = Power(self.state["power"])
        others = ", ".join(
            f"{Power(b.session.power).english} {b.name}"
            for b in sorted(bots, key=lambda b: b.session.power or "")
            if b.session.power is not None
        )
        print(f"detente: game {self.game_id}: you play {power.english} against {others or 'the bots'}", flush=True)
        game = urllib.parse.quote(self.game_id or "")
        if person is not None:
            page = f"{base}/#/game/{game}?power={power.value}&session={urllib.parse.quote(person)}"
            print(f"detente: your seat (open it in any browser): {page}", flush=True)
        else:
            page = f"{base}/#/game/{game}"
            print(f"detente: your seat could not be claimed; the game: {page}", flush=True)
        print(
            f"detente: Ctrl-C stops; detente play then resumes this game (--new starts another); logs in {self.log_path}",
            flush=True,
        )
        if self.args.browser:
            with contextlib.suppress(Exception):
                webbrowser.open(page)


async def started(
    ready: asyncio.Future[int], task: asyncio.Task[None], stopped: Callable[[], Exception] = _Stopped
) -> int:
    """The port a server listens on, or its error if it failed to start (``stopped()`` if it
    ended without one before listening: here, a signal)."""
    waiting: set[asyncio.Future[Any]] = {ready, task}
    await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    if not ready.done():
        await task  # raises what stopped it
        raise stopped()
    return ready.result()


def create_game(base: str, token: str, body: Any, path: str = "/api/games", timeout: float = 30) -> str:
    """A game made on the server at ``base`` with the admin ``token``: created from settings
    (``POST /api/games``), or imported from a game file (``path="/api/games/import?..."``); its id."""
    request = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return str(json.loads(response.read())["id"])
