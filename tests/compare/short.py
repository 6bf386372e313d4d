"""Suite scenarios shortened for tests: same world, events moved in proportion."""

from __future__ import annotations

import dataclasses

from thermogov.config import Config
from thermogov.sim.scenarios import load_scenario


def short(name: str, duration_s: float, base: Config | None = None) -> Config:
    cfg = load_scenario(name, base)
    f = duration_s / cfg.sim.duration_s
    events = tuple(dataclasses.replace(e, at_s=float(round(e.at_s * f))) for e in cfg.sim.events)
    return dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, duration_s=duration_s, events=events))


def with_sim(cfg: Config, **changes: object) -> Config:
    return dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, **changes))
