"""``bang_bang``: the kernel's two-point governor, on at the trip, off below trip - hysteresis.

Source: ``drivers/thermal/gov_bang_bang.c`` (torvalds/linux @06354d7, 6.12+), on the 6.10+ core
trip handling (``thermal_core.c``).  When a trip is crossed on the way up (``T >= trip``) every
instance bound to it gets target 1; when it is crossed on the way down (``T < trip - hyst``)
target 0.  On the first update (``.manage`` with no governor data yet) instances that no
crossing initialised take ``T >= threshold`` as their target.  The governor was written for fans
(states 0/1): bound to a cpufreq or devfreq cooling device, state 1 is *one OPP below the top*,
which is what the kernel would do; ``on_state`` lets a what-if use a deeper state (the kernel
only logs "Unexpected state" for anything but 0 and 1).

Parameters (``[policies.bang_bang]``): ``trips`` (default ``[{ temp_c = 85.0, hyst_c = 2.0 }]``,
as for step_wise), ``on_state`` (default 1; ``"max"`` = the deepest state of each device),
``polling_ms``/``passive_polling_ms`` (default 1000/1000, the tegra234 device tree) and
``domains`` (default all).
"""

from __future__ import annotations

from thermogov.interfaces import ConfigError
from thermogov.policies.base import PolicyContext
from thermogov.policies.kernel import (
    Binding,
    Instance,
    PolledZoneGovernor,
    ZonePoller,
    caps_with_unbound,
    cdev_update,
    read_cdevs,
    read_poller,
    read_trips,
)
from thermogov.tomlcheck import Table


class BangBang(PolledZoneGovernor):
    name = "bang_bang"

    def __init__(
        self, binding: Binding, poller: ZonePoller, on_state: int | None, ctx: PolicyContext
    ) -> None:
        self.binding = binding
        self.poller = poller
        self.on_state = on_state  # None: each device's max_state
        self.ctx = ctx
        self.managed = False  # tz->governor_data
        self.state = "s" + binding.states_label()
        self._caps = caps_with_unbound(binding, ctx)

    def _on(self, inst: Instance) -> int:
        s = inst.cdev.max_state if self.on_state is None else self.on_state
        return min(max(s, inst.lower), inst.upper)

    def _set(self, inst: Instance, on: bool) -> None:
        inst.target = self._on(inst) if on else 0
        inst.initialized = True
        cdev_update(inst.cdev, self.binding.instances)

    def update(self, temp_mc: int) -> str:
        events = []
        for idx, trip in enumerate(self.binding.trips):
            crossing = trip.update(temp_mc)
            if not crossing:
                continue
            self.poller.passive += 1 if crossing == "up" else -1
            events.append(f"trip{idx}" if crossing == "up" else f"trip{idx}_end")
            for inst in self.binding.instances:  # bang_bang_trip_crossed
                if inst.trip == idx:
                    self._set(inst, crossing == "up")
        if not self.managed:  # bang_bang_manage: initialise what no crossing did
            for idx, trip in enumerate(self.binding.trips):
                for inst in self.binding.instances:
                    if inst.trip == idx and not inst.initialized:
                        self._set(inst, temp_mc >= trip.threshold_mc)
            self.managed = True
        return " ".join(events)


def make_bang_bang(params: Table, ctx: PolicyContext, argument: str) -> BangBang:
    if argument:
        raise ConfigError(f"policy: 'bang_bang' takes no argument (got 'bang_bang:{argument}')")
    trips = read_trips(params, [(85.0, 2.0)])
    raw = params.raw("on_state", 1)
    if raw == "max":
        on_state = None
    elif isinstance(raw, int) and not isinstance(raw, bool) and raw >= 1:
        on_state = raw
    else:
        raise ConfigError(f'{params.where}.on_state: expected a state >= 1 or "max", got {raw!r}')
    poller = read_poller(params, 1000, 1000)
    binding = Binding(trips, read_cdevs(params, ctx))
    params.done()
    for idx in range(len(trips)):
        for cdev in binding.cdevs:
            binding.instances.append(Instance(cdev, idx, 0, cdev.max_state))
    return BangBang(binding, poller, on_state, ctx)
