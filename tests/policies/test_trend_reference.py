"""The trend estimator's fast path computes what its plain form did, bit for bit.

``Trend.update`` is one function with locals and memoised smoothing factors, because it runs
four times per tick of the default policy.  This keeps the plain version it replaced (helpers
per step, an exponential per call) as the reference and compares every estimate exactly over
irregular intervals, spikes that return, jumps that persist past ``hold_s`` and runs long
enough to rebase the running sums.
"""

from __future__ import annotations

import math
import random
from collections import deque

import pytest

from thermogov.policies.trend import JUMP_SIGMAS, MIN_STEPS, RETURN_SIGMAS, Trend


class PlainTrend:
    """The estimator as it read before the fast path (the same arithmetic, one step per helper)."""

    def __init__(self, window_s: float, level_tau_s: float, jump_c: float, hold_s: float) -> None:
        self.window_s, self.level_tau_s, self.jump_c, self.hold_s = window_s, level_tau_s, jump_c, hold_s
        self._pts: deque[tuple[float, float]] = deque()
        self._sums = [0.0, 0.0, 0.0, 0.0]
        self._t_ref: float | None = None
        self._last_raw: float | None = None
        self._last_t = 0.0
        self._level: float | None = None
        self._offset = 0.0
        self._since: float | None = None
        self._var = 0.0
        self._var_n = 0
        self._step_var = 0.0
        self._step_n = 0

    def _restart(self, t_s: float, value: float) -> None:
        self._pts.clear()
        self._sums = [0.0, 0.0, 0.0, 0.0]
        self._t_ref = t_s
        self._level = value

    def update(self, t_s: float, raw_c: float) -> tuple[float, float, bool, float]:
        sigma = math.sqrt(self._var)
        jump = max(self.jump_c, JUMP_SIGMAS * math.sqrt(self._step_var))
        rest = abs(raw_c - self._level) if self._level is not None else math.inf
        back = rest <= RETURN_SIGMAS * sigma and rest < 0.5 * jump  # back at the level
        if self._last_raw is not None and abs(raw_c - self._last_raw) > jump and self._step_n >= MIN_STEPS:
            if self._since is not None or not back:  # back with no bridge: a departure under jump ended
                self._offset += self._last_raw - raw_c
                if abs(self._offset) < jump:
                    self._end_bridge()
                elif self._since is None:
                    self._since = t_s
        elif self._last_raw is not None:
            self._step_n = min(self._step_n + 1, 1000)  # a step that is not a jump is noise
            self._step_var += ((raw_c - self._last_raw) ** 2 - self._step_var) / self._step_n
            if self._since is not None and back:
                self._end_bridge()
        self._last_raw = raw_c
        value = raw_c + self._offset
        if self._since is not None and t_s - self._since > self.hold_s:
            self._end_bridge()
            value = raw_c
            self._restart(t_s, value)
        if self._t_ref is None or self._level is None:
            self._restart(t_s, value)
        else:
            a = 1.0 - math.exp(-(t_s - self._last_t) / self.level_tau_s) if self.level_tau_s > 0 else 1.0
            self._level += a * (value - self._level)
        self._last_t = t_s
        self._add(t_s, value)
        level = self._level if self._level is not None else value
        self._var_n = min(self._var_n + 1, 1000)
        self._var += ((value - level) ** 2 - self._var) / self._var_n
        return (level, self._slope(), self._since is not None, math.sqrt(self._var))

    def _end_bridge(self) -> None:
        self._offset = 0.0
        self._since = None

    def _add(self, t_s: float, v: float) -> None:
        assert self._t_ref is not None
        tp = t_s - self._t_ref
        if tp > 20.0 * self.window_s + 100.0:
            pts = [(t + self._t_ref, x) for t, x in self._pts]
            self._pts.clear()
            self._sums = [0.0, 0.0, 0.0, 0.0]
            self._t_ref = t_s
            for t, x in pts:
                self._push(t - t_s, x)
            tp = 0.0
        self._push(tp, v)

    def _push(self, tp: float, v: float) -> None:
        self._pts.append((tp, v))
        s = self._sums
        s[0] += tp
        s[1] += v
        s[2] += tp * tp
        s[3] += tp * v
        while self._pts and self._pts[0][0] < tp - self.window_s:
            ot, ov = self._pts.popleft()
            s[0] -= ot
            s[1] -= ov
            s[2] -= ot * ot
            s[3] -= ot * ov

    def _slope(self) -> float:
        n = len(self._pts)
        if n < 3:
            return 0.0
        st, sv, stt, stv = self._sums
        sxx = stt - st * st / n
        if sxx <= 1e-9:
            return 0.0
        return (stv - st * sv / n) / sxx


def _series(seed: int, n: int) -> list[tuple[float, float]]:
    """Ticks at 100 ms of integer-ms time (a few distinct float intervals), some jittered
    (a board's wall clock), with noise, a slow ramp, spikes that return, steps that stay and
    drop-outs whose return is a little smaller than the drop (the gap drifted meanwhile)."""
    rng = random.Random(seed)
    out, t_ms, temp = [], 0, 60.0
    for k in range(n):
        t_ms += 100 if rng.random() < 0.8 else rng.randint(1, 400)
        temp += rng.gauss(0.002, 0.01)
        v = temp + rng.gauss(0.0, 0.2)
        if rng.random() < 0.01:
            v += rng.choice((-8.0, 8.0))  # a one-sample spike
        if k % 1000 in range(500, 520):
            v -= 4.3  # a sensor out of the fusion for 2 s: back by 4.3 °C ± noise (jump_c 4: under)
        elif k % 1000 in range(700, 720):
            v -= 2.2  # out by 2.2 °C, back by 2.2 °C ± noise (jump_c 2: sometimes under)
        if k % 3000 == 2999:
            temp += rng.choice((-5.0, 5.0))  # a step that persists past hold_s
        out.append((t_ms / 1000.0, v))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("params", [(30.0, 2.0, 2.0, 60.0), (5.0, 0.0, 1.0, 3.0), (10.0, 0.5, 4.0, 0.0)])
def test_the_fast_update_is_the_plain_one_bit_for_bit(seed: int, params: tuple[float, ...]) -> None:
    fast, plain = Trend(*params), PlainTrend(*params)
    for t, v in _series(seed, 12_000):  # 20 simulated minutes: rebases at 20 windows + 100 s
        assert tuple(fast.update(t, v)) == plain.update(t, v), t
