"""The advisory lines ``thermogov run`` says at its start, from the run's own :class:`Prepared`.

Why: each of them (sensors reading like whole degrees or like no measurement,
:mod:`thermogov.hw.unitcheck`; clocks and the input rail, :func:`thermogov.hw.doctor.start_warnings`;
the trip the lowest caps cannot hold, :mod:`thermogov.hw.holdcheck`) used to prepare the board
itself before the daemon started, and the rail phrase discovered it once more: four whole
discoveries of the board before the daemon's own (session 21's review).  Computed from the
daemon's discovery they read the board once, in the order the command said them before, at the
place the command's notices are said (after the run's own input checks, so bad input stays the
only line).  ``doctor`` keeps its own calls: it prepares nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from thermogov.hw.doctor import prepared_start_warnings
from thermogov.hw.holdcheck import prepared_hold_warning
from thermogov.hw.unitcheck import prepared_unit_warnings

if TYPE_CHECKING:
    from thermogov.hw.daemon import Prepared


def start_lines(prep: Prepared) -> list[str]:
    """Sensor units, clocks, power and the input rail, the OPP entries ignored in a governed
    member's list, then the trip hold (empty: all well)."""
    hold = prepared_hold_warning(prep)
    return [
        *prepared_unit_warnings(prep),
        *prepared_start_warnings(prep),
        *ignored_opp_lines(prep),
        *([hold] if hold else []),
    ]


def ignored_opp_lines(prep: Prepared) -> list[str]:
    """One warning per governed policy or devfreq device whose OPP list held entries that are no
    OPP (hw/oppfilter.py): session 31r, before they were dropped without a word."""
    governed = {f.min_rel for b in prep.bmap.domains for f in b.files}
    inv = prep.inventory
    found = [(p.min_rel, p.ignored) for p in inv.policies] + [(d.min_rel, d.ignored) for d in inv.devfreqs]
    return [f"warning: {why}" for rel, why in found if why and rel in governed]
