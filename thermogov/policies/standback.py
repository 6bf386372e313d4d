"""Standing back from a lower agent while a trip budget lasts (``stand_back_reads_per_h``, ``ramp_readback``).

A board whose own throttle is progressive (the Raspberry Pi firmware's 80-85 °C ramp) holds the
die itself, from the die's own temperature, without the sensor's noise and codes.  ``stepped``
yields to it (``board_throttle = "yield"``) but keeps its own set point a trip budget under the
trip (``trip_reads_per_h``, one expected reading at the trip an hour).  As a Pi 5's slow nodes
warm, the firmware's hold point creeps over that set point, and the controller then caps a rung
under the firmware's clock: on rpi5-steady-25 that is all of its 0.12-0.14 % under the firmware
alone.  Always standing back (``stand_back``) wins that back but spends the trip budget on
longer holds with no limit (docs/policies.md, session 23a).  Two parts, each off by default:

* :class:`TripBank`: a bank of expected trip readings.  While a yielded ramp holds the node it
  accrues ``reads_per_h`` readings per held hour and is charged, every held tick, the readings
  the tick is expected to show: a reading is the trip's code when the value plus the read noise
  reaches the code's lower edge, so the Gaussian upper tail over that edge, from the 2-s level
  and the noise *without* the codes' spread (the measured sigma of the coded readings less
  Sheppard's ``q**2 / 12``, as ``code_once``'s exact margin counts it), per read period.  The
  coded sigma itself (0.34 °C on a Pi 5 against 0.30 of noise) charged a held Pi 5 five times
  what the bench's expectation from the true trajectory books (``compare/expected.py``), and the
  bank was spent within a minute.  A tick that read the trip is charged its expectation too,
  not the reading: the budget is of expected readings, and one seed's reading is the noise's
  lottery (charged in full, a reading at 1730 s on rpi5-steady-25 seed 1 closed the bank, and the
  fall back to the set point cost 60 inferences in 70 s where following cost none).  The policy
  stands back (as
  ``stand_back``) only while the balance is positive, and returns to its set point when it is
  spent.  While the firmware holds the die under the set point the bank saves; when the hold
  point creeps over it, the bank pays for following.  The balance is kept under one hour's
  accrual, so a day's cool hold does not buy an hour of standing back in one go.
* :func:`readback_rung`: the rung the lower agent actually runs, read from the clocks the board
  reads back when they sit under the caps in force (the firmware throttling under the cap).
  ``stand_back``'s floor is otherwise the ramp's rung *estimated* from the noisy readings
  (:meth:`.Stepped._ramp_state`), which reads a rung low when the level does; 23a booked the
  residual −0.02 to −0.06 % to that.  The last rung so read (while the caps were above it) is
  remembered, since a cap under the firmware's clock hides it; a stale rung above the firmware's
  present one costs no heat (the firmware still holds its own clock under the cap).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

SQRT2 = math.sqrt(2.0)


class TripBank:
    """Expected trip readings saved while a yielded ramp holds the node; standing back spends them.

    ``reads_per_h``: the budget accrued per held hour; ``period_s``: the fused sensors' fastest
    read period (one reading per period can read the trip); ``edge_c`` and ``quant_var``: how far
    under the trip the trip's code starts and the codes' variance in the fused value
    (:func:`.fused_code_terms`).
    """

    def __init__(self, reads_per_h: float, period_s: float, edge_c: float, quant_var: float) -> None:
        self.rate_per_s = reads_per_h / 3600.0
        self.period_s = period_s
        self.edge_c = edge_c
        self.quant_var = quant_var
        self.cap = reads_per_h  # one hour's accrual
        self.balance = 0.0  # expected readings saved (negative: overspent)
        self.spent = 0.0  # expected readings charged in all (for the docs' accounting and tests)

    def held_tick(self, dt: float, trip_c: float, level_c: float, sigma_c: float) -> None:
        """A tick while the ramp holds: accrue the budget, charge the tick's expected readings.

        ``sigma_c`` is the measured sigma of the coded readings; the codes' share is taken out.
        """
        if dt <= 0.0:
            return
        bare = sigma_c * sigma_c - self.quant_var
        if bare > 0.0:
            tail = 0.5 * math.erfc((trip_c - self.edge_c - level_c) / (math.sqrt(bare) * SQRT2))
        else:
            tail = 1.0 if level_c >= trip_c - self.edge_c else 0.0
        cost = tail * dt / self.period_s
        self.spent += cost
        self.balance = min(self.balance + self.rate_per_s * dt - cost, self.cap)

    @property
    def open(self) -> bool:
        """Whether readings are left to spend: stand back while they are."""
        return self.balance > 0.0


def readback_rung(
    ladder: list[dict[str, int]], caps_hz: Mapping[str, int], freqs_hz: Mapping[str, int | None]
) -> int | None:
    """The highest rung the board's own clocks reach, when they sit under the caps in force.

    ``None`` when no domain on the ladder reads back a clock under its cap (the board is not
    throttling under the cap, or reads nothing back): the clocks then say only that the lower
    agent allows at least the cap.  Otherwise the highest rung none of whose caps is over the
    clock read back on a domain that reads one (0 when even the lowest rung is).
    """
    under = False
    seen: list[tuple[str, int]] = []
    for d, f in freqs_hz.items():
        if f is None or d not in ladder[0]:
            continue
        seen.append((d, f))
        cap = caps_hz.get(d)
        if cap is not None and f < cap:
            under = True
    if not under:
        return None
    best = 0
    for i, rung in enumerate(ladder):
        if all(rung[d] <= f for d, f in seen):
            best = i
    return best
