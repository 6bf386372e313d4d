"""jetson_stats' root service (``jtop.service``) as another writer of the fan: found, said.

jtop's service writes the fan only when told to (rbonghi/jetson_stats, ``jtop/core/fan.py``,
``FanService``): a user picking a profile writes ``temp_control`` (``manual`` 0,
``temp_control`` 1), a speed writes ``target_pwm`` (speed * 255 / 100), and at every start of
the service ``initialization()`` applies again the profile and speed kept under ``"fan"`` in its
config (``<sys.prefix>/local/jetson_stats/config.json``, ``jtop/core/config.py``: ``/usr/local``
for a pip install as root, ``/opt/jtop/venv/local`` for the venv install).  The unit is
``/etc/systemd/system/jtop.service``, ``WantedBy=multi-user.target`` (``services/jtop.service``),
so enabled means a link in ``multi-user.target.wants``; it runs ``jtop --force``, whose
``comm`` is ``jtop``.

It is not refused at start (it may never touch the fan): a write of it while thermogov governs
the fan is taken by the rival rule (:class:`thermogov.hw.fan.HwFan`: stop governing the fan,
say so once, leave it as that writer set it).  ``doctor`` and the start say that it may.
Everything here is read under the sysfs root, never written; a file that cannot be read as
expected says nothing.
"""

from __future__ import annotations

import json
import os
import stat

from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

JTOP_WANTS = "etc/systemd/system/multi-user.target.wants/jtop.service"
JTOP_CONFIGS = ("usr/local/jetson_stats/config.json", "opt/jtop/venv/local/jetson_stats/config.json")
JTOP_COMM = "jtop"
PROC = "proc"


def _running(tree: SysfsTree) -> bool:
    for pid in tree.listdir(PROC, r"\d+"):
        try:
            if tree.read_text(f"{PROC}/{pid}/comm") == JTOP_COMM:
                return True
        except SensorError:
            continue
    return False


def _fan_config(tree: SysfsTree) -> tuple[str, str] | None:
    """(where, what) of the first jetson_stats config keeping fan settings, or None."""
    for rel in JTOP_CONFIGS:
        try:
            if not stat.S_ISREG(os.stat(tree.resolve(rel)).st_mode):
                continue
            fans = json.loads(tree.read_text(rel)).get("fan")
        except (OSError, SensorError, ValueError, AttributeError, RecursionError):
            continue  # RecursionError: "[[[[..." (the decoder recurses per level), no config of jtop's
        if isinstance(fans, dict) and fans:
            kept = []
            for name, c in sorted(fans.items()):
                if isinstance(c, dict):
                    kept.append(
                        f"{name} " + " ".join(f"{k} {c[k]!r}" for k in ("profile", "speed") if k in c)
                    )
            return tree.show(rel), "; ".join(kept) or "fan settings"
    return None


def jtop_fan_notes(tree: SysfsTree) -> list[str]:
    """One line per way jtop may drive the fan, for ``doctor`` and the start ([] when none)."""
    notes = []
    enabled = os.path.lexists(tree.path(JTOP_WANTS))
    running = _running(tree)
    if enabled or running:
        how = " and ".join(w for w, yes in (("enabled", enabled), ("running", running)) if yes)
        notes.append(
            f"jtop.service is {how}: it writes target_pwm/temp_control when a user sets a fan speed "
            'or profile in jtop; with fan = "governor" thermogov then stops governing the fan and '
            "leaves it as jtop set it (`sudo systemctl disable --now jtop` to keep the fan governed)"
        )
    kept = _fan_config(tree)
    if kept is not None:
        notes.append(
            f"jetson_stats keeps fan settings in {kept[0]} ({kept[1]}): jtop.service applies them at each start"
        )
    return notes
