"""Every policy is reachable by name, on every board, and answers with table members only."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.board import builtin_board_names
from thermogov.policies import policy_names

NEW = ("step_wise", "bang_bang", "power_allocator", "stepped")


def test_the_new_policies_are_registered() -> None:
    assert set(NEW) <= set(policy_names())


@pytest.mark.parametrize("board", builtin_board_names())
@pytest.mark.parametrize("name", NEW)
def test_decisions_are_opps_of_every_domain(name: str, board: str) -> None:
    ctx = ctx_for(board)
    p = policy(name, board=board)
    caps = ctx.highest_caps()
    for i, temp in enumerate([60.0, 80.0, 86.0, 90.0, 84.0, 72.0, 65.0] * 3):
        d = p.decide(inp(i * 0.5, temp, ctx, caps=caps))
        assert set(d.caps_hz) == set(ctx.tables_hz)
        assert all(f in ctx.tables_hz[dom] for dom, f in d.caps_hz.items())
        caps = d.caps_hz


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("step_wise", "drivers/thermal/gov_step_wise.c"),
        ("bang_bang", "drivers/thermal/gov_bang_bang.c"),
        ("power_allocator", "drivers/thermal/gov_power_allocator.c"),
        ("ipa_math", "drivers/thermal/gov_power_allocator.c"),
        ("power_actors", "drivers/thermal/cpufreq_cooling.c"),
        ("power_actors", "drivers/thermal/devfreq_cooling.c"),
        ("kernel", "drivers/thermal/thermal_core.c"),
    ],
)
def test_each_kernel_reimplementation_names_its_source(module: str, source: str) -> None:
    doc = importlib.import_module(f"thermogov.policies.{module}").__doc__ or ""
    assert re.search(re.escape(source), doc)
