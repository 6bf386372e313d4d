"""How often the board's power is read: every tick only while a ``[power]`` budget is in force.

Who uses ``power_w`` on a real board: the trace row and the ledger's energy (each row takes the
last value read), ``stepped``'s settled model (updated once a second, ``UPDATE_S``) and a
``[power]`` budget (:class:`thermogov.budget.BudgetController`), the only consumer that
integrates power every tick.  And a budget acts only in the power states it is set for:
``PowerConfig.budget_w`` of the state the supplies report (``None``: no budget now, and the
controller then ignores the power).  So one rule decides the read period of every power source,
an input rail (``VDD_IN``, two files or one) as a profile's summed rails (hw/railsum.py):
every tick while a budget applies in the current power state, else once a second
(:data:`~thermogov.hw.polled.SLOW_PERIOD_S`), the rows in between carrying the last value read
(a held value, docs/trace-format.md).  Session 23a applied it to the summed rails, counting any
budget configured; session 24b applies it to the input rail too and counts only a budget that
can apply now: one set only for ``discharging`` on a mains board (no battery: the state is
always ``mains``) costs no per-tick reads.

The state is the one the governor acts on: the supplies' last report, the last known one kept
while a report is unreadable (as :class:`thermogov.governor.Governor` keeps it).  A change of
state that puts a budget in force is seen at the tick the supplies report it, before the power
is read, so the budget's first tick has a fresh reading; a change that lifts it reads at that
tick and then once a period on a new grid.  A reload (SIGHUP) re-reads at its own tick.
"""

from __future__ import annotations

from thermogov.hw.polled import SLOW_PERIOD_S, Every
from thermogov.interfaces import PowerStatus
from thermogov.powerconfig import PowerConfig


def power_read_period_s(power: PowerConfig, status: PowerStatus | None) -> float:
    """The read period under ``power`` in state ``status``: 0 (every tick) while a budget applies."""
    return 0.0 if power.budget_w(status) is not None else SLOW_PERIOD_S


def _per_tick(power: PowerConfig, status: PowerStatus | None) -> bool:
    return power_read_period_s(power, status) == 0.0


class PowerReadGate:
    """Says at each tick whether the power is read or the last value held (module doc).

    Most ticks cost a comparison or two: the budget rule is evaluated again only when the
    supplies hand a new report (their own poll keeps one object between reads) or a reload
    hands a new configuration.
    """

    __slots__ = ("_every", "_per_tick", "_power", "_status")

    def __init__(self, power: PowerConfig) -> None:
        self._every = Every(SLOW_PERIOD_S)
        self._power = power
        self._status: PowerStatus | None = None
        self._per_tick = _per_tick(power, None)

    def follow(self, power: PowerConfig) -> None:
        """A reload's configuration: its rule from this tick on, and this tick reads."""
        self._power = power
        self._per_tick = _per_tick(power, self._status)
        self._every.reset()

    @property
    def period_s(self) -> float:
        """The period in force now (0: every tick), for the run's summary."""
        return power_read_period_s(self._power, self._status)

    def held(self, t_s: float, status: PowerStatus | None) -> bool:
        """True when this tick keeps the last value; ``status`` is this tick's supplies report."""
        if status is not None and status is not self._status:
            self._status = status
            per_tick = _per_tick(self._power, status)
            if per_tick != self._per_tick:
                self._per_tick = per_tick
                self._every.reset()  # leaving per-tick reads: this tick reads, a new grid
        if self._per_tick:
            return False
        every = self._every
        return t_s < every.ready_s or not every.due(t_s)
