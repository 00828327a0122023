"""Connections capped by network as well as by address, on the three servers on loopback: the game
server's websockets, its DAIDE TCP port and the negotiation server. Every 127.0.0.0/8 address is
this machine's, so each client binds a chosen source address (``127.N.M.K``): the clients of one
/24 fill its cap and the next is refused as the per-address cap refuses (a 503 naming the
network, or, on DAIDE TCP, a close before any byte), while a client of another /24 gets in.
Each test waits for what the server does (an answer, a close, an RM), never for a delay."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.exceptions import InvalidStatus

from protocol.daide.framing import InitialMessage, RepresentationMessage
from server.settings import SettingsError, load_settings
from server.web import DEFAULT_LIMITS, AddressCounter, peer_keys
from tests.attacks.test_origin import game_server, nego_server, opens, refused_connection
from tests.server.test_daide_tcp import TcpClient
from tests.server.ws_helpers import TIMEOUT

NETWORK = "127.0.5"
"""The /24 that fills its cap."""
OTHER = "127.0.6.1"
"""A client of another /24."""


def host(n: int, network: str = NETWORK) -> str:
    return f"{network}.{n}"


async def refusal(url: str, local: str | None = None, **kwargs: Any) -> tuple[int, str]:
    """A websocket handshake (from ``local``) that must be refused: its status and body."""
    extra = {"local_addr": (local, 0)} if local else {}
    with pytest.raises(InvalidStatus) as refused:
        ws = await websockets.connect(url, open_timeout=TIMEOUT, **extra, **kwargs)
        await ws.close()  # reached only when the server let it in: the raises fails the test
    response = refused.value.response
    return response.status_code, response.body.decode() if response.body else ""


@contextlib.asynccontextmanager
async def holding(url: str, locals_: list[str], **kwargs: Any) -> AsyncIterator[list[Any]]:
    """Websockets open from each of ``locals_`` for the block (``None``: 127.0.0.1)."""
    sockets: list[Any] = []
    try:
        for local in locals_:
            extra = {"local_addr": (local, 0)} if local else {}
            sockets.append(await websockets.connect(url, open_timeout=TIMEOUT, **extra, **kwargs))
        yield sockets
    finally:
        for ws in sockets:
            await ws.close()


async def daide_tcp(port: int, local: str) -> TcpClient:
    """A DAIDE TCP client from ``local`` through its IM: the server's RM shows it was let in."""
    client = TcpClient(*await asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0)))
    client.writer.write(client.framing.send(InitialMessage()))
    assert await client.next_message() == RepresentationMessage()
    return client


# --- the game server's websockets and HTTP --------------------------------------------------------


async def test_a_network_full_refuses_its_next_connection_while_another_network_gets_in(tmp_path: Path) -> None:
    caps = {"max_connections_per_address": 2, "max_connections_per_network": 3}
    async with game_server(tmp_path, **caps) as game, holding(game.ws, [host(1), host(1), host(2)]) as held:
        # the address's own cap still answers for the address
        status, body = await refusal(game.ws, host(1))
        assert status == 503 and "too many connections from this address" in body
        # another address of the full network: refused for the network, the same way
        status, body = await refusal(game.ws, host(3))
        assert status == 503 and "too many connections from this network" in body
        answer = await refused_connection(game.port, host(4))  # plain HTTP counts too: a JSON 503, closed
        assert answer.startswith(b"HTTP/1.1 503") and b'"too many connections from this network' in answer
        assert await opens(game.ws, local_addr=(OTHER, 0))
        assert await opens(game.ws)  # 127.0.0.1, in 127.0.0.0/24
        await held.pop().close()
        # the network has a place again once the server has seen the close (each try a round trip)
        async with asyncio.timeout(TIMEOUT):
            while not await opens(game.ws, local_addr=(host(3), 0)):
                pass


async def test_the_prefix_lengths_are_settings(tmp_path: Path) -> None:
    caps = {"max_connections_per_network": 2, "network_prefix_v4": 16}
    async with game_server(tmp_path, **caps) as game, holding(game.ws, ["127.5.1.1", "127.5.2.1"]):
        status, body = await refusal(game.ws, "127.5.3.1")  # another /24, the same /16
        assert status == 503 and "network" in body
        assert await opens(game.ws, local_addr=("127.6.1.1", 0))


async def test_behind_a_trusted_proxy_the_forwarded_clients_network_is_counted(tmp_path: Path) -> None:
    async with game_server(tmp_path, max_connections_per_network=2, trusted_proxy="127.0.0.1") as game:

        def through_proxy(client: str) -> dict[str, str]:
            return {"additional_headers": {"X-Forwarded-For": client}}

        v4 = ["203.0.113.9", "203.0.113.10"]
        v6 = ["2001:db8::1", "2001:db8::2"]
        # every connection comes from the proxy, 127.0.0.1: it is not counted, its clients are
        async with contextlib.AsyncExitStack() as stack:
            for client in [*v4, *v6]:
                await stack.enter_async_context(holding(game.ws, [None], **through_proxy(client)))
            for client in ("203.0.113.11", "::ffff:203.0.113.12", "2001:db8::ffff"):
                status, body = await refusal(game.ws, **through_proxy(client))
                assert status == 503 and "too many connections from this network" in body, client
            for client in ("198.51.100.1", "2001:db8:0:1::1"):  # another /24, another /64
                assert await opens(game.ws, **through_proxy(client))


