"""Typed DAIDE messages: small immutable values for every message of the syntax document.

Each class is named after the token that starts its text and prints itself in the canonical
text form (tokens upper-case and separated by one space, no space inside brackets, text in
single quotes with a quote doubled). A message can be built by hand or by
:func:`protocol.daide.parser.parse`, and the two agree:

>>> order = Move(DaideUnit("ENG", "FLT", Location("LON")), Location("NTH"))
>>> message = Sub((order,), Turn("SPR", 1901))
>>> str(message)
'SUB (SPR 1901) ((ENG FLT LON) MTO NTH)'
>>> str(Snd(("FRA", "GER"), Prp(Pce(("ENG", "FRA", "GER")))))
'SND (FRA GER) (PRP (PCE (ENG FRA GER)))'

Where a command has a bare form (``NOW``, ``SCO``, ``HLO`` ... sent to ask for the full one)
the same class stands for both: its fields are left empty (``Now()`` prints ``NOW``).

One class serves every place where the document uses a token in the same shape: ``Drw``
is the command and the arrangement, ``Not`` wraps a command (``NOT (GOF)``) or an
arrangement, ``Yes`` accepts a command or a press statement, ``Frm`` is the server's
message and the forwarded press of level 120. Free-text press (level 8000) is a plain
``str``.

Provinces, powers, coasts, seasons and the other fixed tokens are their three-letter
names as ``str`` (``"LON"``, ``"ENG"``, ``"NCS"``, ``"SPR"``); the constants below list
the names of the standard game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocol.calendar import TURN_SEASONS, Turn

# --- the token names ----------------------------------------------------------------------

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")

#: The standard provinces by category of the protocol document (section 4.16).
PROVINCES_BY_CATEGORY: dict[str, tuple[str, ...]] = {
    "INLAND": ("BOH", "BUR", "GAL", "RUH", "SIL", "TYR", "UKR"),
    "INLAND_SC": ("BUD", "MOS", "MUN", "PAR", "SER", "VIE", "WAR"),
    "SEA": (
        "ADR", "AEG", "BAL", "BAR", "BLA", "EAS", "ECH", "GOB", "GOL", "HEL",
        "ION", "IRI", "MAO", "NAO", "NTH", "NWG", "SKA", "TYS", "WES",
    ),
    "SEA_SC": (),
    "COASTAL": ("ALB", "APU", "ARM", "CLY", "FIN", "GAS", "LVN", "NAF", "PIC", "PIE", "PRU", "SYR", "TUS", "WAL", "YOR"),
    "COASTAL_SC": (
        "ANK", "BEL", "BER", "BRE", "CON", "DEN", "EDI", "GRE", "HOL", "KIE", "LON", "LVP",
        "MAR", "NAP", "NWY", "POR", "ROM", "RUM", "SEV", "SMY", "SWE", "TRI", "TUN", "VEN",
    ),
    "BICOASTAL": (),
    "BICOASTAL_SC": ("BUL", "SPA", "STP"),
}  # fmt: skip
PROVINCES = tuple(sorted(p for group in PROVINCES_BY_CATEGORY.values() for p in group))
COASTS = ("NCS", "NEC", "ECS", "SEC", "SCS", "SWC", "WCS", "NWC")
SEASONS = tuple(s.token for s in TURN_SEASONS)
UNIT_TYPES = ("AMY", "FLT")

#: ``THX`` order notes.
NOTES = tuple("MBV FAR NSP NSU NAS NSF NSA NYU NRN NVR YSC ESC HSC NSC CST NMB NMR NRS".split())
#: ``ORD`` results besides ``RET`` (in an AOA game a note may stand in for one).
ORDER_RESULTS = ("SUC", "BNC", "CUT", "DSR", "NSO")
#: The status of a game in an ``LST`` listing.
GAME_STATUSES = ("NME", "OBS", "IAM", "TME", "DSD", "SLO", "DRW", "OFF")
#: Variant options of ``HLO``: those that take a number, then the flags.
VALUED_OPTIONS = ("LVL", "MTL", "RTL", "BTL", "PTL")
FLAG_OPTIONS = ("DSD", "AOA", "PDA", "NPR", "NPB")
#: The tokens a ``TRY`` message may list: those of level 10 and the ``+=`` ones of higher levels.
PRESS_TOKENS = (
    "PRP", "PCE", "ALY", "VSS", "DRW", "SLO", "NOT", "NAR", "YES", "REJ", "BWX", "CCL", "FCT",
    "XDO", "DMZ", "AND", "ORR", "SCD", "OCC", "CHO", "INS", "QRY", "THK", "IDK", "SUG", "WHT",
    "HOW", "EXP", "SRY", "FOR", "IFF", "THN", "ELS", "XOY", "YDO", "FRM", "FWD", "BCC", "SND",
    "POB", "WHY",
)  # fmt: skip

#: Every other token name of the protocol document (its brackets BRA and KET are written ``(``
#: and ``)``), with the experimental LST and SEL of the syntax document. BPR and FLD are
#: obsolete: known names that no message accepts. The tokens removed in revision 14 (EPP,
#: IOU, NST, PPT, UOM, WRT) and those the syntax document keeps in comments (PNG, PRB, PRF,
#: VAR) are unknown.
KEYWORDS = frozenset(
    """
    ADM CCD DRW FRM GOF HLO HST HUH IAM LOD LST MAP MDF MIS NME NOT NOW OBS OFF ORD OUT PRN REJ
    SCO SEL SLO SMR SND SUB SVE THX TME YES
    AOA BTL DSD ERR LVL MRT MTL NPB NPR PDA PTL RTL UNO
    AMY FLT
    BLD CTO CVY DSB HLD MTO REM RTO SUP VIA WVE
    BNC BPR CST CUT DSR ESC FAR FLD HSC MBV NAS NMB NMR NRN NRS NSA NSC NSF NSO NSP NSU NVR NYU
    RET SUC YSC
    ALY AND BCC BWX CCL CHO DMZ ELS EXP FCT FOR FWD HOW IDK IFF INS NAR OCC ORR PCE POB PRP QRY
    SCD SRY SUG THK THN TRY UNT VSS WHT WHY XDO XOY YDO
    """.split()
)
TOKEN_NAMES = frozenset(KEYWORDS | set(POWERS) | set(PROVINCES) | set(COASTS) | set(SEASONS))


def quote(text: str) -> str:
    """The text form of a string: ``quote("it's") == "'it''s'"``."""
    return "'" + text.replace("'", "''") + "'"


def join_tokens(tokens: list[str]) -> str:
    """Tokens as canonical text: one space between tokens, none inside brackets.

    >>> join_tokens(["SUB", "(", "(", "ENG", "AMY", "LVP", ")", "HLD", ")"])
    'SUB ((ENG AMY LVP) HLD)'
    """
    parts: list[str] = []
    previous = "("
    for token in tokens:
        if previous != "(" and token != ")":
            parts.append(" ")
        parts.append(token)
        previous = token
    return "".join(parts)


def _emit(value: object, out: list[str]) -> None:
    if isinstance(value, str):  # free-text press
        if value:  # empty text has no tokens: it prints as ()
            out.append(quote(value))
    elif isinstance(value, Turn):  # ``SPR 1901``: the brackets around it belong to the message
        out += (value.season, str(value.year))
    else:
        value._emit(out)  # type: ignore[attr-defined]


def _text(value: str, out: list[str]) -> None:
    out.append("(")
    if value:
        out.append(quote(value))
    out.append(")")


def _bracket(value: object, out: list[str]) -> None:
    out.append("(")
    _emit(value, out)
    out.append(")")


def _names(names: tuple[str, ...], out: list[str]) -> None:
    out.append("(")
    out.extend(names)
    out.append(")")


class Value:
    """What every typed message and part of one shares: its tokens and its text."""

    __slots__ = ()

    def _emit(self, out: list[str]) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def tokens(self) -> list[str]:
        """The tokens of the canonical text form, brackets as ``(`` and ``)``, text quoted."""
        out: list[str] = []
        self._emit(out)
        return out

    def __str__(self) -> str:
        return join_tokens(self.tokens())


def tokens(value: Value | str) -> list[str]:
    """The tokens of a message, or of a free-text press message (a ``str``)."""
    out: list[str] = []
    _emit(value, out)
    return out


def to_text(value: Value | str) -> str:
    """The canonical text of a message or of any part of one."""
    return join_tokens(tokens(value))


# --- common terms ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Location(Value):
    """A province, or a coast of a bicoastal one: ``LON``, ``(STP NCS)``."""

    province: str
    coast: str | None = None

    def _emit(self, out: list[str]) -> None:
        if self.coast is None:
            out.append(self.province)
        else:
            out += ("(", self.province, self.coast, ")")


@dataclass(frozen=True, slots=True)
class DaideUnit(Value):
    """``ENG FLT LON``: a unit as ``NOW`` lists it (``OCC`` also takes the type ``UNT``)."""

    power: str
    unit_type: str
    location: Location

    def _emit(self, out: list[str]) -> None:
        out += (self.power, self.unit_type)
        self.location._emit(out)


@dataclass(frozen=True, slots=True)
class LooseUnit(Value):
    """A unit of a loosely written order, which leaves out its power, its type or both.

    ``LooseUnit(None, None, Location("LON"))`` prints ``LON``; ``LooseUnit("ENG", None, ...)``
    prints ``(ENG LON)`` and ``LooseUnit(None, "FLT", ...)`` prints ``(FLT LON)``. A unit with
    both is a :class:`DaideUnit`.
    """

    power: str | None
    unit_type: str | None
    location: Location

    def __post_init__(self) -> None:
        if self.power is not None and self.unit_type is not None:
            raise ValueError("a unit with a power and a type is a DaideUnit, not a LooseUnit")

    def _emit(self, out: list[str]) -> None:
        if self.power is None and self.unit_type is None:
            if self.location.coast is None:
                out.append(self.location.province)
            else:
                _bracket(self.location, out)
            return
        out += ("(", self.power or self.unit_type)  # type: ignore[arg-type]
        self.location._emit(out)
        out.append(")")


def _ordered(unit: DaideUnit | LooseUnit, out: list[str]) -> None:
    if isinstance(unit, DaideUnit):
        _bracket(unit, out)
    else:
        unit._emit(out)


@dataclass(frozen=True, slots=True)
class MrtUnit(Value):
    """A dislodged unit and where it may retreat to: ``ENG FLT NTH MRT (LON YOR)``."""

    unit: DaideUnit
    retreats: tuple[Location, ...] = ()

    def _emit(self, out: list[str]) -> None:
        self.unit._emit(out)
        out += ("MRT", "(")
        for location in self.retreats:
            location._emit(out)
        out.append(")")


def _units(units: tuple[DaideUnit | MrtUnit, ...], out: list[str]) -> None:
    for unit in units:
        _bracket(unit, out)


# --- orders ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hold(Value):
    unit: DaideUnit | LooseUnit

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("HLD")


@dataclass(frozen=True, slots=True)
class Move(Value):
    unit: DaideUnit | LooseUnit
    destination: Location

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("MTO")
        self.destination._emit(out)


@dataclass(frozen=True, slots=True)
class SupportHold(Value):
    unit: DaideUnit | LooseUnit
    supported: DaideUnit | LooseUnit

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("SUP")
        _ordered(self.supported, out)


@dataclass(frozen=True, slots=True)
class SupportMove(Value):
    """A support to move; the destination has no coast in a strictly written order."""

    unit: DaideUnit | LooseUnit
    supported: DaideUnit | LooseUnit
    destination: Location

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("SUP")
        _ordered(self.supported, out)
        out.append("MTO")
        self.destination._emit(out)


@dataclass(frozen=True, slots=True)
class Convoy(Value):
    unit: DaideUnit | LooseUnit
    army: DaideUnit | LooseUnit
    destination: Location

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("CVY")
        _ordered(self.army, out)
        out.append("CTO")
        self.destination._emit(out)


@dataclass(frozen=True, slots=True)
class MoveByConvoy(Value):
    """``CTO`` with the sea provinces of the route; only a loose order may leave out ``VIA``."""

    unit: DaideUnit | LooseUnit
    destination: Location
    via: tuple[str, ...] | None = None

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("CTO")
        self.destination._emit(out)
        if self.via is not None:
            out.append("VIA")
            _names(self.via, out)


@dataclass(frozen=True, slots=True)
class Retreat(Value):
    unit: DaideUnit | LooseUnit
    destination: Location

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("RTO")
        self.destination._emit(out)


@dataclass(frozen=True, slots=True)
class Disband(Value):
    """``DSB``: disband a dislodged unit in a retreat phase."""

    unit: DaideUnit | LooseUnit

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("DSB")


@dataclass(frozen=True, slots=True)
class Build(Value):
    unit: DaideUnit | LooseUnit

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("BLD")


@dataclass(frozen=True, slots=True)
class Remove(Value):
    """``REM``: remove a unit in an adjustment phase."""

    unit: DaideUnit | LooseUnit

    def _emit(self, out: list[str]) -> None:
        _ordered(self.unit, out)
        out.append("REM")


@dataclass(frozen=True, slots=True)
class Waive(Value):
    """``ENG WVE``; a loose order may write just ``WVE`` (power None)."""

    power: str | None = None

    def _emit(self, out: list[str]) -> None:
        if self.power is not None:
            out.append(self.power)
        out.append("WVE")


Order = Hold | Move | SupportHold | SupportMove | Convoy | MoveByConvoy | Retreat | Disband | Build | Remove | Waive


# --- level 0: game management -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VariantOption(Value):
    """One option of ``HLO``: ``LVL 20``, ``MTL 1200``, ``AOA`` ..."""

    name: str
    value: int | None = None

    def _emit(self, out: list[str]) -> None:
        out.append(self.name)
        if self.value is not None:
            out.append(str(self.value))


def _variant(options: tuple[VariantOption, ...], out: list[str]) -> None:
    out.append("(")
    for option in options:
        _bracket(option, out)
    out.append(")")


@dataclass(frozen=True, slots=True)
class Lst(Value):
    """``LST`` asks for the list of games, ``LST ('name')`` for one of them."""

    game: str | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("LST")
        if self.game is not None:
            _text(self.game, out)


@dataclass(frozen=True, slots=True)
class Listing(Value):
    """The server's ``LST ('name') (players_needed status) ('variant_name') (variant)``."""

    game: str
    players_needed: int
    status: str
    variant_name: str
    variant: tuple[VariantOption, ...]

    def _emit(self, out: list[str]) -> None:
        out.append("LST")
        _text(self.game, out)
        out += ("(", str(self.players_needed), self.status, ")")
        _text(self.variant_name, out)
        _variant(self.variant, out)


