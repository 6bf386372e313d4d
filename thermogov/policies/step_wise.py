"""``step_wise``: the kernel's default thermal governor, one cooling state per zone update.

Source: ``drivers/thermal/gov_step_wise.c`` (torvalds/linux; ``.throttle`` version @0021102 for
``kernel = "6.9"``, ``.manage`` version of 6.10+ for ``kernel = "6.10"``), with the core's trip
handling from ``drivers/thermal/thermal_core.c``.  Per zone update, for every passive trip and
every cooling device bound to it (``cur`` = the device's state, ``[lower, upper]`` its limits):

* **6.10+**: ``throttle = T >= threshold``, where the core keeps ``threshold = trip`` until the
  trip is reached and ``trip - hyst`` afterwards.  Not yet initialised: throttle ? ``cur+1`` :
  no target.  Throttle and RAISING: ``cur+1``; throttle and DROPPING: ``cur-1`` but at least
  ``lower+1`` (keep cooling while still above the threshold); not throttle and DROPPING: no
  target if ``cur <= lower``, else straight to ``lower``.  Otherwise keep the previous target.
* **<= 6.9**: ``throttle = T >= trip`` (the hysteresis plays no part).  Throttle and RAISING:
  ``cur+1``; not throttle and DROPPING: no target if ``cur <= lower``, else ``cur-1``; otherwise
  unchanged.  ``tz->passive`` counts instances that went from no target to a target.

Each cooling device then takes the deepest target of its instances, and its state maps to the
OPP that many steps below the top (``cpufreq_cooling.c``).  Trend is the sign of the change since
the previous update, so sensor noise can flip it: that is the kernel's behaviour too.

Parameters (``[policies.step_wise]``):

* ``kernel`` = ``"6.10"`` (default) or ``"6.9"``;
* ``trips`` = ``[{ temp_c = 85.0, hyst_c = 2.0 }]``: the spec's 85 °C as one passive trip; 2 °C is
  the hysteresis NVIDIA's Orin Nano device tree gave its passive trip (tegra234-p3767, 95 000 /
  hysteresis 2000), the only non-zero passive hysteresis on these boards;
* ``polling_ms`` = 1000 and ``passive_polling_ms`` = 1000: the tegra234 device tree's
  ``polling-delay``/``polling-delay-passive`` (the Raspberry Pi DT also polls every 1000 ms);
* ``domains``: the domains bound as cooling devices (default: all, with no state limits).
"""

from __future__ import annotations

from thermogov.interfaces import ConfigError
from thermogov.policies.base import PolicyContext
from thermogov.policies.kernel import (
    DROPPING,
    NO_TARGET,
    RAISING,
    TEMP_INVALID,
    Binding,
    Instance,
    PolledZoneGovernor,
    ZonePoller,
    caps_with_unbound,
    cdev_update,
    read_cdevs,
    read_poller,
    read_trips,
    trend,
)
from thermogov.tomlcheck import Table

KERNELS = ("6.10", "6.9")


def target_610(inst: Instance, tr: str, throttle: bool) -> int:
    """``get_target_state`` of gov_step_wise.c, 6.10 and later."""
    cur = inst.cdev.state
    if not inst.initialized:
        return min(max(cur + 1, inst.lower), inst.upper) if throttle else NO_TARGET
    if throttle:
        if tr == RAISING:
            return min(max(cur + 1, inst.lower), inst.upper)
        if tr == DROPPING:
            return min(max(cur - 1, min(inst.lower + 1, inst.upper)), inst.upper)
    elif tr == DROPPING:
        if cur <= inst.lower:
            return NO_TARGET
        return inst.lower
    return inst.target


def target_69(inst: Instance, tr: str, throttle: bool) -> int:
    """``get_target_state`` of gov_step_wise.c up to 6.9."""
    cur = inst.cdev.state
    if not inst.initialized:
        return min(max(cur + 1, inst.lower), inst.upper) if throttle else NO_TARGET
    if throttle:
        if tr == RAISING:
            return min(max(cur + 1, inst.lower), inst.upper)
    elif tr == DROPPING:
        if cur <= inst.lower:
            return NO_TARGET
        return min(max(cur - 1, inst.lower), inst.upper)
    return inst.target


class StepWise(PolledZoneGovernor):
    name = "step_wise"

    def __init__(self, binding: Binding, poller: ZonePoller, kernel: str, ctx: PolicyContext) -> None:
        if kernel not in KERNELS:
            raise ConfigError(f"policies.step_wise.kernel: {kernel!r} is not one of {', '.join(KERNELS)}")
        self.binding = binding
        self.poller = poller
        self.kernel = kernel
        self.ctx = ctx
        self.last_mc = TEMP_INVALID
        self.state = "s" + binding.states_label()
        self._caps = caps_with_unbound(binding, ctx)

    def update(self, temp_mc: int) -> str:
        """One zone update at ``temp_mc``; returns the trace event (trip crossings)."""
        tr = trend(temp_mc, self.last_mc)
        self.last_mc = temp_mc
        events = []
        for idx, trip in enumerate(self.binding.trips):
            if self.kernel == "6.10":
                crossing = trip.update(temp_mc)
                if crossing == "up":
                    self.poller.passive += 1
                    events.append(f"trip{idx}")
                elif crossing == "down":
                    self.poller.passive -= 1
                    events.append(f"trip{idx}_end")
                throttle = temp_mc >= trip.threshold_mc
            else:
                throttle = temp_mc >= trip.temp_mc
            for inst in self.binding.instances:
                if inst.trip != idx:
                    continue
                old = inst.target
                inst.target = (target_610 if self.kernel == "6.10" else target_69)(inst, tr, throttle)
                if inst.initialized and old == inst.target:
                    continue
                if self.kernel == "6.9":
                    if old == NO_TARGET and inst.target != NO_TARGET:
                        self.poller.passive += 1
                        events.append(f"trip{idx}")
                    elif old != NO_TARGET and inst.target == NO_TARGET:
                        self.poller.passive -= 1
                        events.append(f"trip{idx}_end")
                inst.initialized = True
            if self.kernel == "6.9":  # .throttle runs per trip and updates the devices each time
                self._update_cdevs()
        if self.kernel == "6.10":  # .manage updates every trip first, then the devices once
            self._update_cdevs()
        return " ".join(dict.fromkeys(events))

    def _update_cdevs(self) -> None:
        for cdev in self.binding.cdevs:
            cdev_update(cdev, self.binding.instances)


def bind_all(binding: Binding) -> None:
    """Every cooling device on every trip with THERMAL_NO_LIMIT limits (0 .. max_state)."""
    for idx in range(len(binding.trips)):
        for cdev in binding.cdevs:
            binding.instances.append(Instance(cdev, idx, 0, cdev.max_state))


def make_step_wise(params: Table, ctx: PolicyContext, argument: str) -> StepWise:
    if argument:
        raise ConfigError(f"policy: 'step_wise' takes no argument (got 'step_wise:{argument}')")
    kernel = params.choice("kernel", KERNELS, "6.10")
    trips = read_trips(params, [(85.0, 2.0)])
    poller = read_poller(params, 1000, 1000)
    binding = Binding(trips, read_cdevs(params, ctx))
    params.done()
    bind_all(binding)
    return StepWise(binding, poller, kernel, ctx)
