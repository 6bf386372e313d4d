"""How much of a persistence baseline is luck: diagnostics beside the skill, never a change of it.

Issue 10 defines skill as ``1 - rmse / rmse_persistence``, persistence being the last training
reading held over the held-out tail (:func:`~thermogov.sim.calibration.fit.persistence_rmse`).
On a log whose tail barely moves, that baseline is one reading: its noise, or where it falls
between two steps of a quantised sensor (0.5 °C on the Jetson Nano), decides the skill's sign
as much as the model does.  Two figures say how much, without redefining anything:

* :func:`recent_persistence` holds each of the last ``n`` training readings over the same tail.
  Where the last one scores far better than their median, the baseline was lucky (it happened
  to sit where the tail settles), and a skill <= 0 against it says little about the model.
  It means that only where those readings share one load (a near-flat log); where they span a
  load change (a sparse sbc-bench report) their median mixes loads and says nothing.
* :func:`hindsight_flat_rmse` is the RMSE of the best constant forecast, the tail's own mean,
  known only in hindsight: no forecast that holds a level can score below it.  Where
  persistence is already within a few per cent of it, only a forecast that tracks the tail's
  movements beats persistence, and on a tail of sensor noise nothing can.

Both read the held-out tail, so they are for judging a result (``bench/fidelity.py``), never
for choosing anything in a fit.  docs/calibration.md, *Thirteenth session (issue 10): skill on
the flat logs*, has the figures.
"""

from __future__ import annotations

import numpy as np

RECENT_READINGS = 10  # how many of the last training readings are held in turn


def recent_persistence(obs: np.ndarray, train: np.ndarray, n: int = RECENT_READINGS) -> np.ndarray:
    """The held-out RMSE of holding each of the last ``n`` training readings (oldest first, the
    last one is persistence itself); empty when the log has no reading on either side."""
    ok = np.isfinite(obs)
    seen = np.flatnonzero(ok & train)
    test = ok & ~train
    if not len(seen) or not test.any() or n < 1:
        return np.zeros(0)
    tail = obs[test]
    return np.array([np.sqrt(np.mean((tail - obs[i]) ** 2)) for i in seen[-n:]])


def hindsight_flat_rmse(obs: np.ndarray, train: np.ndarray) -> float | None:
    """The RMSE of holding the held-out tail's own mean over it (the tail's standard deviation):
    the floor of every constant forecast; None without held-out readings."""
    tail = obs[np.isfinite(obs) & ~train]
    return float(np.std(tail)) if len(tail) else None
