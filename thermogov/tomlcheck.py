"""Strict reading of TOML tables: every value typed and ranged, every unknown key rejected.

Each accessor marks its key as consumed; ``done()`` then rejects whatever is left, so a typo
such as ``trip_C`` is an error naming the key instead of a silently ignored setting.  Messages
are one line: ``where.key: problem; fix``.
"""

from __future__ import annotations

import builtins
import difflib
import math
import re
from collections.abc import Iterator
from typing import Any

from thermogov.interfaces import ConfigError

_MISSING = object()

# What a name in a user's file may be: it becomes part of a run folder's name (the board), of a
# CSV column (sensors, domains) and of calibrate's output file, so a '/', a '..', a comma or an
# empty string would escape --out or break the trace.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")


def check_matches(value: str, where: str, pattern: re.Pattern[str], why: str) -> str:
    """``value`` if ``pattern`` matches all of it; otherwise one line: ``where``, the value, ``why``."""
    if not pattern.fullmatch(value):
        shown = value if len(value) <= 80 else value[:80] + "..."  # a 100 000-character label: one short line
        raise ConfigError(f"{where}: {shown!r} {why}")
    return value


def check_name(value: str, where: str) -> str:
    """``value`` if it is a usable name; otherwise a one-line ConfigError naming ``where``."""
    return check_matches(
        value,
        where,
        _NAME,
        "is not a usable name; use 1-64 letters, digits, '.', '_', '+' or '-', starting with a letter or digit",
    )


def _range_hint(minimum: float | None, maximum: float | None) -> str:
    if minimum is not None and maximum is not None:
        return f"use a value in {minimum:g}..{maximum:g}"
    if minimum is not None:
        return f"use a value >= {minimum:g}"
    if maximum is not None:
        return f"use a value <= {maximum:g}"
    return "use a plain number"


# The longest key an error line quotes whole: every real key is a few words, and a line of a
# 100 000-character key (a generated file gone wrong) buried the fix (session 32h).
MAX_SHOWN_KEY = 80


def shown_key(key: str) -> str:
    """``key`` as an error line names it: its first characters and its length when it is long."""
    if len(key) <= MAX_SHOWN_KEY:
        return key
    return f"{key[:40]}... ({len(key)} characters)"


