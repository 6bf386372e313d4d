"""The shared bounds of ``tests/compare/solved.py``: one solve per world, never a changed one.

A cache that handed one world's bound to another, or let a test change a bound another test
reads, would make the bound tests pass or fail by their order; these pin that it does neither.
"""

from __future__ import annotations

import dataclasses

import pytest

from tests.compare.short import short
from tests.compare.solved import shared_anywindow_bound, shared_oracle
from thermogov.sim.compare.anywindow import anywindow_bound


def test_the_same_world_is_solved_once_and_its_result_is_read_only() -> None:
    cfg = short("orin-steady-25", 60.0)
    first = shared_anywindow_bound(cfg)
    again = shared_anywindow_bound(dataclasses.replace(cfg))  # an equal config built anew
    assert first is not None and again is first
    assert first == anywindow_bound(cfg)  # the result a fresh solve gives
    assert first.shares is not None and not first.shares.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        first.shares[0, 0] = 0.5
    assert shared_oracle(cfg) is shared_oracle(cfg)


def test_configs_that_differ_in_anything_never_share_a_result() -> None:
    cfg = short("orin-steady-25", 60.0)
    longer = shared_anywindow_bound(short("orin-steady-25", 80.0))
    assert longer is not None and longer is not shared_anywindow_bound(cfg)
    assert longer.shares is not None and longer.shares.shape[0] == 40  # its own 2-s grid
    other_policies = dataclasses.replace(cfg, policies={"step_wise": {"trips": []}})
    assert shared_anywindow_bound(other_policies) is not shared_anywindow_bound(cfg)
