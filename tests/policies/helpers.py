"""Builders shared by the policy tests: contexts, inputs and a tiny hand-checkable board."""

from __future__ import annotations

from typing import Any

from thermogov.board import BoardProfile, load_board, parse_board
from thermogov.policies import PolicyContext, make_policy
from thermogov.policies.base import Policy, PolicyInput
from thermogov.tomlcheck import Table


def ctx_for(board: BoardProfile | str = "jetson-orin-nano") -> PolicyContext:
    b = load_board(board) if isinstance(board, str) else board
    return PolicyContext(
        board=b,
        tables_hz={d.name: d.opp_hz for d in b.domains},
        control_period_s=0.1,
        sensor_names=tuple(s.name for s in b.sensors),
    )


def policy(
    spec: str, params: dict[str, Any] | None = None, board: BoardProfile | str = "jetson-orin-nano"
) -> Policy:
    t = Table(dict(params or {}), f"policies.{spec.partition(':')[0]}")
    p = make_policy(spec, t, ctx_for(board))
    t.done()
    return p


def inp(
    t_s: float,
    fused_c: float,
    ctx: PolicyContext,
    caps: dict[str, int] | None = None,
    readings: dict[str, float | None] | None = None,
) -> PolicyInput:
    caps = caps or ctx.highest_caps()
    if readings is None:  # every sensor reads the fused value, kept 10 °C under its hard limit
        readings = {s.name: min(fused_c, s.hard_limit_c - 10.0) for s in ctx.board.sensors}
    return PolicyInput(
        t_s=t_s,
        fused_c=fused_c,
        readings_c=readings,
        caps_hz=caps,
        freqs_hz=dict(caps),
    )


def tiny_board() -> BoardProfile:
    """Two domains with round numbers, so every power figure can be worked out by hand.

    CPU: 2 cores at 1000/2000 MHz, 1.0 V, C = 100 uW/MHz/V^2 -> 100 / 200 mW per core.
    GPU: 500/1000 MHz, 1.0 V, C = 1000 -> 500 / 1000 mW.  No leakage, no idle power.
    Model: the GPU does 1e6 cycles, the CPU 4e6 cycles on 2 threads, no fixed time, so at
    full clocks both stages take 1 ms: the GPU is busy all the time and the CPU's two cores too.
    """
    data = {
        "board": {"name": "tiny"},
        "sensors": {
            "cpu": {"weight": 0.5, "period_ms": 100, "hard_limit_c": 95.0, "node": "cpu"},
            "gpu": {"weight": 0.5, "period_ms": 100, "hard_limit_c": 95.0, "node": "gpu"},
        },
        "domains": {
            "cpu": {
                "kind": "cpufreq",
                "node": "cpu",
                "cores": 2,
                "opp_mhz": [1000.0, 2000.0],
                "volt_v": [1.0, 1.0],
                "c_dyn_uw_per_mhz_v2": 100.0,
            },
            "gpu": {
                "kind": "devfreq",
                "node": "gpu",
                "opp_mhz": [500.0, 1000.0],
                "volt_v": [1.0, 1.0],
                "c_dyn_uw_per_mhz_v2": 1000.0,
            },
        },
        "thermal": {
            "links": [["cpu", "gpu", 1.0]],
            "nodes": {
                "cpu": {"capacitance_j_per_k": 1.0, "to_ambient_w_per_k": 0.1},
                "gpu": {"capacitance_j_per_k": 1.0, "to_ambient_w_per_k": 0.1},
            },
        },
        "model": {"name": "m", "fixed_ms": 0.0, "cycles": {"gpu": 1e6, "cpu": 4e6}, "threads": {"cpu": 2}},
    }
    return parse_board(data, "tiny")
