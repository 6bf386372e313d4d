"""A simulated board: plant + domains + protections + battery + inference server + sensors.

``advance(t)`` is the only way time moves: it runs the inference queue up to ``t`` at the
clocks in force, turns the busy time into power (idle + C V^2 f + leakage at the temperature
the interval starts at), adds battery Joule heat and converter loss, and advances the thermal
plant exactly over the interval.  Everything that reads the world (sensor polls, governor
ticks, protection polls) calls ``advance`` first, so the plant is only stepped when something
looks at it or something changes, never on a fixed grid.
"""

from __future__ import annotations

import math

import numpy as np

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.governor import Telemetry
from thermogov.interfaces import ConfigError, PowerStatus
from thermogov.modes import ModeCost
from thermogov.sim.model.battery import SimBattery
from thermogov.sim.model.domains import SimDomain, ThrottleProtection
from thermogov.sim.model.fan import SimFan
from thermogov.sim.model.loadlevel import scaled_model
from thermogov.sim.model.overcurrent import OverCurrentProtection
from thermogov.sim.model.plant import ThermalPlant
from thermogov.sim.model.sensors import SimSensor
from thermogov.sim.model.throttlecount import ProtectionTags
from thermogov.sim.model.workload import InferenceServer
from thermogov.steadystate import RUNAWAY_C, steady_state_c
from thermogov.throttle import OVER_CURRENT_AVERAGE, count_tag

_new_status = tuple.__new__


def refuse_runaway(board: BoardProfile, ambient_c: float) -> None:
    """Refuse a profile whose leakage outgrows its cooling even idle at the lowest clocks.

    No policy can hold such a board, and its plant has no temperature to simulate: it climbs
    until the leakage exponent's cap, 10^22 °C (a ``leak_ref_c`` of 0 on a Pi 5 does it).  The
    check is the steady state the hold check uses (``thermogov/steadystate.py``), well under a
    millisecond.
    """
    lowest = {d.name: d.opp_hz[0] for d in board.domains}
    node_c = steady_state_c(board, lowest, 0.0, ambient_c)
    if not all(math.isfinite(v) for v in node_c.values()):
        raise ConfigError(
            f"board {board.name}: no steady state below {RUNAWAY_C:g} °C even idle at the lowest clocks at "
            f"{ambient_c:g} °C ambient (leakage outgrows cooling); check the domains' leak_w_ref, leak_ref_c, "
            "leak_beta_per_k and the thermal conductances"
        )


