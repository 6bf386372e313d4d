"""Clusters that come online after the daemon started: journaled, capped, restored like the rest.

A cpufreq policy whose CPUs are all offline at start answers EBUSY from every attribute
(``show()``/``store()`` in drivers/cpufreq/cpufreq.c while ``policy_is_inactive``), so it is
skipped (session 16, :func:`thermogov.hw.discovery.read_policy`).  Its CPUs can come back at
any time: an nvpmodel mode with more cores (``CPU_ONLINE``), an operator's
``echo 1 > /sys/devices/system/cpu/cpu4/online``.  Left alone, that cluster ran at the
kernel's limits, full clock on a board at its trip, until thermogov restarted.

Looked at on the limit watch's cadence (once a second, :class:`~thermogov.hw.limitwatch.
LimitWatch`), not every tick: one read of ``scaling_max_freq`` per waiting policy, which
answers EBUSY while the cluster is offline.  A second is what a governed cluster back from
offline already waits for its cap (``limits_reset``), and a cluster that just came online
starts from cold cores: the die it heats is the one the governed clusters share, whose
temperature moves over seconds (the thermal time constants of the board profiles), so a
faster look buys nothing a trip would notice and costs a syscall per tick.

Once ``scaling_max_freq`` reads, the policy is read again as discovery reads it at start and
judged by the same rules: read-only, broken, or sharing no OPP with its domain's caps is said
once and left alone.  Otherwise, in this order: its window as found is put in the domain's
:class:`~thermogov.hw.devices.CapActuator` as the value restore puts back, the journal is
rewritten with it (fsynced; when that fails the cluster is left alone, nothing written, one
line), its files are owned, and the domain's cap last asked for is written to it.  From then
on it is one of the domain's files: the limit watch checks it, restore puts it back at exit,
a ``kill -9`` leaves it in the journal.  Going offline again is what it is for any governed
cluster (the watch notes it, the cap is written again when it is back).

A domain whose *every* policy is offline at start (``BoardMap.offline``) is governed the same
way: its actuator is opened with no file and the profile's OPPs as its table (nothing of an
inactive policy reads, not even its OPP list), and its first policy to come online joins it by
the rules above.  Meanwhile the policy sees the domain in its ladder like any other and its
rung is held: the cap it decides is kept, not written (there is nothing online to write), and
is the one written when a policy joins.  Leaving the domain out until then was the other
choice, and the worse one: the policies take their domains and tables once, at start (adding
one mid-run would mean a new policy, losing its state, as a reload does), and the first cap a
cluster gets on joining would then be no decision at all, the top, on a board that may be at
its trip.  The cost: a model-based policy or a power budget counts a domain that draws nothing
while offline, so it may cap the others a little earlier than needed (the safe side).
"""

from __future__ import annotations

import contextlib
import errno
import functools
from collections.abc import Callable, Sequence

from thermogov.hw.departures import Departed, elsewhere, recalled, release
from thermogov.hw.devices import CapActuator, clock_reader
from thermogov.hw.discovery import CPUFREQ, read_policy
from thermogov.hw.limits import LimitFiles, check_limits_in_force
from thermogov.hw.mapping import DomainBinding, offered_caps, table_owners, unowned_line
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError, ThermogovError


