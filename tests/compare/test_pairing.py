"""Paired runs: two policies on one scenario see the same frames and the same read noise."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numpy as np

from tests.compare.short import short
from thermogov.sim.compare.compare import run_policy
from thermogov.sim.model.runner import simulate


def _samples(run_dir: str, sensor: str) -> dict[float, float]:
    with (Path(run_dir) / "samples.csv").open(encoding="utf-8") as fh:
        return {
            float(r["t_s"]): float(r["value_c"])
            for r in csv.DictReader(fh)
            if r["sensor"] == sensor and r["value_c"]
        }


def test_two_policies_get_the_same_noise_at_the_same_instants(tmp_path: Path) -> None:
    cfg = short("orin-steady-25", 120.0)
    a = run_policy(cfg, "fixed:cpu=729.6,gpu=1020", tmp_path)
    b = run_policy(cfg, "fixed:cpu=729.6,gpu=306", tmp_path)
    sa, sb = _samples(a.run_dir, "gpu"), _samples(b.run_dir, "gpu")
    assert sa.keys() == sb.keys()
    diff = np.array([sa[t] - sb[t] for t in sorted(sa)])
    # The clocks differ by a factor of three, so the readings drift apart by degrees, but the
    # noise (0.15 °C per read) is common to both runs and cancels: what is left is smooth.
    assert diff[-1] > 3.0
    steps = np.diff(diff[100:])  # after the die's first seconds, where the two powers part
    assert np.std(steps) < 0.01  # unpaired, the noise alone would give about 0.2 °C


def test_two_policies_get_the_same_frames() -> None:
    cfg = short("orin-bursty", 60.0)
    worlds = []
    for spec in ("fixed:cpu=729.6,gpu=1020", "fixed:cpu=729.6,gpu=306"):
        res = simulate(dataclasses.replace(cfg, policy=spec))
        worlds.append(res.world)
    fast, slow = worlds
    assert fast.server.completed > slow.server.completed  # the policies really differ
    # every frame that arrived was either done, dropped or still waiting, in both runs alike
    arrivals = [w.server.completed + w.server.dropped + len(w.server._queue) + w.server._size for w in worlds]
    assert arrivals[0] == arrivals[1]
    assert fast.server.arrivals is not None and slow.server.arrivals is not None
    assert fast.server.arrivals.next_t == slow.server.arrivals.next_t
