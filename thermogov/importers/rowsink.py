"""Rows appended straight into the columnar store by readers that drop rows only at the end.

tegrastats and jtop read every line into a per-line object (five dicts) and built a sample
tuple from the kept ones before :func:`~thermogov.importers.validate.checked` turned it into
columns: at the peak a big log was held as text, row objects and samples at once.  A
:class:`RowSink` puts each row into a :class:`~thermogov.importers.samplestore.ColumnBuilder`
as it is read, with what the end of the reader still needs per row (the power note its rails
gave, small integers such as a line's core count), so nothing per row but ~8 B a value is held.

The readers' whole-log steps run after the last line as before: the clock mended
(:mod:`~thermogov.importers.clocksteps`) and rows that run backwards dropped (:meth:`keep`, which
rebuilds the store only when a row is dropped), ties spread, the axis rebased (:meth:`finish`).
A power note of a dropped row is not said, exactly as when the samples were built from the kept
rows only.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence

from thermogov.importers.common import _NO_VALUES, board_power
from thermogov.importers.samplestore import ColumnBuilder, SampleColumns


class RowSink:
    """Rows in, columns out; per row also its board-power note and named integers."""

    def __init__(self, *ints: str) -> None:
        self._b = ColumnBuilder()
        self._store: SampleColumns | None = None
        self._note_sets: dict[frozenset[str], int] = {}
        self._note_id = array("i")
        self._ints: dict[str, list[int]] = {name: [] for name in ints}
        self._kept: list[int] | None = None

    def __len__(self) -> int:
        return len(self._b) if self._kept is None else len(self._kept)

    def append(
        self,
        temps: Mapping[str, float],
        freqs: Mapping[str, int],
        loads: Mapping[str, float],
        rails: Mapping[str, float],
        power_w: float | None = None,
        **ints: int,
    ) -> None:
        """One row as :func:`~thermogov.importers.common.rail_sample` would make it (the board
        power the logged total, else the rails'), its time set later."""
        said: set[str] = set()
        power = power_w if power_w is not None else board_power(rails, said)
        self._b.append(0.0, (temps, freqs, loads, rails or _NO_VALUES, _NO_VALUES), power)
        key = frozenset(said)
        nid = self._note_sets.setdefault(key, len(self._note_sets))
        self._note_id.append(nid)
        for name, values in self._ints.items():
            values.append(ints[name])

    def keep(self, indices: Sequence[int]) -> None:
        """Only these rows (in order) go on; the others are gone from the store and the notes."""
        self._kept = list(indices)

    def ints(self, name: str) -> list[int]:
        """``name``'s value of every row kept."""
        values = self._ints[name]
        return values if self._kept is None else [values[i] for i in self._kept]

    def notes(self) -> set[str]:
        """The board-power notes of the rows kept."""
        ids = set(self._note_id) if self._kept is None else {self._note_id[i] for i in self._kept}
        return {note for key, nid in self._note_sets.items() if nid in ids for note in key}

    def finish(self, times: Sequence[float]) -> SampleColumns:
        """The kept rows on their final axis (one time per kept row)."""
        store = self._b.finish()
        if self._kept is None or len(self._kept) == len(store):
            return store.with_times(times)
        b = ColumnBuilder()
        for i in self._kept:
            b.append_sample(store[i])
        return b.finish(times)


__all__ = ["RowSink"]
