"""One governor tick: fuse the latest readings, ask the policy, apply caps, emit a trace record.

The governor never sleeps and never reads a clock of its own: a runner (SimPy in ``sim``, a
monotonic deadline loop in ``hw``) calls :meth:`Governor.sample` when a sensor is due and
:meth:`Governor.tick` at every control period, passing the time.  Safety overrides live here,
not in policies, so no policy can forget them:

* temperature unknown (no fresh sensor) for longer than ``unknown_grace_s`` -> lowest caps;
* any fresh sensor at or above its own hard limit -> lowest caps, whatever the fused value;
* a sensor frozen for ``stuck_after_s`` while the clocks change counts as failed
  (:mod:`thermogov.sensorwatch`); sensors leaving or rejoining fusion are trace events.

The latest :class:`~thermogov.interfaces.PowerStatus` the telemetry reports is kept in
:attr:`Governor.power_status` (a change of state is a ``power:<state>`` event), and cap
limiters (:class:`CapLimiter`: power budgets, Li-ion limits) may only lower the policy's caps,
so the power-aware parts can never raise a clock the thermal policy or a safety rule lowered.
A :class:`~thermogov.loadgov.LoadGovernor` then picks the inference mode and, when even the
lowest caps cannot hold the trip, steps the load down (it too only ever lowers the caps).

Caps are written only when they change (writes cost syscalls on a board and every write is a
chance for EBUSY); the effective clock is read back each tick because firmware and kernel
trips can lower it behind our back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, Protocol

from thermogov.fan import FanController
from thermogov.fusion import Fusion, SensorSpec
from thermogov.interfaces import (
    ActuatorError,
    FrequencyActuator,
    PowerStatus,
    Reading,
    SensorError,
    SensorSource,
)
from thermogov.loadgov import LoadGovernor
from thermogov.policies.base import Policy, PolicyInput
from thermogov.sensorwatch import StuckWatch, membership_events

FAILSAFE = "FAILSAFE"
_new_record = tuple.__new__
_new_input = tuple.__new__  # PolicyInput's fields in order, without its keyword constructor


class TickRecord(NamedTuple):
    """The inputs of one tick and the decision taken on them (state and caps after it)."""

    t_s: float
    fused_c: float | None
    readings_c: tuple[float | None, ...]  # per configured sensor, latest good value
    sensors_used: str
    policy_state: str
    caps_hz: tuple[int, ...]  # per domain, in force after the decision
    freqs_hz: tuple[int | None, ...]  # per domain, effective clock observed
    power_w: float | None
    inferences_total: int | None
    event: str
    mode: str = ""  # inference mode in force after the decision (thermogov.loadgov)
    load_level: int | None = None  # rung of the lever below the lowest clock; 0 = full load
    fan_level: int | None = None  # the governed fan's level after the decision (None: no fan owned)


class SampleRecord(NamedTuple):
    t_s: float
    sensor: str
    value_c: float | None
    ok: bool


class Telemetry:
    """Board-level measurements that are not temperatures.  The default measures nothing."""

    def power_w(self) -> float | None:
        return None

    def inferences_total(self) -> int | None:
        return None

    def power_status(self) -> PowerStatus | None:
        """Where the power comes from now; ``None``: this world cannot tell."""
        return None


class CapLimiter(Protocol):
    """Lowers caps for a reason that is not temperature (a power budget, a battery limit).

    ``limit`` gets the caps the policy wants and returns caps no higher (per domain) plus
    trace event tags.  It is called once per tick with a known temperature.  It may return the
    mapping it was given (the governor never mutates either).
    """

    def limit(
        self,
        now_s: float,
        caps_hz: Mapping[str, int],
        power_w: float | None,
        status: PowerStatus | None,
    ) -> tuple[Mapping[str, int], list[str]]: ...


class Governor:
    def __init__(
        self,
        specs: Sequence[SensorSpec],
        sensors: Mapping[str, SensorSource],
        actuators: Sequence[FrequencyActuator],
        policy: Policy,
        *,
        telemetry: Telemetry | None = None,
        unknown_grace_s: float = 0.0,
        max_write_failures: int = 3,
        stuck_after_s: float | None = None,
        on_sample: Callable[[SampleRecord], None] | None = None,
        on_log: Callable[[str], None] | None = None,
        limiters: Sequence[CapLimiter] = (),
        load: LoadGovernor | None = None,
        fan: FanController | None = None,
    ) -> None:
        self.specs = tuple(specs)
        missing = [s.name for s in self.specs if s.name not in sensors]
        if missing:
            raise ValueError(f"no sensor source for {missing}")
        self.sensors = dict(sensors)
        self.actuators = tuple(actuators)
        self.policy = policy
        self.telemetry = telemetry or Telemetry()
        self.unknown_grace_s = unknown_grace_s
        self.max_write_failures = max_write_failures
        self.fusion = Fusion(self.specs)
        self._watch = StuckWatch([s.name for s in self.specs], stuck_after_s)
        self.fusion.excluded = self._watch.stuck
        self._on_sample = on_sample
        self._log = on_log or (lambda msg: None)
        self._sensor_names = tuple(s.name for s in self.specs)
        self._used: tuple[str, ...] = self._sensor_names  # fusion order; all expected at start
        self._domain_names = tuple(a.name for a in self.actuators)
        self._caps = {a.name: a.cap_hz for a in self.actuators}
        self._wanted: Mapping[str, int] = dict(self._caps)
        # Per domain, the cap last handed to its actuator (its start cap before any write): a new
        # decision is compared with this ask, never with the cap read back (``_caps``).  A read-back
        # below the ask (an OPP list cut, any freq-QoS clamp: scaling_max_freq shows policy->max)
        # made the governor write the same ask every tick, each write counted as clock activity
        # by the stuck-clock watch (session 33g).
        self._asked: dict[str, int] = dict(self._caps)
        self._below: tuple[FrequencyActuator, ...] = ()  # domains whose read-back is below the ask
        self._write_failures = dict.fromkeys(self._caps, 0)
        self._logged_failure: set[str] = set()
        self._failure_why: dict[str, str] = {}  # each failing actuator's latest error, for the end
        self._unknown_since: float | None = None
        self._failing = False  # some actuator has failed writes outstanding
        self._state = getattr(policy, "state", "")
        self.cap_changes = 0
        self.limiters = list(limiters)
        self.power_status: PowerStatus | None = None  # latest report of the telemetry
        self.fan = fan  # a governed fan: raised before any clock is lowered (thermogov.fan)
        self.load = load  # inference mode and the lever below the lowest clock
        self._lowest = self.lowest_caps()  # tables are immutable
        self._used_label = "+".join(self._used)
        self._caps_tuple = tuple(self._caps.values())  # the caps in force, as the trace shows them
        # Per domain, a cap the backend wrote outside :meth:`_apply` (a board's OPP watch bounding
        # the ask to a list that changed mid-run, hw/oppwatch.py): reported as the one in force
        # until this domain's next write, while ``_caps`` stays what the governor decides against.
        self._written_below: dict[str, int] = {}
        # What the policy is handed, kept between ticks: each sensor's latest good value and
        # its time (updated as it is read, in configured order), and the caps and clocks as
        # mappings that are replaced, never mutated, when they change (a policy may keep one).
        self._values: dict[str, float | None] = dict.fromkeys(self._sensor_names)
        self._times: dict[str, float | None] = dict.fromkeys(self._sensor_names)
        self._caps_view: Mapping[str, int] = dict(self._caps)
        self._freqs_seen: tuple[int | None, ...] | None = None
        self._freqs_view: Mapping[str, int | None] = {}

    @property
    def mode(self) -> str:
        """The inference mode in force ("" without a load governor); published by the daemon."""
        return self.load.mode if self.load is not None else ""

    @property
    def load_level(self) -> int | None:
        """The lever's rung (0: full load); ``None`` without a load governor."""
        return self.load.load_level if self.load is not None else None

    # -- sampling ---------------------------------------------------------------------------
    def sample(self, name: str, now_s: float) -> Reading | None:
        """Read one due sensor; a failure is recorded, never turned into a temperature."""
        try:
            r = self.sensors[name].read()
        except SensorError as e:
            self._log(f"sensor {name}: {e}")
            if self._on_sample:
                self._on_sample(SampleRecord(now_s, name, None, False))
            return None
        # The runner's clock is authoritative for freshness; sources may stamp their own.
        if r.t_s != now_s or r.sensor != name:
            r = Reading(name, r.value_c, now_s)
        value = r.value_c
        self.fusion.update(r)
        self._values[name] = value
        self._times[name] = now_s
        self._watch.reading(name, value, now_s)
        if self._on_sample:
            self._on_sample(_new_record(SampleRecord, (now_s, name, value, True)))
        return r

    def forget(self, name: str) -> int:
        """A sensor gone (its file removed, hw/latezones.py): its last value is no longer shown
        in the trace or handed to the policy, as while it waited at start.  Its column's index."""
        self._values[name] = None
        self._times[name] = None
        return self._sensor_names.index(name)

    # -- control ----------------------------------------------------------------------------
    def unwritable(self) -> dict[str, str]:
        """The domains whose latest cap write failed (no write of theirs succeeded since), each
        with its error.  A run that ends with one did not govern that domain: a Pi 3 whose only
        limit answers EINVAL ran uncapped for its whole run and exited 0 (session 30), so the
        command says so and exits 1 rather than reporting a governed run.  Judged on the latest
        write, not on the failsafe's count, so the verdict does not hang on how many ticks ran
        between the first failure and the stop."""
        return {
            n: self._failure_why.get(n, "write failed") for n, count in self._write_failures.items() if count
        }

    def lowest_caps(self) -> dict[str, int]:
        return {a.name: a.table_hz[0] for a in self.actuators}

    def tick(self, now_s: float) -> TickRecord:
        # Runs every control period on a board and 36,000 times per simulated hour: nothing
        # is built here that the tick does not need (dicts for the policy only when it is
        # asked, the sensors_used label only when the set changes).
        actuators = self.actuators
        freqs_now = tuple([a.effective_hz() for a in actuators])
        # Clock activity: the effective clocks, or our own cap changes (an emulator or hung
        # driver may freeze scaling_cur_freq too; a cap we wrote is still a change of clocks).
        events = self._watch.tick(now_s, (freqs_now, self.cap_changes))
        fr = self.fusion.fuse(now_s)
        if fr.used != self._used:
            events.extend(membership_events(frozenset(self._used), fr.used, self._sensor_names))
            self._used = fr.used
            self._used_label = fr.used_label
        fused, hot = fr.fused_c, fr.hot
        readings = tuple(self._values.values())  # fusion.latest_values, kept as read
        telemetry = self.telemetry
        power = telemetry.power_w()
        inferences = telemetry.inferences_total()
        status = telemetry.power_status()
        if status is not None:
            if self.power_status is None or status.state != self.power_status.state:
                events.append(f"power:{status.state}")
            self.power_status = status
        wanted: Mapping[str, int]  # the policy's caps, a limiter's, or the lowest
        if fused is None:
            if self._unknown_since is None:
                self._unknown_since = now_s
                events.append("temp_unknown")
            if now_s - self._unknown_since >= self.unknown_grace_s - 1e-9:
                if self._state != FAILSAFE:
                    events.append("failsafe")
                self._state = FAILSAFE
                wanted = self.lowest_caps()
            else:
                wanted = self._wanted
        else:
            if self._unknown_since is not None:
                events.append("temp_known")
            self._unknown_since = None
            if freqs_now != self._freqs_seen:
                self._freqs_seen = freqs_now
                self._freqs_view = dict(zip(self._domain_names, freqs_now, strict=True))
            inp = _new_input(
                PolicyInput,
                (
                    now_s,
                    fused,
                    dict(self._values),
                    self._caps_view,
                    self._freqs_view,
                    power,
                    dict(self._times),
                    None if self.power_status is None else self.power_status.state,
                ),
            )
            decision = self.policy.decide(inp)
            self._state = decision.state
            if decision.event:
                events.append(decision.event)
            wanted = decision.caps_hz
            if self.fan is not None and not hot:
                wanted = self._fan_first(now_s, fused, wanted, events)
            for lim in self.limiters:
                lowered, lim_events = lim.limit(now_s, wanted, power, self.power_status)
                if lowered is not wanted and lowered != wanted:  # nearly every tick: unchanged
                    wanted = {n: min(c, lowered.get(n, c)) for n, c in wanted.items()}
                if lim_events:
                    events.extend(lim_events)
            if self.load is not None:
                wanted, load_events = self.load.step(
                    now_s, fused, wanted, self._lowest, self.power_status, inferences
                )
                if load_events:
                    events.extend(load_events)
            if hot:
                events.append("hard_limit:" + "+".join(hot))
                wanted = self.lowest_caps()
            if self._failing and any(n >= self.max_write_failures for n in self._write_failures.values()):
                # Some cap cannot be written: hold every other domain at its lowest cap
                # until the failing one recovers, rather than trusting a half-applied state.
                self._state = FAILSAFE
                wanted = self.lowest_caps()
        if self.fan is not None and (self._state == FAILSAFE or hot):
            events.extend(self.fan.emergency(now_s))
        self._wanted = wanted
        if self._below:
            self._refresh_below()
        if wanted != self._asked:
            events.extend(self._apply(wanted))
            # The effective clock after the decision: a trace row shows what the board runs
            # at from this tick on (kernel QoS or firmware may keep it below the cap).
            freqs_after = tuple([a.effective_hz() for a in actuators])
        else:
            freqs_after = freqs_now
        load = self.load
        # Positional, through tuple.__new__: the NamedTuple's keyword constructor is a Python
        # function call per tick; the field order is TickRecord's.
        return _new_record(
            TickRecord,
            (
                now_s,
                fused,
                readings,
                self._used_label,
                self._state,
                self._caps_tuple,
                freqs_after,
                power,
                inferences,
                " ".join(events) if events else "",
                load.mode if load is not None else "",
                load.lever.level if load is not None else None,
                None if self.fan is None else self.fan.level,
            ),
        )

    def _fan_first(
        self, now_s: float, fused_c: float, wanted: Mapping[str, int], events: list[str]
    ) -> dict[str, int]:
        """The fan before the clocks: a cut the policy wants waits while the fan can still rise."""
        assert self.fan is not None
        caps = self._caps
        wants_cut = any(wanted[n] < caps[n] for n in caps)
        at_top = all(caps[a.name] >= a.table_hz[-1] for a in self.actuators)
        hold, fan_events = self.fan.step(now_s, fused_c, wants_cut, at_top)
        events.extend(fan_events)
        if hold:
            events.append("fan_before_clocks")
            return {n: max(c, caps[n]) for n, c in wanted.items()}
        return dict(wanted)

    def refused(self, name: str, why: str) -> list[str]:
        """An actuator's target found tampered outside a write of this governor (a board's
        limit watch reading a file that is no longer the one owned, hw/confine.py): the same
        as a write refused so (``immediate_failsafe``), failsafe in this very call and every
        other domain at its lowest cap, without waiting for a cap change that may never come
        on a board held at a steady cap.  The event tags, for the tick's record."""
        if name not in self._write_failures:
            return []
        self._write_failures[name] = max(self._write_failures[name], self.max_write_failures)
        self._failing = True
        self._failure_why[name] = why
        if name not in self._logged_failure:
            self._log(f"actuator {name}: {why}")
            self._logged_failure.add(name)
        events = [f"write_failed:{name}"]
        if self._state != FAILSAFE:
            events.append("failsafe")
        self._state = FAILSAFE
        self._wanted = self.lowest_caps()
        events.extend(self._apply(self._wanted, skip=frozenset({name})))
        return events

    def written_below(self, name: str, cap_hz: int) -> None:
        """The backend wrote ``cap_hz`` for domain ``name`` outside :meth:`_apply`: a board's
        OPP list changed mid-run and the ask is written as the highest entry still listed
        (hw/oppwatch.py, session 32r).  From this tick on the trace, the state file and the
        metrics show that cap, the one in force (``TickRecord.caps_hz``), not the ask above it
        (session 33s; before, a user read 2.4 GHz where 2.0 GHz was written).  What the policy
        is handed and compares its next decision with stays the governor's own record, so the
        decisions are those of before and no write is repeated each tick; the domain's next
        write through :meth:`_apply` reads its cap back and ends the override."""
        if name not in self._caps:
            return
        if cap_hz == self._caps[name]:
            self._written_below.pop(name, None)
        else:
            self._written_below[name] = cap_hz
        self._caps_tuple = self._shown_caps()

    def _refresh_below(self) -> None:
        """The cap in force of each domain whose read-back was below its ask, taken from the
        actuator without a write (a clamp that lifted shows as the ask again, a deeper one as
        the lower cap).  Before, the governor wrote the ask again every tick to learn it."""
        fresh = {a.name: a.cap_hz for a in self._below}
        if all(self._caps[n] == c for n, c in fresh.items()):
            return
        self._caps.update(fresh)
        self._caps_view = dict(self._caps)
        self._caps_tuple = self._shown_caps()
        self._below = tuple([a for a in self._below if self._caps[a.name] != self._asked[a.name]])

    def _shown_caps(self) -> tuple[int, ...]:
        """The caps in force as the trace shows them (:meth:`written_below`)."""
        if not self._written_below:
            return tuple(self._caps.values())
        return tuple([self._written_below.get(n, c) for n, c in self._caps.items()])

    def _apply(self, wanted: Mapping[str, int], skip: frozenset[str] = frozenset()) -> list[str]:
        """Write caps that differ from what is in force; count failures, escalate to failsafe."""
        events: list[str] = []
        changed = False
        tampered: set[str] = set()
        for a in self.actuators:
            cap = wanted[a.name]
            if cap == self._asked[a.name] or a.name in skip:
                continue
            try:
                self._caps[a.name] = a.apply(cap)
                self._asked[a.name] = cap
                changed = True
                if self._written_below:  # apply read back the cap in force: no override left
                    self._written_below.pop(a.name, None)
                self._write_failures[a.name] = 0
                self._logged_failure.discard(a.name)
                self._failure_why.pop(a.name, None)
                self._failing = any(self._write_failures.values())
            except ActuatorError as e:
                if getattr(e, "repeat", False) and self._write_failures[a.name] >= self.max_write_failures:
                    # The same refusal, its domain already held at its failsafe by the backend
                    # (hw/confine.py ``HeldRefusal``): the failsafe stands, nothing new to say or tag.
                    self._failing = True
                    continue
                n = self._write_failures[a.name] + 1
                if getattr(e, "immediate_failsafe", False):
                    # A tampered target (hw.confine), not a transient error: no retries.
                    n = max(n, self.max_write_failures)
                    tampered.add(a.name)
                self._write_failures[a.name] = n
                self._failure_why[a.name] = str(e)
                self._failing = True
                if a.name not in self._logged_failure:
                    self._log(f"actuator {a.name}: {e}")
                    self._logged_failure.add(a.name)
                events.append(f"write_failed:{a.name}")
                if n == self.max_write_failures or a.name in tampered:
                    self._state = FAILSAFE
                    events.append("failsafe")
        if changed:
            self.cap_changes += 1
            self._caps_view = dict(self._caps)
            self._caps_tuple = self._shown_caps()
            self._below = tuple([a for a in self.actuators if self._caps[a.name] != self._asked[a.name]])
        if tampered and not skip:
            # Failsafe in this very tick: every other domain to its lowest cap.
            events.extend(self._apply(self.lowest_caps(), skip=frozenset(tampered)))
        return events
