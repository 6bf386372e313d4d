"""What a user who knows a run's length tells ``stepped``: the run's length and its scored stretch.

The default race gives a policy nothing about the run: a governor no more knows when a benchmark
stops than where its window starts.  A user running a batch job of known length does, and
``stepped``'s ``bank_c`` (off by default) uses it: before the run's final stretch it holds the
set point lower, so the slow nodes enter that stretch cooler (docs/policies.md, session 15).
The bench passes these only in rows labelled "run length known"; the default row never gets them.
"""

from __future__ import annotations

from thermogov.config import Config
from thermogov.sim.compare.oracle import steady_window


def run_length_knobs(config: Config) -> dict[str, float]:
    """``[policies.stepped]`` ``run_s`` and ``bank_window_s`` for ``config``'s world as stated.

    ``run_s`` is the world's length and ``bank_window_s`` its scored window's (the steady
    window, the last of the any-window bound's windows).  Given for the original world, they
    stay the same when the world is continued past its end (the open-ended view): there the
    stated length is wrong, which is how a user's misjudged job length is measured.
    """
    t0, t1 = steady_window(config)
    return {"run_s": float(config.sim.duration_s), "bank_window_s": float(t1 - t0)}


__all__ = ["run_length_knobs"]
