"""The bots on the variants (issue 31): a DAIDE map definition read back into the engine's map,
the bot session following the game's ``MAP`` and ``MDF`` (never trusting a name alone), a bot
that cannot play a map saying so before the game, and every bot of the kit playing a few
turns of pure, fleet_rome and france_austria in process. Budget: about 20 s."""

from __future__ import annotations

import itertools

import pytest

from bots.base import HoldBot
from bots.inprocess import CannotPlay, InProcessGame
from bots.registry import BOTS, cannot_play, make_bot
from bots.session import BotSession
from engine.maps import Map, map_names, standard_map, variant_map
from protocol.daide.mdf import MAX_MDF_CHARS, MdfError, map_from_mdf, read_mdf
from protocol.daide.messages import (
    CoastAdjacency,
    Hlo,
    Location,
    MapMessage,
    Mdf,
    Now,
    Off,
    ProvinceAdjacency,
    Rej,
    Turn,
    DaideUnit,
    Yes,
)
from protocol.daide.orders import map_definition
from referee.settings import GameSettings

VARIANTS = ("pure", "fleet_rome", "france_austria")


class OpeningBook(HoldBot):
    """A bot with an opening book of the standard game: it cannot play any other board."""

    name = "openingbook"

    @classmethod
    def cannot_play(cls, board: Map) -> str | None:
        return None if board is standard_map() else "its opening book is for the standard map"


def by_name(m: Map) -> dict[str, object]:
    """What a map is, by name: powers, provinces and their kinds, centres, homes, every move."""
    name = m.locations
    return {
        "powers": set(m.powers),
        "provinces": {(name[p], m.kind[p], frozenset(name[c] for c in m.coasts[p])) for p in m.provinces},
        "centres": {name[p] for p in m.supply_centers},
        "homes": {power: {name[p] for p in homes} for power, homes in m.homes.items()},
        "army": {(name[loc], frozenset(name[d] for d in moves)) for loc, moves in enumerate(m.army_moves)},
        "fleet": {(name[loc], frozenset(name[d] for d in moves)) for loc, moves in enumerate(m.fleet_moves)},
    }


# --- MDF -> Map ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", map_names())
def test_every_shipped_map_comes_back_from_its_map_definition(name: str) -> None:
    m = variant_map(name)
    mdf = map_definition(m)
    assert read_mdf(str(mdf)) == mdf  # the text the server sends, read by its shape
    back = map_from_mdf(read_mdf(str(mdf)), name)
    assert by_name(back) == by_name(m)
    assert back.locations == m.locations  # numbered as the map file numbers them
    assert back.name == name and back.victory_centers == len(m.supply_centers) // 2 + 1


def test_a_map_of_new_tokens_is_read_from_its_text() -> None:
    text = (
        "MDF (ABC XYZ) (((ABC HOM) (XYZ TWO) (UNO MID)) (SEE)) "
        "((HOM (AMY MID) (FLT SEE)) (TWO (AMY MID) (FLT SEE)) (MID (AMY HOM TWO)) (SEE (FLT HOM TWO)))"
    )
    m = map_from_mdf(read_mdf(text), "tiny")
    assert m.powers == ("ABC", "XYZ") and [m.locations[p] for p in m.supply_centers] == ["HOM", "TWO", "MID"]
    assert {m.name_of(d) for d in m.fleet_moves[m.location("SEE")]} == {"HOM", "TWO"}
    assert m.homes == {"ABC": (m.location("HOM"),), "XYZ": (m.location("TWO"),)}


