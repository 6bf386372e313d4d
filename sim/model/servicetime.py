"""Per-request service-time spread: a work multiplier per request, mean 1, on its own stream.

A real inference does not take the same time twice: the accelerator shares DRAM with the CPU,
the OS preempts a worker thread, caches are warm or cold.  The simulator keeps the cost model's
clock-dependent *mean* (``thermogov.costmodel``) and multiplies each request's share of it by a
draw from a lognormal body (a positive, right-skewed spread; its ``sigma`` follows from the
coefficient of variation, ``sigma^2 = ln(1 + cv^2)``) mixed with a rare slow mode (probability
``tail_prob``, ``tail_factor`` times slower).  The mixture is normalised to mean 1, so the
throughput the profiles were fitted to (published FPS) is unchanged and only the percentiles,
the queueing and the latency breakdown move.

Where the default figures come from (docs/workload.md has the derivations):

* TensorRT on a Jetson GPU: MobileNetV2 FP16 on an Orin Nano clusters at 1.23 ms with p99
  1.28 ms undisturbed (p99/p50 = 1.04, so ``cv ~ 0.017``), and p99 1.61 ms under light memory
  pressure (1.31 x the median); Swami & Chougule, "Architecture Dependent Temporal
  Observability Under Deployment Interference in Edge Inference Systems" (2026).  A camera
  pipeline always has the CPU's pre/post-processing beside the GPU on the same LPDDR, so the
  slow mode is the memory-pressure p99: 1.31 x, on 2 % of the requests (so it sets the p99).
  Kang (arXiv 2606.16106) measures on the same board that the tail is heavier than Gaussian
  (mu + 3 sigma margins miss a 0.1 % target by 13-29 x), which the slow mode provides.
* ncnn on a Raspberry Pi CPU (4 threads): ``benchncnn`` loops on a Pi 4 (Tencent/ncnn
  ``benchmark/README.md``) spread 1-4 % min-to-max over 8-10 loops at a cooled-down start,
  ``cv ~ 0.01-0.046`` (range / 2.85 for 8-10 normal draws), and a CPU runtime is where
  Swami & Chougule see a multimodal spread and a collapse into a slow regime under memory
  stress.  Defaults: ``cv = 0.03`` and a slow mode of 1.5 x on 2 % (estimated: a worker thread
  preempted by the OS holds the other three at the layer barrier).

Draws are independent (Kang shows misses cluster in time, so real tails are burstier than
this).  The multiplier belongs to the request (its arrival index), never to the clock or the
policy, so two policies or two batchers on one seed serve identical work (common random
numbers): the difference between two runs is the policy's doing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from thermogov.board import ModelProfile
from thermogov.config import WorkloadConfig

_CHUNK = 4096


@dataclass(frozen=True, slots=True)
class ServiceSpread:
    cv: float  # coefficient of variation of the lognormal body
    tail_prob: float  # share of requests in the slow mode
    tail_factor: float  # how much slower the slow mode is

    @property
    def deterministic(self) -> bool:
        return self.cv == 0.0 and (self.tail_prob == 0.0 or self.tail_factor == 1.0)


#: Defaults by the accelerator's kind (see the module docstring for the sources).
GPU_SPREAD = ServiceSpread(cv=0.017, tail_prob=0.02, tail_factor=1.31)
CPU_SPREAD = ServiceSpread(cv=0.03, tail_prob=0.02, tail_factor=1.5)
NO_SPREAD = ServiceSpread(cv=0.0, tail_prob=0.0, tail_factor=1.0)


def spread_for(model: ModelProfile, cfg: WorkloadConfig) -> ServiceSpread:
    """The configured spread: the accelerator class's measured default, each figure overridable."""
    if cfg.service_spread == "none":
        return NO_SPREAD
    # A model with GPU cycles runs as a TensorRT engine on the GPU; the rest on CPU runtimes.
    base = GPU_SPREAD if "gpu" in model.cycles else CPU_SPREAD
    return ServiceSpread(
        cv=base.cv if cfg.service_cv is None else cfg.service_cv,
        tail_prob=base.tail_prob if cfg.service_tail_prob is None else cfg.service_tail_prob,
        tail_factor=base.tail_factor if cfg.service_tail_factor is None else cfg.service_tail_factor,
    )