@dataclass(frozen=True, slots=True)
class Sel(Value):
    """``SEL ('name')`` selects a game; bare ``SEL`` asks which one is selected."""

    game: str | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("SEL")
        if self.game is not None:
            _text(self.game, out)


@dataclass(frozen=True, slots=True)
class Nme(Value):
    name: str
    version: str

    def _emit(self, out: list[str]) -> None:
        out.append("NME")
        _text(self.name, out)
        _text(self.version, out)


@dataclass(frozen=True, slots=True)
class Obs(Value):
    """``OBS``, or ``OBS ('name') ('version')``: both or neither."""

    name: str | None = None
    version: str | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("OBS")
        if self.name is not None and self.version is not None:
            _text(self.name, out)
            _text(self.version, out)


@dataclass(frozen=True, slots=True)
class Iam(Value):
    """``IAM (ENG) (1234)``: a player back with the passcode of its ``HLO``.

    détente's extension ``IAM (ENG) ('<session>')`` comes back with the session token the
    server gave at join instead (see :func:`session_adm`): a number is the passcode, a text the
    session.

    >>> str(Iam("ENG", 1234)), str(Iam("ENG", session="k3Yq"))
    ('IAM (ENG) (1234)', "IAM (ENG) ('k3Yq')")
    """

    power: str
    passcode: int | None = None
    session: str | None = None

    def __post_init__(self) -> None:
        if (self.passcode is None) == (self.session is None):
            raise ValueError("IAM takes a passcode or a session token, and not both")

    def _emit(self, out: list[str]) -> None:
        out += ("IAM", "(", self.power, ")")
        if self.session is not None:
            _text(self.session, out)
        else:
            out += ("(", str(self.passcode), ")")


