"""Log sensor names -> the board profile's sensors: name, then sysfs zone names, then aliases.

Every tool names thermal zones its own way: tegrastats ``CPU@``, jtop ``Temp CPU``, sbc-bench
the zone it picked (``SOC2-therm`` on an Orin Nano), the mainline kernel ``cpu-thermal``.  The
profile lists its sensor's own name, its sysfs zone types and, in ``aliases``, the other
zones that stand in for it when a log lacks the sensor itself (on T234 the SOC0-2 and Tj zones
sit on the same die as the CPU clusters; Tj is the maximum of all of them -- NVIDIA Jetson
Orin thermal design guide).  Matching is by priority so an exact ``cpu`` always beats an alias.
"""

from __future__ import annotations

from collections.abc import Iterable

from thermogov.board import BoardProfile


def normal(name: str) -> str:
    """Case, ``-``/``_`` and the ``-thermal``/``-therm``/``_zone`` suffixes do not matter."""
    n = name.strip().lower().replace("-", "_").replace(" ", "_")
    for suffix in ("_thermal", "_therm", "_zone"):
        n = n.removesuffix(suffix)
    return n


def sensor_map(log_sensors: Iterable[str], board: BoardProfile) -> dict[str, str]:
    """{log sensor name: profile sensor name}; each profile sensor takes its best-ranked log name.

    Rank 0 is the profile sensor's own name, 1 a sysfs zone name, 2+ its aliases in the order
    listed.  A log sensor already taken by one profile sensor is not given to another.
    """
    names = list(log_sensors)
    by_norm: dict[str, str] = {}
    for n in names:
        by_norm.setdefault(normal(n), n)
    out: dict[str, str] = {}
    for s in board.sensors:
        ranked = [[s.name], list(s.sysfs_names), *([a] for a in s.aliases)]
        for group in ranked:
            hit = next(
                (by_norm[normal(c)] for c in group if normal(c) in by_norm and by_norm[normal(c)] not in out),
                None,
            )
            if hit is not None:
                out[hit] = s.name
                break
    return out


def via_alias(log_name: str, board: BoardProfile) -> bool:
    """Whether ``log_name`` reaches a profile sensor only through an alias (worth a note)."""
    for s in board.sensors:
        if normal(log_name) in {normal(a) for a in s.aliases}:
            return normal(log_name) not in {normal(s.name), *(normal(x) for x in s.sysfs_names)}
    return False
