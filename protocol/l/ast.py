"""The abstract syntax of L: small immutable values that compare by structure.

Every node is a frozen, slotted dataclass, hashable, and already in normal form when it
is built, so that two messages are equal exactly when their normal forms are
(spec section 3): names of provinces, regions and seasons are lower case, and a power is
its token (``ENG``), as everywhere in the code, which the text writes in lower case; sets of agents and of provinces, and the
commitments of a deal, are frozensets; the operands of ``&`` are flattened and sorted;
``;`` is flattened and keeps its order. That is what lets a server match an accept to
the proposal it answers:

>>> from protocol.l import parse
>>> proposal = parse("propose(eng, [fra ger], [Commit(eng, fra, pce(fra)) Commit(ger, eng, pce(ger))])")
>>> accept = parse("ACCEPT(fra, eng, [Commit(ger, [eng], pce(ger)), Commit(eng, fra, pce([fra]))])")
>>> accept.deal == proposal.deal
True
>>> And((Pce("ita"), And((Slo("eng"), Pce("aus"))))) == parse("inform(eng, fra, pce(aus) & pce(ita) & slo(eng))").info
True
>>> str(Region("PAR", "AMY"))
'Region(par, amy)'

Names are not checked here: whether ``xyz`` is a power is a question for the map
(:mod:`protocol.l.ontology`). Enumerations (seasons, region types, feelings,
comparisons) and the shapes that the text form could not express (an empty set, an
``&`` of fewer than two operands) raise ``ValueError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import Field, dataclass
from typing import Any, ClassVar, TypeAlias

from protocol.calendar import TURN_SEASONS, Turn

__all__ = [
    "Accept",
    "Action",
    "Agree",
    "Aly",
    "And",
    "Answer",
    "Attack",
    "Belief",
    "Bld",
    "COMPARISONS",
    "Commit",
    "Cto",
    "Cvy",
    "Deal",
    "DealMessage",
    "Desire",
    "Dmz",
    "Do",
    "Drw",
    "Dsb",
    "Explain",
    "FEELINGS",
    "Feel",
    "Formula",
    "Hld",
    "Implies",
    "Info",
    "InfoMessage",
    "Inform",
    "MESSAGE_TYPES",
    "Message",
    "Mto",
    "Node",
    "Not",
    "Obs",
    "Pce",
    "Predicate",
    "Propose",
    "Query",
    "REGION_TYPES",
    "Region",
    "Reject",
    "Rem",
    "Rto",
    "SEASONS",
    "Seq",
    "Slo",
    "Sup",
    "Support",
    "Time",
    "TimeCmp",
    "TimeVar",
    "Turn",
    "Unit",
    "Unknown",
    "Withdraw",
    "Wve",
]

SEASONS = tuple(s.token.lower() for s in TURN_SEASONS)
REGION_TYPES = ("amy", "sea", "coast", "ncs", "scs", "ecs", "wcs")
FEELINGS = ("VeryHappy", "Happy", "Sad", "Angry")
COMPARISONS = (">", "<", ">=", "<=", "=")

_FEELING = {f.lower(): f for f in FEELINGS}
_TIME_VARIABLE = re.compile(r"t[0-9]+")


class Node:
    """The base of every node: ``str(node)`` is its normal form text."""

    __slots__ = ()
    # Every node type is a dataclass; declared so that type checkers take a Node for one.
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def __str__(self) -> str:
        from protocol.l.printer import to_text  # the printer needs this module first

        return to_text(self)


def _set(self: Node, attr: str, value: object) -> None:
    object.__setattr__(self, attr, value)


def _name(self: Node, attr: str) -> None:
    _set(self, attr, str.lower(getattr(self, attr)))


def _names(self: Node, attr: str, case: Callable[[str], str] = str.lower) -> None:
    """A set of names, from a frozenset, any iterable of names, or one bare name."""
    value: str | Iterable[str] = getattr(self, attr)
    names = frozenset(map(case, (value,) if isinstance(value, str) else value))
    if not names:
        raise ValueError(f"{type(self).__name__}.{attr} is empty")
    _set(self, attr, names)


def _power(self: Node, attr: str) -> None:
    """A power: its token, whichever case it was written in (``eng`` -> ``ENG``)."""
    _set(self, attr, str.upper(getattr(self, attr)))


def _powers(self: Node, attr: str) -> None:
    _names(self, attr, str.upper)


# --- time ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimeVar(Node):
    """A time variable: ``t0``, ``t12``."""

    name: str

    def __post_init__(self) -> None:
        _name(self, "name")
        if not _TIME_VARIABLE.fullmatch(self.name):
            raise ValueError(f"not a time variable: {self.name!r}")


Time: TypeAlias = Turn | TimeVar


# --- the ontology: regions, units, actions, predicates ----------------------------------


@dataclass(frozen=True, slots=True)
class Region(Node):
    """Where a unit can stand: ``Region(stp, ncs)``."""

    province: str
    rtype: str

    def __post_init__(self) -> None:
        _name(self, "province")
        _name(self, "rtype")
        if self.rtype not in REGION_TYPES:
            raise ValueError(f"not a region type: {self.rtype!r}")


@dataclass(frozen=True, slots=True)
class Unit(Node):
    """A power's unit in a region (an army when the region type is ``amy``)."""

    power: str
    region: Region

    def __post_init__(self) -> None:
        _power(self, "power")


