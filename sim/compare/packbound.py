"""A bound for runs the battery can end early: the oracle's programme with the pack's energy.

A world whose pack can empty before the scenario ends (orin-battery-robot: docked 5 min, then
8 W of motors on the same pack) ends each run at its own instant, and the recorder scores it
on the last half of what ran.  That figure is no fair race: a policy that draws more empties
the pack sooner, and its last half is earlier and shorter, so the free bound's window
(the scenario's last half) and the run's window are two different things.

**What is scored** (the same for every policy): the work a charge buys, the whole inferences the
run completed from its start until the pack emptied or the scenario ended (the summary's
``inferences_total``).  It is one number per run, on the same world, the same pack and the same
window (start to the pack's end), and it charges both ways of losing: running slow, and running
so hot or so hungry that the pack empties sooner.

**The bound** (:func:`pack_bound`): the oracle's programme (:mod:`.oracle`) over the whole
scenario, objective every interval's completions, with these additions, each met by every real
run, so every run is a feasible point and its count is at most the optimum (plus the luck term
and one batch, as in the oracle, and the work one control period past the empty instant, since
the simulator stops at the first instant after it):

1. an *off* point (no power, no work); once a run's pack is empty it is off for good, so its
   share never falls;
2. the pack's energy: what every interval on battery draws (the board's power from below, the
   oracle's affine bound, over the converter's efficiency, plus the motors' draw while on) is at
   most the charge at the start plus the most the charger can add while docked
   (``sim/model/battery.py``: 0.5 C, up to full);
3. the pack's I²R per phase: docked 0 (the charger may stop), on battery the board's least
   current plus the motors';
4. one programme per *span* of intervals the pack may empty in (:data:`EMPTY_BUCKETS` spans
   from the earliest instant any schedule can empty it, every interval at the most any point
   draws when hot, to the latest, every interval at the least any point draws): off share 0
   before the span and 1 after it, the limits held up to the span's start (a run of that span
   is on there), none inside or after it.  Every run empties in one span (or lasts the run: the
   last span), so the largest span optimum bounds it.  A single programme would let the off
   share stay fractional for the rest of the run, a mixture of runs ending at different
   instants whose averaged temperatures hold the limits while its "on" part runs the top point
   a tenth of the time (2 % looser on orin-battery-robot).

Not handled (None): open loads, whose count is their arrivals, boards without a pack, and
worlds whose pack cannot empty before the scenario ends (the other bounds apply there).

Its tightness is printed beside it: the best single cap, replayed on the exact plant with the
pack (:func:`_best_fixed_charge`), that holds the trip until its pack empties.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np

from thermogov.board import BatteryProfile, BoardProfile
from thermogov.config import Config
from thermogov.sim.compare.oracle import (
    OperatingPoint,
    PackRows,
    _coldest,
    _Grid,
    _grid,
    _node_ceiling,
    _Outputs,
    _outputs,
    _poll_delta,
    _PowerModel,
    _simulate,
    _solve,
    grid_step_s,
    operating_points,
    step_holds,
)
from thermogov.sim.compare.workbound import lucky_ratio
from thermogov.sim.model.battery import CHARGE_C_RATE

#: How many spans the instants a pack can empty at are cut into, one programme each: inside a
#: span no limit is held (a run there may be off), so finer spans give a tighter bound.
EMPTY_BUCKETS = 32


@dataclass(frozen=True, slots=True)
class PackBound:
    count: (
        float | None
    )  # inferences per charge no schedule that keeps the limits can exceed (None: no schedule keeps them)
    available_j: float  # the most energy the pack can give over the run
    earliest_empty_s: float  # no schedule empties the pack before this
    empty_s: tuple[float, float] | None  # the span the optimum's pack empties in
    best_fixed_caps: dict[str, int] | None  # best single point holding the limits until empty
    best_fixed_count: float | None
    best_fixed_empty_s: float | None


@dataclass(frozen=True, slots=True)
class _Phases:
    """Per interval: on battery (else docked) and the external draw on the pack (W)."""

    on_battery: np.ndarray
    external_w: np.ndarray
    available_j: float


def _phases(config: Config, board: BoardProfile, grid: _Grid) -> _Phases:
    """The supply events on the grid and the most energy the pack can give over the run."""
    bat = board.battery
    assert bat is not None
    cap_j = bat.capacity_ah * bat.voltage_v * 3600.0
    soc0 = config.sim.initial_soc if config.sim.initial_soc is not None else bat.initial_soc
    on = np.ones(grid.n, dtype=bool)
    ext: np.ndarray = np.zeros(grid.n)
    events = sorted(
        (e for e in config.sim.events if e.kind in ("plugged", "unplugged", "on_the_move")),
        key=lambda e: e.at_s,
    )
    state, draw, charger = True, 0.0, 0.0
    ev = 0
    for i in range(grid.n):
        while ev < len(events) and round(events[ev].at_s / grid.step_s) <= i:
            e = events[ev]
            state = e.kind != "plugged"
            draw = e.value if e.kind == "on_the_move" else 0.0
            charger = e.value if e.kind == "plugged" else 0.0
            ev += 1
        on[i], ext[i] = state, draw
        if not state:  # docked: the charger adds at most 0.5 C (less if it is small)
            rate = CHARGE_C_RATE * cap_j / 3600.0
            ext[i] = -(min(rate, charger) if charger > 0.0 else rate)
    available = soc0 * cap_j
    # Charge per docked stretch, each at most a full pack (the first, before any draw, up to full).
    stretch, discharged = 0.0, False
    for i in range(grid.n + 1):
        docked = i < grid.n and not on[i]
        if docked:
            stretch += -ext[i] * grid.step_s
        elif stretch > 0.0:
            available += min(stretch, cap_j if discharged else cap_j - soc0 * cap_j)
            stretch = 0.0
        if i < grid.n and on[i]:
            discharged = True
    ext = np.where(on, ext, 0.0)
    return _Phases(on, ext, available)


def _board_total(pm: _PowerModel, temps_c: np.ndarray) -> np.ndarray:
    """The board's own power (no converter loss, no I²R) per step and point at ``temps_c``."""
    bare = copy.copy(pm)
    bare.bat = None
    return bare.powers(temps_c).sum(axis=2)


