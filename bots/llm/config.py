"""What a model seat is played with: its profile, the run's options, the ``--llm-config`` file.

The file is TOML; every table is optional::

    [defaults]                  # every model seat, before its profile
    fallback = "dumbbot"        # the bot whose orders replace what the model does not give
    press = "l"                 # l | english | none
    timeout = 60                # seconds a call may take (in process; over the network the deadline also bounds it)

    [budget]                    # the whole run, over every seat and game
    dollars = 5.0

    [profiles.cheap]            # llm:cheap
    model = "gpt-4o-mini"
    base_url = "https://api.openai.com/v1"
    temperature = 0.7
    seed = 1
    api_key_env = "OPENAI_API_KEY"
    [profiles.cheap.budget]     # each seat (one power in one game)
    calls = 400
    dollars = 0.50

    [prices."gpt-4o-mini"]      # dollars per million tokens
    input = 0.15
    output = 0.60

pydantic checks the file at the edge (an unknown key is an error, named); inside, a
:class:`Profile` is a frozen dataclass, so it pickles to worker processes with the game.

>>> config = LLMConfig.from_toml('[profiles.p]\\nmodel = "m"\\nbase_url = "http://127.0.0.1:9/v1"\\n[prices.m]\\ninput = 1\\noutput = 2')
>>> p = LLMOptions(config=config).profile_for("llm:p", LLMSeat(None, None, "p"))
>>> p.model, p.base_url, p.price, p.fallback
('m', 'http://127.0.0.1:9/v1', Price(input=1.0, output=2.0), 'dumbbot')
>>> LLMConfig.from_toml('[profiles.p]\\nmodle = "m"')
Traceback (most recent call last):
...
bots.llm.config.ConfigError: --llm-config: profiles.p.modle: Extra inputs are not permitted
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pydantic

from bots.registry import BotSeat, LLMSeat, UnknownBot, checked_url, parse_seat

__all__ = ["Budget", "ConfigError", "LLMConfig", "LLMOptions", "Price", "Profile", "api_key"]

#: Where the API key is looked for, in this order, when a profile names no variable of its own.
KEY_VARIABLES = ("DETENTE_LLM_API_KEY", "OPENAI_API_KEY")
PRESS_MODES = ("l", "english", "none")
STRUCTURED = ("auto", "json_schema", "json_object", "none")
MAX_CONFIG_BYTES = 1 << 20


class ConfigError(ValueError):
    """The ``--llm-config`` file, or a seat's profile, is unusable: one line saying why."""


@dataclass(frozen=True, slots=True)
class Price:
    """Dollars per million input and output tokens."""

    input: float
    output: float

    def dollars(self, input_tokens: int, output_tokens: int) -> float:
        """
        >>> Price(0.15, 0.60).dollars(1_000_000, 500_000)
        0.45
        """
        return round((input_tokens * self.input + output_tokens * self.output) / 1e6, 9)


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on calls, input and output tokens, dollars and seconds of waiting (None: no limit)."""

    calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    dollars: float | None = None
    seconds: float | None = None

    def exceeded(self, calls: int, input_tokens: int, output_tokens: int, dollars: float, seconds: float) -> str | None:
        """The first limit reached by these totals (its name), or None.

        >>> Budget(calls=3).exceeded(3, 0, 0, 0.0, 0.0)
        'calls'
        >>> Budget(dollars=1.0).exceeded(3, 0, 0, 0.5, 0.0) is None
        True
        """
        for name, used, limit in (
            ("calls", calls, self.calls),
            ("input_tokens", input_tokens, self.input_tokens),
            ("output_tokens", output_tokens, self.output_tokens),
            ("dollars", dollars, self.dollars),
            ("seconds", seconds, self.seconds),
        ):
            if limit is not None and used >= limit:
                return name
        return None

    @property
    def empty(self) -> bool:
        return all(value is None for value in dataclasses.astuple(self))


@dataclass(frozen=True, slots=True)
class Profile:
    """Everything one model seat is played with (the defaults, then the profile, then the options)."""

    name: str  # the seat spec, as the records name the seat
    model: str
    base_url: str
    api_key_env: str | None = None
    press: str = "l"
    fallback: str = "dumbbot"
    temperature: float = 0.2
    seed: int | None = None
    max_tokens: int = 1024
    timeout: float = 60.0
    retries: int = 3
    concurrency: int = 4
    structured: str = "auto"
    max_response_bytes: int = 256 * 1024
    press_calls_per_phase: int = 4
    budget: Budget = field(default_factory=Budget)
    price: Price | None = None

    def manifest(self) -> dict[str, Any]:
        """What fixes this seat's play, for the run's manifest (no key, no budget spent)."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "press": self.press,
            "fallback": self.fallback,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "timeout": self.timeout,
            "structured": self.structured,
            "press_calls_per_phase": self.press_calls_per_phase,
        }


