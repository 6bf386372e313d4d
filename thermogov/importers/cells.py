"""A table's split cells held as joined text and offsets, not one list of strings per row.

The table reader splits every line into cells and reads them twice: column-wise to identify the
columns and their units (every row, so a unit is decided on the whole log, not a prefix), then
row-wise to build the samples.  Held as ``list[list[str]]`` a 30-byte CSV row of five cells cost
~350 B (a list and five string objects): most of a big table's peak once its samples went into
columns (docs/importing.md, "Session 23").  Here rows of one width are packed in chunks: the
chunk's cells concatenated into one string and their boundaries in one numpy array (4 B a cell
while a chunk's text is under 4 GiB), ~1 B a character plus 4 B a cell.  A row or a column is
cut out of the chunk when asked for, so readers see the same strings as before.
"""

from __future__ import annotations

import itertools
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import overload

import numpy as np

_CHUNK_ROWS = 4096
_NO_BOUNDS = np.zeros(1, dtype=np.uint32)


class Cells(Sequence[list[str]]):
    """Rows of ``width`` cells each; appended row by row, read as lists (a new list each time)."""

    def __init__(self, width: int) -> None:
        self.width = width
        self._texts: list[str] = []
        self._offsets: list[np.ndarray] = []  # per sealed chunk: width * rows + 1 boundaries
        self._pending: list[str] = []  # the open chunk's cells, row after row
        self._n = 0
        self._reversed = False
        self._freed = False

    @classmethod
    def of(cls, rows: Iterable[list[str]], width: int) -> Cells:
        out = cls(width)
        for r in rows:
            out.append(r)
        return out

    def append(self, row: list[str]) -> None:
        """One row of exactly ``width`` cells (the caller pads a short row)."""
        if len(row) != self.width:
            raise ValueError(f"a row of {len(row)} cells in a table of {self.width}")
        if self._reversed:
            raise ValueError("rows appended after reverse()")
        self._pending.extend(row)
        self._n += 1
        if len(self._pending) >= _CHUNK_ROWS * self.width:
            self._seal()

    def _seal(self) -> None:
        cells = self._pending
        lengths = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
        bounds = np.zeros(len(cells) + 1, dtype=np.int64)
        np.cumsum(lengths, out=bounds[1:])
        self._offsets.append(bounds.astype(np.uint32) if bounds[-1] < 1 << 32 else bounds)
        self._texts.append("".join(cells))
        self._pending = []

    def drain(self, release: Callable[[], bool]) -> Iterator[list[str]]:
        """The rows in order, as iteration gives them; each packed chunk, once its last row is
        read, is freed when ``release()`` then says the table is no longer needed (the table
        reader, once it keeps a row: session 27m).  A table that freed a chunk cannot be read
        again (ValueError)."""
        if self._reversed:
            yield from self
            return
        w = self.width
        for i in range(len(self._texts)):
            text, b = self._texts[i], self._offsets[i].tolist()
            for start in range(0, len(b) - 1, w):
                yield [text[b[m] : b[m + 1]] for m in range(start, start + w)]
            if release():
                self._texts[i], self._offsets[i] = "", _NO_BOUNDS
                self._freed = True
        cells = self._pending
        for start in range(0, len(cells), w):
            yield cells[start : start + w]

    def _check(self) -> None:
        if self._freed:
            raise ValueError("the rows were freed by drain()")

    def reverse(self) -> None:
        """Newest-first logs are read oldest first: indices and iteration run the other way."""
        self._reversed = not self._reversed

    def __len__(self) -> int:
        return self._n

    def _chunks(self) -> Iterator[tuple[str, list[int]]]:
        """(text, boundaries) per chunk in file order, the open chunk last."""
        self._check()
        for text, bounds in zip(self._texts, self._offsets, strict=True):
            yield text, bounds.tolist()
        if self._pending:
            yield "".join(self._pending), [0, *np.cumsum([len(c) for c in self._pending]).tolist()]

    def _row(self, k: int) -> list[str]:
        self._check()
        w = self.width
        chunk, j = divmod(k, _CHUNK_ROWS)
        if chunk == len(self._texts):
            return self._pending[j * w : (j + 1) * w]
        text, b = self._texts[chunk], self._offsets[chunk][j * w : (j + 1) * w + 1].tolist()
        return [text[b[m] : b[m + 1]] for m in range(w)]

    @overload
    def __getitem__(self, i: int) -> list[str]: ...
    @overload
    def __getitem__(self, i: slice) -> list[list[str]]: ...
    def __getitem__(self, i: int | slice) -> list[str] | list[list[str]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._n))]
        k = i + self._n if i < 0 else i
        if not 0 <= k < self._n:
            raise IndexError("row index out of range")
        return self._row(self._n - 1 - k if self._reversed else k)

    def _forward(self) -> Iterator[list[str]]:
        w = self.width
        for text, b in self._chunks():
            for start in range(0, len(b) - 1, w):
                yield [text[b[m] : b[m + 1]] for m in range(start, start + w)]

    def __iter__(self) -> Iterator[list[str]]:
        if self._reversed:
            return (self._row(k) for k in range(self._n - 1, -1, -1))
        return self._forward()

    def column(self, i: int) -> list[str]:
        """Column ``i``'s cells in row order (the same strings the rows hold)."""
        w = self.width
        out: list[str] = []
        for text, b in self._chunks():
            out.extend(text[b[m] : b[m + 1]] for m in range(i, len(b) - 1, w))
        if self._reversed:
            out.reverse()
        return out


