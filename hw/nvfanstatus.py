"""The profile nvfancontrol plays now: its status file, ``/var/lib/nvfancontrol/status``.

Why (session 24c): ``FAN_DEFAULT_PROFILE`` of ``/etc/nvfancontrol.conf`` (:mod:`thermogov.hw.nvfanconf`)
is only the profile of a first start.  The service keeps the state it runs in, a profile chosen
since with ``nvfancontrol -p`` included, in its status file, and that state overrides the conf
until the file is removed: NVIDIA Jetson Linux Developer Guide, "Fan Profile Control" (e.g.
https://docs.nvidia.com/jetson/archives/r35.4.1/DeveloperGuide/text/SD/PlatformPowerAndPerformance/JetsonOrinNanoSeriesJetsonOrinNxSeriesAndJetsonAgxOrinSeries.html#fan-profile-control:
to change the default, stop the service, set ``FAN_DEFAULT_PROFILE``, ``sudo rm
/var/lib/nvfancontrol/status``, start it; "the module stays in that profile until you change it
... The profile persists across power cycles"), and jtop does the same (rbonghi/jetson_stats,
``jtop/core/fan.py``, removes the status file when it changes the conf's profile).

The guide documents what ``nvfancontrol -q`` prints of that state, one ``FAN<N>:<KEY>:<value>``
line per setting (``FAN1:FAN_PROFILE:cool``; jtop's ``nvfancontrol_query`` splits the same
triplets), not the file's own layout; this module reads the file as those lines, which is an
assumption (Left in docs/hardware.md).  A file that does not read so (not a regular file, over
1 MiB, not UTF-8, a line of another shape, no ``FAN_PROFILE``, a profile the conf has not) is
named with what is wrong and the conf's default is used: never an error, never a crash -- the
status file is the service's, not thermogov's input.
"""

from __future__ import annotations

import os
import re

from thermogov.hw.nvpmodelconf import ConfError, read_conf_text
from thermogov.hw.sysfs import SysfsTree

STATUS_REL = "var/lib/nvfancontrol/status"
# ASCII digits, at most 12, as hw/nvfanconf.py's ``<FAN N>`` (session 25r): ``\d+`` took any
# Unicode digit (an Arabic-Indic one read as fan 1) and let 5 000 of them reach int(), whose
# 4300-digit limit ended ``doctor`` and a governed start in "internal error", exit 1.
_LINE = re.compile(r"FAN([0-9]{1,12}):([A-Z][A-Z0-9_]*):(\S+)")


def parse_status(text: str) -> dict[int, dict[str, str]]:
    """``{fan: {KEY: value}}`` of every ``FAN<N>:<KEY>:<value>`` line, or :class:`ConfError`."""
    fans: dict[int, dict[str, str]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            raise ConfError(f"line {number}: {line[:60]!r} is no FAN<N>:<KEY>:<value> line")
        fans.setdefault(int(m.group(1)), {})[m.group(2)] = m.group(3)
    return fans


def running_profile(tree: SysfsTree, fan: int, profiles: set[str]) -> tuple[str, str]:
    """(the profile the status file says ``fan`` plays, why it cannot be used): one of them ""
    (both without a status file).  ``profiles``: the conf's ``FAN_PROFILE`` names of that fan."""
    if not os.path.lexists(tree.path(STATUS_REL)):
        return "", ""
    where = tree.show(STATUS_REL)
    try:
        keys = parse_status(read_conf_text(tree, STATUS_REL)).get(fan, {})
    except ConfError as e:
        return "", f"{where}: {e}"
    name = keys.get("FAN_PROFILE")
    if name is None:
        return "", f"{where}: no FAN{fan}:FAN_PROFILE line"
    if name not in profiles:
        shown = repr(name) if len(name) <= 40 else repr(name[:40]) + f" (+{len(name) - 40} characters)"
        return "", f"{where}: FAN{fan}:FAN_PROFILE {shown} names no FAN_PROFILE of the conf"
    return name, ""
