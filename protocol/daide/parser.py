"""DAIDE messages in text form to typed messages and back, with the replies DAIDE prescribes.

>>> message = parse("sub(spr 1901)((eng flt lon)mto nth)")
>>> message
Sub(orders=(Move(unit=DaideUnit(power='ENG', unit_type='FLT', location=Location(province='LON', coast=None)), destination=Location(province='NTH', coast=None)),), turn=Turn(season='SPR', year=1901))
>>> to_text(message)
'SUB (SPR 1901) ((ENG FLT LON) MTO NTH)'
>>> press_level(parse("SND (FRA) (PRP (XDO ((ENG FLT LON) MTO NTH)))"))
20

A message whose brackets do not match raises :class:`PrnError`, any other bad message
:class:`HuhError`; both carry the reply to send back:

>>> try:
...     parse("SUB ((ENG AMY LVP) HLD")
... except DaideSyntaxError as error:
...     error.reply_text
'PRN (SUB ((ENG AMY LVP) HLD)'
>>> try:
...     parse("SUB ((ENG AMY LVP) HLD) ((ENG FLT LON) MTO XYZ)")
... except DaideSyntaxError as error:
...     error.reply_text, error.column
('HUH (SUB ((ENG AMY LVP) HLD) ((ENG FLT LON) MTO ERR XYZ))', 44)
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from importlib import resources

from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedInput
from lark.lexer import Lexer

import grammar
from protocol.daide.messages import (
    KEYWORDS,
    POWERS,
    PROVINCES_BY_CATEGORY,
    Adm,
    Aly,
    And,
    Bcc,
    Build,
    Bwx,
    Ccd,
    Ccl,
    Cho,
    CoastAdjacency,
    Convoy,
    DaideUnit,
    Disband,
    Dmz,
    Drw,
    Exp,
    Fct,
    For,
    Frm,
    Fwd,
    Gof,
    Hlo,
    Hold,
    HomeCentres,
    How,
    Hst,
    Huh,
    Iam,
    Idk,
    Iff,
    Ins,
    Listing,
    Location,
    Lod,
    LooseUnit,
    Lst,
    MapMessage,
    Mdf,
    Mis,
    Move,
    MoveByConvoy,
    MrtUnit,
    Nar,
    Nme,
    Not,
    Now,
    Obs,
    Occ,
    Off,
    Ord,
    Orr,
    Out,
    Ownership,
    Pce,
    Pob,
    Prn,
    ProvinceAdjacency,
    Prp,
    Qry,
    Rej,
    Remove,
    Retreat,
    Scd,
    Sco,
    Sel,
    Slo,
    Smr,
    SmrEntry,
    Snd,
    SndArrangement,
    Sry,
    Sub,
    Sug,
    SupportHold,
    SupportMove,
    Sve,
    Thk,
    Thx,
    Tme,
    Try,
    Turn,
    Value,
    VariantOption,
    Waive,
    Wht,
    Why,
    Xdo,
    Xoy,
    Ydo,
    Yes,
    quote,
    to_text,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_TOKENS",
    "DaideParser",
    "DaideSyntaxError",
    "HuhError",
    "PrnError",
    "check",
    "parse",
    "parse_press",
    "press_level",
    "to_text",
]


# --- errors ------------------------------------------------------------------------------------


class DaideSyntaxError(ValueError):
    """A message that is not a DAIDE message, and the reply DAIDE prescribes for it.

    ``index`` is the position, among the tokens of the input, of the first bad token (for
    ``HUH``; the number of tokens when the message ends too soon) or of the bracket that does
    not match (for ``PRN``); ``line`` and ``column`` (1-based) say where it is in the text.
    ``reply`` is the typed ``PRN`` or ``HUH`` message. DAIDE forbids answering a ``HUH`` or
    ``PRN`` with another: ``may_reply`` is False then.
    """

    def __init__(self, description: str, echo: tuple[str, ...], index: int, line: int, column: int) -> None:
        super().__init__(description)
        self.description = description
        self.echo = echo
        self.index = index
        self.line = line
        self.column = column

    @property
    def reply(self) -> Prn | Huh:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @property
    def reply_text(self) -> str:
        return to_text(self.reply)

    @property
    def may_reply(self) -> bool:
        return not self.echo or self.echo[0] not in ("HUH", "PRN")

    def __str__(self) -> str:
        return f"{self.description} (line {self.line}, column {self.column}): the reply is {self.reply_text}"


class PrnError(DaideSyntaxError):
    """Brackets that do not match: the reply is ``PRN`` with the message as it came."""

    @property
    def reply(self) -> Prn:
        return Prn(self.echo)


class HuhError(DaideSyntaxError):
    """Any other syntax error: the reply is ``HUH`` with ``ERR`` before the first bad token."""

    @property
    def reply(self) -> Huh:
        return Huh(self.echo[: self.index] + ("ERR",) + self.echo[self.index :])


class _Misplaced(Exception):
    """Raised inside the transformer: the message is wrong just before token ``index``."""

    def __init__(self, index: int, description: str) -> None:
        super().__init__(description)
        self.index = index
        self.description = description


# --- tokens ------------------------------------------------------------------------------------

_LEXEME = re.compile(
    r"([A-Za-z_]+[A-Za-z0-9_]*|[0-9]+[A-Za-z_][A-Za-z0-9_]*)|(\s+)|(\()|(\))|('(?:[^']|'')*')|(-?[0-9]+)|('.*)|(.)",
    re.DOTALL,
)
_WORD, _SPACE, _BRA, _KET, _TEXT, _NUMBER, _UNTERMINATED = range(1, 8)
_LP, _RP, _STRING, _INT, _UNKNOWN = "_LP", "_RP", "STRING", "INT", "UNKNOWN"

_DESCRIPTIONS = {
    "POWER": "a power",
    "COAST": "a coast",
    "SEASON": "a season",
    "INT": "a number",
    "STRING": "text",
    "INLAND": "an inland province",
    "INLAND_SC": "an inland supply centre",
    "SEA": "a sea",
    "SEA_SC": "a sea supply centre",
    "COASTAL": "a coastal province",
    "COASTAL_SC": "a coastal supply centre",
    "BICOASTAL": "a bicoastal province",
    "BICOASTAL_SC": "a bicoastal supply centre",
    "_LP": "'('",
    "_RP": "')'",
    "$END": "the end of the message",
}


def _describe(terminal: str) -> str:
    return _DESCRIPTIONS.get(terminal) or terminal.lstrip("_")


_PROVINCE_GROUPS = (
    ("a province", ("INLAND", "INLAND_SC", "SEA", "SEA_SC", "COASTAL", "COASTAL_SC", "BICOASTAL", "BICOASTAL_SC")),
    ("a land province", ("INLAND", "INLAND_SC", "COASTAL", "COASTAL_SC", "BICOASTAL", "BICOASTAL_SC")),
    ("a sea or coastal province", ("SEA", "SEA_SC", "COASTAL", "COASTAL_SC")),
    ("a supply centre", ("INLAND_SC", "SEA_SC", "COASTAL_SC", "BICOASTAL_SC")),
    ("a province that is no supply centre", ("INLAND", "SEA", "COASTAL", "BICOASTAL")),
    ("a sea", ("SEA", "SEA_SC")),
    ("a bicoastal province", ("BICOASTAL", "BICOASTAL_SC")),
)


def _expected(terminals: Iterable[str]) -> str:
    left = set(terminals)
    names: set[str] = set()
    for name, group in _PROVINCE_GROUPS:
        if left.issuperset(group):
            names.add(name)
            left.difference_update(group)
    names.update(_describe(t) for t in left)
    # token names first, then the descriptions of kinds of tokens
    ordered = sorted(names, key=lambda n: (n.startswith(("a ", "an ", "'", "text", "the")), n))
    if len(ordered) > 12:
        return ", ".join(ordered[:12]) + f" or {len(ordered) - 12} more"
    if len(ordered) > 1:
        return ", ".join(ordered[:-1]) + " or " + ordered[-1]
    return ordered[0] if ordered else "nothing"


class _Token(Token):
    """A Lark token made without Lark's checks of its arguments: a message has hundreds."""

    __slots__ = ()
    start_pos: int
    line: int
    column: int
    end_line: int
    end_column: int

    def __new__(cls, kind: str, value: str, index: int, line: int, column: int, end_column: int) -> _Token:
        token = str.__new__(cls, value)
        token.type = kind
        token.value = value
        token.start_pos = index
        token.line = token.end_line = line
        token.column = column
        token.end_column = end_column
        token.end_pos = None
        return token