def pack_bound(config: Config, board: BoardProfile | None = None) -> PackBound | None:
    """Inferences per charge no schedule that keeps the limits can exceed (module docstring).

    None where the pack cannot empty before the scenario ends (the other bounds apply), on a
    board without a battery, and for an open (Poisson, bursty) load, whose count is its arrivals.
    """
    board = board or config.load_board()
    if board.battery is None or config.sim.workload.kind != "saturating":
        return None
    bat = board.battery
    step = grid_step_s(config)
    batch = config.sim.workload.batch_size
    points = operating_points(board, True, batch)
    off = len(points)
    points.append(OperatingPoint({d.name: d.opp_hz[0] for d in board.domains}, 0.0, False))
    grid = _grid(config, board, step)
    pm = _PowerModel(board, points, grid.index)
    pm.base[off] = 0.0  # off: no power at all
    for _, coef, _, _ in pm.leak:
        coef[off] = 0.0
    phases = _phases(config, board, grid)
    t_lo = float(min(grid.ambient.min(), (grid.x0 + grid.ambient[0]).min()))
    outs = _outputs(config, board, grid, points, 85.0, t_lo)
    ceil = np.array([_node_ceiling(outs.rows, j, t_lo) for j in range(len(grid.names))])
    # The earliest the pack can empty: every interval at the most any point draws when hot.
    fan_w = max(board.fan.power_w) if board.fan is not None else 0.0
    most = float(_board_total(pm, np.minimum(ceil, 200.0)[None, :])[0].max()) + fan_w
    drain = np.where(phases.on_battery, most / bat.converter_efficiency + phases.external_w, 0.0)
    spent = np.cumsum(drain) * step
    if spent[-1] < phases.available_j:
        return None
    first_off = int(np.searchsorted(spent, phases.available_j))
    # The latest any run can still be on: every interval at the least any point draws.
    least = float(_board_total(pm, np.full((1, len(grid.names)), t_lo))[0, :off].min())
    slow = (
        np.cumsum(np.where(phases.on_battery, least / bat.converter_efficiency + phases.external_w, 0.0))
        * step
    )
    last = int(np.searchsorted(slow, phases.available_j)) + 1 if slow[-1] >= phases.available_j else grid.n
    width = max(1, math.ceil((last - first_off) / EMPTY_BUCKETS))
    rates = np.array([p.throughput_ips for p in points])
    solver = _BucketSolver(grid, pm, outs, rates, phases, bat, off, t_lo)
    values = solver.bound([(j, min(j + width, grid.n)) for j in range(first_off, last, width)])
    fixed = _best_fixed_charge(grid, pm, outs, points, rates, phases, bat, off)
    if values is None:
        return PackBound(None, phases.available_j, first_off * step, None, *fixed)
    done, bucket = values
    reach = math.ceil(float(rates.max()) * config.sim.duration_s) + 1
    luck = lucky_ratio(config, board, done, reach)
    overshoot = float(rates.max()) * config.governor.control_period_ms / 1000.0
    count = done * luck + batch + overshoot
    empty = (bucket[0] * step, bucket[1] * step)
    return PackBound(count, phases.available_j, first_off * step, empty, *fixed)


