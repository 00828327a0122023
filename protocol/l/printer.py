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

from protocol.l import ast as a

# How tightly each operator binds; atoms (everything else) bind tightest.
_IMPLIES, _SEQ, _AND, _NOT, _ATOM = range(5)
_PRECEDENCE: dict[type, int] = {a.Implies: _IMPLIES, a.Seq: _SEQ, a.And: _AND, a.Not: _NOT}


def to_text(node: a.Node) -> str:
    """The normal form text of a message or of any node of one."""
    return _PRINT[type(node)](node)


def _set(names: Iterable[str]) -> str:
    return "[" + " ".join(sorted(names)) + "]"


def _at(time: a.Time | None) -> str:
    return "" if time is None else ", " + to_text(time)


def _operand(node: a.Node, loosest: int) -> str:
    """``node`` as an operand that must bind at least as tightly as ``loosest``."""
    text = to_text(node)
    return f"({text})" if _PRECEDENCE.get(type(node), _ATOM) < loosest else text


def _unit(n: a.Unit) -> str:
    return f"Unit({n.power}, Region({n.region.province}, {n.region.rtype}))"


def _cto(n: a.Cto) -> str:
    route = f", {_set_in_order(n.route)}" if n.route else ""
    return f"cto({_unit(n.unit)}, {to_text(n.region)}{route})"


def _set_in_order(names: tuple[str, ...]) -> str:
    return "[" + " ".join(names) + "]"


def _deal(n: a.Deal) -> str:
    commits = sorted(map(to_text, n.commits))
    return commits[0] if len(commits) == 1 else "[" + " ".join(commits) + "]"


def _illocution(keyword: str, last: str) -> Callable[[a.Node], str]:
    def show(n: a.Node) -> str:
        body = f"{n.sender}, {_set(n.receivers)}"  # type: ignore[attr-defined]
        if last:
            body += ", " + to_text(getattr(n, last))
        return f"{keyword}({body}{_at(n.time)})"  # type: ignore[attr-defined]

    return show


_PRINT: dict[type, Callable[[a.Node], str]] = {
    a.Turn: lambda n: f"({n.season}, {n.year})",
    a.TimeVar: lambda n: n.name,
    a.Region: lambda n: f"Region({n.province}, {n.rtype})",
    a.Unit: _unit,
    a.Hld: lambda n: f"hld({_unit(n.unit)})",
    a.Mto: lambda n: f"mto({_unit(n.unit)}, {to_text(n.region)})",
    a.Sup: lambda n: f"sup({_unit(n.unit)}, {to_text(n.order)})",
    a.Rto: lambda n: f"rto({_unit(n.unit)}, {to_text(n.region)})",
    a.Dsb: lambda n: f"dsb({_unit(n.unit)})",
    a.Bld: lambda n: f"bld({_unit(n.unit)})",
    a.Rem: lambda n: f"rem({_unit(n.unit)})",
    a.Wve: lambda n: f"wve({n.power})",
    a.Cvy: lambda n: f"cvy({_unit(n.unit)}, {_cto(n.move)})",
    a.Cto: _cto,
    a.Pce: lambda n: f"pce({_set(n.powers)})",
    a.Aly: lambda n: f"aly({_set(n.allies)}, {_set(n.enemies)})",
    a.Dmz: lambda n: f"dmz({_set(n.powers)}, {_set(n.provinces)})",
    a.Drw: lambda n: f"drw({_set(n.powers)})",
    a.Slo: lambda n: f"slo({n.power})",
    a.Do: lambda n: f"Do({to_text(n.action)}{_at(n.time)})",
    a.TimeCmp: lambda n: f"{to_text(n.left)} {n.op} {to_text(n.right)}",
    a.Not: lambda n: "~" + _operand(n.operand, _NOT),
    a.And: lambda n: " & ".join(_operand(o, _NOT) for o in n.operands),
    a.Seq: lambda n: " ; ".join(_operand(s, _AND) for s in n.steps),
    a.Implies: lambda n: f"{_operand(n.premise, _SEQ)} -> {_operand(n.conclusion, _IMPLIES)}",
    a.Commit: lambda n: f"Commit({n.agent}, {_set(n.agents)}, {to_text(n.formula)}{_at(n.time)})",
    a.Deal: _deal,
    a.Agree: lambda n: f"Agree({_set(n.agents)}, {to_text(n.formula)}{_at(n.time)})",
    a.Obs: lambda n: f"Obs({n.agent}, {_set(n.agents)}, {to_text(n.formula)}{_at(n.time)})",
    a.Belief: lambda n: f"Belief({n.agent}, {to_text(n.formula)}{_at(n.time)})",
    a.Desire: lambda n: f"Desire({n.agent}, {to_text(n.formula)}{_at(n.time)})",
    a.Unknown: lambda n: f"Unknown({n.agent}, {to_text(n.info)}{_at(n.time)})",
    a.Feel: lambda n: f"Feel({n.agent}, {n.feeling}{_at(n.time)})",
    a.Explain: lambda n: f"Explain({to_text(n.info)}{_at(n.time)})",
    a.Attack: lambda n: f"Attack({to_text(n.first)}, {to_text(n.second)})",
    a.Support: lambda n: f"Support({to_text(n.first)}, {to_text(n.second)})",
    a.Propose: _illocution("propose", "deal"),
    a.Accept: _illocution("accept", "deal"),
    a.Reject: _illocution("reject", "deal"),
    a.Withdraw: _illocution("withdraw", ""),
    a.Inform: _illocution("inform", "info"),
    a.Query: _illocution("query", "info"),
    a.Answer: _illocution("answer", "info"),
}