class _Given(Lexer):
    """Hands Lark the tokens that :meth:`DaideParser.tokenize` made."""

    def __init__(self, lexer_conf: object) -> None:
        pass

    def lex(self, data: list[Token]) -> Iterable[Token]:  # type: ignore[override]
        return iter(data)


def _grammar() -> str:
    return resources.files("grammar").joinpath("daide.lark").read_text(encoding="utf-8")


def _value(token: Token | str) -> str:
    return token.value if isinstance(token, Token) else token


def _location(place: Location | str) -> Location:
    return place if isinstance(place, Location) else Location(place)


def _string(token: Token) -> str:
    return token.value[1:-1].replace("''", "'")


# --- building typed messages ------------------------------------------------------------------------


@v_args(inline=True)
class _Build(Transformer):
    """Lark callbacks, called as the LALR parser reduces: each returns a typed value."""

    def __init__(self, parser: DaideParser) -> None:
        super().__init__()
        self._parser = parser

    # common terms
    def text(self, *strings: Token) -> str:
        return "".join(_string(s) for s in strings)

    free_text = text

    def uno(self) -> str:
        return "UNO"

    def turn(self, season: Token, year: Token) -> Turn:
        return Turn(season.value, int(year.value))

    def powers(self, *powers: Token) -> tuple[str, ...]:
        return tuple(p.value for p in powers)

    def provinces(self, *provinces: str) -> tuple[str, ...]:
        return provinces

    def province(self, token: Token) -> str:
        return token.value

    land_province = fleet_province = sea_province = bicoastal_province = centre = non_centre = province

    def location(self, province: str, coast: Token | None = None) -> Location:
        return Location(province, None if coast is None else coast.value)

    def army(self, power: Token, province: str) -> DaideUnit:
        return DaideUnit(power.value, "AMY", Location(province))

    def fleet(self, power: Token, location: Location) -> DaideUnit:
        return DaideUnit(power.value, "FLT", location)

    def retreating_unit(self, unit: DaideUnit, *retreats: Location) -> MrtUnit:
        return MrtUnit(unit, retreats)

    def unit_type(self, token: Token) -> str:
        return token.value

    def any_unit(self, power: Token, province: str) -> DaideUnit:
        return DaideUnit(power.value, "UNT", Location(province))

    # level 0
    def lst(self, game: str | None = None) -> Lst:
        return Lst(game)

    def listing(self, game: str, players: Token, status: str, variant_name: str, variant: tuple) -> Listing:
        return Listing(game, int(players.value), status, variant_name, variant)

    def status(self, token: Token) -> str:
        return token.value

    note = press_token = status

    def variant(self, *options: VariantOption) -> tuple[VariantOption, ...]:
        return options

    def variant_option(self, name: Token, value: Token | None = None) -> VariantOption:
        return VariantOption(name.value, None if value is None else int(value.value))

    def sel(self, game: str | None = None) -> Sel:
        return Sel(game)

    def nme(self, name: str, version: str) -> Nme:
        return Nme(name, version)

    def obs(self, name: str | None = None, version: str | None = None) -> Obs:
        return Obs(name, version)

    def iam(self, power: Token, passcode: Token | str) -> Iam:
        if isinstance(passcode, Token):
            return Iam(power.value, int(passcode.value))
        return Iam(power.value, session=passcode)  # a text: the session token of détente's extension

    def map(self, name: str | None = None) -> MapMessage:
        return MapMessage(name)

    def mdf(self, *parts: tuple) -> Mdf:
        return Mdf(*parts)

    def home_centres_list(self, *groups: HomeCentres) -> tuple[HomeCentres, ...]:
        return groups

    def home_centres(self, powers: Token | str | tuple[str, ...], *centres: str) -> HomeCentres:
        return HomeCentres(powers if isinstance(powers, tuple) else _value(powers), centres)

    def non_centres(self, *provinces: str) -> tuple[str, ...]:
        return provinces

    def adjacencies(self, *adjacencies: ProvinceAdjacency) -> tuple[ProvinceAdjacency, ...]:
        return adjacencies

    def province_adjacency(self, province: str, *coasts: CoastAdjacency) -> ProvinceAdjacency:
        return ProvinceAdjacency(province, coasts)

    def coast_adjacency(self, unit: tuple[str, str | None], *destinations: Location) -> CoastAdjacency:
        return CoastAdjacency(unit[0], unit[1], destinations)

    def isolated_adjacency(self) -> CoastAdjacency:
        return CoastAdjacency("AMY", None, ())

    def mdf_unit(self, *tokens: Token) -> tuple[str, str | None]:
        if len(tokens) == 1:
            return tokens[0].value, None
        return tokens[1].value, tokens[2].value

    def hlo(self, power: Token | str | None = None, passcode: Token | None = None, variant: tuple = ()) -> Hlo:
        if power is None:
            return Hlo()
        return Hlo(_value(power), int(passcode.value), variant)  # type: ignore[union-attr]

    def sco(self, *ownership: Ownership) -> Sco:
        # real servers send a power (or UNO) with no centre, "(GER)": read it, print without it
        return Sco(tuple(o for o in ownership if o.centres))

    def ownership(self, power: Token | str, *centres: str) -> Ownership:
        return Ownership(_value(power), centres)

    def now(self, turn: Turn | None = None, *units: DaideUnit | MrtUnit) -> Now:
        return Now(turn, units)

    def hst(self, turn: Turn | None = None) -> Hst:
        return Hst(turn)

    def sub(self, *parts: Turn | object) -> Sub:
        if parts and isinstance(parts[0], Turn):
            return Sub(parts[1:], parts[0])  # type: ignore[arg-type]
        return Sub(parts)  # type: ignore[arg-type]

    def sub_cancel(self, *orders: object) -> Sub:
        return Sub(orders)  # type: ignore[arg-type]

    def thx(self, order: object, note: str) -> Thx:
        return Thx(order, note)  # type: ignore[arg-type]

    def mis(self, *parts: Token | DaideUnit | MrtUnit) -> Mis:
        if len(parts) == 1 and isinstance(parts[0], Token):
            return Mis(count=int(parts[0].value))
        return Mis(parts)  # type: ignore[arg-type]

    def gof(self) -> Gof:
        return Gof()

    def ord(
        self, turn: Turn | None = None, order: object = None, result: tuple[str | None, bool] = (None, False)
    ) -> Ord:
        if turn is None:
            return Ord()
        return Ord(turn, order, *result)  # type: ignore[arg-type]

    def result(self, *parts: Token | str) -> tuple[str | None, bool]:
        retreat = isinstance(parts[-1], Token) and parts[-1].type == "_RET"
        first = parts[0]
        return (None if isinstance(first, Token) and first.type == "_RET" else _value(first)), retreat

    def order_result(self, token: Token | str) -> str:
        return _value(token)

    def sve(self, game: str) -> Sve:
        return Sve(game)

    def lod(self, game: str) -> Lod:
        return Lod(game)

    def off(self) -> Off:
        return Off()

    def tme(self, seconds: Token | None = None) -> Tme:
        return Tme(None if seconds is None else int(seconds.value))

    def huh(self, *children: _Token | tuple) -> Huh:
        return Huh(self._echo(children, "start"))

    def huh_press(self, *children: _Token | tuple) -> Huh:
        return Huh(self._echo(children, "press_message"))

    def _echo(self, children: tuple[_Token | tuple, ...], start: str) -> tuple[str, ...]:
        """The echo of ``HUH ( ... )`` from its children: HUH, '(', the raw tokens and groups, ')'.

        The parser hands the LALR parser ``HUH ( )`` without the inside (see :func:`_collapse`):
        the inside is then the tokens of the message between that '(' and that ')'.
        """
        opening, closing = children[1], children[-1]
        assert isinstance(opening, _Token) and isinstance(closing, _Token)
        if len(children) > 3:
            tokens = _flatten(children[2:-1])
        else:
            tokens = self._parser._local.root[opening.start_pos + 1 : closing.start_pos]
        echo = tuple(token.value for token in tokens)
        # HUH (message) echoes a whole message: it must then be one
        if "ERR" not in echo and not self._parser._is_message(tokens, start):
            what = "message" if start == "start" else "press message"
            raise _Misplaced(closing.start_pos, f"HUH without ERR must echo a {what}")
        return echo

    def raw_token(self, token: _Token) -> _Token:
        return token

    def raw_group(self, *children: _Token | tuple) -> tuple:
        # the group as it came, '(' and ')' included: flattened once, by _echo, not at every level
        return children

    def ccd(self, power: Token, extra: Turn | Snd | None = None) -> Ccd:
        if isinstance(extra, Turn):
            return Ccd(power.value, turn=extra)
        return Ccd(power.value, send=extra)

    def out(self, power: Token, send: Snd) -> Out:
        return Out(power.value, send)

    def adm(self, name: str, text: str) -> Adm:
        return Adm(name, text)

    def slo(self, power: Token) -> Slo:
        return Slo(power.value)

    def drw(self, *powers: Token) -> Drw:
        return Drw(tuple(p.value for p in powers))

    def smr(self, turn: Turn | None = None, *players: SmrEntry) -> Smr:
        return Smr(turn, players)

    def smr_entry(self, power: Token, name: str, version: str, centres: Token, year: Token | None = None) -> SmrEntry:
        return SmrEntry(power.value, name, version, int(centres.value), None if year is None else int(year.value))

    def not_message(self, content: Value) -> Not:
        return Not(content)

    def yes(self, content: Value) -> Yes:
        return Yes(content)

    def rej(self, content: Value) -> Rej:
        return Rej(content)

    def snd(self, *parts: object) -> Snd:
        if isinstance(parts[0], Turn):
            return Snd(parts[1], parts[2], parts[0])  # type: ignore[arg-type]
        return Snd(parts[0], parts[1])  # type: ignore[arg-type]

    def frm(self, sender: Token, recipients: tuple[str, ...], press: object) -> Frm:
        return Frm(sender.value, recipients, press)  # type: ignore[arg-type]

    # orders
    def order(self, unit: DaideUnit, action: tuple) -> object:
        kind, args = action
        return kind(unit, *args)

    def hold_action(self) -> tuple:
        return Hold, ()

    def move_action(self, place: Location | str) -> tuple:
        return Move, (_location(place),)

    def support_hold_action(self, supported: DaideUnit) -> tuple:
        return SupportHold, (supported,)

    def support_move_action(self, supported: DaideUnit, province: str) -> tuple:
        return SupportMove, (supported, Location(province))

    def convoy_action(self, army: DaideUnit, province: str) -> tuple:
        return Convoy, (army, Location(province))

    def move_by_convoy_action(self, province: str, *via: str) -> tuple:
        return MoveByConvoy, (Location(province), via)

    def retreat_action(self, place: Location | str) -> tuple:
        return Retreat, (_location(place),)

    def disband_action(self) -> tuple:
        return Disband, ()

    def build_action(self) -> tuple:
        return Build, ()

    def remove_action(self) -> tuple:
        return Remove, ()

    def waive(self, power: Token | None = None) -> Waive:
        return Waive(None if power is None else power.value)

    def hold(self, unit: DaideUnit | LooseUnit) -> Hold:
        return Hold(unit)

    def move(self, unit: DaideUnit | LooseUnit, place: Location) -> Move:
        return Move(unit, place)

    def support_hold(self, unit: DaideUnit | LooseUnit, supported: DaideUnit | LooseUnit) -> SupportHold:
        return SupportHold(unit, supported)

    def support_move(self, unit: DaideUnit | LooseUnit, supported: DaideUnit | LooseUnit, place: Location) -> SupportMove:
        return SupportMove(unit, supported, place)

    def convoy(self, unit: DaideUnit | LooseUnit, army: DaideUnit | LooseUnit, place: Location) -> Convoy:
        return Convoy(unit, army, place)

    def move_by_convoy(self, unit: DaideUnit | LooseUnit, place: Location, *via: str) -> MoveByConvoy:
        return MoveByConvoy(unit, place, via or None)

    def retreat(self, unit: DaideUnit | LooseUnit, place: Location) -> Retreat:
        return Retreat(unit, place)

    def disband(self, unit: DaideUnit | LooseUnit) -> Disband:
        return Disband(unit)

    def build(self, unit: DaideUnit | LooseUnit) -> Build:
        return Build(unit)

    def remove(self, unit: DaideUnit | LooseUnit) -> Remove:
        return Remove(unit)

    def full_unit(self, power: Token, unit_type: str, place: Location) -> DaideUnit:
        return DaideUnit(power.value, unit_type, place)

    def bare_unit(self, place: Location | str) -> LooseUnit:
        return LooseUnit(None, None, _location(place))

    def power_unit(self, power: Token, place: Location) -> LooseUnit:
        return LooseUnit(power.value, None, place)

    def typed_unit(self, unit_type: str, place: Location) -> LooseUnit:
        return LooseUnit(None, unit_type, place)

    # press
    def prp(self, arrangement: object) -> Prp:
        return Prp(arrangement)  # type: ignore[arg-type]

    def ins(self, arrangement: object) -> Ins:
        return Ins(arrangement)  # type: ignore[arg-type]

    def qry(self, arrangement: object) -> Qry:
        return Qry(arrangement)  # type: ignore[arg-type]

    def sug(self, arrangement: object) -> Sug:
        return Sug(arrangement)  # type: ignore[arg-type]

    def wht(self, unit: DaideUnit) -> Wht:
        return Wht(unit)

    def how(self, target: Token | str) -> How:
        return How(_value(target))

    def exp(self, turn: Turn, press: object) -> Exp:
        return Exp(turn, press)  # type: ignore[arg-type]

    def iff(self, condition: object, then: Value, otherwise: Value | None = None) -> Iff:
        return Iff(condition, then, otherwise)  # type: ignore[arg-type]

    def bwx(self, statement: Value) -> Bwx:
        return Bwx(statement)

    def thk(self, content: Value) -> Thk:
        return Thk(content)

    def fct(self, content: Value) -> Fct:
        return Fct(content)

    def idk(self, content: Value) -> Idk:
        return Idk(content)

    def sry(self, exp: Exp) -> Sry:
        return Sry(exp)

    def why(self, content: Value) -> Why:
        return Why(content)

    def pob(self, why: Why) -> Pob:
        return Pob(why)

    def ccl(self, press: object) -> Ccl:
        return Ccl(press)  # type: ignore[arg-type]

    def try_(self, *tokens: str) -> Try:
        return Try(tokens)

    def pce(self, powers: tuple[str, ...]) -> Pce:
        return Pce(powers)

    def aly(self, allies: tuple[str, ...], versus: tuple[str, ...]) -> Aly:
        return Aly(allies, versus)

    def nar(self, content: Value) -> Nar:
        return Nar(content)

    def xdo(self, order: object) -> Xdo:
        return Xdo(order)  # type: ignore[arg-type]

    def dmz(self, powers: tuple[str, ...], provinces: tuple[str, ...]) -> Dmz:
        return Dmz(powers, provinces)

    def and_(self, *parts: object) -> And:
        return And(parts)  # type: ignore[arg-type]

    def orr(self, *parts: object) -> Orr:
        return Orr(parts)  # type: ignore[arg-type]

    def scd(self, *shares: Ownership) -> Scd:
        return Scd(shares)

    def occ(self, *units: DaideUnit) -> Occ:
        return Occ(units)

    def cho(self, minimum: Token, maximum: Token, *parts: object) -> Cho:
        return Cho(int(minimum.value), int(maximum.value), parts)  # type: ignore[arg-type]

    def for_(self, start: Turn, *rest: object) -> For:
        if len(rest) == 2:
            return For(start, rest[0], rest[1])  # type: ignore[arg-type]
        return For(start, None, rest[0])  # type: ignore[arg-type]

    def xoy(self, debtor: Token, creditor: Token) -> Xoy:
        return Xoy(debtor.value, creditor.value)

    def ydo(self, power: Token, *units: DaideUnit) -> Ydo:
        return Ydo(power.value, units)

    def snd_arrangement(self, sender: Token, recipients: tuple[str, ...], press: object) -> SndArrangement:
        return SndArrangement(sender.value, recipients, press)  # type: ignore[arg-type]

    def fwd(self, senders: tuple[str, ...], recipient: Token, to: Token) -> Fwd:
        return Fwd(senders, recipient.value, to.value)

    def bcc(self, sender: Token, recipients: tuple[str, ...], to: Token) -> Bcc:
        return Bcc(sender.value, recipients, to.value)


