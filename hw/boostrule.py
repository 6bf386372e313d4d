"""The kernel's boost switch against thermogov's cap: the top a policy's limits may hold now.

A cpufreq driver with boost OPPs (cpufreq-dt's ``turbo-mode`` OPPs, listed in
``scaling_boost_frequencies``, never in ``scaling_available_frequencies``) has a ``boost``
switch: the global ``/sys/devices/system/cpu/cpufreq/boost`` and, from Linux 6.11, one per
policy (``policyN/boost``, ``store_local_boost``; Documentation/admin-guide/pm/cpufreq.rst,
"The boost File in sysfs" and the policy attribute ``boost``).  What a switch does, on every
kernel the boards ship (5.10 of JetPack 5 from 5.10.17 on, 5.15 of JetPack 6, 6.1, 6.6 and 6.12
of Raspberry Pi OS), read from drivers/cpufreq/cpufreq.c (``cpufreq_boost_trigger_state``,
``policy_set_boost`` in later ones, ``cpufreq_boost_set_sw``) and drivers/cpufreq/freq_table.c
(``cpufreq_frequency_table_cpuinfo``, https://github.com/torvalds/linux):

* ``cpufreq_boost_set_sw`` recomputes the table's ends with the boost rows skipped while boost is
  off, sets ``policy->max`` to the new top, and then *re-issues the sysfs max request at it*
  (``freq_qos_update_request(policy->max_freq_req, policy->max)``).  So turning boost on or off
  replaces what was written to ``scaling_max_freq`` -- thermogov's cap too -- by the new top: the
  boost OPP when on, the listed top when off.  ``scaling_min_freq``'s request is not touched.
* ``cpuinfo_max_freq`` rises to the boost OPP when boost is turned on, but is *not* lowered when
  it is turned off ("If the driver has set its own cpuinfo.max_freq above max_freq, leave it as
  is", 3c55e94c0ade, in 5.11 and 5.10.17).  The kernel then accepts a later write of the boost
  OPP to ``scaling_max_freq`` with boost off, and the governor may run there.  A restore judged
  against ``cpuinfo_max_freq`` alone would put a boost limit found at start back over the
  operator's ``echo 0 > boost``.

So while a policy's boost is off, the top its limits may hold is its listed top, whatever
``cpuinfo_max_freq`` says (:func:`boost_off_top`), and a raise of ``scaling_max_freq`` to the
new top right after the switch is the kernel's reset, not a rival writer
(:class:`BoostStates`, used by :mod:`thermogov.hw.limitwatch`).  Boards without boost OPPs (every
stock Jetson and Pi profile today) have no ``scaling_boost_frequencies``: one failed open per
policy, nothing else.
"""

from __future__ import annotations

from collections import Counter

from thermogov.hw.discovery import CPUFREQ
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ThermogovError


def _ints(tree: SysfsTree, rel: str) -> list[int]:
    try:
        return [int(x) for x in tree.read_text(rel).split()]
    except (ThermogovError, ValueError):
        return []


def boost_on(tree: SysfsTree, folder: str) -> bool | None:
    """Whether boost is on for the policy at ``folder`` (its own ``boost`` file, Linux 6.11+,
    else the global one); None when neither reads 0 or 1."""
    for rel in (f"{folder}/boost", f"{CPUFREQ}/boost"):
        try:
            text = tree.read_text(rel).strip()
        except ThermogovError:
            continue
        if text in ("0", "1"):
            return text == "1"
    return None


def policy_tops(tree: SysfsTree, folder: str) -> tuple[int, int] | None:
    """(listed top, highest boost OPP) in kHz of a policy with boost OPPs, else None."""
    boost = _ints(tree, f"{folder}/scaling_boost_frequencies")
    listed = _ints(tree, f"{folder}/scaling_available_frequencies")
    if not boost or not listed:
        return None
    return max(listed), max(boost)


