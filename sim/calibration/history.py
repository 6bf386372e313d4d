"""The board's state at the log's first reading, from what the log says happened before it.

The fit used to start every log in the idle steady state of its first input, plus an offset
along the slowest mode fitted to the first readings.  On a sparse report (sbc-bench: 3-5
readings 90-120 s apart before the held-out part) that offset is a trend through noise: a board
cooling after an earlier benchmark was fitted as warming (Pi 4 3Llk), a board booted three
minutes before the log as nearly settled.  What came before is often *in* the log: sbc-bench
prints ``uptime`` before its benchmarks, with the time since boot and the kernel's 1, 5 and
15 minute load averages.  Those are exponentially damped averages of the number of runnable
tasks, sampled every 5 s with time constants of 60, 300 and 900 s, and they start from 0 at
boot (``kernel/sched/loadavg.c``, ``calc_load``; ``EXP_1``/``EXP_5``/``EXP_15``).  Three
averages determine a load history of three steps (the last minute, the four before, and
everything older back to boot), by non-negative least squares (each average is a known
weighting of the steps).  The network run through that history, from the steady state of its
oldest step, gives the state at the first reading.  The fitted offset stays, with its prior now
centred on this state instead of on the idle steady state.

Only a board up for longer than :data:`MAX_HISTORY_S` gets a history: its oldest step (more
than five minutes back, an hour at least since boot) has settled.  A board booted less than an
hour before the log started somewhere the log does not say: cold at ambient, or warm from a
reboot after another run.  Starting it at ambient was tried (docs/calibration.md): it helped
a report booted 3 minutes before its log (AGX Xavier 2.25 -> 1.69 °C) and hurt two booted 8
and 11 minutes before (Pi 4 1MFf 1.92 -> 3.30, Pi 400 1.50 -> 2.16), so the guess is not made.

The load history is CPU utilisation only (a load average counts CPU tasks), spread over the
CPU clusters; the other domains keep their first logged input.  A task waiting on disk counts
in a load average too, so the history can overstate the CPU's load; it never exceeds 1 per core.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from thermogov.board import BoardProfile
from thermogov.sim.calibration.inputs import Inputs
from thermogov.sim.calibration.model import Modes

LOAD_AVERAGE_TAUS_S = (60.0, 300.0, 900.0)  # kernel/sched/loadavg.c: 1, 5 and 15 minute averages
STEP_AGES_S = (60.0, 300.0)  # the history's steps end this long before the first reading
MAX_HISTORY_S = 3600.0  # up longer: the oldest step is settled (> 4 slow time constants of most boards)


@dataclass(frozen=True)
class History:
    """Load before the log: ``(duration s, CPU utilisation 0..1)`` steps, oldest first, ending at the first reading."""

    steps: tuple[tuple[float, float], ...]  # the oldest one started in its own steady state

    def describe(self) -> str:
        return ", then ".join(f"{u:.0%} for {d:.0f} s" for d, u in self.steps)


def load_history(
    uptime_s: float | None, load_average: tuple[float, float, float] | None, cores: int
) -> History | None:
    """The CPU load steps the three load averages imply (see the module docstring); None without them."""
    if uptime_s is None or load_average is None or cores <= 0 or not uptime_s > MAX_HISTORY_S:
        return None  # no history, or a boot too recent to say where the board started
    if not all(math.isfinite(v) and v >= 0 for v in load_average):
        return None
    edges = [0.0, *STEP_AGES_S, MAX_HISTORY_S]
    ages = list(itertools.pairwise(edges))  # newest first
    w = np.empty((len(LOAD_AVERAGE_TAUS_S), len(ages)))
    for i, tau in enumerate(LOAD_AVERAGE_TAUS_S):
        for j, (a, b) in enumerate(ages):
            far = 0.0 if j == len(ages) - 1 else math.exp(-b / tau)  # the oldest step: held back to boot
            w[i, j] = math.exp(-a / tau) - far
    level, _res = nnls(w, np.asarray(load_average, dtype=float))
    u = np.clip(level / cores, 0.0, 1.0)
    steps = tuple((float(b - a), float(uj)) for (a, b), uj in reversed(list(zip(ages, u, strict=True))))
    return History(steps)


def history_power(board: BoardProfile, inputs: Inputs) -> tuple[np.ndarray, np.ndarray]:
    """(first logged CPU load per node-weighted domain, W per unit of CPU load per node).

    The power of a history step at load ``u`` is the first step's power plus
    ``(u - u0) * slope``, summed over the CPU clusters (``cpufreq`` domains) at their first
    logged clock and voltage."""
    names = board.thermal.node_names()
    idx = {n: i for i, n in enumerate(names)}
    u0 = np.zeros(len(names))
    slope = np.zeros(len(names))
    for d in board.domains:
        if d.kind != "cpufreq":
            continue
        load = inputs.load[d.name]
        first = float(load[np.isfinite(load)][0]) if np.isfinite(load).any() else 0.0
        v, f = float(inputs.volt_v[d.name][0]), float(inputs.freq_hz[d.name][0])
        s = d.c_dyn_uw_per_mhz_v2 * v * v * (f / 1e6) * 1e-6 * d.cores
        slope[idx[d.node]] += s
        u0[idx[d.node]] += s * first
    return u0, slope


def state_after(
    history: History, modes: Modes, p0: np.ndarray, u0: np.ndarray, slope: np.ndarray
) -> np.ndarray:
    """Excess node temperatures at the first reading after running the network through ``history``.

    ``p0`` is the power of the first grid step; a step at load ``u`` has ``p0 - u0 + u * slope``
    (``u0`` the first step's load-dependent part, :func:`history_power`).  Each step is exact
    (``x -> x_ss + exp(A d) (x - x_ss)`` in the network's modal form)."""
    left = modes.d[:, None] * modes.u  # D U
    right = modes.u.T / modes.d[None, :]  # U^T D^-1

    def steady(u: float) -> np.ndarray:
        return modes.steady(p0 - u0 + u * slope)

    x = steady(history.steps[0][1])
    for dur, u in history.steps:
        xss = steady(u)
        x = xss + left @ (np.exp(modes.lam * dur) * (right @ (x - xss)))
    return x
