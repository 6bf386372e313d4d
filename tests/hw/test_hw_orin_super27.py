"""Session 27u: a JetPack 6.2 Orin Nano "Super" board picks the `jetson-orin-nano-super` profile.

Through the installed script on the bench's stock trees (bench/stock_trees.py): the Super DTB's
model and first compatible (``nvidia,p3768-0000+p3767-0005-super``) pick the Super profile, whose
tables reach the board's 1728 / 1020 MHz tops; a plain Orin Nano (JetPack 5 or 6, no ``-super``)
keeps `jetson-orin-nano`.  The Super test fails on main (no such profile: `jetson-orin-nano`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import stock_trees
from tests.hw import fakesys, procutil

HOT = 92000
CPUF = "sys/devices/system/cpu/cpufreq"
GPU = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"


def _profile_line(root: Path, *extra: str) -> str:
    d = procutil.run_cli("doctor", "--sysfs-root", str(root), *extra)
    assert d.returncode == 0 and "Traceback" not in d.stderr, d.stderr[-800:]
    return next(ln for ln in d.stdout.splitlines() if ln.startswith("profile:"))


def test_the_orin_nano_super_tree_picks_the_super_profile(tmp_path: Path) -> None:
    """``doctor`` on the JetPack 6.2 MAXN SUPER tree names `jetson-orin-nano-super` (main: `jetson-orin-nano`)."""
    stock_trees.orin_nano_super(tmp_path / "root")
    line = _profile_line(tmp_path / "root")
    assert line.startswith("profile: jetson-orin-nano-super "), line


def test_only_the_super_compatible_picks_it_when_the_model_is_the_plain_kit_s(tmp_path: Path) -> None:
    """A Super DTB whose model string is the plain kit's (a carrier vendor's model) still picks the
    Super profile by its ``-super`` compatible, on any of the three Orin Nano modules."""
    for module in ("0003", "0004", "0005"):
        build = stock_trees.renamed(
            stock_trees.orin_nano_super,
            "NVIDIA Jetson Orin Nano Developer Kit",
            (f"nvidia,p3768-0000+p3767-{module}-super", f"nvidia,p3767-{module}", "nvidia,tegra234"),
        )
        build(tmp_path / module / "root")
        line = _profile_line(tmp_path / module / "root")
        assert line.startswith("profile: jetson-orin-nano-super "), (module, line)


@pytest.mark.parametrize("jetpack", [5, 6])
def test_a_plain_orin_nano_keeps_its_profile(tmp_path: Path, jetpack: int) -> None:
    """No ``-super`` anywhere: `jetson-orin-nano`, as before (a guard; passes on main too)."""
    fakesys.orin_nano(tmp_path / "root", jetpack=jetpack, cpu_mc=HOT, gpu_mc=HOT)
    line = _profile_line(tmp_path / "root")
    assert line.startswith("profile: jetson-orin-nano "), line


def test_a_hot_super_board_is_capped_from_its_own_tops_and_restored(tmp_path: Path) -> None:
    """``run`` on the hot Super tree, no --board: started with board=jetson-orin-nano-super (main:
    jetson-orin-nano), CPU and GPU capped below their 1728 / 1020 MHz tops, every file as found
    after SIGTERM."""
    t = stock_trees.orin_nano_super(tmp_path / "root")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path)
    line = procutil.wait_line(proc, "thermogov: started")
    assert " board=jetson-orin-nano-super " in line, line
    cpu = t.read_int(f"{CPUF}/policy0/scaling_max_freq")
    gpu = t.read_int(f"{GPU}/max_freq")
    assert cpu < 1728000 and gpu < 1020000000, (cpu, gpu)
    procutil.stopped_as_before(proc, t, before, "Traceback")
