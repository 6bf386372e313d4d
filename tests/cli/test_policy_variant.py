"""``thermogov sim --policy`` and ``thermogov run --policy`` take a variant (session 21c), through
the installed script: the arm an A/B picked runs in the simulator and on the board."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.ab.test_ab_cli import _caps, daemon_args, tree
from tests.cli.script import one_line_error, thermogov
from thermogov.config import load_config

VARIANT = "stepped+release_frontier=true"
SIM = ["sim", "--scenario", "orin-steady-25", "--duration", "2m", "--json"]


def _sim(tmp: Path, policy: str, name: str) -> tuple[dict[str, object], Path]:
    p = thermogov(*SIM, "--policy", policy, "--out", str(tmp / name))
    assert p.returncode == 0, p.stderr
    (conf,) = (tmp / name).glob("*/config.toml")
    return _result(p.stdout), conf


def _result(stdout: str) -> dict[str, object]:
    """The summary without its run id (a timestamp)."""
    return {k: v for k, v in json.loads(stdout).items() if k != "run_id"}


def test_sim_runs_a_variant_deterministically_and_records_its_table(tmp_path: Path) -> None:
    plain, plain_conf = _sim(tmp_path, "stepped", "plain")
    on, on_conf = _sim(tmp_path, VARIANT, "on")
    again, _ = _sim(tmp_path, VARIANT, "again")
    default, _ = _sim(tmp_path, "stepped+release_frontier=false", "default")
    assert on == again  # a variant's run is deterministic
    assert on["max_fused_c"] != plain["max_fused_c"]  # the key matters here: the frontier runs cooler
    assert default == plain  # a key at its default is the plain policy
    cfg = load_config(on_conf)
    assert cfg.policy == "stepped" and cfg.policies["stepped"] == {"release_frontier": True}
    assert "stepped" not in load_config(plain_conf).policies  # a plain name runs as before
    # `thermogov sim --config` of the folder's config.toml reproduces the variant's run
    p = thermogov(*SIM, "--config", str(on_conf), "--out", str(tmp_path / "replay"))
    assert p.returncode == 0, p.stderr
    assert _result(p.stdout) == on


BAD = [
    (
        "stepped+release_frontier=maybe",
        "--policy 'stepped+release_frontier=maybe': release_frontier: expected",
    ),
    ("stepped+relase_frontier=true", "'stepped+relase_frontier=true': relase_frontier: unknown key"),
    ("stepped+trip_c=nan", "trip_c=nan is not a finite number"),
    ("stepped+trip_c=inf", "trip_c=inf is not a finite number"),
    ("stepped+trip_c=80+release_c=90", "'stepped+trip_c=80+release_c=90': release_c: 90 must be below"),
    ("stepped+release_frontier", "cannot read '+release_frontier' as +key=value"),
]


@pytest.mark.parametrize(("policy", "needle"), BAD)
def test_sim_refuses_a_bad_variant_in_one_line(tmp_path: Path, policy: str, needle: str) -> None:
    p = thermogov("sim", "--duration", "5", "--policy", policy, "--out", str(tmp_path / "out"))
    one_line_error(p, needle)
    assert not (tmp_path / "out").exists()


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="run writes caps only as root")


def _run_args(tmp: Path, root: Path, *extra: str) -> list[str]:
    state = ["--state-file", str(tmp / "state.json"), "--inferences-file", str(tmp / "inferences")]
    return daemon_args("run", tmp, root, *state, "--workload", "none", *extra)


@pytest.mark.parametrize(("policy", "needle"), BAD)
@root_only
def test_run_refuses_a_bad_variant_in_one_line_and_touches_nothing(
    tmp_path: Path, policy: str, needle: str
) -> None:
    root = tree(tmp_path)
    conf = tmp_path / "c.toml"  # the error names the arm, not the config file it is merged into
    conf.write_text("[policies.stepped]\nlimit_margin_c = 0.5\n")
    before = _caps(root)
    p = thermogov(*_run_args(tmp_path, root, "--config", str(conf), "--policy", policy, "--duration", "2s"))
    assert str(conf) not in one_line_error(p, needle)
    assert _caps(root) == before
    assert not (tmp_path / "out").exists() and not (tmp_path / "state").exists()


@root_only
def test_run_governs_with_a_variant_and_records_the_merged_table(tmp_path: Path) -> None:
    root = tree(tmp_path)
    conf = tmp_path / "c.toml"
    conf.write_text("[policies.stepped]\nlimit_margin_c = 0.5\n")
    before = _caps(root)
    p = thermogov(*_run_args(tmp_path, root, "--config", str(conf), "--policy", VARIANT, "--duration", "2s"))
    assert p.returncode == 0, p.stderr
    assert _caps(root) == before, "the limits were not restored"
    (run_conf,) = (tmp_path / "out").glob("*/config.toml")
    cfg = load_config(run_conf)
    assert cfg.policy == "stepped"
    assert cfg.policies["stepped"] == {"limit_margin_c": 0.5, "release_frontier": True}
