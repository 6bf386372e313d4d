"""How often a die held under the trip will read it, from the readings it has shown (``tail_rate``).

``stepped`` keeps its set point ``k`` sigmas under the trip's code so that a die held there by
a firmware ramp reads the trip at most ``trip_reads_per_h`` times an hour.  Two things the
measured sigma (the RMS of the readings around their 2-s level) does not see make the real rate
higher: the *tail* of the reading about the level before it may be wider than the RMS says
(the level has already moved a twentieth of the way to each reading, and lags the die), and
the *level itself wanders* about the set point (a firmware ramp holds it, not the controller).
Session 13 (rpi5-long-1h seed 1) saw the code one under the trip read 10.75 per 1000 where the
measured sigma at the hour's mean level predicts 4.1, and two trip readings where one was
budgeted.  This estimates both from counts, on each tick while a ramp holds the node:

* ``rho``: how often the readings reach the codes one and two under the trip's, against how
  often a Gaussian of the measured sigma about the level before each reading says they should;
  the factor by which that sigma must be widened for the two to agree.  It is a rate ratio, so
  it is shrunk toward 1 with a gamma prior of ``prior_n`` expected counts,
  ``(seen + prior_n) / (expected + prior_n)`` (the posterior mean of a Poisson rate ratio under
  a Gamma(prior_n, prior_n) prior, a standard conjugate result: Gelman et al., *Bayesian Data
  Analysis*, 3rd ed., section 2.6).  Only thresholds at least ``MIN_Z`` sigmas over the level
  count: nearer ones measure the body of the noise, not its tail.
* ``margin_z``: the margin, in sigmas, at which the level's observed distribution about the set
  point (a histogram of ``(level - set point) / sigma``), with the tail widened by ``rho``, expects
  the budgeted trip readings per reading; a prior of ``prior_ticks`` readings with the level at
  the set point keeps a short hold at the plain ``k`` sigmas.

Both are refitted every ``REFIT_S`` held seconds (a bisection over a few hundred bins).

Two options, both off unless given (session 14b, docs/policies.md):

* ``run_reads``: a trip budget per run rather than per hour.  The bench's bound is
  ``hysteresis``'s count per run (one reading, however long the world lasts); a budget per hour
  allows two in a 2-hour world.  The allowed rate per reading becomes ``run_reads`` over the
  run's readings: ``run_ticks`` when the caller knows the run's length (or the readings held so
  far, once a world outlasts it), else the readings held so far, and then never more than the
  hourly rate (early in a hold the hourly budget is the stricter, and nothing says the run is
  short).
* ``forget_ticks``: the wander histogram forgets exponentially with that time constant (in
  readings), so a world whose wander shrinks gets its margin back; the prior (``prior_ticks``
  readings with the level at the set point) does not decay, so a short memory falls back to the
  plain ``k`` sigmas rather than to nothing.  Folded at each refit (the readings of one refit
  interval are aged together, ``REFIT_S`` against a window of many minutes).
"""

from __future__ import annotations

import math

#: A threshold this many sigmas or fewer over the level measures the body of the noise: left out.
MIN_Z = 1.5
#: Width of the histogram bins of the thresholds' distance in sigmas (the fit sums over bins).
Z_BIN = 0.02
#: The widening factor searched, and how often (seconds of held time) it is refitted.
RHO_RANGE = (0.5, 4.0)
REFIT_S = 60.0


SQRT2 = math.sqrt(2.0)


def _upper_tail(z: float) -> float:
    """P(X > z) for a standard normal X (inlined, the same arithmetic, in the fits' sums)."""
    return 0.5 * math.erfc(z / SQRT2)


