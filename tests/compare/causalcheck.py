"""The causal-bound check the causal tests run on each world (``sim/compare/causal.py``).

Shared by ``test_causal.py`` (the suite's worlds) and ``test_causal_worlds_s32.py`` (random and
drawn worlds), split in session 32k so ``--dist loadfile`` can run the two halves on two workers.
"""

from __future__ import annotations

from pathlib import Path

from tests.compare.solved import shared_anywindow_bound
from thermogov.config import Config
from thermogov.sim.compare.anywindow import extended, worst_window_ips
from thermogov.sim.compare.causal import causal_bound, causal_bound_ips, event_instant_s, history_intervals
from thermogov.sim.compare.compare import run_grid

POLICIES = ["stepped", "hysteresis", "step_wise", "power_allocator"]
KEEPING = {
    "step_wise": {"trips": [{"temp_c": 80.0, "hyst_c": 2.0}]},
    "power_allocator": {"control_c": 82.0, "switch_on_c": 67.0},
}
#: The LP is solved to HiGHS's tolerance and relinearised per round: "tighter" is judged to this.
REL = 1e-3


def check_own_causal_bounds(cfg: Config, tmp_path: Path) -> int:
    """Every kept row under its own causal bound (run's end and open-ended); returns how many."""
    assert event_instant_s(cfg) is not None, "these worlds must have an event"
    anyw = shared_anywindow_bound(cfg)
    assert anyw is not None and anyw.throughput_ips is not None
    ext = extended(cfg, 1.5)
    open_b = shared_anywindow_bound(ext)
    assert open_b is not None and open_b.throughput_ips is not None
    checked = 0
    for world, bound, sub in ((cfg, anyw.throughput_ips, "end"), (ext, open_b.throughput_ips, "open")):
        rows, _ = run_grid([(cfg.sim.scenario, world)], POLICIES, tmp_path / sub, with_oracle=False)
        for r in rows:
            if r.above_trip_s or r.hard_limit_s or r.sustained_ips is None:
                continue
            worst = worst_window_ips(world, Path(r.run_dir))
            assert worst is not None
            own = causal_bound(world, Path(r.run_dir))
            assert own is not None, (sub, r.policy)
            assert worst <= own * (1 + 1e-9), (cfg.sim.scenario, sub, r.policy, worst, own)
            assert worst <= bound * (1 + 1e-9), (cfg.sim.scenario, sub, r.policy, worst, bound)
            assert own <= bound * (1 + REL), (cfg.sim.scenario, sub, r.policy, own, bound)
            checked += 1
    # The open-ended bound holds the same windows and more: it cannot exceed the run's-end one.
    assert open_b.throughput_ips <= anyw.throughput_ips * (1 + REL)
    # Above the best fixed cap found by search, given that cap's own past (it is a schedule).
    for world, res in ((cfg, anyw), (ext, open_b)):
        if res.best_fixed_ips is None:
            continue
        m = history_intervals(world, event_instant_s(world) or 0.0)
        fixed_past = causal_bound_ips(world, [res.best_fixed_ips] * m)
        assert fixed_past is not None and fixed_past >= res.best_fixed_ips * (1 - 1e-9)
        assert res.throughput_ips is not None and res.throughput_ips >= res.best_fixed_ips * (1 - 1e-9)
    return checked