def draw_multipliers(spread: ServiceSpread, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` work multipliers with mean exactly 1 in expectation (lognormal body x slow mode)."""
    if spread.deterministic:
        return np.ones(n)
    sigma = math.sqrt(math.log1p(spread.cv * spread.cv))
    body = rng.lognormal(-0.5 * sigma * sigma, sigma, n) if sigma > 0.0 else np.ones(n)
    slow = rng.random(n) < spread.tail_prob
    scale = 1.0 + spread.tail_prob * (spread.tail_factor - 1.0)
    return np.where(slow, body * spread.tail_factor, body) / scale


class ServiceDraws:
    """Request ``i``'s multiplier, in request order, drawn in numpy chunks (no per-request churn)."""

    def __init__(self, spread: ServiceSpread, rng: np.random.Generator) -> None:
        self.spread = spread
        self.rng = rng
        # The current chunk as drawn (``take`` slices it) and, made on first use, as Python
        # floats (``next`` indexes it): one conversion per chunk, whichever way it is read.
        self._arr: np.ndarray = np.empty(0)
        self._buf: list[float] | None = []
        self._pos = 0

    def _refill(self) -> None:
        self._arr = draw_multipliers(self.spread, self.rng, _CHUNK)
        self._buf = None
        self._pos = 0

    def next(self) -> float:
        if self._pos >= len(self._arr):
            self._refill()
        buf = self._buf
        if buf is None:
            buf = self._buf = self._arr.tolist()
        m = buf[self._pos]
        self._pos += 1
        return m

    def take(self, n: int) -> np.ndarray:
        """The next ``n`` multipliers at once (the same sequence ``next`` would give)."""
        pos = self._pos
        if pos + n <= len(self._arr):  # nearly always: one slice of the chunk
            self._pos = pos + n
            return self._arr[pos : pos + n].copy()
        out = np.empty(n)
        i = 0
        while i < n:
            if self._pos >= len(self._arr):
                self._refill()
            k = min(n - i, len(self._arr) - self._pos)
            out[i : i + k] = self._arr[self._pos : self._pos + k]
            self._pos += k
            i += k
        return out


class BatchWork:
    """Work of consecutive full batches of ``k`` requests (a saturating stream), as prefix sums.

    ``work(j, n)`` is the summed multiplier of batches ``j .. j+n-1``; the saturating server
    uses it to find in O(1) how many batches fit in an interval (a guess from the mean, then a
    step or two, since the spread of a sum of ``n`` batches is only ``cv * sqrt(n)`` of one).
    """

    def __init__(self, draws: ServiceDraws, k: int) -> None:
        self.draws = draws
        self.k = k
        self._base = 0  # batch index of _prefix[0]
        self._prefix: list[float] = [0.0]  # Python floats: ``fit`` indexes a few per call
        # The same values as numpy arrays, in the pieces they were made in, so ``span`` slices
        # them instead of converting tens of thousands of Python floats back.
        self._parts: list[np.ndarray] = [np.zeros(1)]

    def _extend(self, upto: int) -> None:
        while self._base + len(self._prefix) - 1 < upto:
            draws = self.draws.take(256 * self.k)
            # A batch's work is the sum of its requests' (one request: the draw itself).
            per_batch = draws if self.k == 1 else draws.reshape(256, self.k).sum(axis=1)
            part = self._prefix[-1] + np.cumsum(per_batch)
            self._parts.append(part)
            self._prefix.extend(part.tolist())

    def forget_before(self, j: int) -> None:
        """Keep the prefix short: drop what lies behind batch ``j`` (never asked about again)."""
        drop = j - self._base
        if drop > 0:
            off = self._prefix[drop]
            # One numpy subtraction per element (the same IEEE operation as ``p - off`` in a
            # loop): a governor's cap change rebases a thousand or so batches each time.
            kept = np.array(self._prefix[drop:]) - off
            self._prefix = kept.tolist()
            self._parts = [kept]
            self._base = j

    def cum(self, j: int) -> float:
        """Summed work of batches ``0 .. j-1`` relative to the kept base."""
        self._extend(j)
        return self._prefix[j - self._base]

    def one(self, j: int) -> float:
        """Batch ``j``'s work (``cum(j + 1) - cum(j)``, one extension check)."""
        i = j - self._base
        p = self._prefix
        if i + 1 >= len(p):
            self._extend(j + 1)
            p = self._prefix
        return p[i + 1] - p[i]

    def fit(self, j: int, avail_s: float, fixed_s: float, per_s: float) -> tuple[int, float]:
        """How many whole batches from ``j`` end within ``avail_s``, and the time they take.

        Batch ``b`` takes ``fixed_s + per_s * work_b``; a guess from the mean work, then a step
        or two (the spread of ``n`` batches' total is ``cv * sqrt(n)`` of one batch).
        """
        n = int(avail_s / (fixed_s + per_s * self.k))
        i = j - self._base
        if i + n + 1 >= len(self._prefix):
            self._extend(j + n + 1)
        p = self._prefix
        c0 = p[i]
        while n > 0 and n * fixed_s + per_s * (p[i + n] - c0) > avail_s:
            n -= 1
        while True:
            if i + n + 1 >= len(p):
                self._extend(j + n + 1)
                p = self._prefix
            if (n + 1) * fixed_s + per_s * (p[i + n + 1] - c0) > avail_s:
                return n, n * fixed_s + per_s * (p[i + n] - c0)
            n += 1

    def span(self, j: int, n: int) -> np.ndarray:
        """Each batch's work for batches ``j .. j+n-1``: differences of the prefix sums.

        ``np.diff`` does the same subtraction per pair as ``p[a + 1] - p[a]``, without a Python
        loop over what is hundreds of batches between two clock changes.
        """
        self._extend(j + n)
        i = j - self._base
        parts = self._parts
        whole = parts[0] if len(parts) == 1 else np.concatenate(parts)
        if len(parts) > 1:
            self._parts = [whole]
        return np.diff(whole[i : i + n + 1])
