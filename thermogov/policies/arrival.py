"""``first_arrival``: the PI's integral on the first approach to the set point from full clocks.

``stepped`` enters its band from the release at the top rung, and its integral starts there
(bumpless).  That value is an initial condition, not a measured one: nothing has yet shown the
controller which rung holds the set point.  On a world where full clocks settle barely over the
trip (the ``board-at-trip`` family) the level reaches the set point slowly and then sits a few
tenths of a degree over it, so the error is small and the integral, falling at
``down_gain * k_p * e / t_i_s``, takes minutes to come down the three or four rungs to the one
that holds: on the Nano's 0.5 °C codes that is long enough for a reading at the trip (session
17a, board-at-trip-jetson-nano, seeds 1, 3, 4, 5 at 417-450 s).

The rule: while the first arrival lasts, a level over the set point that has not yet turned
down (trend slope not negative) winds the integral down with the prediction horizon
(``horizon_s``) as its integral time instead of ``t_i_s``, so it moves at the pace the
controller looks ahead rather than the pace it trusts a held level.  No new constant: the
horizon is the time over which the controller already acts on its prediction.  The arrival ends
(the ordinary integral from then on) when the evidence the integral lacked arrives: the level
is at or under the set point and falling (the rung applied has turned it), or the trip rule or
``rise_trip`` has stepped (both clamp the integral to the rung they leave).  A release to full
clocks starts a new arrival.
"""

from __future__ import annotations


class FirstArrival:
    """Whether the integral is still on its first approach, and the integral time it may use."""

    def __init__(self, horizon_s: float, t_i_s: float) -> None:
        # The faster integral time: never slower than the ordinary one.
        self.fast_t_i_s = min(max(horizon_s, 1e-3), t_i_s)
        self.t_i_s = t_i_s
        self.active = True
        self._reached = False  # the predicted level has been over the set point in this arrival

    def restart(self) -> None:
        """A release to full clocks: the next approach is a first arrival again."""
        self.active, self._reached = True, False

    def end(self) -> None:
        """The trip rule or ``rise_trip`` stepped: the integral now sits at a rung a rule chose."""
        self.active = False

    def integral_time_s(self, error_c: float, slope_c_per_s: float) -> float:
        """The integral time for this tick's error (set point minus predicted level).

        During the arrival a negative error with the level not yet falling uses the horizon;
        once the predicted level has been over the set point, an error at or over zero with the
        level falling ends the arrival (before that, the climb's own noisy slopes do not).
        """
        if not self.active:
            return self.t_i_s
        if error_c < 0.0:
            self._reached = True
            return self.fast_t_i_s if slope_c_per_s >= 0.0 else self.t_i_s
        if self._reached and slope_c_per_s < 0.0:
            self.active = False
        return self.t_i_s
