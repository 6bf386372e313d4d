"""Never raise a limit above what it was: each policy's ceiling is its own original value."""

from __future__ import annotations

from pathlib import Path

from tests.hw import fakesys
from thermogov.board import load_board
from thermogov.hw.devices import CapActuator
from thermogov.hw.discovery import discover
from thermogov.hw.mapping import map_board
from thermogov.hw.sysfs import SysfsTree

CPU = "sys/devices/system/cpu/cpufreq"


def test_a_policy_that_started_below_the_domain_top_is_never_raised(tmp_path: Path) -> None:
    t = fakesys.agx_orin(tmp_path / "root")
    t.write(f"{CPU}/policy4/scaling_max_freq", 1497600)  # another tool capped this cluster
    tree = SysfsTree(t.root)
    bmap = map_board(discover(tree), load_board("jetson-agx-orin"))
    cpu = next(CapActuator.open(tree, b) for b in bmap.domains if b.domain.name == "cpu")
    top = cpu.table_hz[-1]
    assert top == 2201600000  # the other clusters still allow the top
    seen4 = []
    for cap in (cpu.table_hz[0], top, cpu.table_hz[len(cpu.table_hz) // 2], top):  # trip, release ...
        cpu.apply(cap)
        seen4.append(t.read_int(f"{CPU}/policy4/scaling_max_freq"))
        assert t.read_int(f"{CPU}/policy0/scaling_max_freq") == min(cap // 1000, 2201600)
    assert max(seen4) == 1497600 and seen4[0] == cpu.table_hz[0] // 1000
    cpu.restore()
    assert t.read_int(f"{CPU}/policy4/scaling_max_freq") == 1497600


def test_a_devfreq_ceiling_is_its_own_original(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    gpu_max = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b/max_freq"
    t.write(gpu_max, 510000000)
    tree = SysfsTree(t.root)
    bmap = map_board(discover(tree), load_board("jetson-orin-nano"))
    gpu = next(CapActuator.open(tree, b) for b in bmap.domains if b.domain.name == "gpu")
    for cap in gpu.table_hz:
        gpu.apply(cap)
        assert t.read_int(gpu_max) <= 510000000
