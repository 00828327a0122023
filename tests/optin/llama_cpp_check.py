"""Opt-in check: play Diplomacy through a real local inference server.

Not part of ``.ci/run`` (pytest does not collect this file: its name has no ``test_``
prefix). It writes a tiny llama-architecture GGUF model with random weights (the ``gguf``
package), starts llama-cpp-python's OpenAI-compatible server on it, asks it for the orders
of Spring 1901 with the answer constrained to legal orders (a JSON schema, and a GBNF
grammar), checks that the answer is valid JSON naming one legal order per unit, and then,
if the model seat is there, plays one game to the end of 1901 with ``detente run`` and the
seat ``llm:tiny@http://127.0.0.1:PORT/v1`` against holdbot.

    .venv/bin/pip install 'llama-cpp-python[server]' gguf
    .venv/bin/python tests/optin/llama_cpp_check.py            # the whole check
    .venv/bin/python tests/optin/llama_cpp_check.py --model-only   # GGUF only: needs gguf, not llama_cpp

Exit status: 0 the check passed, 1 it failed, 2 a requirement is missing.

What the model is made of (read from the ``gguf`` package's ``constants.py`` and
``gguf_writer.py``, and from llama.cpp's loader as vendored in llama-cpp-python's sdist:
``src/llama-model-loader.cpp``, ``src/models/llama.cpp``, ``src/llama-vocab.cpp``):

- tokenizer ``tokenizer.ggml.model = "llama"`` (SentencePiece): ``<unk>`` 0, ``<s>`` 1,
  ``</s>`` 2 (control), the 256 byte tokens ``<0x00>``..``<0xFF>`` (type BYTE: llama.cpp's SPM
  tokenizer falls back to them for any piece that is no token, so every string can be
  spelt), then ``▁`` and the printable ASCII characters as ordinary tokens;
- ``llama.*`` hyperparameters, and tensors with the shapes the llama loader creates
  (``ne`` order, fastest dimension first; numpy's shape is the reverse).
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

INSTALL = "pip install 'llama-cpp-python[server]' gguf"

# the model: small enough to write in a moment and to run at hundreds of tokens a second
N_EMBD = 64
N_LAYER = 2
N_HEAD = 4
N_HEAD_KV = 2
HEAD_DIM = N_EMBD // N_HEAD
N_FF = 128
CONTEXT = 16384  # a byte-level vocabulary spends a token a character: a phase's prompt is ~3k
RMS_EPS = 1e-5
ROPE_BASE = 10000.0
UNK, BOS, EOS = 0, 1, 2
SPACE = "\u2581"  # SentencePiece's word boundary: llama.cpp writes a space as it

POWER = "ENGLAND"
SERVER_WAIT = 120.0
SEAT_RUN_TIMEOUT = 1800.0


# --- the model ------------------------------------------------------------------------------


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and token types of the tiny SentencePiece vocabulary."""
    from gguf import TokenType

    tokens = ["<unk>", "<s>", "</s>"]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [TokenType.BYTE] * 256
    chars = [SPACE] + [chr(c) for c in range(0x21, 0x7F)]
    tokens += chars
    types += [TokenType.NORMAL] * len(chars)
    scores = [0.0] * (3 + 256) + [-float(i) for i in range(len(chars))]
    return tokens, scores, [int(t) for t in types]


def expected_tensors(n_vocab: int) -> dict[str, tuple[int, ...]]:
    """Every tensor the llama loader needs, with its shape in ggml's ``ne`` order."""
    shapes: dict[str, tuple[int, ...]] = {
        "token_embd.weight": (N_EMBD, n_vocab),
        "output_norm.weight": (N_EMBD,),
        "output.weight": (N_EMBD, n_vocab),
    }
    for i in range(N_LAYER):
        shapes |= {
            f"blk.{i}.attn_norm.weight": (N_EMBD,),
            f"blk.{i}.attn_q.weight": (N_EMBD, HEAD_DIM * N_HEAD),
            f"blk.{i}.attn_k.weight": (N_EMBD, HEAD_DIM * N_HEAD_KV),
            f"blk.{i}.attn_v.weight": (N_EMBD, HEAD_DIM * N_HEAD_KV),
            f"blk.{i}.attn_output.weight": (HEAD_DIM * N_HEAD, N_EMBD),
            f"blk.{i}.ffn_norm.weight": (N_EMBD,),
            f"blk.{i}.ffn_gate.weight": (N_EMBD, N_FF),
            f"blk.{i}.ffn_up.weight": (N_EMBD, N_FF),
            f"blk.{i}.ffn_down.weight": (N_FF, N_EMBD),
        }
    return shapes


