"""Static against dynamic batching in ``compare``: one scenario, the same requests, two batchers.

``thermogov compare --batching static,dynamic`` runs every scenario once per batcher, labelled
``<scenario>+<batcher>``.  The arrivals and each request's work come from streams spawned from
the seed and drawn in request order, whatever the batcher does (:mod:`thermogov.sim.model.workload`),
so the two rows differ by the batcher alone: throughput and p50/p99 latency side by side.
``--batch-size`` and ``--max-wait-ms`` set the largest batch and the wait on every variant (a
scenario's own workload is usually batch 1, where both batchers are the same).
"""

from __future__ import annotations

import dataclasses

from thermogov.config import Config
from thermogov.interfaces import ConfigError

MODES = ("static", "dynamic")


def check_modes(modes: list[str]) -> list[str]:
    for m in modes:
        if m not in MODES:
            raise ConfigError(f"--batching: unknown batcher {m!r}; use static, dynamic or both")
    return list(dict.fromkeys(modes))


def batching_variants(
    label: str,
    cfg: Config,
    modes: list[str],
    batch_size: int | None = None,
    max_wait_ms: float | None = None,
) -> list[tuple[str, Config]]:
    """``(label, cfg)`` once per batcher (unchanged when no batcher and no size is asked for)."""
    w = cfg.sim.workload
    if batch_size is not None:
        w = dataclasses.replace(w, batch_size=batch_size)
    if max_wait_ms is not None:
        w = dataclasses.replace(w, max_wait_ms=max_wait_ms)
    if not modes:
        return [(label, dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, workload=w)))]
    return [
        (
            f"{label}+{m}",
            dataclasses.replace(
                cfg, sim=dataclasses.replace(cfg.sim, workload=dataclasses.replace(w, batching=m))
            ),
        )
        for m in modes
    ]
