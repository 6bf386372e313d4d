"""An OPP list that changes under the running daemon: its cap kept within the list, said once.

The governed table is read once, at start (:mod:`thermogov.hw.discovery`), but the list a
member offers can change mid-run: a cpufreq driver unloaded and loaded again (a new policy
with the table the firmware gives now), an nvpmodel or firmware change that rebuilds a devfreq
device's ``freq_table``, a vendor kernel trimming its table when it throttles.  Before (session
32r) nothing looked: the daemon went on writing caps from the start's table, so a cap no longer
listed, or above the list's new top, was written as if nothing had changed, and no line told
the operator that the board now offered something else.

The rule, as a safety engineer would have it:

* **Never a cap above the new top.**  When a member's list changes, each later cap written to
  it is the highest listed entry at or below the cap the governor asks for (the frequency the
  kernel would run at under that cap anyway, cpufreq's ``CPUFREQ_RELATION_H`` and devfreq's
  ``devfreq_recommended_opp`` both pick the highest OPP at or below the max), so the file shows
  the limit in force.  A cap below every listed entry is written as it is (the kernel runs the
  lowest OPP; writing the lowest listed entry would raise the cap).  A cap already written
  above the new top is written again at once, not at the governor's next change.
* **The governor's table is not changed**: its decisions stay in the table it was built with
  (a mid-run rebuild of the policy's table would change what it learnt); only the write is
  bounded.  A list that grew offers nothing above the start's top, which stays the ceiling.
  Session 33r weighed a rebuild as a safety question and kept this rule (docs/hardware.md,
  "Session 33r"): the bound makes every write at or below the ask and the new top and keeps
  the order of the asks, so a step down is never a step up; the cost of rungs that now write
  the same cap is a few control ticks of steps that move nothing (the stepped policy's trip
  rule takes one rung a 100 ms tick), while the kernel already holds the clock at the new top;
  a rebuild would break the actuator's contract (``table_hz`` is immutable: the kernel-style
  policies index it, the power allocator prices each entry), throw away what the policy had
  learnt at the moment the board changed, and has no one "new list" to follow on a domain
  of several policies (Orin's policy0/4/8 each list their own).  The line says how many of
  the governor's caps now write the same top.
* **Said once per change**, naming the file, the old and new range; entries that are no OPP
  (0, negative, repeated: :func:`thermogov.hw.oppfilter.opp_table`) are ignored and named in
  the same line; a list with no positive entry left keeps the last list's rule and says so.
* **The cap written is the cap reported** (session 33s): after a write here the governor is told
  the domain's cap in force (``on_written``), so the trace, the state file and the metrics show
  2.0 GHz where 2.0 GHz is written under a 2.4 GHz ask; the policy's own input stays its record.
* What restore puts back is unchanged: the value of before is the operator's setting, not a
  cap, and the kernel clamps it into the policy's new range.
* **Boost OPPs count as listed** (session 33r).  A cpufreq policy's table is printed in two
  files: its normal entries in ``scaling_available_frequencies`` and its boost ones
  (``CPUFREQ_BOOST_FREQ``, cpufreq-dt's ``turbo-mode`` OPPs) in ``scaling_boost_frequencies``
  (``scaling_available_frequencies_show`` / ``scaling_boost_frequencies_show``,
  drivers/cpufreq/freq_table.c; Documentation/admin-guide/pm/cpufreq.rst, "Policy Interface in
  sysfs" and "The boost File in sysfs").  Judging the first alone bounded a cap at a boost
  frequency still listed (a cool board capped at nothing, its max at the boost OPP of before)
  down to the normal top at any change.  So a member's list is both files' entries: a cap at a
  still-listed boost OPP is kept, a cap is never above the top of both, and a change of the
  boost list alone is a change too.  Whether boost is on is the switch's business: the kernel
  resets the max request when it flips (:mod:`thermogov.hw.boostrule`, adopted by the limit
  watch), so it is not read here.

Looked at every :data:`PERIOD_S` (one read of the list per governed member), not at every limit
watch look: a table changes with a driver or a mode, seldom, and the kernel's own clamp to the
new ``cpuinfo_max_freq`` holds in between.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from thermogov.hw.devices import CapActuator
from thermogov.hw.limits import LimitFiles
from thermogov.hw.oppfilter import opp_table
from thermogov.hw.polled import Every
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError

PERIOD_S = 5.0


def list_rel(f: LimitFiles) -> str:
    """The OPP list beside a member's max: cpufreq's (kHz) or devfreq's (Hz)."""
    folder = f.max_rel.rpartition("/")[0]
    name = "scaling_available_frequencies" if f.scale_hz == 1000 else "available_frequencies"
    return f"{folder}/{name}"


def boost_rel(f: LimitFiles) -> str:
    """A cpufreq policy's boost list beside its max (kHz; module doc)."""
    return f"{f.max_rel.rpartition('/')[0]}/scaling_boost_frequencies"