@dataclass(frozen=True, slots=True)
class MapMessage(Value):
    """``MAP ('standard')``; bare ``MAP`` asks for it again."""

    name: str | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("MAP")
        if self.name is not None:
            _text(self.name, out)


@dataclass(frozen=True, slots=True)
class HomeCentres(Value):
    """One group of the supply centres of ``MDF``: ``(AUS BUD TRI VIE)``, ``(UNO ...)``.

    ``powers`` is a power (or ``UNO``), or a tuple of powers for a centre that is a home to
    several, written ``((AUS GER) ...)``.
    """

    powers: str | tuple[str, ...]
    centres: tuple[str, ...] = ()

    def _emit(self, out: list[str]) -> None:
        if isinstance(self.powers, str):
            out.append(self.powers)
        else:
            _names(self.powers, out)
        out.extend(self.centres)


@dataclass(frozen=True, slots=True)
class CoastAdjacency(Value):
    """``AMY ...``, ``FLT ...`` or ``(FLT NCS) ...``: where one kind of unit may go from a province."""

    unit_type: str
    coast: str | None
    destinations: tuple[Location, ...]

    def _emit(self, out: list[str]) -> None:
        if self.coast is None:
            out.append(self.unit_type)
        else:
            out += ("(", self.unit_type, self.coast, ")")
        for location in self.destinations:
            location._emit(out)


