"""Inference load: arrivals, a batcher and one accelerator pipeline, advanced between events.

Service time of a batch is ``batch_fixed + per * (m_1 + ... + m_k)``, with ``per`` from
:func:`thermogov.costmodel.per_item_time_s` at the clocks in force and ``m_i`` request i's
work multiplier (mean 1, :mod:`thermogov.sim.model.servicetime`); the batch's size comes from
the batcher (:mod:`thermogov.sim.model.batcher`).  Clocks only change at
governor ticks and protection polls, so between two simulator events the speed is constant
and the queue can be advanced in closed form (saturating load) or request by request
(Poisson/bursty), without one SimPy event per inference: a saturating stream on an Orin is
~1e6 inferences per simulated hour.

A batch in progress keeps its remaining *fraction of work* across a clock change, so a batch
that straddles a cap change takes the right mix of fast and slow time.

Arrivals and the service multipliers are independent random streams, and a multiplier belongs
to its request, so two policies (or two batchers) compared on the same seed see exactly the
same requests carrying exactly the same work (paired comparison, common random numbers).

A frame's latency is its queueing, its batch's time on the pipeline's slowest stage
(``compute``) and its time in the other stages (``prepost``: on a Jetson the CPU's pre- and
post-processing around the GPU, overlapped with other frames so it costs no throughput).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Mapping

import numpy as np

from thermogov import costmodel
from thermogov.board import ModelProfile
from thermogov.config import WorkloadConfig
from thermogov.sim.model.batcher import make_batcher
from thermogov.sim.model.latency import LatencyHistogram
from thermogov.sim.model.servicetime import BatchWork, ServiceDraws, spread_for


class ArrivalProcess:
    """Poisson arrivals, optionally with periodic bursts (rate x burst_factor)."""

    def __init__(self, cfg: WorkloadConfig, rng: np.random.Generator) -> None:
        self.cfg = cfg
        self.rng = rng
        self._max_rate = cfg.rate_ips * (cfg.burst_factor if cfg.kind == "bursty" else 1.0)
        self._buf: np.ndarray = np.empty(0)
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
    """One pipeline (the accelerator), FIFO queue, batches from the configured batcher."""

    def __init__(
        self,
        model: ModelProfile,
        cfg: WorkloadConfig,
        rng: np.random.Generator,
        work_rng: np.random.Generator | None = None,
    ) -> None:
        self.model = model
        self.cfg = cfg
        self.saturating = cfg.kind == "saturating"
        self.arrivals = None if self.saturating else ArrivalProcess(cfg, rng)
        self.batcher = make_batcher(cfg, model.batch_fixed_s)
        self.batch = cfg.batch_size
        self.spread = spread_for(model, cfg)
        # Without a stream of its own (a caller that only counts arrivals) the work is drawn
        # from a child of the arrival stream's seed, still independent of the arrivals.
        self.draws = ServiceDraws(self.spread, work_rng or np.random.default_rng(rng.integers(2**63)))
        self._work = BatchWork(self.draws, self.batch) if self.saturating else None
        self.completed = 0
        self.dropped = 0
        self.batches = 0
        self.total = LatencyHistogram()
        self.queueing = LatencyHistogram()
        self.compute = LatencyHistogram()
        self.prepost = LatencyHistogram()
        self._queue: deque[float] = deque()
        self._queue_work: deque[float] = deque()
        self._per = 0.0
        self._other_stages = 0.0
        self._cores_full: dict[str, float] = {}
        self._full: dict[str, float] | None = None
        self._freqs: dict[str, int] = {}
        # clocks -> (per, other stages, busy cores computing, busy cores saturated)
        self._clock_cache: dict[
            tuple[tuple[str, int], ...], tuple[float, float, dict[str, float], dict[str, float] | None]
        ] = {}
        # Batch in service: remaining work fraction, its start time, size, work, arrivals.
        self._busy = self.saturating
        self._remaining = 1.0
        self._start = 0.0
        self._size = self.batch if self.saturating else 0
        self._batch_work = float(self.batch)
        self._j = 0  # saturating: index of the batch in service
        # Saturating batches completed at constant clocks are binned lazily, from the prefix
        # sums, when the clocks change or the summary is asked for: no per-batch work here.
        self._seg_start = 0
        self._straddle = False  # the batch in service started under other clocks
        if self._work is not None:
            self._batch_work = self._work.one(0)
        self._members: list[float] = []
        self._t = 0.0
        self.duty = 1.0  # the lever's duty cycle (sim/model/loadlevel.py); 0 = standby

    def set_load(self, model: ModelProfile, duty: float) -> None:
        """Run ``model`` (an inference mode's cost) at ``duty`` of the pipeline's time.

        The duty cycle stretches every batch by ``1/duty``, its fixed overhead included, while
        the cores compute only ``duty`` of it (sim/model/loadlevel.py); 0 is standby.
        """
        self.duty = duty
        self._clock_cache.clear()  # the stage times depend on the model and the duty
        stretched = 0.0 < duty < 1.0
        self.model = (
            dataclasses.replace(model, batch_fixed_s=model.batch_fixed_s / duty) if stretched else model
        )
        self.set_clocks(self._freqs)

    def set_clocks(self, freqs_hz: Mapping[str, int]) -> None:
        self._freqs = dict(freqs_hz)
        key = tuple(self._freqs.items())
        known = self._clock_cache.get(key)
        if known is None:
            stages = costmodel.stage_times_s(self.model, freqs_hz)
            per = max(stages.values())
            other = sum(stages.values()) - per
            if 0.0 < self.duty < 1.0:  # the lever's duty cycle: 1/duty of the time, duty of the work
                per /= self.duty
        else:
            per, other = known[0], known[1]
        if self.saturating and self._per and (per, other) != (self._per, self._other_stages):
            # Batches done at the old clocks are binned now; the one in service straddles.
            self._bin_segment(self._j)
            self._seg_start = self._j + 1
            self._straddle = True
        self._per = per
        self._other_stages = other
        if known is not None:
            self._cores_full, self._full = known[2], known[3]
            return
        # Busy cores while the pipeline computes (the batch overhead is discounted per batch);
        # under the lever ``_per`` is stretched by 1/duty, so the cores compute duty of it.
        m = self.model
        self._cores_full = {
            d: costmodel.compute_time_s(m, d, freqs_hz[d]) / self._per * m.threads.get(d, 1) for d in m.cycles
        }
        self._full = None
        self._full = self.busy_cores(1.0)
        # A governor dithers between two rungs, so a run visits a handful of clock settings:
        # each one's stage times and busy cores are computed once (pure functions of the model,
        # the duty and the clocks; set_load clears the lot).  Never mutated by the callers.
        if len(self._clock_cache) < 256:
            self._clock_cache[key] = (per, other, self._cores_full, self._full)

    def _service(self, work: float) -> float:
        return self.model.batch_fixed_s + work * self._per

    def busy_cores(self, busy_fraction: float) -> dict[str, float]:
        """Average busy cores per domain while the pipeline is busy ``busy_fraction`` of the time."""
        if busy_fraction == 1.0 and self.saturating and self._full is not None:
            return self._full  # the saturating stream's every interval, computed once per clock change
        # The compute share of a batch's time at its mean work: the power over an interval
        # averages many batches, so one request's luck does not move the board's heat.
        work = float(self._size or self.batch)
        f = busy_fraction * work * self._per / self._service(work)
        return {d: f * c for d, c in self._cores_full.items()}

    @property
    def in_system(self) -> int:
        """Requests queued or in service now (Little's L, sampled)."""
        return len(self._queue) + self._size

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
            self._admit()

    def _admit(self) -> None:
        """The next arrival joins the queue, or is dropped when the queue is full."""
        assert self.arrivals is not None
        a = self.arrivals.pop()
        m = self.draws.next()  # drawn even when dropped: request i keeps its work
        if len(self._queue) >= self.cfg.queue_limit:
            self.dropped += 1
        else:
            self._queue.append(a)
            self._queue_work.append(m)

    def _finish(self, t: float) -> None:
        k = self._size
        self.batches += 1
        svc = t - self._start
        other = self._other_stages
        for a in self._members:
            self.total.add(t - a + other)
            self.queueing.add(self._start - a)
            self.compute.add(svc)
        if other:
            self.prepost.add(other, k)
        self.completed += k

    def _bin_segment(self, upto: int) -> None:
        """Bin the saturating batches ``seg_start .. upto-1``, all done at the clocks in force."""
        work = self._work
        if work is None or upto <= self._seg_start:
            return
        n, k = upto - self._seg_start, self.batch
        bf, per, other = self.model.batch_fixed_s, self._per, self._other_stages
        # Vectorised: the same IEEE operations per batch as a scalar loop, so the same bins.
        times = bf + per * work.span(self._seg_start, n)
        self.compute.add_many(times, k)
        self.total.add_many(times + other if other else times, k)
        if other:
            self.prepost.add(other, n * k)
        self._seg_start = upto
        work.forget_before(upto)

    def _advance_saturating(self, t_end: float) -> float:
        # Runs at every simulator instant: _service() inlined (fixed + work * per, as there).
        work = self._work
        assert work is not None
        t = self._t
        fixed, per = self.model.batch_fixed_s, self._per
        s = fixed + self._batch_work * per
        left = self._remaining * s
        if t + left > t_end:
            self._remaining -= (t_end - t) / s
            return t_end - t
        t += left
        k = self.batch
        if self._straddle:  # its time mixes two clock settings: binned on its own
            self._straddle = False
            other = self._other_stages
            self.total.add(t - self._start + other, k)
            self.compute.add(t - self._start, k)
            if other:
                self.prepost.add(other, k)
        j = self._j + 1
        n, span_s = work.fit(j, t_end - t, fixed, per)
        t += span_s
        j += n
        self.completed += (n + 1) * k
        self.batches = j
        self._j = j
        if j - self._seg_start > 65536:
            self._bin_segment(j)
        self._batch_work = bw = work.one(j)
        self._start = t
        self._remaining = 1.0 - (t_end - t) / (fixed + bw * per)
        return t_end - self._t

    def _dispatch(self, t: float) -> None:
        k = self.batcher.take(len(self._queue))
        q, qw = self._queue, self._queue_work
        if k == 1:  # the common case, without the comprehensions
            self._members = [q.popleft()]
            self._batch_work = qw.popleft()
        else:
            self._members = [q.popleft() for _ in range(k)]
            self._batch_work = sum(qw.popleft() for _ in range(k))
        self._size = k
        self._start = t
        self._remaining = 1.0
        self._busy = True

    def _advance_arrivals(self, t_end: float) -> float:
        assert self.arrivals is not None
        t = self._t
        busy = 0.0
        batcher = self.batcher
        wait = batcher.max_wait_s
        while True:
            if self._busy:
                s = self._service(self._batch_work)
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
                    self._remaining -= (t_end - t) / self._service(self._batch_work)
                    busy += t_end - t
                return busy
            if self._busy:
                self._remaining -= (nxt - t) / self._service(self._batch_work)
                busy += nxt - t
            t = nxt
            if nxt == done_at:
                self._finish(t)
                self._busy = False
                self._size = 0
                batcher.observe(len(self._queue))
            elif nxt == arrive_at:
                self._admit()
            if (
                not self._busy
                and self._queue
                and (len(self._queue) >= batcher.flush_at or t >= self._queue[0] + wait - 1e-12)
            ):
                self._dispatch(t)

    def latency_summary_ms(self) -> dict[str, object]:
        self._bin_segment(self._j)
        total = self.total.summary_ms()
        prepost = self.prepost.summary_ms()
        if self.saturating:
            zero = {k: (0.0 if v is not None else None) for k, v in total.items()}
            return {
                "total": total,
                "queueing": zero,
                "compute": self.compute.summary_ms(),
                "prepost": prepost,
                "dropped": self.dropped,
            }
        return {
            "total": total,
            "queueing": self.queueing.summary_ms(),
            "compute": self.compute.summary_ms(),
            "prepost": prepost,
            "dropped": self.dropped,
        }

    def batching_summary(self) -> dict[str, object]:
        """What the batcher did and the service spread it worked on (the summary's ``batching``)."""
        return {
            "mode": self.batcher.mode,
            "max_batch": self.batch,
            "max_wait_ms": self.cfg.max_wait_ms,
            "batches": self.batches,
            "mean_batch": round(self.completed / self.batches, 4) if self.batches else None,
            "service_cv": self.spread.cv,
            "service_tail_prob": self.spread.tail_prob,
            "service_tail_factor": self.spread.tail_factor,
        }
