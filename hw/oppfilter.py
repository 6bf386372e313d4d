"""An OPP list read from sysfs made into a table, and what of it was not an OPP, said once.

cpufreq's ``scaling_available_frequencies`` prints each valid entry of the driver's table as
kHz (``show_available_freqs``, drivers/cpufreq/freq_table.c, which skips the
``CPUFREQ_ENTRY_INVALID`` ones) and devfreq's ``available_frequencies`` each entry of the
profile's ``freq_table`` as Hz (``available_frequencies_show``, drivers/devfreq/devfreq.c).
So a 0 or a negative entry is no frequency any table holds: a driver bug, a file not written by
the kernel or a tree under the wrong ``--sysfs-root``.  A repeated entry is a driver's table with
a duplicate (``set_freq_table_sorted`` in freq_table.c warns "Duplicate freq-table entries" and
keeps it): harmless but worth naming.  An unsorted list is no fault (a driver's table may be in
any order; the core handles ascending, descending and unsorted tables) and says nothing.

Why said, not refused (session 31r): refusing the list leaves that silicon at the kernel's limits
for the run (its domain not governed), which is the less safe outcome on a hot board; the
entries kept are still judged against the driver's own range (``cpuinfo_min_freq`` ..
``cpuinfo_max_freq``, :func:`thermogov.hw.discovery._check_within_cpuinfo`) and a list with no
positive entry is still refused.  Before, such entries were dropped silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def opp_table(values: Sequence[int], scale_hz: int, shown: str, unit: str) -> tuple[tuple[int, ...], str]:
    """(ascending unique positive entries in Hz, the one line naming what was ignored or "").

    ``values``: the file's numbers as read, in ``unit`` (``scale_hz`` Hz each); ``shown``: the
    file as the tree shows it (named in the line)."""
    table = tuple(sorted({v * scale_hz for v in values if v > 0}))
    bad = [v for v in values if v <= 0]
    twice = sorted(v for v, n in Counter(v for v in values if v > 0).items() if n > 1)
    if not table or not (bad or twice):
        return table, ""
    parts = []
    if bad:
        parts.append(
            f"{', '.join(map(str, bad))} {unit} (no frequency: the kernel lists only a table's valid entries)"
        )
    if twice:
        parts.append(f"{', '.join(map(str, twice))} {unit} listed more than once")
    return table, (
        f"{shown}: ignored {'; '.join(parts)}; governed with the {len(table)} OPPs left; "
        "check the driver and the --sysfs-root"
    )