@dataclass(frozen=True, slots=True)
class ProvinceAdjacency(Value):
    province: str
    coasts: tuple[CoastAdjacency, ...]

    def _emit(self, out: list[str]) -> None:
        out.append(self.province)
        for coast in self.coasts:
            _bracket(coast, out)


@dataclass(frozen=True, slots=True)
class Mdf(Value):
    """The map definition; ``Mdf()`` is the bare request ``MDF``."""

    powers: tuple[str, ...] = ()
    centres: tuple[HomeCentres, ...] = ()
    non_centres: tuple[str, ...] = ()
    adjacencies: tuple[ProvinceAdjacency, ...] = ()

    def _emit(self, out: list[str]) -> None:
        out.append("MDF")
        if not self.powers:
            return
        _names(self.powers, out)
        out += ("(", "(")
        for group in self.centres:
            _bracket(group, out)
        out.append(")")
        _names(self.non_centres, out)
        out += (")", "(")
        for adjacency in self.adjacencies:
            _bracket(adjacency, out)
        out.append(")")


@dataclass(frozen=True, slots=True)
class Hlo(Value):
    """``HLO (ENG) (1234) ((LVL 20) (MTL 1200))``; ``Hlo()`` is the bare request."""

    power: str | None = None
    passcode: int | None = None
    variant: tuple[VariantOption, ...] = ()

    def _emit(self, out: list[str]) -> None:
        out.append("HLO")
        if self.power is not None:
            out += ("(", self.power, ")", "(", str(self.passcode), ")")
            _variant(self.variant, out)


@dataclass(frozen=True, slots=True)
class Ownership(Value):
    """A power (or ``UNO``) and its supply centres, in ``SCO`` and in ``SCD``."""

    power: str
    centres: tuple[str, ...]

    def _emit(self, out: list[str]) -> None:
        out.append(self.power)
        out.extend(self.centres)


@dataclass(frozen=True, slots=True)
class Sco(Value):
    """Supply centre ownership; ``Sco()`` is the bare request."""

    ownership: tuple[Ownership, ...] = ()

    def _emit(self, out: list[str]) -> None:
        out.append("SCO")
        for group in self.ownership:
            _bracket(group, out)