# --- DAIDE TCP and the negotiation server ---------------------------------------------------------


async def test_daide_tcp_counts_networks_apart_from_the_websockets(tmp_path: Path) -> None:
    async with game_server(tmp_path, max_connections_per_network=2) as game, holding(game.ws, [host(1), host(2)]):
        # the websockets fill the network's cap on their side; the DAIDE port counts its own
        clients = [await daide_tcp(game.daide_port, host(i)) for i in (1, 2)]
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", game.daide_port, local_addr=(host(3), 0))
            async with asyncio.timeout(TIMEOUT):
                assert await reader.read() == b""  # closed at once, before a byte: as beyond the address's cap
            writer.close()
            clients.append(await daide_tcp(game.daide_port, OTHER))
        finally:
            for client in clients:
                await client.close()


async def test_the_negotiation_server_caps_networks_too(tmp_path: Path) -> None:
    async with game_server(tmp_path) as game, nego_server(game, tmp_path, max_connections_per_network=2) as nego:
        url = f"ws://127.0.0.1:{nego}/nego"
        async with holding(url, [host(1), host(2)]):
            status, body = await refusal(url, host(3))
            assert status == 503 and "too many connections from this network" in body
            assert await opens(url, local_addr=(OTHER, 0))


# --- the counter and the settings ---------------------------------------------------------------


def test_networks_are_the_v4_24_the_v6_64_and_mapped_addresses_are_v4() -> None:
    assert peer_keys("10.1.2.3", 24, 64) == ("10.1.2.3", "10.1.2.0/24")
    assert peer_keys("::ffff:10.1.2.3", 24, 64) == ("10.1.2.3", "10.1.2.0/24")
    assert peer_keys("2001:db8:1:2:3:4:5:6", 24, 64) == ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64")
    assert peer_keys("2001:db8:1:2:3:4:5:6", 24, 48)[1] == "2001:db8:1::/48"
    assert peer_keys("fe80::1%eth0", 24, 64)[1] == "fe80::/64"
    assert peer_keys("", 24, 64) == ("", "")  # no address: its own key, as the per-address cap counts it
    counter = AddressCounter(limit=None, network_limit=2)
    assert counter.admit("10.1.2.3") is None and counter.admit("::ffff:10.1.2.4") is None
    assert counter.admit("10.1.2.5") == "network" and counter.admit("10.1.3.5") is None
    counter.release("::ffff:10.1.2.3")  # a mapped address gives back the IPv4 place it took
    assert counter.admit("10.1.2.5") is None
    for address in ("10.1.2.4", "10.1.2.5", "10.1.3.5"):
        counter.release(address)
    assert counter.open == {} and counter.networks == {}  # nothing left behind once all are gone


def test_the_network_settings_have_defaults_options_and_bounds(tmp_path: Path) -> None:
    from server.main import add_serve_arguments
    from server.nego.main import add_nego_arguments
    from server.nego.settings import load_nego_settings

    base = {"data_dir": tmp_path, "secret": "s", "admin_token": "a"}
    limits = load_settings(base, {})[0].limits()
    assert (limits.max_connections_per_network, limits.network_prefix_v4, limits.network_prefix_v6) == (256, 24, 64)
    assert limits.max_connections_per_network == DEFAULT_LIMITS.max_connections_per_network
    given = {"max_connections_per_network": "9", "network_prefix_v4": "20", "network_prefix_v6": "56"}
    limits = load_settings({**base, **given}, {})[0].limits()
    assert (limits.max_connections_per_network, limits.network_prefix_v4, limits.network_prefix_v6) == (9, 20, 56)
    nego = load_nego_settings({**base, "game_server": "http://g:8700", **given}, {})[0].limits()
    assert nego.max_connections_per_network == 9
    for values, option in (
        ({"max_connections_per_network": 0}, "--max-connections-per-network"),
        ({"max_connections_per_network": "many"}, "--max-connections-per-network"),
        ({"network_prefix_v4": 33}, "--network-prefix-v4"),
        ({"network_prefix_v6": 129}, "--network-prefix-v6"),
    ):
        with pytest.raises(SettingsError, match=option):
            load_settings({**base, **values}, {})
    for add, required in ((add_serve_arguments, []), (add_nego_arguments, ["--game-server", "http://g:8700"])):
        parser = argparse.ArgumentParser()
        add(parser)
        args = parser.parse_args([*required, "--max-connections-per-network", "5", "--network-prefix-v6", "48"])
        assert (args.max_connections_per_network, args.network_prefix_v6, args.network_prefix_v4) == (5, 48, None)
