"""Every numeric command-line option is finite and bounded, whichever command declares it.

click's ``float`` (and ``FloatRange``) accept ``nan`` and ``inf``, and ``nan`` passes every
range check written as ``lo <= v <= hi`` negated, so a single ``--ambient nan`` could slip into
a model or a limit.  Rather than trusting each command to remember, the CLI group wraps the
type of every float and int option once, when it hands out the command: finite, at most
``FLOAT_LIMIT`` in size (each command then checks its own physical range; quantities named
alike everywhere, such as ``--ambient``, are ranged here), and seeds in the 32 bits every
random generator here takes.
"""

from __future__ import annotations

import math
from typing import Any

import click
from click.types import FloatParamType, IntParamType

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
        v = self.inner.convert(value, param, ctx)
        if isinstance(v, float) and not math.isfinite(v):
            self.fail(f"{value!r} is not a finite number; give a plain number", param, ctx)
        if isinstance(v, int | float) and not self.low <= v <= self.high:
            self.fail(
                f"{value!r} is out of range; use a value in {_fmt(self.low)}..{_fmt(self.high)}", param, ctx
            )
        return v

    def get_metavar(self, *args: Any, **kwargs: Any) -> str | None:
        return self.inner.get_metavar(*args, **kwargs)

    def to_info_dict(self) -> dict[str, Any]:
        return self.inner.to_info_dict()


def _fmt(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


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