class LateMembers:
    """What a look for members that join mid-run works with (late clusters, late devfreq
    devices): the tree, the journal's rewrite, the daemon's log, and whether the run is dry."""

    def __init__(
        self,
        tree: SysfsTree,
        domains: Sequence[tuple[CapActuator, DomainBinding]],
        journal: Callable[[], None],
        log: Callable[[str], None],
        *,
        dry_run: bool = False,
    ) -> None:
        self._tree = tree
        self._write = journal  # rewrites the journal from the actuators; raises when it cannot
        self._log = log
        self._dry_run = dry_run
        self._departed: dict[str, Departed] = {}  # members that went away mid-run (hw/departures.py)
        self._held: dict[str, CapActuator] = {}  # their domain's actuator, by label
        self._owed = False  # the last rewrite failed: the journal may name a member that left
        self._owed_said = False  # ... and that was said (once, until it is written)
        self._setup(domains)

    def _journal(self) -> None:
        """Rewrite the journal; whether one is still owed is known from its outcome."""
        try:
            self._write()
        except ThermogovError:
            self._owed = True
            raise
        self._owed = False

    def _rewrite_after_leave(self) -> None:
        """The rewrite after a member left its domain, and its retry at each look until written.

        A failure is said once (a ``kill -9`` before the rewrite leaves the old entry, which a
        journal restore skips when nothing is at its place, hw/freed.py, and otherwise writes the
        window of before to whatever the driver made there), then tried again at every look."""
        try:
            self._journal()
        except ThermogovError as e:
            if not self._owed_said:
                self._owed_said = True
                self._log(
                    f"warning: the journal could not be rewritten without the member that left ({e}); "
                    "tried again at each look"
                )
            return
        if self._owed_said:
            self._owed_said = False
            self._log("the journal is rewritten: the member that left is out of it")

    def _retry_journal(self) -> None:
        if self._owed:
            self._rewrite_after_leave()

    def _leave_domain(self, a: CapActuator, f: LimitFiles) -> None:
        """:func:`~thermogov.hw.departures.release` (nothing written to the board), then the
        journal rewritten without it (:meth:`_rewrite_after_leave`)."""
        self._departed[f.label] = release(self._tree, a, f, dry_run=self._dry_run)
        self._held[f.label] = a
        self._rewrite_after_leave()

    def _back(self, label: str) -> tuple[LimitFiles, Sequence[int]] | None:
        """The files and table of what is at a departed member's place now, if it reads."""
        raise NotImplementedError

    def recall_at_exit(self) -> list[str]:
        """The exit's share of :func:`~thermogov.hw.departures.recalled`: a member that left and
        is back (the last look before restore saw it go, or the exit came before its re-adoption)
        whose new files read thermogov's own last cap joins its domain without a cap, so the
        restore puts back the window of before, as the running daemon's re-adoption would."""
        tags = []
        for label, gone in list(self._departed.items()):
            now = self._back(label)
            if now is None:
                continue
            f, table = now
            why = elsewhere(self._tree, gone, f)
            if why:
                self._log(f"warning: {label} came back but is left alone: {why}")
                continue
            verdict = rejoin_at_exit(
                self._tree,
                self._held[label],
                f,
                self._journal,
                self._log,
                functools.partial(recalled, gone, table_hz=table, f=f, log=self._log),
                dry_run=self._dry_run,
            )
            if joined(verdict):  # "wait": offline again, not joined; still departed
                self._departed.pop(label)
                tags.append(verdict)
        return tags

    def _setup(self, domains: Sequence[tuple[CapActuator, DomainBinding]]) -> None:
        raise NotImplementedError

    def _adopt(
        self,
        a: CapActuator,
        f: LimitFiles,
        table_hz: Sequence[int],
        event: str,
        *,
        said: set[str] | None = None,
        tag: str = "cluster_online",
    ) -> str:
        """:func:`adopt`, the window of a member that went away and came back recalled
        (:func:`thermogov.hw.departures.recalled`); forgotten once it joined.  The caller says
        such a member "appeared again" in ``event``."""
        gone = self._departed.get(f.label)
        why = elsewhere(self._tree, gone, f)
        if why:
            self._log(f"warning: {f.label} {event} but is left alone: {why}")
            return ""
        verdict = adopt(
            self._tree,
            a,
            f,
            self._journal,
            self._log,
            dry_run=self._dry_run,
            event=event,
            recall=None if gone is None else lambda w: recalled(gone, w, table_hz, f, self._log),
            tag=tag,
            said=said,
        )
        if joined(verdict):
            self._departed.pop(f.label, None)
        return verdict


