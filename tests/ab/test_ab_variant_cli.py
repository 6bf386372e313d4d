"""``thermogov ab`` with a variant arm, through the installed script on the emulator."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ab.test_ab_cli import _ab_args, _feed, ab_on_emulator, root_only, tree
from tests.cli.script import one_line_error, thermogov
from thermogov.config import load_config

VARIANT = "stepped+release_frontier=true"


@root_only
def test_a_variant_arm_runs_its_parameters_and_each_block_records_them(tmp_path: Path) -> None:
    args = ["--policy", "stepped", "--policy", VARIANT, "--pairs", "2", "--block", "3s", "--cool-down", "0"]
    p, before, after = ab_on_emulator(tmp_path, *args)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["arms"] == {
        "stepped": {"policy": "stepped", "overrides": {}, "config": None},
        VARIANT: {"policy": "stepped", "overrides": {"release_frontier": True}, "config": None},
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


@root_only
def test_an_arm_equal_to_the_configs_own_table_is_refused(tmp_path: Path) -> None:
    root = tree(tmp_path)
    conf = tmp_path / "c.toml"
    conf.write_text("[policies.stepped]\nrelease_frontier = true\n")
    args = ["--config", str(conf), "--policy", "stepped", "--policy", VARIANT]
    p = thermogov(*_ab_args(tmp_path, root, "--workload", _feed(root), *args), timeout=60)
    one_line_error(p, "same parameters")
