"""Parity: a policy takes the same decisions in the daemon as in the simulator, on the same inputs.

The real daemon (``thermogov.hw.daemon``) governs an emulated board (a simulated plant behind a
fake sysfs tree, ``thermogov.sim.emulator``) with a recorder around the policy it builds: every
``PolicyInput`` it was given and the ``Decision`` it returned.  The same policy, built the way
the simulator builds it (``thermogov.sim.model.runner.build_policy``: the profile's OPP tables,
the simulator's context), is then fed that very reading sequence; its cap sequence (and state
and events) must be the daemon's, tick for tick.  What could break it: the daemon's tables
read from sysfs differing from the profile's, a context key only one world sets, a policy
reading a clock of its own, or state kept between objects.  The daemon's trace must also show
the caps of those decisions (nothing between the policy and the board changed them).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import threading
from pathlib import Path

import pytest

import thermogov.config as config_module
from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw import daemon
from thermogov.policies import Decision, Policy, PolicyContext, PolicyInput
from thermogov.sim.emulator.emulate import Emulator
from thermogov.sim.model.runner import build_policy

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the daemon writes caps only as root")


#: Board time flat out before the tree goes live: each board near its band (the Pi heats slower).
WARM_UP_S = {"jetson-orin-nano": 100.0, "rpi5": 900.0}


class _Recording:
    """A policy that records what it was asked and what it answered (copies: policies may reuse)."""

    def __init__(self, inner, log: list[tuple[PolicyInput, Decision]]) -> None:
        self.inner = inner
        self.name = inner.name
        self.log = log

    @property
    def state(self) -> str:
        return getattr(self.inner, "state", "")

    def decide(self, inp: PolicyInput) -> Decision:
        d = self.inner.decide(inp)
        self.log.append((inp, Decision(dict(d.caps_hz), d.state, d.event)))
        return d


def _config(board_name: str, policy: str) -> Config:
    # step_wise at a trip the warmed-up board crosses within the run, so it steps both ways.
    # stepped on the Pi leaves the firmware's ramp (from 80 °C) to run the clock and holds one
    # cap above it for seconds on end, so its trip is set where the warmed-up die (82.5-83.6 °C)
    # crosses it: the trip rule, the band and the firmware-ramp ceiling all act within the run.
    params: dict[str, dict[str, object]] = {"step_wise": {"trips": [{"temp_c": 66.0, "hyst_c": 2.0}]}}
    if board_name.startswith("rpi"):
        params["stepped"] = {"trip_c": 83.0}
    return dataclasses.replace(Config(board=board_name), policy=policy, policies=params)


def _govern(tmp: Path, board_name: str, policy: str, monkeypatch) -> tuple[list, Path]:
    board = load_board(board_name)
    cfg = _config(board_name, policy)
    root = tmp / "board"
    # Warmed up flat out to near the trip, at 10x: ~40 s of board time in the band in 4 s.
    emu = Emulator(board, root, cfg, speed=10.0, warm_up_s=WARM_UP_S[board_name])
    worker = threading.Thread(target=emu.run, args=(None,), daemon=True)
    log: list[tuple[PolicyInput, Decision]] = []
    # The daemon builds its policy through Config.make_policy, which calls this name; so does the
    # emulator's simulated side, whose policy is not the one under test (its context has no
    # "backend": "hw").
    real = config_module.configured_policy

    def recording(spec: str, tables: dict, ctx: PolicyContext) -> Policy:
        policy = real(spec, tables, ctx)
        return _Recording(policy, log) if ctx.extra.get("backend") == "hw" else policy

    monkeypatch.setattr(config_module, "configured_policy", recording)
    worker.start()
    try:
        opts = daemon.RunOptions(
            config=cfg,
            sysfs_root=root,
            board=board_name,
            duration_s=4.0,
            out=tmp / "out",
            state_dir=tmp / "state",
            lock_file=tmp / "lock",
        )
        summary = daemon.run(opts, out=io.StringIO(), err=io.StringIO())
    finally:
        emu.stop.set()
        worker.join(10.0)
    assert summary["stopped_by"] == "duration"
    (run_dir,) = [p for p in (tmp / "out").iterdir() if p.is_dir()]
    return log, run_dir


@pytest.mark.parametrize(
    ("board_name", "policy"),
    [("jetson-orin-nano", "stepped"), ("jetson-orin-nano", "step_wise"), ("rpi5", "stepped")],
)
def test_the_simulators_policy_takes_the_daemons_decisions_on_its_readings(
    tmp_path: Path, monkeypatch, board_name: str, policy: str
) -> None:
    log, run_dir = _govern(tmp_path, board_name, policy, monkeypatch)
    assert len(log) > 20, "the daemon barely ticked"
    caps_seen = {tuple(sorted(d.caps_hz.items())) for _, d in log}
    assert len(caps_seen) > 1, "the policy never changed a cap, so parity was not exercised"

    board = load_board(board_name)
    cfg = _config(board_name, policy)
    twin = build_policy(cfg, board)
    for i, (inp, want) in enumerate(log):
        got = twin.decide(inp)
        assert dict(got.caps_hz) == want.caps_hz, (i, inp.t_s, inp.fused_c)
        assert (got.state, got.event) == (want.state, want.event), i

    # The trace shows the caps those decisions asked for, tick for tick.
    with (run_dir / "trace.csv").open() as fh:
        rows = [r for r in csv.DictReader(fh) if r["fused_c"]]
    assert len(rows) == len(log)
    for row, (_, want) in zip(rows, log, strict=True):
        if "hard_limit" in row["event"] or row["policy_state"] == "FAILSAFE":
            continue
        assert {d: int(row[f"{d}_cap_hz"]) for d in want.caps_hz} == want.caps_hz
