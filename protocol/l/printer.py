"""The normal form text of an L message (spec section 3, "Normal form and printing").

One canonical text per message: lower-case illocutions, predicates, actions, names,
region types and seasons; capitalised ``Commit Agree Do Obs Belief Desire Unknown Feel
Explain Attack Support Unit Region`` and feelings; ``, `` between arguments; every set
bracketed and sorted; operators as `` & ``, ``~``, `` ; ``, `` -> `` with parentheses only
where precedence needs them. Parsing the text gives the message back.

>>> from protocol.l import parse
>>> print(to_text(parse("PROPOSE(eng, fra, AGREE([fra, eng], PCE([fra eng])))")))
propose(eng, [fra], Agree([eng fra], pce([eng fra])))
>>> print(to_text(parse("inform(eng, fra, (pce(fra) and ~~slo(eng)) -> (pce(eng) -> drw([eng fra])))")))
inform(eng, [fra], pce([fra]) & ~~slo(eng) -> pce([eng]) -> drw([eng fra]))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from protocol.l import ast as a

_N = TypeVar("_N", bound=a.Node)

# How tightly each operator binds; atoms (everything else) bind tightest.
_IMPLIES, _SEQ, _AND, _NOT, _ATOM = range(5)
_PRECEDENCE: dict[type[a.Node], int] = {a.Implies: _IMPLIES, a.Seq: _SEQ, a.And: _AND, a.Not: _NOT}


def to_text(node: a.Node) -> str:
    """The normal form text of a message or of any node of one."""
    return _PRINT[type(node)](node)


def _set(names: Iterable[str]) -> str:
    return "[" + " ".join(sorted(names)) + "]"


def _powers(powers: Iterable[str]) -> str:
    """A set of powers: L writes a power's token in lower case."""
    return _set(p.lower() for p in powers)


def _at(time: a.Time | None) -> str:
    return "" if time is None else ", " + to_text(time)


def _operand(node: a.Node, loosest: int) -> str:
    """``node`` as an operand that must bind at least as tightly as ``loosest``."""
    text = to_text(node)
    return f"({text})" if _PRECEDENCE.get(type(node), _ATOM) < loosest else text


def _unit(n: a.Unit) -> str:
    return f"Unit({n.power.lower()}, Region({n.region.province}, {n.region.rtype}))"


def _cto(n: a.Cto) -> str:
    route = f", [{' '.join(n.route)}]" if n.route else ""  # the route in its own order
    return f"cto({_unit(n.unit)}, {to_text(n.region)}{route})"


def _deal(n: a.Deal) -> str:
    commits = sorted(map(to_text, n.commits))
    return commits[0] if len(commits) == 1 else "[" + " ".join(commits) + "]"


def _illocution(keyword: str, n: a.Message, body: a.Node | None) -> str:
    what = "" if body is None else ", " + to_text(body)
    return f"{keyword}({n.sender.lower()}, {_powers(n.receivers)}{what}{_at(n.time)})"


def _rule(node_type: type[_N], show: Callable[[_N], str]) -> tuple[type[a.Node], Callable[[Any], str]]:
    """An entry of :data:`_PRINT`: ``show`` is type-checked against ``node_type`` here, since
    the table's type cannot say that each printer takes the nodes of its own key."""
    return node_type, show


_PRINT: dict[type[a.Node], Callable[[Any], str]] = dict(
    [
        _rule(a.Turn, lambda n: f"({n.season.lower()}, {n.year})"),
        _rule(a.TimeVar, lambda n: n.name),
        _rule(a.Region, lambda n: f"Region({n.province}, {n.rtype})"),
        _rule(a.Unit, _unit),
        _rule(a.Hld, lambda n: f"hld({_unit(n.unit)})"),
        _rule(a.Mto, lambda n: f"mto({_unit(n.unit)}, {to_text(n.region)})"),
        _rule(a.Sup, lambda n: f"sup({_unit(n.unit)}, {to_text(n.order)})"),
        _rule(a.Rto, lambda n: f"rto({_unit(n.unit)}, {to_text(n.region)})"),
        _rule(a.Dsb, lambda n: f"dsb({_unit(n.unit)})"),
        _rule(a.Bld, lambda n: f"bld({_unit(n.unit)})"),
        _rule(a.Rem, lambda n: f"rem({_unit(n.unit)})"),
        _rule(a.Wve, lambda n: f"wve({n.power.lower()})"),
        _rule(a.Cvy, lambda n: f"cvy({_unit(n.unit)}, {_cto(n.move)})"),
        _rule(a.Cto, _cto),
        _rule(a.Pce, lambda n: f"pce({_powers(n.powers)})"),
        _rule(a.Aly, lambda n: f"aly({_powers(n.allies)}, {_powers(n.enemies)})"),
        _rule(a.Dmz, lambda n: f"dmz({_powers(n.powers)}, {_set(n.provinces)})"),
        _rule(a.Drw, lambda n: f"drw({_powers(n.powers)})"),
        _rule(a.Slo, lambda n: f"slo({n.power.lower()})"),
        _rule(a.Do, lambda n: f"Do({to_text(n.action)}{_at(n.time)})"),
        _rule(a.TimeCmp, lambda n: f"{to_text(n.left)} {n.op} {to_text(n.right)}"),
        _rule(a.Not, lambda n: "~" + _operand(n.operand, _NOT)),
        _rule(a.And, lambda n: " & ".join(_operand(o, _NOT) for o in n.operands)),
        _rule(a.Seq, lambda n: " ; ".join(_operand(s, _AND) for s in n.steps)),
        _rule(a.Implies, lambda n: f"{_operand(n.premise, _SEQ)} -> {_operand(n.conclusion, _IMPLIES)}"),
        _rule(a.Commit, lambda n: f"Commit({n.agent.lower()}, {_powers(n.agents)}, {to_text(n.formula)}{_at(n.time)})"),
        _rule(a.Deal, _deal),
        _rule(a.Agree, lambda n: f"Agree({_powers(n.agents)}, {to_text(n.formula)}{_at(n.time)})"),
        _rule(a.Obs, lambda n: f"Obs({n.agent.lower()}, {_powers(n.agents)}, {to_text(n.formula)}{_at(n.time)})"),
        _rule(a.Belief, lambda n: f"Belief({n.agent.lower()}, {to_text(n.formula)}{_at(n.time)})"),
        _rule(a.Desire, lambda n: f"Desire({n.agent.lower()}, {to_text(n.formula)}{_at(n.time)})"),
        _rule(a.Unknown, lambda n: f"Unknown({n.agent.lower()}, {to_text(n.info)}{_at(n.time)})"),
        _rule(a.Feel, lambda n: f"Feel({n.agent.lower()}, {n.feeling}{_at(n.time)})"),
        _rule(a.Explain, lambda n: f"Explain({to_text(n.info)}{_at(n.time)})"),
        _rule(a.Attack, lambda n: f"Attack({to_text(n.first)}, {to_text(n.second)})"),
        _rule(a.Support, lambda n: f"Support({to_text(n.first)}, {to_text(n.second)})"),
        _rule(a.Propose, lambda n: _illocution("propose", n, n.deal)),
        _rule(a.Accept, lambda n: _illocution("accept", n, n.deal)),
        _rule(a.Reject, lambda n: _illocution("reject", n, n.deal)),
        _rule(a.Withdraw, lambda n: _illocution("withdraw", n, None)),
        _rule(a.Inform, lambda n: _illocution("inform", n, n.info)),
        _rule(a.Query, lambda n: _illocution("query", n, n.info)),
        _rule(a.Answer, lambda n: _illocution("answer", n, n.info)),
    ]
)