@dataclass(frozen=True, slots=True)
class Now(Value):
    """The turn and the units (``MrtUnit`` before a retreat turn); ``Now()`` is the bare request."""

    turn: Turn | None = None
    units: tuple[DaideUnit | MrtUnit, ...] = ()

    def _emit(self, out: list[str]) -> None:
        out.append("NOW")
        if self.turn is not None:
            _bracket(self.turn, out)
            _units(self.units, out)


@dataclass(frozen=True, slots=True)
class Hst(Value):
    """``HST (turn)`` asks for the results of a turn; bare ``HST`` for the starting position."""

    turn: Turn | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("HST")
        if self.turn is not None:
            _bracket(self.turn, out)


@dataclass(frozen=True, slots=True)
class Sub(Value):
    """Orders, with the turn they are for if given; ``Sub()`` is bare ``SUB`` as in ``NOT (SUB)``."""

    orders: tuple[Order, ...] = ()
    turn: Turn | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("SUB")
        if self.turn is not None:
            _bracket(self.turn, out)
        for order in self.orders:
            _bracket(order, out)


@dataclass(frozen=True, slots=True)
class Thx(Value):
    order: Order
    note: str

    def _emit(self, out: list[str]) -> None:
        out.append("THX")
        _bracket(self.order, out)
        out += ("(", self.note, ")")


@dataclass(frozen=True, slots=True)
class Mis(Value):
    """Missing orders: units (``MrtUnit`` in a retreat phase), or ``count`` builds (negative) or
    disbands (positive) owed; with neither it is bare ``MIS``."""

    units: tuple[DaideUnit | MrtUnit, ...] = ()
    count: int | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("MIS")
        if self.count is not None:
            out += ("(", str(self.count), ")")
        _units(self.units, out)


@dataclass(frozen=True, slots=True)
class Gof(Value):
    def _emit(self, out: list[str]) -> None:
        out.append("GOF")


@dataclass(frozen=True, slots=True)
class Ord(Value):
    """An order's result: ``result`` is ``SUC``, ``BNC``, ... or None, ``retreat`` adds ``RET``.

    ``Ord()`` is the bare request.
    """

    turn: Turn | None = None
    order: Order | None = None
    result: str | None = None
    retreat: bool = False

    def _emit(self, out: list[str]) -> None:
        out.append("ORD")
        if self.turn is None:
            return
        _bracket(self.turn, out)
        _bracket(self.order, out)
        out.append("(")
        if self.result is not None:
            out.append(self.result)
        if self.retreat:
            out.append("RET")
        out.append(")")


@dataclass(frozen=True, slots=True)
class Sve(Value):
    game: str

    def _emit(self, out: list[str]) -> None:
        out.append("SVE")
        _text(self.game, out)


@dataclass(frozen=True, slots=True)
class Lod(Value):
    game: str

    def _emit(self, out: list[str]) -> None:
        out.append("LOD")
        _text(self.game, out)


@dataclass(frozen=True, slots=True)
class Off(Value):
    def _emit(self, out: list[str]) -> None:
        out.append("OFF")


@dataclass(frozen=True, slots=True)
class Tme(Value):
    """Seconds to the deadline; ``Tme()`` is the bare request."""

    seconds: int | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("TME")
        if self.seconds is not None:
            out += ("(", str(self.seconds), ")")


@dataclass(frozen=True, slots=True)
class Prn(Value):
    """``PRN (...)``: a message whose brackets do not match, echoed as its tokens.

    ``echo`` holds the canonical texts of the tokens, brackets included.
    """

    echo: tuple[str, ...]

    def _emit(self, out: list[str]) -> None:
        out += ("PRN", "(")
        out.extend(self.echo)
        out.append(")")


@dataclass(frozen=True, slots=True)
class Huh(Value):
    """``HUH (...)``: a message echoed with ``ERR`` before the first token that is wrong.

    ``echo`` holds the canonical texts of the echoed tokens, brackets and ``ERR`` included.

    >>> str(Huh(("SUB", "(", "ERR", "XYZ", ")")))
    'HUH (SUB (ERR XYZ))'
    """

    echo: tuple[str, ...]

    ERR: ClassVar[str] = "ERR"

    @property
    def error_index(self) -> int | None:
        """Where ``ERR`` stands among the echoed tokens, if anywhere."""
        try:
            return self.echo.index(self.ERR)
        except ValueError:
            return None

    def _emit(self, out: list[str]) -> None:
        out += ("HUH", "(")
        out.extend(self.echo)
        out.append(")")


@dataclass(frozen=True, slots=True)
class Ccd(Value):
    """``CCD (power)``; with ``turn`` the power missed that turn's deadline; with ``send`` the
    press it could not receive."""

    power: str
    turn: Turn | None = None
    send: Snd | None = None

    def _emit(self, out: list[str]) -> None:
        out += ("CCD", "(", self.power, ")")
        if self.turn is not None:
            _bracket(self.turn, out)
        if self.send is not None:
            _bracket(self.send, out)


