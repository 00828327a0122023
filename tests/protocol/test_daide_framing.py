"""The binary framing and the connection rules of the DAIDE client-server protocol (protocol.daide.framing)."""

from __future__ import annotations

import doctest
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.daide import framing as framing_module
from protocol.daide.framing import (
    CONNECTION_CLOSED,
    DEFAULT_MAX_BUFFER_SIZE,
    MAX_LENGTH,
    NEED_DATA,
    RULES,
    Breach,
    Connection,
    ConnectionState,
    DaideProtocolError,
    DiplomacyMessage,
    ErrorCode,
    ErrorMessage,
    FinalMessage,
    FrameDecoder,
    InitialMessage,
    LocalProtocolError,
    Message,
    MessageKind,
    MessageType,
    RemoteProtocolError,
    RepresentationMessage,
    Role,
    decode,
    encode,
)
from protocol.daide.tokens import STANDARD, DaideTokenError, Token, text_to_tokens

# The error code table of the protocol document, extracted once; the file's "source" field says where from.
ERROR_CODES = Path(__file__).resolve().parents[1] / "data" / "daide-error-codes.json"
VARIANT = ((0x4100, "ONE"), (0x4101, "TWO"), (0x5000, "HOM"), (0x5501, "AWA"))


def test_doctests() -> None:
    result = doctest.testmod(framing_module)
    assert result.attempted > 10
    assert result.failed == 0


def feed(decoder: FrameDecoder | Connection, data: bytes) -> list:
    decoder.receive_data(data)
    return list(decoder)


def header(kind: int, length: int, pad: int = 0) -> bytes:
    return bytes([kind, pad]) + length.to_bytes(2, "big")


def error_code(decoder: FrameDecoder | Connection, data: bytes) -> ErrorCode:
    with pytest.raises(RemoteProtocolError) as error:
        feed(decoder, data)
    return error.value.code


# --- the examples of the protocol document -----------------------------------------------------------------


def test_initial_message_bytes() -> None:
    # Section 3.2: type 0, remaining length 4, version 1, magic number 0xDA10.
    data = bytes.fromhex("00 00 00 04 00 01 DA 10")
    assert encode(InitialMessage()) == data
    assert decode(data) == InitialMessage(version=1, magic=0xDA10)


def test_fixed_messages_bytes() -> None:
    assert encode(FinalMessage()) == bytes.fromhex("03 00 00 00")
    assert encode(ErrorMessage(ErrorCode.ILLEGAL_TOKEN)) == bytes.fromhex("04 00 00 02 00 0E")
    assert encode(RepresentationMessage()) == bytes.fromhex("01 00 00 00")


def test_representation_message_bytes() -> None:
    data = encode(RepresentationMessage(VARIANT))
    assert data[:4] == bytes.fromhex("01 00 00 18")
    assert data[4:10] == b"\x41\x00ONE\x00"
    assert data[-6:] == b"\x55\x01AWA\x00"
    assert decode(data).representation.token("HOM") == 0x5000


def test_diplomacy_message_bytes() -> None:
    message = DiplomacyMessage.from_text("SUB (SPR 1901) ((ENG FLT LON) MTO NTH)")
    data = encode(message)
    assert data[:4] == bytes.fromhex("02 00 00 1C")
    assert data[4:10] == bytes.fromhex("4818 4000 4700")
    assert decode(data) == message


def test_message_types() -> None:
    assert [(t.name, t.value) for t in MessageType] == [("IM", 0), ("RM", 1), ("DM", 2), ("FM", 3), ("EM", 4)]
    for message in [InitialMessage(), RepresentationMessage(), DiplomacyMessage((Token.HLO,)), FinalMessage()]:
        assert encode(message)[0] == message.type


def test_error_codes_are_those_of_the_document() -> None:
    table = json.loads(ERROR_CODES.read_text(encoding="utf-8"))
    assert "section 3.6" in table["source"]
    rows = [(row["name"], row["code"], row["meaning"]) for row in table["codes"]]
    assert len(rows) == 14
    assert {int(code, 16): meaning for _, code, meaning in rows} == {c.value: c.meaning for c in ErrorCode}


