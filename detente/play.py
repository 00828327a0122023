"""``detente play``: one process, both servers, six bots, and a page for the person.

It starts the game server and the negotiation server on an SQLite database in ``./data``
(``--data-dir``), creates a game in which one power (``--power``, or one drawn at random)
is kept for the person, seats six bots in the others (``--bots``: one to six names, the
last filling the remaining seats; negotiating bots also join the negotiation server),
and prints the address of the page where the person plays, opening it in a browser where
there is one. It runs until the game ends or it is interrupted. Phases have no deadline
unless ``--deadlines`` says so: the bots order at once, so each phase waits for the person.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import secrets
import sys
import urllib.request
import webbrowser
from pathlib import Path
from typing import Any

from bots.nego_client import play_negotiating
from bots.registry import UnknownBot, make_bot
from bots.ws_client import play
from engine import Power
from server.api_models import DeadlinesBody, normalise_l_levels
from server.main import serve
from server.nego.main import serve_nego
from server.nego.settings import load_nego_settings
from server.settings import SettingsError, load_settings
from server.web import configure_logging

__all__ = ["add_arguments", "run"]



def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", default="randomnegotiator", help="one to six bot names; the last fills the seats")
    powers = sorted(p.token for p in Power)
    parser.add_argument("--power", type=str.upper, choices=powers, help="the power you play (default: random)")
    parser.add_argument("--l-levels", dest="l_levels", default="1-8", help="L levels of the negotiation (1-8)")
    parser.add_argument("--deadlines", default="none", help="movement,retreat,adjustment seconds, or none")
    parser.add_argument("--year-limit", dest="year_limit", type=int, default=1920, help="last year (1920)")
    parser.add_argument("--port", type=int, default=8700, help="the game server's port (8700; the negotiation's +1)")
    parser.add_argument("--data-dir", dest="data_dir", default="data", help="the databases and credentials (./data)")
    parser.add_argument("--no-browser", dest="browser", action="store_false", help="only print the page's address")
    parser.add_argument("--seed", type=int, help="the seed of the bots and of the power drawn")


def run(args: argparse.Namespace) -> int:
    try:
        names = [n.strip() for n in args.bots.split(",") if n.strip()]
        if not 1 <= len(names) <= 6:
            raise ValueError("--bots names one to six bots")
        for name in names:
            make_bot(name)
        l_levels = normalise_l_levels(args.l_levels)
        deadlines = DeadlinesBody.parse(args.deadlines)
    except (ValueError, UnknownBot) as error:
        print(f"detente play: {error}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    seats = (names + [names[-1]] * 6)[:6]
    power = Power.of(args.power).value if args.power else rng.choice(sorted(p.value for p in Power))
    game: dict[str, Any] = {
        "name": "detente play",
        "l_levels": l_levels,
        "deadlines": None if deadlines is None else deadlines.model_dump(),
        "year_limit": args.year_limit,
        # the kept power goes to the player who joins with this name: a secret, known only to
        # the page the link opens (the lobby says which powers are kept, never for whom)
        "reserved": {power: secrets.token_urlsafe(16)},
    }
    try:
        return asyncio.run(_play(args, seats, game, power, rng))
    except SettingsError as error:
        print(f"detente play: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"detente play: cannot listen: {error.strerror or error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


async def _play(
    args: argparse.Namespace, seats: list[str], game: dict[str, Any], power: str, rng: random.Random
) -> int:
    data = Path(args.data_dir)
    nego_port = args.port + 1 if args.port else 0
    nego_url = f"ws://127.0.0.1:{nego_port}/nego" if nego_port else None
    settings, messages = load_settings(
        # max_open_games 0: no game for strangers; the person's game is created below and named by id
        {
            "port": args.port,
            "daide_port": 0,
            "data_dir": str(data),
            "nego_url": nego_url,
            "deadlines": "none",
            "max_open_games": 0,
        },
        {},
    )
    for message in messages:
        print(f"detente: {message}", flush=True)
    configure_logging()
    loop = asyncio.get_running_loop()
    game_ready: asyncio.Future[int] = loop.create_future()
    stop = asyncio.Event()
    game_task = asyncio.create_task(serve(settings, lambda h, p: game_ready.set_result(p), stop))
    port = await _started(game_ready, game_task)
    base = f"http://127.0.0.1:{port}"
    nego_settings, _ = load_nego_settings(
        {"game_server": base, "port": nego_port, "data_dir": str(data), "secret": settings.secret}, {}
    )
    nego_ready: asyncio.Future[int] = loop.create_future()
    nego_task = asyncio.create_task(serve_nego(nego_settings, lambda h, p: nego_ready.set_result(p), stop))
    nego = f"ws://127.0.0.1:{await _started(nego_ready, nego_task)}/nego"
    try:
        game_id = await asyncio.to_thread(_create, base, settings.admin_token, game)
        ws = f"ws://127.0.0.1:{port}/daide"
        bots = []
        for name in seats:
            bot = make_bot(name, rng.getrandbits(64))
            player = play_negotiating(bot, ws, nego, game_id) if bot.negotiates else play(bot, ws, game_id)
            bots.append(asyncio.create_task(player))
        page = f"{base}/#/game/{game_id}?as=player&name={game['reserved'][power]}"
        print(f"detente: you play {power}; your page: {page}", flush=True)
        if args.browser:
            with contextlib.suppress(Exception):
                webbrowser.open(page)
        await asyncio.gather(*bots)
        print("detente: the game is over", flush=True)
        return 0
    finally:
        stop.set()
        await asyncio.gather(game_task, nego_task, return_exceptions=True)


async def _started(ready: asyncio.Future[int], task: asyncio.Task[None]) -> int:
    """The port a server listens on, or its error if it failed to start."""
    waiting: set[asyncio.Future[Any]] = {ready, task}
    await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    if not ready.done():
        await task  # raises what stopped it
    return ready.result()


def _create(base: str, token: str, body: dict[str, Any]) -> str:
    request = urllib.request.Request(f"{base}/api/games", data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.loads(response.read())["id"])
