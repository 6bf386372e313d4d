"""A synthetic log of a board that stops warming: shared by the forecast-shrink tests."""

from __future__ import annotations

import dataclasses

from thermogov.importers.common import ImportedLog


def clamped(log: ImportedLog, after_s: float) -> ImportedLog:
    """The log with every reading after ``after_s`` held at most at the reading there: a board
    that stops warming (an unlogged fan, a throttle) where the model keeps charging."""
    cap = next(s.temps_c["cpu"] for s in log.samples if s.t_s >= after_s)
    return dataclasses.replace(
        log,
        samples=tuple(
            dataclasses.replace(s, temps_c={"cpu": min(s.temps_c["cpu"], cap)}) for s in log.samples
        ),
    )
