"""The oracle: an upper bound, by construction, on the inferences any schedule completes in the window.

Computed, not simulated, with perfect knowledge of the simulated plant.  Every approximation
below is made in the direction that can only *raise* the bound, so no policy, on any ambient or
load path, can beat it while keeping the trip; the tolerances that remain are stated.

1. **Operating points.**  Every OPP combination ``k`` has, from :mod:`thermogov.costmodel`, a
   throughput ``r_k`` (the pipeline rate when a frame is waiting) and a power per thermal node
   ``P_k(T)``: domain idle + dynamic + leakage at the node temperature, rest-of-board, converter
   loss and battery I²R, the formula of :class:`thermogov.sim.model.world.SimWorld`.  Points that are no
   faster but draw more in every node at no lower voltage are dropped (they never help).  A
   non-saturating load adds an *idle* point (``r = 0``).
2. **Time-sharing on a grid.**  The run is cut into ``step_s`` intervals; in interval ``i`` the
   schedule spends a fraction ``w_ik`` of the time at point ``k``.  Completions are
   ``sum w_ik r_k step_s`` (linear: the simulated pipeline keeps its fraction of work across
   clock changes) and the plant advances exactly for the interval's mean power,
   ``x_{i+1} = Phi x_i + Gamma P_i``, from the world's own initial state and through the
   scenario's ambient and ambient-link events; a board whose fan a policy commands ([fan])
   has it at its most conductive level until a ``fan_stall`` event (the most cooling any fan
   schedule gets).
3. **Power from below.**  ``P_i`` is a lower bound on the real power, affine in the interval's
   mean node temperature (:meth:`_PowerModel.lower`): leakage ``c_k g(T)``, convex and
   increasing in ``T``, is charged at its tangent for a reference voltage share ``c_ref`` (the
   previous round's own mix), and the spread ``(c_k - c_ref) g(T)`` at the coldest temperature
   the node can have in that interval (the run at every node's least power, :func:`_coldest`)
   where it is positive and at the hottest the constraints allow where it is negative, so every
   real trajectory is feasible.  The linearisation point is the previous round's optimum (three
   rounds; each round is a bound, the least is kept).  Charging the spread at the ambient and
   around the lowest voltage, as before, left ~2 inf/s (0.9 %) of slack on orin-steady-25.
   The pack's I²R is charged on the board's least current on battery and as 0 while docked
   (:func:`docked_intervals`): on the charger the pack carries only the charge current, and
   the charger stops when the pack is full or outside its temperature window.
4. **Constraints at every grid instant**: true fused temperature (the governor's weights, no
   noise) <= trip; every sensor's node below its hard limit; each board throttle (RPi firmware,
   Jetson sw-throttle) lets point ``k`` run only while the protected node is at or below the
   temperature ``theta_k`` at which its ramp still allows ``k``'s clocks, relaxed to its convex
   hull (``mean T <= sum_k w_ik theta_k + delta``, ``delta`` = the node's drift between two
   polls).  A point the throttle never caps gets the node's own ceiling from the other rows
   (not "infinity": with 1000 °C a sliver of it in a mix forgave any temperature).
   For a Poisson/bursty load, completions never exceed those of the fastest possible server on
   the scenario's own arrival stream, by every instant and inside the window (a faster FIFO
   server with the same finite queue accepts every frame a slower one accepts).
5. **No "sustained" rule.**  The schedule may do anything before the window, including idle to
   bank cooling and burst inside it: a bound must allow what a policy may do, and forbidding
   throughput to rise made policies score 101-109 % when the ambient fell.  The best schedule
   whose throughput never rises is still available as a *reference* (``sustained=True``,
   :attr:`OracleResult.sustained_ips`), not a bound.
6. **Linear programme**: maximise the completions inside the steady window (the run
   recorder's window), with scipy's HiGHS on the sparse state-space form, plus one batch (the
   recorder counts whole inferences).

With ``history_ips`` the programme must track a policy's own work before the window (the
*same-history* bound, :mod:`.samehistory`): the bound then separates what that policy lost by
its control inside the window from the heat its past left in the board.

Tightness is reported beside the bound: the best single cap that holds the trip all run on the
exact plant (:attr:`OracleResult.best_fixed_ips`) and the exact-plant replay of the optimum's
mix (:attr:`OracleResult.replay_max_fused_c`).  Stated tolerances: the hull relaxation of the
throttle (an upper bound; ~1 % on the Pi against the best fixed cap), the leakage bound (~1 % of
power on the Orin Nano), constraints checked on the grid only (can only raise the bound), the
interval's leakage taken at its endpoints' mean (the die's millisecond mode is not resolved).
Noise: the bound is on the *true* fused value; a policy judged on its noisy readings cannot use
much more than the read noise above it (the tests check the bound holds on the suite and on
seeded random scenarios).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from thermogov import costmodel
from thermogov.board import BoardProfile
from thermogov.config import SUPPLY_EVENTS, Config
from thermogov.interfaces import ConfigError
from thermogov.policies.protections import throttle_allows_c
from thermogov.sim.compare.workbound import lucky_ratio, work_prefix
from thermogov.sim.model.plant import ThermalPlant
from thermogov.sim.model.workload import ArrivalProcess, InferenceServer
from thermogov.sim.model.world import SimWorld

TRIP_C = 85.0


@dataclass(frozen=True, slots=True)
class OperatingPoint:
    caps_hz: Mapping[str, int]
    throughput_ips: float
    busy: bool


@dataclass(frozen=True, slots=True)
class OracleResult:
    throughput_ips: float | None  # sustained (window) throughput; None if no schedule holds the trip
    window_s: tuple[float, float]
    mix: tuple[tuple[dict[str, int], float], ...]  # window time share of each point
    max_fused_c: float | None  # on the optimum's trajectory (grid instants)
    binding: tuple[str, ...]  # constraint families active in the window
    best_fixed_caps: dict[str, int] | None  # best single point that holds the trip all run
    best_fixed_ips: float | None
    #: Max fused temperature when the optimum's mix is replayed on the exact (nonlinear) plant:
    #: how far the relaxation's trajectory is from a real one (the bound's looseness in °C).
    replay_max_fused_c: float | None = None
    #: Reference, not a bound: the best schedule whose throughput never rises (``sustained=True``).
    sustained_ips: float | None = None
    #: The optimum itself, for replaying it as a real schedule (:mod:`.lpreplay`): the operating
    #: points (programme order) and each grid interval's time share of each (intervals, points).
    points: tuple[dict[str, int], ...] = field(default=(), compare=False)
    shares: np.ndarray | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class PackRows:
    """The pack's terms of the programme (:mod:`.packbound`): a run the battery can end early.

    ``off`` is the column of the *off* point (zero power, no work): a real run is on, then off
    for good once its pack is empty, so its share never falls (``w_off`` non-decreasing).  The
    programme covers the runs whose pack empties in intervals ``first_off .. all_off - 1``: the
    share is 0 before and 1 from ``all_off`` on (``all_off = n``: the run may last).  A run
    already off holds no limit, so the temperature rows stand only up to instant ``first_off``
    (the last such a run is on at) and the throttle rows up to that interval.  Energy drawn from the pack,
    ``sum_i sum_k energy_w[i,k] w_ik + energy_t[i] . (mean node temperatures of interval i)``,
    is at most ``energy_rhs`` (J).
    """

    off: int
    first_off: int
    all_off: int
    energy_w: np.ndarray  # (intervals, points) J per unit share
    energy_t: np.ndarray  # (intervals, nodes) J per K of the interval's mean node temperature
    energy_rhs: float


@dataclass(frozen=True, slots=True)
class _Solution:
    w: np.ndarray  # (intervals, points) time shares
    x: np.ndarray  # (intervals, nodes) excess temperatures at the grid instants 1..n
    window_done: float  # fluid completions inside the window


# -- operating points ---------------------------------------------------------------------------
def operating_points(board: BoardProfile, saturating: bool, batch: int = 1) -> list[OperatingPoint]:
    """Every OPP combination (minus dominated ones) and, for a non-saturating load, idle."""
    model = board.model
    pts = []
    for combo in itertools.product(*(d.opp_hz for d in board.domains)):
        caps = {d.name: f for d, f in zip(board.domains, combo, strict=True)}
        rate = batch / costmodel.inference_time_s(model, {d: caps[d] for d in model.cycles}, batch)
        pts.append(OperatingPoint(caps, rate, True))
    ref = {d.node: 85.0 for d in board.domains}
    # Dominated: another point at least as fast, at no higher voltage in any domain (so no more
    # leakage) and no more power into any node, and different.  Dropping it loses nothing.
    keys = [
        (
            p.throughput_ips,
            tuple(d.volt_at(p.caps_hz[d.name]) for d in board.domains),
            tuple(_domain_powers(board, p, ref).values()),
        )
        for p in pts
    ]
    order = sorted(range(len(pts)), key=lambda i: -keys[i][0])
    keep: list[int] = []
    for i in order:
        ri, vi, pi = keys[i]
        dominated = any(
            keys[j][0] >= ri - 1e-9
            and all(a <= b for a, b in zip(keys[j][1], vi, strict=True))
            and all(a <= b + 1e-12 for a, b in zip(keys[j][2], pi, strict=True))
            and pts[j].caps_hz != pts[i].caps_hz
            for j in keep
        )
        if not dominated:
            keep.append(i)
    out = [pts[i] for i in sorted(keep)]
    if not saturating:
        out.append(OperatingPoint({d.name: d.opp_hz[0] for d in board.domains}, 0.0, False))
    return out


def _domain_powers(board: BoardProfile, pt: OperatingPoint, temps: Mapping[str, float]) -> dict[str, float]:
    cores = _busy_cores(board, pt)
    out: dict[str, float] = {}
    for d in board.domains:
        f = pt.caps_hz[d.name]
        out[d.node] = out.get(d.node, 0.0) + costmodel.domain_power_w(
            d, f, cores.get(d.name, 0.0), temps[d.node]
        )
    return out


def _busy_cores(board: BoardProfile, pt: OperatingPoint, batch: int = 1) -> dict[str, float]:
    if not pt.busy:
        return {}
    model = board.model
    caps = {d: pt.caps_hz[d] for d in model.cycles}
    return costmodel.batch_busy_cores(model, caps, batch, 1.0)


class _PowerModel:
    """Vectorised ``P_k(T)`` per node for all points: the world's formula, term by term."""

    def __init__(self, board: BoardProfile, points: Sequence[OperatingPoint], index: Mapping[str, int]):
        n, k = len(index), len(points)
        th = board.thermal
        self.base = np.zeros((k, n))  # idle + dynamic + rest of board
        self.leak = []  # (node, coef per point, beta, ref)
        for j, pt in enumerate(points):
            self.base[j, index[th.rest_of_board_node]] += th.rest_of_board_w
            cores = _busy_cores(board, pt)
            for d in board.domains:
                f = pt.caps_hz[d.name]
                self.base[j, index[d.node]] += d.idle_w + costmodel.dynamic_power_w(
                    d, f, cores.get(d.name, 0.0)
                )
        for d in board.domains:
            if d.leak_w_ref:
                coef = np.array([d.leak_w_ref * d.volt_at(p.caps_hz[d.name]) / d.volt_v[-1] for p in points])
                self.leak.append((index[d.node], coef, d.leak_beta_per_k, d.leak_ref_c))
        self.bat = board.battery
        self.bat_node = index[self.bat.node] if self.bat else -1
        self.rest_node = index[th.rest_of_board_node]

    def lower(
        self,
        t0_c: np.ndarray,
        t_lo_c: float,
        *,
        t_low_c: np.ndarray | None = None,
        t_hi_c: np.ndarray | None = None,
        c_ref: Sequence[np.ndarray] | None = None,
        docked: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """A lower bound on every point's power, affine in the interval's node temperatures.

        ``t0_c`` (steps, nodes) is where the leakage is linearised and ``t_lo_c`` a temperature
        no node can go below.  Returns ``B`` (steps, points, nodes) and ``M`` (steps, nodes,
        nodes) with ``P_k(T) >= B_k + M T`` for every reachable ``T``:

        * leakage ``c_k g(T)`` (``g = exp(beta (T - ref))``, convex and increasing) is split as
          ``c_ref g(T) + (c_k - c_ref) g(T)``; the first part is at least its tangent at ``T0``
          (linear in ``T``, the same for every point), the second at least
          ``(c_k - c_ref) g(T_low)`` where ``c_k >= c_ref`` (``T_low``: a temperature the node
          cannot be below in that interval, ``t_low_c``, else ``t_lo_c``) and at least
          ``(c_k - c_ref) g(T_hi)`` where ``c_k < c_ref`` (``T_hi``: the hottest the node may be
          under the constraints, ``t_hi_c``; without it ``c_ref`` is the least ``c_k``);
        * converter loss is linear in the total, so it takes the tangent's slope too;
        * the battery's ``I^2 R`` is charged on the total with leakage at ``t_lo`` (it grows
          with the total, so a smaller total gives a smaller heat), except in the intervals
          ``docked`` marks (steps,): there the charger feeds the board and the pack carries only
          the charge current, which the charger may stop (pack full, outside its temperature
          window), so 0 is charged.

        Any ``T0`` and any ``c_ref`` (per interval, per leaky domain) give a bound (a tangent of
        a convex function lies below it; ``g`` is increasing); the optimum's own trajectory and
        voltage mix give the tightest one.  The looseness is the leakage spread between the
        points run and ``c_ref`` times ``g(T) - g(T_low)`` or ``g(T_hi) - g(T)``.
        """
        steps, nn = t0_c.shape
        k = self.base.shape[0]
        b = np.broadcast_to(self.base, (steps, k, nn)).copy()
        m = np.zeros((steps, nn, nn))
        eff = self.bat.converter_efficiency if self.bat is not None else 1.0
        floor_leak = np.zeros((k, nn))  # leakage at t_lo, for the battery's current
        for j, (node, coef, beta, ref) in enumerate(self.leak):
            g_lo = math.exp(min(beta * (t_lo_c - ref), 50.0))
            if c_ref is None or t_hi_c is None or t_hi_c[node] >= 500.0:  # no ceiling: c_min
                cr = np.full(steps, float(coef.min()))
            else:
                cr = np.clip(np.asarray(c_ref[j], dtype=float), float(coef.min()), float(coef.max()))
            low = np.full(steps, t_lo_c) if t_low_c is None else np.maximum(t_low_c[:, node], t_lo_c)
            g_low = np.exp(np.minimum(beta * (low - ref), 50.0))
            g_hi = math.exp(min(beta * (float(t_hi_c[node]) - ref), 50.0)) if t_hi_c is not None else 0.0
            diff = coef[None, :] - cr[:, None]  # (steps, points)
            excess = np.where(diff >= 0.0, diff * g_low[:, None], diff * g_hi)
            g0 = np.exp(np.minimum(beta * (t0_c[:, node] - ref), 50.0))
            slope = cr * beta * g0
            tangent0 = cr * g0 - slope * t0_c[:, node]
            b[:, :, node] += excess + tangent0[:, None]
            m[:, node, node] += slope
            floor_leak[:, node] += coef * g_lo
            if self.bat is not None:
                extra = 1.0 / eff - 1.0
                b[:, :, self.rest_node] += extra * (excess + tangent0[:, None])
                m[:, self.rest_node, node] += extra * slope
        if self.bat is not None:
            total = (self.base + floor_leak).sum(axis=1)
            current = total / eff / self.bat.voltage_v
            heat = np.broadcast_to(current * current * self.bat.r0_ohm, (steps, k))
            if docked is not None:
                heat = np.where(docked[:, None], 0.0, heat)
            b[:, :, self.bat_node] += heat
            b[:, :, self.rest_node] += ((1.0 / eff - 1.0) * self.base.sum(axis=1))[None, :]
        return b, m

    def floor(self, t_lo_c: float) -> np.ndarray:
        """Per node, the least power any point draws at any temperature ``>= t_lo_c`` (nodes,)."""
        p = self.base.copy()
        for node, coef, beta, ref in self.leak:
            p[:, node] += coef * math.exp(min(beta * (t_lo_c - ref), 50.0))
        return p.min(axis=0)

    def voltage_mix(self, w: np.ndarray) -> list[np.ndarray]:
        """Per leaky domain, the time-share-weighted leakage coefficient of schedule ``w``."""
        return [w @ coef for _, coef, _, _ in self.leak]

    def powers(self, temps_c: np.ndarray, docked: np.ndarray | None = None) -> np.ndarray:
        """``temps_c`` (steps, nodes) -> power (steps, points, nodes).

        The pack's I²R is the board's current's, except in the steps ``docked`` marks, where
        the charger feeds the board and the pack is taken as full (no charge current)."""
        p = np.broadcast_to(self.base, (temps_c.shape[0], *self.base.shape)).copy()
        for node, coef, beta, ref in self.leak:
            x = np.minimum(beta * (temps_c[:, node] - ref), 50.0)
            p[:, :, node] += coef[None, :] * np.exp(x)[:, None]
        if self.bat is not None:
            total = p.sum(axis=2)
            drawn = total / self.bat.converter_efficiency
            current = drawn / self.bat.voltage_v
            heat = current * current * self.bat.r0_ohm
            if docked is not None:
                heat = np.where(docked[:, None], 0.0, heat)
            p[:, :, self.bat_node] += heat
            p[:, :, self.rest_node] += drawn - total
        return p


# -- the scenario on a grid ---------------------------------------------------------------------
@dataclass
class _Grid:
    step_s: float
    n: int
    phi: list[np.ndarray]  # per interval (shared objects between events)
    gam: list[np.ndarray]
    ambient: np.ndarray  # ambient in force during interval i
    shift: np.ndarray  # (n, nodes): x jump at the start of interval i (ambient step)
    x0: np.ndarray
    index: dict[str, int]
    names: tuple[str, ...]


def _grid(config: Config, board: BoardProfile, step_s: float) -> _Grid:
    world = SimWorld(board, config)
    plant: ThermalPlant = world.plant
    if world.fan is not None:
        # A fan the schedule may command: at its most conductive level all run (until it
        # stalls), the most cooling any fan schedule gets, so the bound covers every one.
        g = world.fan.profile.conductance_w_per_k
        world.fan.apply(max(range(len(g)), key=lambda i: g[i]))
    n = round(config.sim.duration_s / step_s)
    events = sorted(
        (e for e in config.sim.events if e.kind in ("ambient", "ambient_link", "fan_stall")),
        key=lambda e: e.at_s,
    )
    x0 = plant.x.copy()
    phi, gam = [], []
    ambient = np.zeros(n)
    shift = np.zeros((n, len(plant.names)))
    ev = 0
    cur = _matrices(plant, step_s)
    for i in range(n):
        while ev < len(events) and round(events[ev].at_s / step_s) <= i:
            e = events[ev]
            if e.kind == "ambient":
                shift[i] += plant.ambient_c - e.value
                plant.set_ambient(e.value)
            elif e.kind == "fan_stall":
                if world.fan is not None:
                    world.fan.stall()
                    cur = _matrices(plant, step_s)
            else:
                plant.scale_ambient_link(e.target, e.value)
                cur = _matrices(plant, step_s)
            ev += 1
        phi.append(cur[0])
        gam.append(cur[1])
        ambient[i] = plant.ambient_c
    return _Grid(step_s, n, phi, gam, ambient, shift, x0, dict(plant.index), plant.names)


def docked_intervals(config: Config, grid: _Grid) -> np.ndarray | None:
    """Per grid interval, whether the board may be docked (on a charger) in any part of it.

    A battery board starts on its pack; ``plugged`` docks it, ``unplugged`` and ``on_the_move``
    undock it (:func:`thermogov.sim.model.runner.apply_event`).  The runner applies an event at
    the first tick at or after its time, so a docked stretch is widened by one interval at each
    end: marking an interval docked only lowers the battery heat charged there, which keeps the
    bound a bound.  None when no interval is docked (the programme is then unchanged).
    """
    supply = sorted((e for e in config.sim.events if e.kind in SUPPLY_EVENTS), key=lambda e: e.at_s)
    docked = np.zeros(grid.n, dtype=bool)
    plugged_at: float | None = None
    for e in [*supply, None]:
        at = config.sim.duration_s if e is None else e.at_s
        if e is not None and e.kind == "plugged":
            if plugged_at is None:
                plugged_at = at
            continue
        if plugged_at is not None:
            first = max(math.floor(plugged_at / grid.step_s) - 1, 0)
            last = min(math.ceil(at / grid.step_s) + 1, grid.n)
            docked[first:last] = True
            plugged_at = None
    return docked if docked.any() else None


def _matrices(plant: ThermalPlant, h: float) -> tuple[np.ndarray, np.ndarray]:
    """``Phi(h)`` and ``Gamma(h)`` column by column from the plant's own exact step."""
    n = len(plant.names)
    saved = plant.x.copy()
    phi = np.zeros((n, n))
    gam = np.zeros((n, n))
    zero = np.zeros(n)
    for j in range(n):
        plant.x = np.eye(n)[j].copy()
        plant.advance(h, zero)
        phi[:, j] = plant.x
        plant.x = zero.copy()
        plant.advance(h, np.eye(n)[j])
        gam[:, j] = plant.x
    plant.x = saved
    return phi, gam


def _simulate(grid: _Grid, power: np.ndarray) -> np.ndarray:
    """Node temperatures at grid instants 0..n for per-interval node power ``power`` (n, nodes)."""
    x = grid.x0.copy()
    temps = np.zeros((grid.n + 1, len(grid.names)))
    temps[0] = x + grid.ambient[0]
    for i in range(grid.n):
        x = grid.phi[i] @ (x + grid.shift[i]) + grid.gam[i] @ power[i]
        temps[i + 1] = x + grid.ambient[i]
    return temps


@dataclass(frozen=True, slots=True)
class _ArrivalBound:
    completed: np.ndarray  # fastest server's completions by each grid instant
    window_max: float  # most completions any server can make inside the window


def _arrival_bound(config: Config, board: BoardProfile, grid: _Grid, win: tuple[int, int]) -> _ArrivalBound:
    """What the world's own server, held at the top clocks, completes on the scenario's arrivals.

    With the same arrivals and the same finite FIFO queue, a server that is never slower has a
    queue that is never longer, so it accepts every frame a slower one accepts and completes at
    least as many by every instant.  Inside a window any server completes at most what the
    fastest accepts there plus what it already had queued (queue limit + one batch).
    """
    w = config.sim.workload
    seeds = np.random.SeedSequence(config.seed).spawn(2 + len(board.sensors))
    # The world's streams: its arrivals and its requests' work.
    server = InferenceServer(board.model, w, np.random.default_rng(seeds[0]), np.random.default_rng(seeds[1]))
    server.set_clocks({d.name: d.opp_hz[-1] for d in board.domains if d.name in board.model.cycles})
    counter = ArrivalProcess(w, np.random.default_rng(seeds[0]))  # an identical copy, to count
    out = np.zeros(grid.n + 1)
    accepted = np.zeros(grid.n + 1)
    arrived = 0
    for i in range(1, grid.n + 1):
        t = i * grid.step_s
        server.advance(t)
        while counter.next_t <= t:
            counter.pop()
            arrived += 1
        out[i] = server.completed
        accepted[i] = arrived - server.dropped
    inside = accepted[win[1]] - accepted[win[0]] + w.queue_limit + w.batch_size
    return _ArrivalBound(out, float(inside))


def grid_step_s(config: Config) -> float:
    """The oracle's default interval: 2 s, coarser for runs over 30 min (~900 intervals)."""
    return max(2.0, math.ceil(config.sim.duration_s / 900.0))


def interval_rates(t_s: Sequence[float], total: Sequence[float], step_s: float, n: int) -> np.ndarray:
    """Mean completion rate in each of ``n`` grid intervals from a trace's cumulative count."""
    edges = np.arange(n + 1) * step_s
    done = np.interp(edges, np.asarray(t_s, dtype=float), np.asarray(total, dtype=float))
    return np.diff(done) / step_s


def steady_window(config: Config) -> tuple[float, float]:
    """The recorder's window: its start is the whole-second record at or before the fraction."""
    d = config.sim.duration_s
    return float(math.floor(d * (1.0 - config.sim.steady_fraction))), d


# -- the programme ------------------------------------------------------------------------------
@dataclass
class _Outputs:
    rows: list[tuple[str, np.ndarray, float]]  # (family, node weights, limit °C)
    throttles: list[tuple[str, int, np.ndarray, float]]  # (family, node, theta per point, delta)


def _outputs(
    config: Config,
    board: BoardProfile,
    grid: _Grid,
    points: Sequence[OperatingPoint],
    trip_c: float,
    t_lo_c: float,
) -> _Outputs:
    specs = config.sensor_specs(board)
    fused = np.zeros(len(grid.names))
    for s in specs:
        fused[grid.index[board.sensor(s.name).node]] += s.weight / sum(x.weight for x in specs)
    rows: list[tuple[str, np.ndarray, float]] = [("trip", fused, trip_c)]
    for s in specs:
        e = np.zeros(len(grid.names))
        e[grid.index[board.sensor(s.name).node]] = 1.0
        rows.append((f"hard_limit:{s.name}", e, s.hard_limit_c - 1e-3))
    throttles = []
    for p in board.protections:
        if p.kind != "throttle":
            continue
        theta = np.array([throttle_allows_c(p, board, pt.caps_hz) for pt in points])
        for node in p.nodes:
            # A throttle above a hard limit on the same node can never act first: skip it.
            limits = [s.hard_limit_c for s in specs if board.sensor(s.name).node == node]
            finite = theta[np.isfinite(theta)]
            if finite.size and not (limits and finite.min() >= min(limits)):
                # A point the throttle never touches may run at any temperature the other
                # constraints allow: its theta is the node's own ceiling, not "infinity" (with
                # 1000 °C, a sliver of such a point in the mix let the hull forgive any
                # temperature, 10 % on a hot Pi).
                theta_n = np.where(np.isfinite(theta), theta, _node_ceiling(rows, grid.index[node], t_lo_c))
                throttles.append((f"board_throttle:{node}", grid.index[node], theta_n, p.period_ms / 1000.0))
    return _Outputs(rows, throttles)


def _node_ceiling(rows: Sequence[tuple[str, np.ndarray, float]], node: int, t_lo_c: float) -> float:
    """The hottest ``node`` can be at a grid instant under the rows (every other node >= ``t_lo_c``).

    A row ``sum_j v_j T_j <= L`` with ``v >= 0`` gives ``T_node <= (L - sum_{j != node} v_j t_lo) / v_node``.
    """
    best = 1e3  # no row reaches the node: nothing bounds it below the protection's own ramp
    for _, vec, limit in rows:
        if vec[node] > 0:
            best = min(best, (limit - (float(vec.sum()) - float(vec[node])) * t_lo_c) / float(vec[node]))
    return best


def _poll_delta(grid: _Grid, power: np.ndarray, temps: np.ndarray, node: int, period_s: float) -> float:
    """Largest rise of ``node`` within one poll period, from the optimum's hottest state.

    A throttle compares at its polls and holds its cap in between, so a point may run up to
    one poll's drift above its ``theta``.  Estimated as the exact one-step rise at the fastest
    point, scaled to the poll period (conservative: it includes the die's jump to the new clock).
    """
    i = int(np.argmax(temps[:-1, node]))
    x = temps[i] - grid.ambient[i]
    rise = max(float((grid.phi[i] @ x + grid.gam[i] @ pw)[node] - x[node]) for pw in power[i])
    return max(rise, 0.0) * min(period_s / grid.step_s, 1.0)


def oracle(
    config: Config,
    board: BoardProfile | None = None,
    trip_c: float = TRIP_C,
    step_s: float | None = None,
    *,
    sustained: bool = False,
    history_ips: Sequence[float] | np.ndarray | None = None,
    any_window: bool = False,
) -> OracleResult:
    """Solve the scenario's programme (see the module docstring).

    ``any_window`` makes it the *anticipation-free* bound (:mod:`.anywindow`): the objective is
    the least completions over every window as long as the steady window whose start lies on
    the grid between the run's start and the steady window's start (an epigraph variable), so
    heat banked before one window is paid for in another.  Its rate bounds any schedule's
    *worst* such window (:func:`.anywindow.worst_window_ips`), not its steady window.

    ``history_ips`` (saturating loads only; one rate per grid interval before the window, see
    :func:`interval_rates`) makes it the *same-history* bound: before the window the schedule
    completes at least what a policy did in each interval, so it cannot bank the heat that
    policy spent; inside the window it is free.  With ``any_window`` the history may be shorter
    (the run's first intervals only): the *causal* bound of :mod:`.causal`.  A bound on what any schedule with that past
    can do in the window: how much of a policy's gap is its control and how much its history.

    ``step_s`` defaults to 2 s, coarser for runs over 30 min so the programme keeps ~900
    intervals: every constraint is checked at fewer instants, which can only raise the bound.
    """
    board = board or config.load_board()
    if step_s is None:
        step_s = grid_step_s(config)
    if config.sim.duration_s < 10 * step_s:
        raise ConfigError(f"oracle: the run must last at least {10 * step_s:g} s")
    saturating = config.sim.workload.kind == "saturating"
    if history_ips is not None and not saturating:
        raise ConfigError("oracle: history_ips needs a saturating load (an open load's rate is its arrivals)")
    if any_window and sustained:
        raise ConfigError("oracle: any_window is a bound of its own; it takes no sustained")
    if any_window and not saturating:
        # An open load's completions in a window are bounded by its arrivals there, but a lucky
        # stretch of light requests beats the fluid count and the drops break the contiguous-run
        # argument of the luck bound: not handled, so not claimed.
        raise ConfigError("oracle: any_window needs a saturating load (an open load's rate is its arrivals)")
    points = operating_points(board, saturating, config.sim.workload.batch_size)
    grid = _grid(config, board, step_s)
    pm = _PowerModel(board, points, grid.index)
    # No node is ever colder than the coldest of the ambient it sees and its start (the board
    # only produces heat): the floor under which the leakage bound is taken.
    t_lo = float(min(grid.ambient.min(), (grid.x0 + grid.ambient[0]).min()))
    outs = _outputs(config, board, grid, points, trip_c, t_lo)
    rates = np.array([p.throughput_ips for p in points])
    reach = math.ceil(float(rates.max()) * config.sim.duration_s) + 1  # requests a run can reach

    def bound_rate(window_done: float) -> float:
        """The programme's window completions as a bound on what the recorder can count.

        Luck (requests lighter than the mean, :mod:`workbound`) is judged on the recorder's
        window, which may be shorter than the grid's; so is the one batch straddling its edge.
        """
        grid_s = (win[1] - win[0]) * step_s
        # The any-window score is measured on the grid's own windows (anywindow.worst_window_ips).
        rec_s = grid_s if any_window else min(t1 - t0, grid_s)
        # Luck holds for an open load too: one whose arrivals outrun the server keeps its queue
        # full, and a FIFO server then completes a run of the world's requests exactly as a
        # saturating stream does (Session 26s: an overloaded Pi 4 served 21.46 inf/s against a
        # bound of 21.44).  Its count inside the window is also bounded by its arrivals there
        # (``cap.window_max``, whole requests), which the programme's fluid work already keeps.
        luck = lucky_ratio(config, board, window_done * rec_s / grid_s, reach)
        done = window_done * luck
        if cap is not None:
            done = max(window_done, min(done, cap.window_max))
        return done / grid_s + config.sim.workload.batch_size / rec_s

    t0, t1 = steady_window(config)
    win = (round(t0 / step_s), grid.n)
    history = None
    # Same history: every interval before the window.  With ``any_window`` (the causal bound,
    # :mod:`.causal`) the run's first ``len(history_ips)`` intervals, up to an event's instant.
    m = min(len(history_ips), grid.n) if history_ips is not None and any_window else win[0]
    if history_ips is not None and m > 0:
        if len(history_ips) < m:
            raise ConfigError(
                f"oracle: history_ips has {len(history_ips)} intervals, the window starts at {win[0]}"
            )
        # The policy's count by each instant, as the work it took (its own requests' draws,
        # whole batches): lucky short requests must not force the schedule to do more work.
        reachable = float(rates.max()) * step_s * np.arange(1, m + 1)
        count = np.minimum(np.cumsum(np.asarray(history_ips[:m], dtype=float)) * step_s, reachable)
        k = config.sim.workload.batch_size
        prefix = work_prefix(config, board, int(count[-1]) + 2 * k if count.size else 2 * k)
        batches = np.minimum(np.floor(count / k + 1e-9).astype(int), len(prefix) - 2)
        # Done by each instant, in the programme's units (mean inferences): its completed
        # batches, and at most the one in service.  A request's time is a fixed overhead plus its
        # drawn work, so its cost lies between one mean inference and its draw: both are bounds.
        lo = np.minimum(batches * k, prefix[batches])
        hi = np.maximum((batches + 1) * k, prefix[batches + 1])
        history = np.stack([np.minimum(lo, reachable), hi])
    cap = None if saturating else _arrival_bound(config, board, grid, win)

    # A fixed cap under a Poisson load would also drop frames in bursts, which this check does
    # not model, so the reference point is reported for saturating loads only.
    docked = docked_intervals(config, grid) if board.battery is not None else None
    best_caps, best_ips = _best_fixed(grid, pm, outs, points, rates, docked) if saturating else (None, None)
    # First linearisation point for leakage: the best fixed point's (or the lowest point's) run.
    k_ref = 0 if best_caps is None else next(k for k, p in enumerate(points) if dict(p.caps_hz) == best_caps)
    temps = _simulate(grid, pm.powers(_flat(grid, 50.0))[:, k_ref])
    # Where the leakage spread is charged (see _PowerModel.lower): no node is colder than the
    # run at every node's least power, nor hotter than the constraints let it be.
    t_low = _coldest(grid, pm.floor(t_lo))
    t_hi = np.array([_node_ceiling(outs.rows, j, t_lo) for j in range(len(grid.names))])
    c_ref = [np.full(grid.n, coef[k_ref]) for _, coef, _, _ in pm.leak]

    def solve(temps: np.ndarray, monotone: bool) -> tuple[_Solution | None, list[float]]:
        power = pm.powers(temps[:-1])
        deltas = [_poll_delta(grid, power, temps, node, per) for _, node, _, per in outs.throttles]
        lower_b, lower_m = pm.lower(
            0.5 * (temps[:-1] + temps[1:]), t_lo, t_low_c=t_low, t_hi_c=t_hi, c_ref=c_ref, docked=docked
        )
        return _solve(
            grid, lower_b, lower_m, outs, deltas, rates, cap, win, monotone, history, any_window
        ), deltas

    sol, bound_ips, deltas = None, None, []
    for _ in range(3):
        # Every round is a bound (any linearisation point is); the next round linearises on
        # this optimum's exact trajectory, which can only tighten it, and the least is kept.
        sol_i, deltas_i = solve(temps, monotone=False)
        if sol_i is None:
            break
        ips = bound_rate(sol_i.window_done)
        if bound_ips is None or ips < bound_ips:
            sol, bound_ips, deltas = sol_i, ips, deltas_i
        temps = _simulate(grid, np.einsum("ik,ikn->in", sol_i.w, pm.powers(temps[:-1])))
        c_ref = pm.voltage_mix(sol_i.w)
    if sol is None:
        return OracleResult(None, (t0, t1), (), None, (), best_caps, best_ips)
    sustained_ips = None
    if sustained and saturating:
        ref, _ = solve(temps, monotone=True)
        if ref is not None:
            sustained_ips = bound_rate(ref.window_done)
    w = sol.w
    share = w[win[0] : win[1]].mean(axis=0)
    mix = tuple(
        (dict(points[k].caps_hz) if points[k].busy else {"idle": 0}, float(share[k]))
        for k in np.argsort(-share)
        if share[k] > 1e-4
    )
    lp_temps = sol.x + grid.ambient[:, None]  # instants 1..n
    binding = _binding(np.vstack([grid.x0 + grid.ambient[0], lp_temps]), outs, w, deltas, win)
    fused_vec = outs.rows[0][1]
    return OracleResult(
        # The recorder counts whole inferences: a window can hold one more batch than the fluid
        # completions of the programme, so that much is added to keep the bound a bound.
        throughput_ips=bound_ips,
        window_s=(t0, t1),
        mix=mix,
        max_fused_c=float(np.max(lp_temps @ fused_vec)),
        binding=binding,
        best_fixed_caps=best_caps,
        best_fixed_ips=best_ips,
        replay_max_fused_c=float(np.max(temps[1:] @ fused_vec)),
        sustained_ips=sustained_ips,
        points=tuple(dict(p.caps_hz) for p in points),
        shares=w,
    )


def _coldest(grid: _Grid, floor_w: np.ndarray) -> np.ndarray | None:
    """Interval mean node temperatures (n, nodes) no schedule can go below, or None.

    Every point draws at least ``floor_w`` into each node at every temperature, and a heat
    network's exact step has non-negative ``Phi`` and ``Gamma`` (heat flows from hot to cold
    only), so the run at ``floor_w`` stays at or below any schedule's run at every grid instant.
    If the matrices are not non-negative the argument fails and None is returned.
    """
    if any(float(m.min()) < -1e-12 for m in (*grid.phi, *grid.gam)):
        return None
    temps = _simulate(grid, np.tile(floor_w, (grid.n, 1)))
    return 0.5 * (temps[:-1] + temps[1:])


def _flat(grid: _Grid, rise: float) -> np.ndarray:
    return np.tile(grid.x0 + grid.ambient[0] + rise, (grid.n, 1))


def _binding(
    temps: np.ndarray, outs: _Outputs, w: np.ndarray, deltas: Sequence[float], win: tuple[int, int]
) -> tuple[str, ...]:
    found = []
    seg = temps[win[0] + 1 : win[1] + 1]
    for name, vec, limit in outs.rows:
        if np.max(seg @ vec) > limit - 0.05:
            found.append(name)
    for (name, node, theta, _), delta in zip(outs.throttles, deltas, strict=True):
        allowed = w[win[0] : win[1]] @ theta + delta
        if np.any(seg[:, node] > allowed - 0.05):
            found.append(name)
    return tuple(dict.fromkeys(found))


def _best_fixed(
    grid: _Grid,
    pm: _PowerModel,
    outs: _Outputs,
    points: Sequence[OperatingPoint],
    rates: np.ndarray,
    docked: np.ndarray | None = None,
) -> tuple[dict[str, int] | None, float | None]:
    """The fastest single point whose own exact run (leakage at its real temperatures) holds.

    While ``docked`` the pack is taken as full (no I²R): an estimate of tightness, not a bound;
    its run draws at least the programme's power there, so it stays under the bound."""
    for k in np.argsort(-rates):
        if not points[k].busy:
            continue
        x = grid.x0.copy()
        ok = True
        temps = grid.x0 + grid.ambient[0]
        for i in range(grid.n):
            dock = None if docked is None else docked[i : i + 1]
            x, temps, ok = step_holds(grid, outs, x, i, pm.powers(temps[None, :], dock)[0, k], k)
            if not ok:
                break
        if ok:
            return dict(points[k].caps_hz), float(rates[k])
    return None, None


def step_holds(
    grid: _Grid, outs: _Outputs, x: np.ndarray, i: int, power: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Interval ``i`` of point ``k``'s exact run at node ``power``: the new state and temperatures,
    and whether they hold every row and point ``k``'s throttle temperatures."""
    x = grid.phi[i] @ (x + grid.shift[i]) + grid.gam[i] @ power
    temps = x + grid.ambient[i]
    ok = not (
        any(float(temps @ vec) >= limit for _, vec, limit in outs.rows)
        or any(temps[node] > theta[k] for _, node, theta, _ in outs.throttles)
    )
    return x, temps, ok


def _solve(
    grid: _Grid,
    lower_b: np.ndarray,
    lower_m: np.ndarray,
    outs: _Outputs,
    deltas: Sequence[float],
    rates: np.ndarray,
    cap: _ArrivalBound | None,
    win: tuple[int, int],
    monotone: bool,
    history: np.ndarray | None = None,
    any_window: bool = False,
    pack: PackRows | None = None,
) -> _Solution | None:
    """The window-completions programme; returns ``w`` (intervals x points) or None if infeasible.

    Variables: ``x_1..x_n`` (node excess temperatures), ``w_0..w_{n-1}`` (time shares), for a
    Poisson load the cumulative completions ``c_0..c_{n-1}``, and with ``history`` (2 x instants
    before the window: the least and the most work a policy had done by each) the cumulative
    work before it.
    """
    n, nn, kk = grid.n, len(grid.names), len(rates)
    h = grid.step_s
    nx, nw = n * nn, n * kk
    nc = n if cap is not None else 0
    nh = history.shape[1] if history is not None else 0
    # Any window: cumulative completions (the Poisson load's own when it has them) and ``z``,
    # the least completions over the windows, as the last column.
    na = (n if cap is None else 0) + 1 if any_window else 0
    nv = nx + nw + nc + nh + na

    def xi(i: int) -> int:  # column of x_i (i = 1..n), node 0
        return (i - 1) * nn

    def wi(i: int) -> int:  # column of w_i (i = 0..n-1), point 0
        return nx + i * kk

    eq = _Rows()
    eye = np.eye(nn)
    for i in range(n):
        # Interval i starts at s_i = x_i + shift_i and ends at x_{i+1}; its power is at least
        # sum_k w_ik B_ik + M_i (mean node temperature), so with G = Gamma_i:
        # (I - G M/2) x_{i+1} - (Phi + G M/2) x_i - sum_k G B_ik w_ik = (Phi + G M/2) shift_i + G M amb_i
        gm = grid.gam[i] @ lower_m[i]
        lhs_next = eye - 0.5 * gm
        lhs_prev = grid.phi[i] + 0.5 * gm
        gp = grid.gam[i] @ lower_b[i].T  # (nn, kk)
        rhs = lhs_prev @ (grid.shift[i] + (grid.x0 if i == 0 else 0.0)) + gm @ np.full(nn, grid.ambient[i])
        for a in range(nn):
            entries = [
                (xi(i + 1) + b, float(lhs_next[a, b])) for b in range(nn) if abs(lhs_next[a, b]) > 1e-12
            ]
            if i > 0:
                entries += [(xi(i) + b, -lhs_prev[a, b]) for b in range(nn) if abs(lhs_prev[a, b]) > 1e-12]
            entries += [(wi(i) + k, -gp[a, k]) for k in range(kk)]
            eq.add(entries, float(rhs[a]))
        eq.add([(wi(i) + k, 1.0) for k in range(kk)], 1.0)  # sum_k w_ik = 1
        if cap is not None:  # c_i = c_{i-1} + h sum_k r_k w_ik
            entries = [(nx + nw + i, 1.0)] + ([(nx + nw + i - 1, -1.0)] if i > 0 else [])
            eq.add(entries + [(wi(i) + k, -h * rates[k]) for k in range(kk)], 0.0)
        if any_window and cap is None:  # a_i = a_{i-1} + h sum_k r_k w_ik
            ac = nx + nw + nc + nh
            entries = [(ac + i, 1.0)] + ([(ac + i - 1, -1.0)] if i > 0 else [])
            eq.add(entries + [(wi(i) + k, -h * rates[k]) for k in range(kk)], 0.0)
        if i < nh:  # the same for the history's count, whose bounds are the policy's count
            hc = nx + nw + nc
            entries = [(hc + i, 1.0)] + ([(hc + i - 1, -1.0)] if i > 0 else [])
            eq.add(entries + [(wi(i) + k, -h * rates[k]) for k in range(kk)], 0.0)

    ub = _Rows()
    for i in range(1, n + 1):
        amb = grid.ambient[i - 1]
        if pack is not None and i > pack.first_off:
            break  # a run may be off by then: it holds no limit
        for _, vec, limit in outs.rows:
            ub.add([(xi(i) + int(a), float(vec[a])) for a in np.nonzero(vec)[0]], limit - amb)
    if pack is not None:
        _add_pack_rows(ub, grid, pack, xi, wi)
    last = n if pack is None else min(pack.first_off, n)
    for (_, node, theta, _), delta in zip(outs.throttles, deltas, strict=True):
        for i in range(last):
            # Mean of the interval's end temperatures <= sum_k w_ik theta_k + delta, where the
            # start is x_i after the interval's ambient shift and the end is x_{i+1}.  This is
            # the convex hull of "point k only while T <= theta_k": a mix inside one interval
            # may pass a limit its hottest member may not, so it is an upper bound that is
            # loose by up to ~1.5 % on the RPi (an exact MILP took minutes for 1-2 % less).
            entries = [(xi(j) + node, 0.5) for j in (i, i + 1) if j >= 1]
            entries += [(wi(i) + k, -float(theta[k])) for k in range(kk)]
            const = grid.ambient[i] + 0.5 * grid.shift[i][node] + (0.5 * grid.x0[node] if i == 0 else 0.0)
            ub.add(entries, delta - const)
    if monotone:  # sustained: sum_k r_k w_{i+1,k} <= sum_k r_k w_ik
        for i in range(n - 1):
            ub.add(
                [(wi(i + 1) + k, rates[k]) for k in range(kk)] + [(wi(i) + k, -rates[k]) for k in range(kk)],
                0.0,
            )
    bounds = [(None, None)] * nx + [(0.0, 1.0)] * nw
    if pack is not None:  # on before the runs' earliest empty instant, off after their latest
        for i in range(n):
            if i < pack.first_off:
                bounds[wi(i) + pack.off] = (0.0, 0.0)
            elif i >= pack.all_off:
                bounds[wi(i) + pack.off] = (1.0, 1.0)
    if cap is not None:
        bounds += [(0.0, float(cap.completed[i + 1])) for i in range(n)]
    if history is not None:
        # Same history: by every grid instant before the window the schedule has done the
        # work of the policy's completed requests, and at most that of the batch in service.  Cumulative, so one lucky interval of
        # short requests does not force a faster point; without the upper side the schedule
        # could run ahead early and cool just before the window (banking again).
        bounds += [(float(lo), float(hi) + 1e-6) for lo, hi in history.T]
    if any_window:
        bounds += [(None, None)] * n if cap is None else []
        bounds += [(None, None)]
    if cap is not None and not any_window:
        window_entries = [(nx + nw + n - 1, 1.0)] + ([(nx + nw + win[0] - 1, -1.0)] if win[0] > 0 else [])
        ub.add(window_entries, cap.window_max)
    objective = np.zeros(nv)
    if any_window:
        # z <= completions in [s, s + L) for every grid start s from 0 to the window's start,
        # with L the window's length; the cumulative count by instant j is column ``cum + j - 1``.
        cum = nx + nw if cap is not None else nx + nw + nc + nh
        length = win[1] - win[0]
        for start in range(win[0] + 1):
            entries = [(nv - 1, 1.0), (cum + start + length - 1, -1.0)]
            if start > 0:
                entries.append((cum + start - 1, 1.0))
            ub.add(entries, 0.0)
        objective[nv - 1] = -1.0
    else:
        for i in range(win[0], win[1]):
            objective[wi(i) : wi(i) + kk] = -h * rates
    res = linprog(
        objective,
        A_ub=ub.matrix(nv),
        b_ub=ub.rhs,
        A_eq=eq.matrix(nv),
        b_eq=eq.rhs,
        bounds=bounds,
        method="highs-ipm",
    )
    if not res.success:
        return None
    x = np.asarray(res.x)
    return _Solution(
        w=np.clip(x[nx : nx + nw].reshape(n, kk), 0.0, 1.0),
        x=x[:nx].reshape(n, nn),
        window_done=-float(res.fun),
    )


def _add_pack_rows(
    ub: _Rows, grid: _Grid, pack: PackRows, xi: Callable[[int], int], wi: Callable[[int], int]
) -> None:
    """The pack's energy row and the off point's rows (see :class:`PackRows`)."""
    n, nn, kk = grid.n, len(grid.names), pack.energy_w.shape[1]
    for i in range(n - 1):  # once off, off for good
        ub.add([(wi(i) + pack.off, 1.0), (wi(i + 1) + pack.off, -1.0)], 0.0)
    coefs: dict[int, float] = {}
    const = 0.0
    for i in range(n):
        # mean T of interval i = (x_i + shift_i + x_{i+1}) / 2 + ambient_i (x_0 is the start)
        et = pack.energy_t[i]
        const += float(et @ (0.5 * grid.shift[i] + grid.ambient[i] + (0.5 * grid.x0 if i == 0 else 0.0)))
        for j in (i, i + 1):
            if j >= 1:
                for a in range(nn):
                    coefs[xi(j) + a] = coefs.get(xi(j) + a, 0.0) + 0.5 * float(et[a])
        for k in range(kk):
            coefs[wi(i) + k] = coefs.get(wi(i) + k, 0.0) + float(pack.energy_w[i, k])
    ub.add([(c, v) for c, v in coefs.items() if v != 0.0], pack.energy_rhs - const)


class _Rows:
    """Sparse constraint rows built one at a time."""

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.rhs: list[float] = []

    def add(self, entries: Sequence[tuple[int, float]], rhs: float) -> None:
        r = len(self.rhs)
        for c, v in entries:
            self.rows.append(r)
            self.cols.append(c)
            self.vals.append(float(v))
        self.rhs.append(rhs)

    def matrix(self, ncols: int) -> sp.csr_matrix:
        return sp.csr_matrix((self.vals, (self.rows, self.cols)), shape=(len(self.rhs), ncols))
