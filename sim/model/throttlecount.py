"""The simulated board's own protections, named the way a real board's readers name them.

A real run counts throttling that is not the governor's from the board (``thermogov.hw.throttle``):
the Pi firmware's ``get_throttled`` bits, Jetson over-current counters, the kernel's trip points
crossed per zone.  The simulator emits the same ``throttle:`` tags (``thermogov.throttle``) so the
two kinds of run read alike:

* a protection invisible to cpufreq (the Pi firmware throttle from 80 °C, the Jetson Nano's
  SOCTHERM hardware throttle) is the firmware throttling the clocks: kind ``throttled``, active
  while the protection is;
* a visible one is a kernel passive trip (Jetson ``*-sw-throttle``): the kernel has one such trip
  on each zone, so each watched node crosses it on its own, up at ``start_c`` and down below
  ``start_c - hyst_c``, as ``trip-passive@<zone>`` where the zone is the sysfs name of the
  profile's sensor on that node (``cpu-thermal``), so the kind is the one a board would report.
"""

from __future__ import annotations

from collections.abc import Callable

from thermogov.board import BoardProfile, Protection
from thermogov.throttle import THROTTLED, end_tag, start_tag, trip_kind


def _zone_of(board: BoardProfile, node: str) -> str:
    for s in board.sensors:
        if s.node == node and s.kind == "thermal_zone" and s.sysfs_names:
            return s.sysfs_names[0]
    return node


class ProtectionTags:
    """Turns protection state and node temperatures into ``throttle:`` tags, one poll at a time."""

    def __init__(self, board: BoardProfile, protections: list[Protection]) -> None:
        self._firmware = [i for i, p in enumerate(protections) if not p.visible]
        self._trips = [
            (i, node, trip_kind("passive", _zone_of(board, node)))
            for i, p in enumerate(protections)
            if p.visible
            for node in p.nodes
        ]
        self._protections = protections
        self._crossed: set[tuple[int, str]] = set()

    @property
    def has_trips(self) -> bool:
        return bool(self._trips)

    def firmware(self, index: int, active: bool, was: bool) -> list[str]:
        """Tags for protection ``index`` changing from ``was`` to ``active`` (invisible ones only)."""
        if index not in self._firmware or active == was:
            return []
        return [start_tag(THROTTLED) if active else end_tag(THROTTLED)]

    def trips(self, node_temp_c: Callable[[str], float]) -> list[str]:
        """Per-node crossings of the visible protections' trip (up at start, down below start - hyst)."""
        tags = []
        for i, node, kind in self._trips:
            p = self._protections[i]
            temp = node_temp_c(node)
            key = (i, node)
            if key not in self._crossed and temp >= p.start_c:
                self._crossed.add(key)
                tags.append(start_tag(kind))
            elif key in self._crossed and temp < p.start_c - p.hyst_c:
                self._crossed.discard(key)
                tags.append(end_tag(kind))
        return tags
