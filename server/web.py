"""What both servers share on the web side: running an app with uvicorn and as a command,
its lifespan, draining a queue into a websocket, checking a bearer token, and the
:class:`Limits` that bound what one client can hold: the body size, the header size, the
time to send a request, the time a websocket may stay silent before its first frame, and
the number of connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import ipaddress
import json
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import urlsplit

import h11
import structlog
import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket
from uvicorn.protocols.http.h11_impl import H11Protocol

from referee.bucket import Bucket
from referee.guesses import ADDRESS_GUESSES, WINDOW, Guesses
from referee.networks import host_and_network
from server.collector import survivors_frozen

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_FRAME_BYTES",
    "AddressCounter",
    "Limits",
    "Outbox",
    "authorised",
    "configure_logging",
    "default_allowed_hosts",
    "drain",
    "guard_requests",
    "lifespan",
    "metrics_refused",
    "origin_of",
    "page_origins",
    "run_app",
    "run_command",
    "stop_writer",
]

Settings = TypeVar("Settings")
Item = TypeVar("Item")
DEFAULT_QUEUE_SIZE = 256


@dataclass(eq=False, kw_only=True)
class Outbox(Generic[Item]):
    """What a transport sends one client: a bounded queue, where ``None`` means "close".

    A client that does not read is dropped, not waited for: when the queue is full, what
    is queued is discarded and the connection closes, so one slow client never holds up a
    game or the others.
    """

    outbox: asyncio.Queue[Item | None] = field(default_factory=lambda: asyncio.Queue(DEFAULT_QUEUE_SIZE))
    closed: bool = False
    dropped: bool = False

    def put(self, item: Item) -> None:
        """Queue an item; a full queue drops the connection."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(item)
        except asyncio.QueueFull:
            self.drop()

    def close(self) -> None:
        """Close after what is queued has been sent (or at once if the queue is full)."""
        if self.closed:
            return
        self.closed = True
        try:
            self.outbox.put_nowait(None)
        except asyncio.QueueFull:
            self.drop()

    def drop(self) -> None:
        """Close now, discarding what is queued."""
        self.closed = True
        self.dropped = True
        while not self.outbox.empty():
            self.outbox.get_nowait()
        self.outbox.put_nowait(None)


_configured = False


def configure_logging(json_logs: bool | None = None, level: int = logging.INFO) -> None:
    """Configure structlog once: JSON lines when stderr is not a terminal, readable ones when it is."""
    global _configured
    if _configured:
        return
    _configured = True
    if json_logs is None:
        json_logs = not sys.stderr.isatty()
    renderer: Any = structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


MAX_FRAME_BYTES = 65_536
"""The websocket frame limit given to uvicorn (``ws_max_size``)."""
WS_MAX_QUEUE = 4
"""Frames uvicorn reads ahead of the application on one websocket (``ws_max_queue``, 32 by
default): the application reads each at once, so a few suffice, and a client that floods holds
at most this many times :data:`MAX_FRAME_BYTES` of the server's memory."""

UNGUARDED_WEBSOCKETS = frozenset({"/internal/feed"})
"""Websocket paths without the first-frame timer: the feed's client is the negotiation
server, authenticated by the shared secret, and it may have nothing to ask for a long time."""


