"""Governed members whose files the kernel removed (and may make again): held, then re-adopted.

A device or policy the daemon governs can lose its folder mid-run without anything being
wrong with the board: an nvgpu unbind/bind (``echo 17000000.gpu > .../drivers/gpu/unbind``, a
railgate driver reload) removes ``/sys/class/devfreq/17000000.gpu`` and the device's folder,
a cpufreq driver reload (``rmmod tegra194_cpufreq``/``cpufreq-dt``, then ``modprobe``) removes
every ``policyN``.  The probe that follows makes a new folder with new files (new inodes) and
the kernel's default limits: devfreq's user min/max requests are freed with the device
(``devfreq_remove_device``, drivers/devfreq/devfreq.c) and a new cpufreq policy starts from
``cpuinfo_min_freq``..``cpuinfo_max_freq`` (``cpufreq_online``).  Before this module the owned
files, gone or replaced, were refused as "replaced since start-up" (hw/confine.py): the member
ran at the kernel's limits, a cap change sent the others to failsafe, and the exit failed.

Now, on the limit watch's cadence (once a second) and once more just before the exit restore,
every owned limit pair is checked to still be the very file owned (one ``lstat`` of its max,
:meth:`~thermogov.hw.sysfs.SysfsTree.still_owned`, before the watch reads the files).  A member
that is not, in the kernel's way (:meth:`~thermogov.hw.sysfs.SysfsTree.remade`: nothing at its
path, or a new regular file reached as the old one was; a link planted at it or on the way is a
tampered tree, refused and failsafe as before, hw/confine.py), leaves its domain (:func:`release`): out of the journal (rewritten, fsynced), no
longer owned, its kept clock descriptor closed (a dead inode is never read or written), not
restored at exit.  Its domain's cap is held, as for a member absent at start, and the member is
handed back to the watcher of its kind (hw/lateclusters.py, hw/latedevfreq.py), which adopts
what appears at its place by the start's rules (profile-named only; a link out of the root,
garbage or min above max said once and left alone; journaled before the first write), only in
the folder it was owned in (:func:`elsewhere`) and never a file another member owns.  This is
the one way every member leaves, whenever it joined: a device adopted mid-run is no longer
released by its watcher on any change of its files (session 21).

The journal's choice: the window *re-captured* from the new files, not the start's.  The value
found at start no longer exists anywhere (the kernel freed it with the device), and the board
"as before thermogov" after a reload is the board at the driver's defaults: writing the start's
window to the new device could be refused by it (another OPP table after a reload) or undo the
reset the operator's reload meant.  One exception (:func:`recalled`): a new file that reads
exactly thermogov's own last cap, below the start's window, is no kernel default (a vendor
driver carrying the old request over, a file copied back) and would leave the board capped
after restore; the start's window is then kept, if the new member's table still holds it.
The exit applies the same rule (session 20d): a member the exit's own last look sees go, or one
that left and came back before the next look re-adopted it, whose new files read that cap, joins
its domain uncapped just before the restore (:meth:`~thermogov.hw.lateclusters.LateMembers.
recall_at_exit`: journaled, owned), so the restore puts the window of before back.

A cap the governor writes before that look (:meth:`CapActuator.apply`) holds such a member too
(:func:`thermogov.hw.limits.kernel_removed`) instead of raising the confinement refusal, which
would send the other domains to failsafe for up to a second.

Not in a dry run: nothing is owned there, and nothing is written to a member that changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from thermogov.hw.devices import CapActuator, clock_reader
from thermogov.hw.limits import LimitFiles, kernel_removed
from thermogov.hw.mapping import DomainBinding
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError

Hold = Callable[[CapActuator, DomainBinding, LimitFiles], None]
TAG = "member_gone"  # the trace's event tag: member_gone:<label>


@dataclass(frozen=True, slots=True)
class Departed:
    """What a member that went away had: the window restore would have put back, and the
    window thermogov's cap left in force (both in file units)."""

    original: tuple[int, int]
    capped: tuple[int, int]
    folder: str = ""  # the real folder its limits were in: the kernel makes it again there