class _BucketSolver:
    """The programme for the runs whose pack empties in one span of intervals (a *bucket*).

    Every run empties its pack in exactly one bucket (or lasts the scenario, the last bucket),
    and is a feasible point of that bucket's programme, so the largest bucket optimum bounds
    every run.  Each bucket's optimum under any linearisation is a bound for it; the bucket on
    top is relinearised on its own optimum (up to three rounds, as the oracle) until the top one
    has had its rounds, keeping each bucket's least.
    """

    def __init__(
        self,
        grid: _Grid,
        pm: _PowerModel,
        outs: _Outputs,
        rates: np.ndarray,
        phases: _Phases,
        bat: BatteryProfile,
        off: int,
        t_lo: float,
    ) -> None:
        self.grid, self.pm, self.outs, self.rates, self.phases, self.bat, self.off = (
            grid,
            pm,
            outs,
            rates,
            phases,
            bat,
            off,
        )
        self.t_lo = t_lo
        self.t_hi = np.array([_node_ceiling(outs.rows, j, t_lo) for j in range(len(grid.names))])
        self.t_low = _coldest(grid, pm.floor(t_lo))
        self.heat_fix = _battery_heat(pm, bat, phases, t_lo)
        self.bare = copy.copy(pm)
        self.bare.bat = None

    def bound(self, buckets: list[tuple[int, int]]) -> tuple[float, tuple[int, int]] | None:
        grid, pm = self.grid, self.pm
        temps0 = _simulate(grid, pm.powers(np.tile(grid.x0 + grid.ambient[0] + 50.0, (grid.n, 1)))[:, 0])
        c0 = [np.full(grid.n, coef[0]) for _, coef, _, _ in pm.leak]
        state: dict[tuple[int, int], tuple[float, np.ndarray, list[np.ndarray], int]] = {}
        for b in buckets:
            res = self._round(b, temps0, c0)
            if res is not None:
                state[b] = (res[0], res[1], res[2], 1)
        while state:
            top = max(state, key=lambda b: state[b][0])
            value, temps, c_ref, rounds = state[top]
            if rounds >= 3:
                return value, top
            res = self._round(top, temps, c_ref)
            if res is None:
                state[top] = (value, temps, c_ref, 3)
            else:
                state[top] = (min(value, res[0]), res[1], res[2], rounds + 1)
        return None

    def _round(
        self, bucket: tuple[int, int], temps: np.ndarray, c_ref: list[np.ndarray]
    ) -> tuple[float, np.ndarray, list[np.ndarray]] | None:
        """One linearisation of one bucket: its optimum, and the next round's linearisation."""
        grid, pm, phases, bat, off = self.grid, self.pm, self.phases, self.bat, self.off
        step = grid.step_s
        # Where a run may be off no limit holds, so leakage there is charged at the coldest a
        # node can be (reference share 0), which needs no ceiling.
        late = np.arange(grid.n) >= bucket[0]
        c_ref = [np.where(late, 0.0, c) for c in c_ref]
        mean = 0.5 * (temps[:-1] + temps[1:])
        lower_b, lower_m = pm.lower(mean, self.t_lo, t_low_c=self.t_low, t_hi_c=self.t_hi, c_ref=c_ref)
        lower_b[:, :, pm.bat_node] += self.heat_fix
        board_b, board_m = self.bare.lower(mean, self.t_lo, t_low_c=self.t_low, t_hi_c=self.t_hi, c_ref=c_ref)
        on = phases.on_battery[:, None] * step
        energy_w = on * board_b.sum(axis=2) / bat.converter_efficiency
        energy_w[:, off] -= phases.external_w * step  # the motors stop with the run
        energy_t = on * board_m.sum(axis=1) / bat.converter_efficiency
        rhs = phases.available_j - float(phases.external_w.sum() * step)
        pack = PackRows(off, bucket[0], bucket[1], energy_w, energy_t, rhs)
        power = pm.powers(temps[:-1])
        deltas = [_poll_delta(grid, power, temps, node, per) for _, node, _, per in self.outs.throttles]
        sol = _solve(
            grid, lower_b, lower_m, self.outs, deltas, self.rates, None, (0, grid.n), False, None, False, pack
        )
        if sol is None:
            return None
        nxt = _simulate(grid, np.einsum("ik,ikn->in", sol.w, power))
        return sol.window_done, nxt, pm.voltage_mix(sol.w)


