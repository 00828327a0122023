"""The HTTP API's bodies: defaults, validation, the position format and the schemas."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from pydantic import BaseModel, ValidationError

from engine import Game, Position
from referee.deadlines import Deadlines
from referee.settings import GameSettings
from server.api_models import (
    API_MODELS,
    AgainstBots,
    ClientConfig,
    DeadlinesBody,
    ErrorBody,
    GameCreate,
    GameDetail,
    GameHistory,
    GameInfo,
    GameList,
    GamePosition,
    PlayerInfo,
    game_position,
    history_entry,
    json_schemas,
    openapi,
)


def test_game_create_defaults() -> None:
    game = GameCreate.model_validate_json("{}")
    assert game.model_dump(mode="json") == {
        "name": "",
        "map": "standard",
        "press_level": 0,
        "l_levels": "1-8",
        "protocol": "free",
        "binding": False,
        "press_phases": ["movement"],
        "deadlines": {"movement": 60.0, "retreat": 30.0, "adjustment": 30.0},
        "year_limit": GameSettings().year_limit,
        "reserved": {},
        "bots": {},
        "stand_in": None,
        "stand_in_after": GameSettings().stand_in_after,
        "fill_with": None,
        "fill_after": GameSettings().fill_after,
    }
    with pytest.raises(ValidationError):
        GameCreate.model_validate({"reserved": {"ATLANTIS": "alice"}})
    with pytest.raises(ValidationError, match="kept for a player and given to a bot"):
        GameCreate.model_validate({"reserved": {"FRANCE": "me"}, "bots": {"fra": "dumbbot"}})
    with pytest.raises(ValidationError):
        GameCreate.model_validate({"stand_in": "x" * 201})
    with pytest.raises(ValidationError):
        GameCreate.model_validate({"stand_in_after": 0})


def test_game_create_full_body() -> None:
    body = {
        "name": "league 3",
        "map": "standard",
        "press_level": 130,
        "l_levels": "1-4,6",
        "protocol": "bilateral",
        "binding": True,
        "press_phases": ["adjustment", "movement"],
        "deadlines": None,
        "year_limit": None,
    }
    game = GameCreate.model_validate_json(json.dumps(body))
    assert game.press_level == 130 and game.binding and game.deadlines is None and game.year_limit is None
    assert game.press_phases == ("movement", "adjustment")  # canonical order
    # what is stored and sent back reads in again as the same settings
    assert GameCreate.model_validate_json(game.model_dump_json()) == game


def test_l_levels_are_normalised() -> None:
    assert GameCreate(l_levels=" 1-4, 6").l_levels == "1-4,6"
    assert GameCreate(l_levels="1,2,3").l_levels == "1-3"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"press_level": 15}, "press_level"),
        ({"press_level": 140}, "press_level"),
        ({"press_level": -10}, "press_level"),
        ({"press_level": "ten"}, "press_level"),
        ({"press_level": False}, "press_level"),
        ({"protocol": "round-robin"}, "protocol"),
        ({"map": "ancient"}, "map"),
        ({"l_levels": "9"}, "l_levels"),
        ({"l_levels": ""}, "l_levels"),
        ({"deadlines": {"movement": -1, "retreat": 30, "adjustment": 30}}, "deadlines.movement"),
        ({"deadlines": {"movement": 60, "retreat": 0, "adjustment": 30}}, "deadlines.retreat"),
        ({"deadlines": {"movement": 60, "retreat": 30}}, "deadlines.adjustment"),
        ({"deadlines": {"movement": 60, "retreat": 30, "adjustment": 30, "build": 5}}, "deadlines.build"),
        ({"press_phases": ["movement", "winter"]}, "press_phases.1"),
        ({"press_phases": ["movement", "movement"]}, "press_phases"),
        ({"year_limit": 1800}, "year_limit"),
        ({"binding": "perhaps"}, "binding"),
        ({"name": "x" * 101}, "name"),
        ({"press": 10}, "press"),  # a typo is an error, not ignored
        ({"deadlines": {"movement": 1e-300, "retreat": 30, "adjustment": 30}}, "deadlines.movement"),
        ({"deadlines": {"movement": 60, "retreat": 0.09, "adjustment": 30}}, "deadlines.retreat"),
        ({"deadlines": {"movement": 60, "retreat": 30, "adjustment": 8 * 24 * 3600}}, "deadlines.adjustment"),
        ({"deadlines": {"movement": True, "retreat": 30, "adjustment": 30}}, "deadlines.movement"),
        ({"year_limit": 10**40}, "year_limit"),
        ({"l_levels": "1-8," * 16 + "1"}, "l_levels"),
        ({"reserved": {"FRANCE": "x" * 101}}, "reserved.FRANCE"),
    ],
)
def test_bad_game_bodies_are_refused(body: dict, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        GameCreate.model_validate_json(json.dumps(body))
    locations = [".".join(str(part) for part in error["loc"]) for error in info.value.errors()]
    assert field in locations


def test_a_game_is_created_on_any_map_a_game_may_name_with_that_maps_powers() -> None:
    """The map is any of :func:`engine.maps.map_names`; the powers kept or given to bots are its own."""
    two = GameCreate(map="france_austria", reserved={"france": "you"}, bots={"AUS": "dumbbot"})
    assert two.settings().map == "france_austria" and two.settings().board.powers == ("AUS", "FRA")
    assert two.model_dump(mode="json")["reserved"] == {"FRANCE": "you"}
    assert GameCreate.of(two.settings()) == two
    with pytest.raises(ValidationError, match=r"ENG: not a power of the map france_austria \(AUS, FRA\)"):
        GameCreate(map="france_austria", bots={"ENGLAND": "dumbbot"})
    with pytest.raises(ValidationError, match="XYZ is no power of any map"):
        GameCreate(reserved={"XYZ": "you"})
    with pytest.raises(ValidationError, match=r"unknown map 'ancient': the maps are .*standard"):
        GameCreate(map="ancient")
    assert AgainstBots(map="pure", power="italy").power == "ITA"
    with pytest.raises(ValidationError, match="not a power of the map france_austria"):
        AgainstBots(map="france_austria", power="TUR")


def test_the_shortest_deadline_is_a_tenth_of_a_second() -> None:
    assert DeadlinesBody(movement=0.1, retreat=0.2, adjustment=7 * 24 * 3600).movement == 0.1
    for bad in (0.0999, float("nan"), float("inf"), 1e-300):
        with pytest.raises(ValidationError):
            DeadlinesBody(movement=bad, retreat=30, adjustment=30)


def test_every_press_level_of_the_daide_document() -> None:
    for level in [*range(0, 140, 10), 8000]:
        assert GameCreate(press_level=level).press_level == level  # type: ignore[arg-type]


def test_deadlines_command_line_form() -> None:
    assert DeadlinesBody.parse(" 60, 30 ,30 ") == DeadlinesBody(movement=60, retreat=30, adjustment=30)
    assert DeadlinesBody.parse("NONE") is None
    with pytest.raises(ValueError, match="three numbers"):
        DeadlinesBody.parse("60")
    with pytest.raises(ValueError, match="numbers of seconds"):
        DeadlinesBody.parse("a,b,c")
    with pytest.raises(ValidationError):
        DeadlinesBody.parse("60,-5,30")


def test_game_position_of_the_initial_position() -> None:
    position = game_position(Position.initial())
    assert position.phase == "S1901M"
    assert {power: sorted(units) for power, units in position.units.items()} == {
        "AUSTRIA": ["A BUD", "A VIE", "F TRI"],
        "ENGLAND": ["A LVP", "F EDI", "F LON"],
        "FRANCE": ["A MAR", "A PAR", "F BRE"],
        "GERMANY": ["A BER", "A MUN", "F KIE"],
        "ITALY": ["A ROM", "A VEN", "F NAP"],
        "RUSSIA": ["A MOS", "A WAR", "F SEV", "F STP/SC"],
        "TURKEY": ["A CON", "A SMY", "F ANK"],
    }
    assert sorted(position.centers["RUSSIA"]) == ["MOS", "SEV", "STP", "WAR"]
    assert sum(len(c) for c in position.centers.values()) == 22
    assert position.dislodged == {}
    # the JSON is the adjudication-case position format, key for key
    assert json.loads(position.model_dump_json()) == Position.initial().to_json()


def test_history_entry() -> None:
    game = Game()
    game.play({"AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"], "RUSSIA": ["A WAR - UKR", "F SEV - BLA"]})
    orders = {"AUSTRIA": ["A GAL - RUM", "A SER S A GAL - RUM"], "RUSSIA": ["A UKR - RUM", "F BLA S A UKR - RUM"]}
    fall = game.play(orders)
    entry = history_entry({"AUS": orders["AUSTRIA"], "RUS": orders["RUSSIA"]}, fall)
    assert entry.phase == "F1901M"
    assert entry.orders == orders  # the API names the powers by their full names
    assert entry.results == {"A GAL": ["bounce"], "A UKR": ["bounce"], "A SER": ["ok"], "F BLA": ["ok"]}
    assert entry.position.phase == "W1901A"
    assert entry.position == game_position(game.position)
    history = GameHistory(id="g1", phases=[entry])
    assert GameHistory.model_validate_json(history.model_dump_json()) == history


def test_dislodged_units_in_the_position() -> None:
    game = Game()
    game.play({"GERMANY": ["A MUN - TYR"], "ITALY": ["A VEN H"], "AUSTRIA": ["A VIE - TRI", "F TRI - ADR"]})
    game.play({"GERMANY": ["A TYR - VEN"], "AUSTRIA": ["A TRI S A TYR - VEN"], "ITALY": ["A VEN H", "A ROM H"]})
    position = game_position(game.position)
    assert position.phase == "F1901R"
    assert position.dislodged["A VEN"].power == "ITALY"
    assert "PIE" in position.dislodged["A VEN"].retreats


def test_game_info_list_and_detail() -> None:
    info = GameInfo(
        id="7",
        settings=GameCreate(name="open"),
        status="forming",
        created=1.5,
        players=[PlayerInfo(power="ENGLAND", taken=True, connected=False)],
    )
    listing = GameList(games=[info])
    assert GameList.model_validate_json(listing.model_dump_json()) == listing
    detail = GameDetail(**info.model_dump(), position=game_position(Position.initial()))
    assert json.loads(detail.model_dump_json())["position"]["phase"] == "S1901M"
    with pytest.raises(ValidationError):
        GameInfo(id="7", settings=GameCreate(), status="paused", created=0.0)  # type: ignore[arg-type]


def test_client_config_and_error_body() -> None:
    assert ClientConfig(nego_url="http://127.0.0.1:8701").model_dump() == {
        "nego_url": "http://127.0.0.1:8701",
        "daide_path": "/daide",
        "daide_port": None,
        "version": "",
        "house_bots": [],
        "house_default": None,
    }
    assert ErrorBody(error="bad order").model_dump(exclude_none=True) == {"error": "bad order"}
    assert ErrorBody(error="x", line=2, column=5).line == 2
    with pytest.raises(ValidationError):
        ErrorBody(error="x", line=0)


@pytest.mark.parametrize("model", API_MODELS, ids=lambda m: m.__name__)
def test_every_model_has_a_json_schema(model: type[BaseModel]) -> None:
    schema = model.model_json_schema()
    assert schema["type"] == "object" and schema["properties"]
    json.dumps(schema)  # serialisable as it is, for the OpenAPI document


def test_openapi_components() -> None:
    schemas = json_schemas()
    assert set(schemas) >= {"GameCreate", "GameList", "GamePosition", "GameHistory", "ClientConfig", "ErrorBody"}
    create = schemas["GameCreate"]
    assert create["properties"]["protocol"]["enum"] == ["free", "reply", "bilateral"]
    assert 8000 in create["properties"]["press_level"]["enum"]
    assert "#/components/schemas/" in json.dumps(schemas["GameList"])
    assert GamePosition.model_json_schema()["required"] == ["phase", "units", "centers"]


def test_the_openapi_document_names_every_path_and_resolves_every_reference() -> None:
    document = openapi("1.0")
    assert document["openapi"].startswith("3.1")
    assert set(document["paths"]) == {
        "/api/games",
        "/api/games/against-bots",
        "/api/games/{game_id}",
        "/api/games/{game_id}/history",
        "/api/config",
    }
    schemas = document["components"]["schemas"]
    text = json.dumps(document)
    for reference in re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', text):
        assert reference in schemas, reference
    create = document["paths"]["/api/games"]["post"]
    assert set(create["responses"]) == {"201", "400", "401", "413", "422"}


def test_the_api_body_and_the_referee_settings_write_the_same_json() -> None:
    """The store and the feed keep a game's settings as this JSON, whichever side wrote it."""
    for create in (GameCreate(), GameCreate(reserved={"FRANCE": "you"}, deadlines=None, press_phases=["retreat"])):
        assert create.settings().to_json() == create.model_dump(mode="json")