# --- the parser ----------------------------------------------------------------------------------------

#: Brackets nested deeper than this are refused with ``HUH``. The deepest message DAIDE defines
#: (press at level 130 inside ``SND``, a ``HUH`` echoing it) nests about 15 deep; the typed
#: messages, their text and their press levels are walked by recursion, which this bounds.
MAX_DEPTH = 64
#: Messages of more tokens than this are refused with ``HUH``, their echo cut after as many
#: tokens. The longest message the game sends, the standard map's ``MDF``, has 1,281 tokens;
#: a DAIDE ``DM`` carries 32,767 at most.
MAX_TOKENS = 8192
#: How many echoes within echoes are read as messages: ``HUH (message)`` without ``ERR``, and
#: ``PRN (message)`` with matching brackets, must echo a message, which is parsed again; an
#: echo inside that echo again, and so on. Each level reads its part of the message once more,
#: so this bounds the work at a few times the length of the message.
MAX_ECHO_NESTING = 3
#: A number of more characters than this is no DAIDE number (those have 14 bits): an unknown token.
_MAX_NUMBER_CHARS = 18
#: How many texts that failed to parse are remembered, and the longest remembered.
_FAILURES, _FAILURE_CHARS = 16, 16_384


class DaideParser:
    """Parses the text form of DAIDE messages of one map's powers and provinces.

    The default is the standard map. A variant names its own powers and its provinces by
    category (the keys of :data:`~protocol.daide.messages.PROVINCES_BY_CATEGORY`), as its
    representation message does; they must not clash with the other token names.

    Parsing takes time linear in the length of the text: the tokens are read once, the brackets
    checked in one pass (matching, nested at most :data:`MAX_DEPTH` deep, at most
    :data:`MAX_TOKENS` tokens), then the LALR parser runs; the echoes of ``HUH`` and ``PRN`` are
    parsed again without reading the text again, at most :data:`MAX_ECHO_NESTING` within each
    other. A text that failed is remembered for a while: a server that parses a message, then
    hands the text that failed to the game master which parses it for its reply, pays once.
    """

    def __init__(
        self,
        powers: Iterable[str] = POWERS,
        provinces: Mapping[str, Iterable[str]] = PROVINCES_BY_CATEGORY,
    ) -> None:
        from protocol.daide.messages import COASTS, SEASONS

        types = {name: "_" + name for name in KEYWORDS}
        types.update((c, "COAST") for c in COASTS)
        types.update((s, "SEASON") for s in SEASONS)
        for category, names in provinces.items():
            if category not in PROVINCES_BY_CATEGORY:
                raise ValueError(f"unknown province category {category!r}")
            types.update((name.upper(), category) for name in names)
        types.update((p.upper(), "POWER") for p in powers)
        self._types = types
        self._lark = grammar.parser(
            _grammar(), parser="lalr", lexer=_Given, transformer=_Build(self), start=["start", "press_message"]
        )
        self._local = threading.local()  # how many echoes deep the parse of this thread is
        self._failures: dict[tuple[str, str], tuple[type[DaideSyntaxError], tuple]] = {}

    def tokenize(self, text: str, limit: int | None = None) -> list[_Token]:
        """The tokens of ``text`` for the grammar; a token's ``start_pos`` is its index.

        Never fails: a word that is no token becomes an ``UNKNOWN`` token, which only the echo
        of a ``HUH`` or ``PRN`` accepts. With ``limit``, stops after that many tokens.
        """
        types = self._types
        tokens: list[_Token] = []
        line, line_start = 1, 0
        for match in _LEXEME.finditer(text):
            group = match.lastindex
            lexeme = match.group()
            if group == _SPACE:
                if "\n" in lexeme:
                    line += lexeme.count("\n")
                    line_start = match.start() + lexeme.rindex("\n") + 1
                continue
            if group == _WORD:
                value = lexeme.upper()
                kind = types.get(value, _UNKNOWN)
            elif group == _BRA:
                kind, value = _LP, "("
            elif group == _KET:
                kind, value = _RP, ")"
            elif group == _TEXT:
                kind, value = _STRING, lexeme
            elif group == _NUMBER:
                if len(lexeme) > _MAX_NUMBER_CHARS:
                    kind, value = _UNKNOWN, lexeme
                else:
                    kind, value = _INT, str(int(lexeme))
            elif group == _UNTERMINATED:
                kind, value = _UNKNOWN, quote(lexeme[1:])
            else:
                kind, value = _UNKNOWN, lexeme
            column = match.start() - line_start + 1
            tokens.append(_Token(kind, value, len(tokens), line, column, column + len(lexeme)))
            if limit is not None and len(tokens) >= limit:
                break
        return tokens

    def parse(self, text: str, start: str = "start") -> Value | str:
        """The typed message of ``text``; raises :class:`PrnError` or :class:`HuhError`.

        ``start="press_message"`` parses a press message alone (as inside ``SND (...) (...)``),
        which may be free text (a ``str``).
        """
        key = (text, start)
        failure = self._failures.get(key)
        if failure is not None:
            kind, arguments = failure
            raise kind(*arguments)
        try:
            return self._parse(text, start)
        except DaideSyntaxError as error:
            if len(text) <= _FAILURE_CHARS:
                self._remember(key, error)
            raise

    def _remember(self, key: tuple[str, str], error: DaideSyntaxError) -> None:
        failures = self._failures
        while len(failures) >= _FAILURES:
            try:
                del failures[next(iter(failures))]  # the oldest
            except (KeyError, RuntimeError, StopIteration):  # pragma: no cover - another thread's
                break
        failures[key] = (type(error), (error.description, error.echo, error.index, error.line, error.column))

    def _parse(self, text: str, start: str) -> Value | str:
        tokens = self.tokenize(text, limit=MAX_TOKENS + 1)
        if len(tokens) > MAX_TOKENS:
            raise _too_long(tokens)
        # the tokens of the message, where the echo of a HUH is found (see _collapse)
        local = self._local
        outer = getattr(local, "root", None)
        local.root = tokens
        try:
            return self._parse_tokens(tokens, start)
        finally:
            local.root = outer

    def _parse_tokens(self, tokens: list[_Token], start: str) -> Value | str:
        echo = tuple(t.value for t in tokens)
        stray, unclosed, deep = _scan(tokens)
        if start == "start":
            if not tokens:
                raise HuhError("the message is empty", echo, 0, 1, 1)
            if tokens[0].type == "_PRN":
                if deep is not None:
                    raise _too_deep(echo, tokens, deep)
                return self._prn(tokens, echo, matched=stray is None and unclosed is None)
        _unmatched(tokens, echo, stray, unclosed)
        if deep is not None:
            raise _too_deep(echo, tokens, deep)
        try:
            return self._lark.parse(_collapse(tokens), start=start)  # type: ignore[arg-type,return-value]
        except UnexpectedInput as error:
            token = error.token  # type: ignore[attr-defined]
            expected = _expected(getattr(error, "expected", ()) or ())
            if token.type == "$END":
                raise _huh(f"the message ends too soon: expected {expected}", echo, tokens, len(tokens)) from None
            if token.type == _UNKNOWN:
                raise _huh(f"unknown token {token.value}", echo, tokens, token.start_pos) from None
            shown = f"'{token.value}'" if token.type in (_LP, _RP) else token.value
            raise _huh(f"unexpected {shown}: expected {expected}", echo, tokens, token.start_pos) from None
        except _Misplaced as error:
            raise _huh(error.description, echo, tokens, error.index) from None

    def _prn(self, tokens: list[_Token], echo: tuple[str, ...], matched: bool) -> Prn:
        """``PRN (...)``: the echo may have brackets that do not match, so no grammar reads it."""
        if len(tokens) < 2 or tokens[1].type != _LP:
            if not matched:
                _check_brackets(tokens, echo)
            raise _huh("PRN must be followed by '('", echo, tokens, 1)
        if len(tokens) < 3 or tokens[-1].type != _RP:
            if not matched:
                _check_brackets(tokens, echo)
            raise _huh("PRN (...) must end with ')'", echo, tokens, len(tokens))
        inside = tokens[2:-1]
        if _balanced(inside) and not self._is_message(inside, "start"):
            raise _huh("PRN with matching brackets must echo a message", echo, tokens, len(tokens) - 1)
        return Prn(echo[2:-1])

    def _is_message(self, tokens: list[_Token], start: str) -> bool:
        """Whether ``tokens``, an echo whose brackets match, are a message (or a press message).

        The tokens are parsed as they are, not read from text again, and only so many echoes
        within echoes (:data:`MAX_ECHO_NESTING`): deeper, the echo is no message.
        """
        local = self._local
        level = getattr(local, "level", 0)
        if level >= MAX_ECHO_NESTING or (start == "start" and not tokens):
            return False
        local.level = level + 1
        try:
            if start == "start" and tokens[0].type == "_PRN":
                self._prn(tokens, tuple(t.value for t in tokens), matched=True)
            else:
                self._lark.parse(_collapse(tokens), start=start)  # type: ignore[arg-type]
        except (UnexpectedInput, _Misplaced, DaideSyntaxError):
            return False
        finally:
            local.level = level
        return True


