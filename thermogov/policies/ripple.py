"""``ripple_margin``: the set point's margin counts the ripple the loop itself adds.

``stepped`` keeps its set point ``noise_k`` sigmas under the trip, the sigma being the trend's
``noise_c``: the RMS of the fused readings around their 2-s level.  That is the read noise (and
the codes' spread), not the die's own movement: a ripple slower than the level's time constant
moves the level with it and is not in ``noise_c``, yet every tick of it brings the readings that
much closer to the trip.  On a board whose ``gain_ladder`` factor raised ``k_p`` (the AGX Orin,
x3.96) the raised gain moves ``u`` with the read noise that the level still carries, the dither
follows ``u`` and the die ripples: on d16-8 seed 2 the fused spread grew 0.157 -> 0.172 °C while
held at full clocks, and the trip was read from that dither, not from an arrival
(docs/policies.md, session 18a, "Why the new misses").

The rule measures the spread that matters, online: while the loop *holds* (in the band, no
anomaly, from ``window_s`` after the level first reached the set point, so an arrival's overshoot
is not counted) the mean square of each fused reading around the mean of the ``window_s`` of
readings centred on it (a centred moving average, so the reading is judged half a window late).
A straight drift (a fan failing while held) is its own centred mean and is not counted; what
moves faster than the trend's window, the read noise and the loop's own dither, is; what moves
slower is the integral's to follow.  (A trailing mean with the trend's slope times its lag added
back, tried first, counts a ripple near the window's period twice over: the slope of a sine
fitted over one period is 1.9 amplitudes per window.)  The mean square is a running mean over the
held time, then an exponential one over ``RIPPLE_MEMORY_WINDOWS`` trend windows.  The set point's
sigma is the larger of ``noise_c`` and that spread's root once ``window_s`` of holding has been
measured, so the rule only ever lowers the set point, and only by what the loop was measured to
add.

``"gained"`` (the rule on a board whose ``gain_ladder`` factor is over 1 only) leaves every board
whose gain nothing raised exactly as it was: its ``noise_k`` was judged over seeds with its own
ripple in the outcome, and the estimator is not even built there, so the suite is bit-identical
by construction.  ``"all"`` measures on every board.
"""

from __future__ import annotations

import math
from collections import deque

RIPPLE_RULES = ("off", "gained", "all")

#: How many trend windows the held spread remembers (its exponential mean's time constant): ten
#: windows (300 s at the default 30-s window) hold about a hundred periods of a 2-s dither, so the
#: estimate moves by a few per cent and the set point it widens does not itself ripple.
RIPPLE_MEMORY_WINDOWS = 10.0


class HeldSpread:
    """The fused reading's spread around its centred mean while the loop holds (``ripple_margin``)."""

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self.memory_s = RIPPLE_MEMORY_WINDOWS * window_s
        self._pts: deque[tuple[float, float]] = deque()  # the held readings of the last window_s
        self._sum = 0.0
        self._reached_s: float | None = None  # when the level reached the set point in this stay
        self._var = 0.0
        self._held_s = 0.0  # held time measured so far (all stays)

    def leave(self) -> None:
        """The band was left (a trip or a release), or a glitch bridged: the next stay starts afresh."""
        self._pts.clear()
        self._sum = 0.0
        self._reached_s = None

    def observe(self, t: float, dt: float, fused: float, level: float, set_c: float, anomaly: bool) -> None:
        """Feed one band tick: measured only from ``window_s`` after the level reached the set point."""
        if anomaly:
            self.leave()
            return
        if self._reached_s is None:
            if level < set_c:
                return  # still arriving
            self._reached_s = t
        if t - self._reached_s < self.window_s:
            return  # the arrival's overshoot passes
        pts = self._pts
        pts.append((t, fused))
        self._sum += fused
        while t - pts[0][0] > self.window_s:
            self._sum -= pts.popleft()[1]
        if t - pts[0][0] < 0.99 * self.window_s or dt <= 0.0:
            return  # not a whole window yet
        dev = pts[len(pts) // 2][1] - self._sum / len(pts)
        self._held_s += dt
        w = dt / min(self._held_s, self.memory_s)
        self._var += w * (dev * dev - self._var)

    def sigma_c(self, noise_c: float) -> float:
        """The set point's sigma: the larger of the read noise and the held spread, once measured."""
        if self._held_s < self.window_s:
            return noise_c
        spread = math.sqrt(self._var)
        return spread if spread > noise_c else noise_c
