"""The model seat: a language model plays a power through any OpenAI-compatible endpoint.

Each phase the model is sent the board, its legal orders and the phase's messages
(:mod:`bots.llm.prompt`), and answers orders; press is its own call, when the phase opens
and as messages arrive (at most ``press_calls_per_phase``). Every answer is read as bad
input (:mod:`bots.llm.answers`): what is wrong goes back to the model once, with the
reason; what is still invalid, missing or late is played by the fallback bot (``dumbbot``
unless the profile says otherwise), and counted. Once a budget is spent, or when no call
gets an answer, the fallback plays the phase and the meter says so.

Press comes two ways: ``l``, the model writes L, checked by the parser at the game's
levels; ``english``, the model writes English, which the dialogue assistant turns into L
or refuses with its reason. Incoming L reaches the model in English (and in L for the
``l`` mode), marked with its sender. What the model proposed, accepted and what the notary
confirmed are in the game's record like any player's.

The bot is synchronous like every bot (:class:`bots.base.Bot`); it says ``blocking``, so
the network clients call it off their event loop. Over the network a call is bounded by
the phase's deadline as well as by the profile's ``timeout``; in process, where there is
no clock, by the ``timeout`` alone (``--llm-timeout``).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

import structlog

import engine.orders as eo
from bots.base import Bot, LegalOrders, Outgoing, Results
from bots.llm import prompt
from bots.llm.answers import OrdersRead, PressRead, read_orders, read_press
from bots.llm.client import CallPlace, ChatClient, Reply
from bots.llm.config import LLMOptions, Profile, api_key
from bots.llm.recorder import Recorder
from bots.llm.usage import Meter, RunLedger
from engine import Position, format_order, legal_orders
from engine.maps import Map
from engine.position import Unit
from protocol.english import to_english
from protocol.l import ast as la
from protocol.l import parse_levels, to_text

__all__ = ["LLMBot"]

log = structlog.get_logger("detente.llm")
R = TypeVar("R", OrdersRead, PressRead)

#: Seconds kept in hand before a network deadline, for the orders to travel.
DEADLINE_MARGIN = 2.0
MAX_ANSWER_ECHOED = 4000  # characters of a bad answer sent back with the repair
_SHARED: dict[tuple[Any, ...], Any] = {}
_SHARED_LOCK = threading.Lock()


def _forked() -> None:
    """A child process opens its own files: SQLite connections do not cross a fork."""
    global _SHARED_LOCK
    _SHARED.clear()
    _SHARED_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forked)


def _shared(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """One recorder or ledger per file in a process, however many seats use it."""
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = make()
        return _SHARED[key]


class LLMBot(Bot):
    """A power played by a language model (see the module); ``profile`` says which and how."""

    name = "llm"
    blocking: ClassVar[bool] = True
    negotiates = True

    def __init__(self, profile: Profile, options: LLMOptions, rng: Any = None, game: str = "", seat: str = "") -> None:
        super().__init__(rng)
        from bots.registry import make_bot  # the fallback is a bot like any other

        self.name = profile.name  # type: ignore[misc]  # the seat spec, as the records name it
        self.negotiates = profile.press != "none"  # type: ignore[misc]
        self.profile = profile
        self.options = options
        self.fallback = make_bot(profile.fallback, self.rng.getrandbits(64))
        self.request_seed = profile.seed if profile.seed is not None else self.rng.getrandbits(31)
        self.game, self.seat = game, seat
        recorder = _shared(
            ("recorder", options.cache, options.log_dir), lambda: Recorder(options.cache, options.log_dir)
        )
        self.client = ChatClient(profile, api_key(profile), recorder, options.offline)
        self.meter = Meter(profile.name, game, seat)
        self.ledger: RunLedger | None = None
        if not options.config.budget.empty and options.log_dir is not None:
            path = options.log_dir / "ledger.sqlite"
            self.ledger = _shared(("ledger", path), lambda: RunLedger(path, options.config.budget))
        self.levels = "1-8"
        self.structured = profile.structured
        self.news = prompt.PhaseNews()
        self.deadline: float | None = None  # time.monotonic() by which the phase's orders must be in
        self._phase: str | None = None
        self._calls = 0  # calls this phase
        self._press_calls = 0
        self._heard_at_last_press = -1
        self._heard = 0
        self._open: dict[str, la.Message] = {}  # the latest proposal from each power
        self._orders: dict[Unit | None, list[eo.Order]] = {}
        self._revised: list[str] | None = None
        self._lock = threading.RLock()

    # --- the bot interface ------------------------------------------------------------------

    def start(self, power: str, m: Map) -> None:
        super().start(power, m)
        self.fallback.start(power, m)
        self.seat = self.seat or m.power_names[power]  # a seat without a slot: the logs name it so
        self.meter.seat = self.seat

    def on_time_limit(self, seconds: float | None) -> None:
        self.deadline = time.monotonic() + seconds if seconds else None

    def on_welcome(self, frame: Mapping[str, object]) -> None:
        levels = frame.get("levels")
        try:
            if isinstance(levels, str):
                parse_levels(levels)
                self.levels = levels
        except ValueError:
            pass

    def orders(self, position: Position, legal: LegalOrders) -> list[eo.Order]:
        with self._lock:
            self._phase_of(position)
            if not legal:
                return []
            read = self._ask_orders(position, legal)
            chosen = self._merged(position, legal, read)
            self._orders = {u: list(o) for u, o in _by_unit(legal, chosen).items()}
            self.meter.write(self.options.log_dir)
            return chosen

    def revised_orders(self, position: Position, legal: LegalOrders) -> list[eo.Order] | None:
        with self._lock:
            if self._revised is None or str(position.phase) != self._phase:
                return None
            texts, self._revised = self._revised, None
            read = read_orders(json.dumps({"orders": texts}), position, self.power, legal)
            if not read.by_unit:
                return None
            before = [o for orders in self._orders.values() for o in orders]
            self._orders.update(read.by_unit)
            after = [o for orders in self._orders.values() for o in orders]
            return after if after != before else None

    def on_phase(self, position: Position) -> Outgoing:
        with self._lock:
            self._phase_of(position)
            return self._press(position)

    def on_message(self, sender: str, message: la.Message, position: Position) -> Outgoing:
        with self._lock:
            self._phase_of(position)
            try:
                english = to_english(message, viewer=self.power, m=position.map)
            except Exception:  # noqa: BLE001 - a message the writer cannot word is still shown in L
                english = ""
            self.news.heard(position.map.power_names[sender], to_text(message), english)
            self._heard += 1
            if isinstance(message, la.Propose):
                self._open[sender] = message
            return self._press(position)

    def on_event(self, event: Mapping[str, object], position: Position) -> Outgoing:
        with self._lock:
            if event.get("type") in ("confirmed", "compliance", "expired", "conflict", "accepted", "unbound", "error"):
                self.news.noted(event)
            return ()

    def on_results(self, before: Position, orders: Results, after: Position) -> None:
        with self._lock:
            self.fallback.on_results(before, orders, after)
            self.news.last_orders = [format_order(before.map, o) for o in orders.get(self.power, ())][:40]

    # --- calls --------------------------------------------------------------------------------

    def _phase_of(self, position: Position) -> None:
        phase = str(position.phase)
        if phase != self._phase:
            self._phase, self._calls, self._press_calls = phase, 0, 0
            self.news.incoming.clear()
            self._heard = 0
            self._heard_at_last_press = -1
            self._revised = None

    def _out_of_budget(self) -> bool:
        if self.meter.exhausted is None:
            reason = self.meter.exceeded(self.profile.budget)
            if reason is None and self.ledger is not None:
                spent = self.ledger.exceeded()
                reason = f"run {spent}" if spent is not None else None
            if reason is not None:
                self.meter.exhausted = reason
                log.warning(
                    "model seat out of budget: its fallback plays on",
                    seat=self.name,
                    game=self.game,
                    power=self.power,
                    budget=reason,
                    fallback=self.profile.fallback,
                )
        return self.meter.exhausted is not None

    def _limit(self) -> float:
        limit = self.profile.timeout
        if self.deadline is not None:
            limit = min(limit, self.deadline - time.monotonic() - DEADLINE_MARGIN)
        return max(0.0, limit)

    def _call(self, task: str, messages: list[dict[str, str]], schema: dict[str, Any], attempt: int) -> Reply:
        place = CallPlace(self.game, self.seat, self._phase or "", task, self._calls, attempt)
        reply = self.client.complete(self._body(messages, schema, task), place, self._limit())
        while reply.outcome == "unsupported" and self.structured in prompt.LESS_STRUCTURED:
            # the endpoint refused the format: ask it with less structure from now on, at last in plain text
            self.structured = prompt.LESS_STRUCTURED[self.structured]
            self._account(reply)
            reply = self.client.complete(self._body(messages, schema, task), place, self._limit())
        self._account(reply)
        return reply

    def _body(self, messages: list[dict[str, str]], schema: dict[str, Any], task: str) -> dict[str, Any]:
        p = self.profile
        return prompt.request_body(
            p.model, messages, schema, self.structured, p.temperature, self.request_seed, p.max_tokens, task
        )

    def _account(self, reply: Reply) -> None:
        price = self.profile.price
        dollars = price.dollars(reply.input_tokens, reply.output_tokens) if price is not None else 0.0
        self.meter.record(
            reply.outcome,
            reply.latency,
            reply.input_tokens,
            reply.output_tokens,
            dollars,
            reply.retries,
            reply.estimated,
        )
        if self.ledger is not None:
            self.ledger.add(reply.input_tokens, reply.output_tokens, dollars, reply.latency)

    def _ask(
        self, task: str, system: str, user: str, schema: dict[str, Any], read: Callable[[str | None], R]
    ) -> tuple[R | None, R | None]:
        """Ask, and once more with the problems if there were any: the two reads (None: no answer)."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        first = self._call(task, messages, schema, 0)
        if not first.ok:
            self._calls += 1
            return None, None
        got = read(first.content)
        again: R | None = None
        if got.problems and not self._out_of_budget() and self._limit() > 0:
            self.meter.add(repairs=1)
            messages += [
                {"role": "assistant", "content": (first.content or "")[:MAX_ANSWER_ECHOED]},
                {
                    "role": "user",
                    "content": "REPAIR: " + "; ".join(got.problems) + ". Answer again with the whole JSON object.",
                },
            ]
            second = self._call(task, messages, schema, 1)
            again = read(second.content) if second.ok else None
        self._calls += 1
        return got, again

    def _ask_orders(self, position: Position, legal: LegalOrders) -> OrdersRead | None:
        if self._out_of_budget():
            return None
        system = prompt.system_message(
            position.map.power_names[self.power], "orders", self.profile.press, self.levels, position.map
        )
        user = prompt.user_message("orders", position, self.power, legal, self.news, self.profile.press, self.levels)
        schema = prompt.orders_schema(prompt.legal_table(position, self.power, legal))
        first, again = self._ask(
            "orders", system, user, schema, lambda text: read_orders(text, position, self.power, legal)
        )
        if first is None:
            return None
        if again is None or not again.answered:
            return first
        for unit, orders in first.by_unit.items():  # what the repair left out, the first answer may have
            again.by_unit.setdefault(unit, orders)
        return again

    def _merged(self, position: Position, legal: LegalOrders, read: OrdersRead | None) -> list[eo.Order]:
        """The model's orders, and the fallback's for every unit (or the adjustments) it gave none
        that holds; each counted as the model's or the fallback's."""
        needed = abs(position.adjustments.get(self.power, 0))
        given = read.by_unit if read is not None else {}
        # what each key of ``legal`` stands for in the counts: a unit, or the adjustments owed
        weight = {key: 1 if key is not None else needed for key in legal}
        kept = {key: given[key] for key in legal if key in given and (key is not None or len(given[key]) == needed)}
        if read is None:
            self.meter.add(phases_by_fallback=1)
        chosen = [order for key in legal if key in kept for order in kept[key]]
        missing = [key for key in legal if key not in kept]
        if missing:
            backup = _by_unit(legal, self.fallback.orders(position, legal))
            chosen += [order for key in missing for order in backup.get(key, ())]
        self.meter.add(
            orders_by_model=sum(weight[key] for key in kept), orders_by_fallback=sum(weight[key] for key in missing)
        )
        return chosen

    def _press(self, position: Position) -> Outgoing:
        if (
            not self.negotiates
            or self._press_calls >= self.profile.press_calls_per_phase
            or self._heard == self._heard_at_last_press
            or self._out_of_budget()
        ):
            return ()
        self._press_calls += 1
        self._heard_at_last_press = self._heard
        legal = legal_orders(position, self.power)
        mode = self.profile.press
        system = prompt.system_message(position.map.power_names[self.power], "press", mode, self.levels, position.map)
        user = prompt.user_message("press", position, self.power, legal, self.news, mode, self.levels)
        opened = dict(self._open)
        first, again = self._ask(
            "press",
            system,
            user,
            prompt.press_schema(mode),
            lambda text: read_press(text, mode, position, self.power, self.levels, opened),
        )
        if first is None:
            return ()
        final = again if again is not None else first
        self.meter.add(press_sent=len(final.messages), press_refused=len(final.problems))
        if final.orders:
            self._revised = final.orders
        return [to_text(m) for m in final.messages]


def _by_unit(legal: LegalOrders, orders: Sequence[eo.Order]) -> dict[Unit | None, list[eo.Order]]:
    """``orders`` by the unit of ``legal`` whose options hold each (adjustments under None)."""
    owner: dict[eo.Order, Unit | None] = {}
    for unit, options in legal.items():
        for option in options:
            owner.setdefault(option, unit)
    grouped: dict[Unit | None, list[eo.Order]] = {}
    for order in orders:
        if order in owner:
            grouped.setdefault(owner[order], []).append(order)
    return grouped