@dataclass(frozen=True, slots=True)
class Out(Value):
    """The recipient ``power`` of ``send`` has been eliminated."""

    power: str
    send: Snd

    def _emit(self, out: list[str]) -> None:
        out += ("OUT", "(", self.power, ")")
        _bracket(self.send, out)


@dataclass(frozen=True, slots=True)
class Adm(Value):
    name: str
    text: str

    def _emit(self, out: list[str]) -> None:
        out.append("ADM")
        _text(self.name, out)
        _text(self.text, out)

    @property
    def session(self) -> str | None:
        """The session token this ``ADM`` hands over, if it is the server's :func:`session_adm`."""
        if self.name == SERVER_NAME and self.text.startswith(_SESSION_PREFIX):
            return self.text[len(_SESSION_PREFIX) :]
        return None


SERVER_NAME = "detente"
"""The name the server's own ``ADM`` messages carry; a client's ``ADM`` may not use it."""
_SESSION_PREFIX = "session "


def session_adm(token: str) -> Adm:
    """The ``ADM`` that gives a player its session token, sent right after ``YES (NME ...)``.

    DAIDE has no place for a secret longer than the 13-bit passcode of ``HLO``; an ``ADM`` is a
    message every DAIDE client accepts (and may show), so old bots are not disturbed.

    >>> adm = session_adm("k3Yq"); str(adm), adm.session
    ("ADM ('detente') ('session k3Yq')", 'k3Yq')
    """
    return Adm(SERVER_NAME, _SESSION_PREFIX + token)


@dataclass(frozen=True, slots=True)
class Slo(Value):
    """The server's ``SLO (power)``, and the arrangement of a solo."""

    power: str

    def _emit(self, out: list[str]) -> None:
        out += ("SLO", "(", self.power, ")")


@dataclass(frozen=True, slots=True)
class Drw(Value):
    """``DRW``, or ``DRW (power power ...)`` in a partial-draw game: command and arrangement."""

    powers: tuple[str, ...] = ()

    def _emit(self, out: list[str]) -> None:
        out.append("DRW")
        if self.powers:
            _names(self.powers, out)


@dataclass(frozen=True, slots=True)
class SmrEntry(Value):
    """One player of ``SMR``: ``eliminated`` is the year it lost its last centre."""

    power: str
    name: str
    version: str
    centres: int
    eliminated: int | None = None

    def _emit(self, out: list[str]) -> None:
        out.append(self.power)
        _text(self.name, out)
        _text(self.version, out)
        out.append(str(self.centres))
        if self.eliminated is not None:
            out.append(str(self.eliminated))


@dataclass(frozen=True, slots=True)
class Smr(Value):
    """The summary at the end of the game; ``Smr()`` is the bare request."""

    turn: Turn | None = None
    players: tuple[SmrEntry, ...] = ()

    def _emit(self, out: list[str]) -> None:
        out.append("SMR")
        if self.turn is not None:
            _bracket(self.turn, out)
            for entry in self.players:
                _bracket(entry, out)


@dataclass(frozen=True, slots=True)
class Not(Value):
    """``NOT (...)``: cancels a command (``SUB``, ``GOF``, ``TME``, ``DRW``; the server's
    ``NOT (CCD (power))``) or negates an arrangement."""

    content: Value

    def _emit(self, out: list[str]) -> None:
        out.append("NOT")
        _bracket(self.content, out)


@dataclass(frozen=True, slots=True)
class Yes(Value):
    """Accepts a command or, in press, a statement."""

    content: Value

    def _emit(self, out: list[str]) -> None:
        out.append("YES")
        _bracket(self.content, out)


@dataclass(frozen=True, slots=True)
class Rej(Value):
    """Rejects a command or request or, in press, a statement."""

    content: Value

    def _emit(self, out: list[str]) -> None:
        out.append("REJ")
        _bracket(self.content, out)


@dataclass(frozen=True, slots=True)
class Snd(Value):
    """Press to ``recipients``, for ``turn`` if given."""

    recipients: tuple[str, ...]
    press: PressMessage
    turn: Turn | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("SND")
        if self.turn is not None:
            _bracket(self.turn, out)
        _names(self.recipients, out)
        _bracket(self.press, out)


@dataclass(frozen=True, slots=True)
class Frm(Value):
    """Press from ``sender`` to ``recipients``: the server's delivery, and forwarded press
    (level 120)."""

    sender: str
    recipients: tuple[str, ...]
    press: PressMessage

    def _emit(self, out: list[str]) -> None:
        out += ("FRM", "(", self.sender, ")")
        _names(self.recipients, out)
        _bracket(self.press, out)


# --- press: arrangements ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pce(Value):
    powers: tuple[str, ...]

    def _emit(self, out: list[str]) -> None:
        out.append("PCE")
        _names(self.powers, out)


@dataclass(frozen=True, slots=True)
class Aly(Value):
    """``ALY (allies) VSS (versus)``."""

    allies: tuple[str, ...]
    versus: tuple[str, ...]

    def _emit(self, out: list[str]) -> None:
        out.append("ALY")
        _names(self.allies, out)
        out.append("VSS")
        _names(self.versus, out)


