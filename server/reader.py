"""The games as the API reads them: a live game through its view, the others from the store.

A live game is read on the event loop, between its inputs: never from a worker thread,
which would walk dictionaries the loop is changing. A game not in memory (finished) is
read from the store, in a worker thread, without a game master (:mod:`server.archive`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import structlog

from engine import Position
from engine.maps import power_names, variant_map
from referee.game import GameMaster, GameState, Outcome, StandIns
from server import archive, export
from server.api_models import (
    GameCreate,
    GameInfo,
    GameResult,
    GameStatus,
    HistoryEntry,
    PlayerInfo,
    StandInInfo,
    history_entry,
)
from server.store import Store

if TYPE_CHECKING:
    from server.service import Game

__all__ = ["GameReader", "GameUnavailable", "result_of"]

log = structlog.get_logger("detente.server")


class GameUnavailable(Exception):
    """A game whose store writes failed and which is not rebuilt yet: not readable for now."""


class GameReader:
    """What the API reads of the games of one server: ``games`` are those in memory."""

    def __init__(self, store: Store, games: Mapping[str, Game], clock: Callable[[], float]) -> None:
        self.store = store
        self.games = games
        self.clock = clock

    def _live(self, game_id: str) -> Game | None:
        """The game in memory, if it is; :class:`GameUnavailable` while it is ``stale`` (its
        memory may hold what the store refused: it is not shown)."""
        game = self.games.get(game_id)
        if game is not None and game.stale:
            raise GameUnavailable(game_id)
        return game

    async def info(self, game_id: str) -> GameInfo | None:
        """What the API tells of a game, or None if there is no such game."""
        game = self._live(game_id)
        if game is not None:
            return self._live_info(game)
        stored = await asyncio.to_thread(self.store.game, game_id)
        return None if stored is None else _stored_info(stored)

    async def all_info(self, finished: int | None = None) -> list[GameInfo]:
        """Every game, oldest first: those in memory, and those in the store only (at most the
        ``finished`` most recent of the finished ones)."""
        stored = await asyncio.to_thread(self.store.games, False, finished)  # the store picks the recent ones
        infos = []
        for row in stored:
            game = self.games.get(row.id)
            infos.append(self._live_info(game) if game is not None and not game.stale else _stored_info(row))
        return infos

    def _live_info(self, game: Game) -> GameInfo:
        view = game.gm.view()
        status: GameStatus = "finished" if view.state == GameState.OVER else view.state  # type: ignore[assignment]
        return GameInfo(
            id=game.id,
            settings=_public(game.create),
            status=status,
            phase=view.phase,
            created=view.created,
            players=[
                PlayerInfo(
                    power=power_names()[seat.power],
                    taken=seat.taken,
                    connected=seat.connected,
                    civil_disorder=seat.civil_disorder,
                    eliminated=seat.eliminated,
                    bot=seat.bot,
                    stand_in=seat.stand_in,
                )
                for seat in view.seats
            ],
            observers=view.observers,
            result=None if view.outcome is None else result_of(view.outcome),
        )

    async def position(self, game_id: str) -> Position | None:
        """The engine position of a game, None before it starts or if there is no such game."""
        game = self._live(game_id)
        if game is not None:
            return None if game.gm.state == GameState.FORMING else game.gm.position  # immutable: safe to hand out
        stored = await asyncio.to_thread(self.store.game, game_id)
        if stored is None or not stored.finished:
            return None  # not in memory and not finished: a game that could not be restored
        events = await asyncio.to_thread(self.store.events, game_id)
        if not archive.complete(events):
            return (await asyncio.to_thread(_replayed, stored, events)).position
        return archive.stored_position(events, variant_map(str(stored.settings.get("map") or "standard")))

    async def history(self, game_id: str) -> list[HistoryEntry] | None:
        """The phases played in a game, oldest first; None if there is no such game. Orders are
        in the short notation, as given; a finished game's come from its stored records."""
        game = self._live(game_id)
        if game is not None:
            return _history(game.gm)
        stored = await asyncio.to_thread(self.store.game, game_id)
        if stored is None:
            return None
        events = await asyncio.to_thread(self.store.events, game_id)
        if archive.complete(events):
            return await asyncio.to_thread(archive.stored_history, events)
        gm = await asyncio.to_thread(_replayed, stored, events)  # a store of an earlier version
        return _history(gm)

    async def stand_ins(self, game_id: str) -> list[StandInInfo]:
        """Every bot that stood in for a player of the game, oldest first."""
        game = self._live(game_id)
        if game is not None:
            return [StandInInfo.of(span) for span in game.gm.view().stand_ins]
        events = await asyncio.to_thread(self.store.events, game_id)
        # the store names the power in full: the API's power field reads any spelling
        return [StandInInfo.of(span) for span in StandIns.of((e.kind, e.payload) for e in events).spans]

    async def import_game(self, document: Mapping[str, Any], name: str, public: bool = False) -> str:
        """A finished game made of a game file (a détente game document): recorded in the store,
        served like any finished game, never replayed (:func:`server.archive.imported`). Its id."""
        game_id = f"i{secrets.token_hex(4)}"
        while game_id in self.games or await asyncio.to_thread(self.store.game, game_id) is not None:
            game_id = f"i{secrets.token_hex(4)}"
        now = self.clock()
        records, result = archive.imported(document, now, public)
        board = str(document.get("map") or "standard")  # archive.imported has refused an unknown one
        settings = GameCreate(name=name[:100], map=board, deadlines=None, year_limit=None).model_dump(mode="json")

        await asyncio.to_thread(self.store.add_finished_game, game_id, settings, records, result, now)
        log.info("game imported", game=game_id, phases=sum(1 for kind, _, _ in records if kind == "adjudicate"))
        return game_id

    async def export(self, game_id: str, private: bool) -> dict[str, Any] | None:
        """The game as a détente game document (:func:`server.export.document`), its private
        press only with ``private``; None if there is no such game."""
        phases = await self.history(game_id)
        info = await self.info(game_id)
        if phases is None or info is None:
            return None
        events = await asyncio.to_thread(self.store.events, game_id)
        names = [entry.phase for entry in phases]
        press, adjudicated = [], 0
        for event in events:  # press belongs to the phase being played: the next one to be adjudicated
            if event.kind == "adjudicate":
                adjudicated += 1
            elif event.kind == "press":
                phase = names[adjudicated] if adjudicated < len(names) else (info.phase or "")
                press.append((phase, event.payload))
        result = None if info.result is None else info.result.model_dump(mode="json")
        board = variant_map(info.settings.map)
        document = export.document(game_id, [e.model_dump(mode="json") for e in phases], press, result, private, board)
        # from the events read above, not read again: the store holds what the live game does
        spans = StandIns.of((e.kind, e.payload) for e in events).spans
        return document | {"stand_ins": [StandInInfo.of(s).model_dump(mode="json") for s in spans]}


