"""A temperature level and trend that noise, spikes and sensor dropouts do not fool.

The kernel's trend is the sign of the last change, so 0.1 °C of read noise flips it every
poll.  Here the *level* is an exponential average (``level_tau_s``) and the *slope* a
least-squares line through the last ``window_s`` seconds; both see noise shrink with their
window, and the long slope window looks past the package's seconds-long response to a clock
change to the drift that decides whether the board is still warming.

Fusion renormalises when a sensor drops out or comes back, and a spike or a stuck value moves
the fused value by many degrees in one tick, far faster than any die heats (a clock step moves
the fused value by a few tenths of a degree).  A change larger than ``jump_c`` in one sample is
therefore a change of *measurement*, not of temperature: it is absorbed into an offset so the
corrected series stays continuous, and ``anomaly`` is reported until the opposite jump returns
the offset (the sensor recovered) or ``hold_s`` has passed, when the new level is accepted and
the history restarts from it.  The return is judged against the level, not against ``jump_c``
alone: a step that brings the raw value back to the level within the read noise (and to under
half a jump) ends the bridge, even when it is a little smaller than ``jump_c`` (the gap between
the returning sensor and the others moved while it was out) or is the last of 2-3 steps (a
stuck or spiking sensor coming back over a few readings); with no bridge held, such a step is
temperature as before, and a jump that lands back on the level ends a departure that was under
the threshold instead of opening a bridge.

``jump_c`` is a floor, not the threshold: a step is a jump only when it is also over
``JUMP_SIGMAS`` sigmas of the sensor's own one-reading steps, which this trend measures, so a
coarse noisy sensor (a Pi: 0.55 °C codes, read noise 0.33-0.8 °C) does not open bridges on
its own noise, and no per-board constant has to be tuned for it.
"""

from __future__ import annotations

import math
from collections import deque
from typing import NamedTuple


class TrendEstimate(NamedTuple):
    level_c: float  # smoothed, offset-corrected temperature
    slope_c_per_s: float
    anomaly: bool  # a measurement discontinuity is being bridged
    noise_c: float  # RMS of the raw samples around the level (read noise + quantisation)


_new_estimate = tuple.__new__

#: A step under the threshold ends a bridge when the raw value is back within this many
#: read-noise sigmas of the level (the trend's own noise is the RMS of a reading around it).
#: 3·sqrt(2) (4.2): read noise alone misses a return about once in 40 000, and it leaves room
#: for the returning sensor's gap to the others, which moved while it was out.
RETURN_SIGMAS = 3.0 * math.sqrt(2.0)

#: A step is a jump only when over ``JUMP_SIGMAS`` standard deviations of a one-reading step,
#: measured on this sensor (the RMS of the steps between successive samples that were not
#: jumps), and over ``jump_c``.  For Gaussian noise a step passes z of its own sigmas with
#: probability erfc(z / sqrt(2)): 2.0e-7 at 5.2, i.e. under 0.01 false bridges per hour at 10
#: readings per second (the fastest sensor period in the profiles, 100 ms), one in about 140
#: hours.  The steps' own spread, not the residual around the level: the level lags a ramp
#: (0.5 °C/s at start-up lags 1 °C behind, tripling the residual on the Orin Nano, where real
#: drop-outs are 2.2 °C steps), a step barely sees it.  Quantisation lightens the tail (a step
#: is a whole number of codes, and the RMS already counts their spread), and a fast real
#: change counted as noise (a Pi die answering a clock change) errs towards fewer bridges.
JUMP_SIGMAS = 5.2
_JUMP_SIGMAS2 = JUMP_SIGMAS * JUMP_SIGMAS

#: No step is a jump before this many samples have measured the step noise: with none,
#: a Pi die warming 2.2 °C in one 100 ms reading at start-up (its time constant is 9 ms) was
#: bridged as a drop-out.  A sensor that fails in its first second is temperature instead.
MIN_STEPS = 10


