"""Hostile round, session 30 (docs/sweeps.md, "Session 30h"): board TOML files, scenario events
and sweep files, through the installed script.

* A board profile's positive conductance or capacitance far below any material (1e-300 W/K to
  the air) passed the profile's checks and failed in the simulator's eigen-decomposition
  ("internal error: ValueError: thermal network has a node with no path to ambient").
* A profile whose reference inference takes 1e-300 ms never finished a simulation; one with
  20 000 sensors or 3 000 thermal nodes (a 4 MiB file) stalled it for minutes.
* An ``ambient_link`` event with a negative factor, or one leaving the board no path to the air,
  was taken and failed mid-run, after the run folder was made.
* A sweep's ``[random]`` integers beyond int64 and a uniform range wider than a float were
  numpy's internal errors.

Each case is one ``thermogov: error:`` line naming the file's key, exit 2, nothing written.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

RPI3 = resources.files("thermogov.boards").joinpath("rpi3.toml").read_text(encoding="utf-8")
HANG_S = 60.0  # a case that stalled on main is bounded by this, never a timing assertion


def _edit(pattern: str, new: str, text: str = RPI3) -> str:
    out, n = re.subn(pattern, new, text, count=1, flags=re.M)
    assert n == 1, pattern
    return out


def _sim_refuses_board(tmp_path: Path, text: str, needle: str) -> str:
    board = tmp_path / "board.toml"
    board.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    p = thermogov("sim", "--board", str(board), "--duration", "60s", "--out", str(out), timeout=HANG_S)
    line = one_line_error(p, needle)
    assert not out.exists(), "a refused board wrote a run folder"
    return line


@pytest.mark.parametrize(
    ("pattern", "new", "needle"),
    [
        (
            r"^to_ambient_w_per_k = 0\.16 ",
            "to_ambient_w_per_k = 1e-300 ",
            "thermal.nodes.board.to_ambient_w_per_k",
        ),
        (
            r"^capacitance_j_per_k = 0\.03$",
            "capacitance_j_per_k = 1e-300",
            "thermal.nodes.cpu.capacitance_j_per_k",
        ),
        (r'\["cpu", "package", 3\.3\]', '["cpu", "package", 1e-300]', "thermal.links[0]"),
    ],
    ids=["to-air-1e-300", "capacitance-1e-300", "link-1e-300"],
)
def test_a_conductance_or_capacitance_below_any_material_is_refused_with_its_key(
    tmp_path: Path, pattern: str, new: str, needle: str
) -> None:
    line = _sim_refuses_board(tmp_path, _edit(pattern, new), needle)
    assert "1e-06" in line and "internal error" not in line


def test_an_inference_of_no_time_at_all_is_refused_not_simulated_forever(tmp_path: Path) -> None:
    text = _edit(r"^fixed_ms = 25\.0", "fixed_ms = 1e-300")
    text = _edit(r"^cycles = \{ cpu = 2\.9e8 \}", "cycles = { cpu = 1e-300 }", text)
    line = _sim_refuses_board(tmp_path, text, "model: one inference takes")
    assert "0.1 ms" in line


def test_a_board_with_twenty_thousand_sensors_is_refused_before_the_simulation(tmp_path: Path) -> None:
    extra = "".join(
        f'\n[sensors.s{i}]\nweight = 0.001\nperiod_ms = 100\nhard_limit_c = 90.0\nnode = "cpu"\n'
        for i in range(20_000)
    )
    _sim_refuses_board(tmp_path, RPI3 + extra, "[sensors] has 20001 tables, more than 64")


def test_a_thermal_network_of_three_thousand_nodes_is_refused(tmp_path: Path) -> None:
    nodes = "".join(
        f"[thermal.nodes.n{i}]\ncapacitance_j_per_k = 1.0\nto_ambient_w_per_k = 0.1\n" for i in range(3_000)
    )
    text = RPI3.replace("[thermal.nodes.cpu]", nodes + "[thermal.nodes.cpu]", 1)
    _sim_refuses_board(tmp_path, text, "thermal.nodes: 3004 nodes, more than 64")


def test_an_opp_table_longer_than_any_kernel_lists_is_refused(tmp_path: Path) -> None:
    n = 1025
    text = _edit(r"^opp_mhz = .*$", "opp_mhz = [" + ", ".join(str(100 + i) for i in range(n)) + "]")
    text = _edit(r"^volt_v = .*$", "volt_v = [" + ", ".join("1.2" for _ in range(n)) + "]", text)
    _sim_refuses_board(tmp_path, text, "domains.cpu.opp_mhz: 1025 OPPs, more than 1024")


def _sim_refuses_event(tmp_path: Path, board: str, event: str, needle: str) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text(f'[run]\nboard = "{board}"\n[sim]\nduration_s = 60\nevents = [{event}]\n')
    out = tmp_path / "out"
    p = thermogov("sim", "--config", str(conf), "--out", str(out), timeout=HANG_S)
    one_line_error(p, needle)
    assert not out.exists() or not any(out.iterdir()), "a refused scenario made a run folder"


@pytest.mark.parametrize(
    ("board", "value", "needle"),
    [
        ("jetson-orin-nano", "-1", "sim.events[0].value: -1 is a negative conductance factor"),
        ("rpi3", "0", "leaves board rpi3 no conductance to the air"),
        ("jetson-orin-nano", "1e-300", "no path at all"),
    ],
    ids=["negative", "zero-on-the-only-path", "1e-300"],
)
def test_an_ambient_link_event_that_leaves_no_path_to_the_air_is_refused_before_the_run(
    tmp_path: Path, board: str, value: str, needle: str
) -> None:
    event = f'{{ at_s = 10, kind = "ambient_link", target = "board", value = {value} }}'
    _sim_refuses_event(tmp_path, board, event, needle)


def test_a_second_ambient_link_event_is_judged_after_the_first(tmp_path: Path) -> None:
    """The factors multiply in time order (0.5 then 0 at 20 s): the later event is the one named."""
    events = (
        '{ at_s = 20, kind = "ambient_link", target = "board", value = 0 }, '
        '{ at_s = 10, kind = "ambient_link", target = "board", value = 0.5 }'
    )
    _sim_refuses_event(tmp_path, "rpi3", events, "sim.events[0].value: a factor of 0")


SWEEP = """[sweep]
scenario = "rpi5-steady-25"
duration = "60s"
objective = "sustained_ips"
direction = "max"
"""


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (
            '[random]\nn = 5\nseed = 1\n"run.seed" = {integers = [0, 99999999999999999999]}\n',
            "random.run.seed.integers: [0, 99999999999999999999] goes beyond a 64-bit integer",
        ),
        (
            "[random]\nn = 5\nseed = 1\nambient = {uniform = [-1e308, 1e308]}\n",
            "random.ambient.uniform: [-1e+308, 1e+308] is wider than a number can hold",
        ),
        ("[grid]\nheatsink = [1e-300]\n", "to_ambient_w_per_k: 1e-301 W/K is no path to the air"),
    ],
    ids=["integers-beyond-int64", "uniform-wider-than-a-float", "heatsink-1e-300"],
)
def test_a_sweep_file_whose_draws_or_points_break_the_simulator_is_one_line(
    tmp_path: Path, body: str, needle: str
) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(SWEEP + body)
    p = thermogov("sweep", str(spec), "--dry-run", "--out", str(tmp_path / "out"), timeout=HANG_S)
    line = one_line_error(p, needle)
    assert "internal error" not in line
    assert not (tmp_path / "out").exists()
