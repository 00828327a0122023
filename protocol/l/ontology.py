"""The check of an L message against a map: its powers, provinces and regions exist and fit.

The grammar takes any three-letter name for a power or a province; this check is where
``xyz`` is found not to be a power, and ``Region(par, sea)`` not to be a region, since
Paris is inland (spec sections 2 and 4).

>>> from engine import standard_map
>>> from protocol.l import parse
>>> text = "propose(fra, eng, Commit(fra, eng, Do(hld(Unit(fra, Region(par, sea))))))"
>>> try:
...     check_ontology(parse(text), standard_map(), text)
... except LOntologyError as e:
...     print(e)
ontology error at line 1, column 65: Region(par, sea) does not fit: par is inland, its only region is amy
  ..., eng, Do(hld(Unit(fra, Region(par, sea))))))
                                         ^
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, fields

from lark import Token, Tree

from engine.maps import LAND, SEA, Map
from protocol.l import ast as a
from protocol.l.errors import LOntologyError, located
from protocol.l.parser import parse_tree

__all__ = ["check_ontology"]


@dataclass(frozen=True, slots=True)
class _Ontology:
    """What a map offers to L: its powers (their tokens) and each province's region types."""

    powers: frozenset[str]
    regions: dict[str, tuple[str, ...]]
    kinds: dict[str, str]


@functools.lru_cache(maxsize=16)
def _ontology(m: Map) -> _Ontology:
    regions: dict[str, tuple[str, ...]] = {}
    kinds: dict[str, str] = {}
    for p in m.provinces:
        name = m.locations[p].lower()
        if m.kind[p] == LAND:
            regions[name], kinds[name] = ("amy",), "inland"
        elif m.kind[p] == SEA:
            regions[name], kinds[name] = ("sea",), "a sea"
        elif m.coasts[p]:  # STP/NC -> ncs: DAIDE's names of coasts
            coasts = tuple(m.locations[c].split("/")[1].lower() + "s" for c in m.coasts[p])
            count = "two" if len(coasts) == 2 else str(len(coasts))
            regions[name], kinds[name] = ("amy", *coasts), f"a province of {count} coasts"
        else:
            regions[name], kinds[name] = ("amy", "coast"), "coastal"
    return _Ontology(frozenset(m.powers), regions, kinds)


def check_ontology(message: a.Message, m: Map, text: str | None = None) -> None:
    """Raise :class:`LOntologyError` unless every name and region of ``message`` is on ``m``.

    Given the ``text`` the message was parsed from, the error is the first in the text,
    with its line and column.
    """
    ontology = _ontology(m)
    problem = next(_problems_in_ast(message, ontology), None)
    if problem is None:
        return
    message_text, name = problem
    if text is not None:
        found = next(_problems_in_tree(parse_tree(text), ontology), None)
        if found is not None:
            (message_text, name), token = found
            raise LOntologyError(message_text, name=name, **located(text, token.start_pos or 0))
    raise LOntologyError(message_text, name=name)


# --- the problems: a description and the name at fault --------------------------------------


def _power(name: str, ontology: _Ontology) -> tuple[str, str] | None:
    """A problem with a power, which the AST holds by its token and the text writes in lower case."""
    if name.upper() in ontology.powers:
        return None
    name = name.lower()
    hint = f" (its powers: {' '.join(sorted(p.lower() for p in ontology.powers))})"
    if name in ontology.regions:
        return f"{name} is a province, not a power{hint}", name
    return f"no power {name} on the map{hint}", name


def _province(name: str, ontology: _Ontology) -> tuple[str, str] | None:
    if name in ontology.regions:
        return None
    if name.upper() in ontology.powers:
        return f"{name} is a power, not a province", name
    return f"no province {name} on the map", name


def _region(province: str, rtype: str, ontology: _Ontology) -> tuple[str, str] | None:
    problem = _province(province, ontology)
    if problem is not None or rtype in ontology.regions[province]:
        return problem
    fits = ontology.regions[province]
    listed = f"its only region is {fits[0]}" if len(fits) == 1 else f"its regions are {' '.join(fits)}"
    return f"Region({province}, {rtype}) does not fit: {province} is {ontology.kinds[province]}, {listed}", rtype


# How each field of each node type holds names; the rest hold nodes, or nothing named.
_POWER, _POWERS, _PROVINCES, _NODE, _NODES, _SKIP = range(6)
_FIELD_ROLES = {
    "sender": _POWER,
    "agent": _POWER,
    "power": _POWER,
    "receivers": _POWERS,
    "agents": _POWERS,
    "powers": _POWERS,
    "allies": _POWERS,
    "enemies": _POWERS,
    "provinces": _PROVINCES,
    "route": _PROVINCES,
    "commits": _NODES,
    "operands": _NODES,
    "steps": _NODES,
    "time": _SKIP,
    "feeling": _SKIP,
    "left": _SKIP,
    "op": _SKIP,
    "right": _SKIP,
}
_ROLES: dict[type, tuple[tuple[str, int], ...]] = {
    t: tuple((f.name, _FIELD_ROLES.get(f.name, _NODE)) for f in fields(t))
    for t in (
        *a.MESSAGE_TYPES,
        *(a.Deal, a.Commit, a.Agree, a.Do, a.TimeCmp, a.Not, a.And, a.Seq, a.Implies),
        *(a.Obs, a.Belief, a.Desire, a.Unknown, a.Feel, a.Explain, a.Attack, a.Support),
        *(a.Pce, a.Aly, a.Dmz, a.Drw, a.Slo, a.Unit),
        *(a.Hld, a.Mto, a.Sup, a.Rto, a.Dsb, a.Bld, a.Rem, a.Wve, a.Cvy, a.Cto),
    )
}


def _problems_in_ast(node: a.Node, ontology: _Ontology) -> Iterator[tuple[str, str]]:
    if type(node) is a.Region:
        problem = _region(node.province, node.rtype, ontology)
        if problem is not None:
            yield problem
        return
    for field, role in _ROLES[type(node)]:
        value = getattr(node, field)
        if role == _NODE:
            yield from _problems_in_ast(value, ontology)
        elif role == _POWERS:
            if not value <= ontology.powers:
                yield from filter(None, (_power(p, ontology) for p in sorted(value)))
        elif role == _POWER:
            problem = _power(value, ontology)
            if problem is not None:
                yield problem
        elif role == _PROVINCES:
            yield from filter(None, (_province(p, ontology) for p in value))
        elif role == _NODES:
            for child in value:
                yield from _problems_in_ast(child, ontology)


def _problems_in_tree(tree: Tree, ontology: _Ontology) -> Iterator[tuple[tuple[str, str], Token]]:
    """The problems of a parse tree (every token kept) in the order of the text."""
    stack: list[Tree | Token] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Token):
            if node.type == "NAME":
                problem = _power(node.lower(), ontology)
                if problem is not None:
                    yield problem, node
        elif node.data == "region":
            province, rtype = (t for t in node.children if isinstance(t, Token) and t.type in ("NAME", "RTYPE"))
            problem = _region(province.lower(), rtype.lower(), ontology)
            if problem is not None:
                unknown_province = _province(province.lower(), ontology) is not None
                yield problem, (province if unknown_province else rtype)
        elif node.data == "provinces":
            for name in node.children:
                if isinstance(name, Token) and name.type == "NAME":
                    problem = _province(name.lower(), ontology)
                    if problem is not None:
                        yield problem, name
        else:
            stack.extend(reversed(node.children))
