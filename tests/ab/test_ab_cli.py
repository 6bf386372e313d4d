"""``thermogov ab`` through the installed script: on the emulator, and every bad input refused."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error, thermogov
from tests.integration.loop import wait_for_line

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="ab writes caps only as root")


def _feed(root: Path) -> str:
    return "cmd:" + shlex.join([sys.executable, "-m", "thermogov.sim.emulator.feed", str(root)])


def _emulate(root: Path, speed: float, wall_s: float) -> subprocess.Popen[str]:
    cmd = [
        SCRIPT,
        "emulate",
        "--board",
        "jetson-orin-nano",
        "--sysfs-root",
        str(root),
        "--speed",
        f"{speed:g}",
    ]
    cmd += ["--wall-duration", f"{wall_s:g}s", "--warm-up", "60s"]
    emu = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_line(emu, "ready")
    return emu


def _ab_args(tmp: Path, root: Path, *extra: str) -> list[str]:
    return daemon_args("ab", tmp, root, *extra)


def daemon_args(command: str, tmp: Path, root: Path, *extra: str) -> list[str]:
    """``command`` (ab, run) on the Orin Nano tree ``root`` with its folders under ``tmp``."""
    return [
        command,
        "--sysfs-root",
        str(root),
        "--board",
        "jetson-orin-nano",
        "--out",
        str(tmp / "out"),
        "--state-dir",
        str(tmp / "state"),
        "--lock-file",
        str(tmp / "lock"),
        *extra,
    ]


def tree(tmp: Path) -> Path:
    """An Orin Nano's sysfs tree under ``tmp/board``: bad input needs no live emulator."""
    from thermogov.board import load_board
    from thermogov.config import Config
    from thermogov.sim.emulator.emulate import Emulator

    root = tmp / "board"
    Emulator(load_board("jetson-orin-nano"), root, Config())
    return root


def _caps(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name in ("scaling_max_freq", "scaling_min_freq", "max_freq", "min_freq")
    }


def ab_on_emulator(
    tmp: Path, *args: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], dict[str, str]]:
    """``thermogov ab ARGS --json`` on a live emulated Orin Nano fed by its own inferences:
    the process and the caps before and after it."""
    root = tmp / "board"
    emu = _emulate(root, speed=10.0, wall_s=120.0)
    try:
        before = _caps(root)
        p = thermogov(*_ab_args(tmp, root, *args, "--workload", _feed(root), "--json"), timeout=120)
        after = _caps(root)
    finally:
        emu.terminate()
        emu.wait(timeout=30)
    return p, before, after


@root_only
def test_ab_on_the_emulator_resolves_full_clocks_against_the_lowest_and_restores(tmp_path: Path) -> None:
    p, before, after = ab_on_emulator(
        tmp_path,
        "--policy",
        "performance",
        "--policy",
        "fixed:0%",
        "--pairs",
        "2",
        "--block",
        "3s",
        "--cool-down",
        "1s",
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    blocks, res = doc["blocks"], doc["result"]
    assert [b["policy"] for b in blocks].count("performance") == 2 and len(blocks) == 4
    assert all(b["throughput_ips"] > 0 and b["max_fused_c"] is not None for b in blocks)
    # Full clocks sustain more than the lowest caps on every pair: the interval excludes 0.
    assert res["ci_low_ips"] > 0 and res["verdict"] == "performance sustains more"
    assert res["ci_low_ips"] <= res["diff_ips"] <= res["ci_high_ips"]
    assert res["max_fused_a_c"] > res["max_fused_b_c"]
    assert after == before, "the limits were not restored after the blocks"
    runs = [d for d in (tmp_path / "out").rglob("trace.csv")]
    assert len(runs) == 4 + 4  # every block and every cool-down is a daemon run of its own


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--policy", "stepped"], "--policy"),
        (["--policy", "stepped", "--policy", "stepped"], "--policy"),
        (["--policy", "stepped", "--policy", "nope"], "--policy"),
        (["--policy", "stepped", "--policy", "hysteresis", "--pairs", "1"], "--pairs"),
        (["--policy", "stepped", "--policy", "hysteresis", "--block", "nan"], "--block"),
        (["--policy", "stepped", "--policy", "hysteresis", "--cool-down", "-3s"], "--cool-down"),
        (["--policy", "stepped", "--policy", "hysteresis", "--confidence", "inf"], "--confidence"),
        (["--policy", "stepped", "--policy", "fixed:99999"], "fixed"),
        # variant arms (thermogov/variant.py): the config table's checks, naming arm and key
        (
            ["--policy", "stepped", "--policy", "stepped+release_frontier=maybe"],
            "'stepped+release_frontier=maybe': release_frontier: expected",
        ),
        (["--policy", "stepped", "--policy", "stepped+relase_frontier=true"], "relase_frontier: unknown key"),
        (
            ["--policy", "stepped", "--policy", "stepped+limit_margin_c=nan"],
            "limit_margin_c=nan is not a finite",
        ),
        (
            ["--policy", "stepped", "--policy", "stepped+limit_margin_c=inf"],
            "limit_margin_c=inf is not a finite",
        ),
        (
            ["--policy", "stepped+release_frontier=true", "--policy", "stepped + release_frontier =true"],
            "run the same policy with the same parameters",
        ),
        # a key at its default is the plain arm (session 21c): refused, not run as an A/B
        (
            [
                "--policy",
                "stepped",
                "--policy",
                "stepped+release_frontier=false",
                "--pairs",
                "2",
                "--block",
                "1s",
            ],
            "'stepped' and 'stepped+release_frontier=false' run the same policy",
        ),
        (
            ["--policy", "hysteresis", "--policy", "fixed:50%+trip_c=80"],
            "'fixed:50%+trip_c=80': trip_c: unknown key",
        ),
    ],
)
@root_only
def test_bad_ab_input_exits_2_in_one_line_and_touches_nothing(
    tmp_path: Path, extra: list[str], needle: str
) -> None:
    root = tree(tmp_path)
    before = _caps(root)
    p = thermogov(*_ab_args(tmp_path, root, "--workload", _feed(root), *extra), timeout=60)
    one_line_error(p, needle)
    assert _caps(root) == before
    assert not (tmp_path / "out").exists() and not (tmp_path / "state").exists()


@root_only
def test_ab_without_a_workload_exits_2(tmp_path: Path) -> None:
    root = tree(tmp_path)
    p = thermogov(*_ab_args(tmp_path, root, "--policy", "stepped", "--policy", "hysteresis"), timeout=60)
    one_line_error(p, "--workload")
