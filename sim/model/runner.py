"""Run the governor against a simulated board in SimPy, recording the standard run folder.

Simulated time is kept in integer milliseconds (SimPy's clock holds whatever we give it): the
multi-rate plan, the protection polls and scenario events then land on exact instants, with no
float drift and a deterministic order.  The governor and policy are the very objects the
board daemon uses; only the sensors, actuators and clock are simulated.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import simpy

from thermogov.board import BoardProfile
from thermogov.budget import limiter_summary, power_limiters
from thermogov.config import SUPPLY_EVENTS, Config, SimEvent
from thermogov.fan import FanController
from thermogov.governor import Governor, SampleRecord, TickRecord
from thermogov.loadgov import LoadGovernor
from thermogov.policies import Policy, PolicyContext
from thermogov.runs import RunRecorder, trip_of
from thermogov.scheduler import CONTROL, MultiRatePlan
from thermogov.sim.model.fan import SimFan
from thermogov.sim.model.world import SimWorld

# Trace rows (and the samples read meanwhile) handed to the recorder at once: 3.2 simulated
# seconds at the default 100 ms tick, inside the recorder's crash bound (10 simulated seconds
# or 1 % of the rows, thermogov/trace.py).
TICK_BLOCK = 32


@dataclass
class SimResult:
    summary: dict[str, Any]
    run_dir: Path | None
    world: SimWorld
    governor: Governor


def build_policy(config: Config, board: BoardProfile) -> Policy:
    """The configured policy, its parameters checked strictly (unknown keys rejected)."""
    return config.make_policy(policy_context(config, board))


def policy_context(config: Config, board: BoardProfile) -> PolicyContext:
    """What a policy is built against in the simulator (also what variants are compared on)."""
    specs = config.sensor_specs(board)
    return PolicyContext(
        board=board,
        tables_hz={d.name: d.opp_hz for d in board.domains},
        control_period_s=config.governor.control_period_ms / 1000.0,
        sensor_names=tuple(s.name for s in specs),
        extra={"ambient_c": config.sim.ambient_c},
    )


def build_governor(
    config: Config,
    board: BoardProfile,
    world: SimWorld,
    recorder: RunRecorder | None,
    on_sample: Callable[[SampleRecord], None] | None = None,
) -> Governor:
    """The governor on the simulated board; samples go to ``on_sample`` (default: the recorder)."""
    specs = config.sensor_specs(board)
    policy = build_policy(config, board)
    return Governor(
        specs,
        {s.name: world.sensors[s.name] for s in specs},
        [world.domains[d.name] for d in board.domains],
        policy,
        telemetry=world,
        unknown_grace_s=config.governor.unknown_grace_ms / 1000.0,
        max_write_failures=config.governor.max_write_failures,
        stuck_after_s=config.governor.stuck_after_s,
        on_sample=on_sample or (recorder.on_sample if recorder else None),
        limiters=power_limiters(config.power, board, {d.name: d.opp_hz for d in board.domains}),
        load=LoadGovernor(config.modes, config.lever, trip_of(config), control=world),
        fan=governed_fan(config, board, world),
    )


def governed_fan(config: Config, board: BoardProfile, world: SimWorld) -> FanController | None:
    """The fan controller when the config gives the governor the fan (``[run] fan``)."""
    check_fan(config, board)
    if not config.fan.governed or world.fan is None:
        return None
    curve = config.fan.curve(world.fan.levels, trip_of(config))
    return FanController(world.fan, curve, config.fan.dwell_s)


def check_fan(config: Config, board: BoardProfile) -> None:
    """A governed fan needs a board whose profile has one, and a curve that parses."""
    if not config.fan.governed:
        return
    if board.fan is None:
        from thermogov.interfaces import ConfigError

        raise ConfigError(
            f'run.fan: board {board.name} has no [fan] in its profile; use fan = "board" or a board with a fan (rpi5-fan)'
        )
    config.fan.curve(board.fan.levels, trip_of(config))


class _Run:
    def __init__(
        self,
        config: Config,
        board: BoardProfile,
        recorder: RunRecorder | None,
        progress: Callable[[float], None] | None,
        on_tick: Callable[[TickRecord], None] | None,
    ) -> None:
        self.config = config
        self.board = board
        self.world = SimWorld(board, config)
        self.recorder = recorder
        # Samples and trace rows are kept in lists (the list's append is the governor's sample
        # hook: no Python frame per read) and handed to the recorder every TICK_BLOCK ticks.
        self.samples: list[SampleRecord] = []
        self.ticks: list[TickRecord] = []
        self.gov = build_governor(
            config, board, self.world, recorder, self.samples.append if recorder is not None else None
        )
        self.env = simpy.Environment()
        self.duration_ms = round(config.sim.duration_s * 1000)
        self.pending: list[str] = []
        self.done = self.env.event()
        self.progress = progress
        self.on_tick = on_tick
        # A fan the governor does not own follows the board's own curve (the baseline).
        self.board_fan = self.world.fan if self.gov.fan is None else None

    def _stop(self) -> None:
        if not self.done.triggered:
            self.done.succeed()

    def governor_loop(self) -> Generator[simpy.Event, Any, None]:
        specs = self.gov.specs
        plan = MultiRatePlan([(s.name, s.period_ms) for s in specs], self.config.governor.control_period_ms)
        env, world, gov, rec, ticks = self.env, self.world, self.gov, self.recorder, self.ticks
        step_ms = max(self.duration_ms // 100, 1)
        next_progress = step_ms
        at_ms = env.now  # the last instant run, which SimPy's clock may lag (below)
        for t_ms, due in plan.instants():
            if t_ms > self.duration_ms:
                break
            if t_ms > at_ms and env.peek() <= t_ms:
                # Another process (protections, the board's fan, a scenario event) is due at
                # or before this instant: hand over to SimPy, which runs them in its order.
                # Otherwise nothing else can happen before ``t_ms`` and the instant runs at
                # once, without a Timeout event: most of the plan's instants go this way.
                yield env.timeout(t_ms - env.now)
            at_ms = t_ms
            now = t_ms / 1000.0
            world.advance(now)
            if world.ran_away():
                break
            if world.battery_events:
                self.pending.extend(world.battery_events)
                world.battery_events.clear()
            for name in due:
                if name == CONTROL:
                    tick = gov.tick(now)
                    if self.board_fan is not None:
                        tick = tick._replace(fan_level=self.board_fan.level)
                    if self.pending:
                        ev = " ".join([*self.pending, tick.event]).strip()
                        tick = tick._replace(event=ev)
                        self.pending.clear()
                    if rec is not None:
                        ticks.append(tick)
                        if len(ticks) >= TICK_BLOCK:
                            self._hand_over()
                    if self.on_tick is not None:
                        self.on_tick(tick)
                else:
                    gov.sample(name, now)
            if self.progress is not None and t_ms >= next_progress:
                self.progress(now)
                next_progress += step_ms
            if world.shutdown_at is not None:
                break
        self._hand_over()
        if at_ms > env.now:  # SimPy's clock catches up before the run ends
            yield env.timeout(at_ms - env.now)
        self._stop()

    def _hand_over(self) -> None:
        """The kept samples and trace rows to the recorder, as one block each."""
        if self.recorder is not None:
            self.recorder.on_samples(self.samples)
            self.recorder.on_ticks(self.ticks)
        self.samples.clear()
        self.ticks.clear()

    def protection_loop(self, period_ms: int) -> Generator[simpy.Event, Any, None]:
        env, world = self.env, self.world
        while True:
            yield env.timeout(period_ms)
            world.advance(env.now / 1000.0)
            events = world.poll_protections()
            if events:
                self.pending.extend(events)

    def board_fan_loop(self, period_ms: int) -> Generator[simpy.Event, Any, None]:
        env, world, fan = self.env, self.world, self.board_fan
        assert fan is not None
        while True:
            world.advance(env.now / 1000.0)
            if fan.follow_default_curve():
                self.pending.append(f"board_fan:{fan.level}")
            yield env.timeout(period_ms)

    def event_at(self, ev: SimEvent) -> Generator[simpy.Event, Any, None]:
        yield self.env.timeout(round(ev.at_s * 1000))
        world = self.world
        world.advance(self.env.now / 1000.0)
        apply_event(world, ev)
        self.pending.append(f"{ev.kind}:{ev.target}" if ev.target else ev.kind)

    def run(self) -> None:
        env = self.env
        env.process(self.governor_loop())
        for period in sorted({p.period_ms for p in self.board.protections}):
            env.process(self.protection_loop(period))
        if self.board_fan is not None:
            env.process(self.board_fan_loop(self.board_fan.profile.default_period_ms))
        for ev in self.config.sim.events:
            env.process(self.event_at(ev))
        env.run(until=self.done)


def apply_event(world: SimWorld, ev: SimEvent) -> None:
    from thermogov.interfaces import ConfigError

    if ev.kind == "ambient":
        world.plant.set_ambient(ev.value)
    elif ev.kind in SUPPLY_EVENTS:
        if world.battery is None:
            raise ConfigError(f"sim.events: a {ev.kind} event needs a board with a battery")
        if ev.kind == "plugged":
            world.battery.plug(ev.value)
        else:
            world.battery.unplug(ev.value if ev.kind == "on_the_move" else 0.0)
    elif ev.kind == "ambient_link":
        if ev.target not in world.plant.index:
            raise ConfigError(
                f"sim.events: unknown node {ev.target!r}; nodes are {', '.join(world.plant.names)}"
            )
        world.plant.scale_ambient_link(ev.target, ev.value)
    elif ev.kind == "fan_stall":
        if world.fan is None:
            raise ConfigError("sim.events: a fan_stall event needs a board with a [fan] (rpi5-fan)")
        world.fan.stall()
    else:
        sensor = world.sensors.get(ev.target)
        if sensor is None:
            raise ConfigError(
                f"sim.events: unknown sensor {ev.target!r}; sensors are {', '.join(world.sensors)}"
            )
        if ev.kind == "sensor_dropout":
            sensor.dropout_until = world.t + ev.duration_s
        elif ev.kind == "sensor_stuck":
            sensor.stuck_until = world.t + ev.duration_s
        elif ev.kind == "sensor_spike":
            sensor.spike_c = ev.value


def validate_events(config: Config, board: BoardProfile) -> None:
    """Reject events naming unknown nodes/sensors before anything runs."""
    from thermogov.interfaces import ConfigError

    nodes = set(board.thermal.node_names())
    sensors = {s.name for s in board.sensors}
    for i, ev in enumerate(config.sim.events):
        if ev.kind == "ambient_link" and ev.target not in nodes:
            raise ConfigError(
                f"sim.events[{i}].target: unknown node {ev.target!r}; nodes are {', '.join(sorted(nodes))}"
            )
        if ev.kind.startswith("sensor_") and ev.target not in sensors:
            raise ConfigError(
                f"sim.events[{i}].target: unknown sensor {ev.target!r}; sensors are {', '.join(sorted(sensors))}"
            )
        if ev.kind == "fan_stall" and board.fan is None:
            raise ConfigError(
                f"sim.events[{i}].kind: board {board.name} has no [fan], so a fan_stall event cannot apply; "
                "use a board with a fan (e.g. rpi5-fan)"
            )
        if ev.kind in SUPPLY_EVENTS and board.battery is None:
            raise ConfigError(
                f"sim.events[{i}].kind: board {board.name} has no battery, so a {ev.kind} event cannot "
                "apply; use a board with a [battery] table (e.g. jetson-orin-nano)"
            )
        if ev.kind in ("plugged", "on_the_move") and ev.value < 0.0:
            raise ConfigError(f"sim.events[{i}].value: {ev.value:g} W is negative; use watts >= 0")
        if ev.at_s > config.sim.duration_s:
            raise ConfigError(f"sim.events[{i}].at_s: {ev.at_s:g} s is after the end of the run")
    _check_ambient_links(config, board)


def _check_ambient_links(config: Config, board: BoardProfile) -> None:
    """Every ``ambient_link`` event, in the order the run applies them, must leave the network a
    path to the air and each scaled conductance 0 or a material one: the plant multiplies a
    node's conductance by the factor (a negative one, or a network left with no path, cannot be
    simulated and was found only mid-run, after the run folder was made)."""
    from thermogov.board import MIN_CONDUCTANCE_W_PER_K, ThermalNode, check_paths_to_ambient
    from thermogov.interfaces import ConfigError

    g = {n.name: n.to_ambient_w_per_k for n in board.thermal.nodes}
    ordered = sorted(enumerate(config.sim.events), key=lambda item: item[1].at_s)
    for i, ev in ordered:
        if ev.kind != "ambient_link":
            continue
        where = f"sim.events[{i}]"
        if ev.value < 0.0:
            raise ConfigError(
                f"{where}.value: {ev.value:g} is a negative conductance factor; use a factor >= 0 (0.6 = 40 % less cooling)"
            )
        g[ev.target] *= ev.value
        if 0.0 < g[ev.target] < MIN_CONDUCTANCE_W_PER_K:
            raise ConfigError(
                f"{where}.value: leaves node {ev.target!r} {g[ev.target]:g} W/K to the air, no path at all; "
                f"use 0 or a factor leaving >= {MIN_CONDUCTANCE_W_PER_K:g} W/K"
            )
        nodes = [ThermalNode(n.name, n.capacitance_j_per_k, g[n.name]) for n in board.thermal.nodes]
        if not any(n.to_ambient_w_per_k > 0 for n in nodes):
            raise ConfigError(
                f"{where}.value: a factor of {ev.value:g} on {ev.target!r} leaves board {board.name} no "
                "conductance to the air; use a factor > 0"
            )
        try:
            check_paths_to_ambient(nodes, board.thermal.links, f"{where}: board {board.name}")
        except ConfigError as e:
            raise ConfigError(f"{e} (after this event)") from e


def fan_summary(run: _Run) -> dict[str, Any]:
    fan = run.world.fan
    if fan is None:
        return {}
    return {
        "fan_owner": "board",
        **(run.gov.fan.summary() if run.gov.fan is not None else {}),
        "fan_energy_j": round(run.world.fan_energy_j, 4),
        "fan_stalled": fan.stalled,
        # a PWM fan its board curve drives (a governed one sits at its levels' duties)
        **(
            pwm_fan_summary(fan, run.env.now / 1000.0)
            if run.board_fan is not None and fan.profile.default_pwm is not None
            else {}
        ),
    }


def pwm_fan_summary(fan: SimFan, duration_s: float) -> dict[str, Any]:
    """A PWM fan's duty: how often its board curve wrote a new one, and its mean (0..255)."""
    hours = duration_s / 3600.0
    return {
        "fan_duty_changes_per_hour": round(fan.duty_changes / hours, 2) if hours > 0 else None,
        "fan_duty_mean": round(fan.duty_s / duration_s, 2) if duration_s > 0 else None,
    }