def _huh(description: str, echo: tuple[str, ...], tokens: list[_Token], index: int) -> HuhError:
    if index < len(tokens):
        return HuhError(description, echo, index, tokens[index].line, tokens[index].column)
    last = tokens[-1] if tokens else None
    return HuhError(description, echo, index, last.end_line if last else 1, last.end_column if last else 1)


def _scan(tokens: list[_Token]) -> tuple[int | None, int | None, int | None]:
    """One pass over the brackets: the index of the first ')' that closes nothing, of the first
    '(' never closed, and of the first '(' nested more than :data:`MAX_DEPTH` deep (or None)."""
    opened: list[int] = []
    stray = deep = None
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == _LP:
            opened.append(index)
            if deep is None and len(opened) > MAX_DEPTH:
                deep = index
        elif kind == _RP:
            if opened:
                opened.pop()
            elif stray is None:
                stray = index
    return stray, (opened[0] if opened and stray is None else None), deep


def _balanced(tokens: list[_Token]) -> bool:
    depth = 0
    for token in tokens:
        kind = token.type
        if kind == _LP:
            depth += 1
        elif kind == _RP:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _check_brackets(tokens: list[_Token], echo: tuple[str, ...]) -> None:
    stray, unclosed, _deep = _scan(tokens)
    _unmatched(tokens, echo, stray, unclosed)


