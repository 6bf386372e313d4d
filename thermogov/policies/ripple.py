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
held time, then an exponential one over ``RIPPLE_MEMORY_WINDOWS`` trend windows, and counts
once ``window_s`` of holding has been measured.  Its excess over ``noise_c`` squared (clipped at
0, so the rule only ever lowers the set point) is the ripple the loop adds.

Only the ripple the *raised* gain adds is counted.  ``noise_k`` was judged over seeds on the
suite's boards with the ripple their own gain passes through already in the outcome; the read
noise that moves ``u`` moves it ``factor`` times as far under a ``gain_ladder`` factor, so the
ripple it passes through scales with the gain, and its variance with the factor squared: of the
measured excess ``held**2 - noise_c**2`` the share ``1 - 1 / factor**2`` is the raise's (0.94 on
the AGX Orin, x3.96; 0.29 on the AGX Xavier, x1.19), and the set point's sigma is
``sqrt(noise_c**2 + share * excess)``.  A board whose gain nothing raised has a share of exactly
0: the estimator is not even built there, so the suite is bit-identical by construction.

Nor is it built where a fused sensor's code is coarse (over twice its read noise, the line of
``code_edge_coarse``: the Xavier NX, AGX Xavier, Nano).  There the coded readings' spread moves
with the level's place against the code edges (the quantizing theorem: 17 % at 0.5 °C codes over
0.15 °C of noise), so its excess is not the die's ripple: on the AGX Xavier (x1.19) the whole
excess cost 0.44 % on d11-5 for no trip reading kept, and the share alone 0.21 %; the trend's
``noise_c`` itself rose 0.144 -> 0.169 °C as the lower set point moved the level against the
codes (docs/policies.md, session 19a).
"""

from __future__ import annotations

import math
from collections import deque

#: How many trend windows the held spread remembers (its exponential mean's time constant): ten
#: windows (300 s at the default 30-s window) hold about a hundred periods of a 2-s dither, so the
#: estimate moves by a few per cent and the set point it widens does not itself ripple.
RIPPLE_MEMORY_WINDOWS = 10.0


class HeldSpread:
    """The fused reading's spread around its centred mean while the loop holds (``ripple_margin``)."""

    def __init__(self, window_s: float, share: float) -> None:
        self.window_s = window_s
        self.share = share  # of the measured excess variance, the raised gain's: 1 - 1 / factor**2
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
        """The set point's sigma: the read noise and the raised gain's share of the held excess, in quadrature."""
        if self._held_s < self.window_s:
            return noise_c
        excess = self._var - noise_c * noise_c
        if excess <= 0.0:
            return noise_c
        return math.sqrt(noise_c * noise_c + self.share * excess)


def raised_share(factor: float) -> float:
    """The share of the loop's ripple variance a gain ``factor`` times the judged one adds: ``1 - 1 / factor**2``."""
    return 1.0 - 1.0 / (factor * factor) if factor > 1.0 else 0.0