@dataclass(frozen=True, kw_only=True)
class Limits:
    """What one client may hold of a server; the settings of both servers carry the same names.

    - ``max_body_bytes``: the largest JSON body read (413 beyond, refused on its
      ``Content-Length`` before any of it is read, or as soon as a chunked body passes it).
    - ``max_header_bytes``: the request line and headers together (h11's
      ``max_incomplete_event_size``); beyond, a 400 and the connection closes.
    - ``request_timeout``: seconds from a request's first byte (or from the connection, for its
      first request) to its last: headers and body. A client that has not finished by then gets
      a 408 (or, mid-body, the connection closes): a slowloris holds a connection this long.
    - ``keep_alive_timeout``: seconds an idle keep-alive connection stays open between requests.
    - ``max_connections``: open connections, HTTP and websocket together; one more is answered
      503 and closed at once.
    - ``ws_first_message_timeout``: seconds a websocket may stay silent after it is accepted,
      before its first frame (NME, OBS, IAM or a ``hello``): after that it is closed with 1008.
      Silence after the first frame is normal (an observer, a player waiting for a phase);
      a peer that is gone is caught by the websocket pings (20 s, 20 s to answer).
    - ``max_connections_per_address``: open connections from one peer address (or, behind a
      trusted proxy, one forwarded client); one more is answered 503 and closed.
    - ``max_connections_per_network``: the same for one network: the address's
      /``network_prefix_v4`` (24) for IPv4, IPv4-mapped IPv6 addresses included, and its
      /``network_prefix_v6`` (64) for IPv6. Addresses are cheap to whoever holds a network (a
      /64 is what one IPv6 subscriber gets), so without it the per-address cap bounds nothing.
    - ``new_connections_per_network``: connections one network may open a second, on average
      (ten seconds' worth at once: a lab whose machines all start together); one more is
      answered 503 and closed before anything is read. A crowd that opens and drops
      connections as fast as it can (a server that sheds observers to make room for players
      would otherwise spend its time on their handshakes) costs little.
    - ``new_connections``: connections the whole server takes a second, on average (a
      second's worth at once), from the networks that hold no seat; one more is answered 503
      before anything is read. A crowd from many networks, each under its own rate, cannot
      keep the server handshaking; a network where a player has a seat always passes (the
      game server says which: :meth:`GameService.holds_seat`), so players come back.
    - ``allowed_hosts``: the names a request's ``Host`` may give (without the port; ``None``: any);
      another is answered 421 — a page of another site whose name was rebound to this address.
    - ``allowed_origins``: the ``Origin`` a websocket handshake (or a request that is not GET,
      HEAD or OPTIONS) may come from, besides none (not a browser) and the server's own; another
      is refused with 403. Each is ``scheme://host:port``, as :func:`origin_of` writes it.
    - ``public_metrics``: ``/metrics`` without the admin token.
    - ``trusted_proxies``: addresses or networks of the reverse proxies whose ``X-Forwarded-For``
      (and ``X-Forwarded-Proto``) is believed: the client it names is the one counted and seen.
    """

    max_body_bytes: int = 65_536
    max_header_bytes: int = 16_384
    request_timeout: float = 10.0
    keep_alive_timeout: float = 5.0
    max_connections: int = 1_000
    ws_first_message_timeout: float = 30.0
    max_connections_per_address: int = 64
    max_connections_per_network: int = 256
    new_connections_per_network: float = 20.0
    new_connections: float = 200.0
    network_prefix_v4: int = 24
    network_prefix_v6: int = 64
    allowed_hosts: frozenset[str] | None = frozenset({"127.0.0.1", "localhost", "::1"})
    allowed_origins: frozenset[str] = frozenset()
    public_metrics: bool = False
    trusted_proxies: tuple[str, ...] = ()


DEFAULT_LIMITS = Limits()

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""The names of this machine that no other site can be given: allowed whatever the bind."""

WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "*"})


def default_allowed_hosts(bind_host: str | None) -> tuple[str, ...]:
    """The hosts allowed when none are configured: the loopback names, and the address the
    server binds to when it is a specific one (not ``0.0.0.0`` or ``::``)."""
    hosts = list(LOOPBACK_HOSTS)
    name = host_name(bind_host or "")
    if name not in WILDCARD_BINDS and name not in hosts:
        hosts.append(name)
    return tuple(hosts)


def host_name(host: str) -> str:
    """A ``Host`` header's name, without the port, lower case: ``[::1]:8700`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


_DEFAULT_PORTS = {"http": 80, "https": 443}
_WEB_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


