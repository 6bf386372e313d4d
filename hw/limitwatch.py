"""Limits that change under the daemon: a cluster coming back online, another agent's write.

The governor writes a cap only when it decides a new one, so without a look at the files a
limit that changed under it would stay changed for the rest of the run.  Once a second
(:class:`~thermogov.hw.polled.Every`) every owned window is read and compared with what the
daemon last wrote and read back.  Two causes, told apart by what was seen in between:

* **a reset by the kernel**: the window could not be read (a cpufreq policy whose CPUs all went
  offline answers EBUSY, ``show()`` in drivers/cpufreq/cpufreq.c) and reads differently once
  it is back.  Mainline keeps the limit requests of a policy that only went inactive
  (``cpufreq_online`` adds them only for a new policy), but a policy re-created by a driver
  reload, or a vendor kernel, starts from ``cpuinfo_min_freq``..``cpuinfo_max_freq``.  The cap
  is re-applied at once; what restore puts back does not change (the kernel chose nothing).
* **another writer** (nvpmodel, jetson_clocks, thermald, a user), the window read fine and
  differs.  The rule, the one TLP, thermald and nvpmodel follow towards each other (each writes
  when *it* decides, none watches the others' files; see docs/hardware.md, "Other agents"):
  the latest choice of another writer is respected, never fought, and always said.

  - A limit raised above what thermogov wrote can only be another writer (a kernel clamp
    lifting goes back to thermogov's own request, no higher), or the kernel's boost switch,
    which re-issues the max request at the policy's new top (hw/boostrule.py): adopted alike,
    but the switch is not counted as a rival's raise (a raise to exactly the top of the state
    the switch reads, whether a look saw it switch or not: two switches between two looks,
    session 26r).  Its value becomes what restore
    puts back (and the journal says so at once: a ``kill -9`` restore keeps it too), and this
    file's ceiling.  While the board needs a cap, the cap is written again, at most
    :data:`MAX_REAPPLY` times per file and run: a writer that keeps raising it is then left the
    file (not written again, not restored at exit), with one line naming the file.
  - A limit lowered below what thermogov wrote (a lower power mode, or the kernel's own thermal
    clamp, which 5.4+ kernels show in the same file) is not written over by this watch while it
    stands.  Where nvpmodel recorded a new mode since the start (:mod:`thermogov.hw.powermode`)
    the lowered window is that mode's and is adopted at once: restore puts it back and the
    governor's later caps stay under it.  Without that record a later, higher cap the governor
    decides is still written (from the file alone a clamp that lifted cannot be told from a
    mode that stands, docs/hardware.md):
    the lower limit is the safer one.  Only after this watch has seen it: a cap change that
    finds a window lowered since thermogov's last look leaves it for this check
    (:meth:`CapActuator.reapply`), so the lowered value is read here before anything is
    written over it.  At exit the value of before is written back as for any
    owned file (over a clamp that is harmless; over a mode change it undoes it), and the line
    says which file was found lowered, so no other writer's choice is overwritten silently.

Tags in the trace's ``event`` column: ``limits_reset:<file>``, ``limits_changed:<file>``,
``limits_left:<file>``, ``limits_refused:<file>`` (a limit no longer the file owned: the failsafe, :meth:`LimitWatch._refused`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from thermogov.hw.confine import ConfinementError
from thermogov.hw.devices import CapActuator
from thermogov.hw.limits import LimitFiles
from thermogov.hw.polled import Every
from thermogov.interfaces import ActuatorError

MAX_REAPPLY = 3  # re-writes of one file against another writer before leaving it to that writer
# A raise the kernel's boost rule explains is capped again every time, however often it comes
# (hw/boostrule.py); an agent that writes the top every second would then add a line a second to
# the journal for ever.  Each is said up to this count, then only the 10th, 100th, 1000th ...
SAY_EACH_RESET_UP_TO = 5


def worth_saying(n: int) -> bool:
    """Whether the ``n``-th repeat of one kind of line is said (:data:`SAY_EACH_RESET_UP_TO`)."""
    return n <= SAY_EACH_RESET_UP_TO or n == 10 ** (len(str(n)) - 1)


def _quieter(n: int) -> str:
    """What the last line said in full adds, so a reader knows the silence that follows is chosen."""
    return "; further ones are said at the 10th, 100th, 1000th ..." if n == SAY_EACH_RESET_UP_TO else ""


class LimitWatch:
    """Once a second: re-apply caps the kernel reset, apply the other-writer rule (module doc)."""

    def __init__(
        self,
        actuators: list[CapActuator],
        log: Callable[[str], None],
        on_restore_values: Callable[[], None],
        period_s: float = 1.0,
        mode_change: Callable[[], str] = lambda: "",
        on_mode_adopted: Callable[[], None] = lambda: None,
        late_clusters: Callable[[], list[str]] = list,
        mode_sets: Callable[[], Mapping[str, int | str]] = dict,
        departures: Callable[[], list[str]] = list,
        recall_at_exit: Callable[[], list[str]] = list,
        boost_reset: Callable[[str, int], str] = lambda _rel, _value: "",
        boost_look: Callable[[], list[str]] = list,
    ) -> None:
        self._actuators = list(actuators)
        self._log = log
        self._on_restore_values = on_restore_values  # rewrite the journal
        # What an operator's power-mode change looks like when nvpmodel recorded one since the
        # start ("" when not, or not readable): asked only while a window stands lowered.
        self._mode_change = mode_change
        # Called just before the windows of a mode change are adopted and the journal rewritten:
        # the journal then records the new mode with them (hw/journal.py, ``power_mode``).
        self._on_mode_adopted = on_mode_adopted
        # Clusters offline at start that may come online (hw/lateclusters.py): looked at on this
        # cadence, after the owned files, so one that joins is first checked a period later.
        self._late_clusters = late_clusters
        # Members whose files the kernel removed or made again (hw/departures.py): looked at
        # first, so the files read below are only those still owned.
        self._departures = departures
        # At exit, members that left and are back reading thermogov's own cap join without one,
        # so the restore puts back the window of before (hw/lateclusters.py, recall_at_exit).
        self._recall_at_exit = recall_at_exit
        # The max attributes the mode of the change last seen sets, by its own definition
        # (hw/nvpmodelconf.py), and to what; empty when the definition cannot say.
        self._mode_sets = mode_sets
        # Whether a raised max is the kernel's reset of the max request on a boost switch
        # (hw/boostrule.py): adopted and capped again like a raise, never counted as a rival's.
        self._boost_reset = boost_reset
        # Every look: a switch that raised nothing is seen too (BoostStates.look, session 25r).
        self._boost_look = boost_look
        # A member whose owned limit is refused as no longer the file owned (hw/confine.py): the
        # governor's failsafe at once (thermogov/governor.py ``refused``); set once it exists.
        self.on_refused: Callable[[str, str], list[str]] = lambda _name, _why: []
        self._left_to_mode = False  # a mode change was seen and said during the run
        self._gate = Every(period_s)
        self._offline: set[str] = set()
        self._reapplied: Counter[str] = Counter()
        self._boost_resets: Counter[str] = Counter()  # not counted as a rival's raises
        self._boost_pairs: Counter[str] = Counter()  # raises to the top, switch as last seen
        self.lowered: dict[str, tuple[str, int, int]] = {}  # label -> (file, value, thermogov's)
        self._exiting = False  # the last look before restore: adopt and note, never write
        self._raised_now = False  # a window another writer raised was adopted in this check
        self._raise_said = ""  # the mode change last said by _raises_of_a_mode

    @property
    def ready_s(self) -> float:
        """Before this time a check does nothing (the loop compares instead of calling)."""
        return self._gate.ready_s

    def check(self, t_s: float) -> list[str]:
        """The event tags of a check, when one is due at ``t_s`` (else nothing is read)."""
        if t_s < self._gate.ready_s or not self._gate.due(t_s):
            return []
        tags: list[str] = self._gone()
        self._raised_now = False
        for a in self._actuators:
            for f in a.files:
                if f.label not in a.left_to_others and f.label not in a.refused:
                    tags.extend(self._check_file(a, f))
        tags.extend(self._late_clusters())
        for line in self._boost_look():  # after the files: a switch that raised one is seen there
            self._log(line)
        if self.lowered:
            tags.extend(self._ceiling_if_mode_changed())
        elif self._raised_now:
            change = self._mode_change()
            if change:
                self._raises_of_a_mode(change)
        tags = list(dict.fromkeys(tags))  # a file found lowered and adopted in one check: one tag
        return tags

    def _gone(self) -> list[str]:
        """The departures' tags; what this watch knew of each member gone is forgotten (a new
        one at its place has no history: not offline, lowered or raised by anyone yet)."""
        tags = self._departures()
        for tag in tags:
            label = tag.partition(":")[2]
            self._offline.discard(label)
            self.lowered.pop(label, None)
            self._reapplied.pop(label, None)
        return tags

    def _check_file(self, a: CapActuator, f: LimitFiles) -> list[str]:
        label = f.label
        try:
            now = (a.io.read_int(f.min_rel), a.io.read_int(f.max_rel))
        except ConfinementError as e:
            return self._refused(a, f, e)
        except ActuatorError as e:
            if label not in self._offline:  # an inactive policy, an unbound device
                self._log(f"{label}: limits unreadable ({e}); its cap is written again when it is back")
                self._offline.add(label)
            return []
        was_offline = label in self._offline
        self._offline.discard(label)
        if now == a.seen[label]:
            return []
        if was_offline and self._exiting:
            return []  # the restore about to run writes the originals anyway
        if was_offline:
            return self._reapply(a, f, f"limits_reset:{label}", f"{label} came back with {_window(now)}")
        w_min, w_max = a.written[label]
        n_min, n_max = now
        if n_max > w_max or n_min > w_min:
            return self._raised(a, f, now)
        a.seen[label] = now
        # The domain's cap in force as read here, no extra read: the governor shows it for a
        # domain whose write read back below its ask, without writing that ask again (33g).
        a.in_force_hz()
        if n_max >= w_max:  # back to thermogov's own limit (a clamp lifted)
            self.lowered.pop(label, None)
            return []
        if label not in self.lowered:
            self._log(
                f"{f.max_rel} reads {n_max} {f.unit}, below thermogov's {w_max}: another writer "
                "(nvpmodel?) or a kernel thermal clamp; not written over while it stands"
            )
        self.lowered[label] = (f.max_rel, n_max, w_max)
        return [f"limits_changed:{label}"]

    def _refused(self, a: CapActuator, f: LimitFiles, e: ConfinementError) -> list[str]:
        """A limit that is no longer the file owned, and not in the kernel's way (the departures
        looked first): a link or another file planted in the tree.  Before, it read as "limits
        unreadable ... written again when it is back" and nothing followed until the governor
        next decided a cap.  Now it is the confinement refusal's rule whoever meets it: the
        member is never read or written again, its domain holds its lowest cap on every member
        it still owns, every other domain too (the governor's failsafe, for the rest of the
        run), said once; the exit's restore skips the refused file and names it."""
        a.refuse(f.label, e)
        self._offline.discard(f.label)
        self.lowered.pop(f.label, None)
        if self._exiting:
            return []  # the restore comes next, and names the refused file
        tags = [f"limits_refused:{f.label}", *self.on_refused(a.name, str(e))]
        self._log(  # after the writes: a reader of this line finds the failsafe in force
            f"{f.label}: {e}; domain {a.name} held at its lowest cap on what thermogov still owns, "
            "every other domain too (failsafe for the rest of the run); restore at exit skips the "
            "refused file"
        )
        return tags

    def _raised(self, a: CapActuator, f: LimitFiles, now: tuple[int, int]) -> list[str]:
        """Another writer raised a limit: its window is what restore puts back from now on."""
        label = f.label
        w_min, w_max = a.written[label]
        o_min, o_max = a.original(label)
        n_min, n_max = now
        new = (n_min if n_min > w_min else o_min, n_max if n_max > w_max else o_max)
        a.adopt(label, *new)
        self._raised_now = True
        self.lowered.pop(label, None)  # the latest choice: a lower value seen before is not it
        a.seen[label] = now
        self._on_restore_values()
        said = (
            f"another writer set {f.label} to {_window(now)} {f.unit}; restore now puts back "
            f"{_window(new)} (was {_window((o_min, o_max))})"
        )
        if n_max <= w_max or self._exiting:  # only the min went up, or restore comes next
            self._log(said)
            return [f"limits_changed:{label}"]
        how = self._boost_reset(f.max_rel, n_max)
        if how == "switched":
            self._boost_resets[label] += 1
            said = (
                f"boost switched ({self._boost_resets[label]} this run): the kernel reset {f.label} to "
                f"{_window(now)} {f.unit}; restore now puts back {_window(new)}"
            )
            n = self._boost_resets[label]
            return self._reapply(
                a, f, f"limits_reset:{label}", f"{said}; cap written again{_quieter(n)}", say=worth_saying(n)
            )
        if how:  # the switch reads as last seen: switched and back between two looks, or a writer
            # of exactly the top (hw/boostrule.py, switched_to); counted in the line as the
            # switches are (at most one a look), the repeats past a few said at powers of ten
            self._boost_pairs[label] += 1
            said = (
                f"the kernel reset {f.label} to {_window(now)} {f.unit}, its top with boost as last "
                f"seen ({self._boost_pairs[label]} this run): boost switched and back since the last "
                f"look, or a writer of exactly the top; restore now puts back {_window(new)}"
            )
            n = self._boost_pairs[label]
            return self._reapply(
                a, f, f"limits_reset:{label}", f"{said}; cap written again{_quieter(n)}", say=worth_saying(n)
            )
        self._reapplied[label] += 1
        if self._reapplied[label] > MAX_REAPPLY:
            a.left_to_others.add(label)
            self._log(
                f"{said}; it raised the cap {self._reapplied[label]} times, so {f.max_rel} is left to it "
                "(not written again, not restored at exit); stop that agent to let thermogov govern it"
            )
            return [f"limits_left:{label}"]
        n = self._reapplied[label]
        return self._reapply(
            a, f, f"limits_changed:{label}", f"{said}; cap written again ({n} of {MAX_REAPPLY})"
        )

    def _ceiling_if_mode_changed(self) -> list[str]:
        """A window lowered while nvpmodel recorded a new mode is that mode's: adopted at once.

        Adopted, it is what restore puts back and this file's ceiling, so a higher cap the
        governor decides later (the board cooled) stays under it instead of undoing the
        operator's mode mid-run.  Without a recorded change a lowered window may be a kernel
        clamp that lifts again, so it is only noted, as before (module doc).
        """
        change = self._mode_change()
        if not change:
            return []
        labels = list(self.lowered)
        self._stamp_mode()
        self._log(f"{self._leave_to_mode(change)}; thermogov caps below them from now on")
        self.lowered.clear()
        self._left_to_mode = True
        return [f"limits_changed:{label}" for label in labels]

    def _raises_of_a_mode(self, change: str) -> None:
        """A check that adopted raised windows (each already journaled), none lowered, while
        nvpmodel records a new mode: a mode above thermogov's cap reads as a raise.  Every window
        the check found changed is adopted now, so the journal is written once more, saying the
        windows belong to the new mode; a restore after ``kill -9`` then puts them back instead
        of leaving thermogov's cap (hw/journal.py, ``into_new_mode``)."""
        self._stamp_mode()
        self._adopt_unseen()
        self._on_restore_values()
        if change != self._raise_said:  # once per change: a storm of raises is said by each raise
            self._raise_said = change
            self._log(f"{change}: the limits it raised are what restore puts back")

    def _stamp_mode(self) -> None:
        """The journal written next says its windows are the new mode's, unless a governed window
        cannot be read now (a cluster offline): its journaled value is still the old mode's, and
        a journal stamped with the new mode would have a restore write it back over the new
        mode's value once the cluster is back (bench/board_shapes.py, ``modechange``, failure
        path).  Left with the old mode, a restore sees the change and keeps each window the mode
        wrote (hw/journal.py, ``into_new_mode``)."""
        if not self._offline:
            self._on_mode_adopted()

    def _reapply(self, a: CapActuator, f: LimitFiles, tag: str, said: str, say: bool = True) -> list[str]:
        try:
            a.reapply(f)
        except ActuatorError as e:  # a failure is always said
            self._log(f"{said}; the cap could not be written again: {e}")
            return [tag, f"write_failed:{a.name}"]
        if say:
            self._log(said)
        return [tag]

    def exit_notes(self, mode_change: str = "") -> list[str]:
        """A last look before restore (a change made since the last check is not missed), then
        what restore is about to write over: the files found lowered by someone else.

        ``mode_change`` names an operator's power-mode change seen during the run
        (:mod:`thermogov.hw.powermode`): the lowered windows are then that mode's, so restore
        leaves them as they are (they become what it puts back) and one line says so."""
        self._exiting = True
        self._gone()  # gone since the last check: the restore must not write to its place
        self._recall_at_exit()  # ... unless it is back with thermogov's own cap (departures.recalled)
        for a in self._actuators:
            for f in a.files:
                if f.label not in a.left_to_others and f.label not in a.refused:
                    self._check_file(a, f)
        if mode_change:
            if self._left_to_mode and not self.lowered:
                if self._adopt_unseen():  # a window the mode set since it was seen: nothing to say
                    self._on_restore_values()
                return []  # said when it was seen, and adopted then
            if self.lowered:
                self._stamp_mode()
            return [self._leave_to_mode(mode_change)]
        return [
            f"{rel} was lowered to {value} during the run by another writer or a kernel clamp; "
            "restoring the value of before over it"
            for rel, value, _ours in self.lowered.values()
        ]

    def _leave_to_mode(self, mode_change: str) -> str:
        """Adopt each lowered window as the new mode set it: its max, and its min where the
        mode wrote one (a min still at thermogov's own value goes back to the one of before),
        never a min above that max (:meth:`CapActuator.adopt`).

        The max is the value the other writer was seen to set (``lowered``), not the file as
        it reads now: the governor may have written a cap of its own over the mode's since
        (lower on a hot board, higher once it cooled), and adopting that would leave
        thermogov's own cap in force after it exits, or pass its cap off as the mode's.
        """
        unseen = self._adopt_unseen()
        if unseen:
            self._stamp_mode()  # the journal written below says these are the new mode's
        left = [f"{label} {_window(window)} {unit}" for label, window, unit in unseen]
        for a in self._actuators:
            for f in a.files:
                if f.label not in self.lowered:
                    continue
                _rel, mode_max, _ours = self.lowered[f.label]
                n_min, _n_max = a.seen[f.label]
                w_min, _w_max = a.written[f.label]
                o_min, _o_max = a.original(f.label)
                lo = n_min if n_min != w_min else o_min
                a.adopt(f.label, lo, mode_max)
                left.append(f"{f.label} {_window(a.original(f.label))} {f.unit}")
        if left:
            self._on_restore_values()  # a restore that fails leaves a journal of the mode's values
        kept = ", ".join(left) if left else "no window it lowered"
        return (
            f"{mode_change} during the run: restore leaves {kept} as the new mode set "
            "(the operator's) and puts back the rest"
        )

    def _adopt_unseen(self) -> list[tuple[str, tuple[int, int], str]]:
        """Adopt each window the new mode's own definition sets to the very value it reads:
        a mode that wrote thermogov's cap leaves the file unchanged, so the check never sees it
        lowered, and restore would lift it to the value of before (``mode-undone-unseen`` in
        bench/board_shapes.py).  A window found lowered is :meth:`_leave_to_mode`'s; one that
        reads another value than the mode's is left to the rules above.  Returns (label, the
        window restore now puts back, unit) of each adopted."""
        sets = self._mode_sets()
        out = []
        for a in self._actuators:
            for f in a.files:
                label = f.label
                value = sets.get(f.max_rel)
                if label in self.lowered or label in self._offline or label in a.left_to_others:
                    continue
                n_min, n_max = a.seen[label]
                if type(value) is not int or value != n_max or a.original(label)[1] == n_max:
                    continue
                w_min, _w_max = a.written[label]
                o_min, _o_max = a.original(label)
                a.adopt(label, n_min if n_min != w_min else o_min, n_max)
                out.append((label, a.original(label), f.unit))
        return out


def _window(w: tuple[int, int]) -> str:
    return f"{w[0]}..{w[1]}"
