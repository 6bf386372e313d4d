"""Trace and sample rows formatted a block at a time read exactly as rows formatted one by one.

The writers keep a regular row's numbers as cells and format a whole block with one ``%``
(``thermogov/trace.py``); an irregular row (a missing value, a failed read) is formatted on its
own and must keep its place between the blocks.  ``format_tick`` is the one-row reference.
"""

from __future__ import annotations

from pathlib import Path

from thermogov.governor import SampleRecord, TickRecord
from thermogov.trace import SampleWriter, TraceSchema, TraceWriter, format_tick, load_samples

SCHEMA = TraceSchema(("cpu", "gpu"), ("cpu", "gpu"))


def _tick(k: int) -> TickRecord:
    """Row ``k``: every fifth misses a reading, every seventh power; caps and events vary."""
    t = k * 0.1
    gpu = None if k % 5 == 0 else 60.0 + k * 0.0137
    power = None if k % 7 == 0 else 7.5 + (k % 3) * 0.123456
    caps = (1_728_000_000, 1_020_000_000) if k % 4 else (729_600_000, 624_750_000)
    freqs = (caps[0], None if k % 11 == 0 else caps[1])
    event = "step" if k % 9 == 0 else ""
    return TickRecord(
        t,
        70.0 + k * 0.001,
        (70.5 - k * 0.002, gpu),
        "cpu+gpu",
        f"L{k % 3}",
        caps,
        freqs,
        power,
        k * 3,
        event,
        "full",
        0,
    )


def test_trace_rows_match_format_tick_byte_for_byte_in_order(tmp_path: Path) -> None:
    recs = [_tick(k) for k in range(1, 9000)]
    w = TraceWriter(tmp_path / "trace.csv", SCHEMA)
    for rec in recs:
        w.tick(rec)
    w.close()
    header = ",".join(SCHEMA.columns) + "\n"
    assert (tmp_path / "trace.csv").read_text() == header + "".join(format_tick(r) for r in recs)


def test_sample_rows_keep_their_order_around_failed_reads(tmp_path: Path) -> None:
    recs = [
        SampleRecord(
            k * 0.05, "cpu" if k % 2 else "gpu", None if k % 13 == 0 else 50.0 + k * 0.0071, k % 13 != 0
        )
        for k in range(1, 7000)
    ]
    w = SampleWriter(tmp_path / "samples.csv")
    for rec in recs:
        w.sample(rec)
    w.close()
    cols = load_samples(tmp_path)
    assert cols["sensor"] == [r.sensor for r in recs]
    assert cols["ok"] == [1 if r.ok else 0 for r in recs]
    assert cols["value_c"] == [None if r.value_c is None else float(f"{r.value_c:.3f}") for r in recs]
    assert cols["t_s"] == [float(f"{r.t_s:.3f}") for r in recs]
