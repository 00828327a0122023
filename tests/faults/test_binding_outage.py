"""Binding and relays when the game server is away, on real servers over loopback (issue 15).

The negotiation server reaches the game server through :class:`FeedCut`, a TCP relay the
test cuts and restores, so that what happens while they are apart is decided by the test,
not by timing: a deal confirmed meanwhile is ``pending`` (never ``confirmed``) until the game
server holds its binding, then ``confirmed``, after the game server restarted on the same
store too; L relayed as DAIDE press meanwhile arrives as ``FRM`` once the feed is back; a
phase that ends first leaves the deal ``unbound`` and the relay ``undelivered``; and a
negotiation server killed without a shutdown sends its outstanding requests after its
restart. Every wait is for an event, bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tests.server.nego_helpers import SECRET, NegoClient, Pair, negotiators, press_game, running_nego
from tests.server.test_app import play_holds
from tests.server.ws_helpers import TIMEOUT, TOKEN, DaideClient, Running, http, running_server

ROOT = Path(__file__).resolve().parents[2]
#: ENG's fleet in London into the North Sea, as FRA asks: only ENG is committed, so its
#: acceptance confirms the deal (docs/negotiation.md: a request; ENG's own proposal would
#: only offer a promise).
BOUND = "Commit(eng, fra, Do(mto(Unit(eng, Region(lon, coast)), Region(nth, sea))))"
PEACE_GER = "propose(eng, ger, Agree([eng ger], pce([eng ger])))"  # GER reads DAIDE only: relayed
FRM_GER = "FRM (ENG) (GER) (PRP (PCE (ENG GER)))"


class FeedCut:
    """A TCP relay from ``port`` to the game server's port ``upstream``, which a test can cut
    (every connection through it closed, new ones refused) and restore (on the same port,
    perhaps to another ``upstream``: a restarted game server)."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    async def restore(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.transport.abort()  # both ends see the connection drop, as with a dead peer
        self._writers.clear()
        async with asyncio.timeout(TIMEOUT):
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._server = None

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            writer.transport.abort()
            self._tasks.discard(task)
            return
        self._writers |= {writer, up_writer}
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            self._tasks.discard(task)
            for w in (writer, up_writer):
                self._writers.discard(w)
                w.transport.abort()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, ConnectionError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.transport.abort()


@contextlib.asynccontextmanager
async def feed_cut(upstream: int) -> AsyncIterator[FeedCut]:
    cut = FeedCut(upstream)
    await cut.restore()
    try:
        yield cut
    finally:
        if cut._server is not None:
            await cut.cut()


async def following(nego_port: int, wanted: bool) -> None:
    """Until the negotiation server says it follows the game server (or, ``wanted`` False, not)."""
    async with asyncio.timeout(TIMEOUT):
        while (await http("GET", f"http://127.0.0.1:{nego_port}/healthz"))[1]["following"] is not wanted:
            await asyncio.sleep(0.02)


async def nego_records(nego_port: int, game: str) -> list[dict[str, Any]]:
    status, log = await http("GET", f"http://127.0.0.1:{nego_port}/api/games/{game}/log", token=TOKEN)
    assert status == 200
    return list(log["records"])


async def rejoin(server: Running, players: dict[str, DaideClient]) -> dict[str, DaideClient]:
    """Each player back on a restarted game server, by ``IAM`` with its passcode."""
    back = {}
    for power, old in players.items():
        client = await DaideClient.open(server.ws)
        client.power, client.passcode, client.session = old.power, old.passcode, old.session
        await client.send(f"IAM ({power}) ({old.passcode})")
        assert (await client.expect("YES")).startswith("YES (IAM")
        back[power] = client
    return back


async def hold_everything(players: dict[str, DaideClient], ask: bool = False) -> None:
    """Every player holds every unit, and the phase is adjudicated; ``ask``: the players
    rejoined, and ask for the position (``NOW``) rather than read the one sent at the start."""
    clients = list(players.values())
    now_texts = []
    for client in clients:
        if ask:
            await client.send("NOW")
        now_texts.append(await client.expect("NOW"))
    await play_holds(clients, now_texts)


async def england_after_spring(server: Running, game: str) -> list[str]:
    status, history = await http("GET", f"{server.http}/api/games/{game}/history")
    assert status == 200 and history["phases"][0]["phase"] == "S1901M"
    return list(history["phases"][0]["position"]["units"]["ENGLAND"])


async def pending_while_cut(eng: NegoClient, fra: NegoClient) -> None:
    """ENG makes the binding deal and the relayed proposal while the feed is cut: pending."""
    assert (await fra.say(f"propose(fra, eng, {BOUND})"))["type"] == "ack"
    assert (await eng.say(f"accept(eng, fra, {BOUND})"))["type"] == "ack"
    for client in (eng, fra):
        pending = await client.expect("pending")
        assert pending["participants"] == ["ENG", "FRA"] and pending["phase"] == "S1901M"
    assert (await eng.say(PEACE_GER))["type"] == "ack"
    assert not [f for f in await eng.drain() + await fra.drain() if f["type"] == "confirmed"]


