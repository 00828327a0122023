"""The binary framing of the DAIDE client-server protocol, without I/O.

Five messages travel over the TCP connection (chapter 3 of the client-server protocol document), each
behind a four-octet header: type, a pad octet, and the number of octets that follow (big-endian).

- IM, the initial message: the client's first, with the protocol version and the magic number 0xDA10;
- RM, the representation message: the server's first, naming the powers and provinces of a variant;
- DM, a diplomacy message: one message of the language as tokens;
- FM, the final message, sent just before closing;
- EM, the error message, with one of the error codes of section 3.6.

``encode`` and ``FrameDecoder`` turn messages into bytes and back, the decoder taking bytes in whatever
chunks they arrive.  ``Connection`` adds the rules of the conversation (who speaks first, what may
follow what) for one side, in the manner of h11: feed it bytes, take events, and send what ``send``
returns.  The rules are one table, ``RULES``: (who sends, the state, the kind of message) -> the next
state or the ``Breach``, consulted alike by ``send`` and ``next_event``.

>>> client, server = Connection(Role.CLIENT), Connection(Role.SERVER)
>>> encode(InitialMessage()).hex(" ")
'00 00 00 04 00 01 da 10'
>>> server.receive_data(client.send(InitialMessage()))
>>> server.next_event()
InitialMessage(version=1, magic=55824)
>>> client.receive_data(server.send(RepresentationMessage()))
>>> client.next_event(), client.state.name
(RepresentationMessage(entries=()), 'OPEN')
>>> server.receive_data(client.send(DiplomacyMessage.from_text("NME ('bot') ('1.0')")))
>>> server.next_event().to_text()
"NME ('bot') ('1.0')"
>>> server.next_event()
NEED_DATA

A peer that breaks the protocol gets the error code that applies:

>>> server.receive_data(encode(InitialMessage()))
>>> server.next_event()
Traceback (most recent call last):
...
protocol.daide.framing.RemoteProtocolError: more than one IM sent (EM 0x06)
>>> server.send(ErrorMessage(ErrorCode.DUPLICATE_IM)).hex(" ")
'04 00 00 02 00 06'
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum
from types import MappingProxyType
from typing import ClassVar, TypeAlias

from protocol.daide.tokens import (
    STANDARD,
    DaideTokenError,
    Representation,
    Token,
    bytes_to_tokens,
    is_reserved,
    text_to_tokens,
    tokens_to_bytes,
    tokens_to_text,
)

__all__ = [
    "CONNECTION_CLOSED",
    "DEFAULT_MAX_BUFFER_SIZE",
    "HEADER_SIZE",
    "IM_TIMEOUT",
    "MAGIC_NUMBER",
    "MAX_LENGTH",
    "NEED_DATA",
    "PROTOCOL_VERSION",
    "RULES",
    "Breach",
    "Connection",
    "ConnectionState",
    "DaideProtocolError",
    "DiplomacyMessage",
    "ErrorCode",
    "ErrorMessage",
    "Event",
    "FinalMessage",
    "FrameDecoder",
    "InitialMessage",
    "LocalProtocolError",
    "Message",
    "MessageKind",
    "MessageType",
    "RemoteProtocolError",
    "RepresentationMessage",
    "Role",
    "Sentinel",
    "Verdict",
    "decode",
    "encode",
]

PROTOCOL_VERSION = 1
MAGIC_NUMBER = 0xDA10
IM_TIMEOUT = 30.0
"""Seconds the server waits for the client's first data before sending EM 0x01 (section 2.2)."""
HEADER_SIZE = 4
MAX_LENGTH = 0xFFFF
"""The largest remaining length the 16-bit header field can carry."""
DEFAULT_MAX_BUFFER_SIZE = 2 * (HEADER_SIZE + MAX_LENGTH)
"""Room for a partial message of the greatest length plus one more read of up to 64 KiB."""

_SWAPPED_MAGIC_NUMBER = 0x10DA
_HEADER = struct.Struct(">BBH")
_PAIR = struct.Struct(">HH")
_SHORT = struct.Struct(">H")
_RM_ENTRY_SIZE = 6


