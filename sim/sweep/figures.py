"""The summary figures a sweep tabulates per point, read from the run folder's ``summary.json``.

Reading them from the summary (not from the live simulation) is what lets ``--resume`` rebuild a
reused point's row exactly as if it had just run.
"""

from __future__ import annotations

from typing import Any

#: Column -> what it is.  Every numeric one can be a sweep's objective or a ``require`` bound.
FIGURES: dict[str, str] = {
    "sustained_ips": "sustained inferences/s (the steady window)",
    "mean_ips": "mean inferences/s over the run",
    "max_fused_c": "highest fused temperature, °C",
    "hottest_sensor_c": "highest single-sensor reading, °C",
    "time_above_trip_s": "seconds with the fused value at or above the policy's trip",
    "energy_j": "board energy over the run, J",
    "inferences_per_joule": "inferences per joule",
    "p99_ms": "99th-percentile latency, ms",
    "cap_changes": "number of cap changes",
    "dropped_requests": "frames dropped by a full queue",
    "battery_soc_end": "battery state of charge at the end (0-1)",
}
#: Not numeric: how the run ended (``completed`` or the protection that shut the board down).
TEXT_FIGURES = ("ended",)
COLUMNS = (*FIGURES, *TEXT_FIGURES)


def from_summary(s: dict[str, Any]) -> dict[str, Any]:
    sensors = [v for v in (s.get("max_sensor_c") or {}).values() if v is not None]
    latency = (s.get("latency_ms") or {}).get("total") or {}
    return {
        "sustained_ips": s.get("sustained_throughput_ips"),
        "mean_ips": s.get("mean_throughput_ips"),
        "max_fused_c": s.get("max_fused_c"),
        "hottest_sensor_c": max(sensors) if sensors else None,
        "time_above_trip_s": s.get("time_above_trip_s"),
        "energy_j": s.get("energy_j"),
        "inferences_per_joule": s.get("inferences_per_joule"),
        "p99_ms": latency.get("p99"),
        "cap_changes": s.get("cap_changes"),
        "dropped_requests": s.get("dropped_requests"),
        "battery_soc_end": s.get("battery_soc_end"),
        "ended": s.get("ended"),
    }
