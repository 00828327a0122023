"""``detente replay FILE``: any game file in the web page, read-only.

FILE is a détente game (``games/<n>.json`` of ``detente run``), a MILA saved game or a
Cicero/dipcc game (see :mod:`formats`). A game server starts on loopback with its store in
a temporary directory and no game for strangers; the game is imported through the admin API
(``POST /api/games/import``, with a token nobody else sees) as a finished game, and the page
that shows it is printed (and opened where there is a browser): the history slider, each
phase's orders and results, the messages. Nobody can join or order: the game is over. Ctrl-C
stops; nothing is kept.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import webbrowser
from typing import Any

from detente.convert_command import InputError, read_input
from detente.errors import add_json_option, fail
from formats import FormatError, read


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the game: detente, MILA or Cicero/dipcc JSON (- for standard input)")
    parser.add_argument("--port", type=int, default=8700, help="the page's HTTP port (8700; 0 picks a free one)")
    parser.add_argument("--no-browser", dest="browser", action="store_false", help="print the page, do not open it")
    add_json_option(parser)


def run(args: argparse.Namespace) -> int:
    try:
        data = read_input(args.file)
        read(data)  # refused here, in one line, rather than by the server
    except InputError as error:
        return error.report("replay", args.json_errors)
    except (FormatError, KeyError, TypeError, ValueError) as error:
        return fail("replay", f"{args.file}: not a game this reads: {error}".splitlines()[0], as_json=args.json_errors)
    try:
        return asyncio.run(_serve(data, args))
    except KeyboardInterrupt:
        return 0
    except OSError as error:
        return fail("replay", f"cannot serve on port {args.port}: {error.strerror}", as_json=args.json_errors)


async def _serve(data: Any, args: argparse.Namespace) -> int:
    from detente.play import create_game
    from server.main import serve
    from server.settings import load_settings
    from server.web import configure_logging

    configure_logging(json_logs=True, level=logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="detente-replay-") as tmp:
        settings, _ = load_settings(
            {"port": args.port, "daide_port": 0, "data_dir": tmp, "max_open_games": 0, "deadlines": "none"}, {}
        )
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[int] = loop.create_future()
        stop = asyncio.Event()
        server = asyncio.create_task(serve(settings, lambda host, port: ready.set_result(port), stop))
        await asyncio.wait({ready, server}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            await server  # raises why it could not start
            return 1
        base = f"http://127.0.0.1:{ready.result()}"
        game_id = await asyncio.to_thread(
            create_game, base, settings.admin_token, data, "/api/games/import?name=replay&public=1", 120
        )
        page = f"{base}/#/game/{game_id}?as=observer"
        print(f"detente: {args.file} is game {game_id}, read-only: {page}", flush=True)
        print("detente: Ctrl-C stops", flush=True)
        if args.browser:
            webbrowser.open(page)
        await server
    return 0