class LateClusters(LateMembers):
    """The policies of governed domains that were inactive at start, until each joins or is left."""

    def _setup(self, domains: Sequence[tuple[CapActuator, DomainBinding]]) -> None:
        self._waiting: list[tuple[CapActuator, DomainBinding, str]] = [
            (a, b, name)
            for a, b in domains
            if b.domain.kind == "cpufreq"
            for name in (*b.inactive, *b.absent)
        ]
        self._said: set[str] = set()  # policies whose unreadable limit has been named once
        # Policies without a folder at start: one that appears is judged a look after its limit
        # first reads, when the kernel has made the rest of its files (the folder and the core
        # attributes come first, a driver's own such as scaling_available_frequencies after).
        self._absent = {name for _a, b in domains if b.domain.kind == "cpufreq" for name in b.absent}
        self._appeared: set[str] = set()
        # Session 28r: the domain that takes the policies no domain names (``DomainBinding.known``)
        # and every policy name accounted for: a ``policyN`` folder not among them that appears
        # mid-run is waited for as an absent one (judged a look after its limit reads, joined only
        # if it shares an OPP with the domain's caps).  Before, only the names a profile lists
        # were looked for, and a CPU whose per-CPU policy folder came back ran at full clock.
        self._takes: tuple[CapActuator, DomainBinding] | None = next(
            ((a, b) for a, b in domains if b.domain.kind == "cpufreq" and b.known is not None), None
        )
        self._known: set[str] = set()
        if self._takes is not None:
            b = self._takes[1]
            self._known = {n.lower() for n in (*(b.known or ()), *b.inactive, *b.absent)}
            self._known |= {f.label.lower() for f in b.files}
        # Session 29r: a profile with two or more cpufreq domains (big.LITTLE described apart)
        # takes a ``policyN`` folder that appears mid-run and that no domain names into the one
        # domain whose hardware OPP table it offers exactly (:meth:`_owner`); none or several:
        # said once, left at the kernel's limits.  The folders there at start keep the start's
        # rule (such a profile takes only what it names), so they are known from the first look.
        self._cpufreq = [(a, b) for a, b in domains if b.domain.kind == "cpufreq"]
        self._unnamed: set[str] = set()  # such folders waited for, judged by :meth:`_owner`
        if self._takes is None and len(self._cpufreq) > 1:
            self._known = {n.lower() for n in self._tree.listdir(CPUFREQ, r"policy\d+")}
            for a, b in self._cpufreq:
                self._known |= {n.lower() for n in (*b.inactive, *b.absent, *b.domain.sysfs_names)}
                self._known |= {f.label.lower() for f in a.files}
            # Session 30r: a policy no domain names, offline at start (hw/mapping.py ``by_table``),
            # waited for in the first domain's ``inactive``: its domain is chosen by its table.
            named = {n.lower() for _a, b in self._cpufreq for n in b.domain.sysfs_names}
            self._unnamed = {name for _a, _b, name in self._waiting if name.lower() not in named}

    @property
    def waiting(self) -> tuple[str, ...]:
        """The names of the policies still offline (or not yet looked at)."""
        return tuple(name for _a, _b, name in self._waiting)

    def check(self) -> list[str]:
        """Trace tags of the policies that joined in this look (``cluster_online:<policy>``)."""
        self._retry_journal()
        self._look_for_new()
        if not self._waiting:
            return []
        tags: list[str] = []
        still: list[tuple[CapActuator, DomainBinding, str]] = []
        for a, b, name in self._waiting:
            try:
                self._tree.read_int(f"{CPUFREQ}/{name}/scaling_max_freq", ActuatorError)
            except ActuatorError as e:
                still.append((a, b, name))  # still offline (EBUSY), or not readable yet
                self._appeared.discard(name)
                _say_unreadable(self._said, self._log, name, e)
                continue
            if name in self._absent and name not in self._appeared:
                self._appeared.add(name)  # appeared since the last look: judged at the next
                still.append((a, b, name))
                continue
            verdict = self._join(a, b, name)
            if verdict == "wait":
                still.append((a, b, name))
            elif verdict:
                tags.append(verdict)
        self._waiting = still
        return tags

    def _look_for_new(self) -> None:
        """Policy folders that appeared since start and that no one waits for (module doc,
        ``DomainBinding.known``): waited for from this look on, as a policy absent at start."""
        takes = self._takes or (self._cpufreq[0] if len(self._cpufreq) > 1 else None)
        if takes is None:
            return
        for name in self._tree.listdir(CPUFREQ, r"policy\d+"):
            if name.lower() in self._known:
                continue
            self._known.add(name.lower())
            a, b = takes
            if self._takes is None:
                self._unnamed.add(name)  # its domain is chosen when it is judged (_owner)
            self._waiting.append((a, b, name))
            self._absent.add(name)
            self._appeared.discard(name)

    def hold(self, a: CapActuator, b: DomainBinding, f: LimitFiles) -> None:
        """A governed policy whose files went away (a cpufreq driver unloaded, hw/departures.py):
        out of its domain and the journal, waited for again as a policy absent at start."""
        self._leave_domain(a, f)
        self._waiting.append((a, b, f.label))
        self._absent.add(f.label)
        self._appeared.discard(f.label)
        self._log(
            f"{f.label} went away (its cpufreq driver unloaded?): left out of the journal and of the "
            f"restore; domain {a.name}'s cap held, adopted again if it comes back"
        )

    def _back(self, label: str) -> tuple[LimitFiles, Sequence[int]] | None:
        p = read_policy(self._tree, label)
        if p.inactive or p.error or p.read_only or p.not_own:
            return None
        return LimitFiles(p.name, p.min_rel, p.max_rel, p.cur_rel, 1000), p.table_hz

    def _join(self, a: CapActuator, b: DomainBinding, name: str) -> str:
        """The trace tag when the policy joined, "wait" to look again, "" when it is left alone."""
        p = read_policy(self._tree, name)
        if p.inactive:
            return "wait"  # went offline again between the two reads
        why = p.error or p.read_only or p.not_own
        if not why and name in self._unnamed:
            owner = self._owner(name, p.table_hz)
            if isinstance(owner, str):
                why = owner
            else:
                a, b = owner
                self._unnamed.discard(name)
        if not why and not offered_caps(p, b.domain) & set(a.table_hz):
            table = f"{p.table_hz[0] / 1e6:g}..{p.table_hz[-1] / 1e6:g} MHz"
            why = f"{name} ({table}) shares no OPP with domain {a.name}'s caps"
        if why:
            self._log(f"warning: {name} came online but is left alone: {why}")
            return ""
        f = LimitFiles(p.name, p.min_rel, p.max_rel, p.cur_rel, 1000)
        event = "appeared" if name in self._absent else "came online"
        if name in self._departed:  # went away, absent since (hold)
            event = "appeared again"
        return self._adopt(a, f, p.table_hz, event, said=self._said)

    def _owner(self, name: str, table_hz: Sequence[int]) -> tuple[CapActuator, DomainBinding] | str:
        """The one cpufreq domain whose hardware OPP table a policy no domain names offers
        exactly (its members' common OPPs, ``DomainBinding.hw_table_hz``), or why none is.

        Under a profile with one cpufreq domain the domain is "the CPU" and takes such a policy
        where it shares an OPP (hw/mapping.py ``unnamed_policies``); with two, a shared OPP says
        nothing (big.LITTLE tables overlap), while a table equal to one cluster's alone is that
        cluster's silicon (cpufreq-dt builds a policy's table from its CPUs' ``operating-points-v2``
        node, the same node for the CPUs of one cluster: Documentation/devicetree/bindings/opp/
        opp-v2.yaml, drivers/cpufreq/cpufreq-dt.c).  A policy of a per-CPU kernel coming back
        after a hotplug offers its cluster's table, so it joins that cluster's domain."""
        match = table_owners(table_hz, self._cpufreq, lambda ab: ab[1].hw_table_hz)
        if len(match) == 1:
            return match[0]
        return unowned_line(name, table_hz, [a.name for a, _b in match])


