"""``thermogov ab`` with a variant arm, through the installed script on the emulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ab.test_ab_cli import _ab_args, _caps, _emulate, _feed, root_only
from tests.cli.script import one_line_error, thermogov
from thermogov.config import load_config

VARIANT = "stepped+release_frontier=true"


@root_only
def test_a_variant_arm_runs_its_parameters_and_each_block_records_them(tmp_path: Path) -> None:
    root = tmp_path / "board"
    emu = _emulate(root, speed=10.0, wall_s=120.0)
    try:
        before = _caps(root)
        args = ["--policy", "stepped", "--policy", VARIANT, "--pairs", "2", "--block", "3s"]
        p = thermogov(
            *_ab_args(tmp_path, root, *args, "--cool-down", "0", "--workload", _feed(root), "--json"),
            timeout=120,
        )
        after = _caps(root)
    finally:
        emu.terminate()
        emu.wait(timeout=30)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["arms"] == {
        "stepped": {"policy": "stepped", "overrides": {}},
        VARIANT: {"policy": "stepped", "overrides": {"release_frontier": True}},
    }
    assert (doc["result"]["a"], doc["result"]["b"]) == ("stepped", VARIANT)
    assert sorted(b["policy"] for b in doc["blocks"]) == ["stepped", "stepped", VARIANT, VARIANT]
    assert after == before, "the limits were not restored after the blocks"
    # The run folder of each block holds the parameters it ran: `thermogov run --config` of it
    # reproduces the arm.
    for b in doc["blocks"]:
        (conf,) = (tmp_path / "out" / f"block-{b['index'] + 1:02d}").glob("*/config.toml")
        cfg = load_config(conf)
        assert cfg.policy == "stepped"
        assert cfg.policies.get("stepped", {}).get("release_frontier", False) is (b["policy"] == VARIANT)


@pytest.mark.parametrize(
    ("arms", "needle"),
    [
        (
            ["stepped", "stepped+release_frontier=maybe"],
            "'stepped+release_frontier=maybe': release_frontier: expected",
        ),
        (["stepped", "stepped+relase_frontier=true"], "relase_frontier: unknown key"),
        (["stepped", "stepped+limit_margin_c=nan"], "limit_margin_c=nan is not a finite number"),
        (["stepped", "stepped+limit_margin_c=inf"], "limit_margin_c=inf is not a finite number"),
        ([VARIANT, "stepped + release_frontier = true"], "run the same policy with the same parameters"),
        (["hysteresis", "fixed:50%+trip_c=80"], "'fixed:50%+trip_c=80': trip_c: unknown key"),
    ],
)
@root_only
def test_a_bad_arm_exits_2_naming_arm_and_key_and_touches_nothing(
    tmp_path: Path, arms: list[str], needle: str
) -> None:
    from thermogov.board import load_board
    from thermogov.config import Config
    from thermogov.sim.emulator.emulate import Emulator

    root = tmp_path / "board"
    Emulator(load_board("jetson-orin-nano"), root, Config())  # a tree, no live emulator needed
    before = _caps(root)
    args = [a for arm in arms for a in ("--policy", arm)]
    p = thermogov(*_ab_args(tmp_path, root, "--workload", _feed(root), *args), timeout=60)
    one_line_error(p, needle)
    assert _caps(root) == before
    assert not (tmp_path / "out").exists() and not (tmp_path / "state").exists()


@root_only
def test_an_arm_equal_to_the_configs_own_table_is_refused(tmp_path: Path) -> None:
    from thermogov.board import load_board
    from thermogov.config import Config
    from thermogov.sim.emulator.emulate import Emulator

    root = tmp_path / "board"
    Emulator(load_board("jetson-orin-nano"), root, Config())
    conf = tmp_path / "c.toml"
    conf.write_text("[policies.stepped]\nrelease_frontier = true\n")
    args = ["--config", str(conf), "--policy", "stepped", "--policy", VARIANT]
    p = thermogov(*_ab_args(tmp_path, root, "--workload", _feed(root), *args), timeout=60)
    one_line_error(p, "same parameters")