@dataclass(frozen=True, slots=True)
class Nar(Value):
    """No arrangement about ``content``; also ``NAR (QRY (...))`` in a ``THK`` or ``FCT`` reply."""

    content: Value

    def _emit(self, out: list[str]) -> None:
        out.append("NAR")
        _bracket(self.content, out)


@dataclass(frozen=True, slots=True)
class Xdo(Value):
    order: Order

    def _emit(self, out: list[str]) -> None:
        out.append("XDO")
        _bracket(self.order, out)


@dataclass(frozen=True, slots=True)
class Dmz(Value):
    powers: tuple[str, ...]
    provinces: tuple[str, ...]

    def _emit(self, out: list[str]) -> None:
        out.append("DMZ")
        _names(self.powers, out)
        _names(self.provinces, out)


@dataclass(frozen=True, slots=True)
class And(Value):
    parts: tuple[Arrangement, ...]

    def _emit(self, out: list[str]) -> None:
        out.append("AND")
        for part in self.parts:
            _bracket(part, out)


@dataclass(frozen=True, slots=True)
class Orr(Value):
    parts: tuple[Arrangement, ...]

    def _emit(self, out: list[str]) -> None:
        out.append("ORR")
        for part in self.parts:
            _bracket(part, out)


@dataclass(frozen=True, slots=True)
class Scd(Value):
    shares: tuple[Ownership, ...]

    def _emit(self, out: list[str]) -> None:
        out.append("SCD")
        for share in self.shares:
            _bracket(share, out)


@dataclass(frozen=True, slots=True)
class Occ(Value):
    """Units to be placed; a :class:`DaideUnit` of type ``UNT`` stands for any unit."""

    units: tuple[DaideUnit, ...]

    def _emit(self, out: list[str]) -> None:
        out.append("OCC")
        for unit in self.units:
            _bracket(unit, out)


@dataclass(frozen=True, slots=True)
class Cho(Value):
    minimum: int
    maximum: int
    parts: tuple[Arrangement, ...]

    def _emit(self, out: list[str]) -> None:
        out += ("CHO", "(", str(self.minimum), str(self.maximum), ")")
        for part in self.parts:
            _bracket(part, out)


@dataclass(frozen=True, slots=True)
class For(Value):
    """``FOR (turn) (arrangement)``, or from ``start`` to ``end`` inclusive."""

    start: Turn
    end: Turn | None
    arrangement: Arrangement

    def _emit(self, out: list[str]) -> None:
        out.append("FOR")
        if self.end is None:
            _bracket(self.start, out)
        else:
            out.append("(")
            _bracket(self.start, out)
            _bracket(self.end, out)
            out.append(")")
        _bracket(self.arrangement, out)


@dataclass(frozen=True, slots=True)
class Xoy(Value):
    """``debtor`` owes ``creditor``."""

    debtor: str
    creditor: str

    def _emit(self, out: list[str]) -> None:
        out += ("XOY", "(", self.debtor, ")", "(", self.creditor, ")")


@dataclass(frozen=True, slots=True)
class Ydo(Value):
    """Control of ``units`` is given to ``power``."""

    power: str
    units: tuple[DaideUnit, ...]

    def _emit(self, out: list[str]) -> None:
        out += ("YDO", "(", self.power, ")")
        for unit in self.units:
            _bracket(unit, out)


@dataclass(frozen=True, slots=True)
class SndArrangement(Value):
    """The arrangement ``SND (power) (recipients) (press)``: ``sender`` is to send ``press``."""

    sender: str
    recipients: tuple[str, ...]
    press: PressMessage

    def _emit(self, out: list[str]) -> None:
        out += ("SND", "(", self.sender, ")")
        _names(self.recipients, out)
        _bracket(self.press, out)


@dataclass(frozen=True, slots=True)
class Fwd(Value):
    """Press from any of ``senders`` to ``recipient`` is to be forwarded to ``to``."""

    senders: tuple[str, ...]
    recipient: str
    to: str

    def _emit(self, out: list[str]) -> None:
        out.append("FWD")
        _names(self.senders, out)
        out += ("(", self.recipient, ")", "(", self.to, ")")


@dataclass(frozen=True, slots=True)
class Bcc(Value):
    """Press from ``sender`` to any of ``recipients`` is to be forwarded to ``to``."""

    sender: str
    recipients: tuple[str, ...]
    to: str

    def _emit(self, out: list[str]) -> None:
        out += ("BCC", "(", self.sender, ")")
        _names(self.recipients, out)
        out += ("(", self.to, ")")


Arrangement = (
    Pce | Aly | Drw | Slo | Not | Nar | Xdo | Dmz | And | Orr | Scd | Occ | Cho | For | Xoy | Ydo
    | SndArrangement | Fwd | Bcc
)  # fmt: skip


# --- press: statements, replies and other press messages ---------------------------------------


@dataclass(frozen=True, slots=True)
class Prp(Value):
    arrangement: Arrangement

    def _emit(self, out: list[str]) -> None:
        out.append("PRP")
        _bracket(self.arrangement, out)


