"""Inference load: arrivals, a batcher and one accelerator pipeline, advanced between events.

Service time of a batch of k inferences is ``batch_fixed + k * per``, with ``per`` from
:func:`thermogov.costmodel.inference_time_s` at the clocks in force.  Clocks only change at
governor ticks and protection polls, so between two simulator events the speed is constant
and the queue can be advanced in closed form (saturating load) or request by request
(Poisson/bursty), without one SimPy event per inference: a saturating stream on an Orin is
~1e6 inferences per simulated hour.

A batch in progress keeps its remaining *fraction of work* across a clock change, so a batch
that straddles a cap change takes the right mix of fast and slow time.

Arrivals and the service are independent random streams, so two policies compared on the
same seed see exactly the same requests (paired comparison).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import numpy as np

from thermogov import costmodel
from thermogov.board import ModelProfile
from thermogov.config import WorkloadConfig
from thermogov.sim.model.latency import LatencyHistogram


class ArrivalProcess:
    """Poisson arrivals, optionally with periodic bursts (rate x burst_factor)."""

    def __init__(self, cfg: WorkloadConfig, rng: np.random.Generator) -> None:
        self.cfg = cfg
        self.rng = rng
        self._max_rate = cfg.rate_ips * (cfg.burst_factor if cfg.kind == "bursty" else 1.0)
        self._buf = np.empty(0)
        self._pos = 0
        self.next_t = self._draw(0.0)

    def rate_at(self, t: float) -> float:
        c = self.cfg
        if c.kind != "bursty":
            return c.rate_ips
        phase = (t % c.burst_period_s) / c.burst_period_s
        return c.rate_ips * (c.burst_factor if phase < c.burst_duty else 1.0)

    def _uniforms(self) -> tuple[float, float]:
        if self._pos + 2 > len(self._buf):
            self._buf = self.rng.random(8192)
            self._pos = 0
        a, b = self._buf[self._pos], self._buf[self._pos + 1]
        self._pos += 2
        return float(a), float(b)

    def _draw(self, t: float) -> float:
        # Thinning (Lewis-Shedler): candidates at the peak rate, accepted with rate(t)/peak.
        while True:
            u, v = self._uniforms()
            t += -np.log1p(-u) / self._max_rate
            if v * self._max_rate <= self.rate_at(t):
                return t

    def pop(self) -> float:
        t = self.next_t
        self.next_t = self._draw(t)
        return t


class InferenceServer:
    """One pipeline (the accelerator), FIFO queue, batches of up to ``batch_size``."""

    def __init__(self, model: ModelProfile, cfg: WorkloadConfig, rng: np.random.Generator) -> None:
        self.model = model
        self.cfg = cfg
        self.saturating = cfg.kind == "saturating"
        self.arrivals = None if self.saturating else ArrivalProcess(cfg, rng)
        self.batch = cfg.batch_size
        self.completed = 0
        self.dropped = 0
        self.total = LatencyHistogram()
        self.queueing = LatencyHistogram()
        self.compute = LatencyHistogram()
        self._queue: deque[float] = deque()
        self._per = 0.0
        self._freqs: dict[str, int] = {}
        self._cores_busy: dict[str, float] = {}
        self._full: dict[str, float] | None = None
        # Batch in service: remaining work fraction, its start time, its size, its arrivals.
        self._busy = self.saturating
        self._remaining = 1.0
        self._start = 0.0
        self._size = self.batch if self.saturating else 0
        self._members: list[float] = []
        self._t = 0.0
        self.duty = 1.0  # the lever's duty cycle (sim/model/loadlevel.py); 0 = standby

    def set_load(self, model: ModelProfile, duty: float) -> None:
        """Run ``model`` (an inference mode's cost) at ``duty`` of the pipeline's time."""
        self.model = model
        self.duty = duty
        self.set_clocks(self._freqs)

    def set_clocks(self, freqs_hz: Mapping[str, int]) -> None:
        self._freqs = dict(freqs_hz)
        self._per = costmodel.inference_time_s(self.model, freqs_hz)
        self._cores_busy = costmodel.busy_cores(self.model, freqs_hz, 1.0)
        self._full = None
        self._full = self.busy_cores(1.0)

    def _service(self, k: int) -> float:
        return (self.model.batch_fixed_s + k * self._per) / self.duty

    def busy_cores(self, busy_fraction: float) -> dict[str, float]:
        """Average busy cores per domain while the pipeline is busy ``busy_fraction`` of the time."""
        if busy_fraction == 1.0 and self.saturating and self._full is not None:
            return self._full
        if self.duty == 0.0:
            return dict.fromkeys(self._cores_busy, 0.0)
        k = self._size or self.batch
        compute_fraction = k * self._per / self._service(k)
        f = busy_fraction * compute_fraction
        return {d: f * c for d, c in self._cores_busy.items()}

    # -- advancing --------------------------------------------------------------------------
    def advance(self, t_end: float) -> float:
        """Run the queue up to ``t_end`` at the current clocks; returns busy seconds."""
        t0 = self._t
        if t_end <= t0:
            return 0.0
        if self.duty == 0.0:
            self._standby(t_end)
            self._t = t_end
            return 0.0
        busy = self._advance_saturating(t_end) if self.saturating else self._advance_arrivals(t_end)
        self._t = t_end
        return busy

    def _standby(self, t_end: float) -> None:
        """Nothing is served; a camera's frames beyond the queue are dropped."""
        while self.arrivals is not None and self.arrivals.next_t <= t_end:
            a = self.arrivals.pop()
            if len(self._queue) >= self.cfg.queue_limit:
                self.dropped += 1
            else:
                self._queue.append(a)

    def _finish(self, t: float) -> None:
        k = self._size
        if self.saturating:
            # No queueing in a saturating stream: compute == total, queueing == 0 (summary).
            self.total.add(t - self._start, k)
        else:
            svc = t - self._start
            for a in self._members:
                self.total.add(t - a)
                self.queueing.add(self._start - a)
                self.compute.add(svc)
        self.completed += k

    def _advance_saturating(self, t_end: float) -> float:
        t = self._t
        s = self._service(self.batch)
        left = self._remaining * s
        if t + left > t_end:
            self._remaining -= (t_end - t) / s
            return t_end - t
        t += left
        self._finish(t)
        n_full = int((t_end - t) / s)
        if n_full:
            self.total.add(s, n_full * self.batch)
            self.completed += n_full * self.batch
            t += n_full * s
        self._start = t
        self._remaining = 1.0 - (t_end - t) / s
        return t_end - self._t

    def _dispatch(self, t: float) -> None:
        k = min(self.batch, len(self._queue))
        self._members = [self._queue.popleft() for _ in range(k)]
        self._size = k
        self._start = t
        self._remaining = 1.0
        self._busy = True

    def _advance_arrivals(self, t_end: float) -> float:
        assert self.arrivals is not None
        t = self._t
        busy = 0.0
        wait = self.cfg.max_wait_ms / 1000.0
        while True:
            if self._busy:
                s = self._service(self._size)
                done_at = t + self._remaining * s
            else:
                done_at = float("inf")
            arrive_at = self.arrivals.next_t
            deadline = float("inf")
            if not self._busy and self._queue:
                deadline = self._queue[0] + wait
            nxt = min(done_at, arrive_at, deadline)
            if nxt > t_end:
                if self._busy:
                    self._remaining -= (t_end - t) / self._service(self._size)
                    busy += t_end - t
                return busy
            if self._busy:
                self._remaining -= (nxt - t) / self._service(self._size)
                busy += nxt - t
            t = nxt
            if nxt == done_at:
                self._finish(t)
                self._busy = False
                self._size = 0
            elif nxt == arrive_at:
                a = self.arrivals.pop()
                if len(self._queue) >= self.cfg.queue_limit:
                    self.dropped += 1
                else:
                    self._queue.append(a)
            if (
                not self._busy
                and self._queue
                and (len(self._queue) >= self.batch or t >= self._queue[0] + wait - 1e-12)
            ):
                self._dispatch(t)

    def latency_summary_ms(self) -> dict[str, object]:
        total = self.total.summary_ms()
        if self.saturating:
            zero = {k: (0.0 if v is not None else None) for k, v in total.items()}
            return {"total": total, "queueing": zero, "compute": dict(total), "dropped": self.dropped}
        return {
            "total": total,
            "queueing": self.queueing.summary_ms(),
            "compute": self.compute.summary_ms(),
            "dropped": self.dropped,
        }