async def test_a_deal_made_while_the_game_server_is_down_is_pending_then_bound_after_its_restart(
    tmp_path: Path,
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        game_server = contextlib.AsyncExitStack()
        await stack.enter_async_context(game_server)  # closed last, if still open
        server = await game_server.enter_async_context(running_server(tmp_path))
        cut = await stack.enter_async_context(feed_cut(server.port))
        nego_port = await stack.enter_async_context(running_nego(Running(cut.port, 0, server.db), tmp_path / "n.db"))
        pair = Pair(server, nego_port)
        game, players = await press_game(pair, binding=True, press_level=10)
        nego = await negotiators(pair, game, players, "ENG", "FRA")
        eng, fra = nego["ENG"], nego["FRA"]

        # the game server goes down, and the feed with it
        await cut.cut()
        await following(nego_port, False)
        await game_server.aclose()
        await pending_while_cut(eng, fra)

        # it comes back on the same store; the players rejoin; then the feed
        server = await game_server.enter_async_context(running_server(tmp_path))
        players = await rejoin(server, players)
        cut.upstream = server.port
        await cut.restore()
        confirmed = await eng.expect("confirmed")  # only now: the game server holds the binding
        assert confirmed["participants"] == ["ENG", "FRA"] and confirmed["phase"] == "S1901M"
        await fra.expect("confirmed")
        assert await players["GER"].expect("FRM (ENG)") == FRM_GER  # the relay made during the outage
        await hold_everything(players, ask=True)
        assert "F NTH" in await england_after_spring(server, game)  # the committed order replaced the hold
        done = {r["id"]: r["ok"] for r in await nego_records(nego_port, game) if r["kind"] == "request_done"}
        assert done == {"bind:2": True, "relay:3": True}
        for client in (eng, fra, *players.values()):
            await client.close()


async def test_a_phase_that_ends_while_the_feed_is_cut_leaves_the_deal_unbound_and_the_relay_undelivered(
    tmp_path: Path,
) -> None:
    async with (
        running_server(tmp_path) as server,
        feed_cut(server.port) as cut,
        running_nego(Running(cut.port, 0, server.db), tmp_path / "n.db") as nego_port,
    ):
        pair = Pair(server, nego_port)
        game, players = await press_game(pair, binding=True, press_level=10)
        nego = await negotiators(pair, game, players, "ENG", "FRA")
        eng, fra = nego["ENG"], nego["FRA"]
        await cut.cut()
        await following(nego_port, False)
        await pending_while_cut(eng, fra)
        await hold_everything(players)  # the game goes on without the binding

        await cut.restore()
        for client in (eng, fra):
            unbound = await client.expect("unbound")
            assert unbound["participants"] == ["ENG", "FRA"] and unbound["phase"] == "S1901M"
            assert "could not be made binding" in unbound["reason"]
        undelivered = await eng.expect("undelivered")
        assert (undelivered["seq"], undelivered["to"], undelivered["phase"]) == (3, ["GER"], "S1901M")
        await eng.expect("phase", phase="F1901M")
        assert not [f for f in await eng.drain() + await fra.drain() if f["type"] == "confirmed"]
        assert "F LON" in await england_after_spring(server, game)  # it held: nothing was bound
        for client in (eng, fra, *players.values()):
            await client.close()


async def test_outstanding_requests_survive_a_killed_negotiation_server(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, feed_cut(server.port) as cut:
        db = tmp_path / "n.db"
        async with nego_process(cut, db) as nego_port:
            pair = Pair(server, nego_port)
            game, players = await press_game(pair, binding=True, press_level=10)
            nego = await negotiators(pair, game, players, "ENG", "FRA")
            await cut.cut()
            await following(nego_port, False)
            await pending_while_cut(nego["ENG"], nego["FRA"])
            # killed (SIGKILL) on leaving the block: no shutdown, what it stored is all there is
        await cut.restore()
        async with nego_process(cut, db) as nego_port:
            # the restarted server sends the binding, then the relay, on one connection, in order:
            # the FRM reaching GER means the binding was taken before it
            assert await players["GER"].expect("FRM (ENG)") == FRM_GER
            async with asyncio.timeout(TIMEOUT):
                while True:
                    records = await nego_records(nego_port, game)
                    done = {r["id"]: r["ok"] for r in records if r["kind"] == "request_done"}
                    if len(done) == 2:
                        break
                    await asyncio.sleep(0.02)
            assert done == {"bind:2": True, "relay:3": True}
            await hold_everything(players)
            assert "F NTH" in await england_after_spring(server, game)
            for client in (*nego.values(), *players.values()):
                await client.close()


@contextlib.asynccontextmanager
async def nego_process(cut: FeedCut, db: Path) -> AsyncIterator[int]:
    """``detente nego`` in its own process, reaching the game server through ``cut``: its port
    once it listens (and follows, if the feed is up); SIGKILLed when the block ends."""
    command = [sys.executable, "-m", "detente", "nego", "--game-server", f"http://127.0.0.1:{cut.port}"]
    command += ["--port", "0", "--db", str(db), "--secret", SECRET, "--admin-token", TOKEN]
    process = await asyncio.create_subprocess_exec(
        *command, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    assert process.stdout is not None
    listening: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def read(stdout: asyncio.StreamReader) -> None:
        # read every line, so that the process never blocks on a full pipe
        while line := await stdout.readline():
            found = re.search(rb"listening on http://[\d.]+:(\d+)", line)
            if found and not listening.done():
                listening.set_result(int(found.group(1)))

    reader = asyncio.create_task(read(process.stdout))
    try:
        port = await asyncio.wait_for(listening, TIMEOUT)
        if cut._server is not None:
            await following(port, True)
        yield port
    finally:
        process.kill()
        await process.wait()
        await asyncio.gather(reader, return_exceptions=True)
