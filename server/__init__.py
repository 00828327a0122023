"""The I/O of the game and negotiation servers: asyncio services, Starlette apps, SQLite,
DAIDE TCP and the page. A game's logic is in :mod:`referee`."""