BAD = {
    "unknown province": ("MDF (AUS) (((AUS VIE)) (BOH)) ((VIE (AMY GAL)))", "VIE's AMY moves name GAL, which is no province"),
    "unknown owner": ("MDF (AUS) (((FRA VIE)) (BOH)) ((VIE (AMY BOH)))", "centres are given to FRA, which is no power"),
    "a centre twice": ("MDF (AUS) (((AUS VIE) (UNO VIE)) (BOH)) ((VIE (AMY BOH)))", "VIE is listed twice"),
    "a coast the engine lacks": ("MDF (AUS) (((AUS VIE)) (BOH)) ((VIE ((FLT NEC) BOH)))", "the coast NEC"),
    "a keyword for a name": ("MDF (AUS) (((AUS VIE)) (AMY)) ((VIE (AMY BOH)))", "'AMY' is no province token"),
    "a character": ("MDF (AUS) (((AUS VIE)) (BOH)) ((VIE (AMY BOH))) ;", "';' is no part"),
    "unclosed": ("MDF (AUS) (((AUS VIE)) (BOH)) ((VIE (AMY BOH))", "never closed"),
    "deep": ("MDF (AUS) (((AUS VIE)) (BOH)) ((VIE (AMY ((((BOH))))))", "nested more than 4 deep"),
    "many tokens": ("MDF (AUS) (((AUS VIE)) (BOH)) ((VIE (AMY" + " BOH" * 9000 + ")))", "more than 8192 tokens"),
    "huge": ("MDF " + " " * MAX_MDF_CHARS, f"more than {MAX_MDF_CHARS} characters"),
    "no shape": ("MDF (AUS) (BOH)", "expected MDF (powers) (provinces) (adjacencies)"),
}


@pytest.mark.parametrize("text, said", BAD.values(), ids=BAD)
def test_a_bad_map_definition_is_one_plain_line(text: str, said: str) -> None:
    with pytest.raises(MdfError) as caught:
        map_from_mdf(read_mdf(text), "bad")
    assert said in str(caught.value) and "\n" not in str(caught.value)
    assert str(caught.value).startswith("MDF: ")


# --- the session follows MAP and MDF -------------------------------------------------------------


def test_the_standard_map_is_taken_by_its_name() -> None:
    session = BotSession(HoldBot())
    assert session.receive(MapMessage("standard")) == [Yes(MapMessage("standard"))]
    assert session.map is standard_map()


@pytest.mark.parametrize("name", VARIANTS)
def test_a_variant_is_asked_for_and_its_shipped_map_used_when_it_is_that_board(name: str) -> None:
    session = BotSession(HoldBot())
    assert session.receive(MapMessage(name)) == [Mdf()]
    assert session.receive(read_mdf(str(map_definition(variant_map(name))))) == [Yes(MapMessage(name))]
    assert session.map is variant_map(name)
    power = variant_map(name).powers[-1]
    session.receive(Hlo(power, 7, ()))
    assert session.bot.map is variant_map(name) and session.bot.power == power


def test_a_name_alone_is_never_trusted() -> None:
    """A server's 'pure' that is not the pure shipped: the session plays on the board it was sent."""
    pure = map_definition(variant_map("pure"))
    # Rome and Paris no longer border each other
    cut = {"ROM": "PAR", "PAR": "ROM"}
    adjacencies = tuple(
        ProvinceAdjacency(
            a.province,
            tuple(
                CoastAdjacency(c.unit_type, c.coast, tuple(d for d in c.destinations if d.province != cut.get(a.province)))
                for c in a.coasts
            ),
        )
        for a in pure.adjacencies
    )
    session = BotSession(HoldBot())
    session.receive(MapMessage("pure"))
    assert session.receive(Mdf(pure.powers, pure.centres, pure.non_centres, adjacencies)) == [Yes(MapMessage("pure"))]
    m = session.map
    assert m is not variant_map("pure") and m.name == "pure"
    assert m.location("PAR") not in m.army_moves[m.location("ROM")]
    session.receive(Hlo("ITA", 7, ()))
    session.receive(Now(Turn("SPR", 1901), (DaideUnit("ITA", "AMY", Location("ROM")),)))
    assert session.due and "PAR" not in {m.name_of(o.destination) for o in session.legal[session.position.units[0]] if hasattr(o, "destination")}


