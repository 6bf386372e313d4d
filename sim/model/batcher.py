"""When the idle server takes a batch from the queue, and how big: static or dynamic batching.

Both flush on size and on the oldest request's wait (``max_wait_ms``); they differ in the size:

* **static**: a batch is ``batch_size`` requests; a partial one leaves only when its oldest
  request has waited ``max_wait_ms`` (0: at once).  A fixed batch tuned for peak load makes
  every request at light load wait for the batch to fill.
* **dynamic** (the Triton / TorchServe dynamic batcher; Triton's ``max_queue_delay`` is our
  ``max_wait_ms``): the flush size adapts to the load seen in the queue.  It tracks the queue
  depth each time the server falls free (the backlog that built up while it worked: an
  exponential average over about four batches) and flushes as soon as the queue holds that
  many, up to ``batch_size``; at light load that is 1, so a request is served at once, and
  under a backlog it takes everything queued up to the largest batch, so the per-batch
  overhead is amortised exactly when throughput matters.  A model without a per-batch cost
  (``batch_fixed``) gains nothing from a batch, so there it serves one request at a time.
  The depth is read when the server
  falls free, never after the batcher's own wait, which would feed its waiting back into its
  size.

The server tells the batcher the depth when it falls free (``observe``) and asks two things in
its event loop: ``flush_at`` (queue length at which to dispatch without waiting) and
``take(depth)`` (how many to dispatch now).  Plain attribute reads and small method calls: no
objects per request.
"""

from __future__ import annotations

from thermogov.config import WorkloadConfig

#: Weight of the newest queue depth in the dynamic batcher's average (about four batches).
DEPTH_SMOOTHING = 0.25


class StaticBatcher:
    mode = "static"

    def __init__(self, batch_size: int, max_wait_s: float) -> None:
        self.max_batch = batch_size
        self.max_wait_s = max_wait_s
        self.flush_at = batch_size

    def observe(self, depth: int) -> None:
        """A fixed batch ignores the load."""

    def take(self, depth: int) -> int:
        return min(self.max_batch, depth)


class DynamicBatcher:
    mode = "dynamic"

    def __init__(self, max_batch: int, max_wait_s: float, amortises: bool = True) -> None:
        # Without a per-batch cost a batch never raises capacity, and every member waits for
        # the last: the dynamic batcher then serves one request at a time.
        self.max_batch = max_batch if amortises else 1
        self.max_wait_s = max_wait_s
        self.depth_avg = 1.0
        self.flush_at = 1

    def observe(self, depth: int) -> None:
        """The queue depth at the instant the server fell free."""
        self.depth_avg += DEPTH_SMOOTHING * (depth - self.depth_avg)
        self.flush_at = max(1, min(self.max_batch, round(self.depth_avg)))

    def take(self, depth: int) -> int:
        return min(self.max_batch, depth)


Batcher = StaticBatcher | DynamicBatcher


def make_batcher(cfg: WorkloadConfig, batch_fixed_s: float = 0.0) -> Batcher:
    """The configured batcher; ``batch_fixed_s`` is the model's per-batch cost (batching's gain)."""
    wait = cfg.max_wait_ms / 1000.0
    if cfg.batching == "dynamic":
        return DynamicBatcher(cfg.batch_size, wait, amortises=batch_fixed_s > 0.0)
    return StaticBatcher(cfg.batch_size, wait)
