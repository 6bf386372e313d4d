"""The fan of L4T 32 (JetPack 4, kernel 4.9: Nano, TX1, TX2, Xavier): NVIDIA's own pwm-fan driver.

That driver (``drivers/thermal/pwm_fan.c`` of the L4T 32 kernel, "pwm_fan.c fan driver that is
controlled by pwm") is not the mainline hwmon ``pwm-fan``: it exposes no ``pwm1``, but a group of
attributes on its platform device, ``/sys/devices/pwm-fan``:

* ``target_pwm`` (rw, 0..255): the duty asked for; a write above ``pwm_cap`` is clamped to it,
  a negative one is EINVAL; it reads back the duty asked for, not yet reached;
* ``cur_pwm`` (ro): the duty now, ramped towards ``target_pwm`` every ``step_time`` ms;
* ``temp_control`` (rw, 0/1): 1 (the driver's default at probe) lets the kernel's thermal
  governor drive the fan through the driver's cooling device (``set_cur_state`` writes
  ``target_pwm``); with 0 that path returns without touching the fan;
* ``pwm_cap`` (rw), ``state_cap``, ``step_time``, ``pwm_rpm_table`` (ro), ``fan_profile``,
  ``kickstart_params``, ``tach_enable``, ``rpm_measured`` on some builds.

So a governor that writes ``target_pwm`` while ``temp_control`` is 1 is fought by the kernel's
curve at its next state change; ``temp_control`` is set to 0 first and is owned, journaled and
restored like ``pwm1_enable``.  The restore order is ``target_pwm`` first, then ``temp_control``:
while the kernel's path is still off the original duty lands and stays, and the kernel resumes
from it; the other order lets the kernel write a fresh duty that the late ``target_pwm`` write
would then overwrite with the old one until the curve's next step.  ``jetson_clocks --store``
saves the same two files in that order (``target_pwm``, then ``temp_control``: the L4T 32 TX2
listings of THERMOGOV_REAL_DATA, ``sysfs_tx2_*_store_*``), and jtop (rbonghi/jetson_stats,
``jtop/core/fan.py``) drives the fan with the same two files, scaling speeds to ``pwm_cap``.
Only these two are owned; ``pwm_cap`` is read (the top of the duties offered), never written.
"""

from __future__ import annotations

from collections.abc import Iterable

from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

L4T_FAN_DIR = "sys/devices/pwm-fan"
TARGET = "target_pwm"
CONTROL = "temp_control"
CUR = "cur_pwm"
CAP = "pwm_cap"
PWM_MAX = 255
CONTROL_OFF = 0  # the kernel's curve cannot move the fan
CONTROL_MAX = 1


def find_l4t_fan(tree: SysfsTree) -> str | None:
    """``sys/devices/pwm-fan`` when it holds the driver's ``target_pwm`` (structure only)."""
    return L4T_FAN_DIR if tree.exists(f"{L4T_FAN_DIR}/{TARGET}") else None


def l4t_pwm_top(tree: SysfsTree, base: str) -> int:
    """The highest duty the driver keeps: ``pwm_cap`` where it reads as 1..255, else 255.

    Duties above the cap are clamped by the driver, so levels spread over 0..255 would read
    back as the cap and look like a rival's move; a cap that reads as anything else is ignored
    (it is never written, so a wrong reading costs only resolution)."""
    try:
        cap = tree.read_int(f"{base}/{CAP}")
    except SensorError:
        return PWM_MAX
    return cap if 1 <= cap <= PWM_MAX else PWM_MAX


def clamped_to_cap(raw: int, wants: Iterable[int], cap: int) -> bool:
    """``raw`` is one of thermogov's ``wants`` as the driver clamps it to a ``pwm_cap`` of ``cap``.

    The driver clamps every ``target_pwm`` write to the cap (``fan_target_pwm_store``) and, when
    the cap is lowered, the duty in force (``fan_pwm_cap_store``: ``min(cap, next_target_pwm)``),
    so ``target_pwm`` can read the cap, not the value thermogov wrote (session 22a).  One rule
    for the running daemon (:mod:`thermogov.hw.fan`) and the restore (:mod:`thermogov.hw.fanrival`),
    so the two never tell a clamp from another writer differently."""
    return any(raw == min(want, cap) for want in wants)
