"""``dither_hold``: the sigma-delta dither's base is the rung nearest ``u``, its error carried a whole rung.

``stepped`` applies ``floor(u)`` or the rung above, chosen every ``dither_s`` by a first-order
sigma-delta (error feedback): ``y = floor(u + e)``, ``e = u + e - y``, the carried error ``e`` in
``[0, 1)``.  While ``u`` is steady the error stays where it was, and where ``u`` hovers at a
whole rung ``n`` with a little noise (the held level's, through ``k_p``) ``e`` wraps: near 0 a
dip of ``u`` under ``n`` gives ``n - 1``, near 1 a rise over it gives ``n + 1``.  The mean is
right, but three rungs share the time where one would do.  Session 20b found it on
orin-fan-failure's scored window (seed 1): GPU 306 / 408 / 510 MHz for 6 / 85 / 9 % of the time,
every 306 MHz episode exactly one dither period long, against the oracle's two adjacent rungs
(408 / 510 MHz, 78 / 18 %, and 612 MHz 4 %).  A third rung costs twice: a concave rate-power
curve pays the spread (Jensen), and the die's ripple enters the measured read noise the set
point's margin is counted on.

The rule is the mid-tread form of the same modulator: the base ``b`` is ``round(u)``, the carried
error ``e = sum(u - y)`` is that of the rungs applied (independent of the base), and the output is
``b + 1`` when ``e`` reaches a whole rung, ``b - 1`` when it reaches minus one, ``b`` otherwise.  So
for a steady ``u`` between two rungs it is the same two-rung pattern as before (``u = b + 0.3``:
``b + 1`` every 3.3 periods), and for ``u`` wandering around ``b`` by ``d`` rungs the neighbours are
used only when the wander's running sum reaches a whole rung, ``1 / d**2`` periods apart for a
random wander, not once per wrap.  The mean is kept as before (the carried error is bounded by a
rung-period either way).  No constant: the thresholds are the ladder's own unit (one rung).

A first version also held the base while ``u`` stayed within a rung of it (hysteresis): on an open
load (orin-bursty) a ``u`` falling most of a rung at a burst's onset then kept the old rung up to
a ``dither_s`` longer, -0.20 % and more time above the trip (docs/policies.md, session 20b);
``round(u)`` follows such a fall at the next dither instant, as the floor form does.  While a
yielded firmware ramp holds the node (a Pi) ``stepped`` keeps the floor form: the clock is then
the ramp's own modulation and the cap bounds it a rung above; on rpi5-long-1h the mid-tread form
there took the expected time above the trip over ``hysteresis``'s (session 20b).
"""

from __future__ import annotations


class MidTread:
    """Mid-tread sigma-delta over the ladder's rungs: the base is the nearest rung to ``u``."""

    __slots__ = ("base", "error")

    def __init__(self) -> None:
        self.base: int | None = None
        self.error = 0.0  # sum(u - y) over the dither instants since the last reset, in rung-periods

    def reset(self) -> None:
        """Forget the base and the carried error (the release to full clocks starts afresh)."""
        self.base, self.error = None, 0.0

    def step(self, u: float, top: int) -> int:
        """The rung for the next dither period, given the position ``u`` on a ladder of ``top + 1`` rungs."""
        base = self.base
        if base is None or round(u) != base:
            base = self.base = min(max(round(u), 0), top)
        e = self.error + u - base
        rung = base
        if e >= 1.0 and base < top:
            rung, e = base + 1, e - 1.0
        elif e <= -1.0 and base > 0:
            rung, e = base - 1, e + 1.0
        # At the ladder's ends the missing rung cannot repay the error: it is bounded as the
        # floor form's was (``min(acc, 1)``), so a stay at the top is not owed later.
        self.error = min(max(e, -1.0), 1.0)
        return rung


__all__ = ["MidTread"]
