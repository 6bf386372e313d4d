"""A run that ends before its scenario (the pack empties) is not given a share of the bound.

The oracle bounds the scenario's steady window (the last half of its whole duration); a run cut
short is scored on the last half of what ran. Session 14's race printed orin-battery-robot at
"96.5 % of the bound" with the two windows 902-1806 s and 1800-3600 s.
"""

from __future__ import annotations

from pathlib import Path

from thermogov.config import Config, SimConfig
from thermogov.sim.compare.compare import run_policy


def _row(tmp_path: Path, soc: float):
    cfg = Config(board="jetson-orin-nano", sim=SimConfig(duration_s=600.0, initial_soc=soc))
    return run_policy(cfg, "hysteresis", tmp_path / f"soc{soc}", oracle_ips=200.0)


def test_a_run_cut_short_by_its_battery_has_no_share_of_the_bound(tmp_path: Path) -> None:
    short = _row(tmp_path, 0.002)
    assert short.sustained_ips is not None
    assert short.oracle_ips is None and short.pct_oracle is None
    whole = _row(tmp_path, 1.0)
    assert whole.oracle_ips == 200.0 and whole.pct_oracle is not None