def _unmatched(tokens: list[_Token], echo: tuple[str, ...], stray: int | None, unclosed: int | None) -> None:
    """``PRN`` for the bracket :func:`_scan` found unmatched, if any."""
    if stray is not None:
        token = tokens[stray]
        raise PrnError("')' closes no bracket", echo, stray, token.line, token.column)
    if unclosed is not None:
        token = tokens[unclosed]
        raise PrnError("'(' is never closed", echo, unclosed, token.line, token.column)


def _too_deep(echo: tuple[str, ...], tokens: list[_Token], index: int) -> HuhError:
    return _huh(f"brackets nested more than {MAX_DEPTH} deep", echo, tokens, index)


def _too_long(tokens: list[_Token]) -> HuhError:
    """A message of more than :data:`MAX_TOKENS` tokens: ``HUH`` echoes as many, ``ERR``, and the
    brackets that close those left open (so that the reply is a message)."""
    kept = tokens[:MAX_TOKENS]
    opened = 0
    for token in kept:
        if token.type == _LP:
            opened += 1
        elif token.type == _RP and opened:
            opened -= 1
    echo = tuple(t.value for t in kept) + (")",) * opened
    first = tokens[MAX_TOKENS]
    return HuhError(f"a message has {MAX_TOKENS} tokens at most", echo, MAX_TOKENS, first.line, first.column)


