"""The sans-I/O negotiation of one game: L messages and game events in, frames out.

A :class:`Negotiation` enforces what issue 5 asks of every message: grammar, level,
ontology, identity, the game's protocol and its negotiation window; it keeps the pending
proposals, the notary's deals (``docs/negotiation.md``: a deal is confirmed when every
power it commits agreed, a promise is only offered until accepted, a rejection or a
withdrawal takes back the endorsements of the proposal it answers) and the commitments
to check after each phase (confirmed deals, accepted promises). It opens no
socket and reads no clock: its caller hands it what players say (:meth:`Negotiation.say`)
and what the game master noticed (:meth:`Negotiation.feed`), and gets back a
:class:`~referee.effects.Step`: records to store first, then the reply, frames to deliver
to powers (DAIDE tokens) and requests for the game master (relays and bindings).
Applying the stored records again (:meth:`Negotiation.apply`) rebuilds the same state,
pending proposals included.

Requests for the game master can be lost on the way (the game server may be down), so
a negotiation made with ``await_answers`` (the negotiation server's) keeps each one
*outstanding* until its caller reports the answer (:meth:`Negotiation.answered`): every
request is stored (a ``request`` record) with the record that made it, and its answer
too (``request_done``), so that a restart knows which to send again
(:attr:`Negotiation.requests`). In a binding game a deal that commits orders is then told
``pending`` when the notary confirms it and ``confirmed`` (a promise: ``accepted``) only
once the game master holds the binding; if its phase ends first (or the game master refuses it) it is told
``unbound`` and never ``confirmed``. A relay still outstanding when its phase ends is
dropped, and its sender told ``undelivered``. Without ``await_answers`` (one process,
:mod:`referee.table`, where the game master takes a request in the same call and cannot
be away) a confirmation is told ``confirmed`` at once and requests are not kept.

>>> n = Negotiation("g1", GameSettings(protocol="reply"))
>>> _ = n.game_started("S1901M", "movement", None)
>>> out = n.say("ENG", "propose(eng, fra, Agree([eng fra], pce([eng fra])))")
>>> out.reply
{'type': 'ack', 'id': None, 'level': 1}
>>> [(send.to, send.message["type"], send.message["from"]) for send in out.sends]
[('FRA', 'message', 'ENG')]
>>> n.say("FRA", "propose(fra, eng, Agree([eng fra], pce([eng fra])))").reply["code"]
'protocol'
>>> n.say("FRA", "accept(fra, eng, Agree([eng fra], pce([eng fra])))").reply["type"]
'ack'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import engine.orders as eo
from engine.maps import Map
from engine.position import Position
from protocol.bridge import BridgeError, daide_to_l, l_to_daide
from protocol.daide.parser import DaideSyntaxError, parse_press
from protocol.l import LError, check_levels, check_ontology, parse, parse_levels, to_text
from protocol.l import ast as a
from referee import notices
from referee.binding import binding_orders
from referee.compliance import Commitment, check
from referee.effects import Bind, Effect, Record, Relay, Reply, Send, Step
from referee.notary import Accepted, Confirmed, Conflict, Notary, is_promise, participants
from referee.notices import GameNotice, Notice, PhaseNotice, PressNotice, ResultsNotice
from referee.settings import GameSettings

__all__ = ["Negotiation", "Outstanding", "notes"]

@dataclass(frozen=True, slots=True)
class Proposal:
    """A pending proposal: who made it to whom, and who of them has yet to answer."""

    seq: int
    sender: str
    receivers: frozenset[str]
    deal: a.Deal | a.Agree
    text: str


@dataclass(frozen=True, slots=True)
class Outstanding:
    """A request sent to the game master and not answered yet.

    ``phase`` is the phase it was made in (it lapses when the phase ends); ``seq`` the L
    message a relay carries (None for a ``HUH`` back to DAIDE); ``held`` the deals a binding
    holds back, as the ``confirmed`` frames to send once the game master holds it.
    """

    request: Relay | Bind
    phase: str | None
    seq: int | None = None
    held: tuple[Mapping[str, Any], ...] = ()

    def to_record(self) -> dict[str, Any]:
        r = self.request
        record: dict[str, Any] = {"kind": "request", "id": r.id, "phase": self.phase}
        if isinstance(r, Relay):
            record |= {"type": "relay", "sender": r.sender, "recipients": list(r.recipients), "press": r.press}
            record["seq"] = self.seq
        else:
            record |= {"type": "bind", "bind_phase": r.phase, "orders": {p: list(o) for p, o in r.orders.items()}}
            record["held"] = [dict(frame) for frame in self.held]
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Outstanding:
        if record["type"] == "relay":
            relay = Relay(record["id"], record["sender"], tuple(record["recipients"]), record["press"])
            return cls(relay, record["phase"], record.get("seq"))
        orders = {p: tuple(o) for p, o in record["orders"].items()}
        bind = Bind(record["id"], record["bind_phase"], orders)
        return cls(bind, record["phase"], None, tuple(record.get("held", ())))


@dataclass
class _Out:
    """The parts of a :class:`~referee.effects.Step` as an input builds them: records, the
    reply, frames for powers (DAIDE tokens) and the requests for the game master."""

    records: list[dict[str, Any]] = field(default_factory=list)
    reply: dict[str, Any] | None = None
    frames: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    relays: list[Relay] = field(default_factory=list)
    bindings: list[Bind] = field(default_factory=list)
    carried: dict[str, int] = field(default_factory=dict)  # relay id -> the seq of the L message it carries
    held: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # bind id -> confirmed frames held back

    def step(self) -> Step:
        effects: list[Effect] = [] if self.reply is None else [Reply(self.reply)]
        effects += [Send(power, frame) for power, frame in self.frames]
        effects += self.relays
        effects += self.bindings
        return Step(tuple(Record(r["kind"], r) for r in self.records), tuple(effects))


class SayError(Exception):
    """A message refused: the ``error`` frame's code, message and place."""

    def __init__(self, code: str, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.line, self.column = code, message, line, column


class Negotiation:
    """The negotiation of one game.

    ``readers`` (DAIDE tokens) are the powers with a negotiation client connected; the
    others get L as DAIDE ``FRM`` press through the game server when the game's press
    level allows it, and find the rest in their mail when they connect.
    """

    def __init__(self, game_id: str, settings: GameSettings, m: Map | None = None, await_answers: bool = False) -> None:
        self.game_id = game_id
        self.await_answers = await_answers
        #: requests sent and not answered, by id, oldest first (see :meth:`answered`)
        self.requests: dict[str, Outstanding] = {}
        self.settings = settings
        self.levels = parse_levels(settings.l_levels)
        self.map = m or settings.board
        self.position = Position.initial(self.map)
        self.phase: str | None = None
        self.kind: str | None = None
        self.deadline: float | None = None
        self.over = False
        self.eliminated: set[str] = set()
        self.seq = 0
        self.pending: dict[int, Proposal] = {}
        self.unanswered: dict[int, set[str]] = {}  # proposal seq -> receivers yet to answer
        self.accepters: dict[int, set[str]] = {}  # proposal seq -> receivers that accepted it
        self.notary = Notary(self.map)
        self.commitments: list[Commitment] = []
        self.readers: set[str] = set()
        self.untranslated = 0  # DAIDE press that L cannot say, answered with HUH

    # --- the game's events ----------------------------------------------------------------------

    def game_started(self, phase: str, kind: str, deadline: float | None) -> Step:
        """The game server says the game is at ``phase`` (its first, or where it is now)."""
        return self.phase_begins(phase, kind, deadline)

    def phase_begins(self, phase: str, kind: str, deadline: float | None) -> Step:
        """A phase begins: pending proposals expire, the notary starts afresh, every power hears."""
        out = _Out(records=[{"kind": "phase", "phase": phase, "phase_kind": kind, "deadline": deadline}])
        self._phase(phase, kind, deadline, out)
        return out.step()

    def _phase(self, phase: str, kind: str, deadline: float | None, out: _Out) -> None:
        if phase == self.phase:
            self.deadline = deadline
            return
        for proposal in sorted(self.pending.values(), key=lambda p: p.seq):
            frame = {
                "type": "expired",
                "seq": proposal.seq,
                "from": proposal.sender,
                "to": sorted(proposal.receivers),
                "text": proposal.text,
                "phase": self.phase,
            }
            for power in sorted({proposal.sender, *self.unanswered[proposal.seq]}):
                out.frames.append((power, frame))
        self.pending.clear()
        self.unanswered.clear()
        self.accepters.clear()
        self._lapse(phase, out)
        self.phase, self.kind, self.deadline = phase, kind, deadline
        self.notary.new_phase(phase)
        frame = {"type": "phase", "phase": phase, "kind": kind, "deadline": deadline, "open": self.window_open}
        out.frames.extend((power, frame) for power in self.map.powers)

    def _lapse(self, phase: str, out: _Out) -> None:
        """The requests of an earlier phase than ``phase`` come too late now: a binding can no
        longer be held (its deals are told ``unbound``), DAIDE press of a phase gone by is
        stale (its sender is told ``undelivered``). The ``phase`` record implies this, so a
        replay drops the same requests."""
        for request_id, outstanding in list(self.requests.items()):
            if outstanding.phase == phase:
                continue
            del self.requests[request_id]
            self._refused(outstanding, "its phase ended before the game server took it", out)

    def _refused(self, outstanding: Outstanding, reason: str, out: _Out) -> None:
        """``outstanding`` will never be done: say so to whom it concerns."""
        request = outstanding.request
        if isinstance(request, Bind):
            for held in outstanding.held:
                frame = {**held, "type": "unbound", "reason": f"the deal could not be made binding: {reason}"}
                out.frames.extend((p, frame) for p in held["participants"])
        elif outstanding.seq is not None:  # a HUH for a DAIDE sender is nobody's message: dropped quietly
            frame = {
                "type": "undelivered",
                "seq": outstanding.seq,
                "to": list(request.recipients),
                "phase": outstanding.phase,
                "reason": f"the message did not reach DAIDE: {reason}",
            }
            out.frames.append((request.sender, frame))

    # --- answers to requests ----------------------------------------------------------------------

    def answered(self, request_id: str, ok: bool, reason: str | None = None) -> Step:
        """The game master answered request ``request_id``: ``ok`` (it holds the binding, or
        delivered the press) or not (it refused: another phase, a game over). An answer to a
        request no longer outstanding (answered already, or lapsed with its phase) changes
        nothing. A binding holds every binding of its phase made before it (each sends every
        order commitment confirmed so far in the phase), so they are done with it."""
        if request_id not in self.requests:
            return Step()
        out = _Out(records=[{"kind": "request_done", "id": request_id, "ok": ok, "reason": reason}])
        self._done(request_id, ok, reason, out)
        return out.step()

    def _done(self, request_id: str, ok: bool, reason: str | None, out: _Out) -> None:
        answered = self.requests.get(request_id)
        if answered is None:
            return
        done = [request_id]
        if isinstance(answered.request, Bind):
            done = []
            for other_id, other in self.requests.items():
                if isinstance(other.request, Bind) and other.phase == answered.phase:
                    done.append(other_id)
                if other_id == request_id:
                    break
        for other_id in done:
            outstanding = self.requests.pop(other_id)
            if not ok:
                self._refused(outstanding, reason or "the game server refused it", out)
            elif isinstance(outstanding.request, Bind):
                for held in outstanding.held:
                    frame = dict(held)
                    out.frames.extend((p, frame) for p in frame["participants"])

    def outstanding(self) -> list[Relay | Bind]:
        """The requests to send (again): every relay, and of the bindings of a phase only the
        last, which holds the others."""
        last_bind = {o.phase: i for i, o in self.requests.items() if isinstance(o.request, Bind)}
        return [
            o.request for i, o in self.requests.items() if not isinstance(o.request, Bind) or last_bind[o.phase] == i
        ]

    def results(self, notice: ResultsNotice) -> Step:
        """A phase was adjudicated: compliance reports."""
        payload = notices.to_json(notice)
        out = _Out(records=[{"kind": "results", **{k: payload[k] for k in ("phase", "orders", "results", "before", "after")}}])
        self._results(payload, out)
        return out.step()

    def _results(self, payload: Mapping[str, Any], out: _Out) -> None:
        before = Position.from_json(payload["before"], self.map)
        orders: dict[str, list[eo.Order]] = {}
        for name, texts in payload["orders"].items():  # a notice's JSON: full names
            orders[self.map.power(name)] = [eo.parse_order(self.map, t) for t in texts]
        after_json = payload["after"]
        after = before if after_json["phase"] == "COMPLETED" else Position.from_json(after_json, self.map)
        named = {before.unit_name(u): u for u in (*before.units, *(d.unit for d in before.dislodged))}
        named.update({after.unit_name(u): u for u in after.units if after.unit_name(u) not in named})  # builds
        results = {named[name]: words for name, words in payload["results"].items() if name in named}
        reports = check(self.commitments, before, orders, results, after)
        by_deal: dict[int, list[dict[str, Any]]] = {}
        for report in reports:
            by_deal.setdefault(report.commitment, []).append(report.to_json())
        for index, found in sorted(by_deal.items()):
            commitment = self.commitments[index]
            frame = {
                "type": "compliance",
                "phase": payload["phase"],
                "deal": to_text(commitment.deal),
                "participants": sorted(commitment.participants),
                "reports": found,
            }
            if commitment.promise:
                frame["promise"] = True
            out.frames.extend((p, frame) for p in sorted(commitment.participants))
        self.commitments = [c for c in self.commitments if c.lasts_after(payload["phase"])]
        if after_json["phase"] != "COMPLETED":
            self.position = after
        for power in self.map.powers:
            if not after.units_of(power) and not after.centers_of(power):
                self.eliminated.add(power)

    def game_over(self) -> Step:
        out = _Out(records=[{"kind": "over"}])
        self.over = True
        frame = {"type": "over", "phase": self.phase}
        out.frames.extend((power, frame) for power in self.map.powers)
        return out.step()

    def feed(self, notice: Notice) -> Step:
        """What the game master noticed, fed in: the one way notices reach a negotiation."""
        if isinstance(notice, GameNotice):
            if notice.state == "playing" and notice.phase is not None and notice.phase != self.phase:
                return self.phase_begins(notice.phase, notice.kind or "", notice.deadline)
            return Step()
        if isinstance(notice, PhaseNotice):
            return self.phase_begins(notice.phase, notice.kind, notice.deadline)
        if isinstance(notice, ResultsNotice):
            return self.results(notice)
        if isinstance(notice, PressNotice):
            return self.daide_press(notice.sender, notice.recipients, notice.press)
        return self.game_over()

    # --- messages --------------------------------------------------------------------------------

    @property
    def window_open(self) -> bool:
        """Whether press is allowed now: a phase of a kind the game negotiates in, game not over."""
        return not self.over and self.phase is not None and self.kind in self.settings.press_phases

    def say(self, power: str, text: str, request_id: Any = None) -> Step:
        """``power`` (a DAIDE token, authenticated) says ``text``."""
        out = _Out()
        try:
            message, level = self._check(power, text)
        except SayError as e:
            out.reply = {"type": "error", "id": request_id, "code": e.code, "message": e.message}
            out.reply.update({"line": e.line, "column": e.column})
            return out.step()
        self.seq += 1
        out.records.append(self._message_record(power, message))
        self._accept(power, message, self.seq, out)
        out.reply = {"type": "ack", "id": request_id, "level": level}
        return self._requested(out)

    def _requested(self, out: _Out) -> Step:
        """The step of ``out``; its requests kept outstanding, and stored with it, when the
        caller answers them."""
        if self.await_answers:
            for request in (*out.relays, *out.bindings):
                held = tuple(out.held.get(request.id, ()))
                outstanding = Outstanding(request, self.phase, out.carried.get(request.id), held)
                self.requests[request.id] = outstanding
                out.records.append(outstanding.to_record())
        return out.step()

    def _message_record(self, sender: str, message: a.Message) -> dict[str, Any]:
        receivers = sorted(message.receivers)
        text = to_text(message)
        return {
            "kind": "message",
            "seq": self.seq,
            "sender": sender,
            "to": receivers,
            "text": text,
            "phase": self.phase,
        }

    def _check(self, power: str, text: str) -> tuple[a.Message, int]:
        try:
            message = parse(text)
            level = check_levels(message, self.levels, text)
            check_ontology(message, self.map, text)
        except LError as e:
            raise SayError(e.kind, e.message, e.line, e.column) from None
        except RecursionError:
            raise SayError("syntax", "the message is nested too deeply", 1, 1) from None
        if not self.window_open:
            raise SayError("closed", f"no negotiation now ({self._when()})")
        sender = message.sender
        if sender != power:
            raise SayError("identity", f"you are {power}, not {sender}: α must be the sender")
        receivers = set(message.receivers)
        if power in receivers:
            raise SayError("identity", f"{power} is both the sender and a receiver")
        if power in self.eliminated:
            raise SayError("recipient", f"{power} is out of the game")
        gone = sorted(receivers & self.eliminated)
        if gone:
            raise SayError("recipient", f"{', '.join(gone)} {'is' if len(gone) == 1 else 'are'} out of the game")
        self._check_protocol(power, message, receivers)
        self._check_bridge(message, receivers)
        return message, level

    def _when(self) -> str:
        if self.over:
            return "the game is over"
        if self.phase is None:
            return "the game has not started"
        return f"{self.phase} is a {self.kind} phase, and press is for {', '.join(self.settings.press_phases)} phases"

    def _check_protocol(self, power: str, message: a.Message, receivers: set[str]) -> None:
        protocol = self.settings.protocol
        if protocol == "bilateral" and len(receivers) != 1:
            raise SayError("protocol", "the bilateral protocol allows exactly one receiver")
        if protocol != "reply":
            return
        if isinstance(message, a.Propose):
            for other in sorted(receivers):
                if self._pending_between(power, other):
                    raise SayError(
                        "protocol",
                        f"a proposal between {power} and {other} is pending: "
                        "it must be accepted, rejected or withdrawn first",
                    )
        elif isinstance(message, a.Accept | a.Reject):
            if self._answered(power, message, receivers) is None:
                verb = type(message).__name__.lower()
                raise SayError("protocol", f"there is no pending proposal to {power} of that deal to {verb}")
        elif isinstance(message, a.Withdraw):
            if not self._withdrawn(power, receivers):
                raise SayError("protocol", f"{power} has no pending proposal to exactly {', '.join(sorted(receivers))}")

    def _pending_between(self, one: str, other: str) -> bool:
        for proposal in self.pending.values():
            waiting = self.unanswered[proposal.seq]
            if (proposal.sender == one and other in waiting) or (proposal.sender == other and one in waiting):
                return True
        return False

    def _answered(self, power: str, message: a.Accept | a.Reject, receivers: set[str]) -> Proposal | None:
        """The pending proposal to ``power`` that ``message`` answers (same deal, its sender among β)."""
        for proposal in sorted(self.pending.values(), key=lambda p: p.seq):
            if (
                proposal.deal == message.deal
                and proposal.sender in receivers
                and power in self.unanswered[proposal.seq]
            ):
                return proposal
        return None

    def _withdrawn(self, power: str, receivers: set[str]) -> list[Proposal]:
        return [p for p in self.pending.values() if p.sender == power and p.receivers == frozenset(receivers)]

    def _check_bridge(self, message: a.Message, receivers: set[str]) -> None:
        """A receiver without a negotiation client must be reachable in DAIDE, if it can get press."""
        if self.settings.press_level < 10 or receivers <= self.readers:
            return
        try:
            l_to_daide(message, self.position, self._pending_deal)
        except BridgeError as e:
            daide_only = ", ".join(sorted(receivers - self.readers))
            raise SayError(
                "recipient", f"{daide_only} read{'s' if len(receivers - self.readers) == 1 else ''} DAIDE only, and {e}"
            ) from None

    def _pending_deal(self, sender: str, receivers: Iterable[str]) -> a.Deal | a.Agree | None:
        wanted = frozenset(receivers)
        found = [p for p in self.pending.values() if p.sender == sender and p.receivers == wanted]
        return found[-1].deal if found else None

    def _accept(self, power: str, message: a.Message, seq: int, out: _Out) -> None:
        """Deliver an accepted message and apply it to the proposals and the notary."""
        receivers = message.receivers
        text = to_text(message)
        frame = {
            "type": "message",
            "from": power,
            "to": sorted(receivers),
            "text": text,
            "phase": self.phase,
            "seq": seq,
        }
        out.frames.extend((r, frame) for r in sorted(receivers))
        daide_only = receivers - self.readers
        if daide_only and self.settings.press_level >= 10:
            try:
                _sender, _recipients, press = l_to_daide(message, self.position, self._pending_deal)
                out.relays.append(Relay(f"relay:{seq}", power, tuple(sorted(daide_only)), str(press)))
                out.carried[f"relay:{seq}"] = seq
            except BridgeError:
                pass  # checked before acceptance unless the readers changed since
        if isinstance(message, a.Propose):
            self.pending[seq] = Proposal(seq, power, receivers, message.deal, text)
            self.unanswered[seq] = set(receivers)
            self.accepters[seq] = set()
            self._endorse(power, message.deal, out, proposing=True)
        elif isinstance(message, a.Accept | a.Reject):
            proposal = self._answered(power, message, set(receivers))
            accepters = set() if proposal is None else self.accepters[proposal.seq]
            if proposal is not None:
                self.unanswered[proposal.seq].discard(power)
                if isinstance(message, a.Accept):
                    accepters.add(power)
                if not self.unanswered[proposal.seq]:
                    del self.pending[proposal.seq], self.unanswered[proposal.seq], self.accepters[proposal.seq]
            if isinstance(message, a.Accept):
                if self.notary.is_agreed(message.deal):  # agreed already: one more party to check
                    self._keep(message.deal, {power})
                self._endorse(power, message.deal, out)
            else:
                # a rejection voids the proposal it answers (or, answering none, the deal its
                # receivers proposed): its endorsements are gone, only new agreement confirms it
                proposers = {proposal.sender} if proposal is not None else set(receivers)
                for other in sorted({power, *proposers, *accepters}):
                    self.notary.forget(other, message.deal)
        elif isinstance(message, a.Withdraw):
            for proposal in self._withdrawn(power, set(receivers)):
                for other in sorted({power, *self.accepters[proposal.seq]}):
                    self.notary.forget(other, proposal.deal)
                del self.pending[proposal.seq], self.unanswered[proposal.seq], self.accepters[proposal.seq]

    def _keep(self, deal: a.Deal | a.Agree, participants: Iterable[str], promise: bool = False) -> None:
        """Check ``deal`` (a confirmed deal, or an accepted ``promise``) after the phase, for its
        participants so far and these."""
        for i, kept in enumerate(self.commitments):
            if kept.deal == deal and kept.phase == self.phase:
                joined = kept.participants | frozenset(participants)
                self.commitments[i] = Commitment(deal, joined, kept.phase, kept.promise)
                return
        self.commitments.append(Commitment(deal, frozenset(participants), self.phase or "", promise))

    def _endorse(self, power: str, deal: a.Deal | a.Agree, out: _Out, proposing: bool = False) -> None:
        """``power`` proposed or accepted ``deal``: a confirmation (or a promise accepted) is told
        to its participants, and kept for the compliance check; a conflict to ``power``."""
        already = self.notary.is_agreed(deal)
        outcome = self.notary.endorse(power, deal, self.position, proposing=proposing)
        if isinstance(outcome, Confirmed | Accepted) and not already:
            told = sorted(outcome.participants)
            frame: dict[str, Any] = {
                "type": "confirmed" if isinstance(outcome, Confirmed) else "accepted",
                "deal": to_text(outcome.deal),
                "participants": told,
                "phase": self.phase,
            }
            if isinstance(outcome, Accepted):
                frame["promise"] = True
            self._keep(outcome.deal, outcome.participants, promise=isinstance(outcome, Accepted))
            binds = self.settings.binding and self.phase is not None
            if binds and any(binding_orders([outcome.deal], self.position).values()):
                binding = binding_orders(self.notary.agreed(), self.position)
                texts = {p: tuple(eo.format_order(self.map, o) for o in orders) for p, orders in binding.items() if orders}
                bind = Bind(f"bind:{self.seq}", self.phase or "", texts)
                out.bindings.append(bind)
                if self.await_answers:
                    # nothing may say "confirmed" before the game server holds the binding
                    out.held.setdefault(bind.id, []).append(frame)
                    frame = {**frame, "type": "pending"}
            out.frames.extend((p, frame) for p in told)
        elif isinstance(outcome, Conflict):
            frame = {
                "type": "conflict",
                "deal": to_text(deal),
                "reason": outcome.reason,
                "with": to_text(outcome.with_deal),
                "participants": sorted(participants(deal)),
                "phase": self.phase,
            }
            if is_promise(power, deal) and proposing:
                frame["promise"] = True
            out.frames.append((power, frame))

    # --- DAIDE press, through the bridge ----------------------------------------------------------

    def daide_press(self, sender: str, recipients: Iterable[str], press: str) -> Step:
        """Press a DAIDE client sent (the feed's ``press`` frame): L for the negotiation clients
        among its recipients, or, when L cannot say it, DAIDE's ``HUH`` back to the sender."""
        out = _Out()
        readers = sorted(set(recipients) & self.readers)
        if not readers:
            return out.step()
        try:
            value = parse_press(press)
            message = daide_to_l(sender, tuple(recipients), value, self.position)
        except (BridgeError, DaideSyntaxError) as e:
            self.untranslated += 1
            for reader in readers:
                out.relays.append(Relay(f"huh:{self.untranslated}:{reader}", reader, (sender,), f"HUH (ERR {press})"))
            out.records.append({"kind": "untranslated", "sender": sender, "press": press, "reason": str(e)})
            return self._requested(out)
        self.seq += 1
        out.records.append({**self._message_record(sender, message), "via": "daide"})
        self._accept(sender, message, self.seq, out)
        out.relays.clear()  # it came from DAIDE: its DAIDE recipients have it already
        return self._requested(out)

    # --- replay -----------------------------------------------------------------------------------

    def apply(self, record: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """Apply a stored record again; the frames it sent then (to whom, and the frame), which
        are not sent again."""
        out = _Out()
        self._apply(record, out)
        return out.frames

    def _apply(self, record: Mapping[str, Any], out: _Out) -> None:
        kind = record["kind"]
        if kind == "phase":
            self._phase(record["phase"], record["phase_kind"], record["deadline"], out)
        elif kind == "results":
            self._results(record, out)
        elif kind == "over":
            self.over = True
        elif kind == "message":
            self.seq = int(record["seq"])
            self._accept(record["sender"], parse(record["text"]), self.seq, out)
        elif kind == "untranslated":
            self.untranslated += 1  # the ids of its HUH relays count on from here
        elif kind == "request":
            self.requests[record["id"]] = Outstanding.from_record(record)
        elif kind == "request_done":
            self._done(record["id"], bool(record["ok"]), record.get("reason"), out)

    # --- helpers ----------------------------------------------------------------------------------



#: The frames a chat shows as notes, which :func:`notes` gives again.
NOTE_TYPES = frozenset(
    {"phase", "expired", "pending", "confirmed", "accepted", "unbound", "undelivered", "conflict", "compliance", "over"}
)


def notes(
    game_id: str, settings: GameSettings, records: Iterable[Mapping[str, Any]], power: str, m: Map | None = None
) -> list[dict[str, Any]]:
    """The notes ``power`` (a DAIDE token) was sent, made again from the game's stored
    ``records``: every frame of :data:`NOTE_TYPES` the negotiation sent it, oldest first,
    each with ``after``, the ``seq`` of the last message stored before it (0: none). A
    client that lost what it was shown (a page reloaded) puts them back among the messages
    of its mail: they come from the records, not from what the client remembers."""
    negotiation = Negotiation(game_id, settings, m, await_answers=True)
    found: list[dict[str, Any]] = []
    for record in records:
        try:
            frames = negotiation.apply(record)
        except Exception:  # noqa: BLE001, S112  # a record a rebuild quarantines: its notes are lost
            continue
        for to, frame in frames:
            if to == power and frame["type"] in NOTE_TYPES:
                found.append({**frame, "after": negotiation.seq})
    return found