def result_of(outcome: Outcome) -> GameResult:
    """A game's outcome as the API and the store write it: the powers by their full names."""
    return GameResult(outcome=outcome.kind, powers=[power_names()[p] for p in outcome.powers], phase=outcome.phase)


def _public(create: GameCreate) -> GameCreate:
    """The settings as the API shows them: which powers are kept, never the name each is kept
    for (whoever sends that name in ``NME`` gets the power)."""
    if not create.reserved:
        return create
    return create.model_copy(update={"reserved": dict.fromkeys(create.reserved, "")})


def _stored_info(stored: Any) -> GameInfo:
    """The API's view of a game not in memory, from its row in the store."""
    result = GameResult.model_validate(stored.result) if stored.result else None
    return GameInfo(
        id=stored.id,
        settings=_public(GameCreate.model_validate(stored.settings)),
        status="finished" if stored.finished else "forming",
        phase=result.phase if result else None,
        created=stored.created,
        result=result,
    )


def _replayed(stored: Any, events: list[Any]) -> GameMaster:
    """A game master rebuilt from a store of an earlier version (phase records without their
    outcome): only the game's own data is touched, so it may run in a worker thread."""
    create = GameCreate.model_validate(stored.settings)
    return GameMaster.replay(stored.id, create.settings(), stored.created, events, on_error=lambda e, error: None)


def _history(gm: GameMaster) -> list[HistoryEntry]:
    return [history_entry(turned.orders, turned.adjudication) for turned in gm.history if turned.adjudication]
