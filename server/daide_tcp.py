"""The DAIDE binary TCP listener: the framing of the client-server protocol document.

Bots written for AiServer and Parlance connect here. Each TCP connection gets a sans-I/O
:class:`protocol.daide.framing.Connection` (server role) and, once its IM has come, a
:class:`server.service.Connection` of the :class:`~server.service.GameService`, exactly as the
websocket endpoint ``/daide`` gets one: every DM is turned into text and handed to
:meth:`GameService.receive`; every text the service queues for the connection goes out as a DM.

- SO_KEEPALIVE is set on each accepted socket (section 2.2).
- The IM timer: a client that sends no data within ``im_timeout`` seconds gets EM 0x01 and is
  closed; one that sent some data but no complete IM by then is closed too.
- After the IM, the server sends an RM: empty (the standard powers and provinces, section 3.3)
  for the standard map; for a variant, the map's powers and provinces under their standard names,
  numbered again from 0 (a TCP client joins the open game, on the server's ``--map``), since
  AiClient's bots index their tables by the numbers and cannot hold two powers numbered 0 and 2.
- A protocol error by the client gets the EM with its code, then the connection is closed; an FM
  or EM from the client closes the connection; when the service closes the connection (``None``
  in its queue) the server sends an FM and closes.
- Reads are bounded (``READ_SIZE`` octets at a time, every complete message taken before the
  next read), DMs longer than ``MAX_MESSAGE_CHARS`` in text form drop the connection like an
  over-long websocket frame, and a client that does not read never stalls a game: the service's
  queue is bounded and a connection whose queue fills is dropped (then aborted here).
- Whatever happens, the service connection is released with :meth:`GameService.disconnect`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
from typing import Any

import structlog

from engine.maps import Map, variant_map
from protocol.daide.framing import (
    IM_TIMEOUT,
    Connection,
    ConnectionState,
    DaideProtocolError,
    DiplomacyMessage,
    ErrorCode,
    ErrorMessage,
    FinalMessage,
    InitialMessage,
    Message,
    RemoteProtocolError,
    RepresentationMessage,
    Role,
    Sentinel,
)
from protocol.daide.tokens import STANDARD, DaideTokenError, Representation, representation_for
from server.service import Connection as ServiceConnection
from server.service import GameService
from server.web import DEFAULT_LIMITS, AddressCounter

__all__ = ["MAX_MESSAGE_CHARS", "READ_SIZE", "DaideTcpListener"]

READ_SIZE = 16_384
"""The most octets read from a socket at a time (the decoder holds one partial message more)."""
MAX_MESSAGE_CHARS = 16_384
"""The longest DAIDE message, in text form, a TCP client may send (as for a websocket frame)."""
DROP_POLL = 0.1
"""How often a writer blocked on a client that does not read checks whether it was dropped."""
WRITE_HIGH_WATER = 64 * 1024
"""Octets a socket may hold unsent before the pump waits for it to drain (asyncio's own default
high-water mark): below it a write costs no wait."""
CLOSE_TIMEOUT = 5.0

log = structlog.get_logger("detente.server")


class DaideTcpListener:
    """An ``asyncio.start_server`` listener feeding ``service``.

    ``await bind()`` opens the socket (``port`` 0 picks a free one; :attr:`address` tells which),
    ``await start_serving()`` accepts connections, ``await close()`` stops accepting and ends
    every connection still open.
    """

    def __init__(
        self,
        service: GameService,
        host: str = "127.0.0.1",
        port: int = 16713,
        *,
        im_timeout: float = IM_TIMEOUT,
        read_size: int = READ_SIZE,
        max_connections: int | None = DEFAULT_LIMITS.max_connections,
        max_connections_per_address: int | None = DEFAULT_LIMITS.max_connections_per_address,
        max_connections_per_network: int | None = DEFAULT_LIMITS.max_connections_per_network,
        network_prefix_v4: int = DEFAULT_LIMITS.network_prefix_v4,
        network_prefix_v6: int = DEFAULT_LIMITS.network_prefix_v6,
        new_connections_per_network: float | None = DEFAULT_LIMITS.new_connections_per_network,
        new_connections: float | None = DEFAULT_LIMITS.new_connections,
    ) -> None:
        self.service = service
        self.host = host
        self.port = port
        self.im_timeout = im_timeout
        self.read_size = read_size
        self.max_connections = max_connections
        self.addresses = AddressCounter(
            max_connections_per_address,
            max_connections_per_network,
            network_prefix_v4,
            network_prefix_v6,
            new_connections_per_network,
            total_rate=new_connections,
            holds_seat=service.holds_seat,
        )
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def address(self) -> tuple[str, int]:
        """The host and port the listener is bound to."""
        if self._server is None or not self._server.sockets:
            raise RuntimeError("the DAIDE listener is not bound")
        host, port = self._server.sockets[0].getsockname()[:2]
        return host, port

    async def bind(self) -> None:
        self._server = await asyncio.start_server(
            self._accept, self.host, self.port, start_serving=False, limit=2 * self.read_size
        )

    async def start_serving(self) -> None:
        if self._server is None:
            await self.bind()
        assert self._server is not None
        await self._server.start_serving()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        handlers = set(self._handlers)
        if handlers:
            _, pending = await asyncio.wait(handlers, timeout=CLOSE_TIMEOUT)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), CLOSE_TIMEOUT)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection, unless there are ``max_connections`` already and none of them may be
        shed to make room (:meth:`GameService.shed`: observers first), or its address holds
        ``max_connections_per_address``, or its network ``max_connections_per_network`` (the same
        limits as the websockets', counted apart): then it is closed at once, before any read
        (DAIDE has no error for a full server)."""
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) else ""
        full = self.max_connections is not None and len(self._handlers) >= self.max_connections
        if full and self.service.shed():  # an observer (or a connection that never joined) makes room
            full = False
        refusal = None if full else self.addresses.admit(address)
        if full or refusal is not None:
            log.warning("daide tcp connection refused", peer=str(peer), full=full, holds_too_many=refusal)
            writer.close()
            return
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await _TcpSession(self, reader, writer).run()
        except Exception:  # never let one connection take the listener down
            log.exception("daide tcp connection failed")
        finally:
            self._handlers.discard(task)
            self.addresses.release(address)

    def representation_message(self) -> RepresentationMessage:
        """The RM of the open game's map: what a TCP client (which joins that game) plays in."""
        return _representation_message(variant_map(self.service.open_settings.map))


