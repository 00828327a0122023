"""The server's side of its own bots: which seats they are asked to play, and games against them.

The game server runs no bot itself (its modules never import the bot kit): whoever starts
it may hand the service a :class:`House`, which does (``detente serve`` and ``detente play``
hand it :class:`detente.house.BotHouse`). After every step of a game, :meth:`BotSeats.call`
asks the house to play the seats the game wants played (:mod:`referee.game.house`), each
once until it is seated; the house seats each bot with :meth:`BotSeats.seat`, which gives it
a connection of the server's own, as trusted as the process.

Games against bots (``POST /api/games/against-bots``, the page's "Play against bots") are
open to anyone, so they are bounded: at most :attr:`BotSeats.MAX_GAMES` unfinished at once
in the server, :attr:`BotSeats.PER_NETWORK` for one network (a /24, a /64). When the server
is at its bound, the one whose player has been away longest, if for more than
:attr:`BotSeats.IDLE` seconds (:attr:`BotSeats.UNJOINED` for one nobody ever joined), is
cancelled to make room. Their ids begin
with :data:`BOT_GAME_PREFIX`, so a restart counts them again (the networks that made them
are not kept: after a restart only the server's bound counts them).
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING, Protocol

import structlog

from engine.maps import Map, variant_map
from referee.networks import network_of
from server.api_models import AgainstBots, GameCreate

if TYPE_CHECKING:
    from server.service import Connection, Game, GameService

__all__ = ["BOT_GAME_PREFIX", "BotSeats", "House", "TooManyBotGames"]

BOT_GAME_PREFIX = "b"
MAX_BOT_GAMES = 100
BOT_GAMES_PER_NETWORK = 3
BOT_GAME_IDLE = 3600.0
NO_HOUSE = "this server plays no bots"
"""Seconds a game against bots whose player is away may be cancelled after, to make room."""

log = structlog.get_logger("detente.server")


class House(Protocol):
    """What runs the server's bots (see the module)."""

    default_bot: str
    """The bot a game against bots gets when its player names none."""
    bots: tuple[str, ...]
    """The bots it plays, as a person picks them (seat specs)."""

    def check(self, spec: str, board: Map) -> str | None:
        """Why ``spec`` cannot be played here on ``board``, in one line; None if it can."""

    def play(self, game_id: str, power: str, bot: str) -> None:
        """Start playing ``power`` of ``game_id`` with ``bot`` (it seats itself with :meth:`BotSeats.seat`)."""

    async def close(self) -> None:
        """Stop every bot: the server is stopping."""


class TooManyBotGames(Exception):
    """No room for another game against bots, for this network or in the server (one line)."""


