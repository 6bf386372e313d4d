"""Every numeric command-line option is finite and bounded, whichever command declares it.

click's ``float`` (and ``FloatRange``) accept ``nan`` and ``inf``, and ``nan`` passes every
range check written as ``lo <= v <= hi`` negated, so a single ``--ambient nan`` could slip into
a model or a limit.  Rather than trusting each command to remember, the CLI group wraps the
type of every float and int option once, when it hands out the command: finite, at most
``FLOAT_LIMIT`` in size (each command then checks its own physical range; quantities named
alike everywhere, such as ``--ambient``, are ranged here), and seeds in the 32 bits every
random generator here takes.

An option that declares its own range (``click.FloatRange``/``IntRange``) gets that range in
both messages, ``nan`` included: "give 0 < speed <= 100" tells the user what to type, where
"not a finite number" alone would send them to ``--help``.
"""

from __future__ import annotations

import math
from typing import Any

import click
from click.types import FloatParamType, IntParamType

from thermogov.units import blank

FLOAT_LIMIT = 1e9
# Options whose name means the same physical quantity in every command that has them: the
# simulator's thermal model and the board profiles are specified for ambient -40..85 °C and
# silicon up to 150 °C.
NAMED_RANGES: dict[str, tuple[float, float]] = {
    "ambient": (-40.0, 85.0),
    "initial_temp": (-40.0, 150.0),
}
INT_LIMIT = 2**31 - 1
SEED_MAX = 2**32 - 1


class Bounded(click.ParamType):
    """The wrapped type's conversion, then the finite/bounded check with the option named."""

    def __init__(self, inner: click.ParamType, low: float, high: float) -> None:
        self.inner = inner
        self.low = low
        self.high = high
        self.name = inner.name

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        declared = _declared_range(self.inner, param)
        if isinstance(value, str) and blank(value):  # one word, as every duration (session 29i)
            kind = (
                "a whole number, e.g. 5"
                if isinstance(self.inner, IntParamType)
                else "a number, e.g. 5 or 2.5"
            )
            self.fail(f"{value!r} holds a space or a control character; give {kind} as one word", param, ctx)
        if declared is None:
            v = self.inner.convert(value, param, ctx)
        else:  # the plain number first: the range check below names the option's own range
            base = click.INT if isinstance(self.inner, IntParamType) else click.FLOAT
            v = base.convert(value, param, ctx)
        if isinstance(v, float) and not math.isfinite(v):
            ranged = (self.low, self.high) != (-FLOAT_LIMIT, FLOAT_LIMIT)
            give = declared or (
                f"a value in {_fmt(self.low)}..{_fmt(self.high)}" if ranged else "a plain number"
            )
            self.fail(f"{value!r} is out of range (not a finite number); give {give}", param, ctx)
        if declared is not None and not _in_declared(self.inner, v):
            self.fail(f"{value!r} is out of range; give {declared}", param, ctx)
        if isinstance(v, int | float) and not self.low <= v <= self.high:
            # An option open on one side (``0 < window``) still has the generic bound: said with
            # its own range, where "use a value in -1e+09..1e+09" offered negative windows (32h).
            edge = f"at most {_fmt(self.high)}" if v > self.high else f"at least {_fmt(self.low)}"
            give = (
                f"give {declared}, {edge}"
                if declared
                else f"use a value in {_fmt(self.low)}..{_fmt(self.high)}"
            )
            self.fail(f"{value!r} is out of range; {give}", param, ctx)
        # -0 is 0 (``--ambient=-0`` was recorded as -0.0 in the run's config.toml and summary, 32h)
        return v + 0.0 if isinstance(v, float) else v

    def get_metavar(self, *args: Any, **kwargs: Any) -> str | None:
        return self.inner.get_metavar(*args, **kwargs)

    def to_info_dict(self) -> Any:  # click >= 8.2 types it as a TypedDict that 8.1 does not have
        return self.inner.to_info_dict()


def _fmt(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def _declared_range(t: click.ParamType, param: click.Parameter | None) -> str | None:
    """``"0 < speed <= 100"`` for an option typed ``FloatRange(0, 100, min_open=True)``; else None."""
    if not isinstance(t, click.FloatRange | click.IntRange) or t.clamp or (t.min is None and t.max is None):
        return None
    name = (param.name if param is not None else None) or "x"
    low = "" if t.min is None else f"{_fmt(t.min)} {'<' if t.min_open else '<='} "
    high = "" if t.max is None else f" {'<' if t.max_open else '<='} {_fmt(t.max)}"
    return f"{low}{name}{high}"


def _in_declared(t: click.ParamType, v: float) -> bool:
    if not isinstance(t, click.FloatRange | click.IntRange):
        return True
    above = t.min is None or (v > t.min if t.min_open else v >= t.min)
    below = t.max is None or (v < t.max if t.max_open else v <= t.max)
    return above and below


def bounds_for(param: click.Parameter) -> tuple[float, float] | None:
    t = param.type
    if isinstance(t, Bounded) or param.nargs != 1:
        return None
    if isinstance(t, FloatParamType):
        return NAMED_RANGES.get(param.name or "", (-FLOAT_LIMIT, FLOAT_LIMIT))
    if isinstance(t, IntParamType):
        return (0, SEED_MAX) if "seed" in (param.name or "") else (-INT_LIMIT, INT_LIMIT)
    return None


def harden(cmd: click.Command) -> click.Command:
    """Wrap the numeric options of ``cmd`` (idempotent)."""
    for param in cmd.params:
        b = bounds_for(param)
        if b is not None:
            param.type = Bounded(param.type, *b)
    return cmd
