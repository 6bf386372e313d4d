"""A journaled member whose folder the kernel removed while no daemon watched: nothing to restore.

The daemon alive takes a governed member whose folder went away out of its journal
(:mod:`thermogov.hw.departures`): a devfreq device's user min/max requests are freed with the
device (``devfreq_remove_device``, drivers/devfreq/devfreq.c) and a cpufreq policy's limits with
the policy (``cpufreq_policy_free``, drivers/cpufreq/cpufreq.c), and the driver's next probe
starts from its own defaults.  A journal written before such a removal (a ``kill -9`` within a
second of an unbind, a daemon stopped across it, a driver unloaded between a crash and the
restore) still names the member; the journal restore called its missing folder "left changed",
ended with exit 1 and kept the journal, and every next ``thermogov run`` refused to start until
the device came back (session 20 review).

Only a member the journal shows was there in this boot counts (the journal's boot id is
today's and the entry recorded the hardware range read from the live device: the caller's test,
:func:`thermogov.hw.journal.validate_entries`), and only when nothing is at its folder's path
under a subsystem folder that is there (``/sys/class/devfreq``,
``/sys/devices/system/cpu/cpufreq``: made by the kernel at boot and kept).  A journal that
cannot say the member was there (written by hand, no boot id), a missing subsystem (a sysfs
unlike the journal's), a dangling class link or anything else at the path (no removal the
kernel makes) keep the old rule: "left changed", exit 1, journal kept.  A cpufreq policy whose
CPUs are offline keeps its folder (the policy is kept inactive), so it is never taken for freed.
"""

from __future__ import annotations

import os

from thermogov.hw.discovery import CPUFREQ, DEVFREQ
from thermogov.hw.sysfs import SysfsTree

SUBSYSTEMS = (CPUFREQ, DEVFREQ)


def freed(tree: SysfsTree, label: str, min_rel: str) -> str:
    """The line a restore says for a member removed since its journal was written, else ""."""
    folder = min_rel.rpartition("/")[0]
    subsystem = folder.rpartition("/")[0]
    if subsystem not in SUBSYSTEMS or not tree.is_dir(subsystem):
        return ""
    if os.path.lexists(tree.path(folder)):
        return ""
    return (
        f"{label}: {tree.show(folder)} is gone (its driver unbound or unloaded since), its limits "
        "freed with it: nothing to put back, its next probe starts from the driver's defaults"
    )
