"""Parsing of human-written quantities (durations) with errors that name the field."""

from __future__ import annotations

import re

from thermogov.interfaces import ConfigError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$")
_FACTOR = {None: 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_duration_s(text: str | float | int, field: str = "duration") -> float:
    """``600``, ``600s``, ``10m``, ``1h``, ``250ms`` -> seconds (> 0)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = float(text)
    else:
        m = _DURATION.match(str(text))
        if not m:
            raise ConfigError(f"{field}: cannot read {text!r} as a duration; write e.g. 600, 600s, 10m or 1h")
        value = float(m.group(1)) * _FACTOR[m.group(2)]
    if value <= 0:
        raise ConfigError(f"{field}: {text!r} must be a positive duration; write e.g. 600s or 10m")
    return value
