"""Property tests of the DAIDE message syntax: random messages print and parse back, and random
token soup never raises anything but the protocol's own error."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.daide import messages as m
from protocol.daide.messages import PROVINCES_BY_CATEGORY, TOKEN_NAMES, Location, Turn, DaideUnit, to_text, tokens
from protocol.daide.parser import DaideSyntaxError, PrnError, parse, parse_press, press_level

# --- strategies of typed messages ---------------------------------------------------------------


def _of(*categories: str) -> st.SearchStrategy[str]:
    return st.sampled_from(sorted({p for c in categories for p in PROVINCES_BY_CATEGORY[c]}))


power = st.sampled_from(m.POWERS)
powers = st.lists(power, min_size=1, max_size=3).map(tuple)
two_powers = st.lists(power, min_size=2, max_size=3).map(tuple)
province = _of(*PROVINCES_BY_CATEGORY)
centre = _of("INLAND_SC", "SEA_SC", "COASTAL_SC", "BICOASTAL_SC")
non_centre = _of("INLAND", "SEA", "COASTAL", "BICOASTAL")
sea = _of("SEA", "SEA_SC")
coast = st.sampled_from(m.COASTS)
number = st.integers(-(10**6), 10**6)
turn = st.builds(Turn, st.sampled_from(m.SEASONS), st.integers(1901, 2100))
text = st.text(max_size=12)

plain = province.map(Location)
with_coast = st.builds(Location, _of("BICOASTAL", "BICOASTAL_SC"), coast)
any_location = st.one_of(plain, st.builds(Location, province, coast))
army = st.builds(
    DaideUnit,
    power,
    st.just("AMY"),
    _of("INLAND", "INLAND_SC", "COASTAL", "COASTAL_SC", "BICOASTAL", "BICOASTAL_SC").map(Location),
)
fleet = st.builds(
    DaideUnit, power, st.just("FLT"), st.one_of(_of("SEA", "SEA_SC", "COASTAL", "COASTAL_SC").map(Location), with_coast)
)
unit = st.one_of(army, fleet)


@st.composite
def strict_order(draw: st.DrawFn) -> m.Order:
    """The strict orders of ORD and XDO."""
    mover = draw(unit)
    destinations = st.one_of(plain, with_coast) if mover.unit_type == "FLT" else plain
    return draw(
        st.one_of(
            st.builds(m.Hold, st.just(mover)),
            st.builds(m.Move, st.just(mover), destinations),
            st.builds(m.SupportHold, st.just(mover), unit),
            st.builds(m.SupportMove, st.just(mover), unit, plain),
            st.builds(m.Convoy, st.just(mover), unit, plain),
            st.builds(m.MoveByConvoy, st.just(mover), plain, st.lists(sea, min_size=1, max_size=3).map(tuple)),
            st.builds(m.Retreat, st.just(mover), destinations),
            st.builds(m.Disband, st.just(mover)),
            st.builds(m.Build, st.just(mover)),
            st.builds(m.Remove, st.just(mover)),
            st.builds(m.Waive, power),
        )
    )


loose_unit = st.one_of(
    st.builds(DaideUnit, power, st.sampled_from(m.UNIT_TYPES), any_location),
    st.builds(m.LooseUnit, st.none(), st.none(), any_location),
    st.builds(m.LooseUnit, power, st.none(), any_location),
    st.builds(m.LooseUnit, st.none(), st.sampled_from(m.UNIT_TYPES), any_location),
)
loose_order = st.one_of(
    st.builds(m.Hold, loose_unit),
    st.builds(m.Move, loose_unit, any_location),
    st.builds(m.SupportHold, loose_unit, loose_unit),
    st.builds(m.SupportMove, loose_unit, loose_unit, any_location),
    st.builds(m.Convoy, loose_unit, loose_unit, any_location),
    st.builds(
        m.MoveByConvoy, loose_unit, any_location, st.none() | st.lists(province, min_size=1, max_size=3).map(tuple)
    ),
    st.builds(m.Retreat, loose_unit, any_location),
    st.builds(m.Disband, loose_unit),
    st.builds(m.Build, loose_unit),
    st.builds(m.Remove, loose_unit),
    st.builds(m.Waive, st.none() | power),
)
mrt_unit = st.one_of(unit, st.builds(m.MrtUnit, unit, st.lists(st.one_of(plain, with_coast), max_size=3).map(tuple)))
variant_option = st.one_of(
    st.builds(m.VariantOption, st.sampled_from(m.VALUED_OPTIONS), st.integers(0, 9999)),
    st.builds(m.VariantOption, st.sampled_from(m.FLAG_OPTIONS)),
)
variant = st.lists(variant_option, min_size=1, max_size=4).map(tuple)


def _arrangements(press: st.SearchStrategy) -> st.SearchStrategy:
    def extend(inner: st.SearchStrategy) -> st.SearchStrategy:
        parts = st.lists(inner, min_size=2, max_size=3).map(tuple)
        return st.one_of(
            st.builds(m.Not, inner),
            st.builds(m.Nar, inner),
            st.builds(m.And, parts),
            st.builds(m.Orr, parts),
            st.builds(m.Cho, st.integers(0, 3), st.integers(0, 3), parts),
            st.builds(m.For, turn, st.none() | turn, inner),
            st.builds(m.SndArrangement, power, powers, press),
        )

    leaves = st.one_of(
        st.builds(m.Pce, powers),
        st.builds(m.Aly, powers, powers),
        st.builds(m.Drw, st.just(()) | two_powers),
        st.builds(m.Slo, power),
        st.builds(m.Xdo, strict_order()),
        st.builds(m.Dmz, powers, st.lists(province, min_size=1, max_size=3).map(tuple)),
        st.builds(
            m.Scd,
            st.lists(
                st.builds(m.Ownership, power, st.lists(centre, min_size=1, max_size=3).map(tuple)),
                min_size=1,
                max_size=2,
            ).map(tuple),
        ),
        st.builds(
            m.Occ,
            st.lists(st.one_of(unit, st.builds(DaideUnit, power, st.just("UNT"), plain)), min_size=1, max_size=2).map(tuple),
        ),
        st.builds(m.Xoy, power, power),
        st.builds(m.Ydo, power, st.lists(unit, min_size=1, max_size=2).map(tuple)),
        st.builds(m.Fwd, powers, power, power),
        st.builds(m.Bcc, power, powers, power),
    )
    return st.recursive(leaves, extend, max_leaves=6)


def _press() -> st.SearchStrategy:
    press: st.SearchStrategy = st.deferred(lambda: press_message)
    arrangement = _arrangements(press)
    qry = st.builds(m.Qry, arrangement)
    exp = st.builds(m.Exp, turn, press)
    thk = st.builds(m.Thk, arrangement)
    fct = st.builds(m.Fct, arrangement)
    simple_statements = st.one_of(
        st.builds(m.Prp, arrangement),
        st.builds(m.Ins, arrangement),
        qry,
        st.builds(m.Sug, arrangement),
        st.builds(m.Wht, unit),
        st.builds(m.How, province | power),
        exp,
    )
    statement = st.one_of(
        simple_statements,
        st.builds(m.Iff, arrangement, simple_statements, st.none() | simple_statements),
    )
    simple_replies = st.one_of(
        st.builds(m.Yes, statement),
        st.builds(m.Rej, statement),
        st.builds(m.Bwx, statement),
        st.builds(m.Thk, qry | st.builds(m.Nar, qry)),
        st.builds(m.Fct, qry | st.builds(m.Nar, qry)),
        st.builds(m.Idk, qry | st.builds(m.Wht, unit) | st.builds(m.How, province) | exp | simple_statements),
        st.builds(m.Sry, exp),
        st.builds(m.Why, thk | fct | st.builds(m.Sug, arrangement) | st.builds(m.Prp, arrangement)),
        st.builds(m.Pob, st.builds(m.Why, thk | fct)),
        statement.map(lambda s: m.Huh(("ERR", *tokens(s)))),
    )
    reply = st.one_of(simple_replies, st.builds(m.Iff, arrangement, simple_replies, st.none() | simple_replies))
    return st.one_of(
        statement,
        reply,
        st.builds(m.Ccl, press),
        fct,
        thk,
        st.builds(m.Try, st.lists(st.sampled_from(m.PRESS_TOKENS), max_size=4).map(tuple)),
        st.builds(m.Frm, power, powers, press),
        text,
    )


press_message = _press()
snd = st.builds(m.Snd, powers, press_message, st.none() | turn)

server_command = st.one_of(st.builds(m.MapMessage, text), st.builds(m.Sve, text), st.builds(m.Lod, text))
client_command = st.one_of(
    st.just(m.Lst()),
    st.builds(m.Sel, text),
    st.builds(m.Nme, text, text),
    st.just(m.Obs()),
    st.builds(m.Obs, text, text),
    st.builds(m.Iam, power, number),
    st.builds(m.Tme, number),
    st.builds(
        m.Not,
        st.one_of(
            st.just(m.Sub()),
            st.builds(lambda o: m.Sub((o,)), loose_order),
            st.just(m.Gof()),
            st.just(m.Tme()),
            st.builds(m.Tme, number),
            st.builds(m.Drw, st.just(()) | two_powers),
        ),
    ),
    snd,
    st.just(m.Gof()),
    st.builds(m.Drw, st.just(()) | two_powers),
)
client_request = st.one_of(
    st.builds(m.Lst, text),
    st.just(m.Sel()),
    st.just(m.Hlo()),
    st.just(m.Sco()),
    st.just(m.Now()),
    st.builds(m.Hst, st.none() | turn),
    st.just(m.Ord()),
    st.just(m.Tme()),
    st.builds(m.Adm, text, text),
    st.just(m.Smr()),
    st.builds(m.Sub, st.lists(loose_order, min_size=1, max_size=3).map(tuple), st.none() | turn),
    st.just(m.Mis()),
)
mdf = st.builds(
    m.Mdf,
    powers,
    st.lists(
        st.builds(m.HomeCentres, power | st.just("UNO") | powers, st.lists(centre, max_size=3).map(tuple)),
        min_size=1,
        max_size=3,
    ).map(tuple),
    st.lists(non_centre, min_size=1, max_size=3).map(tuple),
    st.lists(
        st.builds(
            m.ProvinceAdjacency,
            province,
            st.lists(
                st.one_of(
                    st.builds(
                        m.CoastAdjacency,
                        st.sampled_from(m.UNIT_TYPES),
                        st.none(),
                        st.lists(st.one_of(plain, with_coast), min_size=1, max_size=3).map(tuple),
                    ),
                    st.builds(
                        m.CoastAdjacency, st.just("FLT"), coast, st.lists(plain, min_size=1, max_size=3).map(tuple)
                    ),
                    st.just(m.CoastAdjacency("AMY", None, ())),
                ),
                min_size=1,
                max_size=3,
            ).map(tuple),
        ),
        min_size=1,
        max_size=3,
    ).map(tuple),
)
message = st.one_of(
    client_command,
    client_request,
    server_command,
    st.builds(m.Yes, server_command | client_command),
    st.builds(m.Rej, server_command | client_command | client_request),
    st.builds(m.Listing, text, st.integers(0, 7), st.sampled_from(m.GAME_STATUSES), text, variant),
    mdf,
    st.builds(m.Hlo, power | st.just("UNO"), number, variant),
    st.builds(
        m.Sco,
        st.lists(
            st.builds(m.Ownership, power | st.just("UNO"), st.lists(centre, min_size=1, max_size=3).map(tuple)),
            min_size=1,
            max_size=3,
        ).map(tuple),
    ),
    st.builds(m.Now, turn, st.lists(mrt_unit, max_size=3).map(tuple)),
    st.builds(m.Thx, loose_order, st.sampled_from(m.NOTES)),
    st.builds(m.Mis, st.lists(mrt_unit, min_size=1, max_size=3).map(tuple)),
    st.builds(m.Mis, count=number),
    st.builds(m.Ord, turn, strict_order(), st.sampled_from(m.ORDER_RESULTS + m.NOTES), st.booleans()),
    st.builds(m.Ord, turn, strict_order(), st.none(), st.just(True)),
    st.just(m.Off()),
    st.builds(m.Ccd, power, st.none() | turn),
    st.builds(m.Ccd, power, send=snd),
    st.builds(m.Out, power, snd),
    st.builds(m.Not, st.builds(m.Ccd, power)),
    st.builds(m.Slo, power),
    st.builds(
        m.Smr,
        turn,
        st.lists(
            st.builds(m.SmrEntry, power, text, text, st.integers(0, 34), st.none() | st.integers(1901, 2000)),
            min_size=1,
            max_size=3,
        ).map(tuple),
    ),
    st.builds(m.Frm, power, powers, press_message),
    st.builds(
        lambda mess, i: m.Huh(tuple(mess.tokens()[:i]) + ("ERR",) + tuple(mess.tokens()[i:])),
        client_command,
        st.integers(0, 30),
    ),
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(message)
def test_printed_messages_parse_back(value: m.Value) -> None:
    printed = to_text(value)
    parsed = parse(printed)
    assert parsed == value
    assert to_text(parsed) == printed
    assert press_level(parsed) == press_level(value)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(press_message)
def test_printed_press_parses_back(value: m.Value | str) -> None:
    printed = to_text(value)
    assert parse_press(printed) == value
    inside = m.Snd(("FRA",), value)
    assert parse(to_text(inside)) == inside
    level = press_level(value, press=True)
    assert level >= 10
    assert press_level(inside) == level


@settings(max_examples=100)
@given(message, st.data())
def test_prn_replies_of_unbalanced_messages(value: m.Value, data: st.DataObject) -> None:
    words = tokens(value)
    brackets = [i for i, t in enumerate(words) if t in "()"]
    if not brackets:
        words = ["(", *words]
    else:
        del words[data.draw(st.sampled_from(brackets))]
    text = " ".join(words)
    try:
        parse(text)
    except PrnError as error:
        assert parse(error.reply_text) == error.reply == m.Prn(tuple(words))
    else:
        raise AssertionError(f"{text!r} parsed")


# --- token soup ----------------------------------------------------------------------------------------

name = st.sampled_from(sorted(TOKEN_NAMES | {"XYZ", "BRA", "KET", "PNG", "PRB", "PRF"}))
soup_token = st.one_of(
    name,
    name.map(str.lower),
    st.sampled_from(["(", ")", "(", ")", "'", "@", "-"]),
    st.integers(-20000, 20000).map(str),
    text.map(m.quote),
)


@settings(max_examples=1500)
@given(st.lists(soup_token, max_size=25), st.lists(st.sampled_from([" ", "", "\n", "  "]), min_size=25, max_size=25))
def test_token_soup_raises_only_the_protocols_error(words: list[str], gaps: list[str]) -> None:
    text = "".join(word + gap for word, gap in zip(words, gaps, strict=False))
    try:
        value = parse(text)
    except DaideSyntaxError as error:
        # the reply is a message this parser reads, and it echoes the input
        reply = parse(error.reply_text)
        assert reply == error.reply
        echo = reply.echo if isinstance(reply, m.Prn) else reply.echo[: error.index] + reply.echo[error.index + 1 :]
        assert echo == error.echo
        assert 0 <= error.index <= len(error.echo)
        assert error.line >= 1 and error.column >= 1
    else:
        assert parse(to_text(value)) == value


@settings(max_examples=500)
@given(st.lists(st.one_of(name, st.sampled_from(["(", ")", "((", "))"]), st.integers(0, 3000).map(str)), max_size=30))
def test_token_soup_as_press(words: list[str]) -> None:
    text = " ".join(words)
    try:
        value = parse_press(text)
    except DaideSyntaxError as error:
        assert parse(error.reply_text) == error.reply
    else:
        assert parse_press(to_text(value)) == value


@settings(max_examples=500)
@given(st.text(max_size=60))
def test_any_text_raises_only_the_protocols_error(text: str) -> None:
    try:
        value = parse(text)
    except DaideSyntaxError as error:
        assert parse(error.reply_text) == error.reply
    else:
        assert parse(to_text(value)) == value