def test_pad_octet_is_ignored() -> None:
    decoder = FrameDecoder()
    assert feed(decoder, header(3, 0, pad=0xA5) + header(2, 2, pad=0xFF) + b"\x48\x15") == [
        FinalMessage(),
        DiplomacyMessage((Token.SCO,)),
    ]


# --- decoding errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (header(5, 0), ErrorCode.MESSAGE_TYPE),
        (header(0xFF, 2), ErrorCode.MESSAGE_TYPE),
        (header(0, 3), ErrorCode.LENGTH),
        (header(0, 5), ErrorCode.LENGTH),
        (header(1, 7), ErrorCode.LENGTH),
        (header(2, 0), ErrorCode.LENGTH),
        (header(2, 3), ErrorCode.LENGTH),
        (header(3, 1), ErrorCode.LENGTH),
        (header(4, 0), ErrorCode.LENGTH),
        (header(4, 4), ErrorCode.LENGTH),
        (bytes.fromhex("00 00 04 00"), ErrorCode.ENDIAN),
        (bytes.fromhex("00 00 00 04 01 00 10 DA"), ErrorCode.ENDIAN),
        (bytes.fromhex("00 00 00 04 00 01 DA 11"), ErrorCode.MAGIC),
        (bytes.fromhex("00 00 00 04 00 02 DA 10"), ErrorCode.VERSION),
        (header(2, 4) + bytes.fromhex("4804 5800"), ErrorCode.ILLEGAL_TOKEN),
        (header(2, 2) + bytes.fromhex("5F12"), ErrorCode.ILLEGAL_TOKEN),
        (header(1, 6) + b"\x42\x00ONE\x00", ErrorCode.ILLEGAL_TOKEN),  # a unit type
        (header(1, 6) + b"\x41\x00ONE\x01", ErrorCode.ILLEGAL_TOKEN),  # no zero octet
        (header(1, 6) + b"\x41\x00O\xffE\x00", ErrorCode.ILLEGAL_TOKEN),  # not ASCII
        (header(1, 6) + b"\x41\x01ONE\x00", ErrorCode.ILLEGAL_TOKEN),  # powers from 1
        (header(1, 12) + b"\x41\x00ONE\x00\x41\x00TWO\x00", ErrorCode.ILLEGAL_TOKEN),  # twice
    ],
)
def test_frames_that_break_the_protocol(data: bytes, code: ErrorCode) -> None:
    assert error_code(FrameDecoder(), data) == code


def test_header_is_checked_before_the_body_arrives() -> None:
    decoder = FrameDecoder(max_length=100)
    assert error_code(decoder, header(2, 102)) == ErrorCode.LENGTH
    assert decoder.buffered == 0


def test_errors_stick() -> None:
    decoder = FrameDecoder()
    assert error_code(decoder, header(9, 0) + encode(FinalMessage())) == ErrorCode.MESSAGE_TYPE
    decoder.receive_data(encode(FinalMessage()) * DEFAULT_MAX_BUFFER_SIZE)
    assert decoder.buffered == 0
    with pytest.raises(RemoteProtocolError):
        decoder.next_event()


def test_other_versions_when_configured() -> None:
    data = bytes.fromhex("00 00 00 04 00 02 DA 10")
    assert feed(FrameDecoder(versions=frozenset({1, 2})), data) == [InitialMessage(version=2)]


def test_end_of_stream() -> None:
    decoder = FrameDecoder()
    decoder.receive_data(encode(FinalMessage()))
    decoder.receive_data(b"")
    assert decoder.ended
    assert decoder.next_event() == FinalMessage()
    assert decoder.next_event() is CONNECTION_CLOSED
    with pytest.raises(LocalProtocolError):
        decoder.receive_data(b"\x00")


@pytest.mark.parametrize("cut", [1, 3, 4, 7])
def test_end_of_stream_inside_a_message(cut: int) -> None:
    decoder = FrameDecoder()
    decoder.receive_data(encode(InitialMessage())[:cut])
    assert decoder.next_event() is NEED_DATA
    decoder.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as error:
        decoder.next_event()
    assert error.value.code == ErrorCode.LENGTH


