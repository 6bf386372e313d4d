"""A devfreq device the profile names that was not there at start, adopted when it appears.

On a Jetson the GPU's ``/sys/class/devfreq/<gpu>`` entry exists only once the GPU driver
(nvgpu, or the mainline ``gpu`` driver) has probed, which can be after the unit started at boot
(Orin's ``17000000.gpu``, Nano's ``57000000.gpu``).  Before this module such a GPU was named
missing and ran at the kernel's limits until thermogov restarted.  Now its domain is opened
with no file and the profile's OPPs (:func:`thermogov.hw.mapping.offline_binding`), its cap
decided and held as for a cpufreq domain whose every policy is offline, and the class folder
is listed on the limit watch's cadence, once a second, only while such a domain waits (and in a
dry run while it holds a device adopted mid-run, to see it go away): one ``getdents`` a second, no read (an entry's device-tree node is read once, the first time the
entry is seen, and only when its name does not already say whether the profile names it).

Only a device the profile's domain names (``sysfs_names``: the device's name, the part after
its unit address, or its device-tree node; :func:`thermogov.hw.mapping.devfreq_named`) is ever
adopted: another devfreq device that appears (a video engine, an external accelerator) is
remembered and never read again while it stays.  A named one is judged a look after it first
appears, when the kernel has made its attributes (the class link and folder come before the
files), and by the start's rules (:func:`thermogov.hw.discovery.read_devfreq`): a link out of
the root, a table that does not read, read-only limits, no OPP shared with the domain's caps,
a window no kernel shows (zero, past its type, min above max) is said once and left alone
until the entry goes away; one whose attributes are not all there yet is looked at again.
Then it joins its domain in the one safe order (:func:`thermogov.hw.lateclusters.adopt`):
journaled and fsynced before the first write, owned, capped, restored at exit and after
``kill -9``.  Vanishing again is no failure: its files gone or made again in the kernel's way
(the one rule for every governed member, hw/departures.py; a link or any other file planted at
a limit is a tampered tree, refused as for a member present at start), it leaves its
domain (out of the journal, no longer owned, nothing of it restored: an unbound device's limits
go with it, and the driver's next probe starts from its own), its domain's cap is held again,
and a device that comes back (a driver reloaded: new files) is judged afresh and adopted again.
Writing the old files' identity to new ones would be refused (hw/confine.py): the cap would be
lost and the exit fail.  A device present at start that goes away, or whose files are made
again, is handed here the same way (:meth:`LateDevfreq.hold`, from hw/departures.py) and waited
for as one absent at start.
"""

from __future__ import annotations

from collections.abc import Sequence

from thermogov.hw.devices import CapActuator
from thermogov.hw.discovery import DEVFREQ, DevfreqDevice, read_devfreq
from thermogov.hw.lateclusters import LateMembers
from thermogov.hw.limits import LimitFiles
from thermogov.hw.mapping import DomainBinding, devfreq_named
from thermogov.interfaces import ActuatorError, SensorError

# The attributes a devfreq device must have before it is judged (drivers/devfreq/devfreq.c).
ATTRIBUTES = ("available_frequencies", "min_freq", "max_freq", "cur_freq")

_OTHER = "other"  # not a device the profile names
_LEFT = "left"  # named, said and left alone until it goes away
_SEEN = "seen"  # named, appeared at the last look: judged at this one
_TAKEN = "taken"  # adopted by a domain


