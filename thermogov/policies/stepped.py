"""``stepped``: the spec's 85/70 °C hysteresis, walking an OPP ladder instead of jumping.

``hysteresis`` holds full clocks until 85 °C and then the lowest clocks until 70 °C; when the
sustainable clock lies in between, it spends its time far from either.  This policy keeps both
thresholds as hard rules and regulates in between:

* **at or above the trip** (``fused >= trip_c``): never raise; one rung down every tick;
* **at or below the release** (``fused <= release_c``): climb to full clocks (the top rung), one
  rung per tick (0.8 s on the Orin Nano's nine rungs);
* **in between**: a PI controller on the *predicted* temperature picks a continuous position
  ``u`` on the ladder (:mod:`.ladder`), ``u = I + k_p * e`` with ``e = set_c - (T + s * horizon_s)``,
  ``T`` the smoothed level and ``s`` the slope from :mod:`.trend`, and ``I`` integrating
  ``k_p * e / t_i_s`` (clamped to the ladder).  A rising trend therefore steps down *before* the
  level arrives, a falling one steps back up, and the integral holds the mean at ``set_c``.
  The rung applied is ``floor(u)`` or the next one up, chosen every ``dither_s`` by a sigma-delta
  accumulator so that the time at the upper rung is the fractional part of ``u``: the
  board time-shares the two rungs that bracket the sustainable power, which is what the oracle
  proves optimal, with a ripple set by ``dither_s`` rather than by the thermal time constants.
  Between dither instants ``u`` may lower the rung at once but never raise it.  The cap
  applied follows that rung one rung per tick, as the trip and release rules move: on a plant
  fast against ``dither_s`` (the emulator at 10x) ``u`` could climb three rungs while the rung
  was held and the next instant released them in one jump, and a tick late on a loaded machine
  let ``u`` slew ``slew_rungs_per_s * dt`` rungs at once (5 -> 1 at 77.8 °C after a 0.5 s tick).
  Only the yield ceiling below (a cap above the clock a firmware ramp runs) drops at once.

Transfers between the three regimes are bumpless: entering the band from full clocks starts
``u`` at the top rung, leaving a trip starts it at the rung the trip left.  In the band the
predicted rise ``s * horizon_s`` may change by at most ``rise_slew_c_per_s`` and ``u`` by
``slew_rungs_per_s``; when the slew limit holds ``u`` back the integral tracks it
(``I = u - k_p * e``) instead of winding up.  On a plant whose trend changes slowly (every
simulated board) neither limit binds.  A plant faster than the trend's window (the emulator at
10x, where the daemon's wall-clock slope is ten times the board's) made the predicted error
collapse ``u`` from full to the lowest rung on the tick after 70 °C was crossed, and the
release rule put it back a tick later: 153 cap changes in 60 s, mostly full-ladder swings.

A measurement anomaly reported by the trend (a spike, a sensor dropping out of fusion or back)
freezes the integral and lets ``u`` only fall.  Every sensor with a hard limit is a second
regulated output: the controller's error is the least of the fused error and, per sensor,
``limit - max(limit_margin_c, noise_k * noise) - (level + slope * horizon_s)`` from the sensor's
own trend, so a slow sensor (a battery) settles just under its margin instead of switching a
guard on and off.  The guard that stops every rung up and forces one rung down per
``limit_dwell_s`` is for a sensor *predicted* to reach its hard limit within ``horizon_s``
(level plus rise within the read noise of the limit), so the hard-limit override should never
have to act.  (It used to fire on proximity alone: on a 2-hour 20 -> 35 °C ramp a battery
sitting at 58.6 °C, 1.4 °C under its 60 °C limit and not rising, held the guard on and walked
the fused value between 75 and 78 °C, 91 % of the oracle against 96 % without it.)  Each rung is the Pareto-best cap combination for its throughput, so
a step gives up the least throughput per watt saved.

Parameters (``[policies.stepped]``): ``trip_c``, ``release_c``, ``margin_c`` and ``noise_k``
(``set_c = trip_c - max(margin_c, noise_k * read noise)``), ``k_p`` (rungs per °C), ``t_i_s``,
``down_gain`` (the integral falls that much faster than it rises), ``horizon_s``, ``dither_s``,
``slew_rungs_per_s``, ``rise_slew_c_per_s``, ``window_s`` and ``level_tau_s`` (trend), ``jump_c``
and ``hold_s`` (anomalies), ``board_margin_c`` and ``board_throttle``, ``limit_margin_c`` and
``limit_dwell_s``, ``follow_board``, ``excursion_k``, ``excursion_any``, ``code_edge``,
``code_edge_coarse``, ``code_once``, ``trip_reads_per_h``, ``near_trip_k``, ``tail_rate``, ``tail_prior_n``, ``tail_prior_s``,
``trip_reads_per_run``, ``run_s``, ``tail_forget_s``, ``bank_window_s``, ``bank_c``, ``rise_trip``,
``rise_novel``, ``limit_own_horizon``, ``limit_settled``, ``limit_settled_horizon_s``,
``first_arrival``, ``gain_ladder`` and ``gain_ladder_trip`` (:mod:`.gain`: ``k_p``, and the trip's
step, scaled on a ladder finer than the suite boards'; the gain's ``"plant"`` rule on by default
since session 18, the trip's step off), ``release_frontier`` (:mod:`.release`, off: the release
goes to the frontier's fastest point when the all-maximum rung is no faster by the model),
``ripple_margin`` (:mod:`.ripple`: the set point's sigma counts the raised gain's share of the
fused reading's spread measured while held, the dither a raised gain passes through; on by
default since session 19a, bit-identical on every suite board).

Board throttles: a step throttle (Jetson sw-throttle: every domain to its floor at once) is
kept clear of, the protected node held ``board_margin_c`` under the temperature it acts at.  A
progressive one (RPi firmware, 80-85 °C on the die) is left to run the clock by default
(``board_throttle = "yield"``): it reads the die itself, without the sensor's noise and 0.55 °C
steps, so keeping under its ramp from the readings cost 0.2-0.3 % against the firmware alone
(issue 13); the cap only stays one rung above the rung the ramp lets run, so the trip rule's
step down reaches the clock.  While such a ramp holds its node mid-ramp and the predicted
fused value is under the set point, the controller is not left below the rung the ramp runs
(``follow_board``): after a cut its integral used to climb back at ``e / t_i_s``, minutes per
rung, with the cap under the firmware's clock.  A reading at the trip reached that way shows
the ramp's hold point within the read noise of the trip; each widens the set point's margin
by ``excursion_k`` sigmas, at most ``noise_k`` more (over seeds 1-5 on rpi5-long-1h following
alone took the firmware's 0.2-0.4 s above the trip against hysteresis's 0.1 s; docs/policies.md).
While such a ramp holds the node the set point's margin is also at least
``trip_sigmas(trip_reads_per_h, period)`` sigmas, ``period`` the fused sensors' fastest: the die
then dwells at the ramp's hold point for as long as the world lasts, so the margin is a
false-exceedance rate, at most ``trip_reads_per_h`` expected readings at the trip per hour (4.03
sigmas at one an hour from a 100 ms sensor, where ``noise_k`` 3.5 allowed 8).  The measured sigma is
of the coded readings, so it carries the codes' spread; the trip code's lower edge is taken at the
trip (a Pi 5's 85.25 °C code starts 0.025 °C under it).  A Jetson's step throttle is never
held, so its set point is ``noise_k``'s as before (docs/policies.md "Session 10: near-miss").
``near_trip_k`` (default 0, off) is a reactive rule for the same hold: while a yielded ramp holds
the node, a fused reading at or above ``trip_c - near_trip_k * sigma`` (``sigma`` the measured read
noise of the coded readings, so the distance means the same on any sensor: 3.5 sigmas is the
84.15 and 84.70 °C codes on a Pi 5 and nothing on a Jetson, whose throttle is never held) puts
the cap one rung under the ramp's rung for that tick only; ``u`` and the integral are left as
they were, so it costs no lasting margin.  With ``excursion_k = 0`` it kept every Pi 5 seed
(1-8, both yardsticks) at or under ``hysteresis``'s time above the trip, and leads the default
by 0.37 % on rpi5-long-1h open-ended, but costs 0.22-0.30 % at rpi5-steady-25's run's end, so
it is a user's choice rather than the default (docs/policies.md, session 12).
``excursion_any`` (default off) counts a reading at the trip reached from the band on any board,
not only while a yielded ramp holds: a Jetson dwelling at ``noise_k`` sigmas (3.5, ~8 trip
readings an hour at 10 Hz) after its fan failed read the trip again a minute after the first
(fan-failure-jetson-xavier-nx); it cuts those repeats but costs 0.1-0.3 % on orin-fan-failure
(docs/policies.md, session 12b).
``code_edge`` (default off) measures the set point's margin from the lower edge of the trip's
code (:func:`fused_code_edge_c`: 0.25 °C under the trip with the Xavier NX's 0.5 °C codes): it
kept that world's bound on seeds 1-8, but moves the Orin Nano's set point by 0.005 °C (its
battery's 0.1 °C codes), changing the Orin suite by up to 0.08 % either way, and broke
day-night-rpi5's bound (0.2 s above the trip against hysteresis's 0.1 s).
``code_once`` (default on since session 13) counts the trip code once (:class:`CodeTerms`):
the margin is the larger of ``k`` sigmas of the coded readings and the code edge plus ``k``
sigmas of the noise without the codes' spread (Sheppard's ``q**2 / 12``, from each sensor's
declared ``quant_c``), so it moves only the set point of a board whose code spread does not already
cover its edge (0.5 °C codes over 0.15 °C of noise: Xavier NX, AGX Xavier, Nano; a Pi 3, whose
85.004 °C code starts 0.265 °C under the trip) and leaves a Pi 4 or 5 and every Orin
bit-identical on the suite and the family worlds (a Pi 5's margin moves 0.007-0.025 °C only while
the measured sigma is over ~1.8 °C, a transient the trend counts as noise).  It kept the Xavier NX fan failure on seeds 1-8 where the default missed 3
(docs/policies.md, session 13).  ``code_edge``, whose margin is never under it, counts the
edge alone when both are on.
``code_edge_coarse`` (default on since session 16d) is ``code_edge`` for the sensors whose code step is over twice
their declared read noise only (:func:`coarse_code_edge_c`: the Xavier NX, AGX Xavier and Nano),
and ``code_once`` elsewhere, so the suite stays bit-identical; on those boards it kept the trip on
33 of 34 world-seeds where the default missed 18, for 0.07-0.9 % of throughput on those boards
(docs/policies.md, session 16d).
``tail_rate`` (default on since session 13b) estimates, while a yielded ramp holds the node, how often the die will
read the trip from what the held ticks showed (:mod:`.tail`): the noise tail's width from how
often the codes one and two under the trip's were read, and the level's wander about the set
point; the margin becomes the trip code's edge plus the sigmas that estimate needs for
``trip_reads_per_h``, when that is more than the default's.  It kept rpi5-long-1h open-ended
seed 1 (two trip readings against ``hysteresis``'s one) and changed rpi5-steady-25 by -0.02 % to
+0.00 % (docs/policies.md, session 13b).
``trip_reads_per_run`` (default 0, off) states the trip budget per run, as the bench's bound
(``hysteresis``'s one reading per run) is: with ``run_s`` (the run's planned length) the budget
is spread over that run, so a 30-min run may read the trip twice an hour and a 2-hour one half as
often; with the length unknown the hourly budget stays and the tail estimate also caps the rate
by the run's budget over the held time so far.  ``tail_forget_s`` (default 0, off) lets the tail's
wander histogram forget with that time constant, its prior kept (docs/policies.md, session 14b).
``bank_c`` (default 0, off) with ``run_s`` and ``bank_window_s``: a run of known length scored on
its final ``bank_window_s`` seconds holds the set point ``bank_c`` lower until that stretch, so the
slow nodes enter it cooler.  It gained 0.7-1.1 % on the three run's-end misses, but cost the
1-hour runs and the cooling family worlds 0.4-6.6 % (docs/policies.md, session 15).
``rise_trip`` (default on since session 16b, with ``rise_novel``): in the band, when the level plus its own rise over
the last ``horizon_s`` (not the trend's 30-s slope, wild on a run's first ticks) reaches the trip,
from a level held at the set point (within a sigma) a horizon earlier, the trip rule's step is
taken before a reading is (one rung down per tick, the integral clamped to it).
The 30-s slope lags a step in the plant: orin-fan-failure read the trip 8.7-12.1 s after the failure
on every seed 1-16 (seed 4 three times, over ``hysteresis``'s 0.2 s); with it none did, for
+0.01 %, but alone it costs orin-bursty 0.07 % (docs/policies.md, session 15c).
``rise_novel`` (default on since session 16b; needs ``rise_trip``) takes that step only for a rise larger than every
rise from a held level the controller has met since the level first reached the set point (counted
from one trend window after it): a burst of load the PI has already ridden out at its set point is
load it regulates, a fan failing is a rise it has not met, and the first arrival from full clocks
has met none.  On orin-bursty ``rise_trip`` alone walked the ladder down on bursts in the scored
half; with both, orin-fan-failure and orin-bursty keep ``hysteresis``'s time above the trip on every
seed 1-16 (the default missed seeds 4, 5 and 14) and six suite rows move by at most 0.02 %
(docs/policies.md, session 16b).
``first_arrival`` (default off; :mod:`.arrival`): on the first approach to the set point from full
clocks the integral winds down over ``horizon_s`` instead of ``t_i_s`` until the level turns, so it
does not arrive wound at the top (board-at-trip-jetson-nano read the trip there on seeds 1, 3, 4
and 5; docs/policies.md, session 18b).
``limit_settled`` (default off): a sensor whose hard limit lies under the trip (a battery) is
kept by a ceiling on ``u`` from an observer of the profile's thermal network (:mod:`.settled`):
the highest rung from which, after ``horizon_s`` there, the lowest rung still holds the sensor
under ``limit - limit_margin_c``, predicted from the heat already stored upstream, which the
sensor's own trend does not show for minutes (the 41.5 °C docked world: 458 s under the
override -> 0 s; docs/policies.md, session 16a).  The ceiling applies at release as well.
``limit_settled_horizon_s`` (default 0: for good) and a stated ``run_s`` (the rest of the run)
bound the look-ahead: the ceiling is then the highest rung that could be held that long under
the limit, so where even the lowest rung cannot hold the pack for good the guard earns at an even
rung until the limit comes within the bound instead of giving up every rung from the first second
(docs/policies.md, session 17b).  With
``limit_settled`` the supply's state (``PolicyInput.power_state``) tells the observer whether the
board's draw heats the pack.
``stand_back`` (default off): while a yielded ramp holds the node, ``u`` is never left under the
ramp's rung even with the level over the set point, so only the trip rule and ``rise_trip`` step
under the lower agent.  On rpi5-steady-25 the default's whole 0.14 % under the firmware alone is
its cap under the firmware's clock in the run's last 190-320 s, where the firmware's hold creeps
over the set point; standing back gains 0.10 % there but reads the trip 0.2-0.4 s on that world
continued and on rpi5-long-1h against ``hysteresis``'s 0.1 s (docs/policies.md, session 23a).
``stand_back_reads_per_h`` (default 0, off; :mod:`.standback`): stand back as ``stand_back`` does
only while a bank of expected trip readings lasts, accrued at this rate per hour a yielded ramp
holds the node and charged each held tick's expected readings; when it is spent, back to the set
point.  ``ramp_readback`` (default off): the ramp's rung followed is at least the one the clocks
read back show while they sit under the caps, not only the one estimated from the readings
(docs/policies.md, session 24b).
``power_settled`` (default off; :mod:`.powerrise`): when the board's measured power says the
rung in force settles over the set point by more than ``noise_k`` read sigmas still to come (a
load rise at full clocks the level has not shown yet), the rung the profile network's settled
model holds at that power is taken at once, not a rung a tick (docs/policies.md, session 27s).
``trip_lag`` (default off; prototype, session 28t): a trip reached from the band with the level
held over the set point shows the PI's lag behind a slow ramp (a heat sink warming after its fan
failed): the set point is lowered by that lag (the least the level sat over the set point through
the last ``horizon_s`` of band ticks, so a fast rise that crossed it seconds ago counts nothing),
at most ``noise_k`` read sigmas in all, and the lowering decays with the profile network's
slowest time constant (:func:`slowest_tau_s`), so the PI's steady lag lands the level on the old
set point while the slow mode settles.  A trip from a level at or under the set point (a noise
tick) lowers nothing; full clocks under the set point (no ramp to trail) and a release forget it.
``power_held`` (default off; session 28c): ``power_settled`` acts only on a held rise: the
recent measured power at a rung in force for at least ``horizon_s`` rose by more than ``noise_k``
of its own standard deviations there (:meth:`.powerrise.PowerSettle.held_rise`), and until it
is back within them; a bursty load's bursts and the power of the policy's own rung rises do not
count.
``"avoid"`` keeps clear of both kinds.  Their
defaults, chosen on the scenario suite, are :class:`SteppedParams` and the :class:`Trend` ones in
:func:`make_stepped`; docs/policies.md quotes them (tests/policies/test_documented_defaults.py
keeps the two equal).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import NamedTuple

from thermogov.board import BoardProfile, SensorProfile
from thermogov.interfaces import ConfigError
from thermogov.policies.arrival import FirstArrival
from thermogov.policies.base import Decision, PolicyContext, PolicyInput
from thermogov.policies.dither import MidTread
from thermogov.policies.gain import GAIN_RULES, gain_scale
from thermogov.policies.hysteresis import read_band
from thermogov.policies.ladder import build_ladder
from thermogov.policies.powerrise import (
    Network,
    PowerSettle,
    ladder_rises_c,
    ladder_split,
)
from thermogov.policies.protections import throttle_allows_c
from thermogov.policies.release import frontier_release
from thermogov.policies.ripple import HeldSpread, raised_share
from thermogov.policies.settled import SettledObserver
from thermogov.policies.sinkramp import SinkRamp, level_held
from thermogov.policies.standback import TripBank, readback_rung
from thermogov.policies.tail import TailRate
from thermogov.policies.trend import Trend, TrendEstimate
from thermogov.tomlcheck import Table

HIGH = "HIGH"
TRIP = "TRIP"
_new_decision = tuple.__new__  # a Decision from its fields in order, per tick without keywords


@dataclass(frozen=True, slots=True)
class SteppedParams:
    trip_c: float = 85.0
    release_c: float = 70.0
    margin_c: float = 0.5
    k_p: float = 1.0
    t_i_s: float = 60.0
    horizon_s: float = 10.0  # chosen by cross-validation over scenario families (docs/policies.md)
    dither_s: float = 2.0
    down_gain: float = 4.0
    noise_k: float = 3.5
    board_margin_c: float = 0.0
    limit_margin_c: float = 1.5
    limit_dwell_s: float = 10.0
    slew_rungs_per_s: float = 10.0
    rise_slew_c_per_s: float = 1.0
    board_throttle: str = "yield"
    follow_board: bool = True
    excursion_k: float = 1.0
    trip_reads_per_h: float = 1.0
    near_trip_k: float = 0.0  # off: session 12 judged it over seeds and worlds (docs/policies.md)
    excursion_any: bool = False  # off: session 12b judged it on the fan-failure worlds (docs/policies.md)
    code_edge: bool = False  # off: session 12b judged it on the fan-failure worlds (docs/policies.md)
    code_edge_coarse: bool = True  # on since 16d: code_edge for coarse codes only (docs/policies.md)
    code_once: bool = True  # on since session 13, judged over seeds and worlds (docs/policies.md)
    tail_rate: bool = True  # on since session 13b, judged over seeds and worlds (docs/policies.md)
    tail_prior_n: float = 20.0  # the tail estimate's prior, in expected readings (policies/tail.py)
    tail_prior_s: float = 600.0  # held seconds the wander's prior (level at the set point) is worth
    trip_reads_per_run: float = 0.0  # off: a trip budget per run as well as per hour (session 14b)
    run_s: float = 0.0  # the run's planned length, when known (0: unknown); for trip_reads_per_run
    tail_forget_s: float = 0.0  # off: the wander histogram's memory, 0 never forgets (session 14b)
    bank_window_s: float = 0.0  # off: the scored stretch at the end of a run of length run_s (session 15)
    bank_c: float = 0.0  # off: how far under the set point to hold before that stretch (session 15)
    rise_trip: bool = True  # on since 16b (with rise_novel): a rise predicting the trip (15c)
    rise_novel: bool = True  # on since 16b: rise_trip only for a rise larger than any the held band met
    limit_own_horizon: bool = False  # off: each hard-limited sensor looks ahead as long as it has risen (15e)
    limit_settled: bool = False  # off: a slow limited node's peak predicted from the RC network (16a)
    limit_settled_horizon_s: float = 0.0  # 0: for good (16a); else how long a rung must be holdable (17b)
    first_arrival: bool = False  # off: the first approach's integral winds down over horizon_s (18b)
    gain_ladder: str = "plant"  # k_p scaled on a finer ladder ("off", "steps"); 18a, default since 18
    gain_ladder_trip: str = "off"  # off: the trip's step down scaled by a gain_ladder rule, rounded (18a)
    release_frontier: bool = False  # off: release to the frontier's top, not all-maximum (19c, 20a)
    ripple_margin: bool = True  # on since 19a: the set point's sigma counts the raised gain's held ripple
    dither_hold: bool = False  # off: the dither mid-tread, a neighbour only when a whole rung is owed (20b)
    stand_back: bool = False  # off: never under a holding lower agent's rung, set point or not (23a)
    stand_back_reads_per_h: float = 0.0  # off: stand back while a bank of trip readings lasts (24b)
    ramp_readback: bool = False  # off: the lower agent's rung also read from the clocks read back (24b)
    power_settled: bool = False  # off: jump to the rung the measured power's settled value holds (27s)
    trip_lag: bool = False  # off (prototype): a trip from the band lowers the set point by the lag seen (28t)
    power_held: bool = (
        False  # off: ``power_settled`` only on a power rise at a held rung beyond its spread (28c)
    )
    sink_ramp: bool = (
        True  # on since 31: feed forward the integral's fall while the PI trails a warming sink (30c)
    )
    sink_ramp_persist: bool = True  # on since 31: sink_ramp only for a trail longer than a step takes (31c)
    sink_ramp_held: bool = False  # off: sink_ramp also counts ticks whose error is a climb's rise (32c)


# The rarest trip reading asked for: one in a million hours.  Fewer would put the tail
# probability (reads_per_h * period / 3600) under the double precision of ``1 - p`` and the
# normal quantile fails (1e-320 raised "p must be in the range 0.0 < p < 1.0", found by the fuzz
# campaign in docs/importing.md); 1e-6 from a 1 ms sensor is still 7.2 sigmas.
MIN_TRIP_READS_PER_H = 1e-6


def per_hour_budget(p: SteppedParams) -> float:
    """The trip readings allowed per hour of hold: ``trip_reads_per_h``, or with
    ``trip_reads_per_run`` and a known run length ``run_s``, that run's budget spread over it (a
    30-min run with one reading per run may read twice an hour; a 2-hour run half as often).
    With the length unknown the hourly budget stays, and :mod:`.tail` caps the rate by the run's
    budget over the held time so far."""
    if p.trip_reads_per_run > 0.0 and p.run_s > 0.0:
        return max(p.trip_reads_per_run * 3600.0 / p.run_s, MIN_TRIP_READS_PER_H)
    return p.trip_reads_per_h


def trip_sigmas(reads_per_h: float, period_s: float) -> float:
    """How many read-noise sigmas under the trip a die may sit and read it ``reads_per_h`` times an hour.

    A sensor read every ``period_s`` gives ``3600 / period_s`` readings an hour; each is over the
    trip with the Gaussian upper tail at the set point's distance, so that tail may be at most
    ``reads_per_h * period_s / 3600``: 4.03 sigmas at one an hour from a 100 ms sensor, 3.45 at 1 s.
    """
    return NormalDist().inv_cdf(1.0 - min(reads_per_h * period_s / 3600.0, 0.5))


class Stepped:
    name = "stepped"
    trip_step = 1  # rungs the trip and rise_trip rules step down a tick (``gain_ladder_trip``)

    def __init__(
        self,
        ladder: list[dict[str, int]],
        p: SteppedParams,
        trend: Trend,
        hard_limits_c: dict[str, float],
        board_limits: list[tuple[tuple[str, ...], list[float]]] | None = None,
        board_ramps: list[tuple[tuple[str, ...], list[float]]] | None = None,
        trip_k: float = 0.0,
        code_edge_c: float = 0.0,
        code_once: CodeTerms | None = None,
        tail: tuple[TailRate, CodeTerms] | None = None,
        settled: SettledObserver | None = None,
    ) -> None:
        self.ladder = ladder
        # ``limit_settled``: the network's observer and the rung ceiling it gives.
        self.settled = settled
        # ``tail_rate``: the noise tail's estimate and the fused codes it measures against.
        self.tail: TailRate | None
        self.tail, self.tail_terms = tail if tail is not None else (None, CodeTerms(0.0, 0.0))
        self.code_edge_c = code_edge_c  # fused_code_edge_c() of the fused sensors when ``code_edge``
        self.code_once = code_once  # fused_code_terms() of the fused sensors when ``code_once``
        self.trip_k = trip_k  # trip_sigmas() of the fused sensors' fastest period
        # Board throttles: (sensors on the protected nodes, allowed temperature per rung); the
        # ones kept under (``board_limits``) and the progressive ones left to act (``board_ramps``).
        self.board_limits = board_limits or []
        self.board_ramps = board_ramps or []
        self._node_level: dict[str, float] = {}
        self._node_alpha: dict[float, float] = {}
        self.top = len(ladder) - 1
        self._states = [f"L{i}" for i in range(self.top)] + [HIGH]  # each rung's state name, made once
        self.p = p
        self.trend = trend
        self.hard_limits_c = hard_limits_c
        self.rung = self.top  # the rung applied
        self._target = self.top  # the dither's rung, which the applied one follows a rung per tick
        self.integral = float(self.top)
        self.u = float(self.top)
        self._acc = 0.0
        self._next_dither_s: float | None = None
        self._last_t: float | None = None
        self._limit_step_s = -1e9
        self.state = HIGH
        self._regime = "release"  # which of the three rules decided the last tick
        self._rise: float | None = None
        # Each hard-limited sensor's own trend, and its slew-limited predicted rise.
        self._limit_trends = {
            name: Trend(trend.window_s, trend.level_tau_s, trend.jump_c, trend.hold_s)
            for name in hard_limits_c
        }
        self._limit_list = tuple(self._limit_trends.items())  # iterated every tick
        self._limit_est: dict[str, TrendEstimate] = {}
        self._limit_seen: dict[str, float] = {}  # time of the reading each trend last took
        self._limit_rise: dict[str, float] = {}
        # ``limit_own_horizon``: when each hard-limited sensor's trend last turned to rising.
        self._rising_since: dict[str, tuple[float, float, float]] = {}  # start, peak slope, its time
        self._limit_horizon: dict[str, float] = {}  # each such sensor's own look-ahead, s
        self._excursions = 0  # readings at the trip reached while following a yielded ramp
        self._holding = False  # a yielded ramp acted mid-ramp on the last band tick
        self._set_c = p.trip_c  # the last band tick's set point, before excursions (``tail_rate``)
        self._tail_level: float | None = None  # the fused level on the last tick the tail saw
        self._start_s: float | None = None  # the first tick's time: the run's start for ``bank_c``
        # ``bank_c``: until this long after the start the set point is lowered (None: never).
        self._bank_until_s = (
            p.run_s - p.bank_window_s
            if p.bank_c > 0.0 and p.run_s > 0.0 and 0.0 < p.bank_window_s < p.run_s
            else None
        )
        # ``rise_trip``: the fused level's recent history, (time, level), over one horizon.
        self._levels: deque[tuple[float, float]] = deque()
        # ``rise_novel``: the largest such rise from a held level since the level reached the set point.
        self._rise_seen = -math.inf
        self._arrived_s: float | None = None  # when the level first reached the set point (``rise_novel``)
        # ``first_arrival``: the integral's first approach from full clocks (:mod:`.arrival`).
        self.arrival = FirstArrival(p.horizon_s, p.t_i_s) if p.first_arrival else None
        # ``ripple_margin``: the fused reading's spread while held (:mod:`.ripple`); set by make_stepped.
        self.ripple: HeldSpread | None = None
        # ``dither_hold``: the mid-tread dither, its base the rung nearest u (:mod:`.dither`).
        self.held = MidTread() if p.dither_hold else None
        # ``stand_back_reads_per_h``: the bank of trip readings (:mod:`.standback`); set by make_stepped.
        self.bank: TripBank | None = None
        self._fw_rung: int | None = None  # ``ramp_readback``: the lower agent's rung last read back
        # ``power_settled``: the measured power's settled fused value (:mod:`.powerrise`); set by make_stepped.
        self.power: PowerSettle | None = None
        # ``trip_lag``: the network's slowest time constant (set by make_stepped; 0: off), the
        # lowering a trip left, when it was left, and the last band tick's level and set point.
        self.lag_tau_s = 0.0
        self._lag_c = 0.0
        self._lag_at_s = 0.0
        self._excess: deque[tuple[float, float]] = deque()  # (time, level over the set point), band ticks
        # ``sink_ramp``: the integral's fall fed forward while the PI trails (:mod:`.sinkramp`); set by make_stepped.
        self.sink: SinkRamp | None = None

    def _track_limits(self, inp: PolicyInput) -> None:
        """Feed every hard-limited sensor's trend each new reading, at the time it was taken.

        A sensor slower than the control tick (a 200 ms battery under a 100 ms tick) shows the
        same reading on several ticks; feeding it on each would count one sample twice in the
        least-squares slope and the noise estimate, and place it at the wrong time.  Without
        reading times (a caller that does not give them) every tick is taken as new.
        """
        readings, est, t = inp.readings_c, self._limit_est, inp.t_s
        times, seen = inp.readings_t_s, self._limit_seen
        for name, tr in self._limit_list:
            v = readings.get(name)
            if v is None:
                est.pop(name, None)
                continue
            at = t if times is None else times.get(name)
            if at is None:
                at = t
            elif at == seen.get(name) and name in est:
                continue  # the reading the trend already has
            seen[name] = at
            e = est[name] = tr.update(at, v)
            if self.p.limit_own_horizon:
                self._own_horizon(name, at, e.slope_c_per_s)

    def _own_horizon(self, name: str, at: float, slope: float) -> None:
        """``limit_own_horizon``: how far ahead sensor ``name`` is looked at, from its own rise.

        As long as its trend has been rising, but no longer than the time constant its slope
        decays with since the rise's steepest point: a first-order node falls off as
        ``s(t) = s_peak * exp(-(t - t_peak) / tau)``, so ``tau = (t - t_peak) / ln(s_peak / s)``
        and ``s * tau`` is the rise still to come.  The elapsed rise alone over-predicted a
        battery that had crept up for 3000 s at a slope that was already dying away
        (orin-long-1h, docs/policies.md session 15e).
        """
        rise = self._rising_since
        if slope <= 0.0:
            rise.pop(name, None)
            self._limit_horizon.pop(name, None)
            return
        start, peak, peak_at = rise.get(name, (at, slope, at))
        if slope >= peak:
            peak, peak_at = slope, at
        rise[name] = (start, peak, peak_at)
        horizon = at - start
        if slope < peak:
            horizon = min(horizon, (at - peak_at) / math.log(peak / slope))
        self._limit_horizon[name] = horizon

    def _limit_errors(self, dt: float) -> tuple[float, bool]:
        """The least per-sensor error to its regulated margin, and whether one is about to hit its limit.

        A sensor whose trend is bridging an anomaly (a spike, a stuck value) is left out: the
        governor's own hard-limit override still watches its raw readings.

        With ``limit_own_horizon`` each sensor looks ahead over its own time scale
        (:meth:`_own_horizon`, at least ``horizon_s``): a battery that lags the board by 10³ s is
        seen that far ahead, and a CPU die at its set point, whose trend changes sign every few
        seconds, keeps the short horizon (docs/policies.md, session 15e).
        """
        p = self.p
        worst, near = math.inf, False
        horizon_s, noise_k, margin_c = p.horizon_s, p.noise_k, p.limit_margin_c
        own = self._limit_horizon if p.limit_own_horizon else None
        lim = p.rise_slew_c_per_s * dt
        entering = self._regime != "band"
        limits, rises = self.hard_limits_c, self._limit_rise
        for name, (level_c, slope, anomaly, noise_c) in self._limit_est.items():
            if anomaly:
                continue
            limit = limits[name]
            ahead = horizon_s
            if own is not None and (h := own.get(name, 0.0)) > horizon_s:
                ahead = h
            target = slope * ahead
            # Slew-limited from no rise on entering the band: a few samples after a trip make a
            # wild slope, and this output only matters once it has a history near its limit.
            old = min(target, 0.0) if entering else rises.get(name, 0.0)
            # min(max(target, old - lim), old + lim) and the min/max below, spelled as the
            # comparisons the builtins make (same operands, same result): this loop runs per
            # hard-limited sensor on every tick, and a builtin call costs more than its compare.
            low, high = old - lim, old + lim
            rise = low if low > target else target
            rise = rises[name] = high if high < rise else rise
            predicted = level_c + rise
            noise = noise_k * noise_c
            err = limit - (noise if noise > margin_c else margin_c) - predicted
            worst = err if err < worst else worst
            if ahead > horizon_s:
                # The far look-ahead regulates; the guard stays for a limit reached within horizon_s.
                predicted = level_c + slope * horizon_s
            near = near or predicted >= limit - noise
        return worst, near

    def _protected_level(self, inp: PolicyInput, sensors: tuple[str, ...], dt: float) -> float | None:
        """Smoothed hottest reading among the sensors on a protected node."""
        hottest = None
        tau = self.trend.level_tau_s
        for name in sensors:
            v = inp.readings_c.get(name)
            if v is None:
                continue
            old = self._node_level.get(name)
            if old is None or tau <= 0:
                a = 1.0
            elif (known := self._node_alpha.get(dt)) is not None:
                a = known
            else:
                # Simulated ticks come at a few distinct intervals: memoised (a board's
                # wall-clock intervals all differ, hence the bound).
                a = 1.0 - math.exp(-dt / tau)
                if len(self._node_alpha) < 64:
                    self._node_alpha[dt] = a
            level = v if old is None else old + a * (v - old)
            self._node_level[name] = level
            hottest = level if hottest is None else max(hottest, level)
        return hottest

    def decide(self, inp: PolicyInput) -> Decision:
        t, fused, p = inp.t_s, inp.fused_c, self.p
        dt = 0.0 if self._last_t is None else max(t - self._last_t, 0.0)
        if self._start_s is None:
            self._start_s = t
        self._last_t = t
        est = self.trend.update(t, fused)
        self._track_limits(inp)
        u_max = math.inf
        if self.settled is not None:
            clocks = {d: f if f is not None else inp.caps_hz[d] for d, f in inp.freqs_hz.items()}
            self.settled.update(
                t,
                inp.readings_c,
                inp.readings_t_s,
                clocks or inp.caps_hz,
                inp.power_w,
                self._settled_bound_s(t),
                inp.power_state,
            )
            u_max = self.settled.u_max
        if self.power is not None:
            self.power.observe(dt, inp.power_w, self.rung if p.power_held else None, t)
        was = self.state
        if fused >= p.trip_c:
            if self.tail is not None and self._holding and not est.anomaly:
                self._observe_tail(fused, est, dt)
            if was != TRIP and not est.anomaly and self._counts_excursion(p):
                self._excursions += 1  # reached from the band: the set point is within noise of the trip
            if self.bank is not None and self._holding and not est.anomaly:
                self.bank.held_tick(dt, p.trip_c, est.level_c, est.noise_c)  # its expectation (.standback)
            if self.lag_tau_s > 0.0 and was != TRIP and self._regime == "band" and not est.anomaly:
                self._trip_lag(t, est.noise_c)
            self.rung = max(self.rung - self.trip_step, 0)
            self.u = min(self.u, float(self.rung))
            self.integral = min(self.integral, float(self.rung))
            if self.arrival is not None:
                self.arrival.end()
            if self.ripple is not None:
                self.ripple.leave()
            if self.sink is not None:
                self.sink.reset()
            self.state = TRIP
            self._regime = "trip"
            return Decision(self.ladder[self.rung], TRIP, "trip" if was != TRIP else "")
        if fused <= p.release_c:
            # Full clocks, one rung per tick: the spec's release without a full-ladder jump.
            self.rung = min(self.rung + 1, self.top)
            if u_max < self.rung:
                # ``limit_settled``: not above the rung a slow limited node can afford, which is
                # approached a rung per tick as well.
                self.rung = max(math.floor(u_max), self.rung - 2)
            self.u = self.integral = float(self.rung)
            self._acc = 0.0
            if self.held is not None:
                self.held.reset()
            self.state = HIGH
            self._regime = "release"
            self._rise_seen, self._arrived_s = -math.inf, None  # ``rise_novel``: a new climb starts afresh
            self._lag_c = 0.0  # ``trip_lag``: a new climb starts afresh
            self._excess.clear()
            if self.arrival is not None:
                self.arrival.restart()
            if self.ripple is not None:
                self.ripple.leave()
            if self.sink is not None:
                self.sink.reset()
            return Decision(self.ladder[self.rung], HIGH, "release" if was != HIGH else "")
        # The set point keeps ``noise_k`` standard deviations of read noise below the trip, so
        # the *measured* fused value (what the trip rule and the spec look at) stays under it.
        # While a yielded ramp holds the node the die dwells at the ramp's hold point as long as
        # the world lasts (an hour and more), and the set point bounds how often a reading
        # reaches the trip from there: ``trip_reads_per_h`` (see :func:`trip_sigmas`).
        allowed, holding = self._ramp_state(inp, dt)
        k = max(p.noise_k, self.trip_k) if holding else p.noise_k
        sigma = est.noise_c
        if self.ripple is not None:
            # ``ripple_margin``: the loop's own ripple counted, as measured while held (.ripple).
            self.ripple.observe(t, dt, fused, est.level_c, self._set_c, est.anomaly)
            sigma = self.ripple.sigma_c(sigma)
        margin = k * sigma
        if self.code_once is not None:
            margin = self.code_once.margin_c(k, sigma)
        if self.tail is not None and holding and not est.anomaly:
            margin = max(margin, self._tail_margin(fused, est, dt, k))
        set_c = p.trip_c - max(p.margin_c, margin) - self.code_edge_c
        self._set_c = set_c
        if self._bank_until_s is not None and t - self._start_s < self._bank_until_s:
            # A run of known length scored on its final stretch: before it, hold ``bank_c`` under
            # the set point, so the heat sinks enter that stretch cooler (docs/policies.md,
            # session 15).  The tail's and the trip budget's set point (``_set_c``) is unchanged.
            set_c -= p.bank_c
        if self._excursions:
            # Each reading at the trip while following a yielded ramp (below) shows its hold
            # point within the read noise of the trip: widen the margin by ``excursion_k`` sigma.
            # At most doubled (a world that outgrows the ramp is the trip rule's business).
            set_c -= min(p.excursion_k * self._excursions, p.noise_k) * est.noise_c
        if self.lag_tau_s > 0.0:
            # ``trip_lag``: the last trip's lag, decaying as the slow mode settles (session 28t).
            if self._lag_c > 0.0:
                set_c -= self._lag_c * math.exp(-(t - self._lag_at_s) / self.lag_tau_s)
            excess = self._excess
            if est.anomaly:
                excess.clear()
            else:
                excess.append((t, est.level_c - set_c))
                while len(excess) > 1 and excess[1][0] <= t - p.horizon_s:
                    excess.popleft()
                if est.level_c < set_c and self.rung == self.top:
                    # Full clocks under the set point: the PI trails no ramp (the load fell, or
                    # the node cooled); a lag seen before says nothing about the next climb.
                    self._lag_c = 0.0
        # The predicted rise may change only ``rise_slew_c_per_s``: a plant faster than the
        # trend window (the emulator at 10x) otherwise swings it by tens of degrees per tick.
        target = est.slope_c_per_s * p.horizon_s
        if p.rise_trip and self._rise_trips(t, est):
            # The level plus its rise over the last horizon, carried over the next one, reaches
            # the trip: the trip rule's step (one rung down this tick, never up) before a reading
            # does, if the rise started with the level held at the set point (within one sigma; a
            # burst of load from a cooler level is the PI's).  After a step in the plant (a fan
            # failing while the die sits at the set point) the 30-s slope shows a third of the rise
            # 10 s in and the PI gives back one rung where three were needed; every seed of
            # orin-fan-failure then read the trip (session 15c).
            self.rung = max(self.rung - self.trip_step, 0)
            self.u = min(self.u, float(self.rung))
            self.integral = min(self.integral, float(self.rung))
            self._target = min(self._target, self.rung)
            if self.arrival is not None:
                self.arrival.end()
            if self.sink is not None:
                self.sink.reset()
            self._regime = "band"
            self.state = self._states[self.rung]
            return _new_decision(Decision, (self.ladder[self.rung], self.state, ""))
        if self.power is not None and not est.anomaly:
            # ``power_settled``: the measured power says the rung in force settles over the set
            # point (a load rise the temperature has not shown yet): the rung the network's model
            # holds at that power, at once, not a rung a tick (:mod:`.powerrise`).  Only a rise
            # to come larger than the set point's read-noise band (``noise_k`` sigmas) counts: the
            # dither's own ripple in the power is the PI's to ride, not a load rise.
            to_come = self.power.to_come_c()
            rose = not p.power_held or self.power.held_rise(p.noise_k, p.horizon_s, t)
            if (
                rose
                and to_come is not None
                and to_come > p.noise_k * est.noise_c
                and est.level_c + to_come > set_c
            ):
                hold = self.power.hold_rung(self.rung, est.level_c + to_come, set_c)
                if hold < self.rung:
                    self.power.stepped_down(self.rung, hold)
                    self.rung = self._target = hold
                    self.u = float(hold)
                    self.integral = min(self.integral, float(hold))
                    if self.arrival is not None:
                        self.arrival.end()
                    self._regime = "band"
                    self.state = self._states[hold]
                    event = "step" if self.state != was and was != TRIP else ""
                    return _new_decision(Decision, (self.ladder[hold], self.state, event))
        if self._rise is None or self._regime != "band":
            self._rise = min(target, 0.0) if self._regime == "release" else target
        lim = p.rise_slew_c_per_s * dt
        self._rise = rise = min(max(target, self._rise - lim), self._rise + lim)
        error = set_c - (est.level_c + rise)
        for sensors, allows in self.board_limits:
            # Keep the protected node under the temperature at which the board itself would
            # take the next rung up away (RPi firmware from 80 °C), not just under the trip.
            node = self._protected_level(inp, sensors, dt)
            if node is not None:
                # The limit of the rung the dither reaches up to; u within 0.1 of an integer
                # counts as that rung, so u can rest just above it instead of chattering
                # across it (and dithering down a rung) when the two limits straddle T.
                upper = min(max(math.ceil(self.u - 0.1), 0), self.top)
                error = min(error, allows[upper] - p.board_margin_c - (node + rise))
        # A progressive board throttle left to act (``board_throttle = "yield"``) runs the
        # clock; the cap stays at most one rung above the rung it lets run at the node's level,
        # so the trip rule's one rung down is a real step and not a cap far above the clock.
        self._holding = holding
        floor, standing = allowed, p.stand_back
        if self.bank is not None or p.ramp_readback:
            floor, standing = self._stand_back(inp, dt, holding, allowed, est)
        ceiling = float(min(floor + 1, self.top))
        limit_error, near = self._limit_errors(dt)
        error = min(error, limit_error)
        if not est.anomaly and not near:
            # Give back headroom faster than taking it: the integral falls ``down_gain`` times
            # quicker than it rises, so arriving at the trip from full speed does not overshoot.
            t_i_s = (
                p.t_i_s if self.arrival is None else self.arrival.integral_time_s(error, est.slope_c_per_s)
            )
            rate = p.k_p * error / t_i_s * (p.down_gain if error < 0 else 1.0)
            if self.sink is not None:
                # ``sink_ramp``: the fall the PI has kept up a whole window, fed forward (.sinkramp).
                held = level_held(est.level_c, set_c, rise)
                rate += self.sink.rate(t, error, holding, held)
                self.sink.moved(rate * dt)
            self.integral = min(max(self.integral + rate * dt, 0.0), float(self.top))
        if self._regime != "band":
            # Bumpless entry into the band: start from the rung in force, not from I + k_p*e.
            self.u = float(self.rung)
            self._target = self.rung
        u = min(max(self.integral + p.k_p * error, 0.0), float(self.top))
        step = p.slew_rungs_per_s * dt
        if abs(u - self.u) > step:
            # Slew limit; the integral tracks the limited u so it cannot wind up meanwhile.
            u = self.u + math.copysign(step, u - self.u)
            if not est.anomaly and not near:
                self.integral = min(max(u - p.k_p * error, 0.0), float(self.top))
        if est.anomaly or near:
            u = min(u, self.u)  # bridging a glitch, or a sensor near its limit: never raise
        elif p.follow_board and holding and u < floor and (standing or est.level_c + max(rise, 0.0) < set_c):
            # A yielded ramp holds its node and the predicted fused value is under the set point
            # (itself a read-noise margin under the trip): the controller is not left below the
            # rung the ramp runs; after a cut its integral would climb back at e / t_i_s, which
            # is minutes per rung a noise margin from the set point.
            # ``stand_back`` drops the set point's condition: the lower agent regulates the die
            # itself, and only the trip rule and ``rise_trip`` step under it (session 23a); with
            # ``stand_back_reads_per_h`` only while the bank of trip readings lasts (session 24b).
            u = float(floor)
            self.integral = max(self.integral, u)
        if u > ceiling:
            u = ceiling
            self.integral = min(self.integral, ceiling)
        if u > u_max:
            # ``limit_settled``: the highest position from which the lowest rung can still keep a
            # slow limited node (a battery) under its margin, predicted by the network's observer.
            u = max(u_max, 0.0)
            self.integral = min(self.integral, u)
        if near and t - self._limit_step_s >= p.limit_dwell_s:
            # A slow sensor (a battery) answers a clock change over minutes: one rung per
            # ``limit_dwell_s`` is enough to turn it, and does not throw the whole ladder away.
            u = min(u, self.rung - 1.0)
            self.integral = min(self.integral, max(u, 0.0))
            self._limit_step_s = t
        self.u = max(u, 0.0)
        self._regime = "band"
        before = self.rung
        self._dither(t)
        target = self._target
        if near:  # the dither may not take a rung back up either while a limit is closing in
            target = self._target = min(target, before)
        # One rung per tick at most, as the trip and release rules move: the dither's rung can
        # be several away (u rose for a whole dither period while the rung was held, or fell
        # slew_rungs_per_s * dt on a late tick); the cap follows it on the next ticks.
        rung = min(max(target, before - 1), before + 1)
        # Except down to the ceiling: a cap over the rung above a yielded ramp's clock moves no
        # clock, and the trip rule's next step must land on the clock (it drops at once).
        self.rung = min(rung, max(int(ceiling), target))
        if (
            p.near_trip_k > 0.0
            and holding
            and p.follow_board
            and not est.anomaly
            and fused >= p.trip_c - p.near_trip_k * est.noise_c
        ):
            # A reading within ``near_trip_k`` sigmas of the trip while a yielded ramp holds the
            # node: one rung under the ramp's for this tick only (u and the integral untouched,
            # so it leaves no lasting margin; the next tick climbs back a rung).
            self.rung = min(self.rung, max(allowed - 1, 0))
        self.state = self._states[self.rung]
        event = "step" if self.state != was and was != TRIP else ""
        return _new_decision(Decision, (self.ladder[self.rung], self.state, event))

    def _trip_lag(self, t: float, sigma: float) -> None:
        """``trip_lag``: a trip reached from the band lowers the set point by the lag it showed.

        The lag is the least the level sat over the (already lowered) set point through the last
        ``horizon_s`` of band ticks: a PI following a slow ramp sits a constant error behind it,
        held all that time, and that error is what carried the level to the trip.  A fast rise
        (a load switch) crossed the set point only seconds ago: its least excess over the horizon
        is at or under zero, and it lowers nothing; nor does a trip by a noise tick from a level
        under the set point.  A history shorter than half a horizon says nothing.  What is left
        of an earlier lowering adds to it; the whole is at most ``noise_k`` read sigmas (the
        excursions' cap).
        """
        excess = self._excess
        while excess and excess[0][0] < t - self.p.horizon_s:
            excess.popleft()  # band ticks from before a stretch at the trip
        if not excess or t - excess[0][0] < 0.5 * self.p.horizon_s:
            return
        seen = min(e for _, e in excess)
        if seen <= 0.0:
            return
        left = self._lag_c * math.exp(-(t - self._lag_at_s) / self.lag_tau_s) if self._lag_c > 0.0 else 0.0
        self._lag_c = min(left + seen, self.p.noise_k * sigma)
        self._lag_at_s = t

    def _stand_back(
        self, inp: PolicyInput, dt: float, holding: bool, allowed: int, est: TrendEstimate
    ) -> tuple[int, bool]:
        """The lower agent's rung to follow and whether to stand back over the set point (:mod:`.standback`).

        ``ramp_readback``: the rung is at least the one the clocks read back while under the caps
        (remembered while the ramp holds; forgotten when it lets go).  ``stand_back_reads_per_h``:
        the bank accrues and is charged on every held tick, and the policy stands back while it
        lasts (``stand_back`` stands back regardless).
        """
        p, floor = self.p, allowed
        if p.ramp_readback:
            if not holding:
                self._fw_rung = None
            elif (seen := readback_rung(self.ladder, inp.caps_hz, inp.freqs_hz)) is not None:
                self._fw_rung = seen
            if self._fw_rung is not None and self._fw_rung > floor:
                floor = self._fw_rung
        standing = p.stand_back
        if self.bank is not None and holding and not est.anomaly:
            self.bank.held_tick(dt, p.trip_c, est.level_c, est.noise_c)
            standing = standing or self.bank.open
        return floor, standing

    def _settled_bound_s(self, t: float) -> float:
        """``limit_settled``: how long a rung must be holdable under the slow limits (session 17b).

        The stated ``limit_settled_horizon_s``, and the rest of a run whose length ``run_s`` the
        user states: past the run's end a limit the pack would reach costs this run nothing.
        ``inf`` (the settled peak, session 16a) when neither is given.
        """
        p = self.p
        bound = p.limit_settled_horizon_s if p.limit_settled_horizon_s > 0.0 else math.inf
        if p.run_s > 0.0 and self._start_s is not None:
            bound = min(bound, max(p.run_s - (t - self._start_s), 0.0))
        return bound

    def _rise_trips(self, t: float, est: TrendEstimate) -> bool:
        """``rise_trip``: whether the level's recent rise, from a held level, carries it to the trip.

        With ``rise_novel`` the rise must also be larger than every rise from a held level seen
        since the level first reached the set point (``_rise_seen``; reset by the release to full
        clocks).  Rises are recorded from one trend window (``window_s``) after that arrival: the
        arrival's own overshoot from full clocks, with a read-noise sigma the climb has inflated,
        counted as held and once set a record (0.80 °C on orin-fan-failure seed 7) the fan's
        failure then did not beat.
        """
        recent = self._recent_rise(t, est)
        if self._levels and self._levels[0][1] < self._set_c - est.noise_c:
            return False  # a rise from under the set point (a burst from a cooler level) is the PI's
        reaches = est.level_c + recent >= self.p.trip_c
        if not self.p.rise_novel:
            return reaches
        if self._arrived_s is None and est.level_c >= self._set_c:
            self._arrived_s = t
        seen = self._rise_seen
        if recent > seen and self._arrived_s is not None and t - self._arrived_s >= self.trend.window_s:
            self._rise_seen = recent
        return reaches and recent > seen

    def _recent_rise(self, t: float, est: TrendEstimate) -> float:
        """``rise_trip``: the level's change over the last ``horizon_s``, carried over the next one.

        The trend's slope is a least-squares line over ``window_s`` (30 s), so after a step in the
        plant (a fan failing while the die is held at the set point) it shows a third of the new
        rise 10 s in; the level's own change over one horizon shows all of it.  Minus infinity
        (nothing predicted) while the history is shorter than half a horizon (it is fed on band
        ticks only) or the trend bridges an anomaly.
        """
        levels, horizon = self._levels, self.p.horizon_s
        if est.anomaly:
            levels.clear()
            return -math.inf
        levels.append((t, est.level_c))
        while len(levels) > 1 and levels[1][0] <= t - horizon:
            levels.popleft()
        t0, level0 = levels[0]
        span = t - t0
        if span < 0.5 * horizon or span <= 0.0:
            return -math.inf
        return (est.level_c - level0) * horizon / span

    def _observe_tail(self, fused: float, est: TrendEstimate, dt: float) -> float:
        """Feed a held tick to the tail estimate; returns the sigma of the noise without the codes."""
        bare = est.noise_c * est.noise_c - self.tail_terms.quant_var
        sigma = math.sqrt(bare) if bare > 0.0 else 0.0
        assert self.tail is not None
        # The level before this reading: the 2-s level has already moved ~5 % of the way to it.
        before = self._tail_level
        self._tail_level = est.level_c
        if before is not None:
            self.tail.observe(fused, before, sigma, dt, self._set_c)
        return sigma

    def _tail_margin(self, fused: float, est: TrendEstimate, dt: float, k: float) -> float:
        """``tail_rate``: the margin that keeps ``k`` sigmas of the *tail's* noise under the trip's code.

        The tail estimate (:mod:`.tail`) widens the sigma without the codes by the factor that
        makes a Gaussian match the readings seen at the codes just under the trip; the margin is
        the trip code's edge plus ``k`` such sigmas, and only ever lowers the set point (a thinner
        tail than the sigma's leaves the default's margin)."""
        sigma = self._observe_tail(fused, est, dt)
        assert self.tail is not None
        tail = self.tail
        z = k * tail.rho
        if math.isfinite(tail.margin_z):
            # At most ``noise_k`` sigmas more, as the excursions' widening: the wander is measured
            # about the set point, so a level that cannot follow it down (the lowest rung) would
            # otherwise read as ever more wander and walk the set point away.
            z = min(max(tail.margin_z, z), k + self.p.noise_k)
        return self.tail_terms.edge_c + z * sigma

    def _counts_excursion(self, p: SteppedParams) -> bool:
        """Whether a reading at the trip, reached on this tick, widens the set point's margin.

        By default only while a yielded ramp held the node (the Pi firmware's hold point).  With
        ``excursion_any`` any reading at the trip reached from the band counts: the controller
        was regulating, so its set point sits within the read noise of the trip on this plant,
        whatever holds it there (a Jetson dwelling at ``noise_k`` sigmas once its fan failed).
        """
        if p.excursion_any:
            return self._regime == "band"
        return self._holding and p.follow_board

    def _ramp_state(self, inp: PolicyInput, dt: float) -> tuple[int, bool]:
        """The highest rung every progressive board throttle left to act lets run now, and
        whether one of them is acting mid-ramp (it takes clocks away but has rungs left to take)."""
        allowed, holding = self.top, False
        for sensors, allows in self.board_ramps:
            node = self._protected_level(inp, sensors, dt)
            if node is None:
                continue
            rung = max((i for i, a in enumerate(allows) if a >= node), default=0)
            allowed = min(allowed, rung)
            holding = holding or (rung < self.top and any(math.isfinite(a) and a >= node for a in allows))
        return allowed, holding

    def _dither(self, t: float) -> None:
        """Sigma-delta between floor(u) and floor(u) + 1; lowering is allowed at any tick.

        Sets the target rung; :meth:`decide` moves the applied one towards it a rung per tick.
        """
        # ``dither_hold`` (policies/dither.py), except while a yielded ramp holds the node: there
        # the firmware's ramp modulates the clock and the cap only bounds it a rung above.
        if (
            self.held is not None
            and not self._holding
            and (self._next_dither_s is None or t >= self._next_dither_s - 1e-9)
        ):
            self._target = self.held.step(self.u, self.top)
            self._next_dither_s = t + self.p.dither_s
        elif self._next_dither_s is None or t >= self._next_dither_s - 1e-9:
            base = math.floor(self.u)
            self._acc += self.u - base
            if self._acc >= 1.0 and base < self.top:
                self._acc -= 1.0
                self._target = base + 1
            else:
                self._acc = min(self._acc, 1.0)
                self._target = base
            self._next_dither_s = t + self.p.dither_s
        else:
            self._target = min(self._target, math.ceil(self.u))


def make_stepped(params: Table, ctx: PolicyContext, argument: str) -> Stepped:
    if argument:
        raise ConfigError(f"policy: 'stepped' takes no argument (got 'stepped:{argument}')")
    d = SteppedParams()
    trip, release = read_band(params)
    p = SteppedParams(
        trip_c=trip,
        release_c=release,
        margin_c=params.number("margin_c", d.margin_c, minimum=0.0, maximum=20.0),
        k_p=params.number("k_p", d.k_p, minimum=0.0, maximum=100.0),
        t_i_s=params.number("t_i_s", d.t_i_s, minimum=0.1, maximum=1e5),
        horizon_s=params.number("horizon_s", d.horizon_s, minimum=0.0, maximum=600.0),
        dither_s=params.number("dither_s", d.dither_s, minimum=0.0, maximum=600.0),
        down_gain=params.number("down_gain", d.down_gain, minimum=1.0, maximum=100.0),
        noise_k=params.number("noise_k", d.noise_k, minimum=0.0, maximum=20.0),
        board_margin_c=params.number("board_margin_c", d.board_margin_c, minimum=0.0, maximum=20.0),
        limit_margin_c=params.number("limit_margin_c", d.limit_margin_c, minimum=0.0, maximum=50.0),
        limit_dwell_s=params.number("limit_dwell_s", d.limit_dwell_s, minimum=0.0, maximum=3600.0),
        slew_rungs_per_s=params.number(
            "slew_rungs_per_s", d.slew_rungs_per_s, minimum=0.0, exclusive_min=True, maximum=1000.0
        ),
        rise_slew_c_per_s=params.number(
            "rise_slew_c_per_s", d.rise_slew_c_per_s, minimum=0.0, exclusive_min=True, maximum=1000.0
        ),
        board_throttle=params.choice("board_throttle", ("yield", "avoid"), d.board_throttle),
        follow_board=params.boolean("follow_board", d.follow_board),
        stand_back=params.boolean("stand_back", d.stand_back),
        stand_back_reads_per_h=params.number(
            "stand_back_reads_per_h", d.stand_back_reads_per_h, minimum=0.0, maximum=3600.0
        ),
        ramp_readback=params.boolean("ramp_readback", d.ramp_readback),
        power_settled=params.boolean("power_settled", d.power_settled),
        trip_lag=params.boolean("trip_lag", d.trip_lag),
        power_held=params.boolean("power_held", d.power_held),
        sink_ramp=params.boolean("sink_ramp", d.sink_ramp),
        sink_ramp_persist=params.boolean("sink_ramp_persist", d.sink_ramp_persist),
        sink_ramp_held=params.boolean("sink_ramp_held", d.sink_ramp_held),
        excursion_k=params.number("excursion_k", d.excursion_k, minimum=0.0, maximum=20.0),
        trip_reads_per_h=params.number(
            "trip_reads_per_h", d.trip_reads_per_h, minimum=MIN_TRIP_READS_PER_H, maximum=3600.0
        ),
        near_trip_k=params.number("near_trip_k", d.near_trip_k, minimum=0.0, maximum=20.0),
        excursion_any=params.boolean("excursion_any", d.excursion_any),
        code_edge=params.boolean("code_edge", d.code_edge),
        code_edge_coarse=params.boolean("code_edge_coarse", d.code_edge_coarse),
        code_once=params.boolean("code_once", d.code_once),
        tail_rate=params.boolean("tail_rate", d.tail_rate),
        tail_prior_n=params.number("tail_prior_n", d.tail_prior_n, minimum=0.0, maximum=1e6),
        tail_prior_s=params.number("tail_prior_s", d.tail_prior_s, minimum=0.0, maximum=1e6),
        trip_reads_per_run=params.number(
            "trip_reads_per_run", d.trip_reads_per_run, minimum=0.0, maximum=1e6
        ),
        run_s=params.number("run_s", d.run_s, minimum=0.0, maximum=1e8),
        tail_forget_s=params.number("tail_forget_s", d.tail_forget_s, minimum=0.0, maximum=1e7),
        bank_window_s=params.number("bank_window_s", d.bank_window_s, minimum=0.0, maximum=1e8),
        bank_c=params.number("bank_c", d.bank_c, minimum=0.0, maximum=14.0),
        rise_trip=params.boolean("rise_trip", d.rise_trip),
        rise_novel=params.boolean("rise_novel", d.rise_novel),
        limit_own_horizon=params.boolean("limit_own_horizon", d.limit_own_horizon),
        limit_settled=params.boolean("limit_settled", d.limit_settled),
        limit_settled_horizon_s=params.number(
            "limit_settled_horizon_s", d.limit_settled_horizon_s, minimum=0.0, maximum=1e8
        ),
        first_arrival=params.boolean("first_arrival", d.first_arrival),
        gain_ladder=params.choice("gain_ladder", GAIN_RULES, d.gain_ladder),
        gain_ladder_trip=params.choice("gain_ladder_trip", GAIN_RULES, d.gain_ladder_trip),
        release_frontier=params.boolean("release_frontier", d.release_frontier),
        ripple_margin=params.boolean("ripple_margin", d.ripple_margin),
        dither_hold=params.boolean("dither_hold", d.dither_hold),
    )
    if p.bank_c > 0.0 and not 0.0 < p.bank_window_s < p.run_s:
        raise ConfigError(
            f"{params.where}.bank_c: needs run_s (the run's length) and 0 < bank_window_s < run_s;"
            " set both or bank_c = 0"
        )
    # Only a rise_novel the user set is refused without rise_trip: both are on by default, and
    # `rise_trip = false` alone must turn the rule off, not fail on the default it refines.
    if p.rise_novel and not p.rise_trip and params.has("rise_novel"):
        raise ConfigError(
            f"{params.where}.rise_novel: refines rise_trip; set rise_trip = true too, or rise_novel = false"
        )
    if p.trip_c - p.margin_c - p.bank_c <= p.release_c:
        raise ConfigError(f"{params.where}.bank_c: trip_c - margin_c - bank_c must stay above release_c")
    if p.trip_c - p.margin_c <= p.release_c:
        raise ConfigError(f"{params.where}.margin_c: trip_c - margin_c must stay above release_c")
    trend = Trend(
        window_s=params.number("window_s", 30.0, minimum=0.5, maximum=3600.0),
        level_tau_s=params.number("level_tau_s", 2.0, minimum=0.0, maximum=600.0),
        jump_c=params.number("jump_c", 2.0, minimum=0.1, maximum=100.0),
        hold_s=params.number("hold_s", 60.0, minimum=0.0, maximum=3600.0),
    )
    params.done()
    # ``sink_ramp_persist``: a step in the load or the plant (a burst, the Pi firmware's own
    # throttle taking a rung) leaves an error the PI's falling integral works off in about
    # t_i_s / (k_p * down_gain), with the k_p set (before ``gain_ladder`` scales it to the ladder,
    # which keeps the loop's speed the same); only a trail over the set point that outlasts that,
    # past the window, is taken for a ramp.  Nor is a trail while the board's own throttle holds
    # the node (the Pi firmware): the clock is the board's, and ``follow_board`` lifts the integral
    # back to its rung each cycle, so the integral's fall measures no ramp in the plant
    # (docs/policies.md, Session 31c).
    persist_s = 0.0
    if p.sink_ramp_persist:
        persist_s = p.t_i_s / (p.k_p * p.down_gain) if p.k_p > 0.0 else math.inf
    limits = {s.name: s.hard_limit_c for s in ctx.board.sensors if s.name in ctx.sensor_names}
    ladder = build_ladder(ctx.board, ctx.tables_hz)
    if p.release_frontier:
        ladder = frontier_release(ctx.board, ladder)  # policies/release.py
    scale = gain_scale(p.gain_ladder, ctx.board, ladder, ctx.sensor_names)  # policies/gain.py
    if scale != 1.0:
        p = replace(p, k_p=p.k_p * scale)
    kept = board_limits(ctx, ladder, progressive=p.board_throttle == "avoid")
    ramps = board_limits(ctx, ladder, progressive=True, step=False) if p.board_throttle == "yield" else []
    periods = [s.period_ms for s in ctx.board.sensors if s.name in ctx.sensor_names]
    trip_k = trip_sigmas(per_hour_budget(p), min(periods) / 1000.0) if periods else 0.0
    if p.code_edge:
        edge = fused_code_edge_c(ctx, p.trip_c)
    elif p.code_edge_coarse:
        edge = coarse_code_edge_c(ctx, p.trip_c)
    else:
        edge = 0.0
    # code_edge's margin (the edge on top of k coded sigmas) is never under code_once's, which it
    # contains: with both, the edge is counted by code_edge alone.  code_edge_coarse likewise
    # where it finds a coarse code, and leaves code_once's margin to the last bit where it finds none.
    once = fused_code_terms(ctx, p.trip_c) if p.code_once and edge == 0.0 else None
    tail = None
    if p.tail_rate:
        terms = fused_code_terms(ctx, p.trip_c)
        # The fused value's code width (a lone sensor's quant_c; zero with no codes): the
        # thresholds are the codes one and two under the trip's (policies/tail.py).
        period = min(periods) / 1000.0 if periods else ctx.control_period_s
        budget = min(per_hour_budget(p) * period / 3600.0, 0.5)
        rate = TailRate(
            p.trip_c - terms.edge_c,
            math.sqrt(12.0 * terms.quant_var),
            2,
            p.tail_prior_n,
            budget,
            p.tail_prior_s / ctx.control_period_s,
            p.trip_reads_per_run,
            p.tail_forget_s / ctx.control_period_s,
            p.run_s / ctx.control_period_s if p.trip_reads_per_run > 0.0 else 0.0,
        )
        tail = (rate, terms)
    settled = None
    if p.limit_settled:
        # A sensor whose hard limit lies at or under the trip (a battery) is the one the trip
        # rule cannot keep; the dies' limits (95 °C over an 85 °C trip) are the trip rule's.
        slow = {n: lim - p.limit_margin_c for n, lim in limits.items() if lim <= p.trip_c}
        if slow:
            settled = SettledObserver(ctx.board, ladder, ctx.sensor_names, slow, p.horizon_s)
    stepped = Stepped(ladder, p, trend, limits, kept, ramps, trip_k, edge, once, tail, settled)
    if p.stand_back_reads_per_h > 0.0 and ramps:
        # Only a board with a progressive throttle left to act has a lower agent to stand back from.
        read_s = min(periods) / 1000.0 if periods else ctx.control_period_s
        codes = fused_code_terms(ctx, p.trip_c)
        stepped.bank = TripBank(p.stand_back_reads_per_h, read_s, codes.edge_c, codes.quant_var)
    if p.power_settled:
        rises, c_per_w = ladder_rises_c(ctx.board, ladder, ctx.sensor_names)  # policies/powerrise.py
        network = Network(ctx.board, ctx.sensor_names)
        split = ladder_split(ctx.board, ladder)
        stepped.power = PowerSettle(rises, c_per_w, p.horizon_s, network, split)
    if p.trip_lag:
        stepped.lag_tau_s = slowest_tau_s(ctx.board)
    if p.sink_ramp:
        stepped.sink = SinkRamp(
            p.horizon_s, persist_s, board_ends=p.sink_ramp_persist, held_only=p.sink_ramp_held
        )  # policies/sinkramp.py
    if p.gain_ladder_trip != "off":
        trip_scale = gain_scale(p.gain_ladder_trip, ctx.board, ladder, ctx.sensor_names)
        stepped.trip_step = max(round(trip_scale), 1)
    if p.ripple_margin and raised_share(scale) > 0.0 and not has_coarse_code(ctx, p.trip_c):
        # The raised gain's share of the held spread (.ripple); not read through coarse codes.
        stepped.ripple = HeldSpread(trend.window_s, raised_share(scale))
    return stepped


def slowest_tau_s(board: BoardProfile) -> float:
    """The profile's RC network's slowest time constant, s (``trip_lag``; pure Python).

    The time constants are the eigenvalues of ``G^-1 C`` (``C dx/dt = -G x``: ``C`` the nodes'
    heat capacities, ``G`` the conductance matrix of the links and the paths to ambient); the
    largest is found by power iteration on that matrix, solved by Gaussian elimination (a
    handful of nodes).  252 s on the TX2, 621 s on the Nano.  A network with no path to ambient
    (a singular ``G``) has no settling time: 0, and the rule stays off.
    """
    th = board.thermal
    names = th.node_names()
    idx = {n: i for i, n in enumerate(names)}
    size = len(names)
    g = [[0.0] * size for _ in range(size)]
    cap = [0.0] * size
    for node in th.nodes:
        i = idx[node.name]
        cap[i] = node.capacitance_j_per_k
        g[i][i] += node.to_ambient_w_per_k
    for lk in th.links:
        a, b, c = idx[lk.a], idx[lk.b], lk.conductance_w_per_k
        g[a][a] += c
        g[b][b] += c
        g[a][b] -= c
        g[b][a] -= c
    x = [1.0] * size
    tau = 0.0
    for _ in range(500):
        y = _solve(g, [cap[i] * x[i] for i in range(size)])
        if y is None:
            return 0.0
        norm = max(abs(v) for v in y)
        if norm <= 0.0 or not math.isfinite(norm):
            return 0.0
        x = [v / norm for v in y]
        if abs(norm - tau) <= 1e-9 * norm:
            break
        tau = norm
    return norm


def _solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    """``a x = b`` by Gaussian elimination with partial pivoting; None when ``a`` is singular."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-12:
            return None
        m[col], m[piv] = m[piv], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            if f:
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def fused_code_edge_c(ctx: PolicyContext, trip_c: float) -> float:
    """How far under the trip the fused value's trip code starts: the weighted code edges.

    A sensor that rounds to the nearest ``quant_c`` reads its first code at or above the trip
    from half a code under that code: a Xavier NX's 0.5 °C codes read 85.0 from 84.75 °C
    (0.25 °C under the trip), a Pi 5's 0.55 °C codes read 85.25 from 84.975 (0.025 under).  The
    read-noise margin is a distance to that edge, not to the trip; in the weighted fusion each
    sensor moves the fused value by its weight share.  The measured sigma of the coded readings
    carries the codes' spread, not this offset.
    """
    return _weighted_code_edge_c(ctx, trip_c, lambda s: True)


def coarse_code_edge_c(ctx: PolicyContext, trip_c: float) -> float:
    """``code_edge_coarse``: the weighted code edges of the fused sensors whose codes are coarse.

    A code is coarse when its step exceeds the width of its sensor's declared noise within one
    sigma either side (``quant_c > 2 * noise_c``).  Why that line: ``code_once`` reads the codes
    through the measured sigma, as noise plus a uniform rounding error of variance ``q**2 / 12``
    (Sheppard's correction).  That holds when the noise is smooth over a code; the error of the
    coded readings' moments is periodic in the level with an amplitude set by the noise density's
    characteristic function at ``2 * pi / q``, for Gaussian noise ``exp(-2 * pi**2 * (sigma / q)**2)``
    (Widrow and Kollar, *Quantization Noise*, 2008: the quantizing theorem).  At ``q = 2 * sigma``
    that is 0.7 %, so the spread is an honest account and the edge need not count again (Pi 3/4/5:
    0.49-0.55 °C codes over 0.3 °C noise; an Orin Nano battery: 0.1 over 0.05); at 0.5 °C codes over
    0.15 °C (Xavier NX, AGX Xavier, Nano) it is 17 %: the readings stick to codes and the trip
    code's lower edge is a shift the sigma does not carry, so it counts in full as ``code_edge``
    counts it.  Only sensors that can read the trip count (hard limit above it), as in
    :func:`fused_code_terms`.
    """
    return _weighted_code_edge_c(ctx, trip_c, lambda s: _coarse(s, trip_c))


def has_coarse_code(ctx: PolicyContext, trip_c: float) -> bool:
    """Whether a fused sensor that can read the trip has a coarse code (:func:`coarse_code_edge_c`'s line).

    ``ripple_margin`` is not read through such codes: the coded readings' spread moves with the
    level's place against the code edges (the quantizing theorem's 17 % at 0.5 °C over 0.15 °C),
    so an excess of it is not the die's ripple (docs/policies.md, session 19a).
    """
    return any(_coarse(s, trip_c) for s in ctx.board.sensors if s.name in ctx.sensor_names)


def _coarse(s: SensorProfile, trip_c: float) -> bool:
    """A code over twice its sensor's read noise, on a sensor that can read the trip."""
    return s.quant_c > 2.0 * s.noise_c and s.hard_limit_c > trip_c


def _weighted_code_edge_c(
    ctx: PolicyContext, trip_c: float, counts: Callable[[SensorProfile], bool]
) -> float:
    """The fused sensors' trip-code edges, each by its weight share, of the sensors ``counts`` keeps."""
    fused = [s for s in ctx.board.sensors if s.name in ctx.sensor_names]
    total = sum(s.weight for s in fused)
    if total <= 0:
        return 0.0
    edge = 0.0
    for s in fused:
        if s.quant_c > 0 and counts(s):
            edge += s.weight * sensor_code_edge_c(s.quant_c, trip_c)
    return edge / total


def sensor_code_edge_c(quant_c: float, trip_c: float) -> float:
    """How far under the trip a sensor rounding to ``quant_c`` starts reading its trip code."""
    code = math.ceil(trip_c / quant_c - 1e-9) * quant_c
    return max(trip_c - (code - quant_c / 2.0), 0.0)


class CodeTerms(NamedTuple):
    """What the fused sensors' declared codes do to the set point's margin (``code_once``).

    A code (a sensor rounding to ``quant_c``) acts on the margin in two ways: the trip code starts
    ``edge_c`` under the trip (a deterministic shift: half a code under the code at or above the
    trip), and the rounding spreads the readings, which the trend's measured sigma carries
    (``quant_var``: for a rounding error uniform over a code its variance is ``q**2 / 12``,
    Sheppard's correction, W. F. Sheppard, Proc. London Math. Soc. 29, 1898; for a weighted
    fusion each sensor's share squared).  ``noise_k`` sigmas of the *coded* readings count the
    spread; ``code_edge`` adds the edge on top, counting the code twice where the spread already
    covers it (a Pi 5: 0.55 °C codes, 0.3 °C noise).  The exact margin for a reading at the trip
    to stay a ``k``-sigma event is the edge plus ``k`` sigmas of the noise *without* the codes'
    spread; ``margin_c`` keeps the larger of that and the default's, so a board whose spread
    already covers its edge keeps its set point to the last bit and one whose coarse codes sit
    far under the trip (a Xavier NX: 0.5 °C codes over 0.15 °C of noise) gets what its edge
    needs, once.
    """

    edge_c: float
    quant_var: float

    def margin_c(self, k: float, coded_sigma_c: float) -> float:
        """``max(k * sigma, edge + k * sigma_without_codes)``, sigma the measured sigma of the coded readings."""
        plain = k * coded_sigma_c
        bare = coded_sigma_c * coded_sigma_c - self.quant_var
        exact = self.edge_c + k * math.sqrt(bare if bare > 0.0 else 0.0)
        return exact if exact > plain else plain


def fused_code_terms(ctx: PolicyContext, trip_c: float) -> CodeTerms:
    """The fused value's trip-code edge and code variance, from each fused sensor's declared ``quant_c``.

    The edge counts only the sensors that can read the trip: one whose hard limit lies at or
    under the trip (a battery, 60 °C) is held under it by the governor, so its codes sit at no
    fixed place against the trip, and its rounding is a zero-mean spread (in ``quant_var``), not a
    shift.  The variance counts every fused sensor, as the measured sigma does.
    """
    fused = [s for s in ctx.board.sensors if s.name in ctx.sensor_names]
    total = sum(s.weight for s in fused)
    if total <= 0:
        return CodeTerms(0.0, 0.0)
    edge = var = 0.0
    for s in fused:
        if s.quant_c <= 0:
            continue
        share = s.weight / total
        var += share * share * s.quant_c * s.quant_c / 12.0
        if s.hard_limit_c > trip_c:
            edge += share * sensor_code_edge_c(s.quant_c, trip_c)
    return CodeTerms(edge, var)


def board_limits(
    ctx: PolicyContext, ladder: list[dict[str, int]], *, progressive: bool = True, step: bool = True
) -> list[tuple[tuple[str, ...], list[float]]]:
    """For each board throttle we can watch: its sensors and the temperature each rung may reach.

    ``progressive`` / ``step`` select the throttles whose ramp spans some degrees (RPi firmware
    80-85 °C) and the ones that take every domain to the floor at once (Jetson sw-throttle).
    """
    out = []
    for prot in ctx.board.protections:
        if prot.kind != "throttle":
            continue
        if not (progressive if prot.full_c > prot.start_c else step):
            continue
        sensors = tuple(
            s.name for s in ctx.board.sensors if s.node in prot.nodes and s.name in ctx.sensor_names
        )
        allows = [throttle_allows_c(prot, ctx.board, rung) for rung in ladder]
        if sensors and any(math.isfinite(a) for a in allows):
            out.append((sensors, allows))
    return out