def boost_off_top(tree: SysfsTree, folder: str) -> int | None:
    """The listed top of a policy whose boost is off while it has boost OPPs (its limits may hold
    no more, module doc), else None (no boost OPPs, boost on, or the switch unreadable)."""
    tops = policy_tops(tree, folder)
    if tops is None or boost_on(tree, folder) is not False:
        return None
    return tops[0]


def policy_folder(rel: str) -> str | None:
    """The policy folder of a cpufreq limit file, None for any other file."""
    folder = rel.rpartition("/")[0]
    return folder if folder.rpartition("/")[0] == CPUFREQ else None


class BoostStates:
    """The boost state of each governed policy with boost OPPs, as last seen: a raise of its
    ``scaling_max_freq`` to exactly the top of a state that differs from the last one seen is the
    kernel's reset of the max request on a switch (module doc), not another writer.  Every look
    of the limit watch reads each switch (:meth:`look`), so a switch that raised nothing is seen
    too and the next raise is judged against the state it left (session 25r)."""

    def __init__(self, tree: SysfsTree, max_rels: list[str]) -> None:
        self._tree = tree
        self._seen: dict[str, bool | None] = {}
        self._switches: Counter[str] = Counter()  # switches seen by look(), per policy
        for rel in max_rels:
            folder = policy_folder(rel)
            if folder is not None and policy_tops(tree, folder) is not None:
                self._seen[folder] = boost_on(tree, folder)

    def look(self) -> list[str]:
        """Each policy's switch as it reads now, at every look of the limit watch (session 25r).

        A switch that leaves ``scaling_max_freq`` as it reads (boost turned off while the cap is
        the listed top, the top of thermogov's table) raises nothing, and was unseen: the switch
        back on then read as a rival's raise, and the fourth such cycle left the file to "another
        writer", uncapped for the rest of the run.  A switch seen here is said, once."""
        said = []
        for folder, was in self._seen.items():
            now = boost_on(self._tree, folder)
            if now is None or now == was:
                continue
            self._seen[folder] = now
            self._switches[folder] += 1  # in the line: the daemon's log says a repeated line once
            tops = policy_tops(self._tree, folder)
            top = f"; its top is now {tops[1] if now else tops[0]} kHz" if tops is not None else ""
            name = folder.rpartition("/")[2]
            said.append(
                f"boost switched {'on' if now else 'off'} for {name} ({self._switches[folder]} this run){top}"
            )
        return said

    def switched_to(self, max_rel: str, value: int) -> str:
        """Whether ``value`` (a raise read from ``max_rel``) may be the top the kernel set on a
        boost switch since the last look: ``"switched"`` when the switch reads otherwise than
        last seen, ``"switched and back"`` when it reads the same (session 26r, below), ``""``
        when the raise cannot be the kernel's; the state now becomes the one seen.

        A raise to exactly the top of the state the switch reads, with that state as last seen,
        is what two switches between two looks leave (off and on: the second reset the max
        request to the state's top, ``cpufreq_boost_set_sw``), and nothing in sysfs tells it
        from another writer's write of that top (no file counts switches; ``cpuinfo_max_freq``
        is not lowered by the off).  Counted as a rival's raise, four such pairs left the file
        to "another writer", uncapped for the rest of the run (25r's Left); taken as the
        kernel's, a writer of exactly the top is capped again at each look instead of being
        left the file after :data:`~thermogov.hw.limitwatch.MAX_REAPPLY`.  The doubt goes to the
        cap, as a fan's goes to cooling (hw/fanrival.py): a raise to any other value is still
        another writer's."""
        folder = policy_folder(max_rel)
        if folder is None or folder not in self._seen:
            return ""
        tops = policy_tops(self._tree, folder)
        now = boost_on(self._tree, folder)
        was, self._seen[folder] = self._seen[folder], now
        if tops is None or now is None or value != (tops[1] if now else tops[0]):
            return ""
        return "switched" if now != was else "switched and back"