def _collapse(tokens: list[_Token]) -> list[_Token]:
    """The tokens for the LALR parser: ``HUH (`` and its ``)`` without what is between them.

    The echo of a ``HUH`` is any tokens; the LALR parser would read each of them, and read
    them again when the echo must be a message. Left out, they are read (as a message) only
    where they must be one: :meth:`_Build._echo` finds them by the indices of the brackets.
    One pass: the inside of a HUH is skipped over, not read again.
    """
    out: list[_Token] = []
    append = out.append
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        append(token)
        i += 1
        if token.type == "_HUH" and i < n and tokens[i].type == _LP:
            depth, j = 0, i
            while j < n:
                kind = tokens[j].type
                if kind == _LP:
                    depth += 1
                elif kind == _RP:
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j < n:
                append(tokens[i])
                append(tokens[j])
                i = j + 1
    return out


def _flatten(items: Iterable[_Token | tuple]) -> list[_Token]:
    """The tokens of the raw groups of a ``HUH`` echo, in order, found without recursion."""
    out: list[_Token] = []
    stack = [iter(items)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, tuple):
                stack.append(iter(item))
                break
            out.append(item)
        else:
            stack.pop()
    return out


_default: DaideParser | None = None


def _parser() -> DaideParser:
    global _default
    if _default is None:
        _default = DaideParser()
    return _default


