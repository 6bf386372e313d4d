"""``power_allocator`` (IPA): a PID loop on the power budget, shared among power actors.

Source: ``drivers/thermal/gov_power_allocator.c`` (torvalds/linux @03c11eb) and
``Documentation/driver-api/thermal/power_allocator.rst``; integer maths in
:mod:`thermogov.policies.ipa_math`, actors in :mod:`thermogov.policies.power_actors`.  Per zone
update at temperature ``T``:

1. Trips: the first passive trip is *switch on*, the last is the *control* trip
   (``control_temp``).  ``T < switch_on``: reset the PID (integral and previous error 0), give
   every actor state 0 (uncapped) and leave passive polling.
2. Otherwise enter passive polling and allocate: each actor reports its requested power, its
   weight (``cdevN_weight``; all 1024 when the weights sum to 0) and its maximum power
   (``state2power`` of its lower limit, the top OPP).  The PID turns ``control_temp - T`` into a
   budget ``clamp(P_sus + (p + i + d) >> 10, 0, sum max)``; ``divvy_up_power`` shares it by weighted
   request, giving what an actor cannot use to the others by headroom (with the 2025 fix);
   ``power2state`` turns each grant into the fastest OPP that fits.
3. Sustainable power: ``sustainable_power_mw`` if configured, otherwise the kernel's estimate,
   the sum of every actor's power at its *lowest* OPP, made once and then kept.  The PID
   constants follow the kernel's defaults from it (``k_po = P_sus·1024 / dT``, ``k_pu = 2·P_sus·1024 /
   dT``, ``k_i = max(k_pu / 10, 1)``, ``k_d = 0``, ``integral_cutoff = 0``), each of which a parameter may
   override as a write to the zone's sysfs attribute would.

Parameters (``[policies.power_allocator]``): ``switch_on_c`` (70, the spec's release
temperature) and ``control_c`` (85, the spec's trip) as the two passive trips;
``sustainable_power_mw``; ``k_po``, ``k_pu``, ``k_i``, ``k_d``, ``integral_cutoff_c``; ``weights``
(e.g. ``{ cpu = 1024, gpu = 1024 }``, default none); ``divvy_fix`` (true; false = the 6.8-2025
numerator); ``polling_ms`` = 1000 and ``passive_polling_ms`` = 100, the ``polling-delay`` /
``polling-delay-passive`` of power_allocator.rst's device-tree example (IPA wants a short
periodic tick); ``domains`` (default all).
"""

from __future__ import annotations

from thermogov.interfaces import ConfigError
from thermogov.policies.base import Decision, PolicyContext, PolicyInput
from thermogov.policies.ipa_math import (
    Actor,
    PidConstants,
    PidState,
    divvy_up_power,
    estimate_pid_constants,
    pid_controller,
)
from thermogov.policies.kernel import (
    Binding,
    Instance,
    Trip,
    ZonePoller,
    caps_with_unbound,
    cdev_update,
    millicelsius,
    read_cdevs,
    read_poller,
)
from thermogov.policies.power_actors import ActorInputs, PowerActor, make_actor
from thermogov.tomlcheck import Table