class LateDevfreq(LateMembers):
    """The devfreq domains bound to nothing at start, until each adopts the device it names."""

    def _setup(self, domains: Sequence[tuple[CapActuator, DomainBinding]]) -> None:
        self._waiting = [
            (a, b) for a, b in domains if b.domain.kind != "cpufreq" and b.absent and not a.files
        ]
        self._entries: dict[tuple[str, str], str] = {}  # (domain, class entry) -> its state (above)
        self._adopted: list[tuple[CapActuator, DomainBinding, LimitFiles]] = []
        self._went: set[str] = set()  # adopted devices that went away since
        self._said: set[str] = set()  # entries whose missing attributes were said

    @property
    def waiting(self) -> tuple[str, ...]:
        """The domains still waiting for their device."""
        return tuple(a.name for a, _b in self._waiting)

    def check(self) -> list[str]:
        """Trace tags of the devices adopted in this look (``device_online:<name>``)."""
        self._retry_journal()
        if not self._waiting and not (self._dry_run and self._adopted):
            return []  # an adopted device's departure is hw/departures.py's, outside a dry run
        names = self._tree.listdir(DEVFREQ)
        self._entries = {k: v for k, v in self._entries.items() if k[1] in names}  # gone: forgotten
        self._said &= set(names)
        tags: list[str] = []
        for a, b, f in [x for x in self._adopted if self._gone_now(x[2], names)]:
            self.hold(a, b, f)
        still = []
        for a, b in self._waiting:
            tag = next((t for n in names if (t := self._look(a, b, n))), "")
            if tag:
                tags.append(tag)
                self._adopted.append((a, b, a.files[-1]))
            else:
                still.append((a, b))
        self._waiting = still
        return tags

    def _gone_now(self, f: LimitFiles, names: list[str]) -> bool:
        """In a dry run (nothing owned, so hw/departures.py does not look): its class entry gone.

        Otherwise never: a device adopted here leaves by the one rule every governed member
        leaves by (hw/departures.py, which looks first in each look and hands it back through
        :meth:`hold`): files gone or made again in the kernel's way.  Before (review 20r (c)) any
        change of its max released it here, a link or a FIFO planted included, where a member
        present at start meets the confinement refusal (failsafe, exit 1, said): a tampered
        tree read as an unbind, the device out of the journal and of the restore, exit 0."""
        return self._dry_run and f.label not in names

    def hold(self, a: CapActuator, b: DomainBinding, f: LimitFiles) -> None:
        """A device whose class entry went away (unbound), or whose files are new ones, leaves
        its domain: adopted mid-run here, or present at start (hw/departures.py)."""
        if (a, b, f) in self._adopted:
            self._adopted.remove((a, b, f))
        self._went.add(f.label)
        self._entries.pop((a.name, f.label), None)  # judged afresh if it is (or is already) back
        self._leave_domain(a, f)
        self._waiting.append((a, b))
        self._log(
            f"{f.label} went away (unbound): left out of the journal and of the restore; "
            f"domain {a.name}'s cap held, adopted again if it comes back"
        )

    def _back(self, label: str) -> tuple[LimitFiles, Sequence[int]] | None:
        rel = f"{DEVFREQ}/{label}"
        try:
            self._tree.resolve(rel, ActuatorError)  # a link out of the root is never read
        except ActuatorError:
            return None
        if not all(self._tree.exists(f"{rel}/{x}") for x in ATTRIBUTES):
            return None
        dev = read_devfreq(self._tree, label)
        if dev.error:
            return None
        return LimitFiles(dev.name, dev.min_rel, dev.max_rel, dev.cur_rel, 1), dev.table_hz

    def _look(self, a: CapActuator, b: DomainBinding, name: str) -> str:
        """The trace tag when ``name`` was adopted by this domain now, else ""."""
        key = (a.name, name)
        state = self._entries.get(key)
        if state in (_OTHER, _LEFT, _TAKEN) or any(f.label == name for _a, _b, f in self._adopted):
            return ""
        if state is None:
            self._entries[key] = _SEEN if self._named(b, name) else _OTHER
            return ""  # a named one is judged at the next look, its attributes made by then
        rel = f"{DEVFREQ}/{name}"
        try:
            self._tree.resolve(rel, ActuatorError)  # a link out of the root is refused here
        except ActuatorError as e:
            return self._leave(key, str(e))
        lacking = [x for x in ATTRIBUTES if not self._tree.exists(f"{rel}/{x}")]
        if lacking:
            if name not in self._said:
                self._said.add(name)
                self._log(f"{name} appeared without {', '.join(lacking)} yet; adopted once they are there")
            return ""
        dev = read_devfreq(self._tree, name)
        why = dev.error
        if not why and not set(dev.table_hz) & set(a.table_hz):
            table = f"{dev.table_hz[0] / 1e6:g}..{dev.table_hz[-1] / 1e6:g} MHz"
            why = f"{name} ({table}) shares no OPP with domain {a.name}'s caps"
        if why:
            return self._leave(key, why)
        f = LimitFiles(dev.name, dev.min_rel, dev.max_rel, dev.cur_rel, 1)
        # "again" after it went away: the daemon says a line identical to one of the last 30 s once
        event = "appeared again" if name in self._went else "appeared"
        verdict = self._adopt(a, f, dev.table_hz, event, tag="device_online")
        if verdict == "wait":
            return ""
        self._entries[key] = _TAKEN if verdict else _LEFT
        return verdict

    def _named(self, b: DomainBinding, name: str) -> bool:
        """Whether the entry is a device the domain names: by its name, else by its node."""
        if devfreq_named(b.domain, _named_only(name)):
            return True
        node = f"{DEVFREQ}/{name}/device/of_node/name"
        try:
            of_node = self._tree.read_text(node) if self._tree.exists(node) else ""
        except SensorError:
            of_node = ""
        return bool(of_node) and devfreq_named(b.domain, _named_only(name, of_node))

    def _leave(self, key: tuple[str, str], why: str) -> str:
        self._entries[key] = _LEFT
        self._log(f"warning: {key[1]} appeared but is left alone: {why}")
        return ""


def _named_only(name: str, of_node: str = "") -> DevfreqDevice:
    """An entry as far as its names go (nothing else of it read yet)."""
    return DevfreqDevice(name, f"{DEVFREQ}/{name}", of_node, ())


def absent_note(b: DomainBinding) -> str:
    """What ``run`` says at start of a domain whose device or policies are not in the tree."""
    what = "no device named" if b.domain.kind != "cpufreq" else "no policy folder of"
    return (
        f"domain {b.domain.name}: {what} {'/'.join(b.absent)} is here yet; governed once it "
        "appears (looked at once a second; its cap decided meanwhile, written then)"
    )
