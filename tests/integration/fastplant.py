"""The emulated board at ``speed`` x, in-process and on a scripted clock: the 10x loop without a daemon.

``thermogov emulate --speed 10`` runs the simulated board ten times faster than the daemon's
wall clock, so the policy sees a plant whose trend changes within its own windows; the
closed-loop test through the real daemon (``loop.py``) depends on how the machine schedules two
processes.  Here the same world (``SimWorld``, its sensors' noise and lag) is advanced to
``speed`` times each tick's time and the policy is asked at that tick, as the daemon would
(``t_s`` on its own clock), but the tick times are a seeded list: a loaded machine's late ticks
are written into it, so a run is the same every time and needs no sleeps and no root.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass

from thermogov.board import load_board
from thermogov.config import Config
from thermogov.fusion import Fusion
from thermogov.interfaces import Reading
from thermogov.policies import PolicyContext, make_policy
from thermogov.policies.base import PolicyInput
from thermogov.policies.ladder import build_ladder
from thermogov.sim.model.world import SimWorld

PLANT_STEP_S = 0.2  # board seconds per plant step: the emulator's 20 ms wall step at 10x


def tick_times(
    n: int, seed: int, period_s: float = 0.1, late_every: int = 50, late_s: float = 0.3
) -> list[float]:
    """``n`` tick times ``period_s`` apart with up to 10 ms of jitter, and about one tick in
    ``late_every`` up to ``late_s`` late (a loaded machine: the daemon's loop waits its turn)."""
    rng = random.Random(seed)
    t, out = 0.0, []
    for _ in range(n):
        t += period_s + rng.uniform(0.0, 0.01)
        if rng.random() < 1.0 / late_every:
            t += rng.uniform(0.0, late_s)
        out.append(round(t, 6))
    return out


@dataclass(frozen=True)
class FastRun:
    rungs: list[int]  # the policy's rung after each tick
    fused_c: list[float]
    moves: list[int]  # |rung change| per tick


def govern_fast(times: list[float], *, board: str = "jetson-orin-nano", speed: float = 10.0) -> FastRun:
    """Default ``stepped`` governing ``board`` at ``speed`` x, asked at each of ``times`` (wall s)."""
    profile = load_board(board)
    config = Config()
    world = SimWorld(profile, config)
    specs = config.sensor_specs(profile)
    fusion = Fusion(specs)
    tables = {name: d.table_hz for name, d in world.domains.items()}
    ctx = PolicyContext(profile, tables, 0.1, tuple(s.name for s in specs))
    policy = make_policy("stepped", config.policy_params("stepped"), ctx)
    index = {tuple(r.items()): i for i, r in enumerate(build_ladder(profile, tables))}
    caps = {name: t[-1] for name, t in tables.items()}
    values: dict[str, float | None] = dict.fromkeys(ctx.sensor_names)
    read_at: dict[str, float | None] = dict.fromkeys(ctx.sensor_names)
    rungs, fused_all = [], []
    for t in times:
        target = t * speed
        while world.t < target - 1e-9:
            world.advance(min(world.t + PLANT_STEP_S, target))
        for s in specs:
            # Sensor readings carry the plant's time; fusion's freshness is on the daemon's clock.
            value = world.sensors[s.name].read().value_c
            fusion.update(Reading(s.name, value, t))
            values[s.name], read_at[s.name] = value, t
        fused = fusion.fuse(t).fused_c
        assert fused is not None
        decision = policy.decide(PolicyInput(t, fused, dict(values), caps, dict(caps), None, dict(read_at)))
        caps = dict(decision.caps_hz)
        for name, dom in world.domains.items():
            table = dom.table_hz
            opp = table[max(bisect.bisect_right(table, caps[name]) - 1, 0)]
            if opp != dom.cap_hz:
                dom.apply(opp)
        rungs.append(index[tuple(caps.items())])
        fused_all.append(fused)
    return FastRun(rungs, fused_all, [abs(b - a) for a, b in itertools.pairwise(rungs)])
