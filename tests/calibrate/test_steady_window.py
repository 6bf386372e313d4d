"""The steady-state window sits on the log's main load phase, whatever short bursts it holds."""

from __future__ import annotations

import numpy as np

from thermogov.sim.calibration.steady import main_load_segment


def test_a_short_gpu_spike_does_not_become_the_main_load() -> None:
    t = np.arange(0.0, 3600.0, 1.0)
    dyn = np.where((t >= 600) & (t < 3000), 1.0, 0.1)  # a 40 min inference phase
    dyn[1800:1806] = 5.0  # a 6 s burst five times the phase's power
    a, b = main_load_segment(t, dyn)
    assert abs(t[a] - 600) <= 30 and abs(t[b] - 3000) <= 30


def test_short_dips_inside_a_phase_do_not_split_it() -> None:
    t = np.arange(0.0, 2000.0, 2.0)
    dyn = np.where(t >= 200, 1.0, 0.0)
    for k in range(400, 2000, 300):  # 20 s pauses between batches
        dyn[(t >= k) & (t < k + 20)] = 0.0
    a, b = main_load_segment(t, dyn)
    assert t[a] <= 230 and t[b] >= 1990


def test_the_longest_of_several_phases_wins() -> None:
    t = np.arange(0.0, 3000.0, 1.0)
    dyn = np.zeros_like(t)
    dyn[(t >= 100) & (t < 400)] = 1.0
    dyn[(t >= 1000) & (t < 2500)] = 0.8
    a, b = main_load_segment(t, dyn)
    assert abs(t[a] - 1000) <= 30 and abs(t[b] - 2500) <= 30
