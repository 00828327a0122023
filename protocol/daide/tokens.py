"""The DAIDE token table and the three forms of a message: text, a tuple of tokens, and bytes.

Every token is a 16-bit number: its category in the high octet and its number within the category
in the low one, as chapter 4 of the client-server protocol document fixes them.  Integers take the
categories 0x00-0x3F (a 14-bit two's-complement value), a text token carries one octet of UTF-8,
and the eight province categories tell whether a province is inland, sea, coastal or bicoastal and
whether it is a supply centre.

>>> tokens = text_to_tokens("SUB (SPR 1901) ((ENG FLT LON) MTO NTH)")
>>> [hex(t) for t in tokens[:4]]
['0x4818', '0x4000', '0x4700', '0x76d']
>>> tokens_to_bytes(tokens[:3]).hex()
'481840004700'
>>> tokens_to_text(bytes_to_tokens(tokens_to_bytes(tokens)))
'SUB (SPR 1901) ((ENG FLT LON) MTO NTH)'

Tokens may touch brackets, names are not case-sensitive, and text sits in single quotes with a quote
inside doubled:

>>> tokens_to_text(text_to_tokens("nme('it''s')('1.0')"))
"NME ('it''s') ('1.0')"
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

__all__ = [
    "MAX_INTEGER",
    "MIN_INTEGER",
    "STANDARD",
    "Category",
    "DaideTokenError",
    "ProvinceType",
    "Representation",
    "Token",
    "bytes_to_tokens",
    "category",
    "decode_string",
    "encode_string",
    "integer_token",
    "integer_value",
    "is_integer",
    "is_power",
    "is_province",
    "is_reserved",
    "is_supply_centre",
    "is_text",
    "province_type",
    "scan_text",
    "text_to_tokens",
    "tokens_to_bytes",
    "tokens_to_text",
]

MIN_INTEGER = -8192
MAX_INTEGER = 8191


class DaideTokenError(ValueError):
    """Text, tokens or bytes that are not a DAIDE token sequence.

    ``index`` is the position of the offending character (text), token (token tuple) or octet
    (bytes), or None when the error concerns a single value.
    """

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message if index is None else f"{message} (at {index})")
        self.message = message
        self.index = index


class Category(IntEnum):
    """The token categories of chapter 4 (the high octet); integers take all of 0x00-0x3F."""

    MISCELLANEOUS = 0x40
    POWER = 0x41
    UNIT_TYPE = 0x42
    ORDER = 0x43
    ORDER_NOTE = 0x44
    RESULT = 0x45
    COAST = 0x46
    PHASE = 0x47
    COMMAND = 0x48
    PARAMETER = 0x49
    PRESS = 0x4A
    TEXT = 0x4B
    # Parlance's numbers for tokens the DAIDE documents use but never numbered officially.
    EXPERIMENTAL = 0x4E
    INLAND_NON_SC = 0x50
    INLAND_SC = 0x51
    SEA_NON_SC = 0x52
    SEA_SC = 0x53
    COASTAL_NON_SC = 0x54
    COASTAL_SC = 0x55
    BICOASTAL_NON_SC = 0x56
    BICOASTAL_SC = 0x57


class ProvinceType(IntEnum):
    """Bits 1-2 of a province category (section 4.16)."""

    INLAND = 0
    SEA = 1
    COASTAL = 2
    BICOASTAL = 3


class Token(IntEnum):
    """Every named token of the standard game, with its number from chapter 4 of the protocol document.

    >>> Token.SUB, hex(Token.EAS), Token(0x4000).name
    (<Token.SUB: 18456>, '0x5213', 'BRA')
    """

    # Miscellaneous (0x40)
    BRA = 0x4000
    KET = 0x4001
    # Powers (0x41)
    AUS = 0x4100
    ENG = 0x4101
    FRA = 0x4102
    GER = 0x4103
    ITA = 0x4104
    RUS = 0x4105
    TUR = 0x4106
    # Unit types (0x42)
    AMY = 0x4200
    FLT = 0x4201
    # Orders (0x43): the top three bits of the low octet tell the phase (adjustment, retreat, movement)
    CTO = 0x4320
    CVY = 0x4321
    HLD = 0x4322
    MTO = 0x4323
    SUP = 0x4324
    VIA = 0x4325
    DSB = 0x4340
    RTO = 0x4341
    BLD = 0x4380
    REM = 0x4381
    WVE = 0x4382
    # Order notes (0x44)
    MBV = 0x4400
    BPR = 0x4401
    CST = 0x4402
    ESC = 0x4403
    FAR = 0x4404
    HSC = 0x4405
    NAS = 0x4406
    NMB = 0x4407
    NMR = 0x4408
    NRN = 0x4409
    NRS = 0x440A
    NSA = 0x440B
    NSC = 0x440C
    NSF = 0x440D
    NSP = 0x440E
    NSU = 0x4410
    NVR = 0x4411
    NYU = 0x4412
    YSC = 0x4413
    # Results (0x45)
    SUC = 0x4500
    BNC = 0x4501
    CUT = 0x4502
    DSR = 0x4503
    FLD = 0x4504
    NSO = 0x4505
    RET = 0x4506
    # Coasts (0x46)
    NCS = 0x4600
    NEC = 0x4602
    ECS = 0x4604
    SEC = 0x4606
    SCS = 0x4608
    SWC = 0x460A
    WCS = 0x460C
    NWC = 0x460E
    # Phases (0x47)
    SPR = 0x4700
    SUM = 0x4701
    FAL = 0x4702
    AUT = 0x4703
    WIN = 0x4704
    # Commands (0x48)
    CCD = 0x4800
    DRW = 0x4801
    FRM = 0x4802
    GOF = 0x4803
    HLO = 0x4804
    HST = 0x4805
    HUH = 0x4806
    IAM = 0x4807
    LOD = 0x4808
    MAP = 0x4809
    MDF = 0x480A
    MIS = 0x480B
    NME = 0x480C
    NOT = 0x480D
    NOW = 0x480E
    OBS = 0x480F
    OFF = 0x4810
    ORD = 0x4811
    OUT = 0x4812
    PRN = 0x4813
    REJ = 0x4814
    SCO = 0x4815
    SLO = 0x4816
    SND = 0x4817
    SUB = 0x4818
    SVE = 0x4819
    THX = 0x481A
    TME = 0x481B
    YES = 0x481C
    ADM = 0x481D
    SMR = 0x481E
    # Parameters (0x49)
    AOA = 0x4900
    BTL = 0x4901
    ERR = 0x4902
    LVL = 0x4903
    MRT = 0x4904
    MTL = 0x4905
    NPB = 0x4906
    NPR = 0x4907
    PDA = 0x4908
    PTL = 0x4909
    RTL = 0x490A
    UNO = 0x490B
    DSD = 0x490D
    # Press (0x4A)
    ALY = 0x4A00
    AND = 0x4A01
    BWX = 0x4A02
    DMZ = 0x4A03
    ELS = 0x4A04
    EXP = 0x4A05
    FWD = 0x4A06
    FCT = 0x4A07
    FOR = 0x4A08
    HOW = 0x4A09
    IDK = 0x4A0A
    IFF = 0x4A0B
    INS = 0x4A0C
    OCC = 0x4A0E
    ORR = 0x4A0F
    PCE = 0x4A10
    POB = 0x4A11
    PRP = 0x4A13
    QRY = 0x4A14
    SCD = 0x4A15
    SRY = 0x4A16
    SUG = 0x4A17
    THK = 0x4A18
    THN = 0x4A19
    TRY = 0x4A1A
    VSS = 0x4A1C
    WHT = 0x4A1D
    WHY = 0x4A1E
    XDO = 0x4A1F
    XOY = 0x4A20
    YDO = 0x4A21
    CHO = 0x4A22
    BCC = 0x4A23
    UNT = 0x4A24
    CCL = 0x4A25
    NAR = 0x4A26
    # Multi-game commands of the syntax document's section (o), numbered as Parlance does (Appendix A)
    LST = 0x4E02
    SEL = 0x4E03
    # Inland non-SC (0x50)
    BOH = 0x5000
    BUR = 0x5001
    GAL = 0x5002
    RUH = 0x5003
    SIL = 0x5004
    TYR = 0x5005
    UKR = 0x5006
    # Inland SC (0x51)
    BUD = 0x5107
    MOS = 0x5108
    MUN = 0x5109
    PAR = 0x510A
    SER = 0x510B
    VIE = 0x510C
    WAR = 0x510D
    # Sea non-SC (0x52); the standard map has no sea supply centre (0x53)
    ADR = 0x520E
    AEG = 0x520F
    BAL = 0x5210
    BAR = 0x5211
    BLA = 0x5212
    EAS = 0x5213
    ECH = 0x5214
    GOB = 0x5215
    GOL = 0x5216
    HEL = 0x5217
    ION = 0x5218
    IRI = 0x5219
    MAO = 0x521A
    NAO = 0x521B
    NTH = 0x521C
    NWG = 0x521D
    SKA = 0x521E
    TYS = 0x521F
    WES = 0x5220
    # Coastal non-SC (0x54)
    ALB = 0x5421
    APU = 0x5422
    ARM = 0x5423
    CLY = 0x5424
    FIN = 0x5425
    GAS = 0x5426
    LVN = 0x5427
    NAF = 0x5428
    PIC = 0x5429
    PIE = 0x542A
    PRU = 0x542B
    SYR = 0x542C
    TUS = 0x542D
    WAL = 0x542E
    YOR = 0x542F
    # Coastal SC (0x55)
    ANK = 0x5530
    BEL = 0x5531
    BER = 0x5532
    BRE = 0x5533
    CON = 0x5534
    DEN = 0x5535
    EDI = 0x5536
    GRE = 0x5537
    HOL = 0x5538
    KIE = 0x5539
    LON = 0x553A
    LVP = 0x553B
    MAR = 0x553C
    NAP = 0x553D
    NWY = 0x553E
    POR = 0x553F
    ROM = 0x5540
    RUM = 0x5541
    SEV = 0x5542
    SMY = 0x5543
    SWE = 0x5544
    TRI = 0x5545
    TUN = 0x5546
    VEN = 0x5547
    # Bicoastal SC (0x57); the standard map has no bicoastal province that is not a centre (0x56)
    BUL = 0x5748
    SPA = 0x5749
    STP = 0x574A


# --- categories ----------------------------------------------------------------------------------------


def category(token: int) -> int:
    """The category octet of a token.

    >>> category(Token.LON) == Category.COASTAL_SC
    True
    """
    return token >> 8


def is_integer(token: int) -> bool:
    """Whether a token is an integer (categories 0x00-0x3F)."""
    return 0 <= token < 0x4000


def is_text(token: int) -> bool:
    """Whether a token is one octet of text."""
    return token >> 8 == Category.TEXT


def is_power(token: int) -> bool:
    """Whether a token is in the power category."""
    return token >> 8 == Category.POWER


def is_province(token: int) -> bool:
    """Whether a token is in one of the eight province categories (0x50-0x57)."""
    return 0x50 <= token >> 8 <= 0x57


def is_reserved(token: int) -> bool:
    """Whether a token is in the categories reserved for private use (0x58-0x5F), never sent over the wire."""
    return 0x58 <= token >> 8 <= 0x5F


def province_type(token: int) -> ProvinceType:
    """Whether a province is inland, sea, coastal or bicoastal, from bits 1-2 of its category.

    >>> province_type(Token.STP).name, province_type(Token.NTH).name
    ('BICOASTAL', 'SEA')
    """
    if not is_province(token):
        raise DaideTokenError(f"{token:#06x} is not a province")
    return ProvinceType((token >> 9) & 0b11)


def is_supply_centre(token: int) -> bool:
    """Whether a province is a supply centre: the low bit of its category.

    >>> is_supply_centre(Token.MUN), is_supply_centre(Token.RUH)
    (True, False)
    """
    if not is_province(token):
        raise DaideTokenError(f"{token:#06x} is not a province")
    return bool(token & 0x100)


# --- integers and text -------------------------------------------------------------------------------------


def integer_token(value: int) -> int:
    """The token of an integer from -8192 to 8191 (14-bit two's complement).

    >>> integer_token(1901), hex(integer_token(-1))
    (1901, '0x3fff')
    """
    if not MIN_INTEGER <= value <= MAX_INTEGER:
        raise DaideTokenError(f"integer {value} is outside {MIN_INTEGER}..{MAX_INTEGER}")
    return value & 0x3FFF


def integer_value(token: int) -> int:
    """The integer an integer token stands for.

    >>> integer_value(0x3FFE), integer_value(1234)
    (-2, 1234)
    """
    if not is_integer(token):
        raise DaideTokenError(f"{token:#06x} is not an integer")
    return token - 0x4000 if token & 0x2000 else token


def encode_string(text: str) -> tuple[int, ...]:
    """The text tokens of a string: one per octet of its UTF-8 encoding (section 4.15).

    >>> [hex(t) for t in encode_string("é")]
    ['0x4bc3', '0x4ba9']
    """
    return tuple(0x4B00 | octet for octet in text.encode("utf-8"))


def decode_string(tokens: Sequence[int]) -> str:
    """The string a run of text tokens carries; ``index`` of an error is that of the bad token."""
    for index, token in enumerate(tokens):
        if not is_text(token):
            raise DaideTokenError(f"{token:#06x} is not a text token", index)
    try:
        return bytes(token & 0xFF for token in tokens).decode("utf-8")
    except UnicodeDecodeError as error:
        raise DaideTokenError("text is not valid UTF-8", error.start) from None


# --- representations ---------------------------------------------------------------------------------------

_POWER_AND_PROVINCE_CATEGORIES = frozenset({Category.POWER, *range(0x50, 0x58)})
_FIXED_BY_NAME: dict[str, int] = {t.name: int(t) for t in Token if category(t) not in _POWER_AND_PROVINCE_CATEGORIES}
_FIXED_BY_TOKEN: dict[int, str] = {number: name for name, number in _FIXED_BY_NAME.items()}
_NAME = re.compile(r"[A-Z0-9]{3}")


@dataclass(frozen=True, slots=True)
class Representation:
    """The power and province tokens in force on a connection, with their three-letter names.

    ``STANDARD`` is that of chapter 4; a Representation Message (RM) with entries replaces the
    standard powers and provinces entirely.  Construction checks the rules of section 3.3: powers and
    provinces only, each token once, the low octets of the powers and of the provinces each forming
    the sequence 0, 1, ..., and names of three characters from A-Z and 0-9.  Two rules more keep the
    text form unambiguous: names are unique, not all digits (those read as integers), and not the name
    of any other token.

    >>> rep = Representation(((0x4100, "ONE"), (0x4101, "TWO"), (0x5000, "HOM"), (0x5501, "AWA")))
    >>> text_to_tokens("ONE AMY HOM", rep) == (0x4100, Token.AMY, 0x5000)
    True
    >>> Representation(((0x4100, "ONE"), (0x4102, "TWO")))
    Traceback (most recent call last):
    ...
    protocol.daide.tokens.DaideTokenError: power numbers must be 0..1, not [0, 2]
    """

    entries: tuple[tuple[int, str], ...]
    _by_name: dict[str, int] = field(init=False, repr=False, compare=False)
    _by_token: dict[int, str] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        # computed once: a representation keys the cache of encoded messages on every send
        return self._hash

    def __post_init__(self) -> None:
        by_name: dict[str, int] = {}
        by_token: dict[int, str] = {}
        for index, (token, name) in enumerate(self.entries):
            if not 0 <= token <= 0xFFFF or category(token) not in _POWER_AND_PROVINCE_CATEGORIES:
                raise DaideTokenError(f"{token:#06x} is neither a power nor a province", index)
            if token in by_token:
                raise DaideTokenError(f"{token:#06x} is defined twice", index)
            if not _NAME.fullmatch(name) or name.isdigit():
                raise DaideTokenError(f"{name!r} is not three characters from A-Z and 0-9, with a letter", index)
            if name in by_name or name in _FIXED_BY_NAME:
                raise DaideTokenError(f"the name {name} is already taken", index)
            by_name[name] = token
            by_token[token] = name
        for kind, numbers in (
            ("power", sorted(t & 0xFF for t in by_token if is_power(t))),
            ("province", sorted(t & 0xFF for t in by_token if is_province(t))),
        ):
            if numbers != list(range(len(numbers))):
                raise DaideTokenError(f"{kind} numbers must be 0..{len(numbers) - 1}, not {numbers}")
        object.__setattr__(self, "_by_name", by_name)
        object.__setattr__(self, "_by_token", by_token)
        object.__setattr__(self, "_hash", hash(self.entries))

    @property
    def powers(self) -> tuple[int, ...]:
        """The power tokens, in the order of the entries."""
        return tuple(t for t, _ in self.entries if is_power(t))

    @property
    def provinces(self) -> tuple[int, ...]:
        """The province tokens, in the order of the entries."""
        return tuple(t for t, _ in self.entries if is_province(t))

    def token(self, name: str) -> int:
        """The token of a name (not case-sensitive); KeyError if there is none.

        >>> hex(STANDARD.token("eas"))
        '0x5213'
        """
        key = name.upper()
        found = self._by_name.get(key)
        if found is None:
            found = _FIXED_BY_NAME[key]
        return found

    def name(self, token: int) -> str:
        """The name of a named token; KeyError for integers, text and unknown tokens.

        >>> STANDARD.name(0x4A26)
        'NAR'
        """
        found = self._by_token.get(token)
        if found is None:
            found = _FIXED_BY_TOKEN[token]
        return found


STANDARD = Representation(tuple((int(t), t.name) for t in Token if category(t) in _POWER_AND_PROVINCE_CATEGORIES))


def representation_for(powers: Iterable[str], provinces: Iterable[str]) -> Representation:
    """The representation a map of standard names is played in: :data:`STANDARD` when its powers
    and provinces are numbered 0, 1, ... there (the standard map), else the same names numbered
    again from 0, each province keeping its kind (the high octet), so that a client that reads
    the numbers (AiClient's bots index their tables by them) can hold the map. KeyError for a
    name that is no standard power or province.

    >>> rep = representation_for(["AUS", "FRA"], ["BUD", "PAR", "VIE"])
    >>> [(hex(t), n) for t, n in rep.entries]
    [('0x4100', 'AUS'), ('0x4101', 'FRA'), ('0x5100', 'BUD'), ('0x5101', 'PAR'), ('0x5102', 'VIE')]
    >>> representation_for([t.name for t in Token if is_power(t)], [t.name for t in Token if is_province(t)]) is STANDARD
    True
    """
    chosen: dict[str, list[int]] = {}
    for kind, names, belongs in (("power", powers, is_power), ("province", provinces, is_province)):
        chosen[kind] = sorted(STANDARD.token(name) for name in set(names))
        if not all(belongs(t) for t in chosen[kind]):
            raise KeyError(f"not a standard {kind}: {[STANDARD.name(t) for t in chosen[kind]]}")
    if all([t & 0xFF for t in tokens] == list(range(len(tokens))) for tokens in chosen.values()):
        return STANDARD
    entries = [((t & 0xFF00) | i, STANDARD.name(t)) for tokens in chosen.values() for i, t in enumerate(tokens)]
    return Representation(tuple(entries))


# --- the three forms of a message ----------------------------------------------------------------------------

_LEXEME = re.compile(
    r"""
    (?P<space>\s+)
    | (?P<bra>\()
    | (?P<ket>\))
    | (?P<text>'(?:[^']|'')*+')
    | (?P<word>-?[A-Za-z0-9]+)
    """,
    re.VERBOSE,
)
_INTEGER = re.compile(r"-?[0-9]+")


def scan_text(text: str, representation: Representation = STANDARD) -> tuple[tuple[int, int], ...]:
    """The tokens of a message in text form, each with the index of the character it comes from.

    Every text token of a quoted string points at the string's opening quote.

    >>> scan_text("NOW (ab")
    Traceback (most recent call last):
    ...
    protocol.daide.tokens.DaideTokenError: unknown token 'ab' (at 5)
    """
    scanned: list[tuple[int, int]] = []
    position = 0
    previous_atom_end = -1
    length = len(text)
    while position < length:
        match = _LEXEME.match(text, position)
        if match is None:
            if text[position] == "'":
                raise DaideTokenError("text has no closing quote", position)
            raise DaideTokenError(f"unexpected character {text[position]!r}", position)
        kind = match.lastgroup
        lexeme = match.group()
        if kind in ("text", "word"):
            if previous_atom_end == position:
                raise DaideTokenError("tokens must be separated by a space or a bracket", position)
            previous_atom_end = match.end()
        if kind == "bra":
            scanned.append((Token.BRA, position))
        elif kind == "ket":
            scanned.append((Token.KET, position))
        elif kind == "text":
            scanned.extend((t, position) for t in encode_string(lexeme[1:-1].replace("''", "'")))
        elif kind == "word":
            if _INTEGER.fullmatch(lexeme):
                value = int(lexeme)
                if not MIN_INTEGER <= value <= MAX_INTEGER:
                    raise DaideTokenError(f"integer {value} is outside {MIN_INTEGER}..{MAX_INTEGER}", position)
                scanned.append((value & 0x3FFF, position))
            else:
                try:
                    scanned.append((representation.token(lexeme), position))
                except KeyError:
                    raise DaideTokenError(f"unknown token {lexeme!r}", position) from None
        position = match.end()
    return tuple(scanned)


def text_to_tokens(text: str, representation: Representation = STANDARD) -> tuple[int, ...]:
    """The tokens of a message in text form; ``DaideTokenError.index`` is that of the bad character.

    >>> text_to_tokens("MIS (-2)") == (Token.MIS, Token.BRA, 0x3FFE, Token.KET)
    True
    """
    return tuple(token for token, _ in scan_text(text, representation))


def tokens_to_text(tokens: Sequence[int], representation: Representation = STANDARD) -> str:
    """A token sequence in text form, spaced as the DAIDE documents write messages.

    Brackets need not balance.  ``DaideTokenError.index`` is that of the token that has no text form:
    one out of 0..0xFFFF, an unknown one, or text that is not UTF-8.

    >>> tokens_to_text((Token.NOW, Token.BRA, Token.SPR, 1901, Token.KET))
    'NOW (SPR 1901)'
    >>> tokens_to_text((Token.HLO, 0x4830))
    Traceback (most recent call last):
    ...
    protocol.daide.tokens.DaideTokenError: unknown token 0x4830 (at 1)
    """
    parts: list[str] = []
    after_bracket = True
    index = 0
    count = len(tokens)
    while index < count:
        token = tokens[index]
        if not isinstance(token, int) or not 0 <= token <= 0xFFFF:
            raise DaideTokenError(f"{token!r} is not a 16-bit token", index)
        if token == Token.KET:
            parts.append(")")
            after_bracket = False
            index += 1
            continue
        if not after_bracket:
            parts.append(" ")
        after_bracket = token == Token.BRA
        if after_bracket:
            parts.append("(")
        elif is_text(token):
            end = index + 1
            while end < count and isinstance(tokens[end], int) and is_text(tokens[end]):
                end += 1
            try:
                string = decode_string(tokens[index:end])
            except DaideTokenError as error:
                raise DaideTokenError(error.message, index + (error.index or 0)) from None
            parts.append("'" + string.replace("'", "''") + "'")
            index = end
            continue
        elif is_integer(token):
            parts.append(str(token - 0x4000 if token & 0x2000 else token))
        else:
            try:
                parts.append(representation.name(token))
            except KeyError:
                raise DaideTokenError(f"unknown token {token:#06x}", index) from None
        index += 1
    return "".join(parts)


def tokens_to_bytes(tokens: Iterable[int]) -> bytes:
    """The binary form of a token sequence: two octets per token, big-endian.

    >>> tokens_to_bytes((Token.HLO, Token.BRA)).hex()
    '48044000'
    """
    tokens = tuple(tokens)
    try:
        return struct.pack(f">{len(tokens)}H", *tokens)
    except struct.error:
        for index, token in enumerate(tokens):
            if not isinstance(token, int) or not 0 <= token <= 0xFFFF:
                raise DaideTokenError(f"{token!r} is not a 16-bit token", index) from None
        raise


def bytes_to_tokens(data: bytes | bytearray | memoryview) -> tuple[int, ...]:
    """The tokens of a binary message; an odd number of octets is an error at the last one.

    >>> bytes_to_tokens(bytes.fromhex("48044000")) == (Token.HLO, Token.BRA)
    True
    """
    if len(data) % 2:
        raise DaideTokenError("a token takes two octets, and the data has an odd number", len(data) - 1)
    return struct.unpack(f">{len(data) // 2}H", data)
