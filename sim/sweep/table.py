"""The results table: one row per point, in the sweep file's order, whatever order they finished in.

Columns: ``point_id``, the varied parameters as written in the sweep file, ``status``
(``ok``/``error``), the summary figures, ``error`` and ``run_dir`` (relative to the sweep's
output folder, so two runs of a sweep in different folders or on different executors give
byte-identical tables).  Written as CSV always and as Parquet when ``pyarrow`` is importable;
both through a temporary file and ``os.replace`` so an interrupted write never leaves half a table.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from thermogov.exitstatus import writing
from thermogov.sim.sweep.figures import COLUMNS
from thermogov.sim.sweep.point import PointResult
from thermogov.sim.sweep.spec import Sweep

CSV_FILE = "results.csv"
PARQUET_FILE = "results.parquet"
RUNS_DIR = "runs"


def columns(sweep: Sweep) -> list[str]:
    return ["point_id", *(k.name for k in sweep.keys), "status", *COLUMNS, "error", "run_dir"]


def rows(sweep: Sweep, results: dict[str, PointResult]) -> list[dict[str, Any]]:
    """A row for every point that has a result (all of them after a complete sweep)."""
    out = []
    for p in sweep.points:
        r = results.get(p.point_id)
        if r is None:
            continue
        row: dict[str, Any] = {"point_id": p.point_id}
        row.update({k.name: p.params.get(k.name) for k in sweep.keys})
        row["status"] = "ok" if r.ok else "error"
        row.update({c: r.figures.get(c) for c in COLUMNS})
        row["error"] = r.error
        row["run_dir"] = f"{RUNS_DIR}/{p.point_id}"
        out.append(row)
    return out


def best(sweep: Sweep, table: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The ok row with the best objective among those meeting every ``require``; ties: first."""
    chosen: dict[str, Any] | None = None
    for row in table:
        v = row.get(sweep.objective)
        if row["status"] != "ok" or v is None or not all(c.holds(row) for c in sweep.require):
            continue
        if chosen is None or (
            v > chosen[sweep.objective] if sweep.direction == "max" else v < chosen[sweep.objective]
        ):
            chosen = row
    return chosen


def write(sweep: Sweep, table: Sequence[dict[str, Any]], out_dir: Path) -> list[Path]:
    """The CSV (and Parquet when possible); returns the paths written."""
    cols = columns(sweep)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for row in table:
        w.writerow(["" if row.get(c) is None else row.get(c) for c in cols])
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / CSV_FILE
    _replace_bytes(path, buf.getvalue().encode("utf-8"))
    paths = [path]
    if parquet_available():
        paths.append(_write_parquet(cols, table, out_dir / PARQUET_FILE))
    return paths


def parquet_available() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def _write_parquet(cols: list[str], table: Sequence[dict[str, Any]], path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = {c: [row.get(c) for row in table] for c in cols}
    arrays = {}
    for c, vals in data.items():
        try:
            arrays[c] = pa.array(vals)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed types in one column (a `choice`)
            arrays[c] = pa.array([None if v is None else str(v) for v in vals])
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with writing(path, partial=tmp):
        pq.write_table(pa.table(arrays), tmp)
    os.replace(tmp, path)
    return path


def _replace_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with writing(path, partial=tmp), tmp.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
