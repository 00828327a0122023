"""GreedyBot in a game of a game server, negotiating on its negotiation server:

    python play_online.py ws://127.0.0.1:8700/daide ws://127.0.0.1:8701/nego [GAME]
"""

import asyncio
import sys

from greedy_bot import GreedyBot

from bots.nego_client import play_negotiating


async def main(server: str, nego: str, game: str | None = None):
    session = await play_negotiating(GreedyBot(), server, nego, game)  # to the game's end
    centres = session.position.center_counts.get(session.power, 0)
    print(f"{session.power} ends with {centres} centres; the game ended with {session.result}")
    return session


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
