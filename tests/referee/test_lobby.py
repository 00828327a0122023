"""The lobby, sans-I/O: which game a message is for, budgets, seats for strangers, shedding."""

from __future__ import annotations

import random

from protocol.daide.messages import Adm, Iam, Value
from protocol.daide.parser import parse
from referee.effects import Step
from referee.game import GameMaster, GameState
from referee.lobby import SHED_TEXT, Lobby, LobbyLimits
from referee.settings import GameSettings


def game(game_id: str, seed: int = 1, **settings: object) -> GameMaster:
    return GameMaster(game_id, GameSettings(name=game_id, **settings), now=0.0, rng=random.Random(seed))  # type: ignore[arg-type]


def say(lobby: Lobby, conn: str, text: str, now: float = 0.0) -> Step:
    """``text`` from ``conn`` through the lobby's door, as a server hands it on."""
    message: Value | str = parse(text)
    route = lobby.route(conn, message, now)
    if route.game is None:
        return Step()
    if route.leave is not None:
        lobby.leave(conn, now)
    for other in route.charge:
        assert isinstance(message, Iam)
        lobby.charge(conn, other, message, now)
    step = lobby.receive(conn, route.game, message, now)
    assert step is not None
    return step


def texts(step: Step, conn: str) -> list[str]:
    return [str(s.message) for s in step.sends if s.to == conn]


def fill(lobby: Lobby, prefix: str, address: str | None, now: float = 0.0) -> dict[str, str]:
    """Seven strangers from ``address`` into the open game: power abbreviation -> conn."""
    conns = {}
    for i in range(7):
        conn = f"{prefix}{i}"
        lobby.connect(conn, address)
        step = say(lobby, conn, f"NME ('{conn}') ('1')", now)
        assert texts(step, conn)[0].startswith("YES (NME"), texts(step, conn)
        gm = lobby.game(lobby.game_of(conn) or "")
        assert gm is not None
        conns[gm.roster.power_of(conn) or ""] = conn
    return conns


def test_messages_beyond_the_budget_are_shed_unread_told_once_and_paced() -> None:
    lobby = Lobby(LobbyLimits(message_rate=10.0, message_burst=5))
    lobby.connect("c", "127.0.0.2")
    assert all(lobby.admit("c", 1.0).read for _ in range(5))
    shed = [lobby.admit("c", 1.0) for _ in range(3)]
    assert [a.read for a in shed] == [False] * 3
    assert shed[0].tell == Adm("detente", SHED_TEXT) and shed[1].tell is None and shed[2].tell is None
    assert 0.0 < shed[0].pause <= 0.1  # the next token, at 10 a second
    assert lobby.admit("c", 1.2).read  # a token came back
    assert lobby.admit("c", 1.2).tell is None  # shed again, but told only once in ten seconds
    later = [lobby.admit("c", 11.0 + i / 1000) for i in range(30)]  # a burst's worth and more
    assert sum(a.tell is not None for a in later) == 1
    # another connection has a budget of its own
    lobby.connect("d", "127.0.0.2")
    assert lobby.admit("d", 1.2).read
    # a game in memory has no budget at all
    free = Lobby(LobbyLimits(message_rate=None))
    free.connect("c", None)
    assert all(free.admit("c", 0.0).read for _ in range(10_000))


def test_nme_goes_to_the_open_game_to_a_kept_seat_or_to_the_game_named() -> None:
    lobby = Lobby()
    lobby.opened(game("o1"), now=0.0)
    lobby.add(game("kept", reserved=(("FRA", "AiClient"),)))
    lobby.add(game("named"))
    lobby.connect("a", None)
    lobby.connect("b", None)
    lobby.connect("c", None, requested_game="named")
    lobby.connect("d", None, requested_game="gone")
    assert lobby.route("a", parse("NME ('x') ('1')")).game == "o1"
    assert lobby.route("b", parse("NME ('AiClient') ('1')")).game == "kept"
    assert lobby.route("c", parse("NME ('x') ('1')")).game == "named"
    gone = lobby.route("d", parse("NME ('x') ('1')"))
    assert gone.game is None and str(gone.answer) == "REJ (NME ('x') ('1'))" and not gone.close
    lobby.remove("o1")
    none = lobby.route("a", parse("NME ('x') ('1')"))
    assert none.game is None and str(none.answer).startswith("REJ (NME")


def test_a_full_open_game_routes_a_late_nme_again_and_the_next_one_takes_it() -> None:
    lobby = Lobby()
    lobby.opened(game("o1"), now=0.0)
    fill(lobby, "p", None)
    lobby.connect("late", None)
    message = parse("NME ('late') ('1')")
    route = lobby.route("late", message)
    assert route.game == "o1"
    assert lobby.needs_open_game(0.0) == 0.0 and lobby.open_game == "o1"  # named until the next opens
    lobby.opened(game("o2"), now=0.0)  # (a server opens it holding the full game's lock)
    assert lobby.receive("late", "o1", message, 0.0) is None  # full: route it again
    assert lobby.route("late", message).game == "o2"