@dataclass(frozen=True, slots=True)
class Hld(Node):
    unit: Unit


@dataclass(frozen=True, slots=True)
class Mto(Node):
    unit: Unit
    region: Region


@dataclass(frozen=True, slots=True)
class Sup(Node):
    """``sup(unit, hld(...))`` or ``sup(unit, mto(...))``."""

    unit: Unit
    order: Hld | Mto


@dataclass(frozen=True, slots=True)
class Rto(Node):
    unit: Unit
    region: Region


@dataclass(frozen=True, slots=True)
class Dsb(Node):
    unit: Unit


@dataclass(frozen=True, slots=True)
class Bld(Node):
    unit: Unit


@dataclass(frozen=True, slots=True)
class Rem(Node):
    unit: Unit


@dataclass(frozen=True, slots=True)
class Wve(Node):
    power: str

    def __post_init__(self) -> None:
        _power(self, "power")


@dataclass(frozen=True, slots=True)
class Cto(Node):
    """A convoyed move, with the sea provinces of its route in order (empty: unspecified)."""

    unit: Unit
    region: Region
    route: tuple[str, ...] | None = ()  # None: no route, as ()

    def __post_init__(self) -> None:
        _set(self, "route", tuple(map(str.lower, self.route or ())))


@dataclass(frozen=True, slots=True)
class Cvy(Node):
    """A fleet's convoy of a move, which names no route (spec section 3)."""

    unit: Unit
    move: Cto

    def __post_init__(self) -> None:
        if self.move.route:
            raise ValueError("the move inside cvy has no route")


Action: TypeAlias = Hld | Mto | Sup | Rto | Dsb | Bld | Rem | Wve | Cvy | Cto


@dataclass(frozen=True, slots=True)
class Pce(Node):
    """Peace between the powers."""

    powers: frozenset[str]

    def __post_init__(self) -> None:
        _powers(self, "powers")


@dataclass(frozen=True, slots=True)
class Aly(Node):
    """An alliance of ``allies`` against ``enemies``."""

    allies: frozenset[str]
    enemies: frozenset[str]

    def __post_init__(self) -> None:
        _powers(self, "allies")
        _powers(self, "enemies")


@dataclass(frozen=True, slots=True)
class Dmz(Node):
    """The powers keep out of the provinces."""

    powers: frozenset[str]
    provinces: frozenset[str]

    def __post_init__(self) -> None:
        _powers(self, "powers")
        _names(self, "provinces")


@dataclass(frozen=True, slots=True)
class Drw(Node):
    """A draw shared by the powers."""

    powers: frozenset[str]

    def __post_init__(self) -> None:
        _powers(self, "powers")


@dataclass(frozen=True, slots=True)
class Slo(Node):
    """A solo win for the power."""

    power: str

    def __post_init__(self) -> None:
        _power(self, "power")


Predicate: TypeAlias = Pce | Aly | Dmz | Drw | Slo


# --- formulas -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Do(Node):
    """An action to be done, optionally at a time."""

    action: Action
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class TimeCmp(Node):
    """A comparison of two times, ``t1 > t0``: an atom that binds tightest."""

    left: Time
    op: str
    right: Time

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise ValueError(f"not a comparison: {self.op!r}")


@dataclass(frozen=True, slots=True)
class Not(Node):
    operand: Info


def _flatten(self: And | Seq, attr: str, error: str) -> list[Info]:
    """The items of the field ``attr``, those of a nested node of the same type spliced in."""
    flat: list[Info] = []
    for item in getattr(self, attr):
        if type(item) is type(self):
            flat.extend(getattr(item, attr))
        else:
            flat.append(item)
    if len(flat) < 2:
        raise ValueError(error)
    return flat


@dataclass(frozen=True, slots=True)
class And(Node):
    """A conjunction: nested conjunctions are flattened and the operands sorted by their text."""

    operands: tuple[Info, ...]

    def __post_init__(self) -> None:
        flat = _flatten(self, "operands", "& needs two operands at least")
        _set(self, "operands", tuple(sorted(flat, key=str)))