def parse(text: str) -> Value:
    """The typed message of ``text`` on the standard map (see :meth:`DaideParser.parse`)."""
    return _parser().parse(text)  # type: ignore[return-value]


def parse_press(text: str) -> Value | str:
    """A press message alone, as it goes inside ``SND (...) (...)``, on the standard map.

    >>> parse_press("PRP (PCE (ENG FRA))")
    Prp(arrangement=Pce(powers=('ENG', 'FRA')))
    """
    return _parser().parse(text, start="press_message")


#: Tokens that start a press message and no other message.
_PRESS_STARTS = frozenset("PRP INS QRY SUG WHT HOW EXP IFF BWX THK FCT IDK SRY WHY POB CCL TRY".split())


def check(text: str) -> dict:
    """What ``detente check daide`` prints for one message, as a dict for JSON.

    A message that starts with a press-only token (``PRP``, ``FCT``, ...) or with text is
    checked as a press message alone, as it would go inside ``SND``.

    >>> check("SND (FRA) (PRP (PCE (ENG FRA)))")
    {'ok': True, 'level': 10, 'text': 'SND (FRA) (PRP (PCE (ENG FRA)))'}
    >>> check("PRP (AND (PCE (ENG FRA)) (DRW))")
    {'ok': True, 'level': 30, 'text': 'PRP (AND (PCE (ENG FRA)) (DRW))'}
    >>> check("NOW (SPR 1901) (ENG AMY NTH)")["message"]
    'unexpected NTH: expected a land province; the reply is HUH (NOW (SPR 1901) (ENG AMY ERR NTH))'
    """
    first = text.lstrip()[:3].upper()
    press = first in _PRESS_STARTS or text.lstrip().startswith("'")
    try:
        message = parse_press(text) if press else parse(text)
    except DaideSyntaxError as error:
        return {
            "ok": False,
            "kind": "syntax",
            "line": error.line,
            "column": error.column,
            "message": f"{error.description}; the reply is {error.reply_text}",
        }
    return {"ok": True, "level": press_level(message, press=press), "text": to_text(message)}