class Departures:
    """Once a look: the governed members no longer the files owned, handed to their watcher."""

    def __init__(
        self,
        tree: SysfsTree,
        domains: Sequence[tuple[CapActuator, DomainBinding]],
        hold_cluster: Hold,
        hold_device: Hold,
        *,
        dry_run: bool = False,
    ) -> None:
        self._tree = tree
        self._domains = list(domains)
        self._hold = {True: hold_cluster, False: hold_device}
        self._dry_run = dry_run

    def check(self) -> list[str]:
        """``member_gone:<label>`` for each member that left its domain in this look."""
        if self._dry_run:
            return []
        tags: list[str] = []
        for a, b in self._domains:
            for f in a.files:
                if not kernel_removed(self._tree, f):
                    continue  # still owned, or a link planted: the confinement refusal stands
                self._hold[b.domain.kind == "cpufreq"](a, b, f)
                tags.append(f"{TAG}:{f.label}")
        return tags


def release(tree: SysfsTree, a: CapActuator, f: LimitFiles, *, dry_run: bool) -> Departed:
    """Take a member that went away out of its domain: nothing of it owned, kept or restored.

    Its files are disowned (a new file at the path is owned afresh when it is judged, never
    under the old identity) and its clock's kept descriptor closed.  The caller rewrites the
    journal and says it."""
    gone = Departed(a.original(f.label), a.seen[f.label], _folder(tree, f))
    a.leave(f.label, clock_reader(tree, tuple(x for x in a.files if x.label != f.label)))
    a.left_to_others.discard(f.label)  # a new device starts with no other writer's history
    tree.release_member(f.cur_rel, () if dry_run else (f.min_rel, f.max_rel))
    return gone


def _folder(tree: SysfsTree, f: LimitFiles) -> str:
    """The real folder an owned member's max was owned in ("" when it was not owned: a dry run)."""
    return os.path.dirname(tree.owned_real(f.max_rel))


def elsewhere(tree: SysfsTree, gone: Departed | None, f: LimitFiles) -> str:
    """Why a member that went away is not back at its own place ("" when it is, or was never
    placed): what :func:`release` forgot was the memo that refused a link on the way.

    The kernel makes a member again where it was: a devfreq device's folder under its parent
    device, which an unbind keeps (``devfreq_add_device`` registers it with the device as parent,
    named alike), a policy as ``cpufreq/policyN``.  An entry made again as a link inside the root to
    another folder (another member's, a copy of its own) is a tree no kernel makes: adopted, the
    domain's caps would be written there and that folder's window journaled (review 20r (d))."""
    if gone is None or not gone.folder:
        return ""
    try:
        real = tree.resolve(f.max_rel, ActuatorError)
    except ActuatorError as e:
        return str(e)
    if os.path.dirname(real) == gone.folder:
        return ""
    return (
        f"{tree.show(f.max_rel)}: resolves to {real}, not where it was before it went away "
        f"({gone.folder}); the kernel makes a member again at its own place (fix the tree)"
    )


def recalled(
    gone: Departed | None,
    found: tuple[int, int],
    table_hz: Sequence[int],
    f: LimitFiles,
    log: Callable[[str], None],
) -> tuple[int, int]:
    """The window restore puts back for a member adopted again: the one ``found`` in its new
    files, unless that is thermogov's own last cap below the window of before (module doc)."""
    if gone is None or found != gone.capped or found == gone.original or not table_hz:
        return found
    lo, hi = gone.original
    if lo * f.scale_hz < table_hz[0] or hi * f.scale_hz > table_hz[-1]:
        return found  # the new member's table no longer holds it: its own window, as found
    log(
        f"{f.label} reads thermogov's own cap {found[0]}..{found[1]} {f.unit} after it came back, "
        f"not a kernel default: the window of before, {lo}..{hi} {f.unit}, is what restore puts back"
    )
    return gone.original