class MessageType(IntEnum):
    """The message type octet of the header."""

    IM = 0
    RM = 1
    DM = 2
    FM = 3
    EM = 4


class ErrorCode(IntEnum):
    """The error codes of an EM (section 3.6), named as Parlance names them."""

    TIMEOUT = 0x01
    NOT_IM = 0x02
    ENDIAN = 0x03
    MAGIC = 0x04
    VERSION = 0x05
    DUPLICATE_IM = 0x06
    SERVER_IM = 0x07
    MESSAGE_TYPE = 0x08
    LENGTH = 0x09
    EARLY_DM = 0x0A
    NOT_RM = 0x0B
    UNEXPECTED_RM = 0x0C
    CLIENT_RM = 0x0D
    ILLEGAL_TOKEN = 0x0E

    @property
    def meaning(self) -> str:
        """The meaning the protocol document gives the code.

        >>> ErrorCode(0x0A).meaning
        'DM sent before RM'
        """
        return _MEANINGS[self]


_MESSAGE_TYPES = frozenset(MessageType)
_ERROR_CODES = frozenset(ErrorCode)
_MEANINGS = {
    ErrorCode.TIMEOUT: "IM timer popped",
    ErrorCode.NOT_IM: "IM was not the first message sent by the client",
    ErrorCode.ENDIAN: "IM indicated the wrong endian",
    ErrorCode.MAGIC: "IM had an incorrect magic number",
    ErrorCode.VERSION: "Version incompatibility",
    ErrorCode.DUPLICATE_IM: "More than one IM sent",
    ErrorCode.SERVER_IM: "IM sent by server",
    ErrorCode.MESSAGE_TYPE: "Unknown message received",
    ErrorCode.LENGTH: "Message shorter than expected",
    ErrorCode.EARLY_DM: "DM sent before RM",
    ErrorCode.NOT_RM: "RM was not the first message sent by the server",
    ErrorCode.UNEXPECTED_RM: "Unexpected RM sent",
    ErrorCode.CLIENT_RM: "RM sent by client",
    ErrorCode.ILLEGAL_TOKEN: "Invalid token in DM",
}


# --- errors -----------------------------------------------------------------------------------------------


class DaideProtocolError(Exception):
    """A breach of the client-server protocol; ``code`` is the EM error code that applies, if one does."""

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message if code is None else f"{message} (EM {code:#04x})")
        self.message = message
        self.code = code


class RemoteProtocolError(DaideProtocolError):
    """The peer broke the protocol: send it ``error_message`` and close the connection."""

    code: ErrorCode

    def __init__(self, message: str, code: ErrorCode) -> None:
        super().__init__(message, code)

    @property
    def error_message(self) -> ErrorMessage:
        """The EM to send the peer."""
        return ErrorMessage(self.code)


class LocalProtocolError(DaideProtocolError):
    """This side tried to do something the protocol forbids; nothing was sent."""


# --- messages ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InitialMessage:
    """IM: the client's first message, with the protocol version and the magic number."""

    version: int = PROTOCOL_VERSION
    magic: int = MAGIC_NUMBER
    type: ClassVar[MessageType] = MessageType.IM

    def __post_init__(self) -> None:
        if not (0 <= self.version <= 0xFFFF and 0 <= self.magic <= 0xFFFF):
            raise ValueError("the version and the magic number of an IM are 16-bit numbers")


@dataclass(frozen=True, slots=True)
class RepresentationMessage:
    """RM: the server's first message, defining the powers and provinces of a variant.

    No entries means the standard powers and provinces; entries replace them all.

    >>> RepresentationMessage(((0x4100, "ONE"), (0x5000, "HOM"))).representation.name(0x5000)
    'HOM'
    """

    entries: tuple[tuple[int, str], ...] = ()
    type: ClassVar[MessageType] = MessageType.RM

    def __post_init__(self) -> None:
        entries = tuple((token, name) for token, name in self.entries)
        object.__setattr__(self, "entries", entries)
        if entries:
            Representation(entries)

    @property
    def representation(self) -> Representation:
        """The powers and provinces this RM puts in force."""
        return Representation(self.entries) if self.entries else STANDARD