def api_key(profile: Profile) -> str | None:
    """The API key of ``profile`` from the environment (never from a file or a spec)."""
    names = (profile.api_key_env,) if profile.api_key_env else KEY_VARIABLES
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


# --- the file, checked at the edge ------------------------------------------------------------


class _Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)


class _BudgetModel(_Strict):
    calls: pydantic.NonNegativeInt | None = None
    input_tokens: pydantic.NonNegativeInt | None = None
    output_tokens: pydantic.NonNegativeInt | None = None
    dollars: pydantic.NonNegativeFloat | None = None
    seconds: pydantic.NonNegativeFloat | None = None


class _PriceModel(_Strict):
    input: pydantic.NonNegativeFloat
    output: pydantic.NonNegativeFloat


class _SettingsModel(_Strict):
    model: str | None = pydantic.Field(default=None, min_length=1, max_length=200)
    base_url: str | None = pydantic.Field(default=None, max_length=300)
    api_key_env: str | None = pydantic.Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
    press: Literal["l", "english", "none"] | None = None
    fallback: str | None = None
    temperature: float | None = pydantic.Field(default=None, ge=0, le=2)
    seed: int | None = pydantic.Field(default=None, ge=0, lt=2**63)
    max_tokens: int | None = pydantic.Field(default=None, ge=16, le=32768)
    timeout: float | None = pydantic.Field(default=None, gt=0, le=3600)
    retries: int | None = pydantic.Field(default=None, ge=0, le=10)
    concurrency: int | None = pydantic.Field(default=None, ge=1, le=256)
    structured: Literal["auto", "json_schema", "json_object", "none"] | None = None
    max_response_bytes: int | None = pydantic.Field(default=None, ge=1024, le=16 << 20)
    press_calls_per_phase: int | None = pydantic.Field(default=None, ge=0, le=100)
    budget: _BudgetModel | None = None


class _FileModel(_Strict):
    defaults: _SettingsModel = _SettingsModel()
    budget: _BudgetModel = _BudgetModel()
    profiles: dict[str, _SettingsModel] = {}
    prices: dict[str, _PriceModel] = {}