def joined(verdict: str) -> bool:
    """Whether :func:`adopt`'s (or :func:`rejoin_at_exit`'s) verdict is a join (its trace tag),
    not "wait" (look again) or "" (left alone)."""
    return verdict not in ("", "wait")


def adopt(
    tree: SysfsTree,
    a: CapActuator,
    f: LimitFiles,
    journal: Callable[[], None],
    log: Callable[[str], None],
    *,
    dry_run: bool,
    event: str = "came online",
    tag: str = "cluster_online",
    said: set[str] | None = None,
    recall: Callable[[tuple[int, int]], tuple[int, int]] | None = None,
) -> str:
    """Join one limit pair that appeared mid-run to its domain's actuator, in the one safe order.

    Its window as found is read and checked by the start's one rule (:func:`_joined`), put in
    the actuator as what restore puts back, journaled (fsynced) before the first write, owned,
    then capped.  The trace tag when it joined, "wait" to look again (it went away between two
    reads), "" when it is left alone (said once).  Shared by late clusters and late devfreq
    devices.

    ``said`` (late clusters): the names whose unreadable limit was already said.  A cluster's max
    has just read, so only EBUSY (offline again) is the kernel's answer for its min; a min
    missing or garbage is said once there, as a max would be, and looked at again (session 19).
    Without it (a device's files, which may be gone between two reads) such a read waits or is
    left alone, said.  ``recall``: the window restore puts back for a member that went away and
    came back, from the one read (:func:`thermogov.hw.departures.recalled`)."""
    name = f.label
    found = _found(a, f, log, event, said)
    if isinstance(found, str):
        return found
    original = found if recall is None else recall(found)
    if not _joined(tree, a, f, original, journal, log, dry_run=dry_run, event=event):
        return ""
    unit = f.unit
    try:
        a.reapply(f)
    except ActuatorError as e:
        # Offline again already: nothing of thermogov's is in force there, so the window
        # the limit watch reads once it is back differs from this "seen" one and the cap is
        # written then (``limits_reset``), as for any governed cluster back from offline.
        a.seen[f.label] = (0, 0)
        log(f"{name} {event} with {_window(original)} {unit} (journaled); its cap not yet: {e}")
        return f"{tag}:{name}"
    cap = a.seen[f.label][1]
    log(
        f"{name} {event} with {_window(original)} {unit}: journaled, capped with domain "
        f"{a.name} at {cap} {unit}, restored at exit"
    )
    return f"{tag}:{name}"