def origin_of(url: str) -> str | None:
    """The origin of a URL as a browser writes it in ``Origin``, with the port always given:
    ``ws://LocalHost:8701/nego`` -> ``http://localhost:8701``; ``None`` if it has none."""
    try:
        parts = urlsplit(url.strip())
        scheme = _WEB_SCHEMES.get(parts.scheme.lower())
        port = parts.port
    except ValueError:
        return None
    if scheme is None or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}"


def page_origins(url: str) -> frozenset[str]:
    """The origins of a page served at ``url``: its own, and, when it names this machine's loopback,
    the same port under each loopback name (``localhost:8700`` is ``127.0.0.1:8700`` here)."""
    origin = origin_of(url)
    if origin is None:
        return frozenset()
    parts = urlsplit(origin)
    if parts.hostname not in LOOPBACK_HOSTS:
        return frozenset({origin})
    return frozenset(
        origin_of(f"{parts.scheme}://{'[::1]' if h == '::1' else h}:{parts.port}") or origin for h in LOOPBACK_HOSTS
    )


def _networks(proxies: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def _in(address: str | None, networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]) -> bool:
    if not address or not networks:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # a dual-stack socket's IPv4 peer: the proxy configured by its IPv4 address
    return any(ip in network for network in networks)


Refusal = Literal["address", "network", "rate", "busy"]
"""What an :class:`AddressCounter` found full."""


def peer_keys(address: str, prefix_v4: int, prefix_v6: int) -> tuple[str, str]:
    """The address and the network ``address`` is counted under
    (:func:`~referee.networks.host_and_network`); what is not an IP address (a Unix socket's)
    is its own network: there is nothing to group it with."""
    return host_and_network(address, prefix_v4, prefix_v6) or (address, address)


class AddressCounter:
    """The connections open from each address and each network (see :func:`peer_keys`), and
    the most one of each may hold (``None``: no cap)."""

    def __init__(
        self,
        limit: int | None,
        network_limit: int | None = None,
        prefix_v4: int = DEFAULT_LIMITS.network_prefix_v4,
        prefix_v6: int = DEFAULT_LIMITS.network_prefix_v6,
        network_rate: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        total_rate: float | None = None,
        holds_seat: Callable[[str], bool] | None = None,
    ) -> None:
        self.limit = limit
        self.network_limit = network_limit
        self.prefix_v4 = prefix_v4
        self.prefix_v6 = prefix_v6
        self.network_rate = network_rate
        self.clock = clock
        self.open: dict[str, int] = {}
        self.networks: dict[str, int] = {}
        self.arrivals: dict[str, Bucket] = {}  # network -> its bucket of new connections
        self.total_rate = total_rate
        self.holds_seat = holds_seat
        self.total = Bucket(total_rate or 0.0, clock())  # the whole server's bucket of new connections

    @classmethod
    def of(cls, limits: Limits, holds_seat: Callable[[str], bool] | None = None) -> AddressCounter:
        """The counter of ``limits``' caps per address and per network, and of its rates."""
        return cls(
            limits.max_connections_per_address,
            limits.max_connections_per_network,
            limits.network_prefix_v4,
            limits.network_prefix_v6,
            limits.new_connections_per_network,
            total_rate=limits.new_connections,
            holds_seat=holds_seat,
        )

    def admit(self, address: str) -> Refusal | None:
        """Count one more from ``address``: ``None``, or, when its address or its network holds
        the most already (or its network opened too many of late), which (and nothing is counted)."""
        key, network = peer_keys(address, self.prefix_v4, self.prefix_v6)
        if self.network_rate is not None and not self._arrives(network):
            return "rate"
        if self.total_rate is not None and not self._server_takes(network):
            return "busy"
        held = self.open.get(key, 0)
        if self.limit is not None and held >= self.limit:
            return "address"
        in_network = self.networks.get(network, 0)
        if self.network_limit is not None and in_network >= self.network_limit:
            return "network"
        self.open[key] = held + 1
        self.networks[network] = in_network + 1
        return None

    def _arrives(self, network: str) -> bool:
        """A token of ``network``'s bucket of new connections, if there is one."""
        rate, now = self.network_rate or 0.0, self.clock()
        bucket = self.arrivals.pop(network, None) or Bucket(10.0 * rate, now)
        self.arrivals[network] = bucket  # the most recent last: the first is the one to forget
        if len(self.arrivals) > ARRIVALS_KEPT:
            del self.arrivals[next(iter(self.arrivals))]
        return bucket.take(now, rate, 10.0 * rate)

    def _server_takes(self, network: str) -> bool:
        """A token of the whole server's bucket; a network holding a seat needs none."""
        rate = self.total_rate or 0.0
        if self.total.take(self.clock(), rate, rate):
            return True
        return self.holds_seat is not None and self.holds_seat(network)

    def acquire(self, address: str) -> bool:
        """Count one more from ``address``, unless it (or its network) holds the most already (then ``False``)."""
        return self.admit(address) is None

    def release(self, address: str) -> None:
        key, network = peer_keys(address, self.prefix_v4, self.prefix_v6)
        _decrement(self.open, key)
        _decrement(self.networks, network)


