"""The DAIDE parser's bounds: depth, size, and echoes parsed again, each refused with the
protocol's own reply (HUH or PRN), never a RecursionError or a long wait."""

from __future__ import annotations

import pytest

from protocol.daide.messages import Huh, Prn
from protocol.daide.parser import (
    MAX_DEPTH,
    MAX_ECHO_NESTING,
    MAX_TOKENS,
    DaideParser,
    DaideSyntaxError,
    HuhError,
    PrnError,
    parse,
    press_level,
    to_text,
)


def _nested(opening: str, closing: str, size: int, middle: str = "") -> str:
    count = (size - len(middle)) // (len(opening) + len(closing))
    return opening * count + middle + closing * count


def _press(depth: int) -> str:
    """Press nested ``depth`` brackets deep: SND (FRA) (PRP (NOT (NOT (... (PCE (ENG FRA)))))."""
    nots = depth - 3
    return "SND (FRA) (PRP (" + "NOT (" * nots + "PCE (ENG FRA)" + ")" * nots + "))"


def test_press_as_deep_as_allowed_parses_and_walks() -> None:
    message = parse(_press(MAX_DEPTH))
    assert press_level(message) == 10
    assert parse(to_text(message)) == message and hash(message) == hash(parse(_press(MAX_DEPTH)))


def _depth_before(echo: tuple[str, ...], index: int) -> int:
    depth = 0
    for text in echo[:index]:
        depth += (text == "(") - (text == ")")
    return depth


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 300, 1000])
def test_deeper_press_gets_huh_at_the_bracket_too_deep(depth: int) -> None:
    text = _press(depth)
    with pytest.raises(HuhError) as caught:
        parse(text)
    error = caught.value
    assert f"nested more than {MAX_DEPTH} deep" in error.description
    assert error.echo[error.index] == "(" and _depth_before(error.echo, error.index) == MAX_DEPTH
    assert error.may_reply and error.reply_text.startswith("HUH (SND (FRA) (PRP (NOT")
    assert text[error.column - 1] == "("  # the place in the text: the bracket one too deep
    # the reply is a HUH its receiver can read: brackets matched, ERR before the bracket
    assert isinstance(error.reply, Huh) and error.reply.error_index == error.index


def test_unmatched_brackets_still_get_prn_however_deep() -> None:
    text = "SUB " + "(" * 5000
    with pytest.raises(PrnError) as caught:
        parse(text)
    assert caught.value.index == 1 and caught.value.reply == Prn(tuple(caught.value.echo))


@pytest.mark.parametrize(
    "text",
    [
        _nested("(", ")", 65_536),
        _nested("PRN (", ")", 65_536),
        _nested("HUH (", ")", 65_536, "OFF"),
        "SND (FRA) " + _nested("(", ")", 65_536),
        "HUH (" + _nested("(", ")", 65_530) + ")",
        "XYZ " * 16_384,
        "SUB " + "((ENG AMY LVP) HLD) " * 3_300,
    ],
    ids=["brackets", "prn", "huh", "press", "huh-raw", "unknown", "flat-orders"],
)
def test_64_kb_messages_get_the_protocol_error(text: str) -> None:
    assert len(text) > 60_000
    with pytest.raises(DaideSyntaxError) as caught:
        parse(text)
    error = caught.value
    assert isinstance(error, HuhError) and "tokens at most" in error.description
    # HUH echoes the first MAX_TOKENS tokens, ERR, and the brackets they leave open
    reply = error.reply
    assert reply.echo[MAX_TOKENS] == "ERR" and len(reply.echo) <= 2 * MAX_TOKENS + 1
    assert reply.echo.count("(") == reply.echo.count(")")


@pytest.mark.parametrize(
    "opening, closing, middle",
    [("(", ")", ""), ("PRN (", ")", "OFF"), ("HUH (", ")", "OFF"), ("SND (FRA) (CCL (", "))", "PRP (DRW)")],
)
def test_16_kb_nested_messages_get_the_protocol_error(opening: str, closing: str, middle: str) -> None:
    text = _nested(opening, closing, 16_384, middle)
    with pytest.raises(HuhError) as caught:
        parse(text)
    assert "nested more than" in caught.value.description or "tokens at most" in caught.value.description


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(token.value for token in DaideParser().tokenize(text))


def _chain(word: str, levels: int, core: str = "GOF") -> str:
    return f"{word} (" * levels + core + ")" * levels


def test_prn_of_prn_is_read_without_recursion() -> None:
    # a PRN echo whose brackets match must be a message: PRN (PRN (...)) is read level by level
    assert parse("PRN (PRN (GOF)") == Prn(("PRN", "(", "GOF"))
    assert parse(_chain("PRN", MAX_ECHO_NESTING)) == Prn(_tokens(_chain("PRN", MAX_ECHO_NESTING - 1)))
    with pytest.raises(HuhError) as caught:
        parse(_chain("PRN", MAX_ECHO_NESTING + 1))  # echoes within echoes, deeper than is read
    assert "must echo a message" in caught.value.description and not caught.value.may_reply
    with pytest.raises(HuhError):
        parse(_chain("PRN", 1_000))


def test_huh_echoes_are_read_once_each() -> None:
    assert parse("HUH (HUH (ERR GOF))") == Huh(("HUH", "(", "ERR", "GOF", ")"))
    assert parse("HUH (GOF)") == Huh(("GOF",))
    assert parse("SND (FRA) (HUH (PRP (PCE (ENG FRA))))").press == Huh(("PRP", "(", "PCE", "(", "ENG", "FRA", ")", ")"))
    assert parse(_chain("HUH", MAX_ECHO_NESTING)) == Huh(_tokens(_chain("HUH", MAX_ECHO_NESTING - 1)))
    with pytest.raises(HuhError) as caught:
        parse(_chain("HUH", MAX_ECHO_NESTING + 1))  # echoes within echoes, deeper than is read
    assert "must echo a message" in caught.value.description
    # an echo that is a long message is read as a message once, not once for each HUH around it
    core = "SUB " + "((ENG AMY LVP) HLD) " * 300
    message = parse("HUH (HUH (" + core + "))")
    assert isinstance(message, Huh) and message.echo[:3] == ("HUH", "(", "SUB")
    with pytest.raises(HuhError):
        parse("HUH (HUH (" + core + "XYZ))")


def test_huge_numbers_are_unknown_tokens_not_crashes() -> None:
    with pytest.raises(HuhError) as caught:
        parse("TME (" + "9" * 5000 + ")")
    assert caught.value.index == 2 and "unknown token" in caught.value.description
    assert parse("TME (000000000000000060)") == parse("TME (60)")


def test_a_failed_text_is_parsed_once() -> None:
    parser = DaideParser()
    text = "SUB ((ENG FLT LON) MTO XYZ)"
    with pytest.raises(HuhError) as first:
        parser.parse(text)
    calls = []
    parser._parse = lambda *args: calls.append(args)  # type: ignore[method-assign]
    with pytest.raises(HuhError) as second:
        parser.parse(text)
    assert not calls and second.value is not first.value
    assert (second.value.reply_text, second.value.column) == (first.value.reply_text, first.value.column)
