"""The summary table's lines for throttling that is not ours and for mitigation episodes.

``thermogov sim`` and ``thermogov run`` print them the same way, so a simulated run and a board
run explain their dips alike: counts and time per kind, then each trip episode (start, duration,
min/avg/max fused temperature), the longest few (in time order) when a run has many: a
noisy fused temperature grazing the trip makes many tenth-of-a-second episodes, and the long
ones are those that explain a dip.
"""

from __future__ import annotations

from typing import Any

from thermogov.display import figure

SHOWN_EPISODES = 5


def mitigation_rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, text) rows; empty figures read ``none`` so the absence is said, not hidden."""
    counts: dict[str, int] = s.get("throttle_events") or {}
    seconds: dict[str, float] = s.get("throttle_time_s") or {}
    if counts:
        parts = []
        for kind, n in counts.items():
            t = seconds.get(kind)
            parts.append(f"{kind} x{n}" + (f" ({figure(t, ' s')})" if t is not None else ""))
        throttling = ", ".join(parts)
    else:
        throttling = "none"
    rows = [("throttling not ours", throttling)]
    if "mitigation_episodes" not in s or s.get("mitigation_episodes") is None:
        return rows
    total = s.get("mitigation_episodes_total", 0)
    eps: list[dict[str, Any]] = s["mitigation_episodes"]
    if not total:
        rows.append(("mitigation episodes", "none"))
        return rows
    head = f"{total}, {figure(s.get('mitigation_time_s'), ' s')} in all"
    if total > SHOWN_EPISODES:
        head += f"; the {SHOWN_EPISODES} longest"
    rows.append(("mitigation episodes", head))
    longest = sorted(eps, key=lambda e: -e["duration_s"])[:SHOWN_EPISODES]
    for e in sorted(longest, key=lambda e: e["start_s"]):
        rows.append(
            (
                "",
                f"at {figure(e['start_s'], ' s')} for {figure(e['duration_s'], ' s')}: min/avg/max "
                f"{figure(e['min_c'])}/{figure(e['avg_c'])}/{figure(e['max_c'], ' °C')}"
                + (" (open at the end)" if e.get("open") else ""),
            )
        )
    return rows