def test_a_map_definition_the_engine_cannot_read_is_refused_and_the_client_leaves() -> None:
    session = BotSession(HoldBot())
    session.receive(MapMessage("odd"))
    bad = Mdf(("AUS",), (), ("BOH",), (ProvinceAdjacency("BOH", (CoastAdjacency("AMY", None, (Location("XXX"),)),)),))
    assert session.receive(bad) == [Rej(MapMessage("odd")), Off()]
    assert session.over and session.declined is not None
    assert session.declined.startswith("cannot read the map 'odd': MDF: BOH's AMY moves name XXX")


# --- a bot that cannot play a map says so at the start ------------------------------------------


def test_a_bot_that_cannot_play_a_map_refuses_it_as_daide_says_and_leaves() -> None:
    session = BotSession(OpeningBook())
    assert session.receive(MapMessage("standard")) == [Yes(MapMessage("standard"))]
    session = BotSession(OpeningBook())
    session.receive(MapMessage("fleet_rome"))
    assert session.receive(map_definition(variant_map("fleet_rome"))) == [Rej(MapMessage("fleet_rome")), Off()]
    assert session.over and not session.due
    assert session.declined == "openingbook cannot play the map 'fleet_rome': its opening book is for the standard map"
    session.receive(Hlo("ITA", 7, ()))  # whatever comes after, the bot never starts
    assert session.bot.power == "" and session.bot.map is None


def test_a_seat_is_checked_against_the_map_before_the_game() -> None:
    spec = f"{__name__}:OpeningBook"
    assert cannot_play(spec, standard_map()) is None
    assert cannot_play(spec, variant_map("pure")) == (
        f"{spec} cannot play the map 'pure': its opening book is for the standard map"
    )
    with pytest.raises(CannotPlay, match=r"^openingbook cannot play the map 'pure': its opening book"):
        InProcessGame([OpeningBook() for _ in range(7)], seed=1, settings=GameSettings(map="pure"))


# --- every bot of the kit plays the variants ------------------------------------------------------


def tables(name: str) -> list[tuple[str, ...]]:
    """Tables of the map's size that seat every bot of the registry at least once, mixed."""
    seats = len(variant_map(name).powers)
    specs = sorted(BOTS)
    count = -(-len(specs) // seats)
    cycle = list(itertools.islice(itertools.cycle(specs), count * seats))
    return [tuple(cycle[i : i + seats]) for i in range(0, len(cycle), seats)]


@pytest.mark.parametrize("name", VARIANTS)
def test_every_bot_of_the_kit_can_play_the_variant(name: str) -> None:
    assert all(cannot_play(spec, variant_map(name)) is None for spec in BOTS)


@pytest.mark.parametrize(
    "name, table", [(name, table) for name in VARIANTS for table in tables(name)], ids=lambda v: v if isinstance(v, str) else ""
)
def test_the_bots_play_a_few_turns_of_a_variant_in_process(name: str, table: tuple[str, ...]) -> None:
    board = variant_map(name)
    bots = [make_bot(spec, seed) for seed, spec in enumerate(table)]
    game = InProcessGame(bots, seed=11, settings=GameSettings(map=name, year_limit=board.first_year + 1), negotiates=True)
    game.play()
    assert all(s.map is board for s in game.sessions)  # each learnt the map from MAP and MDF
    assert sorted(s.power for s in game.sessions) == sorted(board.powers)
    assert all(bot.map is board for bot in bots)
    turns = [str(t.turn.phase) for t in game.gm.history]
    assert len(turns) >= 2 and turns[0] == f"S{board.first_year}M", turns
    assert any(" - " in order for t in game.gm.history for given in t.orders.values() for order in given)
    assert not any(s.discarded or s.rejected for s in game.sessions)  # every order the bots gave was legal
    assert game.gm.position.map is board
