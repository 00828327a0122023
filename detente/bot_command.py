"""``detente bot NAME --server ws://HOST:8700/daide [--game ID] [--seed N]``: one bot, one game.

The bot joins the game (the open one, or ``--game ID``), plays it to its end over the
websocket, coming back with ``IAM`` if the connection drops, and prints how the game
ended. With ``--nego URL`` a negotiating bot (``randomnegotiator``) also negotiates on
that negotiation server (``ws://HOST:8701/nego``), as :mod:`bots.nego_client` says.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import websockets

from bots.nego_client import play_negotiating
from bots.registry import BOTS, UnknownBot, make_bot
from bots.session import BotSession
from bots.ws_client import ConnectionFailed, play
from detente import llm_options
from protocol.daide.messages import Slo

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``detente bot``."""
    parser.add_argument(
        "name",
        metavar="NAME",
        help=f"the bot: {', '.join(sorted(BOTS))}, a bot of your own FILE.py:Class, or a model seat"
        " llm:MODEL@URL, llm:PROFILE",
    )
    parser.add_argument("--server", required=True, help="the game server's DAIDE websocket, ws://HOST:8700/daide")
    parser.add_argument("--nego", help="the negotiation server's websocket, ws://HOST:8701/nego")
    parser.add_argument("--game", help="the game to join (default: the server's open game)")
    parser.add_argument("--seed", type=int, help="the seed of the bot's choices (default: unseeded)")
    llm_options.add_arguments(parser, log=True)


def run(args: argparse.Namespace) -> int:
    """Play; exit status 0 when the game ended, 1 when the server was lost or refused us, 2 for bad options."""
    try:
        llm = llm_options.options_from(args, Path("llm-logs"))
        bot = make_bot(args.name, args.seed, llm, game=args.game or "open")
    except (UnknownBot, ValueError) as error:  # ConfigError is a ValueError
        print(f"detente bot: {error}", file=sys.stderr)
        return 2
    if args.nego is not None and not bot.negotiates:
        print(f"detente bot: {args.name} does not negotiate; --nego is ignored", file=sys.stderr)
    try:
        if args.nego is not None and bot.negotiates:
            session = asyncio.run(play_negotiating(bot, args.server, args.nego, args.game))
        else:
            session = asyncio.run(play(bot, args.server, args.game))
    except (ConnectionFailed, websockets.InvalidStatus, websockets.InvalidURI) as error:
        print(f"detente bot: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 1
    print(outcome(session))
    return 0 if session.result is not None else 1


def outcome(session: BotSession) -> str:
    """One line on how the game ended for the session's power."""
    if session.refused is not None:
        return f"the server refused {session.refused}"
    if session.result is None:
        return "the server ended the game (OFF)"
    power = session.power or "?"
    position = session.position
    centres = position.center_counts.get(power, 0) if position is not None else 0
    ending = f"won alone by {session.result.power}" if isinstance(session.result, Slo) else "drawn"
    when = f" before {position.phase}" if position is not None else ""
    name = session.map.power_names.get(power, power)  # the full name, for people
    return f"{name} ({session.bot.name}): game {ending}{when}, {centres} centres"
