"""A MILA saved game read in one pass of the compiled core (``formats.onepass``): the same
bytes as the Python reader's document on both engine cores, a decline (never a different
document) for anything else, hostile files included. About 5 s."""

from __future__ import annotations

import copy
import random
import threading
from pathlib import Path
from typing import Any

import pytest

from engine import _native
from formats import mila, onepass
from formats.jsonio import dump_bytes, dump_line, loads
from tests.formats.test_saved import random_document

pytestmark = pytest.mark.skipif(not _native.compiled_available(), reason="the compiled module is not built")

CORES = [_native.COMPILED, _native.PURE]
SAMPLE = Path(__file__).parent.parent / "data" / "formats" / "mila_sample.json"


def python_line(text: bytes) -> bytes | Exception:
    """What the Python reader makes of a file: its document's line, or the error it raises."""
    try:
        return dump_line(mila.load(loads(text)))
    except Exception as error:  # noqa: BLE001 - any error: the one-pass reader must decline then
        return error


@pytest.fixture(scope="module")
def games() -> list[bytes]:
    return [dump_bytes(mila.dump(random_document(seed, phases=30))) for seed in range(10, 16)]


@pytest.fixture(params=CORES)
def core(request: pytest.FixtureRequest) -> Any:
    with _native.pure_python(request.param == _native.PURE):
        yield request.param


def test_the_same_bytes_as_the_python_reader(games: list[bytes], core: str) -> None:
    taken = 0
    for text in games:
        line = onepass.game_line(text)
        if line is not None:
            taken += 1
            assert line == python_line(text)
    assert taken == len(games), "a plain saved game is read in one pass"


def test_the_sample_file_with_press(core: str) -> None:
    text = SAMPLE.read_bytes()
    line = onepass.game_line(text)
    assert line is not None
    assert line == python_line(text)
    assert loads(line)["messages"], "the sample's press is read"


def test_order_texts_never_seen_are_learnt_once(core: str) -> None:
    saved = mila.dump(random_document(77, phases=12))
    saved["phases"][0]["orders"]["FRANCE"].append("these words are no order 77")
    text = dump_bytes(saved)
    first = onepass.game_line(text)
    assert first is not None and first == python_line(text)
    assert onepass.game_line(text) == first


def test_a_phase_played_otherwise_is_left_to_the_python_reader(games: list[bytes], core: str) -> None:
    saved = loads(games[0])
    state = saved["phases"][3]["state"]
    power = next(p for p, units in state["units"].items() if units)
    state["units"][power] = state["units"][power][1:]  # a unit the record lost
    text = dump_bytes(saved)
    assert onepass.game_line(text) is None
    document = mila.load(loads(text))
    assert any("note" in phase for phase in document["phases"])


def changed(text: bytes, change: Any) -> bytes:
    data = loads(text)
    change(data)
    return dump_bytes(data)


DECLINED = {
    "an escape in an order": lambda d: d["phases"][0]["orders"]["FRANCE"].__setitem__(0, "A PAR \u2013 BUR"),
    "dipcc's own key": lambda d: d.__setitem__("is_full_press", True),
    "dipcc's logs": lambda d: d["phases"][1].__setitem__("logs", ["x"]),
    "another map": lambda d: d.__setitem__("map", "ancmed"),
    "results not recorded": lambda d: d["phases"][0].__setitem__("results", {}),
    "a power not of the map": lambda d: d["phases"][2]["state"]["units"].__setitem__("PRUSSIA", ["A BER"]),
    "no phases": lambda d: d.__setitem__("phases", []),
    "a phase without a state": lambda d: d["phases"][1].pop("state"),
}


@pytest.mark.parametrize("name", sorted(DECLINED))
def test_what_it_does_not_read_it_declines(games: list[bytes], core: str, name: str) -> None:
    text = changed(games[1], DECLINED[name])
    line = onepass.game_line(text)
    assert line is None or line == python_line(text)
    if name != "an escape in an order":  # a non-ASCII text is plain UTF-8: read in one pass
        assert line is None


RAW = {
    "duplicate key": lambda t: t.replace(b'"phases":', b'"phases":[],"phases":', 1),
    "trailing garbage": lambda t: t + b" x",
    "cut short": lambda t: t[: len(t) // 2],
    "bad UTF-8": lambda t: t.replace(b"A PAR", b"A \xff\xfeR", 1),
    "a lone surrogate": lambda t: t.replace(b'"A PAR', b'"A \\ud800PAR', 1),
    "NaN": lambda t: t.replace(b'"civil_disorder":{', b'"x":NaN,"civil_disorder":{', 1),
    "deep nesting": lambda t: t.replace(b'"note":""', b'"note":' + b"[" * 5000 + b"]" * 5000, 1),
    "a control character": lambda t: t.replace(b"A PAR", b"A\x01PAR", 1),
}


@pytest.mark.parametrize("name", sorted(RAW))
def test_hostile_text_is_declined_or_read_alike(games: list[bytes], core: str, name: str) -> None:
    text = RAW[name](games[2])
    assert text != games[2]
    line = onepass.game_line(text)
    expected = python_line(text)
    assert line is None or line == expected
    if isinstance(expected, Exception):
        assert line is None


def test_random_damage_never_gives_another_document(games: list[bytes], core: str) -> None:
    rng = random.Random(5)
    text = games[3]
    for _ in range(150):
        damaged = bytearray(text)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(damaged))
            damaged[at] = rng.choice(b'{}[]",:0123456789 \\*AFBERPARxyz\x00\x80')
        line = onepass.game_line(bytes(damaged))
        if line is not None:
            assert line == python_line(bytes(damaged))


def test_threads_replaying_at_once_get_their_own_games(games: list[bytes]) -> None:
    expected = {text: python_line(text) for text in games}
    failures: list[Any] = []

    def work(texts: list[bytes]) -> None:
        for text in texts * 3:
            line = onepass.game_line(text)
            if line != expected[text]:
                failures.append(text[:40])

    with _native.pure_python():  # the pure engine calls back into Python: threads switch mid-game
        threads = [threading.Thread(target=work, args=(games[i::2],)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not failures


def test_detente_convert_takes_the_one_pass_and_writes_the_same(games: list[bytes], tmp_path: Path) -> None:
    from detente import cli

    path = tmp_path / "game.mila.json"
    path.write_bytes(games[4])
    fast, slow = tmp_path / "fast.json", tmp_path / "slow.json"
    assert cli.main(["convert", str(path), "--to", "detente", "-o", str(fast)]) == 0
    assert cli.main(["convert", str(path), "--to", "detente", "--indent", "1", "-o", str(slow)]) == 0
    assert fast.read_bytes() == python_line(games[4])
    assert loads(fast.read_bytes()) == loads(slow.read_bytes())


def test_the_start_is_kept_when_it_is_not_the_initial_position(games: list[bytes], core: str) -> None:
    saved = loads(games[5])
    later = copy.deepcopy(saved)
    later["phases"] = later["phases"][4:]
    text = dump_bytes(later)
    line = onepass.game_line(text)
    assert line is not None and line == python_line(text)
    assert "start" in loads(line)


def test_without_the_compiled_module_the_python_reader_writes_the_same(games: list[bytes], tmp_path: Path) -> None:
    from detente import cli

    path = tmp_path / "game.mila.json"
    path.write_bytes(games[0])
    out = tmp_path / "out.json"
    with _native.without_module():
        assert onepass.game_line(games[0]) is None
        assert cli.main(["convert", str(path), "--to", "detente", "-o", str(out)]) == 0
    assert out.read_bytes() == python_line(games[0]) == onepass.game_line(games[0])