class Trend:
    def __init__(self, window_s: float, level_tau_s: float, jump_c: float, hold_s: float) -> None:
        self.window_s = window_s
        self.level_tau_s = level_tau_s
        self.jump_c = jump_c
        self.hold_s = hold_s
        self._pts: deque[tuple[float, float]] = deque()
        # Running sums of t', v, t'^2 and t'v with t' = t - t_ref, as plain attributes.
        self._st = self._sv = self._stt = self._stv = 0.0
        self._t_ref: float | None = None
        self._last_raw: float | None = None
        self._last_t = 0.0
        self._level: float | None = None
        self._offset = 0.0
        self._since: float | None = None  # when the current offset appeared
        self._var = 0.0  # running mean square of (sample - level)
        self._var_n = 0
        self._step_var = 0.0  # running mean square of the steps between samples, jumps aside
        self._step_n = 0
        # The level's smoothing factor per interval: a control loop's intervals take a few
        # distinct float values (k/10 - (k-1)/10 rounds a few ways), so each exponential is
        # computed once and looked up after (the same value bit for bit).
        self._alpha: dict[float, float] = {}

    def _restart(self, t_s: float, value: float) -> None:
        self._pts.clear()
        self._st = self._sv = self._stt = self._stv = 0.0
        self._t_ref = t_s
        self._level = value

    def update(self, t_s: float, raw_c: float) -> TrendEstimate:
        # One function with locals, not a chain of helpers: it runs once per tick for the
        # fused value and once per hard-limited sensor (a quarter of a simulated run's time).
        last_raw = self._last_raw
        if last_raw is not None:
            step = raw_c - last_raw
            step2 = step * step
            # The threshold: jump_c, or JUMP_SIGMAS step sigmas when that is more (the squares
            # compared: no root on the common path).
            if (
                abs(step) > self.jump_c
                and step2 > _JUMP_SIGMAS2 * self._step_var
                and self._step_n >= MIN_STEPS
            ):
                jump = self._jump()
                if self._since is not None or not self._back(raw_c, jump):
                    self._offset -= step
                    if abs(self._offset) < jump:  # the jump was undone: the measurement is back
                        self._end_bridge()
                    elif self._since is None:
                        self._since = t_s
                # else: back at the level from a departure that was under the threshold (a
                # sensor out of the fusion for one reading, -1.7 °C out, +2.0 °C back):
                # bridging it would hold a phantom offset for hold_s.
            else:
                if self._step_n < 1000:  # the same slow running mean as the residual's
                    self._step_n += 1
                self._step_var += (step2 - self._step_var) / self._step_n
                if self._since is not None and self._back(raw_c, self._jump()):
                    self._end_bridge()
        self._last_raw = raw_c
        value = raw_c + self._offset
        since = self._since
        if since is not None and t_s - since > self.hold_s:
            self._offset, self._since, since, value = 0.0, None, None, raw_c  # accept the new level
            self._restart(t_s, value)
        level = self._level
        t_ref = self._t_ref
        if t_ref is None or level is None:
            self._restart(t_s, value)
            level = value
            t_ref = t_s
        else:
            dt = t_s - self._last_t
            a = self._alpha.get(dt)
            if a is None:
                a = 1.0 - math.exp(-dt / self.level_tau_s) if self.level_tau_s > 0 else 1.0
                if len(self._alpha) < 64:
                    self._alpha[dt] = a
            level += a * (value - level)
            self._level = level
        self._last_t = t_s
        # The least-squares window: running sums of t', v, t'^2 and t'v over the points kept.
        tp = t_s - t_ref
        window = self.window_s
        if tp > 20.0 * window + 100.0:  # rebase now and then: running sums lose digits
            self._rebase(t_s)
            tp = 0.0
        pts = self._pts
        pts.append((tp, value))
        st = self._st + tp
        sv = self._sv + value
        stt = self._stt + tp * tp
        stv = self._stv + tp * value
        oldest = tp - window
        while pts[0][0] < oldest:  # never empties: the point just added is the newest
            ot, ov = pts.popleft()
            st -= ot
            sv -= ov
            stt -= ot * ot
            stv -= ot * ov
        self._st, self._sv, self._stt, self._stv = st, sv, stt, stv
        n = len(pts)
        slope = 0.0
        if n >= 3:
            sxx = stt - st * st / n
            if sxx > 1e-9:
                slope = (stv - st * sv / n) / sxx
        # Noise: a slow running mean square (about the last 1000 samples) of the residual.
        if self._var_n < 1000:
            self._var_n += 1
        var = self._var = self._var + ((value - level) ** 2 - self._var) / self._var_n
        # tuple.__new__ skips the NamedTuple's Python-level constructor (same object).
        return _new_estimate(TrendEstimate, (level, slope, since is not None, math.sqrt(var)))

    def _back(self, raw_c: float, jump: float) -> bool:
        """Whether ``raw_c`` is back at the level, the smoothed offset-corrected value.

        A return judged against the offset it undoes, not against ``jump_c``: the sensor's gap
        to the rest of the fusion drifts while it is out, so the return can fall just under
        ``jump_c`` (2.20 °C out, 1.96 °C back) and would leave a phantom offset for ``hold_s``;
        and it may come over several readings, each step under the threshold.  Against the
        level, which a return over 2-3 readings moves by a few per cent (the default
        ``level_tau_s``, 2 s, is 20 readings at 10 Hz), where a real drift back over seconds
        carries the level with it.  What is left must be read noise (``RETURN_SIGMAS``) and
        under half a jump (on a coarse, noisy sensor the noise bound alone would let a step of
        half the offset end a bridge).
        """
        level = self._level
        if level is None:
            return False
        rest = abs(raw_c - level)
        return rest <= RETURN_SIGMAS * math.sqrt(self._var) and rest < 0.5 * jump

    def _jump(self) -> float:
        """The jump threshold: ``jump_c``, or ``JUMP_SIGMAS`` step sigmas when that is more."""
        return max(self.jump_c, JUMP_SIGMAS * math.sqrt(self._step_var))

    def _end_bridge(self) -> None:
        self._offset = 0.0
        self._since = None

    def _rebase(self, t_s: float) -> None:
        """Restart the running sums with times relative to ``t_s`` (same points kept)."""
        assert self._t_ref is not None
        pts = [(t + self._t_ref, x) for t, x in self._pts]
        self._pts.clear()
        self._st = self._sv = self._stt = self._stv = 0.0
        self._t_ref = t_s
        for t, x in pts:
            self._push(t - t_s, x)

    def _push(self, tp: float, v: float) -> None:
        pts = self._pts
        pts.append((tp, v))
        self._st += tp
        self._sv += v
        self._stt += tp * tp
        self._stv += tp * v
        oldest = tp - self.window_s
        while pts and pts[0][0] < oldest:
            ot, ov = pts.popleft()
            self._st -= ot
            self._sv -= ov
            self._stt -= ot * ot
            self._stv -= ot * ov