def _decrement(counts: dict[str, int], key: str) -> None:
    held = counts.get(key, 0) - 1
    if held > 0:
        counts[key] = held
    else:
        counts.pop(key, None)  # an address gone leaves nothing behind: the dicts stay as small as what is open


def too_many(refusal: Refusal) -> str:
    """The answer's text for a connection refused by :meth:`AddressCounter.admit`."""
    if refusal == "rate":
        return "too many new connections from this network; try again later"
    if refusal == "busy":
        return "too many new connections to this server; try again shortly"
    return f"too many connections from this {refusal}; try again later"


ARRIVALS_KEPT = 100_000
"""Networks whose recent connections are remembered (the oldest forgotten first: a forgotten
network starts again with a full bucket)."""


def limits_of(app: Any) -> Limits:
    """The limits an application was made with (``app.state.limits``), or the defaults."""
    found = getattr(getattr(app, "state", None), "limits", None)
    return found if isinstance(found, Limits) else DEFAULT_LIMITS


def _raw_json_response(status: int, reason: str, message: str) -> bytes:
    """A complete HTTP/1.1 answer with an ``ErrorBody``-shaped body, closing the connection: for
    the answers given outside a request's cycle (a connection too many, a request too slow)."""
    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with two guards it lacks: a connection over ``max_connections`` is
    refused at once (uvicorn's own ``limit_concurrency`` is checked only on HTTP requests, and a
    websocket upgrade passes it), and a request whose headers and body take longer than
    ``request_timeout`` ends the connection (uvicorn has a keep-alive timeout between requests,
    but none while one is being read: a slowloris client would hold its connection for ever).
    Its 400 for a malformed request is JSON, as every error of the API is.

    :func:`run_app` makes a subclass with the values of its :class:`Limits`.
    """

    request_timeout: float = DEFAULT_LIMITS.request_timeout
    max_connections: int | None = DEFAULT_LIMITS.max_connections
    addresses: AddressCounter | None = None
    """The connections open per peer address and per network (shared by a server's connections):
    see ``max_connections_per_address`` and ``max_connections_per_network``. A trusted proxy's are
    not counted here, but by the client it forwards, in :func:`guard_requests`."""
    trusted: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    make_room: Callable[[], bool] | None = None
    """Asked when the server is full: close a connection that may be shed (an observer) and say
    whether it did; then this one is taken (the server serves ``max_connections`` players)."""
    _request_timer: asyncio.TimerHandle | None = None
    _address: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        full = self.max_connections is not None and len(self.connections) > self.max_connections
        if full and not (self.make_room is not None and self.make_room()):
            logging.getLogger("uvicorn.error").warning("refused a connection: %d open", len(self.connections) - 1)
            transport.write(_raw_json_response(503, "Service Unavailable", "too many connections; try again later"))
            transport.close()
            return
        peer = self.client[0] if self.client else None
        if self.addresses is not None and peer and not _in(peer, self.trusted):
            refusal = self.addresses.admit(peer)
            if refusal is not None:
                logging.getLogger("uvicorn.error").warning(
                    "refused a connection: %s's %s holds too many", peer, refusal
                )
                transport.write(_raw_json_response(503, "Service Unavailable", too_many(refusal)))
                transport.close()
                return
            self._address = peer
        self._arm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        address, self._address = self._address, None
        super().handle_websocket_upgrade(event)
        upgraded = self.transport.get_protocol()
        if address is None or self.addresses is None:
            return
        if upgraded is self:  # pragma: no cover - uvicorn always hands the transport over
            self._address = address
            return
        # the websocket's protocol now gets the transport's end: it gives the address's place back
        counter, lost = self.addresses, upgraded.connection_lost

        def connection_lost(exc: Exception | None) -> None:
            counter.release(address)
            lost(exc)

        upgraded.connection_lost = connection_lost  # type: ignore[method-assign]

    def data_received(self, data: bytes) -> None:
        if self._request_timer is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first byte of the next request on a kept-alive connection starts its clock
        super().data_received(data)
        if self.transport.get_protocol() is not self or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()  # read whole, upgraded to a websocket, or over

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._address is not None and self.addresses is not None:
            self.addresses.release(self._address)
            self._address = None
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        body = json.dumps({"error": msg}).encode()
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._request_timer = self.loop.call_later(self.request_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _timed_out(self) -> None:
        self._request_timer = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return
        state = self.conn.their_state
        if state is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
            # the headers never came whole: no request has begun, so the answer is ours to write
            self.transport.write(_raw_json_response(408, "Request Timeout", "the request took too long to arrive"))
            self.transport.close()
        elif state is h11.SEND_BODY:
            # mid-body: the application is reading it, and sees the client go
            self.transport.close()


def guard_first_message(app: Any, timeout: float | None, unguarded: frozenset[str] = UNGUARDED_WEBSOCKETS) -> Any:
    """``app`` with a timer on each websocket (but those at ``unguarded`` paths): one that sends
    no frame within ``timeout`` seconds of being accepted is closed with 1008, and the application
    sees it disconnect. What the application sends after that is dropped."""
    if timeout is None:
        return app

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket" or scope.get("path") in unguarded:
            await app(scope, receive, send)
            return
        deadline: float | None = None  # set on accept, cleared by the first frame
        closed = False

        async def guarded_send(message: Any) -> None:
            nonlocal deadline
            if closed:
                return
            if message["type"] == "websocket.accept":
                deadline = asyncio.get_running_loop().time() + timeout
            await send(message)

        async def guarded_receive() -> Any:
            nonlocal deadline, closed
            if deadline is None or closed:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                closed = True
                with contextlib.suppress(Exception):
                    await send({"type": "websocket.close", "code": 1008, "reason": "no message in time"})
                return {"type": "websocket.disconnect", "code": 1008}
            if message["type"] == "websocket.receive":
                deadline = None
            return message

        await app(scope, guarded_receive, guarded_send)

    return guarded


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def guard_requests(app: Any, limits: Limits, addresses: AddressCounter | None = None) -> Any:
    """``app`` behind the guards of ``limits`` that look at a request's headers:

    - from a trusted proxy (``trusted_proxies``), the client is the last address of
      ``X-Forwarded-For`` that is not a trusted proxy (and the scheme ``X-Forwarded-Proto``);
      that client is counted in ``addresses`` while its request or websocket lasts (503 beyond
      ``max_connections_per_address``, or ``max_connections_per_network`` for its network);
    - a ``Host`` not in ``allowed_hosts`` is answered 421 (a rebound DNS name);
    - a websocket handshake, or a request other than GET, HEAD or OPTIONS, whose ``Origin`` is
      neither the server's own (the scheme and the ``Host`` asked) nor in ``allowed_origins`` is
      answered 403. No ``Origin`` passes: bots, scripts and tests are not browsers, and a
      browser always sends one on a websocket.

    A refused websocket gets its answer before the handshake (a JSON body where the server
    can send one, a bare 403 elsewhere). Lifespan events pass untouched."""
    trusted = _networks(limits.trusted_proxies)
    hosts = limits.allowed_hosts
    origins = limits.allowed_origins
    log = logging.getLogger("uvicorn.error")

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await app(scope, receive, send)
            return
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        peer = scope["client"][0] if scope.get("client") else None
        scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme", "http"))
        counted: str | None = None
        if _in(peer, trusted):
            client = _forwarded_client(headers.get("x-forwarded-for", ""), trusted) or peer
            proto = headers.get("x-forwarded-proto", "").split(",")[-1].strip().lower()
            if proto in _WEB_SCHEMES:
                scheme = _WEB_SCHEMES[proto]
            scope = {**scope, "client": (client, 0)}
            if addresses is not None and client and not _in(client, trusted):
                refusal = addresses.admit(client)
                if refusal is not None:
                    log.warning("refused a request: %s's %s holds too many (through a proxy)", client, refusal)
                    await _refuse(scope, receive, send, 503, too_many(refusal))
                    return
                counted = client
        try:
            host = headers.get("host", "")
            if hosts is not None and host_name(host) not in hosts:
                await _refuse(scope, receive, send, 421, f"this server does not answer to the host {host_name(host)!r}")
                return
            origin = headers.get("origin")
            if origin is not None and (kind == "websocket" or scope.get("method") not in SAFE_METHODS):
                given = origin_of(origin)
                if given is None or (given != origin_of(f"{scheme}://{host}") and given not in origins):
                    await _refuse(scope, receive, send, 403, f"requests from the origin {origin!r} are not allowed")
                    return
            await app(scope, receive, send)
        finally:
            if counted is not None and addresses is not None:
                addresses.release(counted)

    return guarded


def _forwarded_client(header: str, trusted: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]) -> str | None:
    """The client a chain of trusted proxies forwards: the last address of ``X-Forwarded-For``
    that is not one of them (the earlier ones are the client's word, not a proxy's)."""
    for entry in reversed([part.strip() for part in header.split(",") if part.strip()]):
        address = entry[1:].partition("]")[0] if entry.startswith("[") else entry
        try:
            ipaddress.ip_address(address)
        except ValueError:
            return None  # not an address: believe nothing further left
        if not _in(address, trusted):
            return address
    return None


async def _refuse(scope: Any, receive: Any, send: Any, status: int, message: str) -> None:
    """Answer ``status`` with ``{"error": message}``: a response, or a websocket refused in its handshake."""
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    await receive()  # websocket.connect
    if "websocket.http.response" in scope.get("extensions", {}):
        await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
    else:  # pragma: no cover - uvicorn's websocket protocols have the extension
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})


class _Server(uvicorn.Server):
    """uvicorn's server, told to stop by an event rather than found stopped by its tick: its main
    loop looks at ``should_exit`` every 0.1 s, which every stop (a test's, a run's game) waited."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._exiting = asyncio.Event()
        self._loop = asyncio.get_running_loop()

    def exit(self) -> None:
        self.should_exit = True
        self._exiting.set()

    def handle_exit(self, sig: int, frame: Any) -> None:  # a signal: in the main thread, between bytecodes
        super().handle_exit(sig, frame)
        self._loop.call_soon_threadsafe(self._exiting.set)

    async def main_loop(self) -> None:
        counter = 0
        while not await self.on_tick(counter):  # the tick still refreshes the Date header
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exiting.wait(), 0.1)

    async def shutdown(self, sockets: list[Any] | None = None) -> None:
        # uvicorn's own shutdown waits a fixed 0.1 s after asking the connections to close, then
        # polls every 0.1 s; here the same steps are polled every 10 ms (a stop of a run's
        # server, or of a test's, took 0.2 s of waiting whatever there was to close)
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            async with asyncio.timeout(self.config.timeout_graceful_shutdown):
                while (self.server_state.connections or self.server_state.tasks) and not self.force_exit:
                    await asyncio.sleep(0.01)
                for server in self.servers:
                    await server.wait_closed()
        except TimeoutError:
            for running in self.server_state.tasks:
                running.cancel(msg="the graceful shutdown timed out")
        if not self.force_exit:
            await self.lifespan.shutdown()


