"""One experiment game on a real game server, with external DAIDE programs in some seats.

A slot named ``daide:PATH`` in ``detente run --bots`` is a DAIDE client program (an AiClient
bot such as David Norman's C++ DumbBot, or anything that takes AiClient's command line). A
game with such a slot cannot run in process: :func:`play_daide_game` starts a game server
of its own in this process (on loopback, ports chosen by the system, its store in a
temporary directory), creates the game with the admin token, every power kept for its
slot, and seats

* each program through the DAIDE TCP port, as AiClient bots are put at a chosen power:
  ``PATH -i127.0.0.1 -pPORT -rFRA:PASSCODE``, run in a directory of its own (AiClient
  writes its logs to the working directory). The bot joins as ``NME ('FRA:<its name>')``,
  and the seat of France is reserved for ``FRA:`` (:func:`referee.settings.keeps`);
* each in-process bot over the websocket, as ``detente bot`` would, joining with the name
  its seat is reserved for (``dumbbot#3``: the bot and its slot).

It waits for the game to end (an observer's ``SLO`` or ``DRW``), stops the programs and the
server, and replays the game from the server's store into the same
:class:`~referee.record.GameRecord` an in-process game gives, so the files, the summary
and the report are the same. The seed fixes the powers (unless the setup gives them) and
the in-process bots' randomness; the programs' own randomness is theirs, so such a game
does not replay from its seed.

When a seat's bot negotiates (``Bot.negotiates``), a negotiation server of the game's own
is started beside the game server, and every such seat joins it too, as ``detente bot``
would (:class:`~bots.nego_client.NegoLink`, with the session token its seat was given). The
seats that can negotiate do so there, in L, as at any networked table; the programs receive
no press (a run refuses ``--press-level`` 10 or more with them: :func:`check_press`). The
negotiating seats keep the experiment's ``rounds`` of each press phase
(:class:`bots.nego_rounds.Rounds`): they order only once the last round has fallen quiet,
and the phase, which ends when every order is in, waits for them. The game's messages and
the negotiation's events (deals confirmed, conflicts, compliance) are read back from the
negotiation server's store into the record, as an in-process game records them.

Phases end when every order is in; a deadline (10 s a movement, 5 s a retreat or
adjustment: :data:`DEADLINES`) only matters if a program falls silent, and
:data:`GAME_TIMEOUT` bounds a whole game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bots.inprocess import GameSetup, seeds_for
from bots.registry import make_bot
from bots.session import BotSession
from engine import standard_map
from protocol.daide.messages import MapMessage, Obs, Yes
from protocol.daide.parser import DaideSyntaxError, parse
from referee.deadlines import Deadlines
from referee.game import GameMaster
from referee.record import GameRecord, record_of
from referee.settings import GameSettings
from referee.table import recorded

if TYPE_CHECKING:
    from bots.nego_client import NegoLink
    from bots.ws_client import WsClient

__all__ = [
    "DAIDE_PREFIX",
    "GAME_TIMEOUT",
    "DaideGameFailed",
    "check_press",
    "is_daide",
    "play_daide_game",
    "program_of",
]

DAIDE_PREFIX = "daide:"
#: Seconds a whole game may take, joining included (a game to 1920 of C++ DumbBots takes a few).
GAME_TIMEOUT = 900.0
#: A phase ends when every order is in; these only matter for a program that falls silent. The
#: C++ DumbBot can: two of its units that each want the other's province wait for each other
#: for ever, and the bot never orders again (its process spins until it is stopped).
DEADLINES = Deadlines(movement=10, retreat=5, adjustment=5)
#: Seconds a game's end may take to reach the negotiation server, once the game server said it.
END_TIMEOUT = 10.0
MAP = standard_map()


class DaideGameFailed(RuntimeError):
    """A game with DAIDE programs that did not come to an end (a program failed, or time ran out)."""


def is_daide(slot: str) -> bool:
    """Whether the slot ``slot`` of ``--bots`` is an external DAIDE program (``daide:PATH``)."""
    return slot.startswith(DAIDE_PREFIX)


def program_of(slot: str) -> Path:
    """The executable of a ``daide:PATH`` slot; ValueError if it is not one AiClient can run.

    >>> program_of("daide:/no/such/dumbbot")
    Traceback (most recent call last):
    ...
    ValueError: daide:/no/such/dumbbot: no executable at /no/such/dumbbot
    """
    path = Path(slot.removeprefix(DAIDE_PREFIX)).expanduser()
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise ValueError(f"{slot}: no executable at {path}")
    resolved = path.resolve()
    if any(c.isspace() for c in str(resolved)):  # AiClient cuts its own name at the first space
        raise ValueError(f"{slot}: AiClient programs misread their command line when the path has spaces")
    return resolved


def check_press(settings: GameSettings) -> None:
    """ValueError (one line) if ``settings`` ask for press that a table with programs cannot give.

    >>> check_press(GameSettings(press_level=10))
    Traceback (most recent call last):
    ...
    ValueError: daide: seats get no press: --press-level 10 would relay L to them as DAIDE press; leave it at 0
    """
    if settings.press_level >= 10:
        raise ValueError(
            f"daide: seats get no press: --press-level {settings.press_level} would relay L to them as DAIDE press;"
            " leave it at 0"
        )


def play_daide_game(setup: GameSetup) -> GameRecord:
    """Play the game ``setup`` describes on a server of its own (see the module); its record."""
    return asyncio.run(_play(setup))


async def _play(setup: GameSetup) -> GameRecord:
    # the server's code, and the clients', only where a game needs them (the tools stay light)
    from bots.nego_client import NegoLink
    from bots.nego_rounds import Rounds
    from bots.ws_client import WsClient
    from detente.play import create_game, started
    from server.main import serve
    from server.nego.main import serve_nego
    from server.nego.service import NegoService
    from server.nego.settings import load_nego_settings
    from server.service import GameService
    from server.settings import load_settings
    from server.store import Store
    from server.web import configure_logging

    configure_logging(json_logs=True, level=logging.WARNING)  # a run prints its table, not the servers' steps

    game_seed, *bot_seeds = seeds_for(setup.seed, 1 + len(setup.bots))
    powers = setup.powers or tuple(random.Random(game_seed).sample(MAP.powers, len(MAP.powers)))
    names = [f"{p}:" if is_daide(b) else f"{b}#{i}" for i, (b, p) in enumerate(zip(setup.bots, powers))]
    players = [
        None if is_daide(bot) else make_bot(bot, seed, setup.llm, str(setup.seed), str(slot))
        for slot, (bot, seed) in enumerate(zip(setup.bots, bot_seeds, strict=True))
    ]
    negotiates = any(player is not None and player.negotiates for player in players)
    with tempfile.TemporaryDirectory(prefix="detente-daide-") as tmp:
        settings, _ = load_settings(
            {"port": 0, "daide_port": 0, "data_dir": tmp, "deadlines": "none", "max_open_games": 0}, {}
        )
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[int] = loop.create_future()
        daide_ready: asyncio.Future[int] = loop.create_future()
        stop = asyncio.Event()
        services: list[GameService] = []
        negotiations: list[NegoService] = []
        servers = [
            asyncio.create_task(
                serve(
                    settings,
                    lambda h, p: ready.set_result(p),
                    stop,
                    daide_ready=lambda h, p: daide_ready.set_result(p),
                    on_service=services.append,
                )
            )
        ]
        final: GameMaster | None = None
        programs: dict[asyncio.subprocess.Process, Path] = {}
        tasks: list[asyncio.Task[Any]] = []
        links: list[NegoLink] = []
        press: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
        try:
            port = await started(ready, servers[0], _never_listened)
            daide_port = await daide_ready
            nego = None
            if negotiates:
                nego_settings, _ = load_nego_settings(
                    # the bots of one table say what they will: no stranger can reach this server
                    {"game_server": f"http://127.0.0.1:{port}", "port": 0, "data_dir": tmp,
                     "secret": settings.secret, "say_rate": 100_000},
                    {},
                )  # fmt: skip
                nego_ready: asyncio.Future[int] = loop.create_future()
                servers.append(
                    asyncio.create_task(
                        serve_nego(
                            nego_settings, lambda h, p: nego_ready.set_result(p), stop, on_service=negotiations.append
                        )
                    )
                )
                nego = f"ws://127.0.0.1:{await started(nego_ready, servers[1], _never_listened)}/nego"
            body = _game_body(setup.settings, dict(zip(powers, names, strict=True)))
            game_id = await asyncio.to_thread(create_game, f"http://127.0.0.1:{port}", settings.admin_token, body)
            ws = f"ws://127.0.0.1:{port}/daide"
            ended = asyncio.create_task(_watch(ws, game_id))
            rng = random.Random(game_seed)
            rounds = Rounds(setup.rounds, setup.settings.press_phases)
            for slot, (bot, power, name, player) in enumerate(zip(setup.bots, powers, names, players, strict=True)):
                if player is None:
                    home = Path(tmp) / f"seat-{slot}-{power}"
                    process = await _launch(program_of(bot), home, daide_port, f"{power}:{rng.randrange(1, 8192)}")
                    programs[process] = home
                    continue
                session = BotSession(player, name)
                if nego is not None and player.negotiates:
                    link = NegoLink(session, nego)
                    links.append(link)
                    client = WsClient(session, ws, game_id, before_orders=rounds.seat(link))
                    tasks.append(asyncio.create_task(_negotiating(client, link)))
                else:
                    tasks.append(asyncio.create_task(WsClient(session, ws, game_id).run()))
            try:
                async with asyncio.timeout(GAME_TIMEOUT):
                    await _first(ended, programs)
                    # the negotiation server hears of the end from the game server: its last
                    # records (the last phase's compliance) are in once a seat is told ``over``
                    for link in links[:1]:
                        await link.over(END_TIMEOUT)
            except TimeoutError:
                raise DaideGameFailed(f"the game did not end within {GAME_TIMEOUT:.0f} s") from None
            # the game as the server holds it at its end: every step of it was stored before the SLO
            # or DRW went out, so this is what a replay of the store gives, without playing it again
            live = services[0].games.get(game_id) if services else None
            final = live.gm if live is not None else None
            if negotiations:
                stored = await asyncio.to_thread(negotiations[0].store.events, game_id)
                press = recorded(game_id, GameSettings.from_json(body), [e.payload for e in stored])
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await _stop_programs(programs)
            stop.set()
            await asyncio.gather(*servers, return_exceptions=True)
        if final is not None:
            gm = final
        else:  # the game had left the server's memory (its players gone): read back from the store
            with contextlib.closing(Store.open_read_only(settings.db)) as store:
                kept = next(g for g in store.games() if g.id == game_id)
                gm = GameMaster.replay(
                    game_id, GameSettings.from_json(kept.settings), kept.created, store.events(game_id)
                )
    bots = {power: bot for bot, power in zip(setup.bots, powers, strict=True)}
    return record_of(gm, setup.seed, bots, setup.to_json(), *press)


def _never_listened() -> DaideGameFailed:
    return DaideGameFailed("a server stopped before it listened")


async def _negotiating(client: WsClient, link: NegoLink) -> None:
    """A negotiating seat: its game client, and its negotiation link until it hears the end."""
    try:
        await client.run()
        await link.over(END_TIMEOUT)
    finally:
        await link.close()


def _game_body(settings: GameSettings, reserved: dict[str, str]) -> dict[str, Any]:
    """The ``POST /api/games`` body: the experiment's settings, every power kept for its slot."""
    kept = tuple(sorted(reserved.items()))
    return replace(settings, name=settings.name[:100], deadlines=DEADLINES, reserved=kept).to_json()