def rejoin_at_exit(
    tree: SysfsTree,
    a: CapActuator,
    f: LimitFiles,
    journal: Callable[[], None],
    log: Callable[[str], None],
    recall: Callable[[tuple[int, int]], tuple[int, int]],
    *,
    dry_run: bool,
    event: str = "came back",
    tag: str = "cluster_online",
) -> str:
    """The exit's join of a member that went away and is back (:meth:`LateMembers.recall_at_exit`):
    only when ``recall`` changed the window found (its new files read thermogov's own last cap),
    by :func:`adopt`'s checks, journaled and owned but not capped: the restore comes next and
    writes the window of before.  Its verdicts are :func:`adopt`'s."""
    name = f.label
    found = _found(a, f, log, event, None)
    if isinstance(found, str):
        return found
    original = recall(found)
    if original == found:
        return ""  # its own window as found: the restore leaves it as it is
    if not _joined(tree, a, f, original, journal, log, dry_run=dry_run, event=event):
        return ""
    a.seen[f.label] = a.written[f.label] = found  # thermogov's cap, carried over: restored next
    log(
        f"{name} {event} with {_window(found)} {f.unit}: journaled, {_window(original)} put back by the restore"
    )
    return f"{tag}:{name}"


def _found(
    a: CapActuator, f: LimitFiles, log: Callable[[str], None], event: str, said: set[str] | None
) -> tuple[int, int] | str:
    """The window a member that appeared reads now, else :func:`adopt`'s verdict ("wait" or
    "", said) when it cannot be read."""
    try:
        return (a.io.read_int(f.min_rel), a.io.read_int(f.max_rel))
    except ActuatorError as e:
        if said is not None:
            _say_unreadable(said, log, f.label, e, (errno.EBUSY,))
            return "wait"
        if _offline(e):
            return "wait"  # gone or offline again between two reads
        log(f"warning: {f.label} {event} but is left alone: {e}")
        return ""


