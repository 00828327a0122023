"""The DAIDE binary TCP listener end to end: a real server on loopback, real TCP clients."""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path

import pytest

from protocol.daide.framing import (
    CONNECTION_CLOSED,
    Connection,
    DiplomacyMessage,
    ErrorCode,
    ErrorMessage,
    FinalMessage,
    FrameDecoder,
    InitialMessage,
    Message,
    RepresentationMessage,
    Role,
    Sentinel,
    encode,
)
from protocol.daide.messages import Hlo
from protocol.daide.parser import parse
from tests.server.ws_helpers import TIMEOUT, BufferedClient, DaideClient, Running, http, running_server


class TcpClient(BufferedClient):
    """A DAIDE client over TCP: DMs, as text."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__()
        self.reader, self.writer = reader, writer
        self.framing = Connection(Role.CLIENT)

    @classmethod
    async def open(cls, port: int, handshake: bool = True, standard: bool = True) -> TcpClient:
        """Connected; with ``handshake``, past the IM and the server's RM (empty, the standard
        representation, unless not ``standard``: a variant's own, in force from then on)."""
        client = cls(*await asyncio.open_connection("127.0.0.1", port))
        if handshake:
            client.writer.write(client.framing.send(InitialMessage()))
            rm = await client.next_message()
            assert isinstance(rm, RepresentationMessage) and (rm == RepresentationMessage()) == standard, rm
        return client

    async def next_message(self, timeout: float = TIMEOUT) -> Message | Sentinel:
        async with asyncio.timeout(timeout):
            while True:
                event = self.framing.next_event()
                if event is not Sentinel.NEED_DATA:
                    return event
                self.framing.receive_data(await self.reader.read(65536))

    async def send(self, text: str) -> None:
        self.writer.write(self.framing.send(DiplomacyMessage.from_text(text, self.framing.representation)))
        await self.writer.drain()

    async def receive_text(self) -> str:
        message = await self.next_message()
        assert isinstance(message, DiplomacyMessage), message
        return message.to_text(self.framing.representation)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()


async def raw(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


async def until_closed(reader: asyncio.StreamReader, timeout: float = TIMEOUT) -> list[Message]:
    """Every message the server sends until it closes the connection (which must happen in time)."""
    decoder = FrameDecoder()
    out: list[Message] = []
    async with asyncio.timeout(timeout):
        while True:
            try:
                data = await reader.read(65536)
            except ConnectionError:
                data = b""
            decoder.receive_data(data)
            while not isinstance(event := decoder.next_event(), Sentinel):
                out.append(event)
            if not data:
                return out


async def healthy(running: Running) -> None:
    """The listener still serves: a fresh client joins the open game."""
    client = await TcpClient.open(running.daide_port)
    await client.send("NME ('after') ('1')")
    assert (await client.expect("YES")).startswith("YES (NME")
    await client.expect("MAP")
    await client.close()


async def connections(running: Running) -> int:
    status, body = await http("GET", f"{running.http}/healthz")
    assert status == 200
    return int(body["connections"])


async def test_im_rm_then_nme_gets_yes_and_map(server: Running) -> None:
    client = await TcpClient.open(server.daide_port)
    assert client.framing.representation.name(0x4100) == "AUS"  # the empty RM: the standard map
    await client.send("NME ('bot') ('1')")
    assert await client.expect("YES") == "YES (NME ('bot') ('1'))"
    assert (await client.expect("MAP")).startswith("MAP")
    await client.close()
    status, body = await http("GET", f"{server.http}/api/config")
    assert status == 200 and body["daide_port"] == server.daide_port


async def test_mixed_game_of_websocket_and_tcp_clients(server: Running) -> None:
    ws_clients = [await DaideClient.open(server.ws) for _ in range(6)]
    for i, ws in enumerate(ws_clients):
        await ws.join(f"ws{i}")
    tcp = await TcpClient.open(server.daide_port)
    await tcp.send("NME ('tcp') ('1')")
    assert (await tcp.expect("YES")).startswith("YES (NME")
    await tcp.expect("MAP")
    await tcp.send("YES (MAP ('standard'))")
    for ws in ws_clients:
        await ws.hello()
    hlo = parse(await tcp.expect("HLO"))
    assert isinstance(hlo, Hlo)
    tcp.power = hlo.power
    powers = sorted([ws.power or "" for ws in ws_clients] + [hlo.power or ""])
    assert powers == ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]
    for ws in ws_clients:
        assert (await ws.expect("NOW")).startswith("NOW (SPR 1901)")
    now = await tcp.expect("NOW")
    assert now.startswith("NOW (SPR 1901)")
    # the TCP client holds its units: one THX (MBV) per order
    helper = DaideClient(None)
    helper.power = tcp.power
    sub, count = helper.holds(now)
    await tcp.send(sub)
    for _ in range(count):
        assert (await tcp.expect("THX")).endswith("(MBV)")
    for ws in ws_clients:
        await ws.close()
    await tcp.close()


async def test_a_dm_before_the_im_gets_em_not_im_and_is_closed(server: Running) -> None:
    reader, writer = await raw(server.daide_port)
    writer.write(encode(DiplomacyMessage.from_text("NME ('bot') ('1')")))
    assert await until_closed(reader) == [ErrorMessage(ErrorCode.NOT_IM)]
    writer.close()
    await healthy(server)