class BotSeats:
    """The seats the service asks its house to play, and the games against bots.

    The bounds are class attributes (a server, a test or a benchmark may set them on an instance).
    """

    MAX_GAMES = 100
    """Games against bots unfinished at once in the server."""
    PER_NETWORK = 3
    """Games against bots unfinished at once made from one network."""
    IDLE = 3600.0
    """Seconds a game against bots must have been without its player before it may be cancelled for room."""
    UNJOINED = 60.0
    """The same for a game its player never joined (the page joins at once): a crowd that asks for
    games and never plays them holds no room for long."""

    def __init__(self, service: GameService, house: House | None = None) -> None:
        self.service = service
        self.house = house
        self._calling: set[tuple[str, str]] = set()  # (game, power) asked of the house, not seated yet
        self._networks: dict[str, str | None] = {}  # game against bots -> the network that made it
        self.stopped = False  # the server is stopping: no bot is seated any more
        self._making = asyncio.Lock()  # one game against bots made at a time: the bounds hold under a crowd

    def refuse(self, create: GameCreate) -> str | None:
        """Why a game of these settings cannot be played here (a bot no house plays), or None."""
        specs = [*create.bots.values(), *(s for s in (create.stand_in, create.fill_with) if s is not None)]
        if specs and self.house is None:
            return f"{NO_HOUSE}: bots, stand_in and fill_with must be left out"
        for spec in specs:
            assert self.house is not None
            why = self.house.check(spec, variant_map(create.map))
            if why is not None:
                return why
        return None

    def call(self, game: Game) -> None:
        """Ask the house to play each seat ``game`` wants played that is not asked already."""
        if self.house is None or self.stopped or game.finished or game.stale:
            return
        for power, bot in game.gm.house_wanted():
            key = (game.id, power)
            if key not in self._calling:
                self._calling.add(key)
                self.house.play(game.id, power, bot)

    async def seat(self, game_id: str, power: str, bot: str) -> Connection | None:
        """A connection of the server's own playing ``power`` of ``game_id`` with ``bot``, if the
        game still wants it (None otherwise, or if the step could not be stored)."""
        service = self.service
        self._calling.discard((game_id, power))
        game = service.games.get(game_id)
        if game is None or game.finished:
            return None
        conn = service.connect(game_id)
        async with game.lock:
            step = service.lobby.house(conn.id, game_id, power, bot, service.clock())
            stored = await service.commit(game, step)
        if not stored or conn.closed or service.lobby.power_of(conn.id) != power:
            await service.disconnect(conn)
            return None
        log.info("bot seated", game=game_id, power=power, bot=bot, conn=conn.id)
        return conn

    # --- games against bots -------------------------------------------------------------------

    async def against_bots(self, request: AgainstBots, address: str | None) -> tuple[Game, str, str]:
        """A new game on ``request.map`` in which the person keeps ``request.power`` (or one drawn)
        and the server's bots play the other powers: the game, the power and the name that takes its seat (``NME``).
        Raises :class:`TooManyBotGames` or ``ValueError`` (a bot no house plays), each in one line."""
        service = self.service
        if self.house is None:
            raise ValueError(NO_HOUSE)
        bot = request.bot or self.house.default_bot
        network = network_of(address)
        board = variant_map(request.map)
        power = request.power or service.rng.choice(board.powers)
        secret = secrets.token_urlsafe(16)
        create = GameCreate(
            name=request.name or "against bots",
            map=board.name,
            deadlines=None,  # nobody else waits: each phase waits for the person
            year_limit=request.year_limit,
            reserved={power: secret},
            bots={p: bot for p in board.powers if p != power},
        )
        why = self.refuse(create)  # a bad request is told so, whether or not there is room
        if why is not None:
            raise ValueError(why)
        async with self._making:
            await self._make_room(network)
            game = await service.create_game(create, BOT_GAME_PREFIX)
            self._networks[game.id] = network
        log.info("game against bots", game=game.id, power=power, bot=bot)
        return game, power, secret

    def _bot_games(self) -> list[Game]:
        return [g for g in self.service.games.values() if g.id.startswith(BOT_GAME_PREFIX) and not g.finished]

    async def _make_room(self, network: str | None) -> None:
        games = self._bot_games()
        mine = [g for g in games if network is not None and self._networks.get(g.id) == network]
        if len(mine) >= self.PER_NETWORK:
            raise TooManyBotGames(
                f"at most {self.PER_NETWORK} games against bots at once from one network: finish one first"
            )
        if len(games) < self.MAX_GAMES:
            return
        now = self.service.clock()
        idle = []
        for game in games:
            since = game.gm.people_away_since()
            joined = any(seat.taken and seat.bot is None for seat in game.gm.view().seats)
            if since is not None and now - since > (self.IDLE if joined else self.UNJOINED):
                idle.append((since, game))
        if not idle:
            raise TooManyBotGames("the server plays as many games against bots as it can: try again later")
        await self.service.cancel(min(idle, key=lambda pair: pair[0])[1])

    def cancelled(self, game_id: str) -> None:
        self._networks.pop(game_id, None)