class OppWatch:
    """Every :data:`PERIOD_S`: each governed member's OPP list read again (module doc)."""

    def __init__(
        self,
        tree: SysfsTree,
        actuators: Sequence[CapActuator],
        clock: Callable[[], float],
        period_s: float = PERIOD_S,
    ) -> None:
        self._tree = tree
        self._actuators = list(actuators)
        self._clock = clock
        self._gate = Every(period_s)
        self._raw: dict[str, tuple[int, ...]] = {}  # per member: the list as last read
        self._table: dict[str, tuple[int, ...]] = {}  # per member: its OPPs as last judged
        for a in self._actuators:
            for f in a.files:
                self._first_look(f)
        self._gate.due(clock())  # the start's read is the first look
        # Told a domain's cap in force after a write here (the governor's ``written_below``):
        # the trace, state file and metrics then show the cap written, not the ask (session 33s).
        self.on_written: Callable[[str, int], None] = lambda _name, _hz: None

    def _read(self, f: LimitFiles) -> tuple[int, ...] | None:
        """The member's list as read: the normal entries, then a cpufreq policy's boost ones."""
        rel = list_rel(f)
        try:
            listed = tuple(self._tree.read_ints(rel, ActuatorError))
        except ActuatorError:
            return None  # no list (a cpuinfo-only policy), or offline now: the limit watch says so
        return listed + self._boost(f)

    def _boost(self, f: LimitFiles) -> tuple[int, ...]:
        """A cpufreq policy's boost entries (module doc), ``()`` for a devfreq device or a
        policy without the file (every stock Jetson and Pi) or that fails to read now."""
        if f.scale_hz != 1000:
            return ()
        rel = boost_rel(f)
        try:
            return tuple(self._tree.read_ints(rel, ActuatorError)) if self._tree.exists(rel) else ()
        except ActuatorError:
            return ()

    def _first_look(self, f: LimitFiles) -> None:
        raw = self._read(f)
        if raw is not None:
            self._raw[f.label] = raw
            self._table[f.label] = opp_table(raw, 1, "", f.unit)[0]

    def look(self) -> list[str]:
        """The lines of a look when one is due (else nothing is read)."""
        now = self._clock()
        if now < self._gate.ready_s or not self._gate.due(now):
            return []
        lines: list[str] = []
        for a in self._actuators:
            for f in a.files:
                if f.label in a.left_to_others or f.label in a.refused:
                    continue
                if f.label not in self._raw:  # joined mid-run: judged when it joined
                    self._first_look(f)
                    continue
                raw = self._read(f)
                if raw is None or raw == self._raw[f.label]:
                    continue
                self._raw[f.label] = raw
                lines.append(self._changed(a, f, raw))
        return lines

    def _changed(self, a: CapActuator, f: LimitFiles, raw: tuple[int, ...]) -> str:
        shown = f"{self._tree.show(list_rel(f))}"
        boost = self._boost(f)
        if boost:
            shown += " (with scaling_boost_frequencies)"
        table, ignored = opp_table(raw, 1, shown, f.unit)
        was = self._table[f.label]
        if not table:
            return (
                f"{shown}: lists no OPP now ({' '.join(map(str, raw))[:60] or 'empty'}); thermogov's "
                f"caps on {f.label} stay within the last list, {_span(was, f.unit)}; check the driver"
            )
        self._table[f.label] = table
        a.listed(f.label, table)
        said = f"{shown}: the OPP list changed mid-run, now {_span(table, f.unit)} (was {_span(was, f.unit)})"
        if ignored:
            said += f"; {ignored.removeprefix(shown + ': ')}"
        over = [hz for hz in a.table_hz if hz // f.scale_hz > table[-1]]
        if over:  # rungs of the governor that now write the same cap (module doc)
            said += (
                f"; the governor's table is kept, its {len(over)} cap(s) above the new top "
                f"({over[0] // f.scale_hz}..{over[-1] // f.scale_hz} {f.unit}) write {table[-1]} {f.unit}"
            )
        w_max = a.written[f.label][1]
        if w_max <= table[-1] and (w_max in table or w_max < table[0]):
            return f"{said}; thermogov's cap on {f.label}, {w_max} {f.unit}, stays as written"
        try:
            a.reapply(f, over_lowered=False)
        except ActuatorError as e:
            return f"{said}; thermogov's cap on {f.label} could not be written within it: {e}"
        if a.written[f.label][1] == w_max:  # reads lower than thermogov's write: another's (reapply)
            return f"{said}; {f.max_rel} reads below thermogov's last cap, left to the limit watch"
        self.on_written(a.name, a.in_force_hz())
        return (
            f"{said}; thermogov's cap on {f.label} was {w_max} {f.unit}, now {a.written[f.label][1]} "
            f"{f.unit} (the highest listed at or below its cap, never above the list's top)"
        )


def _span(table: tuple[int, ...], unit: str) -> str:
    return f"{len(table)} OPPs {table[0]}..{table[-1]} {unit}" if table else "no OPP"