class TailRate:
    """The noise tail's widening factor and the trip-reading margin, from what held ticks showed.

    ``edges_below_trip_c`` are where the thresholds sit under the trip: the lower edges of the
    codes one and two under the trip's code (a reading at or over such an edge is that code or
    a higher one).  With no declared codes the thresholds are one and two sigmas under the
    trip's edge instead (``step_c`` 0).
    """

    def __init__(
        self,
        trip_edge_c: float,
        step_c: float,
        codes: int,
        prior_n: float,
        budget_p: float,
        prior_ticks: float,
        run_reads: float = 0.0,
        forget_ticks: float = 0.0,
        run_ticks: float = 0.0,
    ) -> None:
        self.trip_edge_c = trip_edge_c  # where readings start to count as the trip's
        self.step_c = step_c
        self.codes = codes
        self.prior_n = prior_n
        self.budget_p = budget_p  # the trip readings allowed per reading
        self.prior_ticks = prior_ticks  # held readings the prior (level at the set point) is worth
        self._bins: dict[int, int] = {}  # threshold distance over the level, in Z_BIN sigmas
        self._over: dict[int, int] = {}  # the level over the set point then in force, in Z_BIN sigmas
        self._ticks = 0
        self.run_reads = run_reads  # trip readings allowed per run (0: the hourly budget alone)
        self.run_ticks = run_ticks  # the run's readings, when the caller knows its length (0: unknown)
        self.forget_ticks = forget_ticks  # the wander's memory, in readings (0: never forgets)
        self._held_ticks = 0  # every held reading so far, never forgotten (the run's budget)
        self._aged: dict[int, float] = {}  # the forgotten-into histogram, when ``forget_ticks``
        self._aged_ticks = 0.0
        self._margin_z = math.inf
        self._seen = 0
        self._rho = 1.0
        self._held_s = 0.0
        self._fitted_s = 0.0

    def observe(self, reading_c: float, level_c: float, sigma_c: float, dt: float, set_c: float) -> None:
        """One held tick: its reading, the level, the sigma of the noise without the codes' spread
        and the set point in force."""
        if sigma_c <= 0.0:
            return
        over = round((level_c - set_c) / sigma_c / Z_BIN)
        self._over[over] = self._over.get(over, 0) + 1
        self._ticks += 1
        step = self.step_c if self.step_c > 0.0 else sigma_c
        bins, seen = self._bins, 0
        for j in range(1, self.codes + 1):
            edge = self.trip_edge_c - j * step
            z = (edge - level_c) / sigma_c
            if z < MIN_Z:
                continue
            key = round(z / Z_BIN)
            bins[key] = bins.get(key, 0) + 1
            if reading_c >= edge - 1e-9:
                seen += 1
        self._seen += seen
        self._held_s += dt
        if self._held_s - self._fitted_s >= REFIT_S:
            self._fitted_s = self._held_s
            if self.forget_ticks > 0.0:
                self._age()
            self._rho = self._fit()
            self._margin_z = self._fit_margin()

    def _age(self) -> None:
        """Fold the readings since the last refit into the aged histogram, after decaying it by
        ``exp(-n / forget_ticks)`` for the ``n`` readings that came in between."""
        n = self._ticks
        self._held_ticks += n
        decay = math.exp(-n / self.forget_ticks)
        aged = {key: w * decay for key, w in self._aged.items()}
        for key, w in self._over.items():
            aged[key] = aged.get(key, 0.0) + w
        self._aged = {key: w for key, w in aged.items() if w > 1e-3}
        self._aged_ticks = self._aged_ticks * decay + n
        self._over, self._ticks = {}, 0

    def _expected(self, rho: float) -> float:
        erfc = math.erfc
        return sum(n * (0.5 * erfc(key * Z_BIN / rho / SQRT2)) for key, n in self._bins.items())

    def _fit(self) -> float:
        """The factor whose Gaussian expects the shrunk rate: bisection (the sum grows with rho)."""
        base = self._expected(1.0)
        target = base * (self._seen + self.prior_n) / (base + self.prior_n)
        lo, hi = RHO_RANGE
        if self._expected(lo) >= target:
            return lo
        if self._expected(hi) <= target:
            return hi
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            if self._expected(mid) < target:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    def _fit_margin(self) -> float:
        """The margin in sigmas whose trip readings, with the level wandering about the set point as
        observed and the tail widened by ``rho``, are ``budget_p`` a reading (bisection: the rate
        falls as the margin grows).  The prior is ``prior_ticks`` readings with the level at the set
        point, where the margin is the default's ``k`` sigmas."""
        rho, n0, erfc = self._rho, self.prior_ticks, math.erfc
        if self.forget_ticks > 0.0:
            over = [(key * Z_BIN, w) for key, w in self._aged.items()]
            weight, held = self._aged_ticks, self._held_ticks
        else:
            over = [(key * Z_BIN, float(n)) for key, n in self._over.items()]
            weight = held = self._ticks
        allowed = self.budget_p * (weight + n0)
        if self.run_reads > 0.0:
            # The run's budget spread over its readings: the known length's, or those held so far.
            per_run = self.run_reads * (weight + n0) / max(held, self.run_ticks, 1.0)
            allowed = per_run if self.run_ticks > 0.0 else min(allowed, per_run)

        def rate(m: float) -> float:
            body = sum(n * (0.5 * erfc((m - z) / rho / SQRT2)) for z, n in over)
            return body + n0 * _upper_tail(m / rho)

        lo, hi = 0.0, 20.0
        if rate(hi) > allowed:
            return hi
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            if rate(mid) > allowed:
                lo = mid
            else:
                hi = mid
        return hi

    @property
    def margin_z(self) -> float:
        """The margin, in sigmas of the noise without the codes, the last fit asks for (inf before it)."""
        return self._margin_z

    @property
    def rho(self) -> float:
        """The widening factor of the last fit (1 until the first, after ``REFIT_S`` held seconds)."""
        return self._rho

    def counts(self) -> tuple[int, float]:
        """Readings seen at the thresholds and the number the measured sigma expects (diagnostics)."""
        return self._seen, self._expected(1.0)
