"""Parsing of human-written quantities (durations) with errors that name the field."""

from __future__ import annotations

import math
import re

from thermogov.interfaces import ConfigError

# ASCII digits only: ``\d`` would also take Arabic-Indic and other Unicode digits.
_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|min|h)?\s*$", re.ASCII)
MAX_DURATION_S = 366 * 86400.0  # a year and a day: longer is a typo, not a plan
# The scheduler's resolution (thermogov/scheduler.py: every stream is due at integer
# milliseconds): a shorter run has no tick and rounds to 0 s, and a sweep's time estimate
# divides by it (1e-320 s gave "inf s").
MIN_DURATION_S = 1e-3
_FACTOR = {None: 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_duration_s(text: str | float | int, field: str = "duration") -> float:
    """``600``, ``600s``, ``10m``, ``1h``, ``250ms`` -> seconds (1 ms to 366 days)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = float(text)
    else:
        m = _DURATION.match(str(text))
        if not m:
            raise ConfigError(f"{field}: cannot read {text!r} as a duration; write e.g. 600, 600s, 10m or 1h")
        value = float(m.group(1)) * _FACTOR[m.group(2)]
    if not math.isfinite(value) or value > MAX_DURATION_S:
        raise ConfigError(f"{field}: {text!r} is out of range; use a positive duration of at most 366 days")
    if value <= 0:
        raise ConfigError(f"{field}: {text!r} must be a positive duration; write e.g. 600s or 10m")
    if value < MIN_DURATION_S:
        raise ConfigError(
            f"{field}: {text!r} is shorter than 1 ms, the scheduler's step; write e.g. 600s or 10m"
        )
    return value
