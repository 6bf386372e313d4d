"""Session 33g: a cap the kernel holds below the governor's ask is written once, not every tick.

A hot Pi 5 governed on the virtual clock (tests/hw/virtualclock.py) over the kernel double
(tests/hw/fakesys.KernelTree, QoS semantics) whose thermal trip holds policy0's max at
2.0 GHz: scaling_max_freq shows policy->max, the lowest of every max request
(Documentation/admin-guide/pm/cpufreq.rst).  The board cools at 3 s, the policy asks 2.4 GHz,
the file reads 2.0 GHz; at 6 s the trip releases and the kernel re-evaluates policy->max to
thermogov's request.  Never a sleep, never the real /sys or /run.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from tests.hw import fakesys

P0 = "sys/devices/system/cpu/cpufreq/policy0"
ZONE = "sys/devices/virtual/thermal/thermal_zone0/temp"


@pytest.fixture(scope="module")
def clamped_pi5(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The run's trace rows, the governor's cap writes (``CapActuator.apply``) and the tree's
    writes to policy0's max from the cooling to just before the exit."""
    from tests.hw import virtualclock
    from tests.hw.cliargs import run_options
    from thermogov.hw import daemon, devices

    tmp = tmp_path_factory.mktemp("clamped")
    mp = pytest.MonkeyPatch()
    t = fakesys.rpi5(tmp / "root", cpu_mc=90000)
    kt = fakesys.KernelTree(tmp / "root", "new")
    kt.thermal_cap[P0] = 2_000_000
    seen: dict[str, Any] = {"applies": []}
    real_apply = devices.CapActuator.apply

    def apply(self: devices.CapActuator, cap_hz: int) -> int:
        seen["applies"].append(cap_hz)
        return real_apply(self, cap_hz)

    def script(s: float) -> None:
        if s >= 3.0 and "cooled" not in seen:
            seen["cooled"] = len(kt.writes)
            t.write(ZONE, 50000)
        if s >= 6.0 and "released" not in seen:
            seen["released"] = True
            del kt.thermal_cap[P0]  # the trip releases: policy->max back to the max request
            t.write(f"{P0}/scaling_max_freq", 2400000)
        if s >= 9.5 and "ran" not in seen:
            seen["ran"] = len(kt.writes)  # before the exit's restore writes the originals back

    try:
        mp.setattr(devices.CapActuator, "apply", apply)
        virtualclock.install(mp, script)
        mp.setattr(daemon, "check_privileges", lambda dry: None)
        daemon.run(run_options(tmp, duration_s=10.0), out=io.StringIO(), err=io.StringIO(), tree=kt)
    finally:
        mp.undo()
    (trace,) = (tmp / "out").glob("*/trace.csv")
    with trace.open() as fh:
        seen["rows"] = list(csv.DictReader(fh))
    seen["max_writes"] = [
        v for p, v in kt.writes[seen["cooled"] : seen["ran"]] if p == f"{P0}/scaling_max_freq"
    ]
    return seen


def test_the_ask_is_written_once_while_the_kernel_holds_it_lower(clamped_pi5: dict[str, Any]) -> None:
    # Before: the lowest cap at start, then 2.4 GHz asked again every 100 ms tick from the
    # cooling until the release (32 apply calls, 30 writes of policy0's max), each a cap change.
    assert clamped_pi5["applies"] == [1_500_000_000, 2_400_000_000]
    assert clamped_pi5["max_writes"] == [2400000]


def test_the_trace_shows_the_clamp_then_its_release(clamped_pi5: dict[str, Any]) -> None:
    caps = {int(r["cpu_cap_hz"]) for r in clamped_pi5["rows"] if 4.0 <= float(r["t_s"]) < 6.0}
    assert caps == {2_000_000_000}
    after = {int(r["cpu_cap_hz"]) for r in clamped_pi5["rows"] if float(r["t_s"]) >= 7.5}
    assert after == {2_400_000_000}  # the limit watch's look (once a second) read the release
