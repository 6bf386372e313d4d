"""A fit pinned at a physical bound keeps only the filtered level after the split (atbound.py)."""

from __future__ import annotations

import numpy as np

from thermogov.sim.calibration.atbound import AT_BOUND_SHARE, bound_share, pinned
from thermogov.sim.calibration.model import ParamSpec


def _specs() -> list[ParamSpec]:
    return [
        ParamSpec("C[cpu]", "capacitance", ("cpu",), 0.1, 0.5, "J/K", 4.0),
        ParamSpec("G[heatsink-ambient]", "ambient_link", ("heatsink",), 0.15, 0.5, "W/K", 4.0),
        ParamSpec("dyn_scale[cpu]", "dyn_scale", ("cpu",), 1.0, 0.5, "x", 2.0),
        ParamSpec("ambient", "ambient", (), 25.0, 2.0, "°C", 3.0),
        ParamSpec("initial_offset", "offset", (), 0.0, 3.0, "°C", 6.0),
    ]


def test_a_network_or_ambient_parameter_on_its_bound_is_named_on_either_side() -> None:
    free = np.array([0, 1, 3])
    assert pinned(_specs(), free, np.array([0.3, 4.0, -1.0])) == ["G[heatsink-ambient]"]
    assert pinned(_specs(), free, np.array([-4.0, 0.0, -3.0])) == ["C[cpu]", "ambient"]
    assert pinned(_specs(), free, np.array([3.9, -3.9, 2.9])) == []


def test_power_scales_and_offsets_on_their_bounds_are_not_the_network_failing() -> None:
    free = np.array([2, 4])
    assert pinned(_specs(), free, np.array([2.0, -6.0])) == []


def test_a_pinned_fit_holds_the_level_and_says_which_parameter_and_an_unpinned_one_is_untouched() -> None:
    share, note = bound_share(["G[heatsink-ambient]", "ambient"], 0.75, "from the inner validation")
    assert share == AT_BOUND_SHARE == 0.0
    assert "G[heatsink-ambient], ambient" in note and "atbound.py" in note
    assert bound_share([], 0.75, "from the inner validation") == (0.75, "from the inner validation")
    assert bound_share(["ambient"], 0.0, "already level") == (0.0, "already level")