class SimWorld(Telemetry):
    def __init__(self, board: BoardProfile, config: Config) -> None:
        refuse_runaway(board, config.sim.ambient_c)
        self.board = board
        self.config = config
        self.t = 0.0
        seeds = np.random.SeedSequence(config.seed).spawn(2 + len(board.sensors))
        self.plant = ThermalPlant.from_profile(board.thermal, config.sim.ambient_c)
        # Arrivals (seeds[0]) and each request's work (seeds[1]) on streams of their own.
        self.server = InferenceServer(
            board.model,
            config.sim.workload,
            np.random.default_rng(seeds[0]),
            np.random.default_rng(seeds[1]),
        )
        self.domains = {d.name: SimDomain(d, self._clocks_changed) for d in board.domains}
        self.throttles = [
            ThrottleProtection(p, self.domains) for p in board.protections if p.kind == "throttle"
        ]
        self.shutdowns = [p for p in board.protections if p.kind == "shutdown"]
        self._throttle_tags = ProtectionTags(board, [th.p for th in self.throttles])
        self.overcurrents = [
            OverCurrentProtection(p, self.domains) for p in board.protections if p.kind == "overcurrent"
        ]
        self.fan = SimFan(board.fan, self.plant) if board.fan is not None else None
        self.fan_energy_j = 0.0
        self.sensors = {
            s.name: SimSensor(s, self._node_reader(s.node), self._now, np.random.default_rng(seeds[2 + i]))
            for i, s in enumerate(board.sensors)
        }
        idx = self.plant.index
        self._rest = np.zeros(len(self.plant.names))
        self._rest[idx[board.thermal.rest_of_board_node]] += board.thermal.rest_of_board_w
        self._rest_node = idx[board.thermal.rest_of_board_node]
        self._rest_list = self._rest.tolist()
        self._rest_w = board.thermal.rest_of_board_w
        self._dom_node = {d.name: idx[d.node] for d in board.domains}
        self._dom_coef: dict[str, tuple[float, float, float]] = {}
        bat = board.battery
        self._bat_node = idx[bat.node] if bat else -1
        pc = config.power
        self.battery = SimBattery(bat, (pc.charge_min_c, pc.charge_max_c)) if bat else None
        if self.battery is not None and config.sim.initial_soc is not None:
            self.battery.soc = config.sim.initial_soc
        self.battery_events: list[str] = []  # for the runner's next trace row
        self.last_power_w: float | None = None  # no interval has elapsed yet
        self.energy_j = 0.0
        self.shutdown_at: float | None = None
        self.shutdown_reason = ""
        self._last_cores: dict[str, float] = {}
        self._coef_cache: dict[
            tuple[int, ...],
            tuple[
                dict[str, tuple[float, float, float]],
                list[tuple[str, int, float, float, float, float, float]],
            ],
        ] = {}
        self._clocks_changed()
        if config.sim.initial_temp_c is not None:
            self.plant.set_temps_c(np.full(len(self.plant.names), config.sim.initial_temp_c))
        else:
            self.plant.set_temps_c(self.idle_steady_state_c())

    def idle_steady_state_c(self) -> np.ndarray:
        """Where the board sits powered on but idle: the start of a run, unless configured.

        Leakage depends on temperature, so the fixed point is found by iteration (it converges
        in a few steps for any board that is thermally stable at idle).
        """
        temps = np.full(len(self.plant.names), self.plant.ambient_c)
        for _ in range(30):
            power = self._rest.copy()
            for name, (idle, _dyn, leak) in self._dom_coef.items():
                p = self.domains[name].profile
                node = self._dom_node[name]
                pw = idle + leak * math.exp(min(p.leak_beta_per_k * (temps[node] - p.leak_ref_c), 50.0))
                power[node] += pw
            new = self.plant.steady_state_c(power)
            if np.max(np.abs(new - temps)) < 1e-6:
                break
            temps = new
        return temps

    # -- plumbing ---------------------------------------------------------------------------
    def _now(self) -> float:
        return self.t

    def _node_reader(self, node: str):
        i = self.plant.index[node]
        plant = self.plant

        def read() -> float:
            return plant.x.item(i) + plant.ambient_c  # a Python float, the same sum

        return read

    def _clocks_changed(self) -> None:
        freqs = {name: d.effective_hz() for name, d in self.domains.items()}
        self.server.set_clocks({d: f for d, f in freqs.items() if d in self.board.model.cycles})
        # The power coefficients are a pure function of the clocks (the profiles never change),
        # and a dithering governor revisits a handful of settings: computed once each.
        key = tuple(freqs.values())
        known = self._coef_cache.get(key)
        if known is not None:
            self._dom_coef, self._hot = known
            return
        self._dom_coef = {}
        for name, d in self.domains.items():
            p = d.profile
            f = freqs[name]
            v = p.volt_at(f)
            dyn_per_core = p.c_dyn_uw_per_mhz_v2 * v * v * (f / 1e6) * 1e-6
            leak = p.leak_w_ref * (v / p.volt_v[-1])
            self._dom_coef[name] = (p.idle_w, dyn_per_core, leak)
        # Flat per-domain constants for the hot loop in advance().
        self._hot = [
            (name, self._dom_node[name], idle, dyn, leak, d.profile.leak_beta_per_k, d.profile.leak_ref_c)
            for (name, (idle, dyn, leak)), d in zip(
                self._dom_coef.items(), self.domains.values(), strict=True
            )
        ]
        if len(self._coef_cache) < 256:
            self._coef_cache[key] = (self._dom_coef, self._hot)

    def effective_clocks(self) -> dict[str, int]:
        return {name: d.effective_hz() for name, d in self.domains.items()}

    # -- time -------------------------------------------------------------------------------
    def advance(self, t: float) -> None:
        dt = t - self.t
        if dt <= 0.0:
            return
        busy = self.server.advance(t)
        cores = self.server.busy_cores(busy / dt)
        self._last_cores = cores
        x = self.plant.x.tolist()
        amb = self.plant.ambient_c
        power = self._rest_list.copy()
        total = self._rest_w
        exp = math.exp
        for name, node, idle, dyn, leak, beta, ref in self._hot:
            pw = idle + dyn * cores.get(name, 0.0)
            if leak:
                pw += leak * exp(min(beta * (x[node] + amb - ref), 50.0))
            power[node] += pw
            total += pw
        if self.fan is not None:
            fan_w = self.fan.power_w  # leaves in the airflow: board power, heats no node
            total += fan_w
            self.fan_energy_j += fan_w * dt
            self.fan.duty_s += self.fan.duty * dt
        bat = self.battery
        if bat is not None:
            was = bat.state()
            heat, loss = bat.step(dt, total, x[self._bat_node] + amb)  # x: Python floats
            power[self._bat_node] += heat
            power[self._rest_node] += loss  # converter loss heats the carrier
            if bat.empty_after_s is not None and self.shutdown_at is None:
                self.shutdown_at = self.t + bat.empty_after_s
                self.shutdown_reason = "battery empty"
                self.battery_events.append("battery_empty")
            elif (state := bat.state()) != was and state in ("full", "mains"):
                self.battery_events.append(f"charger:{state}")
        self.plant.advance(dt, np.array(power))
        self.last_power_w = total
        self.energy_j += total * dt
        self.t = t

    def poll_protections(self) -> list[str]:
        """Run the board's own protections at the current instant; returns event tags."""
        events = []
        x = self.plant.x.tolist()  # Python floats: the same values, cheaper to index
        amb = self.plant.ambient_c
        idx = self.plant.index
        for i, th in enumerate(self.throttles):
            temp = max(x[idx[n]] for n in th.p.nodes) + amb
            was = th.active
            if th.update(temp):
                self._clocks_changed()
            if th.active != was:
                events.append("board_throttle" if th.active else "board_throttle_end")
                events.extend(self._throttle_tags.firmware(i, th.active, was))
        if self._throttle_tags.has_trips:  # kernel passive trips crossed, per zone
            events.extend(self._throttle_tags.trips(lambda n: x[idx[n]] + amb))
        for oc in self.overcurrents:
            changed, n = oc.update(self.last_power_w)
            if changed:
                self._clocks_changed()
            if n:
                events.append(count_tag(OVER_CURRENT_AVERAGE, n))
        for p in self.shutdowns:
            temp = max(x[idx[n]] for n in p.nodes) + amb
            if temp >= p.start_c and self.shutdown_at is None:
                self.shutdown_at = self.t
                self.shutdown_reason = (
                    f"board shutdown: {'/'.join(p.nodes)} reached {temp:.1f} °C (trip {p.start_c:g})"
                )
                events.append("shutdown")
        if self.ran_away():
            events.append("shutdown")
        return events

    def ran_away(self) -> bool:
        """Whether a node has passed ``RUNAWAY_C``; the first time, the run is ended.

        No silicon survives that: the run ends as a real board's would and the summary says why,
        instead of integrating on to the leakage exponent's cap (10^22 °C).  The runner asks
        after every advance, before any sensor reads the plant, so no such value is recorded.
        """
        if max(self.plant.x.tolist()) + self.plant.ambient_c <= RUNAWAY_C:  # tolist: cheaper than ndarray.max
            return False
        if self.shutdown_at is None:
            self.shutdown_at = self.t
            self.shutdown_reason = (
                f"thermal runaway: a node passed {RUNAWAY_C:g} °C (the profile's leakage outgrows its cooling "
                "at these clocks)"
            )
        return True

    def domain_power_w(self) -> dict[str, float]:
        """Each domain's power over the last interval (what a per-rail monitor would show)."""
        x = self.plant.x
        amb = self.plant.ambient_c
        out = {}
        for name, node, idle, dyn, leak, beta, ref in self._hot:
            pw = idle + dyn * self._last_cores.get(name, 0.0)
            if leak:
                pw += leak * math.exp(min(beta * (float(x[node]) + amb - ref), 50.0))
            out[name] = pw
        return out

    # -- LoadControl ------------------------------------------------------------------------
    def set_load(self, mode: ModeCost, duty: float) -> None:
        """The governor's inference mode and duty cycle, from this instant on."""
        self.server.set_load(scaled_model(self.board.model, mode), duty)
        self._clocks_changed()

    # -- Telemetry --------------------------------------------------------------------------
    def power_w(self) -> float | None:
        return self.last_power_w

    def inferences_total(self) -> int | None:
        return self.server.completed

    @property
    def soc(self) -> float | None:
        """State of charge 0..1; ``None`` on a board without a battery."""
        return None if self.battery is None else self.battery.soc

    @soc.setter
    def soc(self, value: float) -> None:
        if self.battery is not None:
            self.battery.soc = value

    @property
    def plugged(self) -> bool:
        return self.battery is None or self.battery.plugged

    def power_status(self) -> PowerStatus:
        """The simulated supply, shaped like a ``power_supply`` class device reports it."""
        # Asked on every control tick: built positionally (the NamedTuple's keyword constructor
        # is a Python call of its own), the fields in PowerStatus's order.
        if self.battery is None:
            return _new_status(PowerStatus, ("mains", None, self.last_power_w, None, self.t))
        plant = self.plant
        temp = plant.x.item(self._bat_node) + plant.ambient_c  # a Python float, the same sum
        soc = round(self.battery.soc * 100.0, 3)
        return _new_status(PowerStatus, (self.battery.state(), soc, self.last_power_w, temp, self.t))