@dataclass(frozen=True, slots=True)
class DiplomacyMessage:
    """DM: one message of the language, as a non-empty tuple of tokens.

    >>> DiplomacyMessage.from_text("SCO").tokens
    (18453,)
    """

    tokens: tuple[int, ...]
    type: ClassVar[MessageType] = MessageType.DM

    def __post_init__(self) -> None:
        tokens = tuple(self.tokens)
        object.__setattr__(self, "tokens", tokens)
        if not tokens:
            raise DaideTokenError("a DM carries at least one token")
        if 2 * len(tokens) > MAX_LENGTH:
            raise DaideTokenError(f"a DM carries at most {MAX_LENGTH // 2} tokens", MAX_LENGTH // 2)
        for index, token in enumerate(tokens):
            if not isinstance(token, int) or not 0 <= token <= 0xFFFF:
                raise DaideTokenError(f"{token!r} is not a 16-bit token", index)
            if is_reserved(token):
                raise DaideTokenError(f"{token:#06x} is reserved for private use and never sent", index)

    @classmethod
    def from_text(cls, text: str, representation: Representation = STANDARD) -> DiplomacyMessage:
        """The DM of a message in text form."""
        return cls(text_to_tokens(text, representation))

    def to_text(self, representation: Representation = STANDARD) -> str:
        """The message in text form."""
        return tokens_to_text(self.tokens, representation)


@dataclass(frozen=True, slots=True)
class FinalMessage:
    """FM: sent just before closing the connection."""

    type: ClassVar[MessageType] = MessageType.FM


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    """EM: the sender found a protocol error and closes the connection.

    ``code`` is an ``ErrorCode`` when the protocol knows it, else the number received.
    """

    code: int
    type: ClassVar[MessageType] = MessageType.EM

    def __post_init__(self) -> None:
        if not 0 <= self.code <= 0xFFFF:
            raise ValueError("an error code is a 16-bit number")
        if self.code in _ERROR_CODES:
            object.__setattr__(self, "code", ErrorCode(self.code))


Message: TypeAlias = InitialMessage | RepresentationMessage | DiplomacyMessage | FinalMessage | ErrorMessage


class Sentinel(Enum):
    """What ``next_event`` returns when it has no message."""

    NEED_DATA = "NEED_DATA"
    """No complete message yet: feed more bytes."""
    CONNECTION_CLOSED = "CONNECTION_CLOSED"
    """The stream has ended, or the connection is closed."""

    def __repr__(self) -> str:
        return self.value


NEED_DATA = Sentinel.NEED_DATA
CONNECTION_CLOSED = Sentinel.CONNECTION_CLOSED
Event: TypeAlias = Message | Sentinel


# --- the codec ----------------------------------------------------------------------------------------------


def encode(message: Message) -> bytes:
    """The bytes of a message, header included (the pad octet is zero).

    >>> encode(DiplomacyMessage((Token.HLO,))).hex(" ")
    '02 00 00 02 48 04'
    """
    if isinstance(message, DiplomacyMessage):
        body = tokens_to_bytes(message.tokens)
    elif isinstance(message, InitialMessage):
        body = _PAIR.pack(message.version, message.magic)
    elif isinstance(message, RepresentationMessage):
        body = b"".join(_SHORT.pack(token) + name.encode("ascii") + b"\0" for token, name in message.entries)
    elif isinstance(message, ErrorMessage):
        body = _SHORT.pack(message.code)
    elif isinstance(message, FinalMessage):
        body = b""
    else:
        raise TypeError(f"not a DAIDE message: {message!r}")
    return _HEADER.pack(message.type, 0, len(body)) + body


def decode(data: bytes) -> Message:
    """The one message ``data`` holds, exactly; RemoteProtocolError if it holds anything else.

    >>> decode(bytes.fromhex("04 00 00 02 00 09"))
    ErrorMessage(code=<ErrorCode.LENGTH: 9>)
    """
    decoder = FrameDecoder(max_buffer_size=max(len(data), 1))
    if data:
        decoder.receive_data(data)
    decoder.receive_data(b"")
    message = decoder.next_event()
    if isinstance(message, Sentinel):
        raise RemoteProtocolError("no message", ErrorCode.LENGTH)
    if decoder.buffered:
        raise RemoteProtocolError(f"{decoder.buffered} octets after the message", ErrorCode.LENGTH)
    return message


class FrameDecoder:
    """An incremental decoder: bytes in, in chunks of any size, messages out.

    ``receive_data(b"")`` marks the end of the stream.  ``next_event`` returns a message, ``NEED_DATA``
    or ``CONNECTION_CLOSED``, or raises ``RemoteProtocolError`` for a frame that breaks the protocol, and
    raises it again ever after.  A header is checked as soon as it arrives, so a peer cannot make the
    decoder wait for (or store) more than ``max_length`` octets of a message it will refuse; and
    ``receive_data`` refuses to hold more than ``max_buffer_size`` octets, so a transport that reads in
    bounded chunks and takes the events after each read never needs more.

    >>> decoder = FrameDecoder()
    >>> for octet in bytes.fromhex("03 ff 00 00 02 00 00 02 48"):
    ...     decoder.receive_data(bytes([octet]))
    >>> decoder.next_event(), decoder.next_event()
    (FinalMessage(), NEED_DATA)
    >>> decoder.receive_data(bytes.fromhex("15"))
    >>> decoder.next_event()
    DiplomacyMessage(tokens=(18453,))
    """

    def __init__(
        self,
        *,
        max_length: int = MAX_LENGTH,
        max_buffer_size: int = DEFAULT_MAX_BUFFER_SIZE,
        versions: frozenset[int] = frozenset({PROTOCOL_VERSION}),
    ) -> None:
        self._buffer = bytearray()
        # Messages are read from _start on and the buffer compacted once per receive_data, so that
        # many small messages in one read cost linear time, not quadratic.
        self._start = 0
        self._max_length = max_length
        self._max_buffer_size = max_buffer_size
        self._versions = versions
        self._ended = False
        self._error: RemoteProtocolError | None = None

    @property
    def buffered(self) -> int:
        """Octets received and not yet turned into messages."""
        return len(self._buffer) - self._start

    @property
    def ended(self) -> bool:
        """Whether the end of the stream has been received."""
        return self._ended

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Add bytes from the peer; empty data marks the end of the stream.  Ignored after a protocol error."""
        if self._error is not None:
            return
        if self._ended:
            raise LocalProtocolError("data received after the end of the stream")
        if not data:
            self._ended = True
        elif self.buffered + len(data) > self._max_buffer_size:
            raise LocalProtocolError(
                f"more than {self._max_buffer_size} octets buffered: take the events before receiving more"
            )
        else:
            del self._buffer[: self._start]
            self._start = 0
            self._buffer += data

    def next_event(self) -> Event:
        """The next message, ``NEED_DATA`` or ``CONNECTION_CLOSED``."""
        if self._error is not None:
            raise self._error
        try:
            return self._next_event()
        except RemoteProtocolError as error:
            self._error = error
            self._buffer.clear()
            self._start = 0
            raise

    def __iter__(self) -> Iterator[Message]:
        """The messages that are complete now."""
        while not isinstance(event := self.next_event(), Sentinel):
            yield event

    def _next_event(self) -> Event:
        buffer, start = self._buffer, self._start
        available = len(buffer) - start
        if available < HEADER_SIZE:
            if not self._ended:
                return NEED_DATA
            if available:
                raise RemoteProtocolError("the stream ended inside a message header", ErrorCode.LENGTH)
            return CONNECTION_CLOSED
        kind, _, length = _HEADER.unpack_from(buffer, start)
        self._check_header(kind, length)
        if available < HEADER_SIZE + length:
            if self._ended:
                raise RemoteProtocolError(
                    f"the stream ended {HEADER_SIZE + length - available} octets into a message", ErrorCode.LENGTH
                )
            return NEED_DATA
        body = bytes(buffer[start + HEADER_SIZE : start + HEADER_SIZE + length])
        self._start = start + HEADER_SIZE + length
        return self._decode_body(MessageType(kind), body)

    def _check_header(self, kind: int, length: int) -> None:
        if kind not in _MESSAGE_TYPES:
            raise RemoteProtocolError(f"unknown message type {kind}", ErrorCode.MESSAGE_TYPE)
        name = MessageType(kind).name
        # The table of error codes has none for a message longer than it should be: LENGTH is the one
        # code about a length that does not fit the message.
        if kind == MessageType.IM and length == 0x0400:
            raise RemoteProtocolError("the IM's length field is little-endian", ErrorCode.ENDIAN)
        if kind == MessageType.IM and length != 4:
            raise RemoteProtocolError(f"an IM has 4 octets after its header, not {length}", ErrorCode.LENGTH)
        if kind == MessageType.FM and length != 0:
            raise RemoteProtocolError(f"an FM has no octets after its header, not {length}", ErrorCode.LENGTH)
        if kind == MessageType.EM and length != 2:
            raise RemoteProtocolError(f"an EM has 2 octets after its header, not {length}", ErrorCode.LENGTH)
        if kind == MessageType.DM and (length < 2 or length % 2):
            raise RemoteProtocolError(
                f"a DM holds one or more 2-octet tokens, so not {length} octets", ErrorCode.LENGTH
            )
        if kind == MessageType.RM and length % _RM_ENTRY_SIZE:
            raise RemoteProtocolError(f"an RM holds 6-octet entries, so not {length} octets", ErrorCode.LENGTH)
        if length > self._max_length:
            raise RemoteProtocolError(f"a {name} of {length} octets is over {self._max_length}", ErrorCode.LENGTH)

    def _decode_body(self, kind: MessageType, body: bytes) -> Message:
        if kind == MessageType.DM:
            tokens = bytes_to_tokens(body)
            for index, token in enumerate(tokens):
                if is_reserved(token):
                    raise RemoteProtocolError(
                        f"token {token:#06x} (token {index}) is reserved for private use", ErrorCode.ILLEGAL_TOKEN
                    )
            return DiplomacyMessage(tokens)
        if kind == MessageType.IM:
            version, magic = _PAIR.unpack(body)
            if magic == _SWAPPED_MAGIC_NUMBER:
                raise RemoteProtocolError("the IM is little-endian", ErrorCode.ENDIAN)
            if magic != MAGIC_NUMBER:
                raise RemoteProtocolError(f"the IM's magic number is {magic:#06x}, not 0xda10", ErrorCode.MAGIC)
            if version not in self._versions:
                raise RemoteProtocolError(f"protocol version {version} is not supported", ErrorCode.VERSION)
            return InitialMessage(version, magic)
        if kind == MessageType.RM:
            return _representation_message(body)
        if kind == MessageType.EM:
            return ErrorMessage(_SHORT.unpack(body)[0])
        return FinalMessage()


def _representation_message(body: bytes) -> RepresentationMessage:
    entries = []
    for index, offset in enumerate(range(0, len(body), _RM_ENTRY_SIZE)):
        (token,) = _SHORT.unpack_from(body, offset)
        name, zero = body[offset + 2 : offset + 5], body[offset + 5]
        if zero != 0 or not name.isascii():
            raise RemoteProtocolError(
                f"RM entry {index} is not a token, three ASCII characters and a zero octet", ErrorCode.ILLEGAL_TOKEN
            )
        entries.append((token, name.decode("ascii")))
    try:
        return RepresentationMessage(tuple(entries))
    except DaideTokenError as error:
        raise RemoteProtocolError(f"bad RM: {error}", ErrorCode.ILLEGAL_TOKEN) from None


# --- the conversation ---------------------------------------------------------------------------------------


class Role(Enum):
    """Which end of the connection a ``Connection`` is."""

    CLIENT = "client"
    SERVER = "server"


class ConnectionState(Enum):
    """Where a connection stands, for the side that holds it.

    The first four are the conversation's: both sides pass through them together, each when it sends or
    receives the message that moves it on.  ERROR is the state of one side alone (the peer does not know
    it), and so, until the other side hears of it, is CLOSED.
    """

    AWAIT_IM = "AWAIT_IM"
    """No IM yet: the client has not sent it, or the server not received it."""
    AWAIT_RM = "AWAIT_RM"
    """The IM is done, the first RM not yet: the client has not received it, or the server not sent it."""
    OPEN = "OPEN"
    """DMs may flow both ways."""
    GAME_SELECTED = "GAME_SELECTED"
    """Open, and the client has selected a game (``SEL ('name')``): the server may answer with a new RM,
    which makes the connection OPEN again (protocol document, section 5.1)."""
    ERROR = "ERROR"
    """The peer broke the protocol: only an EM may still be sent."""
    CLOSED = "CLOSED"
    """An FM or EM has been sent or received, or the stream has ended: nothing more may be sent."""


class MessageKind(Enum):
    """What the rules tell messages apart by: the five types, and among DMs the game selections
    (``SEL ('name')``), the one DM that changes what may follow (a new RM).  A bare ``SEL`` asks the
    game's name and is a plain DM."""

    IM = "IM"
    RM = "RM"
    DM = "DM"
    SEL = "SEL"
    FM = "FM"
    EM = "EM"

    @classmethod
    def of(cls, message: Message) -> MessageKind:
        """The kind of a message.

        >>> MessageKind.of(DiplomacyMessage.from_text("SEL ('other')")), MessageKind.of(FinalMessage())
        (<MessageKind.SEL: 'SEL'>, <MessageKind.FM: 'FM'>)
        """
        if isinstance(message, DiplomacyMessage) and len(message.tokens) > 1 and message.tokens[0] == Token.SEL:
            return cls.SEL
        return cls[message.type.name]


@dataclass(frozen=True, slots=True)
class Breach:
    """A message the rules refuse: why, and the EM error code the side that receives it answers with.

    The sender's ``send`` raises it as a ``LocalProtocolError``, the receiver's ``next_event`` as a
    ``RemoteProtocolError``: the same breach, with the same code, either way.  ``code`` is None only in the
    rows of ERROR and CLOSED, which only ``send`` consults: nothing is decoded in those states.
    """

    reason: str
    code: ErrorCode | None = None


Verdict: TypeAlias = ConnectionState | Breach
"""What a message does where it is sent: the state it leads to, or the breach it is."""

# One value per breach, so that the table below reads as a grid.  The reasons are worded for both ends.
_NOT_IM = Breach("the client's first message is the IM", ErrorCode.NOT_IM)
_DUPLICATE_IM = Breach("more than one IM sent", ErrorCode.DUPLICATE_IM)
_CLIENT_RM = Breach("RM sent by client", ErrorCode.CLIENT_RM)
_EARLY_DM = Breach("DM sent before the RM", ErrorCode.EARLY_DM)
_SERVER_IM = Breach("IM sent by server", ErrorCode.SERVER_IM)
_NOT_RM = Breach("the server's first message is the RM", ErrorCode.NOT_RM)
_UNEXPECTED_RM = Breach("unexpected RM: an RM answers the IM or a game selection", ErrorCode.UNEXPECTED_RM)
_FAILED = Breach("the peer broke the protocol: only an EM may be sent")
_ENDED = Breach("the connection is closed: nothing more may be sent")

_S = ConnectionState  # short, for the grids
# One grid per sender: rows are states, columns the kinds in MessageKind's order, and a cell is the state
# the message leads to, or its breach.  Why the cells are what they are:
# - an EM may be sent at any time before the end, and ends the connection;
# - an FM ends it too once the sender's first message is past: the client may leave right after its IM,
#   but the server's first message is the RM;
# - SEL differs from DM only where the client selects a game: then the server may send one new RM, which
#   makes the connection OPEN again; the server's own SEL is a plain DM;
# - what the server sends before the IM is judged as the client, who receives it, judges it: an RM that
#   answers no IM, a DM before the RM, an FM where the RM should come;
# - the ERROR and CLOSED rows are one side's own, the same for both senders, and consulted by send alone.
# fmt: off
_GRIDS: dict[Role, dict[ConnectionState, tuple[Verdict, ...]]] = {
    Role.CLIENT: {
        #                  IM             RM              DM                SEL               FM         EM
        _S.AWAIT_IM:      (_S.AWAIT_RM,   _NOT_IM,        _NOT_IM,          _NOT_IM,          _NOT_IM,   _S.CLOSED),
        _S.AWAIT_RM:      (_DUPLICATE_IM, _CLIENT_RM,     _EARLY_DM,        _EARLY_DM,        _S.CLOSED, _S.CLOSED),
        _S.OPEN:          (_DUPLICATE_IM, _CLIENT_RM,     _S.OPEN,          _S.GAME_SELECTED, _S.CLOSED, _S.CLOSED),
        _S.GAME_SELECTED: (_DUPLICATE_IM, _CLIENT_RM,     _S.GAME_SELECTED, _S.GAME_SELECTED, _S.CLOSED, _S.CLOSED),
        _S.ERROR:         (_FAILED,       _FAILED,        _FAILED,          _FAILED,          _FAILED,   _S.CLOSED),
        _S.CLOSED:        (_ENDED,        _ENDED,         _ENDED,           _ENDED,           _ENDED,    _ENDED),
    },
    Role.SERVER: {
        #                  IM             RM              DM                SEL               FM         EM
        _S.AWAIT_IM:      (_SERVER_IM,    _UNEXPECTED_RM, _EARLY_DM,        _EARLY_DM,        _NOT_RM,   _S.CLOSED),
        _S.AWAIT_RM:      (_SERVER_IM,    _S.OPEN,        _EARLY_DM,        _EARLY_DM,        _NOT_RM,   _S.CLOSED),
        _S.OPEN:          (_SERVER_IM,    _UNEXPECTED_RM, _S.OPEN,          _S.OPEN,          _S.CLOSED, _S.CLOSED),
        _S.GAME_SELECTED: (_SERVER_IM,    _S.OPEN,        _S.GAME_SELECTED, _S.GAME_SELECTED, _S.CLOSED, _S.CLOSED),
        _S.ERROR:         (_FAILED,       _FAILED,        _FAILED,          _FAILED,          _FAILED,   _S.CLOSED),
        _S.CLOSED:        (_ENDED,        _ENDED,         _ENDED,           _ENDED,           _ENDED,    _ENDED),
    },
}
# fmt: on

RULES: Mapping[tuple[Role, ConnectionState, MessageKind], Verdict] = MappingProxyType(
    {
        (sender, state, kind): verdict
        for sender, grid in _GRIDS.items()
        for state, row in grid.items()
        for kind, verdict in zip(MessageKind, row, strict=True)
    }
)
"""The rules of the conversation: (the sender's role, the state, the message's kind) -> the verdict."""


class Connection:
    """The rules of the conversation for one side: the IM first from the client, the RM first from the
    server, DMs only after the RM, another RM only in answer to a game selection (``SEL ('name')``),
    and nothing after an FM or EM, sent or received.

    ``send`` checks a message and returns its bytes, or raises ``LocalProtocolError``;
    ``receive_data`` and ``next_event`` work as ``FrameDecoder``'s, and raise ``RemoteProtocolError``
    with the error code to send back when the peer breaks a rule.  ``representation`` is the set of
    powers and provinces the last RM put in force.

    Both look the message up in ``RULES``, keyed by who sends it, so the two ends of a connection judge
    a message alike: where the client's ``send`` refuses one, the server's ``next_event`` refuses the
    same one with the same code.

    >>> RULES[Role.CLIENT, ConnectionState.OPEN, MessageKind.SEL]
    <ConnectionState.GAME_SELECTED: 'GAME_SELECTED'>
    >>> RULES[Role.SERVER, ConnectionState.OPEN, MessageKind.RM]
    Breach(reason='unexpected RM: an RM answers the IM or a game selection', code=<ErrorCode.UNEXPECTED_RM: 12>)
    >>> client = Connection(Role.CLIENT)
    >>> client.send(DiplomacyMessage.from_text("NME ('bot') ('1.0')"))
    Traceback (most recent call last):
    ...
    protocol.daide.framing.LocalProtocolError: the client's first message is the IM (EM 0x02)
    """

    def __init__(
        self,
        our_role: Role,
        *,
        max_length: int = MAX_LENGTH,
        max_buffer_size: int = DEFAULT_MAX_BUFFER_SIZE,
        versions: frozenset[int] = frozenset({PROTOCOL_VERSION}),
    ) -> None:
        self.our_role = our_role
        self._decoder = FrameDecoder(max_length=max_length, max_buffer_size=max_buffer_size, versions=versions)
        self._state = ConnectionState.AWAIT_IM
        # The peer's breach, kept for next_event to raise again in the ERROR state (as FrameDecoder does).
        self._error: RemoteProtocolError | None = None
        # The IM timer stops at the first octet, not at the first message (section 2.2): no rule's business.
        self._received_data = False
        self._representation = STANDARD

    @property
    def their_role(self) -> Role:
        return Role.SERVER if self.our_role is Role.CLIENT else Role.CLIENT

    @property
    def state(self) -> ConnectionState:
        return self._state

    @property
    def representation(self) -> Representation:
        return self._representation

    def send(self, message: Message) -> bytes:
        """The bytes to send for ``message``, once the rules allow it."""
        data = encode(message)  # first, so that what is no message changes no state
        self._follow(self.our_role, message)
        return data

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Add bytes from the peer; empty data marks the end of the stream.  Ignored once closed or failed."""
        if self._state in (ConnectionState.CLOSED, ConnectionState.ERROR):
            return
        if data:
            self._received_data = True
        self._decoder.receive_data(data)

    def next_event(self) -> Event:
        """The next message from the peer, ``NEED_DATA`` or ``CONNECTION_CLOSED``."""
        # Nothing is decoded once closed or failed, so RULES' rows for these two states serve send alone.
        if self._state is ConnectionState.CLOSED:
            return CONNECTION_CLOSED
        if self._state is ConnectionState.ERROR:
            assert self._error is not None  # set with the state
            raise self._error
        try:
            event = self._decoder.next_event()
            if event is CONNECTION_CLOSED:
                self._state = ConnectionState.CLOSED  # the end of the stream is no message: no rule needed
            elif not isinstance(event, Sentinel):
                self._follow(self.their_role, event)
        except RemoteProtocolError as error:
            self._error = error
            self._state = ConnectionState.ERROR
            raise
        return event

    def __iter__(self) -> Iterator[Message]:
        """The messages that are complete now."""
        while not isinstance(event := self.next_event(), Sentinel):
            yield event

    def im_timer_expired(self) -> ErrorMessage | None:
        """The EM the server sends when its IM timer (``IM_TIMEOUT``) pops: None if data came in time.

        >>> Connection(Role.SERVER).im_timer_expired()
        ErrorMessage(code=<ErrorCode.TIMEOUT: 1>)
        """
        if self.our_role is not Role.SERVER:
            raise LocalProtocolError("only the server runs the IM timer")
        if self._received_data or self._state is ConnectionState.CLOSED:
            return None
        return ErrorMessage(ErrorCode.TIMEOUT)

    def _follow(self, sender: Role, message: Message) -> None:
        """Move on as RULES says for ``message`` from ``sender``, or raise the breach: the one path of both
        directions, which decides only the class of the error."""
        verdict = RULES[sender, self._state, MessageKind.of(message)]
        if isinstance(verdict, Breach):
            if sender is self.our_role:
                raise LocalProtocolError(verdict.reason, verdict.code)
            # Only the ERROR and CLOSED rows lack a code, and next_event consults neither.
            assert verdict.code is not None, verdict
            raise RemoteProtocolError(verdict.reason, verdict.code)
        self._state = verdict
        if isinstance(message, RepresentationMessage):
            self._representation = message.representation
