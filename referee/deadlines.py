"""Deadlines of a game: seconds per kind of phase, and the DAIDE numbers that tell them.

Pure arithmetic on ``now`` values (seconds, any epoch): no clock is read here, so the game
master stays sans-I/O and tests pass time as plain numbers.

>>> d = Deadlines(movement=60, retreat=30, adjustment=None)
>>> d.seconds_for("M"), d.seconds_for("A")
(60.0, None)
>>> [str(o) for o in d.variant_options()]
['MTL 60', 'RTL 30']
>>> remaining_seconds(100.0, 130.2)
31
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from protocol.daide.messages import VariantOption

#: The largest number a DAIDE integer token holds (14 bits, signed).
__all__ = ["DAIDE_MAX_INT", "Deadlines", "daide_int", "remaining_seconds"]

DAIDE_MAX_INT = 8191


@dataclass(frozen=True, slots=True)
class Deadlines:
    """Seconds allowed for each kind of phase; None means no time limit for that kind."""

    movement: float | None = None
    retreat: float | None = None
    adjustment: float | None = None

    @classmethod
    def parse(cls, text: str) -> Deadlines:
        """The command-line form: ``"60,30,30"`` (movement, retreat, adjustment) or ``"none"``.

        >>> Deadlines.parse("60,30,30")
        Deadlines(movement=60.0, retreat=30.0, adjustment=30.0)
        >>> Deadlines.parse("none")
        Deadlines(movement=None, retreat=None, adjustment=None)
        """
        cleaned = text.strip().lower()
        if cleaned == "none":
            return cls()
        parts = [p.strip() for p in cleaned.split(",")]
        if len(parts) != 3:
            raise ValueError(
                f"deadlines are three numbers of seconds (movement,retreat,adjustment) such as 60,30,30, or none; not {text!r}"
            )
        try:
            movement, retreat, adjustment = (float(p) for p in parts)
        except ValueError:
            raise ValueError(f"deadlines must be numbers of seconds, such as 60,30,30, or none; not {text!r}") from None
        return cls(movement, retreat, adjustment)

    def text(self) -> str:
        """The command-line form, which :meth:`parse` reads back.

        >>> Deadlines(300, 60, 60).text(), Deadlines(0.5, 1, 1).text(), Deadlines().text()
        ('300,60,60', '0.5,1,1', 'none')
        """
        if self.none:
            return "none"
        seconds = (self.movement, self.retreat, self.adjustment)
        if None in seconds:  # the command line gives all three limits or none
            raise ValueError(f"{self} has no command-line form: some phases have a limit, others not")
        # whole seconds without ".0", the others exactly (repr reads back as the same float)
        return ",".join(str(int(s)) if float(s).is_integer() else repr(float(s)) for s in seconds)  # type: ignore[arg-type]

    @property
    def none(self) -> bool:
        """No phase has a time limit."""
        return self.movement is None and self.retreat is None and self.adjustment is None

    def to_json(self) -> dict[str, float] | None:
        """The API's form: the three limits, or null for a game without deadlines."""
        if self.none:
            return None
        return {"movement": self.movement, "retreat": self.retreat, "adjustment": self.adjustment}  # type: ignore[dict-item]

    @classmethod
    def from_json(cls, data: object) -> Deadlines:
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError(f"deadlines are an object of seconds per kind of phase, or null; not {data!r}")  # noqa: TRY004 - bad input, as a bad number is
        return cls(data.get("movement"), data.get("retreat"), data.get("adjustment"))

    def seconds_for(self, phase_kind: str) -> float | None:
        """The time limit of a phase kind (``"M"``, ``"R"`` or ``"A"``)."""
        seconds = {"M": self.movement, "R": self.retreat, "A": self.adjustment}[phase_kind]
        return None if seconds is None else float(seconds)

    def deadline(self, phase_kind: str, start: float) -> float | None:
        """When a phase of ``phase_kind`` that began at ``start`` must end, if ever."""
        seconds = self.seconds_for(phase_kind)
        return None if seconds is None else start + seconds

    @property
    def longest(self) -> float | None:
        limits = [s for s in (self.movement, self.retreat, self.adjustment) if s is not None]
        return max(limits) if limits else None

    def variant_options(self) -> tuple[VariantOption, ...]:
        """``MTL``, ``RTL`` and ``BTL`` for ``HLO``, in the order the syntax document lists them."""
        options = []
        for name, seconds in (("MTL", self.movement), ("RTL", self.retreat), ("BTL", self.adjustment)):
            if seconds is not None:
                options.append(VariantOption(name, daide_int(seconds)))
        return tuple(options)


def daide_int(value: float) -> int:
    """A non-negative number rounded up and clipped to what a DAIDE integer can carry."""
    return max(0, min(DAIDE_MAX_INT, math.ceil(value)))


def remaining_seconds(now: float, deadline: float) -> int:
    """Whole seconds left until ``deadline`` (rounded up, so 0 means it has passed), for ``TME``."""
    return daide_int(deadline - now)