def _joined(
    tree: SysfsTree,
    a: CapActuator,
    f: LimitFiles,
    original: tuple[int, int],
    journal: Callable[[], None],
    log: Callable[[str], None],
    *,
    dry_run: bool,
    event: str,
) -> bool:
    """Whether the member joined ``a`` with ``original`` as what restore puts back: journaled
    (fsynced) and owned, nothing written yet.  Else it is left alone, said, and False.

    Checked first by the start's one rule (:func:`~thermogov.hw.limits.check_limits_in_force`:
    no min above the max, nothing outside the device's own hardware range, which a journal
    restore would refuse after a ``kill -9``; read from this device's files, not a walk of the
    tree)."""
    name = f.label
    try:
        check_limits_in_force(tree, f, *original)  # the start's rule: min above max, outside its range
    except ActuatorError as e:
        log(f"warning: {name} {event} but is left alone: {e}")
        return False
    # A file that cannot be owned (a link planted while it was absent or offline) is this
    # member's fault alone: judged before the journal names it, so the rest go on being governed.
    # A file another member owns (a folder linked to a governed member's): never a second window.
    why = (
        tree.unownable(f.min_rel)
        or tree.unownable(f.max_rel)
        or tree.taken(f.min_rel)
        or tree.taken(f.max_rel)
    )
    if why:
        log(f"warning: {name} {event} but is left alone: {why}")
        return False
    before = clock_reader(tree, a.files)
    tree.keep_open(f.cur_rel, ActuatorError)
    a.join(f, original, clock_reader(tree, (*a.files, f)))
    try:
        journal()  # before the first write: a kill -9 from here on restores it
    except ThermogovError as e:
        a.leave(f.label, before)
        log(f"warning: {name} {event} but is left alone: its limits could not be journaled ({e})")
        return False
    if not dry_run:
        try:
            tree.own(f.min_rel)
            tree.own(f.max_rel)
        except ActuatorError as e:  # gone, or a link, between the read and now: nothing written
            a.leave(f.label, before)
            journal_quietly(journal)
            log(f"warning: {name} {event} but is left alone: {e}")
            return False
    return True


def journal_quietly(journal: Callable[[], None]) -> None:
    """Rewrite the journal after a member that joined left again at once (nothing written to it);
    a failure leaves an entry a restore writes back to the window it read (the same values), and
    :class:`LateMembers`' own rewrite marks the journal owed, so its next look writes it again."""
    with contextlib.suppress(ThermogovError):
        journal()


# The kernel's answers for a policy whose CPUs are all offline (EBUSY from show()) or gone (its
# folder removed with its last CPU), as opposed to a limit that reads wrong.
OFFLINE_ERRNOS = (errno.EBUSY, errno.ENOENT, errno.ENODEV)


def _say_unreadable(
    said: set[str],
    log: Callable[[str], None],
    name: str,
    e: ActuatorError,
    errnos: tuple[int, ...] = OFFLINE_ERRNOS,
) -> None:
    """Say once that a limit of ``name`` reads wrong, unless it is the kernel's answer for an
    offline or absent policy (garbage, a directory, a link out of the root: not silently
    ungoverned)."""
    if not _offline(e, errnos) and name not in said:
        said.add(name)
        log(f"warning: {name} is left ungoverned while its limit cannot be read: {e}")


def _offline(e: ActuatorError, errnos: tuple[int, ...] = OFFLINE_ERRNOS) -> bool:
    """The kernel's answers for a policy whose CPUs are all offline (EBUSY from show()) or gone
    (its folder removed with its last CPU), as opposed to a limit that reads wrong."""
    cause = e.__cause__
    return isinstance(cause, OSError) and cause.errno in errnos


def offline_note(b: DomainBinding) -> str:
    """What ``run`` says at start of a domain whose every policy is offline (``BoardMap.offline``)."""
    return (
        f"domain {b.domain.name}: every policy of it ({', '.join(b.inactive)}) is offline; governed "
        "once a CPU of it comes online (its cap decided meanwhile, written then)"
    )


def _window(w: tuple[int, int]) -> str:
    return f"{w[0]}..{w[1]}"