# --- press levels ------------------------------------------------------------------------------------

_LEVEL_10_OPTIONS = frozenset({"PDA", "NPR", "NPB", "PTL"})


def press_level(message: Value | str, *, press: bool = False) -> int:
    """The lowest syntax level at which ``message`` is legal: 0 for no press, 10 to 130, or
    8000 for free text.

    With ``press`` the value is read as a press message alone (as inside ``SND``). Without
    it, the types that are both commands and press (``Yes``, ``Not``, ``Drw``, ``Frm``,
    ``Huh`` ...) are read as commands, and the others that only press has (``Prp``, a
    ``str`` ...) as press.

    >>> press_level(parse("NOW (SPR 1901) (AUS FLT TRI)"))
    0
    >>> press_level(parse("SND (FRA) (PRP (AND (PCE (ENG FRA)) (DRW)))"))
    30
    >>> press_level(parse("SND (FRA) (PRP (AND (PCE (ENG FRA)) (ORR (DRW) (SLO (ENG)))))"))
    50
    """
    walk = _LevelWalk()
    level = walk.press(message) if press else walk.message(message)
    if walk.multiparts:
        # level 30 allows one AND or ORR, directly proposed; more, or nested, is level 50
        level = max(level, 30 if walk.multiparts == 1 and not walk.nested else 50)
    return level


class _LevelWalk:
    __slots__ = ("multiparts", "nested")

    def __init__(self) -> None:
        self.multiparts = 0
        self.nested = False

    def message(self, m: object) -> int:
        if isinstance(m, Snd | Frm):
            return max(10, self.press(m.press))
        if isinstance(m, Yes | Rej | Not):
            return self.message(m.content)
        if isinstance(m, Ccd | Out):
            return 0 if m.send is None else self.message(m.send)
        if isinstance(m, Drw):
            return 10 if m.powers else 0
        if isinstance(m, Hlo | Listing):
            return 10 if any(o.name in _LEVEL_10_OPTIONS for o in m.variant) else 0
        if isinstance(m, Value) and not _is_press(m):
            return 0
        return self.press(m)

    def press(self, p: object) -> int:
        if isinstance(p, str):
            return 8000
        if isinstance(p, Prp):
            if isinstance(p.arrangement, And | Orr):
                self.multiparts += 1
                return max(30, *(self.arrangement(part) for part in p.arrangement.parts))
            return max(10, self.arrangement(p.arrangement))
        if isinstance(p, Ins | Qry | Sug):
            return max(60, self.arrangement(p.arrangement))
        if isinstance(p, Wht | How):
            return 70
        if isinstance(p, Exp):
            return max(80, self.press(p.press))
        if isinstance(p, Iff):
            branches = [self.press(p.then)] + ([] if p.otherwise is None else [self.press(p.otherwise)])
            return max(100, self.arrangement(p.condition), *branches)
        if isinstance(p, Yes | Rej | Bwx):
            return max(10, self.press(p.content if not isinstance(p, Bwx) else p.statement))
        if isinstance(p, Huh | Try):
            return 10
        if isinstance(p, Thk | Fct):
            content = p.content
            if isinstance(content, Nar) and isinstance(content.content, Qry):
                content = content.content
            if isinstance(content, Qry):
                return max(60, self.press(content))
            return max(60 if isinstance(p, Thk) else 10, self.arrangement(content))
        if isinstance(p, Idk):
            return max(130 if isinstance(p.content, Prp | Ins | Sug) else 60, self.press(p.content))
        if isinstance(p, Sry):
            return max(80, self.press(p.exp))
        if isinstance(p, Why | Pob):
            return max(130, self.press(p.content if isinstance(p, Why) else p.why))
        if isinstance(p, Ccl):
            return max(10, self.press(p.press))
        if isinstance(p, Frm):
            return max(120, self.press(p.press))
        return self.arrangement(p)

    def arrangement(self, a: object) -> int:
        if isinstance(a, Pce | Aly | Drw | Slo):
            return 10
        if isinstance(a, Not | Nar):
            return max(10, self.press(a.content))
        if isinstance(a, Xdo | Dmz):
            return 20
        if isinstance(a, And | Orr):
            self.multiparts += 1
            self.nested = True
            return max(30, *(self.arrangement(part) for part in a.parts))
        if isinstance(a, Scd | Occ):
            return 40
        if isinstance(a, Cho):
            return max(50, *(self.arrangement(part) for part in a.parts))
        if isinstance(a, For):
            return max(90, self.arrangement(a.arrangement))
        if isinstance(a, Xoy | Ydo):
            return 110
        if isinstance(a, SndArrangement):
            return max(120, self.press(a.press))
        if isinstance(a, Fwd | Bcc):
            return 120
        return 0


#: The messages that are no press: of the types press shares, these are read as commands.
_COMMANDS = (
    Lst, Listing, Sel, Nme, Obs, Iam, MapMessage, Mdf, Hst, Sco, Now, Sub, Thx, Mis, Gof, Ord, Sve, Lod, Off, Tme, Prn,
    Huh, Adm, Slo,
)  # fmt: skip


def _is_press(value: Value) -> bool:
    return not isinstance(value, _COMMANDS)
