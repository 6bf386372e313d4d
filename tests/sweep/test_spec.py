"""Sweep files: expansion into points, keys applied to the world, and every bad file refused up front."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from thermogov.board import load_board
from thermogov.interfaces import ConfigError
from thermogov.sim.sweep.spec import load_sweep

THERMOGOV = str(Path(sys.executable).with_name("thermogov"))


def write(tmp_path: Path, text: str, name: str = "s-sweep.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


HEAD = '[sweep]\nscenario = "orin-steady-25"\nduration = 60\n'


def test_grid_is_every_combination_first_key_slowest(tmp_path: Path) -> None:
    s = load_sweep(
        write(
            tmp_path, HEAD + "[grid]\nambient = [20, 30]\npolicy = ['stepped', 'hysteresis', 'performance']\n"
        )
    )
    assert [p.params for p in s.points] == [
        {"ambient": a, "policy": pol}
        for a in (20.0, 30.0)
        for pol in ("stepped", "hysteresis", "performance")
    ]
    for p in s.points:
        assert p.world.config.sim.ambient_c == p.params["ambient"]
        assert p.world.config.policy == p.params["policy"]
        assert p.world.config.sim.duration_s == 60.0 and p.world.config.sim.scenario == "orin-steady-25"
    assert len({p.point_id for p in s.points}) == 6


def test_a_variant_on_the_policy_axis_sets_its_keys_under_the_points_own_axes(tmp_path: Path) -> None:
    s = load_sweep(
        write(
            tmp_path,
            HEAD + "[grid]\npolicy = ['stepped', 'stepped+release_frontier=true+limit_margin_c=0.5']\n"
            "'policy.limit_margin_c' = [1.0]\n",
        )
    )
    plain, variant = (p.world.config for p in s.points)
    assert plain.policy == variant.policy == "stepped"
    assert plain.policies["stepped"] == {"limit_margin_c": 1.0}
    # the point's policy.<param> axis goes on top of the variant's own key
    assert variant.policies["stepped"] == {"release_frontier": True, "limit_margin_c": 1.0}


def test_point_ids_depend_on_the_world_not_on_the_file_order(tmp_path: Path) -> None:
    a = load_sweep(write(tmp_path, HEAD + "[grid]\nambient = [20, 30]\nseed = [1, 2]\n", "a.toml"))
    b = load_sweep(write(tmp_path, HEAD + "[grid]\nseed = [2, 1]\nambient = [30, 20]\n", "b.toml"))
    key = {(p.params["ambient"], p.params["seed"]): p.point_id for p in a.points}
    assert {(p.params["ambient"], p.params["seed"]): p.point_id for p in b.points} == key
    longer = load_sweep(
        write(tmp_path, HEAD.replace("60", "90") + "[grid]\nambient = [20, 30]\nseed = [1, 2]\n", "c.toml")
    )
    assert not {p.point_id for p in longer.points} & set(key.values())  # a changed base is a new point


def test_points_list_and_aliases_reach_config_policy_and_board(tmp_path: Path) -> None:
    text = HEAD + (
        "[[points]]\nambient = 35\nheatsink = 0.5\n\n"
        "[[points]]\npolicy = 'hysteresis'\ntrip = 80.0\nrelease = 65.0\n\n"
        "[[points]]\n'board.thermal.links.package.cpu' = 2.5\n'board.domains.gpu.max_mhz' = 612\n"
        "'sensors.gpu.weight' = 0.5\n'board.sensors.cpu.period_ms' = 200\nrate = 50.0\nworkload = 'poisson'\n"
    )
    s = load_sweep(write(tmp_path, text))
    orig = load_board("jetson-orin-nano")
    p0, p1, p2 = (p.world for p in s.points)
    assert p0.config.sim.ambient_c == 35.0
    assert {n.name: n.to_ambient_w_per_k for n in p0.board.thermal.nodes} == {
        n.name: n.to_ambient_w_per_k * 0.5 for n in orig.thermal.nodes
    }
    assert p1.config.policy == "hysteresis" and p1.config.policies["hysteresis"] == {
        "trip_c": 80.0,
        "release_c": 65.0,
    }
    assert p1.board_data is None  # no board key: the profile is used as is
    links = {(lk.a, lk.b): lk.conductance_w_per_k for lk in p2.board.thermal.links}
    assert links[("cpu", "package")] == 2.5
    gpu = p2.board.domain("gpu")
    assert max(gpu.opp_hz) == 612_000_000 and len(gpu.volt_v) == len(gpu.opp_hz)
    specs = {sp.name: sp for sp in p2.config.sensor_specs(p2.board)}
    assert specs["gpu"].weight == 0.5 and specs["cpu"].period_ms == 200
    assert p2.config.sim.workload.kind == "poisson" and p2.config.sim.workload.rate_ips == 50.0
    assert [k.name for k in s.keys][:2] == ["ambient", "heatsink"]


def test_random_samples_are_reproducible_and_in_range(tmp_path: Path) -> None:
    text = HEAD + (
        "[random]\nn = 12\nseed = 7\nambient = {uniform = [20, 40]}\nheatsink = {loguniform = [0.4, 1.0]}\n"
        "'run.seed' = {integers = [1, 3]}\npolicy = {choice = ['stepped', 'hysteresis']}\n"
    )
    a = load_sweep(write(tmp_path, text, "a.toml"))
    b = load_sweep(write(tmp_path, text, "b.toml"))
    assert [p.params for p in a.points] == [p.params for p in b.points]
    assert len(a.points) + a.merged == 12
    for p in a.points:
        assert 20.0 <= p.params["ambient"] <= 40.0 and 0.4 <= p.params["heatsink"] <= 1.0
        assert p.params["run.seed"] in (1, 2, 3) and p.params["policy"] in ("stepped", "hysteresis")
    other = load_sweep(write(tmp_path, text.replace("seed = 7", "seed = 8"), "c.toml"))
    assert [p.params for p in other.points] != [p.params for p in a.points]


def test_random_draws_of_the_same_world_are_merged(tmp_path: Path) -> None:
    s = load_sweep(
        write(tmp_path, HEAD + "[random]\nn = 10\nseed = 1\npolicy = {choice = ['stepped', 'hysteresis']}\n")
    )
    assert sorted(p.params["policy"] for p in s.points) == ["hysteresis", "stepped"] and s.merged == 8


BAD = [
    ("[grid]\nambiant = [20]\n", "grid.ambiant: unknown key; did you mean 'ambient'?"),
    ("[grid]\nambient = []\n", "grid.ambient: empty list"),
    ("[grid]\n", "grid: empty"),
    ("[grid]\nambient = ['hot']\n", "grid.ambient[0]: expected a number, got 'hot'"),
    ("[grid]\nambient = 25\n", "grid.ambient: expected a list of values"),
    ("[grid]\nambient = [nan]\n", "grid.ambient[0]: nan is not a finite number"),
    ("[grid]\nambient = [inf]\n", "grid.ambient[0]: inf is not a finite number"),
    ("[grid]\nambient = [25, 120]\n", "point 1 (ambient=120): sim.ambient_c: 120 is out of range"),
    ("[grid]\n'policy.trip_C' = [80]\n", "policies.stepped.trip_C: unknown key; did you mean 'trip_c'?"),
    ("[grid]\n'board.thermal.links.cpu.lid' = [1.0]\n", "no link between cpu and lid"),
    ("[grid]\n'sensors.npu.weight' = [0.5]\n", "sensors.npu: board jetson-orin-nano has no such sensor"),
    ("[grid]\n'board.domains.gpu.max_mhz' = [100]\n", "below the lowest OPP"),
    ("[grid]\nheatsink = [0]\n", "heatsink: 0 must be > 0"),
    ("[grid]\npolicy = ['turbo']\n", "run.policy: unknown policy 'turbo'"),
    ("[grid]\nambient = [25, 25]\n", "the same world as point 0"),
    # policy variants on the policy axis (session 21c): the config table's checks
    ("[grid]\npolicy = ['stepped+release_frontier=maybe']\n", "release_frontier: expected true or false"),
    ("[grid]\npolicy = ['stepped+relase_frontier=true']\n", "relase_frontier: unknown key"),
    ("[grid]\npolicy = ['stepped+trip_c=nan']\n", "trip_c=nan is not a finite number"),
    ("[grid]\nambient = [25]\n[[points]]\nambient = 30\n", "grid and points: give only one"),
    ("", "no points: add one of [grid], [[points]] or [random]"),
    (
        "[random]\nn = 3\nseed = 1\nambient = {normal = [20, 5]}\n",
        "random.ambient: give exactly one of uniform",
    ),
    ("[random]\nn = 3\nseed = 1\nambient = {uniform = [40, 20]}\n", "low 40 is above high 20"),
    ("[random]\nn = 3\nseed = 1\npolicy = {uniform = [1, 2]}\n", "policy takes string values"),
    ("[grid]\nambient = [25]\n[extra]\nx = 1\n", "extra: unknown key"),
]


@pytest.mark.parametrize(("body", "fragment"), BAD, ids=[b[1][:40] for b in BAD])
def test_bad_sweep_file_fails_before_any_point_with_one_line(
    body: str, fragment: str, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError) as e:
        load_sweep(write(tmp_path, HEAD + body))
    assert fragment in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("[grid]\nambiant = [20]\n", "grid.ambiant: unknown key"),
        ("[grid]\nambient = []\n", "grid.ambient: empty list"),
        ("[grid]\nambient = ['hot']\n", "expected a number, got 'hot'"),
        ("[grid]\nambient = [nan]\n", "nan is not a finite number"),
        ("[grid]\nambient = [20, 30, 120]\n", "point 2 (ambient=120): sim.ambient_c"),
        ("[sweep.x]\n", "sweep.x: unknown key"),
        ("[grid\n", "malformed TOML"),
        (
            '[sweep]\nscenario = "orin-steady-25"\nduration = 1e-320\n[grid]\nambient = [25]\n',
            "shorter than 1 ms",
        ),
    ],
)
def test_bad_file_exit_2_through_the_installed_script_and_nothing_written(
    body: str, fragment: str, tmp_path: Path
) -> None:
    text = body if body.startswith(("[sweep", "[grid\n")) else HEAD + body
    path = write(tmp_path, text)
    out = tmp_path / "out"
    proc = subprocess.run(
        [THERMOGOV, "sweep", str(path), "--out", str(out)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("thermogov: error: ") and fragment in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""
    assert not out.exists()


def test_missing_file_and_option_mistakes_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "[grid]\nambient = [25]\n")
    for args, fragment in [
        ([str(tmp_path / "nope.toml")], "cannot read sweep file"),
        ([str(path), "--scheduler", "tcp://127.0.0.1:1"], "--scheduler: only with --executor dask"),
    ]:
        proc = subprocess.run([THERMOGOV, "sweep", *args], capture_output=True, text=True, check=False)
        assert proc.returncode == 2 and fragment in proc.stderr and proc.stderr.count("\n") == 1