def test_game_create_and_the_referee_settings_convert_into_each_other_field_for_field() -> None:
    """:meth:`GameCreate.of` and :meth:`GameCreate.settings` carry every field, both ways."""
    settings = GameSettings(
        name="league 3",
        map="fleet_rome",
        press_level=130,
        l_levels="1-4,6",
        protocol="bilateral",
        binding=True,
        press_phases=("movement", "adjustment"),
        deadlines=Deadlines(120, 60.5, 30),
        year_limit=None,
        reserved=(("ENG", "bob"), ("FRA", "alice")),
        bots=(("GER", "dumbbot"), ("ITA", "holdbot")),
        stand_in="randombot",
        stand_in_after=42.5,
        fill_with="holdbot",
        fill_after=7.0,
    )
    default = GameSettings()
    fields = [f.name for f in dataclasses.fields(GameSettings)]
    # a field added to the model must be given a value of its own here, and a field of the API
    assert [name for name in fields if getattr(settings, name) == getattr(default, name)] == []
    assert set(GameCreate.model_fields) == set(fields)
    create = GameCreate.of(settings)
    assert create.settings() == settings
    assert GameCreate.of(create.settings()) == create
    assert create.model_dump(mode="json") == settings.to_json()
    for name in fields:  # and every field by its own value, not only the whole
        assert getattr(
            GameCreate.of(dataclasses.replace(default, **{name: getattr(settings, name)})).settings(), name
        ) == getattr(settings, name), name
    # the API's bounds hold at its edge: the referee's model takes what a server would not
    with pytest.raises(ValidationError):
        GameCreate.of(GameSettings(deadlines=Deadlines(0.01, 1, 1)))
    with pytest.raises(ValidationError):
        GameCreate.of(GameSettings(name="x" * 101))


def test_deadlines_body_converts_from_the_referee_deadlines() -> None:
    assert DeadlinesBody.of(Deadlines()) is None
    body = DeadlinesBody.of(Deadlines(60, 30, 30))
    assert body == DeadlinesBody(movement=60, retreat=30, adjustment=30)
    assert GameCreate(deadlines=body).settings().deadlines == Deadlines(60, 30, 30)
    assert GameCreate(deadlines=None).settings().deadlines == Deadlines()
