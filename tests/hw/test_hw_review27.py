"""Session 27r: an outside safety review of session 26's root-daemon merges (docs/hardware.md).

The late-pack race (26r's unreproduced failure under the battery profile): hw/latezones.py and the
supplies reader (hw/power.py) each added a late battery, whichever looked first; when the zone's
look came first the reader said nothing.  Now the reader alone adds a pack, by one rule, and says
so; a pack that goes away is forgotten so the next one is read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil
from tests.hw.test_hw_late_chargers import TCPM, _unplug, _usb, power_each_second
from tests.hw.test_hw_late_cluster import _inactive, back_online
from tests.hw.test_hw_review26 import EXITS, PSY_DEVICES, _exit
from tests.hw.test_hw_trees26 import CPUF, PER_CORE_KHZ, _per_core_orin
from thermogov.config import parse_config
from thermogov.hw.discovery import POWER_SUPPLY, discover
from thermogov.hw.power import PowerSupplyReader
from thermogov.hw.sysfs import SysfsTree

P5 = f"{CPUF}/policy5"
BAT1 = "POWER_SUPPLY_NAME=BAT1\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=50"


@pytest.mark.parametrize("how", EXITS)
def test_a_late_pack_the_battery_profile_fuses_is_added_by_one_owner_on_every_exit(
    tmp_path: Path, how: str
) -> None:
    """The default (battery) profile waits for its pack's temperature: a pack with a ``temp``
    plugged in after start is both a sensor joining (hw/latezones.py) and the power state's
    battery (hw/power.py).  Main: the zone's look, when it came first, added the pack through a
    hook and the supplies reader then said nothing (the line waited for here never came: 26r's
    failure); which one won was timing.  Then each exit path leaves the tree as found."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=0", kind="Mains")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s")  # the default board: a battery fused
    procutil.wait_line(proc, "thermogov: started")
    assert t.snapshot() != before  # capped: the restore has something to put back
    _usb(t)
    procutil.wait_line(proc, f"power supply {TCPM} (USB) appeared", stream="stderr")
    t.supply("BAT1", BAT1, temp_decic=310)
    # the two lines in either order: the zone's look and the reader's poll each see the pack
    lines = [procutil.wait_line(proc, "BAT1 (", stream="stderr") for _ in range(2)]
    assert any("power supply BAT1 (Battery) appeared" in ln for ln in lines), lines
    assert any("sensor battery: BAT1 (power_supply) appeared" in ln for ln in lines), lines
    _unplug(t, "BAT1")
    procutil.wait_line(proc, "power supply BAT1 (Battery) went away", stream="stderr")
    _unplug(t, TCPM)
    procutil.wait_line(proc, f"power supply {TCPM} (USB) went away", stream="stderr")
    said = _exit(proc, tmp_path, how)
    after = t.snapshot()
    made = {k for k in after if k not in before and k.startswith(PSY_DEVICES) and after[k] == "dir"}
    assert {k: v for k, v in after.items() if k not in made} == before, said[-1500:]


def test_a_pack_that_went_away_is_replaced_by_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Main: the battery read stayed the first one for the run, gone or not; a second pack
    plugged in after the first was pulled was never read (its Charging never the state).  Now
    the gone one is forgotten: the chargers tell the state meanwhile (AC offline: discharging,
    never "mains" on no file's word), then the new pack's status is the state."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=0", kind="Mains")
    cfg = parse_config({"run": {"board": "jetson-orin-nano-devkit"}})
    cls = t.root / "sys/class/power_supply"
    plugged: set[str] = set()

    def plug(el: float) -> None:
        if el >= 3.0 and "BAT1" not in plugged:
            plugged.add("BAT1")
            t.supply("BAT1", BAT1)
        if el >= 6.0 and "gone" not in plugged:
            plugged.add("gone")
            _unplug(t, "BAT1")
        if el >= 9.0 and "BAT2" not in plugged and not (cls / "BAT1").exists():
            plugged.add("BAT2")
            t.supply("BAT2", "POWER_SUPPLY_NAME=BAT2\nPOWER_SUPPLY_STATUS=Charging\nPOWER_SUPPLY_CAPACITY=20")

    power, err = power_each_second(tmp_path, monkeypatch, 14.0, plug, cfg)
    states = {s: p["state"] for s, p in power.items()}
    assert {states[s] for s in states if 4 <= s < 6} == {"discharging"}, states
    assert {states[s] for s in states if 7 <= s < 9} == {"discharging"}, states
    assert {states[s] for s in states if s >= 11} == {"charging"}, states
    assert power[max(power)]["capacity_pct"] == 20, power[max(power)]
    assert err.count("power supply BAT1 (Battery) went away") == 1, err
    assert err.count("power supply BAT2 (Battery) appeared") == 1 and "Traceback" not in err, err


# -- an unnamed policy (session 26t: joined to the profile's only cpufreq domain) --------------
def test_an_unnamed_policy_offline_at_start_is_capped_when_it_comes_online_and_restored(
    tmp_path: Path, shim: Path
) -> None:
    """A kernel with a policy per CPU under a profile naming clusters (policy0, policy4), policy5's
    CPU offline at start (EBUSY from every attribute): main left it ungoverned for the run, so its
    CPU, brought online on the hot board, ran at full clock.  Now it is waited for as a named
    policy is, capped with its domain when it comes online, journaled and put back at exit."""
    t = _per_core_orin(tmp_path / "root", 8)
    before = t.snapshot()
    faultshim.write_rules(tmp_path / "faults", _inactive(t.root, (P5,)))
    env = faultshim.env(shim, tmp_path / "faults", t.root)
    proc = procutil.start_run(tmp_path, "--board", "jetson-orin-nano", "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    top = max(PER_CORE_KHZ)
    assert t.read_int(f"{CPUF}/policy1/scaling_max_freq") < top
    assert t.read_int(f"{P5}/scaling_max_freq") == top  # offline: nothing written to it
    back_online(tmp_path, proc, "policy5")
    assert t.read_int(f"{P5}/scaling_max_freq") == t.read_int(f"{CPUF}/policy1/scaling_max_freq") < top
    procutil.stopped_as_before(proc, t, before, "Traceback")


def test_a_listing_that_fails_forgets_no_battery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule of the test above forgets a battery gone from the listing *and* from the tree: a
    listing that fails lists as empty (``SysfsTree.listdir``), and the pack still there stays the one
    read, its status the state, nothing said (a guard of this branch's rule; main never forgot one)."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    t.supply("BAT0", "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Charging\nPOWER_SUPPLY_CAPACITY=40")
    tree = SysfsTree(t.root)
    said: list[str] = []
    clock = [0.0]
    reader = PowerSupplyReader(tree, discover(tree).supplies, lambda: clock[0], rescan=True, log=said.append)
    real = SysfsTree.listdir
    monkeypatch.setattr(
        SysfsTree,
        "listdir",
        lambda self, rel, pattern="": [] if rel == POWER_SUPPLY else real(self, rel, pattern),
    )
    st = reader.read()
    assert st is not None and st.state == "charging" and st.capacity_pct == 40.0, st
    monkeypatch.setattr(SysfsTree, "listdir", real)
    clock[0] = 1.0
    st = reader.read()
    assert st is not None and st.state == "charging" and said == [], (st, said)
