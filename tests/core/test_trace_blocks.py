"""Trace and sample rows formatted a block at a time read exactly as rows formatted one by one.

The writers keep a regular row's numbers as cells and format a whole block with one ``%``
(``thermogov/trace.py``); an irregular row (a missing value, a failed read) is formatted on its
own and must keep its place between the blocks.  ``format_tick`` is the one-row reference.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from thermogov.governor import SampleRecord, TickRecord
from thermogov.trace import SampleWriter, TraceSchema, TraceWriter, format_tick, load_samples

SCHEMA = TraceSchema(("cpu", "gpu"), ("cpu", "gpu"))


def _tick(k: int) -> TickRecord:
    """Row ``k``: every fifth misses a reading, every seventh power, every third the inference
    count (a run with nothing counted); caps and events vary."""
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
        None if k % 3 == 0 else k * 3,
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


def _samples() -> list[SampleRecord]:
    """Reads of two sensors; every 13th fails, and one failure opens the run of records."""
    recs = [SampleRecord(0.0, "gpu", None, False)]
    recs += [
        SampleRecord(
            k * 0.05, "cpu" if k % 2 else "gpu", None if k % 13 == 0 else 50.0 + k * 0.0071, k % 13 != 0
        )
        for k in range(1, 7000)
    ]
    return recs


def test_samples_handed_over_in_blocks_write_the_same_bytes(tmp_path: Path) -> None:
    # The simulator hands its reads over in blocks (SampleWriter.samples); the file must be the
    # one a sample-by-sample writer makes, whatever the block boundaries (one ends on a failed
    # read, one starts on one, one is a single read).
    recs = _samples()
    one = SampleWriter(tmp_path / "one.csv")
    for rec in recs:
        one.sample(rec)
    one.close()
    block = SampleWriter(tmp_path / "block.csv")
    cuts = [0, 1, 13, 14, 27, 28, 29, 700, 5000, len(recs)]
    for a, b in itertools.pairwise(cuts):
        block.samples(recs[a:b])
    block.close()
    text = (tmp_path / "one.csv").read_text()
    assert text.count("\n") == len(recs) + 1
    assert (tmp_path / "block.csv").read_text() == text


def test_recorder_takes_the_same_maxima_from_a_block(tmp_path: Path) -> None:
    from thermogov.config import Config
    from thermogov.runs import RunRecorder

    cfg = Config()
    board = cfg.load_board()
    recs = [
        SampleRecord(k * 0.05, "cpu" if k % 2 else "gpu", 40.0 + (k % 17) * 0.5, True) for k in range(1, 400)
    ]
    recs.append(SampleRecord(20.0, "cpu", 99.0, False))  # a failed read's value never counts
    by_one = RunRecorder.create(tmp_path / "a", cfg, board, "sim", "one")
    for rec in recs:
        by_one.on_sample(rec)
    by_block = RunRecorder.create(tmp_path / "b", cfg, board, "sim", "block")
    by_block.on_samples(recs)
    assert by_block._max_sensor == by_one._max_sensor == {"cpu": 48.0, "gpu": 48.0}


def test_trace_rows_handed_over_in_blocks_write_the_same_bytes(tmp_path: Path) -> None:
    recs = [_tick(k) for k in range(1, 3000)]
    w = TraceWriter(tmp_path / "trace.csv", SCHEMA)
    cuts = [0, 1, 4, 5, 6, 35, 36, 700, len(recs)]  # row 5 misses a reading, 35 misses power
    for a, b in itertools.pairwise(cuts):
        w.ticks(recs[a:b])
    w.close()
    header = ",".join(SCHEMA.columns) + "\n"
    assert (tmp_path / "trace.csv").read_text() == header + "".join(format_tick(r) for r in recs)


def test_recorder_totals_from_blocks_match_row_by_row(tmp_path: Path) -> None:
    from thermogov.config import Config
    from thermogov.runs import RunRecorder

    cfg = Config()
    board = cfg.load_board()
    specs = cfg.sensor_specs(board)
    domains = [d.name for d in board.domains]
    recs = []
    for k in range(1, 2500):
        r = _tick(k)
        fused = 84.0 + (k % 50) * 0.05 if k % 97 else None  # crosses the trip, some unknown
        readings = tuple(60.0 + i + k * 0.001 for i in range(len(specs)))
        event = "board_throttle" if k % 400 == 0 else ("board_throttle_end" if k % 400 == 7 else r.event)
        caps, freqs = r.caps_hz[: len(domains)], r.freqs_hz[: len(domains)]
        recs.append(r._replace(fused_c=fused, readings_c=readings, caps_hz=caps, freqs_hz=freqs, event=event))
    by_one = RunRecorder.create(tmp_path / "a", cfg, board, "sim", "same")
    for rec in recs:
        by_one.on_tick(rec)
    by_block = RunRecorder.create(tmp_path / "b", cfg, board, "sim", "same")
    for a, b in itertools.pairwise([0, 1, 2, 33, 97, 98, 1000, len(recs)]):
        by_block.on_ticks(recs[a:b])
    one, block = by_one.finish(), by_block.finish()
    assert one["cap_changes"] > 0 and one["time_above_trip_s"] > 0 and one["energy_j"] > 0
    assert block == one
    assert (by_block.run_dir / "trace.csv").read_bytes() == (by_one.run_dir / "trace.csv").read_bytes()