@pytest.mark.parametrize(
    ("after_im", "data", "code"),
    [
        (False, bytes.fromhex("07 00 00 00"), ErrorCode.MESSAGE_TYPE),
        (True, bytes.fromhex("09 00 00 02 00 00"), ErrorCode.MESSAGE_TYPE),
        (True, bytes.fromhex("02 00 00 03 48 04 00"), ErrorCode.LENGTH),
        (False, bytes.fromhex("00 00 04 00 01 00 10 da"), ErrorCode.ENDIAN),
        (False, bytes.fromhex("00 00 00 04 00 01 be ef"), ErrorCode.MAGIC),
        (False, bytes.fromhex("00 00 00 04 00 07 da 10"), ErrorCode.VERSION),
        (True, encode(InitialMessage()), ErrorCode.DUPLICATE_IM),
        (True, encode(RepresentationMessage()), ErrorCode.CLIENT_RM),
    ],
)
async def test_bad_headers_get_the_em_with_their_code(server: Running, after_im: bool, data: bytes, code: int) -> None:
    reader, writer = await raw(server.daide_port)
    if after_im:
        writer.write(encode(InitialMessage()))
        # the (empty) RM first, so that the bad message comes after it
        assert await asyncio.wait_for(reader.readexactly(4), TIMEOUT) == encode(RepresentationMessage())
    writer.write(data)
    assert await until_closed(reader) == [ErrorMessage(code)]
    writer.close()


async def test_an_nme_right_behind_the_im_is_taken_as_aiclient_bots_send_it(server: Running) -> None:
    """The RM goes out as soon as the IM is decoded: an NME in the same write comes after it."""
    reader, writer = await raw(server.daide_port)
    writer.write(encode(InitialMessage()) + encode(DiplomacyMessage.from_text("NME ('bot') ('1')")))
    decoder, got = FrameDecoder(), []
    async with asyncio.timeout(TIMEOUT):
        while len(got) < 3:
            decoder.receive_data(await reader.read(65536))
            got += list(decoder)
    assert got[0] == RepresentationMessage()
    assert [m.to_text()[:3] for m in got[1:3] if isinstance(m, DiplomacyMessage)] == ["YES", "MAP"]
    writer.close()


async def test_the_im_timer_closes_a_silent_client(tmp_path: Path) -> None:
    async with running_server(tmp_path, im_timeout=0.2) as r:
        reader, writer = await raw(r.daide_port)
        assert await until_closed(reader, timeout=5) == [ErrorMessage(ErrorCode.TIMEOUT)]
        writer.close()
        # a client that sent part of an IM is closed too, without the EM (it did send data)
        reader, writer = await raw(r.daide_port)
        writer.write(b"\x00\x00")
        assert await until_closed(reader, timeout=5) == []
        writer.close()
        # one that is quick enough is served
        await healthy(r)


async def test_fm_closes_cleanly_and_releases_the_connection(server: Running) -> None:
    before = await connections(server)
    client = await TcpClient.open(server.daide_port)
    await client.send("NME ('bot') ('1')")
    await client.expect("MAP")
    assert await connections(server) == before + 1
    client.writer.write(client.framing.send(FinalMessage()))
    assert [m for m in await until_closed(client.reader) if not isinstance(m, DiplomacyMessage)] == []
    await client.close()
    async with asyncio.timeout(TIMEOUT):
        while await connections(server) != before:
            await asyncio.sleep(0.02)
    await healthy(server)


async def test_random_bytes_never_crash_the_server(server: Running) -> None:
    rng = random.Random(20240601)
    for i in range(40):
        reader, writer = await raw(server.daide_port)
        prefix = encode(InitialMessage()) if i % 2 else b""
        writer.write(prefix + rng.randbytes(rng.randrange(1, 300)))
        writer.write_eof()
        messages = await until_closed(reader)
        assert all(isinstance(m, RepresentationMessage | ErrorMessage | DiplomacyMessage) for m in messages)
        writer.close()
    await healthy(server)


async def test_the_server_sends_fm_when_it_stops(tmp_path: Path) -> None:
    async with running_server(tmp_path) as r:
        client = await TcpClient.open(r.daide_port)
        await client.send("NME ('bot') ('1')")
        await client.expect("MAP")
    messages = await until_closed(client.reader)
    assert messages[-1:] == [FinalMessage()]
    # what came in the read with the MAP (the server writes what is queued together) is DMs only
    while isinstance(event := client.framing.next_event(), DiplomacyMessage):
        pass
    assert event in (Sentinel.NEED_DATA, CONNECTION_CLOSED)
    await client.close()


async def test_a_tcp_client_that_reads_nothing_harms_no_one(tmp_path: Path) -> None:
    """A client asks for the map (2 KB an answer) 2,000 times and reads nothing: a second client
    is answered at once throughout, and the server still answers it after. (The pump writes what
    is queued together and waits on a socket only past its high-water mark.) Budget: about 2 s."""
    async with running_server(tmp_path) as r:
        hog = await TcpClient.open(r.daide_port)
        other = await TcpClient.open(r.daide_port)
        request = hog.framing.send(DiplomacyMessage.from_text("MDF"))
        for _ in range(40):  # bounded: 40 rounds of 50 requests
            hog.writer.write(request * 50)
            await asyncio.wait_for(hog.writer.drain(), TIMEOUT)
            await other.send("MDF")
            assert (await other.receive_text()).startswith("MDF")
        await other.send("NME ('other') ('1')")
        assert (await other.receive_text()).startswith("YES (NME")
        await other.close()
        await hog.close()
