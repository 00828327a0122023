"""L: the check of powers, provinces and region types against the engine's map."""

from __future__ import annotations

import pytest

from engine import standard_map
from engine.maps import COAST, LAND, SEA
from protocol.l import LOntologyError, check, check_ontology, parse

M = standard_map()


def _message_with_region(province: str, rtype: str) -> str:
    return f"propose(eng, fra, Commit(eng, fra, Do(hld(Unit(eng, Region({province}, {rtype}))))))"


def _region_types(province: int) -> set[str]:
    """The region types a province has, worked out from the map for this test."""
    if M.kind[province] == LAND:
        return {"amy"}
    if M.kind[province] == SEA:
        return {"sea"}
    assert M.kind[province] == COAST
    coasts = {M.locations[c].split("/")[1].lower() + "s" for c in M.coasts[province]}
    return {"amy"} | (coasts or {"coast"})


@pytest.mark.parametrize("province", [M.locations[p] for p in M.provinces])
def test_every_region_of_the_standard_map_fits_and_no_other(province):
    fits = _region_types(M.location(province))
    for rtype in ("amy", "sea", "coast", "ncs", "scs", "ecs", "wcs"):
        text = _message_with_region(province.lower(), rtype)
        result = check(text, m=M)
        if rtype in fits:
            assert result["ok"] is True
        else:
            assert result["kind"] == "ontology"
            assert result["column"] == text.index(f", {rtype})") + 3
            assert f"Region({province.lower()}, {rtype}) does not fit" in result["message"]


def test_the_spec_cases():
    result = check(_message_with_region("par", "sea"))
    assert result["kind"] == "ontology" and "par is inland, its only region is amy" in result["message"]
    xyz = "propose(eng, fra, Agree([eng fra], pce([eng xyz])))"
    assert check(xyz) == {
        "ok": False,
        "kind": "ontology",
        "line": 1,
        "column": 45,
        "message": "no power xyz on the map (its powers: aus eng fra ger ita rus tur)",
    }


def test_two_coasts_and_seas():
    assert check(_message_with_region("stp", "ncs"))["ok"]
    assert check(_message_with_region("bul", "ecs"))["ok"]
    assert check(_message_with_region("stp", "amy"))["ok"]
    stp = check(_message_with_region("stp", "coast"))
    assert "stp is a province of two coasts, its regions are amy ncs scs" in stp["message"]
    assert not check(_message_with_region("spa", "ecs"))["ok"]
    assert "nth is a sea, its only region is sea" in check(_message_with_region("nth", "amy"))["message"]
    assert "lon is coastal, its regions are amy coast" in check(_message_with_region("lon", "sea"))["message"]


@pytest.mark.parametrize(
    ("text", "name", "line", "column", "says"),
    [
        ("withdraw(xyz, fra)", "xyz", 1, 10, "no power xyz"),
        ("withdraw(eng, [fra par])", "par", 1, 20, "par is a province, not a power"),
        ("inform(eng, fra, dmz([eng], [bel eng]))", "eng", 1, 34, "eng is a power, not a province"),
        ("inform(eng, fra, dmz([eng], [bel swi]))", "swi", 1, 34, "no province swi"),
        ("inform(eng, fra, slo(sea))", "sea", 1, 22, "no power sea"),
        ("inform(eng, fra, Do(wve(bel)))", "bel", 1, 25, "bel is a province"),
        ("inform(eng, fra, Feel(abc, Sad))", "abc", 1, 23, "no power abc"),
        (_message_with_region("xyz", "amy"), "xyz", 1, 60, "no province xyz"),
        (
            "inform(eng, fra,\n  Do(cto(Unit(eng, Region(lon, amy)), Region(nwy, amy), [nth xyz nwg])))",
            "xyz",
            2,
            62,
            "no province xyz",
        ),
        ("inform(eng, fra, Do(mto(Unit(eng, Region(lon, amy)), Region(nth, amy))))", "amy", 1, 66, "nth is a sea"),
    ],
)
def test_ontology_errors_name_the_thing_and_where_it_is(text, name, line, column, says):
    with pytest.raises(LOntologyError) as caught:
        check_ontology(parse(text), M, text)
    error = caught.value
    assert (error.kind, error.name, error.line, error.column) == ("ontology", name, line, column)
    assert says in error.message
    assert text.split("\n")[line - 1][column - 1 : column - 1 + len(name)] == name
    assert check(text, m=M) == error.to_dict()


def test_the_first_problem_in_the_text_is_reported():
    text = "inform(eng, [abc fra], Do(hld(Unit(xyz, Region(lon, sea)))))"
    assert check(text)["column"] == text.index("abc") + 1
    text = "inform(eng, fra, pce(ger) & Do(hld(Unit(xyz, Region(zzz, sea)))))"
    assert check(text)["column"] == text.index("xyz") + 1


def test_without_the_text_the_error_has_no_place():
    with pytest.raises(LOntologyError) as caught:
        check_ontology(parse("withdraw(eng, xyz)"), M)
    assert (caught.value.name, caught.value.line, caught.value.column) == ("xyz", None, None)


def test_names_on_the_map_pass():
    every_power = " ".join(p.lower() for p in M.powers)
    every_province = " ".join(M.locations[p].lower() for p in M.provinces)
    check_ontology(parse(f"inform(eng, [{every_power}], dmz([{every_power}], [{every_province}]))"), M)
