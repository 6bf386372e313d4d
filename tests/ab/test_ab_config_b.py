"""``thermogov ab --config-b``: two whole configs as the arms (session 22b).

Through the installed script on the live emulator, every bad second config refused (exit 2, one
line naming the file or field, nothing written), and ``run_ab``'s daemon runs checked with a fake
runner (which config each block and cool-down ran).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tests.ab.test_ab_cli import _ab_args, _caps, _feed, ab_on_emulator, root_only, tree
from tests.cli.script import one_line_error, thermogov
from thermogov.board import load_board
from thermogov.config import Config, load_config
from thermogov.hw.ab import COOL_DOWN_POLICY, AbOptions, run_ab
from thermogov.hw.daemon import RunOptions
from thermogov.sim.emulator.emulate import Emulator

FUSION_B = "[sensors.cpu]\nweight = 2.0\n"


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


@root_only
def test_two_whole_configs_run_as_the_arms_each_block_recording_its_own(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.toml", '[run]\npolicy = "performance"\n')
    b = _write(tmp_path / "b.toml", f'[run]\npolicy = "fixed:0%"\n{FUSION_B}')
    args = ["--config", a, "--config-b", b, "--pairs", "2", "--block", "3s", "--cool-down", "1s"]
    p, before, after = ab_on_emulator(tmp_path, *args)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    # No --policy: each config's own [run] policy, labelled with its file.
    assert doc["arms"] == {
        "performance [a.toml]": {"policy": "performance", "overrides": {}, "config": a},
        "fixed:0% [b.toml]": {"policy": "fixed:0%", "overrides": {}, "config": b},
    }
    res = doc["result"]
    assert (res["a"], res["b"]) == ("performance [a.toml]", "fixed:0% [b.toml]")
    assert res["ci_low_ips"] > 0 and res["verdict"] == "performance [a.toml] sustains more"
    assert after == before, "the limits were not restored after the blocks"
    for blk in doc["blocks"]:
        (conf,) = (tmp_path / "out" / f"block-{blk['index'] + 1:02d}").glob("*/config.toml")
        cfg = load_config(conf)  # `thermogov run --config` of it reproduces the arm
        is_b = blk["policy"] == "fixed:0% [b.toml]"
        assert cfg.policy == ("fixed:0%" if is_b else "performance")
        assert (cfg.sensors["cpu"].weight == 2.0) is is_b  # the record fills in the profile's weights
    # Every cool-down ran on --config (the same board state before either arm's block).
    cools = list((tmp_path / "out" / "cool-down").glob("*/config.toml"))
    assert len(cools) == 4 and all(load_config(c).sensors["cpu"].weight != 2.0 for c in cools)


BAD_B: list[tuple[str | None, list[str], str]] = [
    # (second config's text, None: no such file), extra arguments, what the one line names
    (None, [], "--config-b: "),
    ("[sensors.cpu]\nweight = nan\n", [], "b.toml: "),
    ("[sensors.cpu]\nwieght = 2.0\n", [], "wieght"),
    ("[sensors.nosuch]\nweight = 2.0\n", [], "nosuch"),
    ('[run]\npolicy = "nope"\n', [], "nope"),
    ("[policies.stepped]\nrelease_c = 99.0\n", ["--policy", "stepped"], "b.toml"),
    ("", [], "run the same settings"),  # the defaults against the defaults
    ('[run]\nout = "elsewhere"\n', [], "run the same settings"),  # where the folders go is no setting
    (
        "[policies.stepped]\nrelease_frontier = false\n",
        ["--policy", "stepped"],
        "run the same settings once defaults are filled in",
    ),
    (FUSION_B, ["--policy", "stepped", "--policy", "hysteresis", "--policy", "stepped"], "--policy"),
    (FUSION_B, ["--policy", "stepped+relase_frontier=true"], "relase_frontier: unknown key"),
]


@pytest.mark.parametrize(("text", "extra", "needle"), BAD_B)
@root_only
def test_a_bad_second_config_exits_2_in_one_line_and_touches_nothing(
    tmp_path: Path, text: str | None, extra: list[str], needle: str
) -> None:
    root = tree(tmp_path)
    b = tmp_path / "b.toml"
    if text is not None:
        b.write_text(text)
    before = _caps(root)
    args = _ab_args(tmp_path, root, "--workload", _feed(root), "--config-b", str(b), *extra)
    line = one_line_error(thermogov(*args, timeout=60), needle)
    assert "Traceback" not in line
    assert _caps(root) == before
    assert not (tmp_path / "out").exists() and not (tmp_path / "state").exists()


@root_only
def test_without_config_b_two_policies_are_still_needed(tmp_path: Path) -> None:
    root = tree(tmp_path)
    p = thermogov(*_ab_args(tmp_path, root, "--workload", _feed(root), "--policy", "stepped"), timeout=60)
    one_line_error(p, "give exactly two arms")


def _opts(tmp: Path, config_b: Config, *policies: str) -> AbOptions:
    root = tmp / "board"
    Emulator(load_board("jetson-orin-nano"), root, Config())
    base = RunOptions(
        config=Config(), sysfs_root=root, board="jetson-orin-nano", workload="builtin", out=tmp / "o"
    )
    given = (*policies, None, None)
    return AbOptions(base, given[0], given[1], 2, 5.0, 2.0, config_b=config_b)


def test_one_policy_runs_on_both_configs_and_the_cool_down_on_the_first(tmp_path: Path) -> None:
    config_b = load_config(_write(tmp_path / "b.toml", FUSION_B))
    calls: list[tuple[str, str, float | None]] = []

    def fake(ropts: RunOptions, **_: Any) -> dict[str, Any]:
        cpu = ropts.config.sensors.get("cpu")
        calls.append((ropts.out.name, ropts.config.policy, None if cpu is None else cpu.weight))
        return {"stopped_by": "duration", "sustained_throughput_ips": 10.0 + len(calls), "max_fused_c": 80.0}

    res, blocks = run_ab(_opts(tmp_path, config_b, "stepped"), run_block=fake)
    assert (res.a, res.b) == ("stepped [defaults]", "stepped [b.toml]")
    assert all(c == ("cool-down", COOL_DOWN_POLICY, None) for c in calls[::2])
    for blk, (_, policy, weight) in zip(blocks, calls[1::2], strict=True):
        assert policy == "stepped"
        assert weight == (2.0 if blk.policy == "stepped [b.toml]" else None)


def test_two_files_of_one_name_are_labelled_by_their_paths(tmp_path: Path) -> None:
    a = load_config(_write(tmp_path / "x" / "c.toml", "[sensors.cpu]\nweight = 3.0\n"))
    b = load_config(_write(tmp_path / "y" / "c.toml", FUSION_B))
    opts = _opts(tmp_path, b, "stepped")
    opts = dataclasses.replace(opts, base=dataclasses.replace(opts.base, config=a))
    res, _ = run_ab(
        opts, run_block=lambda ropts, **_: {"stopped_by": "duration", "sustained_throughput_ips": 1.0}
    )
    assert (res.a, res.b) == (f"stepped [{a.source}]", f"stepped [{b.source}]")
