"""Attacks on identity, against a real game server on loopback: what a stranger can learn of
a seat and take with it. Each attack is bounded in count and time."""

from __future__ import annotations

import json
from pathlib import Path

from tests.server.ws_helpers import TOKEN, DaideClient, http, running_server

SECRET = "k3pt-for-the-person-only"


async def test_the_lobby_says_which_powers_are_kept_but_never_for_whom(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        status, created = await http(
            "POST", f"{server.http}/api/games", {"name": "kept", "reserved": {"FRANCE": SECRET}}, TOKEN
        )
        assert status == 201
        game = created["id"]
        status, listing = await http("GET", f"{server.http}/api/games")
        assert status == 200 and SECRET not in json.dumps(listing)
        status, info = await http("GET", f"{server.http}/api/games/{game}")
        assert status == 200 and info["settings"]["reserved"] == {"FRANCE": ""} and SECRET not in json.dumps(info)

        # a stranger who joins with any name the lobby shows (or none) is dealt another power
        strangers = []
        for name in ("", "you", "FRANCE"):
            client = await DaideClient.open(f"{server.ws}?game={game}")
            await client.join(name or "stranger")
            strangers.append(client)
        person = await DaideClient.open(f"{server.ws}?game={game}")
        await person.join(SECRET)
        others = [await DaideClient.open(f"{server.ws}?game={game}") for _ in range(3)]
        for client in others:
            await client.join()
        for client in [*strangers, *others, person]:
            await client.hello()
        assert person.power == "FRA" and all(c.power != "FRA" for c in [*strangers, *others])
        for client in [*strangers, *others, person]:
            await client.close()
