"""The hardware range of one cpufreq policy or devfreq device, read from its own folder.

The range a limit may hold: ``cpuinfo_min_freq..cpuinfo_max_freq`` for a policy (the driver's
limits, Documentation/admin-guide/pm/cpufreq.rst; its OPP list's ends when those files do not
read as a range), the lowest to highest of ``available_frequencies`` for a devfreq device (its
OPP table, Documentation/ABI/testing/sysfs-class-devfreq).  One source for every reader: the
journal restore's allow-list (:func:`thermogov.hw.owned.owned_windows`, every device found) and
the rule for a window found in force (:func:`thermogov.hw.limits.check_limits_in_force`: at
start, for a member that joins mid-run, in ``doctor``), which reads only the one device's
files, so a cluster coming online no longer costs a walk of the whole tree.

A device's range is read once a run (:func:`limits_range` keeps it in the tree's
``ranges``, by the device's folder): the start's check reads it, the journal's first write
and every rewrite of a window left as it was take it from there.  It is read again for a
member whose folder the kernel made again (:meth:`~thermogov.hw.sysfs.SysfsTree.release_member` drops
it with the folder's resolutions) and for a window whose values changed (``fresh``: another
writer's value adopted, which today's range holds, :class:`thermogov.hw.journal.RecordedRanges`).

The memo is seeded from the run's discovery (:func:`seed_ranges`, session 23a): discovery has
just read each policy's ``cpuinfo_min/max_freq`` (judging its OPP list) and each device's
``available_frequencies``, and the start's check read them again a moment later (6 of an Orin
Nano's 197 start reads).  The seed is the range :func:`limits_range` would have read from those
same values, by the same rules; what discovery could not judge is left to be read as before.
"""

from __future__ import annotations

from thermogov.hw.discovery import CPUFREQ, DEVFREQ, CpufreqPolicy, Inventory, read_devfreq, read_policy
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError, ThermogovError

# The largest limit each kind of file can show.  cpufreq keeps a policy's limits as ``unsigned int``
# kHz and prints them with "%u" (``show_one(scaling_max_freq, max)``, drivers/cpufreq/cpufreq.c);
# devfreq keeps ``unsigned long`` Hz printed with "%lu" (``max_freq_show``,
# drivers/devfreq/devfreq.c; 64-bit on every board thermogov supports).
LARGEST_LIMIT = {1000: 2**32 - 1, 1: 2**64 - 1}


def policy_range(
    tree: SysfsTree, rel: str, table_hz: tuple[int, ...], table_source: str
) -> tuple[int, int, str]:
    """``cpuinfo_min_freq..cpuinfo_max_freq`` (kHz) of the policy at ``rel``, else its OPP list's
    ends, with which of the two; SensorError naming the file when neither gives a range.

    The driver's limits are ``unsigned int`` kHz (``struct cpufreq_cpuinfo``, printed with
    ``%u``), above 0 and in order: a file reading 0, a negative or a max below its min is not
    a range (the file is broken or not the kernel's) and is treated as one that cannot be
    read.  An OPP list made from those same two files (no ``scaling_available_frequencies``)
    is no fallback then.
    """
    try:
        return _cpuinfo_range(tree, rel)
    except SensorError as e:
        if not table_hz or table_source != "scaling_available_frequencies":
            raise SensorError(
                f"{e}; with no OPP list to judge by, its limits are not written back until it "
                "reads one (check the board with `thermogov doctor`)"
            ) from e
        return table_hz[0] // 1000, table_hz[-1] // 1000, "scaling_available_frequencies"


def _cpuinfo_range(tree: SysfsTree, rel: str) -> tuple[int, int, str]:
    """``cpuinfo_min_freq..cpuinfo_max_freq`` (kHz) of the policy at ``rel``, or SensorError."""
    lo_rel, hi_rel = f"{rel}/cpuinfo_min_freq", f"{rel}/cpuinfo_max_freq"
    lo, hi = tree.read_int(lo_rel), tree.read_int(hi_rel)
    if not _is_cpuinfo_range(lo, hi):
        bad = lo_rel if not 0 < lo <= LARGEST_LIMIT[1000] else hi_rel
        raise SensorError(
            f"{tree.show(bad)}: {lo}..{hi} kHz (cpuinfo_min_freq..cpuinfo_max_freq) is not a hardware range"
        )
    return lo, hi, "cpuinfo_min_freq..cpuinfo_max_freq"


def _is_cpuinfo_range(lo: int, hi: int) -> bool:
    """The driver's limits as the kernel keeps them: above 0, in order, an ``unsigned int``."""
    return 0 < lo <= hi <= LARGEST_LIMIT[1000]


def _seed_of_policy(p: CpufreqPolicy) -> tuple[int, int, str] | None:
    """What :func:`_read_range` reads for ``p`` now, from what discovery read (None: read it)."""
    if p.error or p.not_own or p.inactive or not p.table_hz:
        return None
    if p.cpuinfo_khz is not None and _is_cpuinfo_range(*p.cpuinfo_khz):
        return (*p.cpuinfo_khz, "cpuinfo_min_freq..cpuinfo_max_freq")
    if p.table_source == "scaling_available_frequencies":  # policy_range's fallback
        return p.table_hz[0] // 1000, p.table_hz[-1] // 1000, p.table_source
    return None


def seed_ranges(tree: SysfsTree, inv: Inventory) -> None:
    """Keep the range of every policy and device discovery judged (module doc): the start's
    check then reads none of their files again.  A range already kept this run stays."""
    for p in inv.policies:
        span = _seed_of_policy(p)
        if span is not None:
            tree.ranges.setdefault(p.rel, span)
    for d in inv.devfreqs:
        if d.table_hz and not d.error and not d.not_own:
            tree.ranges.setdefault(d.rel, (d.table_hz[0], d.table_hz[-1], "available_frequencies"))


def limits_range(
    tree: SysfsTree, min_rel: str, scale_hz: int, *, fresh: bool = False
) -> tuple[int, int, str] | None:
    """(lowest, highest, where they come from) in file units for the device whose min limit is
    ``min_rel``, None when its range cannot be known now (a restore skips such a window and says
    why, :class:`thermogov.hw.owned.OwnedWindows`; here it is left to the checks that name it).

    The range read earlier in the run unless ``fresh`` (module doc); else read from that one
    policy or device only, never the rest of the tree: a policy's ``cpuinfo_min/max_freq``, its
    OPP list (:func:`read_policy`) only when those do not read as a range; a device's table
    (:func:`read_devfreq`).  A read refused on the way (a range file linked out of the root) is
    a range not known either, and is not kept: the next asker reads again.
    """
    folder, _sep, _attr = min_rel.rpartition("/")
    if not fresh and folder in tree.ranges:
        return tree.ranges[folder]
    span = _read_range(tree, folder, scale_hz)
    if span is not None:
        tree.ranges[folder] = span
    return span


def _read_range(tree: SysfsTree, folder: str, scale_hz: int) -> tuple[int, int, str] | None:
    parent, _sep, name = folder.rpartition("/")
    try:
        if scale_hz == 1000 and parent == CPUFREQ:
            try:
                return _cpuinfo_range(tree, folder)
            except SensorError:  # its OPP list's ends, or the error saying there is none
                p = read_policy(tree, name)
                return policy_range(tree, p.rel, p.table_hz, p.table_source)
        if scale_hz == 1 and parent == DEVFREQ:
            d = read_devfreq(tree, name)
            return (d.table_hz[0], d.table_hz[-1], "available_frequencies") if d.table_hz else None
    except ThermogovError:
        return None
    return None