class Table:
    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a table")
        self._data: dict[str, Any] = data
        self.where = where
        self._used: set[str] = set()

    def has(self, key: str) -> bool:
        return key in self._data

    def keys(self) -> builtins.list[str]:
        return list(self._data)

    def _get(self, key: str, default: Any) -> Any:
        self._used.add(key)
        if key in self._data:
            return self._data[key]
        if default is _MISSING:
            raise ConfigError(f"{self._path(key)}: missing; {self._missing_fix(key)}")
        return default

    def _path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def _missing_fix(self, key: str) -> str:
        """A required key that is absent is most often misspelt: point at the spelling present."""
        spare = [k for k in self._data if k not in self._used]
        hint = difflib.get_close_matches(key, spare, n=1)
        return f"found {hint[0]!r}: a typo? rename it to {key!r}" if hint else "add it"

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        return self._get(key, default)

    def number(
        self,
        key: str,
        default: Any = _MISSING,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
        exclusive_min: bool = False,
    ) -> float:
        v = self._get(key, default)
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ConfigError(f"{self.where}.{key}: expected a number, got {v!r}")
        v = float(v) + 0.0  # -0.0 is 0: a run's config.toml recorded `ambient_c = -0.0` (32h)
        if not math.isfinite(v):
            # nan compares false with every bound, so without this a `trip_c = nan` passes
            # every range check and disables the failsafe.
            raise ConfigError(
                f"{self.where}.{key}: {v!r} is not a finite number; {_range_hint(minimum, maximum)}"
            )
        if minimum is not None and (v <= minimum if exclusive_min else v < minimum):
            op = ">" if exclusive_min else ">="
            raise ConfigError(f"{self.where}.{key}: {v:g} is out of range; use a value {op} {minimum:g}")
        if maximum is not None and v > maximum:
            raise ConfigError(f"{self.where}.{key}: {v:g} is out of range; use a value <= {maximum:g}")
        return v

    def integer(
        self, key: str, default: Any = _MISSING, *, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        v = self._get(key, default)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"{self.where}.{key}: expected a whole number, got {v!r}")
        if minimum is not None and v < minimum:
            raise ConfigError(f"{self.where}.{key}: {v} is out of range; use a value >= {minimum}")
        if maximum is not None and v > maximum:
            raise ConfigError(f"{self.where}.{key}: {v} is out of range; use a value <= {maximum}")
        return v

    def string(self, key: str, default: Any = _MISSING) -> str:
        v = self._get(key, default)
        if not isinstance(v, str):
            raise ConfigError(f"{self.where}.{key}: expected a string, got {v!r}")
        return v

    def name(self, key: str, default: Any = _MISSING) -> str:
        """A string that names something (see :func:`check_name`)."""
        return check_name(self.string(key, default), self._path(key))

    def boolean(self, key: str, default: Any = _MISSING) -> bool:
        v = self._get(key, default)
        if not isinstance(v, bool):
            raise ConfigError(f"{self.where}.{key}: expected true or false, got {v!r}")
        return v

    def choice(self, key: str, options: tuple[str, ...], default: Any = _MISSING) -> str:
        v = self.string(key, default)
        if v not in options:
            raise ConfigError(f"{self.where}.{key}: {v!r} is not one of {', '.join(options)}")
        return v

    def list(self, key: str, default: Any = _MISSING) -> builtins.list[Any]:
        v = self._get(key, default)
        if not isinstance(v, list):
            raise ConfigError(f"{self.where}.{key}: expected a list, got {v!r}")
        return v

    def numbers(self, key: str, default: Any = _MISSING) -> builtins.list[float]:
        vs = self.list(key, default)
        for v in vs:
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise ConfigError(f"{self.where}.{key}: expected a list of numbers, found {v!r}")
            if not math.isfinite(v):
                raise ConfigError(f"{self.where}.{key}: {v!r} is not a finite number; use plain numbers")
        return [float(v) for v in vs]

    def strings(self, key: str, default: Any = _MISSING) -> builtins.list[str]:
        vs = self.list(key, default)
        for v in vs:
            if not isinstance(v, str):
                raise ConfigError(f"{self.where}.{key}: expected a list of strings, found {v!r}")
        return list(vs)

    def mapping(self, key: str, default: Any = _MISSING) -> dict[str, Any]:
        v = self._get(key, default)
        if not isinstance(v, dict):
            raise ConfigError(f"{self.where}.{key}: expected a table, got {v!r}")
        return v

    def table(self, key: str, default: Any = _MISSING) -> Table:
        return Table(self._get(key, default), f"{self.where}.{key}" if self.where else key)

    def tables(self, key: str) -> Iterator[tuple[str, Table]]:
        """Sub-tables of ``[key.NAME]`` in file order."""
        m = self.mapping(key, {})
        prefix = f"{self.where}.{key}" if self.where else key
        for name, sub in m.items():
            yield name, Table(sub, f"{prefix}.{name}")

    def table_list(self, key: str) -> builtins.list[Table]:
        """An array of tables ``[[key]]``."""
        vs = self.list(key, [])
        prefix = f"{self.where}.{key}" if self.where else key
        return [Table(v, f"{prefix}[{i}]") for i, v in enumerate(vs)]

    def done(self) -> None:
        extra = [k for k in self._data if k not in self._used]
        if extra:
            key = shown_key(extra[0])
            hint = difflib.get_close_matches(extra[0], list(self._used), n=1)
            fix = (
                f"did you mean {hint[0]!r}?"
                if hint
                else f"remove it (known: {', '.join(sorted(self._used))})"
            )
            raise ConfigError(
                f"{self.where}.{key}: unknown key; {fix}" if self.where else f"{key}: unknown key; {fix}"
            )
