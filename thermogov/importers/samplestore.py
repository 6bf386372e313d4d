"""A log's samples held as typed columns, not one object per row.

A 200 MB table log is ~7 million rows; held as :class:`ImportedSample` objects (five dicts and
their boxed numbers each, ~780 B a row) it needed ~11 GB (docs/importing.md, "Reviewed, session
22").  Here every quantity and key (``temp``/``cpu``, ``freq``/``gpu`` ...) is one numpy array
that grows in chunks, 8 B a value, and each row keeps one small integer: its *shape*, the keys it
has in the order it had them and whether each value was an int or a float.  So a row is rebuilt
exactly as the reader made it (same dict order, same types, ``None`` power where there was none):
``tuple(store)`` equals the tuple of samples the readers used to return, which is what
``bench/import_memory.py --identity`` checks.  Consumers that need a whole column
(:attr:`SampleColumns.times`, :meth:`SampleColumns.keys`, :meth:`SampleColumns.column`) read the
arrays without building a sample per row.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np

from thermogov.importers.common import _NO_VALUES, ImportedSample

# the sample's dict fields, in ImportedSample's order
QUANTITIES: tuple[str, ...] = ("temps_c", "freqs_hz", "loads", "rails_w", "volts_v")
_FIRST_CAPACITY = 1024
_INT64 = (-(1 << 63), (1 << 63) - 1)

# A row's shape: per quantity, the (key, kind) pairs in the row's dict order, then the board power's
# kind (None when the row had none).  kind: "f" a float (float64 column), "i" an int that fits int64,
# "o" anything else (an object column, so nothing a reader made is ever coerced).
_Shape = tuple[tuple[tuple[tuple[str, str], ...], ...], str | None]
_POWER = len(QUANTITIES)  # the power's column index beside the quantities'


def _kind(v: object) -> str:
    if type(v) is float:
        return "f"
    if type(v) is int and _INT64[0] <= v <= _INT64[1]:
        return "i"
    return "o"


_DTYPES = {"f": np.float64, "i": np.int64, "o": object}


class _Column:
    """One growable array; rows that lack the key hold an unused value."""

    __slots__ = ("data",)

    def __init__(self, kind: str, capacity: int) -> None:
        self.data = np.zeros(capacity, dtype=_DTYPES[kind])

    def grow(self, capacity: int) -> None:
        # in place: no view of ``data`` is ever handed out before finish(), and a big block's
        # realloc is a remap of its pages, not a copy beside the old array (zeros past the end)
        self.data.resize(capacity, refcheck=False)


def _grown(cap: int) -> int:
    """The next capacity: a quarter more (the arrays grow in place, so a small step costs
    little, and at most a fifth of a column's capacity is ever unused)."""
    return cap + max(cap // 4, _FIRST_CAPACITY)


class ColumnBuilder:
    """Rows appended one by one into columns grown in place by a quarter, then :meth:`finish`
    (which hands out the rows' part of each, no copy)."""

    def __init__(self, *, timed: bool = True) -> None:
        # timed=False: the times given to append() are not kept (8 B a row less); finish() then
        # needs the axis (a reader whose axis is final only after the last row)
        self._timed = timed
        self._reset()

    def _reset(self) -> None:
        self._n = 0
        self._cap = _FIRST_CAPACITY
        self._t = _TimesBuilder()
        self._shape_id = np.zeros(self._cap, dtype=np.int32)
        self._cols: dict[tuple[int, str, str], _Column] = {}
        self._shapes: dict[_Shape, int] = {}

    def __len__(self) -> int:
        return self._n

    def _put(self, q: int, key: str, v: object, i: int) -> tuple[str, str]:
        kind = _kind(v)
        col = self._cols.get((q, key, kind))
        if col is None:
            col = self._cols[(q, key, kind)] = _Column(kind, self._cap)
        col.data[i] = v
        return key, kind

    def _room(self) -> None:
        self._cap = _grown(self._cap)
        for c in self._cols.values():
            c.grow(self._cap)
        self._shape_id.resize(self._cap, refcheck=False)

    def append(
        self,
        t_s: float,
        maps: Sequence[Mapping[str, Any]],
        power_w: float | None,
    ) -> None:
        """One row: its time, its five dicts in :data:`QUANTITIES` order, its board power."""
        if self._n == self._cap:
            self._room()
        i = self._n
        shape = tuple(tuple(self._put(q, key, v, i) for key, v in m.items()) for q, m in enumerate(maps))
        power = None if power_w is None else self._put(_POWER, "", power_w, i)[1]
        full: _Shape = (shape, power)
        sid = self._shapes.get(full)
        if sid is None:
            sid = self._shapes[full] = len(self._shapes)
        self._shape_id[i] = sid
        if self._timed:
            self._t.append(t_s)
        self._n += 1

    def append_sample(self, s: ImportedSample) -> None:
        self.append(s.t_s, (s.temps_c, s.freqs_hz, s.loads, s.rails_w, s.volts_v), s.power_w)

    def finish(self, times: Iterable[float] | None = None) -> SampleColumns:
        """The store; ``times`` (one per row, any iterable: read once) replaces the times
        appended (a reader's axis is only final once every row is in: ties spread, rebased to 0)."""
        n = self._n
        if times is None and not self._timed:
            raise ValueError("an untimed builder's finish() needs the times")
        t = self._t.done() if times is None else _Times.of(times)
        if len(t.values) != n:
            raise ValueError(f"{len(t.values)} times for {n} rows")
        # the rows' part of each array, not a copy: the unused tail (under a fifth of the
        # capacity) stays with it (a shrinking realloc would not copy either, but tracemalloc
        # counts an in-place realloc as a second block, and the tests measure with it)
        cols = {k: c.data[:n] for k, c in self._cols.items()}
        shape_id = self._shape_id[:n]
        shapes = [s for s, _ in sorted(self._shapes.items(), key=lambda kv: kv[1])]
        self._reset()  # the arrays are the store's now: an empty builder again
        return SampleColumns(t, shape_id, cols, shapes)


class _TimesBuilder:
    """Times appended one by one, 8 B each (``array('d')``), plus the exact object of any that
    was not a float, as :meth:`_Times.of` keeps them."""

    __slots__ = ("odd", "values")

    def __init__(self) -> None:
        self.values = array("d")
        self.odd: dict[int, object] = {}

    def append(self, t: object) -> None:
        if type(t) is float:
            self.values.append(t)
            return
        self.odd[len(self.values)] = t
        try:
            self.values.append(float(t))  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            self.values.append(math.nan)

    def done(self) -> _Times:
        return _Times(np.frombuffer(self.values, dtype=np.float64) if self.values else np.zeros(0), self.odd)


class _Times:
    """A time axis: float64 values, plus the exact object of the few rows whose time was not a
    float (an int from a whole-second axis, a NaN-free oddity) so they read back as they were."""

    __slots__ = ("odd", "values")

    def __init__(self, values: np.ndarray, odd: dict[int, object]) -> None:
        self.values = values
        self.odd = odd

    @classmethod
    def of(cls, times: Iterable[object]) -> _Times:
        b = _TimesBuilder()
        for t in times:
            b.append(t)
        return b.done()

    def at(self, i: int) -> Any:
        return self.odd[i] if i in self.odd else float(self.values[i])


def _value(col: np.ndarray, kind: str, i: int) -> Any:
    if kind == "f":
        return float(col[i])
    if kind == "i":
        return int(col[i])
    return col[i]


class SampleColumns(Sequence[ImportedSample]):
    """An immutable sequence of samples held as columns (see the module doc)."""

    __slots__ = ("_cols", "_plans", "_shape_id", "_shapes", "_t")

    def __init__(
        self,
        t: _Times,
        shape_id: np.ndarray,
        cols: dict[tuple[int, str, str], np.ndarray],
        shapes: list[_Shape],
    ) -> None:
        self._t = t
        self._shape_id = shape_id
        self._cols = cols
        self._shapes = shapes
        # per shape: per quantity (key, column, kind), then the power's (column, kind) or None
        self._plans = [
            (
                [[(key, cols[(q, key, kind)], kind) for key, kind in pairs] for q, pairs in enumerate(maps)],
                None if power is None else (cols[(_POWER, "", power)], power),
            )
            for maps, power in shapes
        ]

    @classmethod
    def of(cls, samples: Iterable[ImportedSample]) -> SampleColumns:
        """The store of ``samples`` (a reader that still builds sample objects)."""
        b = ColumnBuilder()
        for s in samples:
            b.append_sample(s)
        return b.finish()

    def __len__(self) -> int:
        return len(self._t.values)

    def _row(self, i: int) -> ImportedSample:
        plans, power = self._plans[int(self._shape_id[i])]
        temps, freqs, loads, rails, volts = (
            {k: _value(col, kind, i) for k, col, kind in plan} for plan in plans
        )
        return ImportedSample(
            self._t.at(i),
            temps,
            freqs,
            loads,
            None if power is None else _value(power[0], power[1], i),
            rails or _NO_VALUES,
            volts or _NO_VALUES,
        )

    @overload
    def __getitem__(self, i: int) -> ImportedSample: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[ImportedSample, ...]: ...
    def __getitem__(self, i: int | slice) -> ImportedSample | tuple[ImportedSample, ...]:
        if isinstance(i, slice):
            return tuple(self._row(k) for k in range(*i.indices(len(self))))
        n = len(self)
        k = i + n if i < 0 else i
        if not 0 <= k < n:
            raise IndexError("sample index out of range")
        return self._row(k)

    def __iter__(self) -> Iterator[ImportedSample]:
        return (self._row(k) for k in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (SampleColumns, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SampleColumns({len(self)} rows)"

    @property
    def times(self) -> np.ndarray:
        """Every row's ``t_s`` as float64 (a read-only view)."""
        v = self._t.values.view()
        v.flags.writeable = False
        return v

    def keys(self, quantity: str) -> list[str]:
        """The keys of ``quantity`` (a name in :data:`QUANTITIES`) in order of first appearance,
        as a pass over the rows' dicts would find them (shapes are numbered as first met)."""
        q = QUANTITIES.index(quantity)
        seen: dict[str, None] = {}
        for maps, _ in self._shapes:
            seen.update(dict.fromkeys(key for key, _ in maps[q]))
        return list(seen)

    def column(self, quantity: str, key: str) -> np.ndarray:
        """``quantity``'s ``key`` per row as floats, NaN where the row lacks it."""
        q = QUANTITIES.index(quantity)
        out = np.full(len(self), math.nan)
        for sid, (maps, _) in enumerate(self._shapes):
            for k, kind in maps[q]:
                if k == key:
                    rows = self._shape_id == sid
                    out[rows] = self._cols[(q, k, kind)][rows].astype(np.float64)
        return out

    def with_times(self, times: Iterable[float]) -> SampleColumns:
        """The same rows on another time axis (the values shared, not copied)."""
        t = _Times.of(times)
        if len(t.values) != len(self):
            raise ValueError(f"{len(t.values)} times for {len(self)} rows")
        return SampleColumns(t, self._shape_id, self._cols, self._shapes)


def columnar(samples: Sequence[ImportedSample]) -> SampleColumns:
    """``samples`` as a store (itself when it already is one)."""
    return samples if isinstance(samples, SampleColumns) else SampleColumns.of(samples)


__all__ = ["QUANTITIES", "ColumnBuilder", "SampleColumns", "columnar"]