def test_unknown_error_codes_are_kept() -> None:
    assert decode(header(4, 2) + b"\x00\x2a") == ErrorMessage(0x2A)
    assert decode(header(4, 2) + b"\x00\x05").code is ErrorCode.VERSION


def test_decode_wants_exactly_one_message() -> None:
    for data in [b"", encode(FinalMessage()) * 2, encode(FinalMessage())[:3]]:
        with pytest.raises(RemoteProtocolError):
            decode(data)


def test_buffer_is_bounded() -> None:
    decoder = FrameDecoder(max_buffer_size=12)
    decoder.receive_data(header(2, 8) + b"\x48\x04")
    with pytest.raises(LocalProtocolError):
        decoder.receive_data(b"\x48\x04\x48\x04\x48\x04\x48")
    assert decoder.buffered == 6
    decoder.receive_data(b"\x48\x04" * 3)
    assert list(decoder) == [DiplomacyMessage((Token.HLO,) * 4)]
    assert decoder.buffered == 0


def test_a_trickling_peer_costs_nothing() -> None:
    decoder = FrameDecoder()
    data = encode(DiplomacyMessage.from_text("NME ('slow') ('1')"))
    for octet in data[:-1]:
        decoder.receive_data(bytes([octet]))
        assert decoder.next_event() is NEED_DATA
    decoder.receive_data(data[-1:])
    assert decoder.next_event() == DiplomacyMessage.from_text("NME ('slow') ('1')")


# --- messages -----------------------------------------------------------------------------------------------