async def run_app(
    app: Any,
    host: str,
    port: int,
    ready: Callable[[str, int], None] | None = None,
    stop: asyncio.Event | None = None,
    started: Callable[[], Awaitable[None]] | None = None,
    limits: Limits | None = None,
    make_room: Callable[[], bool] | None = None,
    holds_seat: Callable[[str], bool] | None = None,
) -> None:
    """Serve ``app`` until a signal or ``stop``; once it listens, await ``started()`` and then
    call ``ready(host, port)``. A port that cannot be bound raises ``OSError``. When it is full,
    ``make_room()`` may close a connection to take a new one (see GuardedH11Protocol), and a
    network for which ``holds_seat(network)`` passes the server's rate of new connections.

    ``limits`` (by default those the app was made with, see :func:`limits_of`) bound each
    client: see :class:`Limits`."""
    limits = limits or limits_of(app)
    addresses = AddressCounter.of(limits, holds_seat)
    protocol = type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {
            "request_timeout": limits.request_timeout,
            "max_connections": limits.max_connections,
            "addresses": addresses,
            "trusted": _networks(limits.trusted_proxies),
            "make_room": None if make_room is None else staticmethod(make_room),
        },
    )
    config = uvicorn.Config(
        guard_requests(guard_first_message(app, limits.ws_first_message_timeout), limits, addresses),
        host=host,
        port=port,
        http=protocol,
        # X-Forwarded-For is read by guard_requests, from the trusted proxies alone (uvicorn's
        # own reading would believe any local process)
        proxy_headers=False,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        timeout_keep_alive=limits.keep_alive_timeout,  # type: ignore[arg-type]  # a float works: call_later
        ws_max_size=MAX_FRAME_BYTES,
        ws_max_queue=WS_MAX_QUEUE,
        # frames are a few hundred bytes: deflate saves little and costs a good part of a send
        ws_per_message_deflate=False,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            await task  # it failed to start: raise its error
            return
        await asyncio.sleep(0.01)
    if started is not None:
        await started()
    if task.done() or not server.servers:  # stopped (a signal) while it started: nothing listens
        await task
        return
    async with survivors_frozen():
        bound_host, bound_port = server.servers[0].sockets[0].getsockname()[:2]
        if ready is not None:
            ready(bound_host, bound_port)
        if stop is not None:
            waiter = asyncio.create_task(stop.wait())
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            server.exit()
            waiter.cancel()
        await task


async def drain(
    websocket: WebSocket, outbox: asyncio.Queue[Any], encode: Callable[[Any], str], dropped: Callable[[], bool]
) -> None:
    """Send what ``outbox`` holds (each item through ``encode``) until ``None`` comes, then
    close: with 1008 (policy) when the connection was ``dropped()``, 1000 otherwise."""
    try:
        while (item := await outbox.get()) is not None:
            await websocket.send_text(encode(item))
    except Exception:  # the client went away; the reader notices it too
        pass
    finally:
        with contextlib.suppress(Exception):
            await websocket.close(code=1008 if dropped() else 1000)


def authorised(request: Request | WebSocket, token: str) -> bool:
    """Whether the request carries ``Authorization: Bearer <token>`` (see :func:`_token_check`)."""
    return _token_check(request, token) == "ok"


def _token_check(request: Request | WebSocket, token: str) -> str:
    """``"ok"``, ``"none"`` (no bearer token given), ``"wrong"``, or ``"limited"``: a wrong token is
    a guess, counted by client address as wrong passcodes are (:mod:`referee.guesses`); at
    :data:`~referee.guesses.ADDRESS_GUESSES` within the window, an address's tokens are refused
    unchecked, the right one too, until the window has passed."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return "none"
    state = request.app.state
    guesses: Guesses | None = getattr(state, "token_guesses", None)
    if guesses is None:
        guesses = state.token_guesses = Guesses()
    address = request.client.host if request.client else None
    now = time.monotonic()
    if guesses.recent(address, now, WINDOW) >= ADDRESS_GUESSES:
        return "limited"
    if hmac.compare_digest(given.strip().encode(), token.encode()):
        return "ok"
    guesses.failed(address, now)
    return "wrong"


def _refusal(check: str, message: str) -> Response | None:
    """The answer to a request whose token check said ``check``: None if ``"ok"``, else 401, or
    429 while its address has guessed too often."""
    if check == "ok":
        return None
    if check == "limited":
        return JSONResponse(
            {"error": "too many wrong tokens from this address: try again later"},
            status_code=429,
            headers={"Retry-After": str(int(WINDOW))},
        )
    return JSONResponse({"error": message}, status_code=401, headers={"WWW-Authenticate": "Bearer"})


def admin_refused(request: Request, token: str) -> Response | None:
    """``None`` when ``request`` carries the admin token; else the 401 (or 429) to answer."""
    return _refusal(_token_check(request, token), "an admin token is needed: Authorization: Bearer <token>")


def metrics_refused(request: Request, token: str) -> Response | None:
    """``None`` when ``request`` may read ``/metrics`` (the admin token, or ``public_metrics`` in
    the app's limits); else the 401 (or 429) to answer."""
    if limits_of(request.app).public_metrics:
        return None
    return _refusal(
        _token_check(request, token),
        "an admin token is needed: Authorization: Bearer <token> (or --public-metrics)",
    )


def lifespan(
    start: Callable[[], Awaitable[None]], stop: Callable[[], Awaitable[None]], manage: bool = True
) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A Starlette lifespan that starts a service and stops it (neither, unless ``manage``)."""

    @contextlib.asynccontextmanager
    async def span(app: Any) -> AsyncIterator[None]:
        if manage:
            await start()
        try:
            yield
        finally:
            if manage:
                await stop()

    return span


async def stop_writer(writer: asyncio.Task[None], outbox: asyncio.Queue[Any]) -> None:
    """Wake the task draining ``outbox`` with ``None`` (close), give it a moment to send what
    is queued, then cancel it."""
    with contextlib.suppress(asyncio.QueueFull):
        outbox.put_nowait(None)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer, timeout=5)
    writer.cancel()


def run_command(
    name: str,
    load: Callable[[], tuple[Settings, list[str]]],
    serve: Callable[[Settings, Callable[[str, int], None]], Coroutine[Any, Any, None]],
) -> int:
    """A server as a command: load the settings (exit 2 when they are bad), print generated
    credentials once, configure the logs, serve until interrupted (exit 1 when the store or
    the port cannot be used). ``serve`` gets the settings and the ``ready`` callback that
    prints ``listening on http://HOST:PORT``."""
    from server.settings import SettingsError  # the settings import the API models: not for every user of this module
    from server.store import StoreError

    try:
        settings, messages = load()
    except SettingsError as exc:
        print(f"detente {name}: {exc}", file=sys.stderr)
        return 2
    for message in messages:
        print(f"detente: {message}", flush=True)
    configure_logging()

    def ready(host: str, port: int) -> None:
        print(f"detente: listening on http://{host}:{port}", flush=True)

    try:
        asyncio.run(serve(settings, ready))
    except SettingsError as exc:  # one only the running server can check (a bot no house plays)
        print(f"detente {name}: {exc}", file=sys.stderr)
        return 2
    except StoreError as exc:
        print(f"detente {name}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a port in use, an address not on this machine
        hint = "; another server is there: choose another with --port" if exc.errno == errno.EADDRINUSE else ""
        print(f"detente {name}: cannot listen: {exc.strerror or exc}{hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0
