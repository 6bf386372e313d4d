"""Seeded random scenarios: ambient paths, fan/lid changes, load kinds and hot starts.

The oracle claims to be a bound on *any* scenario, not just the suite's, whose conditions
only ever get worse.  These worlds let conditions improve as well (ambient falling, a link
recovering, a hot start cooling down), which is where a rule that forbids throughput to rise
stopped being a bound.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from thermogov.config import Config, SimConfig, SimEvent, WorkloadConfig

BOARDS = ("jetson-orin-nano", "rpi5", "rpi4")
#: Ambient range per board: hot enough to reach the trip within a short run.
AMBIENT_C = {"jetson-orin-nano": (20.0, 40.0), "rpi5": (20.0, 40.0), "rpi4": (25.0, 45.0)}
#: A Poisson rate near each board's sustainable throughput, so the thermal side matters.
RATE_IPS = {"jetson-orin-nano": 200.0, "rpi5": 40.0, "rpi4": 22.0}
LINK_NODE = {"jetson-orin-nano": "lid", "rpi5": "board", "rpi4": "board"}


def random_scenario(seed: int, duration_s: float = 300.0) -> Config:
    """One world drawn from ``seed``: board, ambient random walk, a link change, load, start."""
    rng = np.random.default_rng(seed)
    board = BOARDS[int(rng.integers(len(BOARDS)))]
    lo, hi = AMBIENT_C[board]
    ambient = float(rng.uniform(lo, hi))
    events = []
    t = float(rng.uniform(20.0, 60.0))
    level = ambient
    while t < duration_s - 10.0:
        level = float(np.clip(level + rng.normal(0.0, 6.0), lo - 5.0, hi + 5.0))
        events.append(SimEvent(at_s=round(t), kind="ambient", value=round(level, 2)))
        t += float(rng.uniform(20.0, 80.0))
    if rng.random() < 0.5:
        at = round(float(rng.uniform(0.1, 0.8)) * duration_s)
        scale = float(rng.choice([0.6, 0.8, 1.25, 1.5]))
        events.append(SimEvent(at_s=at, kind="ambient_link", target=LINK_NODE[board], value=scale))
    kind = str(rng.choice(["saturating", "saturating", "saturating", "poisson", "bursty"]))
    workload = WorkloadConfig(kind=kind, rate_ips=RATE_IPS[board], burst_factor=2.0)
    # Half the worlds start hot (a board that has been running): cooling headroom to bank.
    initial = None if rng.random() < 0.5 else round(ambient + float(rng.uniform(10.0, 40.0)), 1)
    sim = SimConfig(
        duration_s=duration_s,
        ambient_c=round(ambient, 2),
        workload=workload,
        scenario=f"random-{seed}",
        initial_temp_c=initial,
        events=tuple(sorted(events, key=lambda e: e.at_s)),
    )
    return dataclasses.replace(Config(), board=board, seed=seed, sim=sim)
