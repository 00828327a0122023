"""A DAIDE map definition (``MDF``) back into the engine's :class:`~engine.maps.Map`.

The inverse of :func:`protocol.daide.orders.map_definition`: a client told ``MAP ('name')`` of
a map it does not know asks ``MDF`` and plays on what comes back. An ``MDF`` gives the
powers, the supply centres (with their homes), the other provinces and every unit's moves;
the kind of a province (land, coast, sea) and its coasts follow from its moves, as in a map
file. It does not give the starting units (a client is told the position by ``NOW``), the
full names of the powers and provinces (their tokens stand for them), the first year or the
centres that win (half of them and one more, as a map file without ``victory=`` has it).

The map is built through the engine's own reader of map files (:func:`engine.maps.parse_map`),
so that a map received and the same map read from its file number their locations alike.

>>> from engine.maps import variant_map
>>> from protocol.daide.orders import map_definition
>>> pure = map_from_mdf(map_definition(variant_map("pure")), "pure")
>>> pure.powers, len(pure.provinces), pure.victory_centers
(('AUS', 'ENG', 'FRA', 'GER', 'ITA', 'RUS', 'TUR'), 7, 4)
>>> read_mdf("MDF (AUS) (((AUS VIE)) (BOH)) ((VIE (AMY BOH)) (BOH (AMY VIE)))").powers
('AUS',)
>>> map_from_mdf(read_mdf("MDF (AUS) (((AUS VIE)) ()) ((VIE (AMY BOH)))"), "mine")
Traceback (most recent call last):
...
protocol.daide.mdf.MdfError: MDF: VIE's AMY moves name BOH, which is no province of the map
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.maps import Map, MapError, parse_map
from protocol.daide.messages import (
    COASTS,
    KEYWORDS,
    CoastAdjacency,
    HomeCentres,
    Location,
    Mdf,
    ProvinceAdjacency,
)
from protocol.daide.parser import MAX_TOKENS

__all__ = ["MAX_MDF_CHARS", "MdfError", "map_from_mdf", "read_mdf", "same_map"]

#: The longest ``MDF`` text read: the parser's bound on tokens, of at most 4 characters each
#: and a space (the standard map's is 5,106 characters, 815 tokens).
MAX_MDF_CHARS = MAX_TOKENS * 5
#: ``MDF ((powers)) (((centres)) (others)) ((province (unit (coast) dest)))``: never deeper.
_MAX_DEPTH = 4
#: A province's or power's token: three letters, the form every name of the syntax has
#: (the engine's map files read province names as letters alone).
_NAME = re.compile(r"[A-Z]{3}")
_LEXEME = re.compile(r"\s*(?:(\()|(\))|([A-Za-z0-9]+)|(\S))")
#: The coasts the engine knows (north, south, east, west), by DAIDE's token.
_ENGINE_COASTS = {"NCS": "NC", "SCS": "SC", "ECS": "EC", "WCS": "WC"}

Tree = list["str | Tree"]


class MdfError(ValueError):
    """An ``MDF`` that is no map the engine can play on: what is wrong, in one line."""


# --- the text --------------------------------------------------------------------------------------


def read_mdf(text: str) -> Mdf:
    """The ``MDF`` message of ``text``, whatever its province and power tokens.

    The parser of DAIDE's text knows the tokens of one map, and the map is what an ``MDF``
    tells: so the message is read here by its shape alone, within the parser's bounds (at
    most :data:`~protocol.daide.parser.MAX_TOKENS` tokens, brackets 4 deep), and its names
    are checked as names. :class:`MdfError` says what is wrong.
    """
    tree = _tree(text)
    if not tree or tree[0] != "MDF":
        raise MdfError("MDF: the message does not start with MDF")
    if len(tree) == 1:
        return Mdf()
    if len(tree) != 4 or any(isinstance(part, str) for part in tree[1:]):
        raise MdfError("MDF: expected MDF (powers) (provinces) (adjacencies)")
    powers_tree, provinces_tree, adjacencies_tree = tree[1], tree[2], tree[3]
    assert isinstance(powers_tree, list) and isinstance(provinces_tree, list) and isinstance(adjacencies_tree, list)
    powers = _words(powers_tree, "the powers")
    if len(provinces_tree) != 2 or any(isinstance(part, str) for part in provinces_tree):
        raise MdfError("MDF: the provinces are ((supply centres) (other provinces))")
    centres_tree, others_tree = provinces_tree
    assert isinstance(centres_tree, list) and isinstance(others_tree, list)
    centres = tuple(_home_centres(group) for group in centres_tree)
    return Mdf(powers, centres, _words(others_tree, "the provinces"), tuple(_adjacency(a) for a in adjacencies_tree))


def _tree(text: str) -> Tree:
    """The bracket structure of ``text``: words, and lists for brackets (bounded, no recursion)."""
    if len(text) > MAX_MDF_CHARS:
        raise MdfError(f"MDF: more than {MAX_MDF_CHARS} characters")
    root: Tree = []
    stack = [root]
    count = 0
    for match in _LEXEME.finditer(text):
        opened, closed, word, other = match.groups()
        count += 1
        if count > MAX_TOKENS:
            raise MdfError(f"MDF: more than {MAX_TOKENS} tokens")
        if other is not None:
            raise MdfError(f"MDF: {other!r} is no part of a map definition")
        if opened:
            if len(stack) > _MAX_DEPTH:
                raise MdfError(f"MDF: brackets nested more than {_MAX_DEPTH} deep")
            inner: Tree = []
            stack[-1].append(inner)
            stack.append(inner)
        elif closed:
            if len(stack) == 1:
                raise MdfError("MDF: a ')' closes no '('")
            stack.pop()
        elif word is not None:
            stack[-1].append(word.upper())
    if len(stack) != 1:
        raise MdfError("MDF: a '(' is never closed")
    return root


def _words(tree: Tree, what: str) -> tuple[str, ...]:
    if any(not isinstance(word, str) for word in tree):
        raise MdfError(f"MDF: {what} are a list of names")
    return tuple(str(word) for word in tree)


def _home_centres(group: str | Tree) -> HomeCentres:
    if isinstance(group, str) or not group:
        raise MdfError("MDF: each group of supply centres is (power centre ...)")
    owner, *centres = group
    powers: str | tuple[str, ...] = owner if isinstance(owner, str) else _words(owner, "a centre's home powers")
    return HomeCentres(powers, _words(centres, "a power's centres"))


def _adjacency(entry: str | Tree) -> ProvinceAdjacency:
    if isinstance(entry, str) or len(entry) < 2 or not isinstance(entry[0], str):
        raise MdfError("MDF: each adjacency is (province (unit destination ...) ...)")
    province, *groups = entry
    coasts = []
    for group in groups:
        if isinstance(group, str) or not group:
            raise MdfError(f"MDF: {province}'s moves are (unit destination ...)")
        unit, *destinations = group
        unit_type, coast = (unit, None) if isinstance(unit, str) else _pair(unit, province)
        coasts.append(CoastAdjacency(unit_type, coast, tuple(_location(d, province) for d in destinations)))
    return ProvinceAdjacency(province, tuple(coasts))


def _pair(tree: Tree, province: str) -> tuple[str, str]:
    if len(tree) != 2 or not all(isinstance(word, str) for word in tree):
        raise MdfError(f"MDF: in {province}'s moves, expected (unit coast) or (province coast)")
    return str(tree[0]), str(tree[1])


def _location(destination: str | Tree, province: str) -> Location:
    if isinstance(destination, str):
        return Location(destination)
    return Location(*_pair(destination, province))


# --- the map ---------------------------------------------------------------------------------------


def map_from_mdf(mdf: Mdf, name: str) -> Map:
    """The map ``name`` that ``mdf`` defines (see the module); :class:`MdfError` in one line
    for one that names a province or power it does not list, or that the engine cannot play."""
    if not mdf.powers:
        raise MdfError("MDF: no powers (the bare MDF asks for the map, it defines none)")
    powers = _checked_names(mdf.powers, "power")
    homes: dict[str, list[str]] = {power: [] for power in powers}
    neutral: list[str] = []
    centres: set[str] = set()
    for group in mdf.centres:
        owners = (group.powers,) if isinstance(group.powers, str) else group.powers
        for owner in owners:
            if owner != "UNO" and owner not in homes:
                raise MdfError(f"MDF: centres are given to {owner}, which is no power of the map")
        for centre in _checked_names(group.centres, "supply centre"):
            if centre in centres:
                raise MdfError(f"MDF: the supply centre {centre} is listed twice")
            centres.add(centre)
            for owner in owners:
                (neutral if owner == "UNO" else homes[owner]).append(centre)
    others = _checked_names(mdf.non_centres, "province")
    provinces = [p.province for p in mdf.adjacencies]
    listed = [*sorted(centres), *others]
    if len(set(listed)) != len(listed):
        raise MdfError(f"MDF: {next(p for p in others if p in centres)} is listed as a supply centre and as none")
    known = set(listed)
    for province in provinces:
        if province not in known:
            raise MdfError(f"MDF: the adjacencies of {province}, which is no province of the map")
    if len(set(provinces)) != len(provinces):
        raise MdfError("MDF: a province's adjacencies are given twice")
    order = provinces + [p for p in listed if p not in set(provinces)]  # the order of the adjacencies, as sent
    borders = [f"{p}={_borders(a, known)}" for a in mdf.adjacencies for p in [a.province]]
    text = "\n".join(
        [
            "[variant]",
            f"name={name}",
            "[powers]",
            *(f"{power}={power}" for power in powers),
            "[provinces]",
            *(f"{p}={p}" for p in order),
            "[homes]",
            *(f"{power}={', '.join(found)}" for power, found in homes.items()),
            f"UNO={', '.join(neutral)}",
            "[positions]",
            "[borders]",
            *borders,
        ]
    )
    try:
        return parse_map(text)
    except (MapError, KeyError, ValueError) as error:
        raise MdfError(f"MDF: not a map the engine can read: {error}") from None


def _checked_names(names: Iterable[str], what: str) -> tuple[str, ...]:
    out = tuple(names)
    for name in out:
        if not _NAME.fullmatch(name) or name in KEYWORDS or name in COASTS:
            raise MdfError(f"MDF: {name[:20]!r} is no {what} token (three letters, not a word of the syntax)")
    if len(set(out)) != len(out):
        raise MdfError(f"MDF: a {what} is listed twice")
    return out


def _borders(adjacency: ProvinceAdjacency, known: set[str]) -> str:
    """A province's moves as a map file's ``[borders]`` line: ``AMY A B, (FLT NC) C (D SC)``."""
    province = adjacency.province
    groups = []
    for group in adjacency.coasts:
        if group.unit_type not in ("AMY", "FLT"):
            raise MdfError(f"MDF: {province}'s moves are for {group.unit_type[:20]}, which is no unit type")
        head = group.unit_type
        if group.coast is not None:
            if group.unit_type != "FLT":
                raise MdfError(f"MDF: {province}'s moves give an army a coast")
            head = f"(FLT {_coast(group.coast, province)})"
        places = []
        for place in group.destinations:
            if place.province not in known:
                raise MdfError(
                    f"MDF: {province}'s {group.unit_type} moves name {place.province[:20]}, which is no province of the map"
                )
            places.append(place.province if place.coast is None else f"({place.province} {_coast(place.coast, province)})")
        groups.append(" ".join([head, *places]))
    return ", ".join(groups)


def _coast(token: str, province: str) -> str:
    coast = _ENGINE_COASTS.get(token)
    if coast is None:
        raise MdfError(f"MDF: {province}'s moves name the coast {token[:20]}; the engine knows NCS, SCS, ECS and WCS")
    return coast


def same_map(a: Map, b: Map) -> bool:
    """Whether two maps are one board: the same powers, centres, homes and moves, by name
    (the order of the provinces, the full names and the starting units aside)."""

    def key(m: Map) -> tuple[object, ...]:
        name = m.locations
        moves = frozenset(
            (name[loc], kind, frozenset(name[d] for d in table[loc]))
            for kind, table in (("A", m.army_moves), ("F", m.fleet_moves))
            for loc in range(len(name))
        )
        homes = frozenset((power, frozenset(name[p] for p in found)) for power, found in m.homes.items() if found)
        return (frozenset(m.powers), frozenset(name[p] for p in m.supply_centers), homes, frozenset(name), moves)

    return key(a) == key(b)
