"""The negotiation server's configuration: ``detente nego``'s options and the environment.

The secret it shares with the game server and its own admin token come, in this order,
from the command line, from ``DETENTE_SECRET`` / ``DETENTE_ADMIN_TOKEN``, from the files
kept in the data directory (the game server's, when both use one directory, as
``detente play`` does), or are generated and kept there.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     settings, _ = load_nego_settings({"game_server": "http://127.0.0.1:8700", "data_dir": tmp, "secret": "s"}, {})
>>> settings.port, settings.db.name
(8701, 'nego.sqlite3')
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from server.settings import DEFAULT_DATA_DIR, LIMIT_OPTIONS, RETENTION_OPTIONS, LimitSettings, RetentionSettings, settle
from server.web import page_origins

__all__ = ["NegoSettings", "load_nego_settings"]

DB_NAME = "nego.sqlite3"


class NegoSettings(RetentionSettings, LimitSettings):
    """Everything ``detente nego`` needs to run; build it with :func:`load_nego_settings`.
    The limits (:class:`server.settings.LimitSettings`) are those of the game server."""

    game_server: str = Field(pattern=r"^(https?|wss?)://", description="the game server's URL")
    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(default=8701, ge=0, le=65535, description="the websocket port; 0 picks a free one")
    data_dir: Path = DEFAULT_DATA_DIR
    db: Path = DEFAULT_DATA_DIR / DB_NAME
    secret: str = Field(min_length=1, repr=False)
    admin_token: str = Field(min_length=1, repr=False)
    say_rate: float = Field(
        default=20.0, gt=0, le=100_000, description="messages a second one /nego connection may say (burst 50)"
    )

    def extra_origins(self) -> frozenset[str]:
        """The game page's origin (the game server's URL): its chat opens ``/nego`` from there."""
        return page_origins(self.game_server)


_OPTIONS = {
    "game_server": "--game-server",
    "host": "--host",
    "port": "--port",
    "db": "--db",
    "data_dir": "--data-dir",
    "secret": "--secret",
    "admin_token": "--admin-token",
    "say_rate": "--say-rate",
    **LIMIT_OPTIONS,
    **RETENTION_OPTIONS,
}


def load_nego_settings(cli_values: Mapping[str, Any], env: Mapping[str, str]) -> tuple[NegoSettings, list[str]]:
    """The settings from command-line values (``None``: not given) and the environment, with
    messages for the operator (credentials generated); :class:`SettingsError` names a bad option."""
    values = {k: v for k, v in cli_values.items() if v is not None}
    return settle(NegoSettings, values, env, DB_NAME, _OPTIONS)