class Lines(Sequence[str]):
    """A text's lines packed as a one-column :class:`Cells`, read back as strings: the table
    reader scans a big log's lines several times (sniffing the delimiter, then two passes of
    splitting), and a list of them cost ~90 B a 30-byte line."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._cells = Cells.of(([ln] for ln in lines), 1)

    def __len__(self) -> int:
        return len(self._cells)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [r[0] for r in self._cells[i]]
        return self._cells[i][0]

    def __iter__(self) -> Iterator[str]:
        return (r[0] for r in self._cells)


class TextLines(Sequence[str]):
    """The lines of a text that ``keep`` accepts, held as their (start, end) offsets into the
    text, which the reader holds anyway while it sniffs: 8 B a line (16 past 4 GiB) where
    :class:`Lines` copied every line's characters (~1 B a character and 4 B a line; session
    27m).  Read back as the same strings ``text.split("\\n")`` gives."""

    def __init__(self, text: str, keep: Callable[[str], bool]) -> None:
        self._text = text
        bounds = array("I" if len(text) < 1 << 32 else "Q")
        start = 0
        for ln in split_lines(text):
            if keep(ln):
                bounds.append(start)
                bounds.append(start + len(ln))
            start += len(ln) + 1
        self._bounds = bounds

    def __len__(self) -> int:
        return len(self._bounds) // 2

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        k = i + n if i < 0 else i
        if not 0 <= k < n:
            raise IndexError("line index out of range")
        return self._text[self._bounds[2 * k] : self._bounds[2 * k + 1]]

    def __iter__(self) -> Iterator[str]:
        text, b = self._text, self._bounds
        return (text[b[k] : b[k + 1]] for k in range(0, len(b), 2))


def split_lines(text: str) -> Iterator[str]:
    """``text.split("\\n")`` one line at a time, without the list of every line."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


# the line boundaries of str.splitlines()
_BREAK_RE = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def lines_of(text: str) -> Iterator[str]:
    """``text.splitlines()`` one line at a time, without the list of every line."""
    start = 0
    for m in _BREAK_RE.finditer(text):
        yield text[start : m.start()]
        start = m.end()
    if start < len(text):
        yield text[start:]


def head_lines(text: str, n: int) -> list[str]:
    """``text.splitlines()[:n]`` without splitting the rest of the text (session 26m: the format
    tests read a log's head; each split every line of it, ~80 B a line, to keep the first few)."""
    return list(itertools.islice(lines_of(text), n))


def iter_column(rows: Sequence[list[str]], i: int) -> Iterator[str]:
    """:func:`column`'s cells one at a time (a packed table's forward column is cut chunk by
    chunk, no list of every cell held)."""
    if isinstance(rows, Cells) and not rows._reversed:
        w = rows.width
        for text, b in rows._chunks():
            yield from (text[b[m] : b[m + 1]] for m in range(i, len(b) - 1, w))
        return
    yield from column(rows, i)


def column(rows: Sequence[list[str]], i: int) -> list[str]:
    """Column ``i`` of ``rows`` (a :class:`Cells` cut column-wise, any other sequence row by row)."""
    return rows.column(i) if isinstance(rows, Cells) else [r[i] for r in rows]


__all__ = ["Cells", "Lines", "TextLines", "column", "head_lines", "iter_column", "lines_of", "split_lines"]