def test_message_values_check_themselves() -> None:
    with pytest.raises(DaideTokenError):
        DiplomacyMessage(())
    with pytest.raises(DaideTokenError):
        DiplomacyMessage((0x5800,))
    with pytest.raises(DaideTokenError):
        DiplomacyMessage((0x10000,))
    with pytest.raises(DaideTokenError):
        DiplomacyMessage((Token.HLO,) * (MAX_LENGTH // 2 + 1))
    with pytest.raises(DaideTokenError):
        RepresentationMessage(((0x4100, "SUB"),))
    with pytest.raises(ValueError):
        InitialMessage(version=0x10000)
    with pytest.raises(ValueError):
        ErrorMessage(-1)


def test_messages_are_hashable_values() -> None:
    assert DiplomacyMessage([Token.HLO]) == DiplomacyMessage((0x4804,))
    assert len({DiplomacyMessage((Token.HLO,)), DiplomacyMessage((0x4804,)), FinalMessage(), FinalMessage()}) == 2
    assert RepresentationMessage([(0x4100, "ONE")]) == RepresentationMessage(((0x4100, "ONE"),))
    assert ErrorMessage(5) == ErrorMessage(ErrorCode.VERSION)
    with pytest.raises(AttributeError):
        DiplomacyMessage((Token.HLO,)).tokens = ()  # type: ignore[misc]


def test_representation_message_without_entries_is_standard() -> None:
    assert RepresentationMessage().representation is STANDARD
    variant = RepresentationMessage(VARIANT).representation
    assert variant.powers == (0x4100, 0x4101)
    assert DiplomacyMessage.from_text("SCO (ONE HOM)", variant).to_text(variant) == "SCO (ONE HOM)"


# --- the connection rules ------------------------------------------------------------------------------------


def handshake() -> tuple[Connection, Connection]:
    client, server = Connection(Role.CLIENT), Connection(Role.SERVER)
    assert client.state is server.state is ConnectionState.AWAIT_IM
    assert feed(server, client.send(InitialMessage())) == [InitialMessage()]
    assert client.state is server.state is ConnectionState.AWAIT_RM
    assert feed(client, server.send(RepresentationMessage())) == [RepresentationMessage()]
    assert client.state is server.state is ConnectionState.OPEN
    return client, server


def test_a_whole_conversation() -> None:
    client, server = handshake()
    assert client.their_role is Role.SERVER and server.their_role is Role.CLIENT
    hello = DiplomacyMessage.from_text("NME ('bot') ('1.0')")
    assert feed(server, client.send(hello)) == [hello]
    yes = DiplomacyMessage((Token.YES, Token.BRA, *hello.tokens, Token.KET))
    assert feed(client, server.send(yes)) == [yes]
    assert feed(server, client.send(FinalMessage())) == [FinalMessage()]
    assert client.state is server.state is ConnectionState.CLOSED
    assert server.next_event() is CONNECTION_CLOSED


def test_server_gets_the_variant_representation() -> None:
    client, server = Connection(Role.CLIENT), Connection(Role.SERVER)
    feed(server, client.send(InitialMessage()))
    feed(client, server.send(RepresentationMessage(VARIANT)))
    assert client.representation == server.representation == RepresentationMessage(VARIANT).representation


@pytest.mark.parametrize(
    ("first", "code"),
    [
        (DiplomacyMessage((Token.NME,)), ErrorCode.NOT_IM),
        (FinalMessage(), ErrorCode.NOT_IM),
        (RepresentationMessage(), ErrorCode.NOT_IM),
    ],
)
def test_server_wants_the_im_first(first: Message, code: ErrorCode) -> None:
    server = Connection(Role.SERVER)
    assert error_code(server, encode(first)) == code
    assert server.state is ConnectionState.ERROR


def test_server_receiving_rules() -> None:
    server = Connection(Role.SERVER)
    feed(server, encode(InitialMessage()))
    assert error_code(server, encode(DiplomacyMessage((Token.NME,)))) == ErrorCode.EARLY_DM
    server = Connection(Role.SERVER)
    feed(server, encode(InitialMessage()))
    server.send(RepresentationMessage())
    assert error_code(server, encode(RepresentationMessage())) == ErrorCode.CLIENT_RM
    server = Connection(Role.SERVER)
    feed(server, encode(InitialMessage()))
    assert error_code(server, encode(InitialMessage())) == ErrorCode.DUPLICATE_IM


def test_client_receiving_rules() -> None:
    def client_after_im() -> Connection:
        client = Connection(Role.CLIENT)
        client.send(InitialMessage())
        return client

    assert error_code(client_after_im(), encode(InitialMessage())) == ErrorCode.SERVER_IM
    assert error_code(client_after_im(), encode(DiplomacyMessage((Token.HLO,)))) == ErrorCode.EARLY_DM
    assert error_code(client_after_im(), encode(FinalMessage())) == ErrorCode.NOT_RM
    assert error_code(Connection(Role.CLIENT), encode(RepresentationMessage())) == ErrorCode.UNEXPECTED_RM
    client, _ = handshake()
    assert error_code(client, encode(RepresentationMessage())) == ErrorCode.UNEXPECTED_RM


def test_error_code_of_a_broken_frame_reaches_the_connection() -> None:
    server = Connection(Role.SERVER)
    assert error_code(server, bytes.fromhex("00 00 00 04 00 01 DA 11")) == ErrorCode.MAGIC
    assert server.send(ErrorMessage(ErrorCode.MAGIC)) == bytes.fromhex("04 00 00 02 00 04")
    assert server.state is ConnectionState.CLOSED


def test_a_new_rm_answers_a_game_selection() -> None:
    client, server = handshake()
    with pytest.raises(LocalProtocolError):
        server.send(RepresentationMessage(VARIANT))
    feed(server, client.send(DiplomacyMessage((Token.SEL,))))  # asks the game's name: no new map
    with pytest.raises(LocalProtocolError):
        server.send(RepresentationMessage(VARIANT))
    feed(server, client.send(DiplomacyMessage.from_text("SEL ('other')")))
    assert feed(client, server.send(RepresentationMessage(VARIANT))) == [RepresentationMessage(VARIANT)]
    assert client.representation.name(0x5000) == server.representation.name(0x5000) == "HOM"
    assert error_code(client, encode(RepresentationMessage())) == ErrorCode.UNEXPECTED_RM


def test_an_em_may_come_at_any_time_and_ends_the_connection() -> None:
    for role in Role:
        connection = Connection(role)
        assert feed(connection, encode(ErrorMessage(ErrorCode.TIMEOUT)) + encode(FinalMessage())) == [
            ErrorMessage(ErrorCode.TIMEOUT)
        ]
        assert connection.state is ConnectionState.CLOSED
        with pytest.raises(LocalProtocolError):
            connection.send(ErrorMessage(ErrorCode.LENGTH))


@pytest.mark.parametrize(
    ("role", "before", "message", "code"),
    [
        (Role.CLIENT, [], DiplomacyMessage((Token.NME,)), ErrorCode.NOT_IM),
        (Role.CLIENT, [], FinalMessage(), ErrorCode.NOT_IM),
        (Role.CLIENT, [InitialMessage()], InitialMessage(), ErrorCode.DUPLICATE_IM),
        (Role.CLIENT, [InitialMessage()], DiplomacyMessage((Token.NME,)), ErrorCode.EARLY_DM),
        (Role.CLIENT, [InitialMessage()], RepresentationMessage(), ErrorCode.CLIENT_RM),
        (Role.SERVER, [], InitialMessage(), ErrorCode.SERVER_IM),
        # An RM before the IM: the server is told what the client that receives it answers (RULES is one
        # table for both ends), where it used to be told NOT_IM.
        (Role.SERVER, [], RepresentationMessage(), ErrorCode.UNEXPECTED_RM),
        (Role.SERVER, [InitialMessage()], DiplomacyMessage((Token.HLO,)), ErrorCode.EARLY_DM),
        (Role.SERVER, [InitialMessage()], FinalMessage(), ErrorCode.NOT_RM),
    ],
)
def test_local_rules(role: Role, before: list[Message], message: Message, code: ErrorCode) -> None:
    connection = Connection(role)
    for earlier in before:
        if role is Role.CLIENT:
            connection.send(earlier)
        else:
            feed(connection, encode(earlier))
    state = connection.state
    with pytest.raises(LocalProtocolError) as error:
        connection.send(message)
    assert error.value.code == code
    assert connection.state is state


def test_nothing_after_a_final_message() -> None:
    client, server = handshake()
    client.send(FinalMessage())
    for message in [FinalMessage(), ErrorMessage(ErrorCode.LENGTH), DiplomacyMessage((Token.HLO,))]:
        with pytest.raises(LocalProtocolError):
            client.send(message)
    feed(server, encode(FinalMessage()))
    with pytest.raises(LocalProtocolError):
        server.send(ErrorMessage(ErrorCode.LENGTH))
    assert feed(server, encode(DiplomacyMessage((Token.HLO,)))) == []
    assert server.next_event() is CONNECTION_CLOSED


def test_after_a_peer_error_only_an_em() -> None:
    _, server = handshake()
    assert error_code(server, header(7, 0)) == ErrorCode.MESSAGE_TYPE
    with pytest.raises(LocalProtocolError):
        server.send(DiplomacyMessage((Token.OFF,)))
    with pytest.raises(RemoteProtocolError):
        server.next_event()
    server.send(ErrorMessage(ErrorCode.MESSAGE_TYPE))
    assert server.state is ConnectionState.CLOSED


def test_stream_ending_closes_the_connection() -> None:
    client, _ = handshake()
    client.receive_data(b"")
    assert client.next_event() is CONNECTION_CLOSED
    assert client.state is ConnectionState.CLOSED


def test_im_timer() -> None:
    server = Connection(Role.SERVER)
    assert server.im_timer_expired() == ErrorMessage(ErrorCode.TIMEOUT)
    server.receive_data(b"\x00")
    assert server.im_timer_expired() is None
    with pytest.raises(LocalProtocolError):
        Connection(Role.CLIENT).im_timer_expired()


# --- the table of rules, walked cell by cell ---------------------------------------------------------------

Outcome = ConnectionState | ErrorCode | None
"""What a message does: the state it leads to, the error code of its breach, or None for a breach no EM answers."""

CONVERSATION = (ConnectionState.AWAIT_IM, ConnectionState.AWAIT_RM, ConnectionState.OPEN, ConnectionState.GAME_SELECTED)
"""The states both ends pass through together; ERROR and CLOSED are one side's own."""

# Messages of each kind, told apart by hand rather than by MessageKind.of.  A bare SEL asks the game's name
# and selects nothing, so it is a plain DM.
SAMPLES: dict[MessageKind, list[Message]] = {
    MessageKind.IM: [InitialMessage()],
    MessageKind.RM: [RepresentationMessage(), RepresentationMessage(VARIANT)],
    MessageKind.DM: [DiplomacyMessage.from_text("NME ('bot') ('1.0')"), DiplomacyMessage((Token.SEL,))],
    MessageKind.SEL: [DiplomacyMessage.from_text("SEL ('other')")],
    MessageKind.FM: [FinalMessage()],
    MessageKind.EM: [ErrorMessage(ErrorCode.LENGTH), ErrorMessage(0x2A)],
}


def described(sender: Role, state: ConnectionState, kind: MessageKind) -> Outcome:
    """What the protocol document's prose (chapter 3, section 5.1) says of a ``kind`` that ``sender`` sends in
    ``state``, written out as rules in words rather than as RULES' grid, so that the two check each other."""
    S, K = ConnectionState, MessageKind
    if state is S.CLOSED:
        return None  # nothing after an FM or EM, not even an EM
    if kind is K.EM:
        return S.CLOSED  # an EM may be sent at any time, and ends the connection
    if state is S.ERROR:
        return None  # to a peer that broke the protocol, only an EM
    if sender is Role.CLIENT:
        if state is S.AWAIT_IM:
            return S.AWAIT_RM if kind is K.IM else ErrorCode.NOT_IM  # the client's first message is the IM
        if kind is K.IM:
            return ErrorCode.DUPLICATE_IM  # and it sends only one
        if kind is K.RM:
            return ErrorCode.CLIENT_RM  # only the server sends RMs
        if kind is K.FM:
            return S.CLOSED  # the client may leave once its IM is sent
        if state is S.AWAIT_RM:
            return ErrorCode.EARLY_DM  # no DM before the RM
        # A game selection lets the server send a new RM, until it has.
        return S.GAME_SELECTED if kind is K.SEL or state is S.GAME_SELECTED else S.OPEN
    if kind is K.IM:
        return ErrorCode.SERVER_IM  # only the client sends the IM
    if kind is K.RM:  # an RM answers the IM, or a game selection, and nothing else
        return S.OPEN if state in (S.AWAIT_RM, S.GAME_SELECTED) else ErrorCode.UNEXPECTED_RM
    if state in (S.AWAIT_IM, S.AWAIT_RM):  # the server's first message is the RM
        return ErrorCode.EARLY_DM if kind in (K.DM, K.SEL) else ErrorCode.NOT_RM
    if kind is K.FM:
        return S.CLOSED
    return state  # the server's DMs change nothing: a game selection stays answerable


def pair_in(state: ConnectionState) -> tuple[Connection, Connection]:
    """A client and a server that have talked their way into ``state``."""
    client, server = Connection(Role.CLIENT), Connection(Role.SERVER)
    way = [
        (client, server, InitialMessage()),
        (server, client, RepresentationMessage()),
        (client, server, DiplomacyMessage.from_text("SEL ('first')")),
    ]
    for sender, receiver, message in way[: CONVERSATION.index(state)]:
        assert feed(receiver, sender.send(message)) == [message]
    assert client.state is server.state is state
    return client, server


def sent(connection: Connection, message: Message) -> Outcome:
    before = connection.state
    try:
        connection.send(message)
    except LocalProtocolError as error:
        assert connection.state is before  # refused: nothing sent, nothing changed
        return error.code
    return connection.state


def received(connection: Connection, message: Message) -> Outcome:
    try:
        events = feed(connection, encode(message))
    except RemoteProtocolError as error:
        assert connection.state is ConnectionState.ERROR
        assert error.error_message == ErrorMessage(error.code)  # an EM answers every breach received
        return error.code
    assert events == [message]
    return connection.state


def test_the_table_has_every_cell_and_says_what_the_description_says() -> None:
    assert set(RULES) == set(itertools.product(Role, ConnectionState, MessageKind))
    for (sender, state, kind), verdict in RULES.items():
        outcome = verdict.code if isinstance(verdict, Breach) else verdict
        assert outcome == described(sender, state, kind), (sender, state, kind, verdict)
        # What can be received is answered with an EM: only rows that nothing is decoded in lack a code.
        assert state not in CONVERSATION or outcome is not None


def test_samples_are_of_their_kinds() -> None:
    for kind, samples in SAMPLES.items():
        assert {MessageKind.of(message) for message in samples} == {kind}


@pytest.mark.parametrize(("sender", "state", "kind"), list(itertools.product(Role, CONVERSATION, MessageKind)))
def test_both_ends_judge_a_message_alike(sender: Role, state: ConnectionState, kind: MessageKind) -> None:
    expected = described(sender, state, kind)
    for message in SAMPLES[kind]:
        client, server = pair_in(state)
        ours, theirs = (client, server) if sender is Role.CLIENT else (server, client)
        assert sent(ours, message) == received(theirs, message) == expected
        if isinstance(message, RepresentationMessage) and isinstance(expected, ConnectionState):
            assert ours.representation == theirs.representation == message.representation


def _closed_by(role: Role, how: str) -> Connection:
    connection = Connection(role)
    if how == "sent EM":
        connection.send(ErrorMessage(ErrorCode.LENGTH))
    elif how == "received EM":
        feed(connection, encode(ErrorMessage(ErrorCode.LENGTH)))
    elif how == "stream ended":
        connection.receive_data(b"")
        assert connection.next_event() is CONNECTION_CLOSED
    else:
        client, server = handshake()
        ours, theirs = (client, server) if role is Role.CLIENT else (server, client)
        if how == "sent FM":
            ours.send(FinalMessage())
        else:
            feed(ours, theirs.send(FinalMessage()))
        connection = ours
    return connection


def _failed_by(role: Role, how: str) -> Connection:
    if how == "broken frame":
        connection, data = Connection(role), header(7, 0)  # a message type of no known kind
    else:
        client, server = handshake()
        connection = client if role is Role.CLIENT else server
        data = encode(InitialMessage())  # an IM from the server, or a second one from the client
    with pytest.raises(RemoteProtocolError):
        feed(connection, data)
    return connection


@pytest.mark.parametrize(("role", "kind"), list(itertools.product(Role, MessageKind)))
def test_a_closed_side_refuses_everything_and_hears_nothing(role: Role, kind: MessageKind) -> None:
    expected = described(role, ConnectionState.CLOSED, kind)
    for how in ["sent EM", "received EM", "stream ended", "sent FM", "received FM"]:
        for message in SAMPLES[kind]:
            connection = _closed_by(role, how)
            assert connection.state is ConnectionState.CLOSED, how
            assert sent(connection, message) == expected
            assert feed(connection, encode(message)) == []  # not decoded, so no rule applies
            assert connection.next_event() is CONNECTION_CLOSED


@pytest.mark.parametrize(("role", "kind"), list(itertools.product(Role, MessageKind)))
def test_a_failed_side_sends_only_an_em_and_hears_nothing(role: Role, kind: MessageKind) -> None:
    expected = described(role, ConnectionState.ERROR, kind)
    for how in ["broken frame", "broken rule"]:
        for message in SAMPLES[kind]:
            connection = _failed_by(role, how)
            assert connection.state is ConnectionState.ERROR
            with pytest.raises(RemoteProtocolError) as first:
                connection.next_event()
            assert sent(connection, message) == expected
            if connection.state is ConnectionState.ERROR:  # the peer's error again, whatever came since
                with pytest.raises(RemoteProtocolError) as again:
                    feed(connection, encode(message))
                assert again.value is first.value


# --- properties ---------------------------------------------------------------------------------------------

token_values = st.integers(0, 0xFFFF).filter(lambda t: not 0x5800 <= t <= 0x5FFF)
diplomacy = st.lists(token_values, min_size=1, max_size=50).map(lambda ts: DiplomacyMessage(tuple(ts)))
representation_messages = st.sampled_from([RepresentationMessage(), RepresentationMessage(VARIANT)])
messages = st.one_of(
    st.builds(InitialMessage),
    representation_messages,
    diplomacy,
    st.just(FinalMessage()),
    st.integers(0, 0xFFFF).map(ErrorMessage),
)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@given(messages)
def test_every_message_round_trips(message: Message) -> None:
    data = encode(message)
    assert int.from_bytes(data[2:4], "big") == len(data) - 4
    assert decode(data) == message


@given(st.lists(messages, max_size=12), st.lists(st.integers(0, 10_000), max_size=30))
def test_streams_in_any_chunks(stream: list[Message], cuts: list[int]) -> None:
    decoder = FrameDecoder()
    received: list[Message] = []
    for chunk in chunked(b"".join(map(encode, stream)), cuts):
        received.extend(feed(decoder, chunk))
        assert decoder.buffered < 4 + MAX_LENGTH
    decoder.receive_data(b"")
    assert decoder.next_event() is CONNECTION_CLOSED
    assert received == stream


def drain(target: FrameDecoder | Connection, data: bytes, cuts: list[int]) -> None:
    try:
        for chunk in chunked(data, cuts):
            target.receive_data(chunk)
            for _ in target:
                pass
            assert not isinstance(target, FrameDecoder) or target.buffered < 4 + MAX_LENGTH
        target.receive_data(b"")
        for _ in target:
            pass
    except DaideProtocolError:
        pass


@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=20))
def test_random_bytes_raise_only_protocol_errors(data: bytes, cuts: list[int]) -> None:
    drain(FrameDecoder(), data, cuts)
    drain(Connection(Role.SERVER), data, cuts)
    drain(Connection(Role.CLIENT), data, cuts)