@functools.lru_cache(maxsize=4096)
def _encoded(text: str, representation: Representation) -> DiplomacyMessage:
    """A text as a DM, encoded once for all the connections it goes to: the server sends the same
    ``NOW``, ``ORD`` and ``SCO`` to every player (a game of seven bots encoded each one seven times)."""
    return DiplomacyMessage.from_text(text, representation)


@functools.cache
def _representation_message(board: Map) -> RepresentationMessage:
    provinces = [board.locations[p] for p in board.provinces]
    rep = representation_for(board.powers, provinces)
    return RepresentationMessage(() if rep is STANDARD else rep.entries)


class _TcpSession:
    """One TCP connection, from the IM to the close."""

    def __init__(self, listener: DaideTcpListener, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.listener = listener
        self.service = listener.service
        self.reader = reader
        self.writer = writer
        self.framing = Connection(Role.SERVER)
        self.conn: ServiceConnection | None = None
        self.peer: Any = writer.get_extra_info("peername")
        self.client_gone = False
        """The client closed (EOF, reset, FM or EM): nothing left to flush, so close at once."""

    async def run(self) -> None:
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        pump: asyncio.Task[None] | None = None
        try:
            if not await self._await_im():
                return
            self._write(self.listener.representation_message())
            self.conn = self.service.connect(None, self.peer[0] if isinstance(self.peer, tuple) else None)
            log.info("daide tcp connected", conn=self.conn.id, peer=str(self.peer))
            pump = asyncio.create_task(self._pump(self.conn))
            reading = asyncio.create_task(self._read_loop(self.conn))
            await asyncio.wait({pump, reading}, return_when=asyncio.FIRST_COMPLETED)
            if not reading.done():
                reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reading
        finally:
            if pump is not None and not pump.done():
                pump.cancel()  # the client has gone, or broke the protocol: nothing more to send
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pump
            if self.conn is not None:
                with contextlib.suppress(Exception):
                    await self.service.disconnect(self.conn)
            await self._close()

    # --- the IM --------------------------------------------------------------------------

    async def _await_im(self) -> bool:
        """Read until the IM has come (True), or answer the IM timer or a protocol error (False)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.listener.im_timeout
        while True:
            remaining = deadline - loop.time()
            try:
                if remaining <= 0:
                    raise TimeoutError
                data = await asyncio.wait_for(self.reader.read(self.listener.read_size), remaining)
            except TimeoutError:
                em = self.framing.im_timer_expired()
                if em is not None:
                    self._write(em)
                log.info("daide tcp IM timer popped", peer=str(self.peer), em=em is not None)
                return False
            except (ConnectionError, OSError):
                return False
            try:
                self.framing.receive_data(data)
                while not isinstance(event := self.framing.next_event(), Sentinel):
                    if isinstance(event, InitialMessage):
                        # The RM goes out before anything after the IM is decoded: AiClient bots
                        # send NME right behind their IM, often in the same read, and a DM after
                        # the RM is sent is no early DM (what follows stays buffered for the loop).
                        return True
                    return False  # an EM before the IM: the framing has closed
                if self.framing.state is ConnectionState.CLOSED:
                    return False
            except RemoteProtocolError as error:
                self._protocol_error(error)
                return False

    # --- after the IM --------------------------------------------------------------------

    async def _read_loop(self, conn: ServiceConnection) -> None:
        while not conn.closed:
            try:  # what is buffered first (the messages that came with the IM), then each read
                while not isinstance(event := self.framing.next_event(), Sentinel):
                    if not await self._handle(conn, event):
                        return
                if self.framing.state is ConnectionState.CLOSED:
                    self.client_gone = True
                    return
            except RemoteProtocolError as error:
                self._protocol_error(error)
                return
            try:
                data = await self.reader.read(self.listener.read_size)
            except (ConnectionError, OSError):
                self.client_gone = True
                return
            try:
                self.framing.receive_data(data)
            except RemoteProtocolError as error:
                self._protocol_error(error)
                return

    async def _handle(self, conn: ServiceConnection, message: Message) -> bool:
        """One message from the client after the IM; False ends the connection."""
        if isinstance(message, DiplomacyMessage):
            try:
                text = message.to_text(self.framing.representation)
            except DaideTokenError as error:
                raise RemoteProtocolError(f"bad DM: {error}", ErrorCode.ILLEGAL_TOKEN) from None
            if len(text) > MAX_MESSAGE_CHARS:
                conn.drop()
                return False
            await self.service.receive(conn, text)
            return not conn.closed
        if isinstance(message, FinalMessage | ErrorMessage):
            self.client_gone = True
            log.info("daide tcp closed by client", conn=conn.id, message=type(message).__name__)
            return False
        return True

    async def _pump(self, conn: ServiceConnection) -> None:
        """Send what the service queues for the connection, as DMs; an FM when it closes. What is
        queued together goes out in one write (a phase's ``ORD`` results are dozens of DMs), and
        the socket is waited for only once it holds more than its high-water mark."""
        while True:
            texts = [await conn.outbox.get()]
            while texts[-1] is not None and not conn.outbox.empty():
                texts.append(conn.outbox.get_nowait())
            data = bytearray()
            refused = False  # the framing would not send a message: the connection is past use
            for text in texts:
                message: Message
                if text is None:
                    if conn.dropped:
                        break
                    message = FinalMessage()
                else:
                    try:
                        message = _encoded(text, self.framing.representation)
                    except DaideTokenError:
                        log.warning("daide tcp: cannot encode a message", conn=conn.id, text=text[:200])
                        continue
                try:
                    data += self.framing.send(message)
                except DaideProtocolError:
                    refused = text is not None
                    break
            written = not data or self._write_bytes(data)
            if texts[-1] is None:
                return
            if refused or not written:
                conn.drop()
                return
            if self.writer.transport.get_write_buffer_size() > WRITE_HIGH_WATER and not await self._drain(conn):
                return

    async def _drain(self, conn: ServiceConnection) -> bool:
        """Wait for the socket to take what was written; False if the connection was dropped meanwhile."""
        drain = asyncio.ensure_future(self.writer.drain())
        try:
            while not drain.done():
                await asyncio.wait({drain}, timeout=DROP_POLL)
                if conn.dropped and not drain.done():
                    return False
            drain.result()
            return True
        except (ConnectionError, OSError):
            conn.drop()
            return False
        finally:
            if not drain.done():
                drain.cancel()
                with contextlib.suppress(BaseException):
                    await drain

    # --- writing and closing ---------------------------------------------------------------

    def _write(self, message: Message) -> bool:
        """Write one message if the framing and the socket allow it."""
        try:
            data = self.framing.send(message)
        except DaideProtocolError:
            return False
        return self._write_bytes(data)

    def _write_bytes(self, data: bytes | bytearray) -> bool:
        if self.writer.is_closing():
            return False
        self.writer.write(data)
        return True

    def _protocol_error(self, error: RemoteProtocolError) -> None:
        log.info("daide tcp protocol error", peer=str(self.peer), error=str(error))
        self._write(error.error_message)

    async def _close(self) -> None:
        if self.client_gone or (self.conn is not None and self.conn.dropped):
            self.writer.transport.abort()  # do not wait for a client that does not read
        with contextlib.suppress(Exception):
            self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), CLOSE_TIMEOUT)
        if not self.writer.transport.is_closing():
            self.writer.transport.abort()
