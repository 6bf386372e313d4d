"""Session 24c: the TX2's fan on L4T 28/32 (``/sys/devices/pwm-fan``), a small fixture of its own.

The TX2 runs NVIDIA's own ``pwm_fan.c`` (hw/l4tfan.py): ``target_pwm``, ``temp_control``,
``pwm_cap``, ``cur_pwm``, ``step_time``, ``pwm_rpm_table``, ``state_cap`` on the platform device,
no hwmon ``pwm1``, and the same driver registers a thermal cooling device of ``type`` ``pwm-fan``
(``thermal_of_cooling_device_register(..., "pwm-fan", ...)``, which moves ``target_pwm`` only while
``temp_control`` is 1).  ``jetson_clocks --store`` on two TX2s lists ``target_pwm`` 0 and
``temp_control`` 1 (tomgidden/jetson_clocks ``default.conf``, KhaledSharif/neptune ``l4t_dfs.conf``).
The tree beyond the fan is the Nano's (the TX2 tree is another helper's); only the fan's
layout is the TX2's.  Guards: they pass on main too (the code was right for this layout).
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.hw import fakesys, procutil
from tests.hw.test_hw_l4t_fan import _args, _start
from thermogov.hw.fan import HwFan, discover_fan, fan_lines, owned_attributes
from thermogov.hw.sysfs import SysfsTree

FAN = "sys/devices/pwm-fan"
CDEV = "sys/devices/virtual/thermal/cooling_device3"


def _tx2_fan(root: Path) -> fakesys.FakeTree:
    t = fakesys.jetson_nano(root, cpu_mc=92000)
    for name, value in (
        ("target_pwm", 0),
        ("temp_control", 1),
        ("pwm_cap", 255),
        ("cur_pwm", 0),
        ("step_time", 100),
        ("state_cap", 3),
        ("pwm_rpm_table", "(0, 0) (1, 1000) (2, 2000) (3, 3000)"),
    ):
        t.write(f"{FAN}/{name}", value)
    for name, value in (("type", "pwm-fan"), ("max_state", 3), ("cur_state", 0)):
        t.write(f"{CDEV}/{name}", value)
    t.link("sys/class/thermal/cooling_device3", CDEV)
    return t


def test_the_tx2_fan_is_the_l4t_fan_not_its_cooling_device(tmp_path: Path) -> None:
    t = _tx2_fan(tmp_path / "root")
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None and dev.l4t_rel == FAN and dev.cdev_rel is None and dev.pwm_top == 255
    assert owned_attributes(tree, dev) == [f"{FAN}/temp_control", f"{FAN}/target_pwm"]
    fan = HwFan(tree, dev)
    fan.apply(fan.levels - 1)
    assert (t.read_int(f"{FAN}/temp_control"), t.read_int(f"{FAN}/target_pwm")) == (0, 255)
    assert t.read_int(f"{CDEV}/cur_state") == 0  # the driver's cooling device is never written
    fan.restore()
    assert (t.read_int(f"{FAN}/temp_control"), t.read_int(f"{FAN}/target_pwm")) == (1, 0)
    assert "target_pwm 0, cur_pwm 0, temp_control 1 (the kernel's curve drives it)" in fan_lines(tree)[0]


def test_a_governed_tx2_fan_is_journaled_and_restored_through_the_script(tmp_path: Path) -> None:
    t = _tx2_fan(tmp_path / "root")
    before = t.snapshot()
    proc = _start(_args(tmp_path))
    body = json.loads((tmp_path / "state/journal.json").read_text())
    assert {a["rel"]: a["value"] for a in body["attrs"]} == {f"{FAN}/temp_control": 1, f"{FAN}/target_pwm": 0}
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0 and "Traceback" not in err.decode(), err.decode()
    assert t.snapshot() == before
