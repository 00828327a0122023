"""The conversions referee.orders keeps: by value, each in a bounded LRU that can be cleared.

A key made of an object's ``id()`` is only as good as the object's life: once it is gone, a
new object may be given its id, and would find the gone one's entry. These caches are keyed
by the orders themselves (frozen, hashable values), so an equal order shares an entry
wherever it was made, a different one never does, and an entry holds its key alive.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

import engine.orders as eo
from engine import Position
from engine.maps import ARMY
from protocol.daide.messages import DaideUnit, Hold, Location
from protocol.daide.orders import order_from_engine
from protocol.daide.parser import parse
from referee import orders
from referee.orders import check_order, daide_order, daide_text

START = Position.initial()
M = START.map
CACHES = (orders._plain, orders.daide_text, orders._kept_daide_order)


@pytest.fixture(autouse=True)
def cleared() -> Iterator[None]:
    """Every test starts from empty caches (and leaves them so)."""
    for cache in CACHES:
        cache.cache_clear()
    yield
    for cache in CACHES:
        cache.cache_clear()


def order(text: str) -> Any:
    """One order of ``SUB`` text: a new object each time."""
    return parse(f"SUB ({text})").orders[0]


def test_equal_orders_share_an_entry_and_different_orders_never_do() -> None:
    one, same = order("(FRA AMY PAR) MTO BUR"), order("(FRA AMY PAR) MTO BUR")
    assert one is not same and one == same
    assert (
        check_order(START, "FRA", one)
        == check_order(START, "FRA", same)
        == ("MBV", "PAR", eo.Move(ARMY, M.location("PAR"), M.location("BUR")))
    )
    assert daide_text(one) == daide_text(same) == "(FRA AMY PAR) MTO BUR"
    for cache in (orders._plain, orders.daide_text):
        assert cache.cache_info().currsize == 1
    assert orders._plain.cache_info().hits == orders.daide_text.cache_info().hits == 1
    other = order("(FRA AMY PAR) MTO PIC")
    assert check_order(START, "FRA", other) == ("MBV", "PAR", eo.Move(ARMY, M.location("PAR"), M.location("PIC")))
    assert daide_text(other) == "(FRA AMY PAR) MTO PIC"
    for cache in (orders._plain, orders.daide_text):
        assert cache.cache_info().currsize == 2
    assert check_order(START, "GER", one)[0] == "NYU"  # the same order, another power: its own entry
    assert orders._plain.cache_info().currsize == 3


def test_a_kept_daide_order_is_the_one_of_its_fields() -> None:
    move = eo.Move(ARMY, M.location("PAR"), M.location("BUR"))
    kept = daide_order("FRA", move, START)
    assert daide_order("FRA", eo.Move(ARMY, move.location, move.destination), START) is kept
    assert str(daide_order("GER", move, START)) == "(GER AMY PAR) MTO BUR"
    assert orders._kept_daide_order.cache_info().currsize == 2
    disband = eo.Disband(ARMY, M.location("PAR"))
    spring = Position.build("S1901R", {}, dislodged={"A PAR": ("FRA", [])})
    winter = Position.build("W1901A", {"FRA": ["A PAR"]})
    assert (str(daide_order("FRA", disband, spring)), str(daide_order("FRA", disband, winter))) == (
        "(FRA AMY PAR) DSB",
        "(FRA AMY PAR) REM",
    )


#: Moves of a French army (MBV), of a German one (NYU: not France's) and from an empty place (NSU).
MOVES = [("FRA", "PAR", "BUR"), ("FRA", "PAR", "PIC"), ("GER", "MUN", "BUR"), ("FRA", "BUR", "PAR")]


def test_an_order_given_a_gone_orders_id_gets_its_own_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once an order is gone, a new one may be given its ``id()``; here every order is given the
    same one (as :mod:`referee.orders` would see it), and each still gets its own answer."""
    monkeypatch.setattr(orders, "id", lambda _: 1, raising=False)
    moves = [(power, eo.Move(ARMY, M.location(a), M.location(b))) for power, a, b in MOVES]
    for power, move in moves:
        kept = daide_order(power, move, START)
        assert kept == order_from_engine(power, move, START)
        assert check_order(START, "FRA", kept) == check_order(START, "FRA", replace(kept))
        assert check_order(START, "FRA", kept) == orders._full_check(START, "FRA", kept)
        assert daide_text(kept) == str(order_from_engine(power, move, START))
    assert orders._kept_daide_order.cache_info().currsize == len(MOVES)
    assert {check_order(START, "FRA", daide_order(p, m, START))[0] for p, m in moves} == {"MBV", "NYU", "NSU"}


def _holds() -> Iterator[tuple[Any, ...]]:
    """Arguments of ``daide_text`` and ``_plain``: holds in provinces of no map (no two equal)."""
    for i in itertools.count():
        yield (Hold(DaideUnit("FRA", "AMY", Location(f"X{i}"))),)


def _moves() -> Iterator[tuple[Any, ...]]:
    """Arguments of ``_kept_daide_order``: moves of armies from anywhere to anywhere (no two equal)."""
    for power, a, b in itertools.product(M.powers, M.provinces, M.provinces):
        yield M, power, "M", eo.Move, (ARMY, a, b)


@pytest.mark.parametrize(
    ("cache", "arguments"),
    [
        (orders.daide_text, _holds),
        (orders._plain, lambda: ((hold, M, "FRA") for (hold,) in _holds())),
        (orders._kept_daide_order, _moves),
    ],
    ids=["daide_text", "_plain", "_kept_daide_order"],
)
def test_each_cache_stays_within_its_bound_and_clears(cache: Any, arguments: Callable[[], Iterator[tuple]]) -> None:
    bound = cache.cache_info().maxsize
    assert bound == orders._ORDERS_KEPT
    for args in itertools.islice(arguments(), bound + 100):
        cache(*args)
        assert cache.cache_info().currsize <= bound
    assert cache.cache_info().currsize == bound
    cache.cache_clear()
    assert cache.cache_info().currsize == 0
