"""``sink_ramp``: feed forward the ramp a trailing PI follows after a loss of cooling.

After a fan stalls the die climbs in seconds, but the heat sink behind it goes on warming for
minutes (its time constant, a few hundred seconds).  The rung that holds the set point then falls
steadily, and a PI follows a ramp in its disturbance only with a standing error (a type-1 loop's
steady error to a ramp: K. J. Åström and R. M. Murray, *Feedback Systems*, ch. 11, free at
https://fbswiki.org/): ``stepped``'s integral falls at ``down_gain * k_p * e / t_i_s``, so it
needs the level held ``e`` over the set point the whole time the sink warms.  On draw 2026's
world 19 (Orin Nano devkit fan failure) that stretch held the fused value at 84.6-84.9 °C for
about 100 s after the first trip and expected more seconds above the trip than ``hysteresis``
(docs/policies.md, Session 29c).

The rule observes the ramp from the controller's own motion, not from a model of the sink (the
profiles give the policy no fan tach, and the measured power does not change when a fan stops):
once the PI's error has stayed negative (the predicted level over the set point) for a whole
window, the rate at which the integral was moved over that window (by the PI and this rule) is
the rung's fall the plant asks for, and it is added to the integral's rate on the next tick.  In
a steady ramp the error the PI needs then shrinks towards zero: the loop is type 2 while it
trails.  It is reset the moment the error is no longer negative, on a trip, a ``rise_trip`` step
and a release, so it cannot outlast the ramp: when the sink settles the level dips under the set
point and the feed-forward is gone on that tick, where Session 29c's lowered set point lasted the
network's time constant and taxed every slow rise (−0.24 to −2.05 % on the suite).  It only ever
speeds the integral's fall (a cooling gain is the PI's to ride).

Two narrower versions were measured and not kept (docs/policies.md, Session 30c): armed only by
a trip or a ``rise_trip`` step, it came too late on draw 2026's TX2 world 23, where the PI trails
the warming sink for minutes before its first trip (1.008 s expected above the trip against
``hysteresis``'s 0.610); feeding forward the PI's own fall only (no compounding) missed draw 16's
world 15 (1.029 against 0.629 s) and cost rpi5-long-1h 0.27 %.  The price of this one: each
window's fall includes the last window's feed-forward, so on a first arrival from full clocks it
can drive the integral under its need, and the level then climbs back at the slow up-rate
(orin-fan-failure seed 5 met its enclosure step from 0.4 °C lower and expected 0.097 s above the
trip against the default's 0.004, still far under ``hysteresis``'s 0.28).

``sink_ramp_held`` (off) counts only ticks whose level stands over the set point by its predicted
rise, so a first climb's fall is not fed; measured in Session 32c it cost four Orin rows 0.02-0.04 %
(the climb's feed was a small gain) and missed draw 2026's TX2 world 23 (whose slow trail sits
within the level's noise of the test) and draw 16's world 15, so it stays off.
"""

from __future__ import annotations

from collections import deque


def level_held(level_c: float, set_c: float, rise_c: float) -> bool:
    """Whether the level itself stands over the set point by at least its predicted rise.

    A loss of cooling the PI trails holds the level a standing error over the set point while the
    rung falls (the sink warms at a held or falling power): the error is the level's.  A first
    climb from full clocks crosses the set point still rising fast (0.2 °C/s on the Orin Nano,
    two degrees over the 10-s horizon) and its negative error is mostly that predicted rise; the
    PI's fall there answers the climb, and feeding it forward drove the integral under its need
    (docs/policies.md, Sessions 30c, 31c, 32c).  No constant: the level's own excess over the set
    point must be at least what it is predicted to rise.
    """
    over = level_c - set_c
    return over > 0.0 and rise_c <= over


class SinkRamp:
    """The integral's fall rate while the PI has trailed over its set point a whole window."""

    def __init__(
        self, window_s: float, persist_s: float = 0.0, *, board_ends: bool = False, held_only: bool = False
    ) -> None:
        self.window_s = window_s
        # ``sink_ramp_held``: a tick on which the level is not held over the set point (the error
        # is mostly a climb's predicted rise, :func:`level_held`) ends the stretch, so the window
        # and the wait count only ticks of a trail (docs/policies.md, Session 32c).
        self.held_only = held_only
        # ``sink_ramp_persist``: how much longer than the window the error must have stayed
        # negative before anything is fed (0: Session 30c's rule, fed once the window is full),
        # and whether a tick on which the board's own throttle holds the node ends the stretch.
        self.persist_s = persist_s
        self.board_ends = board_ends
        self._acc = 0.0  # the integral's motion commanded by the PI and this rule while trailing
        self._seen: deque[tuple[float, float]] = deque()  # (time, _acc) since the error turned negative
        self.feed = 0.0  # the rate added on the last tick, rungs/s (never positive)
        self._start_s = 0.0  # when the error turned negative (the first tick in ``_seen``)

    def reset(self) -> None:
        """The trailing stretch ended (error under zero, a trip, a ``rise_trip`` step, a release)."""
        self._acc = 0.0
        self._seen.clear()
        self.feed = 0.0

    def rate(self, t: float, error: float, board_holds: bool = False, held: bool = True) -> float:
        """The feed-forward rate for this tick (rungs/s, <= 0), given the PI's ``error``, whether
        a yielded board throttle holds the node on this tick, and whether the level is held over
        the set point (:func:`level_held`)."""
        if error >= 0.0 or (board_holds and self.board_ends) or (self.held_only and not held):
            self.reset()
            return 0.0
        seen = self._seen
        if not seen:
            self._start_s = t
        seen.append((t, self._acc))
        while len(seen) > 1 and seen[1][0] <= t - self.window_s:
            seen.popleft()
        t0, a0 = seen[0]
        span = t - t0
        # A stretch shorter than the window says nothing: a load step or a noise excursion
        # crosses the set point and is answered by the PI before the window fills.
        full = span >= self.window_s and t - self._start_s >= self.window_s + self.persist_s
        self.feed = min((self._acc - a0) / span, 0.0) if full else 0.0
        return self.feed

    def moved(self, delta: float) -> None:
        """The PI and this rule moved the integral ``delta`` rungs on a trailing tick."""
        if self._seen:
            self._acc += delta