frame_like = st.one_of(
    st.binary(max_size=8),
    st.tuples(st.integers(0, 5), st.integers(0, 12), st.binary(max_size=12)).map(lambda t: header(t[0], t[1]) + t[2]),
    messages.map(encode),
)


@given(st.lists(frame_like, max_size=10), st.lists(st.integers(0, 200), max_size=20))
def test_plausible_frames_raise_only_protocol_errors(frames: list[bytes], cuts: list[int]) -> None:
    data = b"".join(frames)
    drain(FrameDecoder(), data, cuts)
    drain(Connection(Role.SERVER), encode(InitialMessage()) + data, cuts)
    drain(Connection(Role.CLIENT), encode(RepresentationMessage()) + data, cuts)


@given(st.lists(diplomacy, max_size=8), st.lists(st.integers(0, 2000), max_size=20))
def test_a_conversation_in_any_chunks(dms: list[DiplomacyMessage], cuts: list[int]) -> None:
    client, server = Connection(Role.CLIENT), Connection(Role.SERVER)
    outgoing = client.send(InitialMessage())
    received: list[Message] = []
    server.receive_data(outgoing)
    received.extend(server)
    client.receive_data(server.send(RepresentationMessage()))
    assert list(client) == [RepresentationMessage()]
    data = b"".join(client.send(dm) for dm in dms)
    expected = list(dms)
    for chunk in chunked(data + client.send(FinalMessage()), cuts):
        received.extend(feed(server, chunk))
    assert received == [InitialMessage(), *expected, FinalMessage()]
    assert server.state is ConnectionState.CLOSED


def test_default_buffer_holds_a_longest_message_and_a_64k_read() -> None:
    decoder = FrameDecoder()
    longest = encode(DiplomacyMessage((Token.HLO,) * (MAX_LENGTH // 2)))
    decoder.receive_data(longest[:-1])
    decoder.receive_data(longest[-1:] + bytes(65536 - 1))
    assert decoder.buffered <= DEFAULT_MAX_BUFFER_SIZE
    assert decoder.next_event() == DiplomacyMessage((Token.HLO,) * (MAX_LENGTH // 2))


def test_text_of_a_dm_is_the_token_text() -> None:
    text = "SUB ((ENG FLT LON) MTO NTH)"
    assert DiplomacyMessage.from_text(text).tokens == text_to_tokens(text)