@dataclass(frozen=True, slots=True)
class Seq(Node):
    """A sequence ``a ; b ; c``: flattened, in its own order."""

    steps: tuple[Info, ...]

    def __post_init__(self) -> None:
        _set(self, "steps", tuple(_flatten(self, "steps", "; needs two steps at least")))


@dataclass(frozen=True, slots=True)
class Implies(Node):
    """``premise -> conclusion`` (right-associative, the loosest operator)."""

    premise: Info
    conclusion: Info


# --- deals ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ByAgent(Node):
    """The first field of the nodes about one agent: who commits, observes, believes, ..."""

    agent: str

    def __post_init__(self) -> None:
        _power(self, "agent")


@dataclass(frozen=True, slots=True)
class Commit(_ByAgent):
    """``agent`` commits to ``agents`` that the formula will hold."""

    agents: frozenset[str]
    formula: Formula
    time: Time | None = None

    def __post_init__(self) -> None:
        _ByAgent.__post_init__(self)
        _powers(self, "agents")


@dataclass(frozen=True, slots=True)
class Deal(Node):
    """Commitments proposed together: a set, so neither their order nor repeats count."""

    commits: frozenset[Commit]

    def __post_init__(self) -> None:
        commits = frozenset((self.commits,) if isinstance(self.commits, Commit) else self.commits)
        if not commits:
            raise ValueError("a deal needs one Commit at least")
        _set(self, "commits", commits)


@dataclass(frozen=True, slots=True)
class Agree(Node):
    """The agents agree that the formula holds."""

    agents: frozenset[str]
    formula: Formula
    time: Time | None = None

    def __post_init__(self) -> None:
        _powers(self, "agents")


# --- information ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Obs(_ByAgent):
    """``agent`` observed, with ``agents``, that the formula holds."""

    agents: frozenset[str]
    formula: Info
    time: Time | None = None

    def __post_init__(self) -> None:
        _ByAgent.__post_init__(self)
        _powers(self, "agents")


@dataclass(frozen=True, slots=True)
class Belief(_ByAgent):
    """``agent`` believes that the information holds."""

    formula: Info
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Desire(_ByAgent):
    """``agent`` desires that the information holds."""

    formula: Info
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Unknown(_ByAgent):
    """``agent`` does not know whether the information holds."""

    info: Info
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Feel(_ByAgent):
    """``agent`` feels one of ``VeryHappy``, ``Happy``, ``Sad``, ``Angry``."""

    feeling: str
    time: Time | None = None

    def __post_init__(self) -> None:
        _ByAgent.__post_init__(self)
        feeling = _FEELING.get(self.feeling.lower())
        if feeling is None:
            raise ValueError(f"not a feeling: {self.feeling!r}")
        _set(self, "feeling", feeling)


@dataclass(frozen=True, slots=True)
class Explain(Node):
    info: Info
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Attack(Node):
    """The first information argues against the second."""

    first: Info
    second: Info


@dataclass(frozen=True, slots=True)
class Support(Node):
    """The first information argues for the second."""

    first: Info
    second: Info


# --- illocutions ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Illocution(Node):
    """The first fields of every illocution: who sends it, and to whom."""

    sender: str
    receivers: frozenset[str]

    def __post_init__(self) -> None:
        _power(self, "sender")
        _powers(self, "receivers")


@dataclass(frozen=True, slots=True)
class Propose(_Illocution):
    """``sender`` proposes the deal to ``receivers``."""

    deal: Deal | Agree
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Accept(_Illocution):
    """``sender`` accepts the deal that ``receivers`` proposed: equal to the proposal's deal."""

    deal: Deal | Agree
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Reject(_Illocution):
    deal: Deal | Agree
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Withdraw(_Illocution):
    """``sender`` withdraws its pending proposals to exactly ``receivers``."""

    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Inform(_Illocution):
    info: Info
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Query(_Illocution):
    info: Info
    time: Time | None = None


@dataclass(frozen=True, slots=True)
class Answer(_Illocution):
    info: Info
    time: Time | None = None


Message: TypeAlias = Propose | Accept | Reject | Withdraw | Inform | Query | Answer
DealMessage: TypeAlias = Propose | Accept | Reject
InfoMessage: TypeAlias = Inform | Query | Answer
#: What the last argument of Commit and Agree admits.
Formula: TypeAlias = Predicate | Do | TimeCmp | Not | And | Seq
#: What inform, query, answer, Unknown, Explain, Attack and Support admit.
Info: TypeAlias = (
    Formula | Deal | Agree | Obs | Belief | Desire | Unknown | Feel | Explain | Attack | Support | Message | Implies
)

MESSAGE_TYPES = (Propose, Accept, Reject, Withdraw, Inform, Query, Answer)