def test_iam_without_a_game_counts_a_wrong_passcode_against_every_seat_it_is_checked_against() -> None:
    lobby = Lobby()
    seats = {}
    for gid in ("o1", "o2"):
        lobby.opened(game(gid, seed=len(seats)), now=0.0)
        seats[gid] = fill(lobby, gid, None)
        gm = lobby.game(gid)
        assert gm is not None and gm.state is GameState.PLAYING
        lobby.disconnect(seats[gid]["ENG"], 1.0)
    codes = {gid: (lobby.game(gid) or game("x")).roster.players["ENG"].passcode for gid in seats}
    wrong = next(c for c in range(1, 8192) if c not in codes.values())
    for i in range(3):
        lobby.connect(f"t{i}", f"127.0.{i}.9")
        route = lobby.route(f"t{i}", parse(f"IAM (ENG) ({wrong})"), 2.0)
        assert route.game == "o1" and route.charge == ("o2",)  # one game refuses it, the other is charged
        step = say(lobby, f"t{i}", f"IAM (ENG) ({wrong})", 2.0)
        assert texts(step, f"t{i}") == [f"REJ (IAM (ENG) ({wrong}))"] and [r.kind for r in step.records] == ["guess"]
    for gid in seats:  # both seats were checked: each counted all three guesses
        gm = lobby.game(gid)
        assert gm is not None and gm.seats.guesses.recent("ENG", 2.0, float("inf")) == 3
    lobby.connect("back", None)
    assert lobby.route("back", parse(f"IAM (ENG) ({codes['o2']})"), 3.0).game == "o2"


def test_an_address_that_guessed_too_often_is_refused_unchecked() -> None:
    lobby = Lobby(LobbyLimits(address_guesses=2))
    lobby.opened(game("o1"), now=0.0)
    conns = fill(lobby, "p", None)
    lobby.disconnect(conns["ENG"], 0.0)
    gm = lobby.game("o1")
    assert gm is not None
    code = gm.roster.players["ENG"].passcode
    for i in range(2):
        lobby.connect(f"g{i}", "127.0.0.9")
        say(lobby, f"g{i}", f"IAM (ENG) ({code % 8191 + 1})", 1.0)  # refused by the game, and charged there
    lobby.connect("g", "127.0.0.9")
    assert lobby.route("g", parse(f"IAM (ENG) ({code})"), 1.0).close  # the right one, unchecked
    assert gm.seats.guesses.recent("ENG", 1.0, float("inf")) == 2


def test_seats_for_strangers_are_capped_by_address_and_by_network() -> None:
    lobby = Lobby(LobbyLimits(max_seats_per_address=3, max_seats_per_network=5))
    lobby.opened(game("o1"), now=0.0)
    lobby.add(game("admin"))
    for i in range(3):
        lobby.connect(f"a{i}", "127.0.5.1")
        assert texts(say(lobby, f"a{i}", f"NME ('a{i}') ('1')"), f"a{i}")[0].startswith("YES")
    lobby.connect("a3", "127.0.5.1")
    assert texts(say(lobby, "a3", "NME ('a3') ('1')"), "a3") == ["REJ (NME ('a3') ('1'))"]
    for i in range(2):  # a neighbour takes what is left of the network's
        lobby.connect(f"n{i}", "127.0.5.2")
        assert texts(say(lobby, f"n{i}", f"NME ('n{i}') ('1')"), f"n{i}")[0].startswith("YES")
    lobby.connect("n2", "127.0.5.3")
    assert texts(say(lobby, "n2", "NME ('n2') ('1')"), "n2") == ["REJ (NME ('n2') ('1'))"]
    assert lobby.seats_of("127.0.5.1") == (3, 5)
    lobby.connect("far", "127.0.6.1")  # another network
    assert texts(say(lobby, "far", "NME ('far') ('1')"), "far")[0].startswith("YES")
    lobby.connect("adm", "127.0.5.1", requested_game="admin")  # an admin's game is not capped
    assert texts(say(lobby, "adm", "NME ('adm') ('1')"), "adm")[0].startswith("YES")
    # a stranger's seat in a forming game is freed when its connection leaves
    lobby.disconnect("a0", 1.0)
    assert lobby.seats_of("127.0.5.1") == (2, 4)


def test_a_started_game_without_players_is_deserted_after_a_while_and_no_longer_counts() -> None:
    lobby = Lobby(LobbyLimits(max_open_games=1, deserted_after=10.0))
    lobby.opened(game("o1"), now=0.0)
    conns = fill(lobby, "h", "127.0.9.1")
    assert lobby.needs_open_game(0.0) is None and lobby.open_games(0.0) == 1  # at the cap
    for conn in conns.values():
        lobby.disconnect(conn, 5.0)
    assert lobby.open_games(14.0) == 1 and lobby.needs_open_game(14.0) == 1.0  # deserted in a second
    assert lobby.open_games(15.0) == 0 and lobby.needs_open_game(15.0) == 0.0
    lobby.opened(game("o2"), now=15.0)
    # the hoarder's address still holds its seven seats: it takes none in the new game
    lobby.connect("again", "127.0.9.1")
    assert texts(say(lobby, "again", "NME ('again') ('1')", 16.0), "again") == ["REJ (NME ('again') ('1'))"]
    # a game back from the store (a restart) is not deserted at once: its players come back
    restored = Lobby(LobbyLimits(max_open_games=1, deserted_after=10.0))
    gm = lobby.game("o1")
    assert gm is not None and gm.state is GameState.PLAYING and not gm.roster.connection_of
    restored.add(gm, for_strangers=True, now=100.0)
    assert restored.open_games(109.0) == 1 and restored.open_games(110.0) == 0


def test_observers_are_shed_first_then_those_that_never_joined_never_a_player() -> None:
    lobby = Lobby()
    lobby.opened(game("o1"), now=0.0)
    lobby.connect("idle", None)
    conns = fill(lobby, "p", None)
    for conn in ("w1", "w2"):
        lobby.connect(conn, None)
        say(lobby, conn, "OBS")
    assert list(lobby.sheddable()) == ["w1", "w2", "idle"]
    assert not set(lobby.sheddable()) & set(conns.values())