class PowerAllocator:
    name = "power_allocator"

    def __init__(
        self,
        binding: Binding,
        poller: ZonePoller,
        ctx: PolicyContext,
        *,
        sustainable_power_mw: int | None,
        overrides: dict[str, int],
        divvy_fix: bool,
    ) -> None:
        self.binding = binding
        self.poller = poller
        self.ctx = ctx
        self.switch_on: Trip | None = binding.trips[0] if len(binding.trips) > 1 else None
        self.control = binding.trips[-1]
        self.actors: list[PowerActor] = [make_actor(c, ctx.board) for c in binding.cdevs]
        self.instances = [i for i in binding.instances if i.trip == len(binding.trips) - 1]
        self.total_weight = sum(i.weight for i in self.instances)
        self.tz_sustainable = sustainable_power_mw or 0  # tzp->sustainable_power
        self.params_sustainable = sustainable_power_mw or 0  # params->sustainable_power
        self.k = PidConstants()
        self.overrides = overrides
        self.divvy_fix = divvy_fix
        self.pid = PidState()
        on = self.switch_on.temp_mc if self.switch_on else None
        estimate_pid_constants(self.k, self.tz_sustainable, on, self.control.temp_mc)  # at bind
        self._apply_overrides()
        self.state = "OFF"
        self.budget_mw: int | None = None
        self._caps = caps_with_unbound(binding, ctx)

    def _apply_overrides(self) -> None:
        for key, value in self.overrides.items():
            setattr(self.k, key, value)

    # -- the zone update ------------------------------------------------------------------------
    def decide(self, inp: PolicyInput) -> Decision:
        if not self.poller.due(inp.t_s):
            return Decision(dict(self._caps), self.state)
        event = self.update(millicelsius(inp.fused_c), self._inputs(inp))
        self.poller.schedule(inp.t_s)
        self._caps = caps_with_unbound(self.binding, self.ctx)
        return Decision(dict(self._caps), self.state, event)

    def _inputs(self, inp: PolicyInput) -> dict[str, ActorInputs]:
        freqs = {d: (f if f is not None else inp.caps_hz[d]) for d, f in inp.freqs_hz.items()}
        out = {}
        for a in self.actors:
            node = a.domain.node
            die = [
                v
                for s in self.ctx.board.sensors
                if s.node == node and (v := inp.readings_c.get(s.name)) is not None
            ]
            out[a.domain.name] = ActorInputs(freqs, die[0] if die else inp.fused_c)
        return out

    def update(self, temp_mc: int, inputs: dict[str, ActorInputs]) -> str:
        """``power_allocator_throttle`` for the control trip; returns the trace event."""
        was = self.state
        if self.switch_on is not None and temp_mc < self.switch_on.temp_mc:
            self.poller.passive = 0
            self.pid = PidState()
            for inst in self.instances:  # allow_maximum_power
                inst.target = 0
                cdev_update(inst.cdev, self.binding.instances)
            self.state = "OFF"
            self.budget_mw = None
            return "switch_off" if was != "OFF" else ""
        self.poller.passive = 1
        self._allocate(temp_mc, inputs)
        self.state = "ON"
        return "switch_on" if was == "OFF" else ""

    def _sustainable_power(self, inputs: dict[str, ActorInputs]) -> int:
        """``get_sustainable_power``: estimate once if unset, re-deriving the PID constants."""
        if self.tz_sustainable:
            sustainable = self.tz_sustainable
        else:
            sustainable = sum(
                a.state2power(inst.upper, inputs[a.domain.name])
                for a, inst in zip(self.actors, self.instances, strict=True)
            )
        if sustainable != self.params_sustainable:
            on = self.switch_on.temp_mc if self.switch_on else None
            estimate_pid_constants(self.k, sustainable, on, self.control.temp_mc)
            self._apply_overrides()
            self.tz_sustainable = sustainable
            self.params_sustainable = sustainable
        return sustainable

    def _allocate(self, temp_mc: int, inputs: dict[str, ActorInputs]) -> None:
        """``allocate_power``."""
        actors = []
        for a, inst in zip(self.actors, self.instances, strict=True):
            ai = inputs[a.domain.name]
            req = a.requested_power(ai)
            weight = 1 << 10 if not self.total_weight else inst.weight
            actors.append(Actor(req, a.state2power(inst.lower, ai), weight))
        max_allocatable = sum(x.max_power for x in actors)
        sustainable = self._sustainable_power(inputs)
        step = pid_controller(
            self.pid,
            self.k,
            temp_mc,
            self.control.temp_mc,
            sustainable,
            max_allocatable,
            self.poller.passive_ms,
        )
        self.budget_mw = step.power_range
        divvy_up_power(actors, step.power_range, fixed=self.divvy_fix)
        for a, inst, x in zip(self.actors, self.instances, actors, strict=True):
            state = a.power2state(x.granted_power, inputs[a.domain.name])
            inst.target = min(max(state, inst.lower), inst.upper)  # power_actor_set_power
            cdev_update(inst.cdev, self.binding.instances)


def make_power_allocator(params: Table, ctx: PolicyContext, argument: str) -> PowerAllocator:
    if argument:
        raise ConfigError(f"policy: 'power_allocator' takes no argument (got 'power_allocator:{argument}')")
    switch_on = params.number("switch_on_c", 70.0, minimum=-40.0, maximum=150.0)
    control = params.number("control_c", 85.0, minimum=-40.0, maximum=150.0)
    if switch_on > control:
        raise ConfigError(f"{params.where}.switch_on_c: {switch_on:g} must not exceed control_c {control:g}")
    sustainable = (
        params.integer("sustainable_power_mw", minimum=1, maximum=1_000_000)
        if params.has("sustainable_power_mw")
        else None
    )
    overrides = {}
    for key in ("k_po", "k_pu", "k_i", "k_d"):
        if params.has(key):
            overrides[key] = params.integer(key, minimum=-(2**31), maximum=2**31 - 1)
    if params.has("integral_cutoff_c"):
        overrides["integral_cutoff"] = millicelsius(
            params.number("integral_cutoff_c", minimum=-150.0, maximum=150.0)
        )
    divvy_fix = params.boolean("divvy_fix", True)
    poller = read_poller(params, 1000, 100)
    cdevs = read_cdevs(params, ctx)
    weights_t = params.table("weights", {})
    weights = {c.domain: weights_t.integer(c.domain, 0, minimum=0, maximum=1 << 20) for c in cdevs}
    weights_t.done()
    params.done()
    trips = [Trip(millicelsius(switch_on), 0), Trip(millicelsius(control), 0)]
    binding = Binding(trips, cdevs)
    for cdev in cdevs:  # the actors are bound to the control trip, with no limits
        binding.instances.append(Instance(cdev, 1, 0, cdev.max_state, weight=weights[cdev.domain]))
    return PowerAllocator(
        binding,
        poller,
        ctx,
        sustainable_power_mw=sustainable,
        overrides=overrides,
        divvy_fix=divvy_fix,
    )