def _budget(model: _BudgetModel | None) -> Budget:
    return Budget() if model is None else Budget(**model.model_dump())


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """The ``--llm-config`` file, checked: defaults, the run's budget, profiles, prices."""

    defaults: dict[str, Any] = field(default_factory=dict)
    budget: Budget = field(default_factory=Budget)
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    prices: dict[str, Price] = field(default_factory=dict)

    @classmethod
    def from_toml(cls, text: str) -> LLMConfig:
        try:
            data = tomllib.loads(text)
            checked = _FileModel.model_validate(data)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"--llm-config: not TOML: {error}") from None
        except pydantic.ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ConfigError(f"--llm-config: {where}: {first['msg']}") from None
        except RecursionError:
            raise ConfigError("--llm-config: beyond what is read: nested too deeply") from None
        except ValueError:  # an integer of more digits than Python converts
            raise ConfigError("--llm-config: beyond what is read: a number with too many digits") from None
        for name in checked.profiles:
            if not name or len(name) > 64 or not all(c.isalnum() or c in "_.-" for c in name):
                raise ConfigError(f"--llm-config: profile name {name[:64]!r}: letters, digits, _ . - only")

        def settings(model: _SettingsModel) -> dict[str, Any]:
            values = model.model_dump(exclude_none=True, exclude={"budget"})
            if model.budget is not None:
                values["budget"] = _budget(model.budget)
            return values

        return cls(
            settings(checked.defaults),
            _budget(checked.budget),
            {name: settings(p) for name, p in checked.profiles.items()},
            {name: Price(p.input, p.output) for name, p in checked.prices.items()},
        )

    @classmethod
    def load(cls, path: Path) -> LLMConfig:
        try:
            with open(path, "rb") as file:
                data = file.read(MAX_CONFIG_BYTES + 1)
        except OSError as error:
            raise ConfigError(f"--llm-config: cannot read {path}: {error.strerror}") from None
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"--llm-config: {path} is over {MAX_CONFIG_BYTES >> 20} MiB")
        try:
            return cls.from_toml(data.decode("utf-8"))
        except UnicodeDecodeError:
            raise ConfigError(f"--llm-config: {path} is not UTF-8") from None


@dataclass(frozen=True, slots=True)
class LLMOptions:
    """The ``--llm-*`` options of a command: the config, the cache, offline replay, the time
    limit per call, and ``log_dir``, where the call log and the usage of each seat go."""

    config: LLMConfig = field(default_factory=LLMConfig)
    cache: Path | None = None
    offline: bool = False
    timeout: float | None = None
    log_dir: Path | None = None

    def profile_for(self, name: str, seat: LLMSeat) -> Profile:
        """The profile of seat spec ``name`` (parsed as ``seat``); :class:`ConfigError` if unusable."""
        values: dict[str, Any] = dict(self.config.defaults)
        if seat.profile is not None:
            if seat.profile not in self.config.profiles:
                known = ", ".join(sorted(self.config.profiles)) or "none (give --llm-config)"
                raise ConfigError(f"seat {name!r}: no profile {seat.profile!r}; the profiles are {known}")
            values.update(self.config.profiles[seat.profile])
        else:
            values.update(model=seat.model, base_url=seat.base_url)
        if not values.get("model") or not values.get("base_url"):
            raise ConfigError(f"seat {name!r}: its profile needs both model and base_url")
        try:
            values["base_url"] = checked_url(str(values["base_url"]), f"seat {name!r}")
        except UnknownBot as error:
            raise ConfigError(str(error)) from None
        fallback = values.get("fallback", "dumbbot")
        try:
            if not isinstance(parse_seat(fallback), BotSeat):
                raise ConfigError(f"seat {name!r}: the fallback is a bot name, not {fallback!r}")
        except UnknownBot as error:
            raise ConfigError(f"seat {name!r}: fallback: {error}") from None
        values.setdefault("price", self.config.prices.get(str(values["model"])))
        profile = Profile(name=name, **values)
        if self.timeout is not None:
            profile = replace(profile, timeout=self.timeout)
        if profile.budget.dollars is not None and profile.price is None:
            raise ConfigError(f"seat {name!r}: a dollar budget needs a price for {profile.model!r} ([prices])")
        if not math.isfinite(profile.timeout) or profile.timeout <= 0:
            raise ConfigError(f"seat {name!r}: the time limit per call must be positive")
        return profile

    def manifest(self) -> dict[str, Any]:
        """The options that fix a run (for its manifest): none of them varies between runs."""
        return {
            "cache": str(self.cache) if self.cache is not None else None,
            "offline": self.offline,
            "timeout": self.timeout,
            "budget": {k: v for k, v in dataclasses.asdict(self.config.budget).items() if v is not None},
        }
