"""A headerless table's temperature or clock column whose unit changes midway (session 31w).

A logger edited in place writes m°C rows after °C rows (or kHz after MHz) with no header to
say so.  For a table with a header, ``segments._part_units`` cuts the column where its magnitude
jumps and stays, and reads each piece in its own unit (session 30w); a headerless table's
columns are named only later, by their values (``table.identify``), so the cut is made here,
once the column is known to hold a temperature or a clock.  The unit of the whole column was
decided on its median before: half a log stored as 0.045 °C, or 1.5 MHz, without a word.

Each piece's unit is told by its own values (``quantities.detect_unit``); the piece with the
most values governs, the others' cells are rewritten in its unit and said with their rows.  The
rows are rebuilt only when a column has such a cut (a plain table pays one pass per column).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from thermogov.importers.cells import Cells
from thermogov.importers.quantities import Unit, detect_unit
from thermogov.importers.segments import column_cuts

_QUANTITIES = ("temp", "freq")  # units 1000 apart, and no reading jumps 10^2.5 (segments)


def rescale_pieces(
    rows: Cells,
    columns: Sequence[tuple[int, str, str]],
    numbers: Sequence[np.ndarray],
    decimal_comma: bool,
    notes: list[str],
) -> Cells:
    """``rows`` with each (index, role, label) column's pieces in another unit rewritten in the
    governing one, and a note per piece; ``rows`` itself when no column changes unit.
    ``numbers`` holds each column's values (NaN where none), in row order."""
    factors: dict[int, list[tuple[int, int, float]]] = {}
    for (index, role, label), vals in zip(columns, numbers, strict=True):
        if role not in _QUANTITIES:
            continue
        cuts = column_cuts(vals.tolist())
        if not cuts:
            continue
        pieces: list[tuple[int, int, Unit, int]] = []
        for a, b in itertools.pairwise([0, *cuts, len(vals)]):
            piece = vals[a:b]
            piece = piece[np.isfinite(piece)]
            if len(piece) and (unit := detect_unit(role, piece.tolist())) is not None:
                pieces.append((a, b, unit, len(piece)))
        if len({u.name for _, _, u, _ in pieces}) < 2:
            continue
        ga, gb, gov, _ = max(pieces, key=lambda p: (p[3], -p[0]))
        for a, b, unit, _ in pieces:
            if unit.name == gov.name:
                continue
            factors.setdefault(index, []).append((a, b, unit.factor / gov.factor))
            med = float(np.median(vals[a:b][np.isfinite(vals[a:b])]))
            notes.append(
                f"rows {a + 1}-{b}: {label} in {unit.name} by its values (median {med:g}) where rows "
                f"{ga + 1}-{gb} are in {gov.name} (the unit changes in a table without a header): "
                "read in its own unit"
            )
    if not factors:
        return rows
    out = Cells(rows.width)
    for k, row in enumerate(rows):
        for index, spans in factors.items():
            for a, b, factor in spans:
                if a <= k < b and np.isfinite(v := numbers[_pos(columns, index)][k]):
                    text = format(float(v) * factor, ".12g")
                    row[index] = text.replace(".", ",") if decimal_comma else text
        out.append(row)
    return out


def _pos(columns: Sequence[tuple[int, str, str]], index: int) -> int:
    return next(k for k, (i, _, _) in enumerate(columns) if i == index)