def expected_metadata(n_vocab: int, context: int = CONTEXT) -> dict[str, Any]:
    return {
        "general.architecture": "llama",
        "general.file_type": 0,  # all F32
        "llama.vocab_size": n_vocab,
        "llama.context_length": context,
        "llama.embedding_length": N_EMBD,
        "llama.block_count": N_LAYER,
        "llama.feed_forward_length": N_FF,
        "llama.attention.head_count": N_HEAD,
        "llama.attention.head_count_kv": N_HEAD_KV,
        "llama.attention.layer_norm_rms_epsilon": RMS_EPS,
        "llama.rope.dimension_count": HEAD_DIM,
        "llama.rope.freq_base": ROPE_BASE,
        "tokenizer.ggml.model": "llama",
        "tokenizer.ggml.bos_token_id": BOS,
        "tokenizer.ggml.eos_token_id": EOS,
        "tokenizer.ggml.unknown_token_id": UNK,
        "tokenizer.ggml.add_bos_token": True,
        "tokenizer.ggml.add_eos_token": False,
    }


def write_tiny_model(path: str | Path, *, context: int = CONTEXT, seed: int = 0) -> Path:
    """Write a tiny llama-architecture GGUF with random F32 weights to ``path``."""
    import numpy as np
    from gguf import GGUFWriter

    path = Path(path)
    tokens, scores, types = vocabulary()
    n_vocab = len(tokens)
    writer = GGUFWriter(str(path), "llama")  # writes general.architecture itself
    writer.add_name("detente-tiny-random")
    writer.add_file_type(0)
    writer.add_vocab_size(n_vocab)
    writer.add_context_length(context)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_layer_norm_rms_eps(RMS_EPS)
    writer.add_rope_dimension_count(HEAD_DIM)
    writer.add_rope_freq_base(ROPE_BASE)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(BOS)
    writer.add_eos_token_id(EOS)
    writer.add_unk_token_id(UNK)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)

    rng = np.random.default_rng(seed)
    for name, ne in expected_tensors(n_vocab).items():
        shape = tuple(reversed(ne))  # numpy's order: slowest dimension first
        if name.endswith("norm.weight"):
            data = np.ones(shape, dtype=np.float32)
        else:
            data = (rng.standard_normal(shape) * 0.1).astype(np.float32)
        writer.add_tensor(name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _field_value(field: Any) -> Any:
    from gguf import GGUFValueType

    if field.types and field.types[0] == GGUFValueType.ARRAY:
        return field.contents()
    value = field.contents()
    return value


def verify_model(path: str | Path, *, context: int = CONTEXT) -> list[str]:
    """Read ``path`` back with GGUFReader: the problems found (none: what llama.cpp needs is there)."""
    from gguf import GGMLQuantizationType, GGUFReader, TokenType

    reader = GGUFReader(str(path))
    problems: list[str] = []
    tokens, _scores, types = vocabulary()
    for key, want in expected_metadata(len(tokens), context).items():
        field = reader.get_field(key)
        if field is None:
            problems.append(f"metadata {key} missing")
            continue
        got = _field_value(field)
        ok = abs(got - want) <= 1e-9 * max(1.0, abs(want)) if isinstance(want, float) else got == want
        if not ok:
            problems.append(f"metadata {key} = {got!r}, not {want!r}")
    for key, want in (("tokenizer.ggml.tokens", tokens), ("tokenizer.ggml.token_type", types)):
        field = reader.get_field(key)
        got = None if field is None else list(_field_value(field))
        if got != want:
            problems.append(f"{key}: {'missing' if got is None else f'{len(got)} entries differ from the vocabulary'}")
    field = reader.get_field("tokenizer.ggml.scores")
    if field is None or len(field.contents()) != len(tokens):
        problems.append("tokenizer.ggml.scores: missing or not one per token")
    byte_ids = {t for t, k in zip(tokens, types) if k == int(TokenType.BYTE)}
    if byte_ids != {f"<0x{b:02X}>" for b in range(256)}:
        problems.append("the byte tokens <0x00>..<0xFF> are not all there")
    want_tensors = expected_tensors(len(tokens))
    got_tensors = {t.name: t for t in reader.tensors}
    for name in sorted(set(want_tensors) - set(got_tensors)):
        problems.append(f"tensor {name} missing")
    for name in sorted(set(got_tensors) - set(want_tensors)):
        problems.append(f"tensor {name} is not one the llama loader reads")
    for name, ne in want_tensors.items():
        tensor = got_tensors.get(name)
        if tensor is None:
            continue
        if tuple(int(d) for d in tensor.shape) != ne:
            problems.append(f"tensor {name}: ne {tuple(int(d) for d in tensor.shape)}, not {ne}")
        if tensor.tensor_type != GGMLQuantizationType.F32:
            problems.append(f"tensor {name}: type {tensor.tensor_type.name}, not F32")
    return problems


# --- the phase: legal orders, the schema and the grammar ------------------------------------


def phase_orders(power: str = POWER) -> dict[str, list[str]]:
    """Each unit of ``power`` in Spring 1901 and its legal orders, as the engine gives them."""
    import engine.orders as eo
    from engine import Position, format_order, legal_orders

    start = Position.initial()
    table: dict[str, list[str]] = {}
    for unit, orders in legal_orders(start, power).items():
        if unit is not None:
            table[format_order(start.map, eo.Hold(unit.type, unit.location))[:-2]] = [
                format_order(start.map, o) for o in orders
            ]
    return table


def orders_schema(table: dict[str, list[str]]) -> dict[str, Any]:
    """``{"orders": [...]}`` with exactly one legal order per unit, in the table's unit order."""
    items = [{"type": "string", "enum": orders} for orders in table.values()]
    return {
        "type": "object",
        "properties": {
            "orders": {
                "type": "array",
                "prefixItems": items,
                "items": False,
                "minItems": len(items),
                "maxItems": len(items),
            }
        },
        "required": ["orders"],
        "additionalProperties": False,
    }


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def orders_grammar(table: dict[str, list[str]]) -> str:
    """The same answers as :func:`orders_schema`, as a GBNF grammar (one spelling, no free whitespace)."""
    units = [f"unit{i}" for i in range(len(table))]
    lines = ["root ::= " + _gbnf_literal('{"orders": [') + " " + ' ", " '.join(units) + " " + _gbnf_literal("]}")]
    for name, orders in zip(units, table.values()):
        lines.append(f"{name} ::= " + " | ".join(_gbnf_literal(json.dumps(o)) for o in orders))
    return "\n".join(lines) + "\n"


def messages(table: dict[str, list[str]], power: str = POWER) -> list[dict[str, str]]:
    system = (
        f"You play {power} in a game of Diplomacy on the standard map. "
        'Answer with one JSON object and nothing else: {"orders": [...]}, one order for each of your units, '
        "taken from its list in LEGAL ORDERS."
    )
    user = "\n".join(
        [
            f"YOU ARE: {power}",
            "PHASE: S1901M (spring 1901, movement)",
            "TASK: orders",
            "LEGAL ORDERS (JSON): " + json.dumps({"units": table}, separators=(",", ":")),
            'Answer {"orders": ["..."]}: one order for each of your units.',
        ]
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def check_answer(content: Any, table: dict[str, list[str]]) -> list[str]:
    """What is wrong with an answer (none: JSON, ``{"orders": [...]}``, one legal order per unit)."""
    if not isinstance(content, str):
        return [f"no text in the answer ({type(content).__name__})"]
    try:
        answer = json.loads(content)
    except json.JSONDecodeError as error:
        return [f"not JSON: {error}"]
    if not isinstance(answer, dict) or set(answer) != {"orders"} or not isinstance(answer["orders"], list):
        return ['not of the form {"orders": [...]}']
    problems = []
    orders = answer["orders"]
    for unit, legal in table.items():
        mine = [o for o in orders if isinstance(o, str) and o in legal]
        if len(mine) != 1:
            problems.append(f"{len(mine)} legal orders for {unit}")
    if len(orders) != len(table):
        problems.append(f"{len(orders)} orders for {len(table)} units")
    return problems


# --- the server -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method: str, url: str, body: Any = None, timeout: float = 120.0) -> tuple[int | None, Any]:
    """(status, the JSON body or its text); status None when nothing answered."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    except (urllib.error.URLError, OSError) as error:
        return None, str(error)
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except json.JSONDecodeError:
        return status, text


def server_command(model: Path, port: int, n_ctx: int) -> list[str]:
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model), "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
    ]  # fmt: skip


def wait_for_server(process: subprocess.Popen, base: str, limit: float = SERVER_WAIT) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        status, _ = http("GET", base + "/v1/models", timeout=5)
        if status == 200:
            return True
        time.sleep(0.5)
    return False


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# --- the requests ---------------------------------------------------------------------------


def variants(table: dict[str, list[str]]) -> list[tuple[str, dict[str, Any], bool]]:
    """(name, the part of the request that constrains the answer, whether it must be enforced)."""
    schema = orders_schema(table)
    return [
        # what the seat sends with structured = "auto" or "json_schema" (OpenAI's form)
        ("response_format json_schema (OpenAI)", {"response_format": {"type": "json_schema", "json_schema": {"name": "orders", "schema": schema, "strict": True}}}, False),
        # llama-cpp-python's own form: json_object with the schema beside it
        ("response_format json_object + schema", {"response_format": {"type": "json_object", "schema": schema}}, True),
        # llama-cpp-python's extra request field
        ("grammar (GBNF)", {"grammar": orders_grammar(table)}, True),
    ]  # fmt: skip


def ask(base: str, table: dict[str, list[str]]) -> bool:
    """Step (d): the phase's orders, under each way of constraining the answer."""
    ok = True
    for name, constraint, required in variants(table):
        body = {
            "model": "tiny",
            "messages": messages(table),
            "temperature": 1.0,
            "seed": 1,
            "max_tokens": 200,
            **constraint,
        }
        started = time.monotonic()
        status, answer = http("POST", base + "/v1/chat/completions", body, timeout=180)
        seconds = time.monotonic() - started
        if status != 200 or not isinstance(answer, dict):
            detail = json.dumps(answer)[:300] if not isinstance(answer, str) else answer[:300]
            print(f"  {name}: HTTP {status} in {seconds:.1f}s: {detail}")
            ok = ok and not required
            continue
        choice = (answer.get("choices") or [{}])[0]
        content = (choice.get("message") or {}).get("content")
        problems = check_answer(content, table)
        print(
            f"  {name}: HTTP 200 in {seconds:.1f}s, finish {choice.get('finish_reason')}, usage {answer.get('usage')}"
        )
        print(f"    answer: {content!r}")
        print("    " + ("valid: one legal order per unit" if not problems else "INVALID: " + "; ".join(problems)))
        if problems and required:
            ok = False
    return ok


# --- the seat -------------------------------------------------------------------------------

SEAT_CONFIG = """\
# the opt-in check's seat: no press (the random model would only fill its max_tokens), short answers
[defaults]
press = "none"
max_tokens = 256
retries = 0
"""


def play_with_seat(base: str, work: Path, structured: str | None = None) -> bool | None:
    """Step (e): one game to the end of 1901 through the seat (None: the seat is not there).

    It passes when ``detente run`` succeeds and at least one of the seat's calls was answered
    with HTTP 200: the random model's answers are not expected to be legal orders (the seat's
    fallback plays what they miss), but they must come from the server."""
    spec = f"llm:tiny@{base}/v1"
    try:
        from bots.registry import parse_seat

        seat = parse_seat(spec)
    except (ImportError, ValueError) as error:  # no registry, or one with no model seats yet
        print(f"(e) skipped: the model seat is not importable here ({type(error).__name__}: {error})")
        return None
    print(f"(e) the seat: {seat!r}")
    out = work / "run"
    config = work / "llm.toml"
    config.write_text(SEAT_CONFIG + (f'structured = "{structured}"\n' if structured else ""))
    command = [
        sys.executable, "-m", "detente", "run", "--bots", f"{spec},holdbot", "--games", "1", "--year-limit", "1901",
        "--out", str(out), "--jobs", "1", "--seed", "1", "--llm-timeout", "120", "--llm-config", str(config),
    ]  # fmt: skip
    print("    $ " + " ".join(command))
    started = time.monotonic()
    try:
        run = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=SEAT_RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        print(f"    FAILED: detente run took over {SEAT_RUN_TIMEOUT:.0f}s")
        return False
    print(f"    exit {run.returncode} in {time.monotonic() - started:.0f}s")
    if run.stdout.strip():
        print(run.stdout.rstrip())
    if run.returncode != 0:
        print(run.stderr.rstrip()[-3000:])
        return False
    usage = out / "usage.json"
    if usage.exists():
        print(f"    {usage}:")
        print(usage.read_text().rstrip())
    else:
        print("    (no usage.json was written)")
    calls = out / "llm" / "calls.jsonl"
    if not calls.exists():
        print("    (no llm/calls.jsonl was written)")
        return True
    records = [json.loads(line) for line in calls.read_text().splitlines() if line.strip()]
    outcomes = Counter(str(r.get("outcome")) for r in records)
    statuses = Counter(str(r.get("status")) for r in records)
    print(f"    {len(records)} calls: outcomes {dict(outcomes)}, HTTP statuses {dict(statuses)}")
    for r in records[:2]:
        format_ = (r.get("request") or {}).get("response_format")
        print(
            f"    {r.get('phase')} attempt {r.get('attempt')}: response_format {json.dumps(format_)[:120]}, answer {str(r.get('response'))[:100]!r}"
        )
    if not any(r.get("status") == 200 for r in records):
        print("    FAILED: no call of the seat was answered with HTTP 200")
        errors = Counter(
            str(r.get("error") or r.get("response") or "")[:300] for r in records if r.get("status") != 200
        )
        for error, n in errors.most_common(3):
            print(f"    {n} x {error}")
        return False
    return True


# --- main -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (model, logs, the run)")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--n-ctx", type=int, default=CONTEXT, help=f"the server's context (default: {CONTEXT})")
    parser.add_argument(
        "--model-only", action="store_true", help="only write the GGUF and read it back (needs gguf only)"
    )
    parser.add_argument("--no-seat", action="store_true", help="skip step (e), the game through the model seat")
    parser.add_argument(
        "--structured",
        choices=("auto", "json_schema", "json_object", "none"),
        help="the seat's structured setting in step (e) (default: the seat's own, auto)",
    )
    args = parser.parse_args(argv)

    # (a) what the check needs
    missing = []
    for module in ("gguf",) if args.model_only else ("gguf", "llama_cpp"):
        try:
            __import__(module)
        except ImportError as error:
            missing.append(f"{module} ({error})")
    if missing:
        print(f"missing: {', '.join(missing)}; install with: {sys.executable} -m {INSTALL}")
        return 2
    if not args.model_only:
        try:
            import llama_cpp.server.app  # noqa: F401  (the [server] extra: fastapi, uvicorn, sse-starlette, ...)
        except ImportError as error:
            print(f"missing: llama_cpp's server ({error}); install with: {sys.executable} -m {INSTALL}")
            return 2

    work = Path(tempfile.mkdtemp(prefix="detente-llama-"))
    process = None
    try:
        # (b) the model, read back
        model = write_tiny_model(work / "tiny.gguf", context=max(args.n_ctx, 256))
        problems = verify_model(model, context=max(args.n_ctx, 256))
        print(
            f"(b) wrote {model} ({model.stat().st_size} bytes): "
            + ("read back, complete" if not problems else "; ".join(problems))
        )
        if problems:
            return 1
        table = phase_orders()
        if args.model_only:
            print(f"    the grammar for {POWER}, Spring 1901:\n" + orders_grammar(table).rstrip())
            return 0

        # (c) the server
        port = args.port or free_port()
        base = f"http://127.0.0.1:{port}"
        command = server_command(model, port, args.n_ctx)
        print("(c) $ " + " ".join(command))
        log = work / "server.log"
        with open(log, "wb") as sink:
            process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        started = time.monotonic()
        if not wait_for_server(process, base):
            why = (
                f"exited with {process.returncode}"
                if process.poll() is not None
                else f"no answer in {SERVER_WAIT:.0f}s"
            )
            print(f"    FAILED: the server {why}; its log:\n{tail(log)}")
            return 1
        _, models = http("GET", base + "/v1/models")
        print(f"    up in {time.monotonic() - started:.1f}s: GET /v1/models -> {json.dumps(models)[:200]}")

        # (d) one phase's orders
        print(
            f"(d) the orders of {POWER}, Spring 1901 ({sum(map(len, table.values()))} legal orders for {len(table)} units):"
        )
        ok = ask(base, table)

        # (e) a game through the seat
        if args.no_seat:
            print("(e) skipped (--no-seat)")
        else:
            played = play_with_seat(base, work, args.structured)
            ok = ok and played is not False
        print("PASSED" if ok else "FAILED")
        return 0 if ok else 1
    finally:
        # (f) the server stops, whatever happened
        if process is not None:
            stop(process)
            print(f"(f) the server stopped (exit {process.returncode})")
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if str(ROOT) not in sys.path:  # run as a script: the engine and the seat are the repository's
        sys.path.insert(0, str(ROOT))
    sys.exit(main())
