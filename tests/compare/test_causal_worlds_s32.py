"""The causal bounds on worlds nobody tuned on: seeded random worlds and a drawn fan failure.

Split from ``test_causal.py`` (session 32k; the check is ``causalcheck.py``'s): every
trip-keeping row under its own causal bound, run's end and open-ended, on random worlds whose
conditions also improve and on a board drawn from the families.  Each world is a grid of runs
and a linear programme per row, so the two files run on two workers under ``--dist loadfile``.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from tests.compare.causalcheck import KEEPING, check_own_causal_bounds
from tests.compare.randomscen import random_scenario
from thermogov.sim.compare.causal import event_instant_s

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from drawn_worlds import drawn_worlds  # noqa: E402  (bench/)

#: Random worlds with a saturating load and an event after the start (ambient walks, links).
EVENT_SEEDS = [
    s
    for s in range(11, 60)
    if random_scenario(s).sim.workload.kind == "saturating"
    and event_instant_s(random_scenario(s)) is not None
][:3]


@pytest.mark.parametrize("seed", EVENT_SEEDS)
def test_no_policy_beats_its_own_causal_bound_on_random_worlds(seed: int, tmp_path: Path) -> None:
    check_own_causal_bounds(dataclasses.replace(random_scenario(seed), policies=KEEPING), tmp_path)


def test_no_policy_beats_its_own_causal_bound_on_a_drawn_fan_failure(tmp_path: Path) -> None:
    """A world drawn from the families (bench/drawn_worlds.py), a board nobody tuned on."""
    worlds = [w for w in drawn_worlds(16, range(1, 17), time_scale=0.1) if "fan-failure" in w.name]
    worlds = [w for w in worlds if w.config.sim.workload.kind == "saturating" and event_instant_s(w.config)]
    assert worlds, "draw 16 has a saturating fan-failure world"
    check_own_causal_bounds(dataclasses.replace(worlds[0].config, policies=KEEPING), tmp_path)
