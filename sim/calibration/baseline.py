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

Where persistence and the best constant are that close, three more figures say whether a
skill <= 0 is a loss or a tie (session 29p):

* :func:`tail_offset` is a forecast's mean error over the tail.  A forecast's squared RMSE is
  that offset squared plus the spread of its error about it; for persistence the offset is the
  last training reading less the tail's mean, and the spread is the tail's own.
* :func:`tie_band` is the size of persistence's offset: a *constant* forecast beats persistence
  exactly when it lies closer than this to the tail's mean.  A band much narrower than the
  sensor's step or its scatter means the skill's sign was decided by where one reading fell.
* :func:`sample_scatter` is the tail's sample-to-sample scatter (RMS of successive differences
  over sqrt 2): white sensor noise reads as this much, and no forecast that does not know the
  noise scores below it.  It is an upper bound on the noise: a load step between two readings
  adds to it.

All of them read the held-out tail, so they are for judging a result (``bench/fidelity.py``),
never for choosing anything in a fit.  docs/calibration.md, *Thirteenth session (issue 10):
skill on the flat logs* and *Session 29p*, has the figures.
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


def tail_offset(forecast: np.ndarray, obs: np.ndarray, train: np.ndarray) -> float | None:
    """The forecast's mean error (forecast - reading) over the held-out readings; None without any."""
    test = np.isfinite(obs) & np.isfinite(forecast) & ~train
    return float(np.mean(forecast[test] - obs[test])) if test.any() else None


def persistence_offset(obs: np.ndarray, train: np.ndarray) -> float | None:
    """The last training reading less the held-out tail's mean (persistence's :func:`tail_offset`);
    None without a reading on either side."""
    ok = np.isfinite(obs)
    seen = np.flatnonzero(ok & train)
    tail = obs[ok & ~train]
    if not len(seen) or not len(tail):
        return None
    return float(obs[seen[-1]] - np.mean(tail))


def tie_band(obs: np.ndarray, train: np.ndarray) -> float | None:
    """How close to the tail's mean a constant forecast must lie to beat persistence (its offset's size).

    RMSE squared of a constant ``c`` is the tail's variance plus ``(c - mean)`` squared, so ``c``
    beats the last training reading exactly when ``|c - mean|`` is below this."""
    off = persistence_offset(obs, train)
    return None if off is None else abs(off)


def sample_scatter(obs: np.ndarray, train: np.ndarray) -> float | None:
    """The held-out tail's sample-to-sample scatter: RMS of successive differences over sqrt 2.

    For readings of a constant with independent noise this is the noise's sd; a real change
    between readings only adds to it.  None with fewer than three held-out readings."""
    tail = obs[np.isfinite(obs) & ~train]
    if len(tail) < 3:
        return None
    return float(np.sqrt(np.mean(np.diff(tail) ** 2) / 2.0))