async def _launch(program: Path, cwd: Path, port: int, seat: str) -> asyncio.subprocess.Process:
    """Start ``program`` for the seat ``POW:PASSCODE``, AiClient's way, in a directory of its own."""
    cwd.mkdir()
    with (cwd / "output.txt").open("wb") as out:
        return await asyncio.create_subprocess_exec(
            str(program), "-i127.0.0.1", f"-p{port}", f"-r{seat}",
            cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip


async def _watch(ws: str, game_id: str) -> None:
    """Observe the game until it ends (``SLO`` or ``DRW`` from the server)."""
    import websockets

    async with websockets.connect(f"{ws}?game={game_id}", open_timeout=15) as conn:
        await conn.send(str(Obs()))
        async for text in conn:
            if not isinstance(text, str):
                continue
            # the first token says what a message is: only a MAP (once a game) needs parsing
            head = text[:4].rstrip(" (")
            if head in ("SLO", "DRW"):
                return
            if head == "MAP":
                with contextlib.suppress(DaideSyntaxError):
                    message = parse(text)
                    if isinstance(message, MapMessage) and message.name is not None:
                        await conn.send(str(Yes(message)))
    raise DaideGameFailed("the server closed the observer's connection before the game ended")


async def _first(ended: asyncio.Task[None], homes: dict[asyncio.subprocess.Process, Path]) -> None:
    """Wait for the end of the game; a program that exits first fails the game, with its output."""
    exits = {asyncio.create_task(p.wait()): p for p in homes}
    try:
        done, _ = await asyncio.wait({ended, *exits}, return_when=asyncio.FIRST_COMPLETED)
        if ended in done:
            ended.result()
            return
        failed = exits[next(iter(done))]
        raise DaideGameFailed(f"a DAIDE program exited with status {failed.returncode} before the game ended;"
                              f" {_logs(homes[failed])}")  # fmt: skip
    finally:
        for waiter in exits:
            waiter.cancel()
        if not ended.done():
            ended.cancel()
        await asyncio.gather(ended, *exits, return_exceptions=True)


def _logs(home: Path, lines: int = 8) -> str:
    """The last lines a program wrote in its directory (AiClient: ``badlog.txt``; its output)."""
    found = []
    for name in ("badlog.txt", "output.txt"):
        with contextlib.suppress(OSError):
            tail = (home / name).read_text(errors="replace").strip().splitlines()[-lines:]
            if tail:
                found.append(f"{name}: " + " | ".join(tail))
    return "; ".join(found) or f"it wrote nothing in {home}"


async def _stop_programs(programs: Iterable[asyncio.subprocess.Process]) -> None:
    """AiClient bots stay after the game until the server closes: stop them (kill if they linger)."""
    for program in programs:
        if program.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                program.terminate()
    for program in programs:
        try:
            await asyncio.wait_for(program.wait(), 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                program.kill()
            await program.wait()
