"""Mitigation episodes and throttle tallies, streamed tick by tick, on traces with known answers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from thermogov.config import Config
from thermogov.episodes import EpisodeTracker
from thermogov.governor import TickRecord
from thermogov.runs import RunRecorder
from thermogov.throttle import ThrottleTally, parse_tags
from thermogov.trace import load_trace


def _feed(tr: EpisodeTracker, rows: list[tuple[float, float | None]]) -> dict[str, object]:
    for t, c in rows:
        tr.observe(t, c)
    return tr.finish(rows[-1][0])


def test_known_episodes_with_start_duration_and_time_weighted_average() -> None:
    rows = [(0.0, 80.0), (1.0, 86.0), (2.0, 90.0), (4.0, 84.0), (5.0, 88.0), (6.0, 88.0), (7.0, 70.0)]
    out = _feed(EpisodeTracker(85.0), rows)
    assert out["mitigation_episodes"] == [
        # 86 held for 1 s, 90 held for 2 s: (86 + 2 * 90) / 3
        {
            "start_s": 1.0,
            "duration_s": 3.0,
            "min_c": 86.0,
            "avg_c": round(266 / 3, 3),
            "max_c": 90.0,
            "open": False,
        },
        {"start_s": 5.0, "duration_s": 2.0, "min_c": 88.0, "avg_c": 88.0, "max_c": 88.0, "open": False},
    ]
    assert out["mitigation_episodes_total"] == 2 and out["mitigation_time_s"] == 5.0


def test_back_to_back_episodes_are_two_and_an_open_one_is_closed_at_the_end() -> None:
    rows = [(0.0, 85.0), (0.1, 84.9), (0.2, 85.0), (0.3, 86.0)]
    out = _feed(EpisodeTracker(85.0), rows)
    eps = out["mitigation_episodes"]
    assert [(e["start_s"], e["duration_s"], e["open"]) for e in eps] == [(0.0, 0.1, False), (0.2, 0.1, True)]
    assert eps[1]["max_c"] == 86.0 and eps[1]["avg_c"] == 85.0  # the last tick has no time after it


def test_hysteresis_joins_a_dip_like_the_kernel_and_unknown_temperature_neither_opens_nor_closes() -> None:
    rows = [
        (0.0, 86.0),
        (1.0, 84.0),
        (2.0, None),
        (3.0, 86.0),
        (4.0, 82.0),
        (5.0, None),
        (6.0, 90.0),
        (7.0, 80.0),
    ]
    out = _feed(EpisodeTracker(85.0, hyst_c=2.0), rows)
    assert [(e["start_s"], e["duration_s"]) for e in out["mitigation_episodes"]] == [(0.0, 4.0), (6.0, 1.0)]
    assert out["mitigation_episodes"][0]["min_c"] == 84.0


def test_only_the_most_recent_episodes_are_listed_but_all_are_counted() -> None:
    tr = EpisodeTracker(85.0, keep=3)
    rows = [(float(i), 90.0 if i % 2 == 0 else 80.0) for i in range(20)]
    out = _feed(tr, rows)
    assert out["mitigation_episodes_total"] == 10
    assert [e["start_s"] for e in out["mitigation_episodes"]] == [14.0, 16.0, 18.0]


def test_no_episode_and_bad_parameters() -> None:
    assert _feed(EpisodeTracker(85.0), [(0.0, 20.0), (1.0, None)])["mitigation_episodes"] == []
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError):
            EpisodeTracker(bad)
    with pytest.raises(ValueError):
        EpisodeTracker(85.0, hyst_c=-1.0)


def test_tally_counts_levels_and_counted_events_and_closes_open_levels_at_the_end() -> None:
    tally = ThrottleTally()
    tally.observe(1.0, "trip throttle:under-voltage")
    tally.observe(2.0, "throttle:over-current-instant=4 throttle:trip-passive@cpu-thermal")
    tally.observe(3.5, "throttle_end:under-voltage throttle:trip-passive@cpu-thermal=1")
    tally.observe(4.0, "throttle_end:never-started throttle:bad=x throttle: throttle:=3")
    out = tally.summary(10.0)
    assert out["throttle_events"] == {
        "over-current-instant": 4,
        "trip-passive@cpu-thermal": 2,
        "under-voltage": 1,
    }
    assert out["throttle_time_s"] == {"trip-passive@cpu-thermal": 8.0, "under-voltage": 2.5}


def _tick(t: float, fused: float | None, event: str = "") -> TickRecord:
    return TickRecord(
        t, fused, (fused,), "cpu", "HIGH", (1_000_000_000,), (1_000_000_000,), 5.0, int(t * 10), event
    )


def test_recorder_streams_what_a_rebuild_from_its_trace_finds(tmp_path: Path) -> None:
    """The summary's episodes and throttle figures equal those recomputed from trace.csv."""
    from thermogov.board import load_board

    board = load_board("rpi5")
    cfg = Config(board="rpi5")
    rec = RunRecorder.create(tmp_path, cfg, board, "sim")
    temps = [80 + 10 * math.sin(i / 7.0) for i in range(400)]
    events = {30: "throttle:throttled", 90: "throttle_end:throttled", 200: "throttle:under-voltage=2"}
    for i, c in enumerate(temps):
        rec.on_tick(_tick(i * 0.1, c, events.get(i, "")))
    summary = rec.finish()
    trace = load_trace(rec.run_dir)
    tr, tally = EpisodeTracker(summary["trip_c"]), ThrottleTally()
    for t, c, ev in zip(trace["t_s"], trace["fused_c"], trace["event"], strict=True):
        tr.observe(t, c)
        tally.observe(t, ev or "")
    rebuilt = {**tr.finish(trace["t_s"][-1]), **tally.summary(trace["t_s"][-1])}
    for key in ("mitigation_episodes", "mitigation_episodes_total", "throttle_events", "throttle_time_s"):
        assert summary[key] == rebuilt[key], key
    assert summary["mitigation_episodes_total"] >= 3
    assert summary["mitigation_time_s"] == pytest.approx(summary["time_above_trip_s"], abs=1e-3)
    assert summary["throttle_events"] == {"throttled": 1, "under-voltage": 2}
    assert [op for op, _, _ in parse_tags("throttle:under-voltage=2")] == ["count"]