def _battery_heat(pm: _PowerModel, bat: BatteryProfile, phases: _Phases, t_lo: float) -> np.ndarray:
    """(intervals, points): the pack's I²R per phase minus what :meth:`_PowerModel.lower` charged.

    ``lower`` charges the board's least current on every interval; docked the pack carries the
    charge current instead, which the charger may stop (outside its window, or full), so 0 is
    charged; on battery the motors' current adds to the board's.
    """
    least = pm.base.sum(axis=1)
    for _, coef, beta, ref in pm.leak:
        least = least + coef * math.exp(min(beta * (t_lo - ref), 50.0))
    drawn = least / bat.converter_efficiency
    charged = (drawn / bat.voltage_v) ** 2 * bat.r0_ohm
    current = (drawn[None, :] + phases.external_w[:, None]) / bat.voltage_v
    real = np.where(phases.on_battery[:, None], current * current * bat.r0_ohm, 0.0)
    real[:, -1] = 0.0  # the off point (last column) draws nothing
    return real - charged[None, :]


def _best_fixed_charge(
    grid: _Grid,
    pm: _PowerModel,
    outs: _Outputs,
    points: list[OperatingPoint],
    rates: np.ndarray,
    phases: _Phases,
    bat: BatteryProfile,
    off: int,
) -> tuple[dict[str, int] | None, float | None, float | None]:
    """The single point whose exact run (pack included) completes most before its pack empties.

    Its run holds every limit at every grid instant until the pack is empty (or the run ends);
    an estimate of the tightness, not a bound: the pack's I²R here includes the motors' current
    and the charge current while docked (the charger assumed on all the time).
    """
    best: tuple[dict[str, int] | None, float | None, float | None] = (None, None, None)
    bare = copy.copy(pm)
    bare.bat = None
    eff = bat.converter_efficiency
    charge_a = CHARGE_C_RATE * bat.capacity_ah
    for k in range(off):
        x = grid.x0.copy()
        temps = grid.x0 + grid.ambient[0]
        energy = phases.available_j
        alive = grid.n * grid.step_s
        ok = True
        for i in range(grid.n):
            pw = bare.powers(temps[None, :])[0, k]
            total = float(pw.sum())
            pw = pw.copy()
            pw[pm.rest_node] += total / eff - total
            if phases.on_battery[i]:
                amps = (total / eff + phases.external_w[i]) / bat.voltage_v
                use = (total / eff + phases.external_w[i]) * grid.step_s
            else:
                amps, use = charge_a, 0.0
            pw[pm.bat_node] += amps * amps * bat.r0_ohm
            if use >= energy:
                alive = i * grid.step_s + grid.step_s * energy / use
                break
            energy -= use
            x, temps, ok = step_holds(grid, outs, x, i, pw, k)
            if not ok:
                break
        count = float(rates[k]) * alive
        if ok and (best[1] is None or count > best[1]):
            best = (dict(points[k].caps_hz), count, alive if alive < grid.n * grid.step_s else None)
    return best
