"""Parsing of human-written quantities (durations) with errors that name the field."""

from __future__ import annotations

import math
import re
import unicodedata

from thermogov.interfaces import ConfigError

# Read after :func:`ascii_digits` and :func:`blank`: one word, its digits any Unicode decimal
# digit (as every numeric option reads them, 27h), its unit attached (session 29i).
_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s|m|min|h)?$", re.ASCII)
DURATION_FORMS = (
    "write digits and a unit as one word, e.g. 600, 600s, 10m, 1h or 250ms (units ms, s, m, min, h)"
)


def blank(text: str) -> bool:
    """True when ``text`` holds a space, a line break or another control/format character.

    The one rule of every number and time option (session 29i): its text is one word.
    ``sim --duration "10 m"`` was 10 minutes and ``"5\n"`` 5 s while ``--ambient " 5"`` was a
    number by Python's ``float`` only: a value pasted with a break or split by a space is a
    typo to show, not to guess."""
    return any(c.isspace() or unicodedata.category(c)[0] == "C" for c in text)


def ascii_digits(text: str) -> str:
    """Every Unicode decimal digit (Arabic-Indic, fullwidth, ...) as its ASCII digit: what
    Python's ``int`` and ``float`` read for the numeric options (27h), for durations too."""
    return "".join(
        str(unicodedata.decimal(c)) if not c.isascii() and unicodedata.decimal(c, None) is not None else c
        for c in text
    )


MAX_DURATION_S = 366 * 86400.0  # a year and a day: longer is a typo, not a plan
# The scheduler's resolution (thermogov/scheduler.py: every stream is due at integer
# milliseconds): a shorter run has no tick and rounds to 0 s, and a sweep's time estimate
# divides by it (1e-320 s gave "inf s").
MIN_DURATION_S = 1e-3
_FACTOR = {None: 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_duration_or_zero_s(text: str, field: str) -> float:
    """A duration that may be none (``ab --cool-down 0``): zero in any unit and any decimal
    digits (``0``, ``0s``, ``0ms``, ``0.0m``, ``٠``) is 0.0; anything else is
    :func:`parse_duration_s`'s.  ``0`` and ``0s`` were none while ``0ms`` was refused as "must
    be a positive duration" (session 31h)."""
    m = None if blank(text) else _DURATION.match(ascii_digits(text))
    if m is not None and float(m.group(1)) == 0.0:
        return 0.0
    return parse_duration_s(text, field)


def parse_duration_s(text: str | float | int, field: str = "duration") -> float:
    """``600``, ``600s``, ``10m``, ``1h``, ``250ms`` -> seconds (1 ms to 366 days)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = float(text)
    else:
        raw = str(text)
        if blank(raw):
            raise ConfigError(f"{field}: {text!r} holds a space or a control character; {DURATION_FORMS}")
        m = _DURATION.match(ascii_digits(raw))
        if not m:
            raise ConfigError(f"{field}: cannot read {text!r} as a duration; {DURATION_FORMS}")
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