def simulate(
    config: Config,
    board: BoardProfile | None = None,
    out_dir: Path | str | None = None,
    *,
    run_id: str | None = None,
    progress: Callable[[float], None] | None = None,
    on_tick: Callable[[TickRecord], None] | None = None,
) -> SimResult:
    """Simulate one run.  With ``out_dir`` the run folder and ledger row are written."""
    board = board or config.load_board()
    validate_events(config, board)
    build_policy(config, board)  # every bad setting fails here, before a folder is created
    check_fan(config, board)
    recorder = (
        RunRecorder.create(Path(out_dir), config, board, "sim", run_id, fan=board.fan is not None)
        if out_dir is not None
        else None
    )
    run = _Run(config, board, recorder, progress, on_tick)
    run.run()
    world = run.world
    extra: dict[str, Any] = {
        "ambient_c": config.sim.ambient_c,
        "scenario": config.sim.scenario,
        "workload": config.sim.workload.kind,
        "board_throttle_events": sum(t.events for t in world.throttles),
        "ended": world.shutdown_reason or "completed",
        "battery_soc_end": None if world.soc is None else round(world.soc, 4),
        "battery_empty_at_s": round(world.shutdown_at, 3)
        if world.shutdown_reason == "battery empty" and world.shutdown_at is not None
        else None,
        "dropped_requests": world.server.dropped,
        "batching": world.server.batching_summary(),
        # The plant integrates power exactly at every event, finer than the 100 ms trace.
        "energy_j": round(world.energy_j, 4),
        "inferences_per_joule": round(world.server.completed / world.energy_j, 4) if world.energy_j else None,
        **limiter_summary(run.gov.limiters),
        **(run.gov.load.summary() if run.gov.load is not None else {}),
        **fan_summary(run),
    }
    latency = world.server.latency_summary_ms()
    if recorder is not None:
        summary = recorder.finish(latency_ms=latency, extra=extra)
        return SimResult(summary, recorder.run_dir, world, run.gov)
    summary = {"latency_ms": latency, "inferences_total": world.server.completed, **extra}
    return SimResult(summary, None, world, run.gov)