@dataclass(frozen=True, slots=True)
class Ins(Value):
    arrangement: Arrangement

    def _emit(self, out: list[str]) -> None:
        out.append("INS")
        _bracket(self.arrangement, out)


@dataclass(frozen=True, slots=True)
class Qry(Value):
    arrangement: Arrangement

    def _emit(self, out: list[str]) -> None:
        out.append("QRY")
        _bracket(self.arrangement, out)


@dataclass(frozen=True, slots=True)
class Sug(Value):
    arrangement: Arrangement

    def _emit(self, out: list[str]) -> None:
        out.append("SUG")
        _bracket(self.arrangement, out)


@dataclass(frozen=True, slots=True)
class Wht(Value):
    unit: DaideUnit

    def _emit(self, out: list[str]) -> None:
        out.append("WHT")
        _bracket(self.unit, out)


@dataclass(frozen=True, slots=True)
class How(Value):
    """How to attack a province or a power."""

    target: str

    def _emit(self, out: list[str]) -> None:
        out += ("HOW", "(", self.target, ")")


@dataclass(frozen=True, slots=True)
class Exp(Value):
    """Explain the moves of ``turn`` given ``press`` sent before."""

    turn: Turn
    press: PressMessage

    def _emit(self, out: list[str]) -> None:
        out.append("EXP")
        _bracket(self.turn, out)
        _bracket(self.press, out)


@dataclass(frozen=True, slots=True)
class Iff(Value):
    """``IFF (condition) THN (...) [ELS (...)]``: both branches statements, or both replies."""

    condition: Arrangement
    then: Value
    otherwise: Value | None = None

    def _emit(self, out: list[str]) -> None:
        out.append("IFF")
        _bracket(self.condition, out)
        out.append("THN")
        _bracket(self.then, out)
        if self.otherwise is not None:
            out.append("ELS")
            _bracket(self.otherwise, out)


@dataclass(frozen=True, slots=True)
class Bwx(Value):
    statement: Value

    def _emit(self, out: list[str]) -> None:
        out.append("BWX")
        _bracket(self.statement, out)


@dataclass(frozen=True, slots=True)
class Thk(Value):
    """I think: an arrangement, or a reply to ``QRY`` (``Qry`` or ``Nar(Qry)``)."""

    content: Value

    def _emit(self, out: list[str]) -> None:
        out.append("THK")
        _bracket(self.content, out)


@dataclass(frozen=True, slots=True)
class Fct(Value):
    """A fact: an arrangement, or a reply to ``QRY`` (``Qry`` or ``Nar(Qry)``)."""

    content: Value

    def _emit(self, out: list[str]) -> None:
        out.append("FCT")
        _bracket(self.content, out)


@dataclass(frozen=True, slots=True)
class Idk(Value):
    """I don't know: about a ``QRY``, ``WHT``, ``HOW``, ``EXP``, ``PRP``, ``INS`` or ``SUG``."""

    content: Value

    def _emit(self, out: list[str]) -> None:
        out.append("IDK")
        _bracket(self.content, out)


@dataclass(frozen=True, slots=True)
class Sry(Value):
    exp: Exp

    def _emit(self, out: list[str]) -> None:
        out.append("SRY")
        _bracket(self.exp, out)


@dataclass(frozen=True, slots=True)
class Why(Value):
    """Why: about a ``THK``, ``FCT``, ``SUG``, ``PRP`` or ``INS``."""

    content: Value

    def _emit(self, out: list[str]) -> None:
        out.append("WHY")
        _bracket(self.content, out)


@dataclass(frozen=True, slots=True)
class Pob(Value):
    """The position on the board: the answer to ``WHY (THK ...)`` or ``WHY (FCT ...)``."""

    why: Why

    def _emit(self, out: list[str]) -> None:
        out.append("POB")
        _bracket(self.why, out)


@dataclass(frozen=True, slots=True)
class Ccl(Value):
    press: PressMessage

    def _emit(self, out: list[str]) -> None:
        out.append("CCL")
        _bracket(self.press, out)


@dataclass(frozen=True, slots=True)
class Try(Value):
    """The press tokens the sender understands."""

    press_tokens: tuple[str, ...] = ()

    def _emit(self, out: list[str]) -> None:
        out.append("TRY")
        _names(self.press_tokens, out)


Statement = Prp | Ins | Qry | Sug | Wht | How | Exp | Iff
Reply = Yes | Rej | Bwx | Huh | Thk | Fct | Idk | Sry | Why | Pob | Iff
PressMessage = Statement | Reply | Ccl | Fct | Try | Thk | Frm | str

Message = (
    Lst | Listing | Sel | Nme | Obs | Iam | MapMessage | Mdf | Hlo | Sco | Now | Hst | Sub | Thx | Mis | Gof | Ord
    | Sve | Lod | Off | Tme | Prn | Huh | Ccd | Out | Adm | Slo | Drw | Smr | Not | Yes | Rej | Snd | Frm
)  # fmt: skip
