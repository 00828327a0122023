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

These games are press-free: the negotiation server is not started, so a negotiating bot
plays without partners. Phases end when every order is in; a deadline (10 s a movement,
5 s a retreat or adjustment: :data:`DEADLINES`) only matters if a program falls silent, and
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
from typing import Any

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

__all__ = ["DAIDE_PREFIX", "GAME_TIMEOUT", "DaideGameFailed", "is_daide", "play_daide_game", "program_of"]

DAIDE_PREFIX = "daide:"
#: Seconds a whole game may take, joining included (a game to 1920 of C++ DumbBots takes a few).
GAME_TIMEOUT = 900.0
#: A phase ends when every order is in; these only matter for a program that falls silent. The
#: C++ DumbBot can: two of its units that each want the other's province wait for each other
#: for ever, and the bot never orders again (its process spins until it is stopped).
DEADLINES = Deadlines(movement=10, retreat=5, adjustment=5)
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


def play_daide_game(setup: GameSetup) -> GameRecord:
    """Play the game ``setup`` describes on a server of its own (see the module); its record."""
    return asyncio.run(_play(setup))


async def _play(setup: GameSetup) -> GameRecord:
    # the server's code, and the clients', only where a game needs them (the tools stay light)
    from bots.ws_client import WsClient
    from detente.play import create_game
    from server.main import serve
    from server.service import GameService
    from server.settings import load_settings
    from server.store import Store
    from server.web import configure_logging

    configure_logging(json_logs=True, level=logging.WARNING)  # a run prints its table, not the servers' steps

    game_seed, *bot_seeds = seeds_for(setup.seed, 1 + len(setup.bots))
    powers = setup.powers or tuple(random.Random(game_seed).sample(MAP.powers, len(MAP.powers)))
    names = [f"{p}:" if is_daide(b) else f"{b}#{i}" for i, (b, p) in enumerate(zip(setup.bots, powers))]
    with tempfile.TemporaryDirectory(prefix="detente-daide-") as tmp:
        settings, _ = load_settings(
            {"port": 0, "daide_port": 0, "data_dir": tmp, "deadlines": "none", "max_open_games": 0}, {}
        )
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[int] = loop.create_future()
        daide_ready: asyncio.Future[int] = loop.create_future()
        stop = asyncio.Event()
        services: list[GameService] = []
        server = asyncio.create_task(
            serve(
                settings,
                lambda h, p: ready.set_result(p),
                stop,
                daide_ready=lambda h, p: daide_ready.set_result(p),
                on_service=services.append,
            )
        )
        final: GameMaster | None = None
        programs: dict[asyncio.subprocess.Process, Path] = {}
        tasks: list[asyncio.Task[Any]] = []
        try:
            await asyncio.wait({ready, server}, return_when=asyncio.FIRST_COMPLETED)
            if not ready.done():
                await server  # raises why it could not start
            port, daide_port = ready.result(), await daide_ready
            body = _game_body(setup.settings, dict(zip(powers, names, strict=True)))
            game_id = await asyncio.to_thread(create_game, f"http://127.0.0.1:{port}", settings.admin_token, body)
            ws = f"ws://127.0.0.1:{port}/daide"
            ended = asyncio.create_task(_watch(ws, game_id))
            rng = random.Random(game_seed)
            for slot, (bot, power, name, seed) in enumerate(zip(setup.bots, powers, names, bot_seeds, strict=True)):
                if is_daide(bot):
                    home = Path(tmp) / f"seat-{slot}-{power}"
                    process = await _launch(program_of(bot), home, daide_port, f"{power}:{rng.randrange(1, 8192)}")
                    programs[process] = home
                else:
                    player = make_bot(bot, seed, setup.llm, str(setup.seed), str(slot))
                    client = WsClient(BotSession(player, name), ws, game_id)
                    tasks.append(asyncio.create_task(client.run()))
            try:
                async with asyncio.timeout(GAME_TIMEOUT):
                    await _first(ended, programs)
            except TimeoutError:
                raise DaideGameFailed(f"the game did not end within {GAME_TIMEOUT:.0f} s") from None
            # the game as the server holds it at its end: every step of it was stored before the SLO
            # or DRW went out, so this is what a replay of the store gives, without playing it again
            live = services[0].games.get(game_id) if services else None
            final = live.gm if live is not None else None
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await _stop_programs(programs)
            stop.set()
            await asyncio.gather(server, return_exceptions=True)
        if final is not None:
            gm = final
        else:  # the game had left the server's memory (its players gone): read back from the store
            with contextlib.closing(Store.open_read_only(settings.db)) as store:
                stored = next(g for g in store.games() if g.id == game_id)
                gm = GameMaster.replay(
                    game_id, GameSettings.from_json(stored.settings), stored.created, store.events(game_id)
                )
    bots = {power: bot for bot, power in zip(setup.bots, powers, strict=True)}
    return record_of(gm, setup.seed, bots, setup.to_json())


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
