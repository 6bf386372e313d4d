"""The model the calibration fits: the profile's RC network driven by the simulator's power formula.

Three things live here, because each is needed both by the fit and by the honest open-loop check:

* the fitted parameters (:class:`ParamSpec`) and how they are written into a profile;
* the time grid and the input between samples (:class:`Grid`);
* the network's response: exact and linear for the fit (:func:`linear_response`), and the
  simulator's own :class:`~thermogov.sim.model.plant.ThermalPlant` with leakage at the model's own
  temperature for the check (:func:`free_run`).

**Inputs between samples.**  A logged clock or load is the board's state at the sample instant;
when two samples differ, the change happened at an unknown moment between them.  Holding each
sample until the next one (the obvious zero-order hold) puts every change at the *later* end of
its interval, on average half a sample late, and on a grid as coarse as the samples a change can
slip by a further whole step.  On a 2 s stressberry log with a 5-8 K die jump that is several
kelvin of error on each edge sample and it biases the fitted time constants.  The model
therefore uses the *expected* input: with the moment of change uniform over the interval, the
expected power is the linear interpolation of the power at the two samples, and since the network
is linear the expected temperature is its response to that ramp.  The power (not the clock) is
interpolated because power is not linear in the clock.  The grid runs at a quarter of the sample
interval with the input taken at each step's centre, so an edge is placed within 1/8 of a sample.
Where the log says when a load began (``Inputs.load_starts``: an sbc-bench section's first line,
printed as its benchmark starts), the moment is not unknown: the next sample's load holds over the
whole interval after that row, and over the last :data:`MONITOR_START_S` before it (the monitor's
first line comes after its own start-up, the benchmark's load does not wait for it).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.signal import lfilter

from thermogov.board import BoardProfile, DomainProfile, Protection, ThermalLink, ThermalNode, ThermalProfile
from thermogov.sim.calibration.inputs import MONITOR_START_S, Inputs
from thermogov.sim.model.plant import ThermalPlant

THERMAL_PRIOR = math.log(3.0)
POWER_PRIOR = math.log(2.0)
AMBIENT_PRIOR_C = 2.0  # a room or a lab: the logged or declared ambient is known to a few kelvin
AMBIENT_BOUND_C = 6.0  # hard limit around it (3 sd); --free-ambient widens both
FREE_AMBIENT_PRIOR_C = 10.0
FREE_AMBIENT_BOUND_C = 30.0
OFFSET_PRIOR_C = 5.0
OFFSET_BOUND_C = 20.0
# Hard ranges, as factors around the profile's value.  A profile's capacitances and conductances
# are physical estimates (die area, heatsink mass, convection coefficients; each board TOML
# names its basis) good to a factor of a few; a fit that leaves x/÷ 10 of them has found a
# different board, or is absorbing something that is not in the model (a room warming over
# hours gave tau = 39 000 s).  Power scales: x/÷ 4 (the profiles' C_dyn are published or
# derived from published board powers, docs/calibration.md).
THERMAL_BOUND = 10.0
POWER_BOUND = 4.0
# The slowest time constant of the fitted network must stay within what boards of this class
# show: 20 s (a bare die with a small heatsink under a fan) to 1.5 h (a passive heatsink in a
# closed case).  Step responses of public logs span 73-900 s (Pi 3/4 stressberry and the
# ivasilyev Pi 4 logs, docs/real-logs.md); a fanless Jetson Nano was still rising after 1 h
# (jtop log, same page).  A soft wall at the ends: log-distance / TAU_WALL.
TAU_SLOW_RANGE_S = (20.0, 5400.0)
TAU_WALL = 0.05
GRID_SUBDIVISION = 4  # grid steps per sample interval: edges land within 1/8 of a sample
MAX_GRID = 200_000
UNOBSERVABLE_FRACTION = 0.25  # modes faster than this fraction of the sample interval are unseen
MIN_SLOW_SHARE = 0.05  # ... and a node with less than this share of the slower modes is not fitted


# ---------------------------------------------------------------------------------------------
# Parameters


@dataclass(frozen=True)
class ParamSpec:
    """One fitted quantity: where it lives in the profile, its prior value and width, its bound.

    ``bound`` is the hard limit in units of ``sigma`` (``phi`` in ``[-bound, bound]``);
    ``fixed`` parameters stay at their prior (a node too fast for the log's sample interval:
    the data cannot see its capacitance, and fitting it only costs time).
    """

    name: str
    kind: str  # capacitance | cap_scale | link | ambient_link | dyn_scale | static_scale | ambient | offset | fast_offset
    key: tuple[str, ...]
    prior: float
    sigma: float  # log-space for positive parameters, °C for ambient/offset
    unit: str
    bound: float = 8.0
    fixed: bool = False

    @property
    def log(self) -> bool:
        return self.kind not in ("ambient", "offset", "fast_offset")

    def value(self, phi: float) -> float:
        return self.prior * math.exp(phi * self.sigma) if self.log else self.prior + phi * self.sigma


def unobservable_nodes(th: ThermalProfile, sample_s: float) -> set[str]:
    """Nodes whose capacitance the log cannot see: they take part only in modes too fast for it.

    In the symmetric modal form ``-C^-1/2 G C^-1/2 = U diag(lambda) U^T`` each row of ``U``
    holds a node's share of every mode (the squares sum to 1).  A node whose share of the
    modes slower than ``UNOBSERVABLE_FRACTION x sample_s`` is below ``MIN_SLOW_SHARE`` (a
    10 ms die node under a 1 s logger) only moves with the fast modes, which settle between
    two samples; its capacitance stays at the profile's value.  A node's own ``C / sum G``
    would be wrong: a package node coupled tightly to a tiny die is fast alone, but the two
    together form the few-second mode a logger sees.
    """
    cap, g = network(th)
    d = 1.0 / np.sqrt(cap)
    lam, u = np.linalg.eigh(-(d[:, None] * g * d[None, :]))
    slow = -1.0 / lam >= UNOBSERVABLE_FRACTION * sample_s
    share = (u[:, slow] ** 2).sum(axis=1)
    return {n.name for n, sh in zip(th.nodes, share, strict=True) if sh < MIN_SLOW_SHARE}


def param_specs(
    board: BoardProfile,
    varying: Sequence[str],
    fit_static: bool,
    ambient_c: float,
    *,
    sample_s: float = 1.0,
    free_ambient: bool = False,
) -> list[ParamSpec]:
    """Every capacitance and conductance of the profile, the power scales the log can see, ambient, offset."""
    th = board.thermal
    tb = math.log(THERMAL_BOUND) / THERMAL_PRIOR
    pb = math.log(POWER_BOUND) / POWER_PRIOR
    hidden = unobservable_nodes(th, sample_s)
    specs = [
        ParamSpec(
            f"C[{n.name}]",
            "capacitance",
            (n.name,),
            n.capacitance_j_per_k,
            THERMAL_PRIOR,
            "J/K",
            tb,
            n.name in hidden,
        )
        for n in th.nodes
    ]
    specs += [
        ParamSpec(f"G[{lk.a}-{lk.b}]", "link", (lk.a, lk.b), lk.conductance_w_per_k, THERMAL_PRIOR, "W/K", tb)
        for lk in th.links
    ]
    specs += [
        ParamSpec(
            f"G[{n.name}-ambient]", "ambient_link", (n.name,), n.to_ambient_w_per_k, THERMAL_PRIOR, "W/K", tb
        )
        for n in th.nodes
        if n.to_ambient_w_per_k > 0
    ]
    specs += [
        ParamSpec(f"dyn_scale[{d}]", "dyn_scale", (d,), 1.0, POWER_PRIOR, "x", pb)
        for d in varying
        if board.domain(d).c_dyn_uw_per_mhz_v2 > 0
    ]
    # Idle power is fitted even without a power log: it depends on what is plugged in (a Pi 3 B
    # idles at 0.78-1.32 W with USB, HDMI and Ethernet off or on: F. Guerraz, "Raspberry Pi 3
    # model B power consumption", medium.com 2017), and held at the profile's value it left the
    # idle level to the ambient link alone: a board idling warmer than the profile says got a
    # weaker path to air, which then overstated every load rise the fit had not seen (stressberry
    # nocase, fitted on 40 %: 5.97 -> 0.91 °C held-out).
    if fit_static:
        specs.append(ParamSpec("static_scale", "static_scale", (), 1.0, POWER_PRIOR, "x", pb))
    a_sd, a_bound = (
        (FREE_AMBIENT_PRIOR_C, FREE_AMBIENT_BOUND_C) if free_ambient else (AMBIENT_PRIOR_C, AMBIENT_BOUND_C)
    )
    specs.append(ParamSpec("ambient", "ambient", (), ambient_c, a_sd, "°C", a_bound / a_sd))
    specs.append(
        ParamSpec("initial_offset", "offset", (), 0.0, OFFSET_PRIOR_C, "°C", OFFSET_BOUND_C / OFFSET_PRIOR_C)
    )
    return specs


def apply_params(
    board: BoardProfile, specs: Sequence[ParamSpec], values: Sequence[float]
) -> tuple[BoardProfile, float, float]:
    """The profile with fitted values written in; also returns (ambient °C, initial offset °C)."""
    caps = {n.name: n.capacitance_j_per_k for n in board.thermal.nodes}
    amb_links = {n.name: n.to_ambient_w_per_k for n in board.thermal.nodes}
    links = {(lk.a, lk.b): lk.conductance_w_per_k for lk in board.thermal.links}
    dyn = {d.name: 1.0 for d in board.domains}
    static, ambient, offset = 1.0, 25.0, 0.0
    cap_scale = {n: 1.0 for n in caps}
    for s, v in zip(specs, values, strict=True):
        if s.kind == "capacitance":
            caps[s.key[0]] = v
        elif s.kind == "cap_scale":  # one factor on several capacitances (capscale.py)
            for n in s.key:
                cap_scale[n] *= v
        elif s.kind == "ambient_link":
            amb_links[s.key[0]] = v
        elif s.kind == "link":
            links[(s.key[0], s.key[1])] = v
        elif s.kind == "dyn_scale":
            dyn[s.key[0]] = v
        elif s.kind == "static_scale":
            static = v
        elif s.kind == "ambient":
            ambient = v
        elif s.kind == "offset":
            offset = v  # a "fast_offset" is not the profile's: FitProblem._run places it
    th = board.thermal
    thermal = ThermalProfile(
        nodes=tuple(
            ThermalNode(n.name, caps[n.name] * cap_scale[n.name], amb_links[n.name]) for n in th.nodes
        ),
        links=tuple(ThermalLink(lk.a, lk.b, links[(lk.a, lk.b)]) for lk in th.links),
        rest_of_board_w=th.rest_of_board_w * static,
        rest_of_board_node=th.rest_of_board_node,
    )
    domains = tuple(
        dataclasses.replace(
            d, c_dyn_uw_per_mhz_v2=d.c_dyn_uw_per_mhz_v2 * dyn[d.name], idle_w=d.idle_w * static
        )
        for d in board.domains
    )
    fan = board.fan
    if fan is not None:  # forced air leaves through the same fins: it scales with the node's path
        prior_g = next(n.to_ambient_w_per_k for n in th.nodes if n.name == fan.node)
        ratio = amb_links[fan.node] / prior_g if prior_g > 0 else 1.0
        fan = dataclasses.replace(fan, conductance_w_per_k=tuple(g * ratio for g in fan.conductance_w_per_k))
    return dataclasses.replace(board, thermal=thermal, domains=domains, fan=fan), ambient, offset


# ---------------------------------------------------------------------------------------------
# Time grid and the input between samples


@dataclass(frozen=True)
class Grid:
    """A uniform grid; over step k the power is the samples' power interpolated at the step's centre.

    ``lo[k]`` is the last sample at or before the centre and ``w[k]`` the weight of sample
    ``lo[k] + 1`` (see the module docstring for why the input is interpolated, not held).
    """

    t: np.ndarray
    h: float
    lo: np.ndarray
    w: np.ndarray


def make_grid(t: np.ndarray, subdivision: int = GRID_SUBDIVISION) -> Grid:
    dt = np.diff(t)
    dt = dt[dt > 0]
    h = float(np.median(dt)) / subdivision if len(dt) else 1.0
    span = float(t[-1] - t[0])
    h = max(h, span / MAX_GRID, 1e-3)
    n = math.floor(span / h + 1e-9) + 1
    grid = t[0] + h * np.arange(n)
    centre = np.minimum(grid + 0.5 * h, t[-1])
    if len(t) < 2:
        return Grid(grid, h, np.zeros(n, dtype=int), np.zeros(n))
    hi = np.clip(np.searchsorted(t, centre, side="right"), 1, len(t) - 1)
    lo = hi - 1
    width = t[hi] - t[lo]
    w = np.clip((centre - t[lo]) / np.where(width > 0, width, 1.0), 0.0, 1.0)
    return Grid(grid, h, lo, w)


def on_grid(samples: np.ndarray, grid: Grid) -> np.ndarray:
    """A per-sample series interpolated at the grid's step centres, like the power."""
    hi = np.minimum(grid.lo + 1, len(samples) - 1)
    return samples[grid.lo] * (1.0 - grid.w) + samples[hi] * grid.w


# ---------------------------------------------------------------------------------------------
# Power


def domain_power(
    d: DomainProfile,
    inputs: Inputs,
    rows: np.ndarray,
    temp_c: np.ndarray,
    dyn_factor: float | np.ndarray = 1.0,
) -> np.ndarray:
    """The simulator's formula (``sim/model/world.py``): idle + dynamic at the logged clock/load + leakage.

    ``dyn_factor`` scales the dynamic part: a board throttle the log's clock does not show
    (:mod:`~thermogov.sim.calibration.throttle`)."""
    u = inputs.load[d.name][rows]
    f = inputs.freq_hz[d.name][rows]
    v = inputs.volt_v[d.name][rows]
    dyn = d.c_dyn_uw_per_mhz_v2 * v * v * (f / 1e6) * 1e-6 * u * d.cores * dyn_factor
    leak = (
        d.leak_w_ref
        * (v / d.volt_v[-1])
        * np.exp(np.minimum(d.leak_beta_per_k * (temp_c - d.leak_ref_c), 50.0))
    )
    return d.idle_w + dyn + leak


def node_power(
    board: BoardProfile,
    inputs: Inputs,
    rows: np.ndarray,
    node_temp: Mapping[str, np.ndarray],
    dyn_factor: Mapping[str, float | np.ndarray] | None = None,
) -> np.ndarray:
    """Power per node (rows x nodes) at the given sample rows; the simulator's own formula."""
    names = board.thermal.node_names()
    idx = {n: i for i, n in enumerate(names)}
    p = np.zeros((len(rows), len(names)))
    p[:, idx[board.thermal.rest_of_board_node]] += board.thermal.rest_of_board_w
    factor = dyn_factor or {}
    for d in board.domains:
        p[:, idx[d.node]] += domain_power(d, inputs, rows, node_temp[d.node], factor.get(d.name, 1.0))
    return p


@dataclass(frozen=True)
class GridInputs:
    """The logged inputs on a grid's step centres, per domain: what every fit evaluation reuses.

    Interpolating the inputs does not depend on any fitted parameter, so it is done once per
    problem instead of once per leakage pass of each of the thousands of evaluations a fit makes.
    ``dyn_unit`` is the dynamic power per unit of ``C_dyn`` (``V² f u cores``, W per µW/(MHz·V²)),
    so a fitted ``C_dyn`` is one multiplication; ``volt`` is ``V`` at the step centre (leakage is
    linear in it).
    """

    volt: dict[str, np.ndarray]
    dyn_unit: dict[str, np.ndarray]

    @classmethod
    def of(cls, board: BoardProfile, inputs: Inputs, grid: Grid) -> GridInputs:
        n_rows = len(next(iter(inputs.load.values())))
        hi = np.minimum(grid.lo + 1, n_rows - 1)
        w = grid.w
        volt: dict[str, np.ndarray] = {}
        dyn_unit: dict[str, np.ndarray] = {}
        for d in board.domains:
            u = inputs.load[d.name]
            f = inputs.freq_hz[d.name]
            v = inputs.volt_v[d.name]
            dyn = v * v * (f / 1e6) * 1e-6 * u * d.cores
            volt[d.name] = v[grid.lo] * (1.0 - w) + v[hi] * w
            dyn_unit[d.name] = dyn[grid.lo] * (1.0 - w) + dyn[hi] * w
            starts = inputs.load_starts.get(d.name)
            if starts is not None:  # the change's moment is known: the next load from the row on
                per_load = v * v * (f / 1e6) * 1e-6 * d.cores
                at = starts[grid.lo]
                held = (per_load[grid.lo] * (1.0 - w) + per_load[hi] * w) * u[hi]
                dyn_unit[d.name] = np.where(at, held, dyn_unit[d.name])
                if inputs.row_t_s is not None:
                    dyn_unit[d.name] = _monitor_lead(
                        dyn_unit[d.name], starts, per_load, u, inputs.row_t_s, grid
                    )
        return cls(volt, dyn_unit)

    def head(self, n: int) -> GridInputs:
        """The first ``n`` grid steps (a fit needs the grid only up to its last training sample)."""
        return GridInputs(
            {k: v[:n] for k, v in self.volt.items()}, {k: v[:n] for k, v in self.dyn_unit.items()}
        )


def _monitor_lead(
    dyn: np.ndarray, starts: np.ndarray, per_load: np.ndarray, u: np.ndarray, row_t: np.ndarray, grid: Grid
) -> np.ndarray:
    """``dyn`` with each start row's new load moved :data:`MONITOR_START_S` earlier.

    The grid steps whose centre falls within that time before a start row ``s`` run the load of
    row ``s + 1`` (what holds after the row) at row ``s``'s clock and voltage (``per_load``: dynamic
    power per unit of load), instead of the previous section's load."""
    out = dyn.copy()
    centre = grid.t + 0.5 * grid.h
    for s in np.flatnonzero(starts):
        if s == 0 or s + 1 >= min(len(row_t), len(u)):
            continue
        lead = (grid.lo == s - 1) & (centre >= row_t[s] - MONITOR_START_S)
        out[lead] = per_load[s] * u[s + 1]
    return out


def static_grid_power(
    board: BoardProfile, pre: GridInputs, dyn_factor: Mapping[str, np.ndarray] | None = None
) -> np.ndarray:
    """Power per node on each grid step without leakage: rest of board, idle and dynamic power.

    None of it depends on temperature (a throttle's ``dyn_factor`` aside), so a fit evaluation
    computes it once and adds only :func:`leakage_grid_power` in each leakage pass."""
    names = board.thermal.node_names()
    idx = {n: i for i, n in enumerate(names)}
    n = len(next(iter(pre.volt.values()))) if pre.volt else 0
    p = np.zeros((n, len(names)))
    p[:, idx[board.thermal.rest_of_board_node]] += board.thermal.rest_of_board_w
    for d in board.domains:
        dyn_g = d.c_dyn_uw_per_mhz_v2 * pre.dyn_unit[d.name]
        if dyn_factor and d.name in dyn_factor:
            dyn_g = dyn_g * dyn_factor[d.name]
        p[:, idx[d.node]] += d.idle_w + dyn_g
    return p


def leakage_grid_power(
    board: BoardProfile, pre: GridInputs, node_temp: Mapping[str, np.ndarray]
) -> np.ndarray:
    """Leakage per node on each grid step at the given node temperatures (the simulator's formula)."""
    return _leakage_grid(board, pre, node_temp, slope=False)


def leakage_grid_slope(
    board: BoardProfile, pre: GridInputs, node_temp: Mapping[str, np.ndarray]
) -> np.ndarray:
    """d(leakage)/dT per node on each grid step (W/K): what the fit's analytic Jacobian needs.

    The derivative of :func:`leakage_grid_power`: ``beta`` times the leakage, zero where the
    exponent is clipped."""
    return _leakage_grid(board, pre, node_temp, slope=True)


def _leakage_grid(
    board: BoardProfile, pre: GridInputs, node_temp: Mapping[str, np.ndarray], *, slope: bool
) -> np.ndarray:
    """Leakage, or its temperature slope, per node on each grid step: one formula for both."""
    names = board.thermal.node_names()
    idx = {n: i for i, n in enumerate(names)}
    n = len(next(iter(pre.volt.values()))) if pre.volt else 0
    p = np.zeros((n, len(names)))
    for d in board.domains:
        if d.leak_w_ref == 0.0:
            continue
        arg = d.leak_beta_per_k * (node_temp[d.node] - d.leak_ref_c)
        leak = d.leak_w_ref * (pre.volt[d.name] / d.volt_v[-1]) * np.exp(np.minimum(arg, 50.0))
        p[:, idx[d.node]] += np.where(arg < 50.0, d.leak_beta_per_k * leak, 0.0) if slope else leak
    return p


def grid_power(
    board: BoardProfile,
    inputs: Inputs,
    grid: Grid,
    node_temp: Mapping[str, np.ndarray],
    dyn_factor: Mapping[str, np.ndarray] | None = None,
    pre: GridInputs | None = None,
) -> np.ndarray:
    """Power per node on each grid step: the two bracketing samples' power, interpolated.

    The same as evaluating :func:`node_power` at both samples and interpolating, but cheaper:
    idle and dynamic power do not depend on temperature, so they are computed once per sample
    and interpolated; leakage is linear in the voltage factor, so only ``V`` is interpolated
    and the exponential is taken once per grid step (the fit calls this thousands of times,
    with the interpolated inputs ``pre`` made once, :class:`GridInputs`).
    """
    pre = pre or GridInputs.of(board, inputs, grid)
    return static_grid_power(board, pre, dyn_factor) + leakage_grid_power(board, pre, node_temp)


# ---------------------------------------------------------------------------------------------
# Network response


def leakage_slope(
    board: BoardProfile, inputs: Inputs, rows: np.ndarray, t_ref: Mapping[str, float]
) -> np.ndarray:
    """d(leakage)/dT per node (W/K) at ``t_ref``, at the mean voltage over ``rows``.

    The fit linearises leakage about a fixed reference temperature and moves this slope into
    the network (``G - diag(slope)``), so that leakage follows the *model's* temperature and the
    model stays linear.  Evaluating leakage at the logged temperature instead (as a first
    version did) feeds the observations into the prediction: an optimiser that shrinks the die
    conductance amplifies that path until a quarter of the "prediction" is the measurement
    itself, a fit that then fails open-loop.  The exponential's curvature is taken up by
    re-linearising about the previous pass's trajectory (:meth:`FitProblem.predict
    <thermogov.sim.calibration.fit.FitProblem.predict>`) with this same, fixed slope.
    """
    names = board.thermal.node_names()
    idx = {n: i for i, n in enumerate(names)}
    k = np.zeros(len(names))
    for d in board.domains:
        v = float(np.mean(inputs.volt_v[d.name][rows]))
        leak = (
            d.leak_w_ref
            * (v / d.volt_v[-1])
            * math.exp(min(d.leak_beta_per_k * (t_ref[d.node] - d.leak_ref_c), 50.0))
        )
        k[idx[d.node]] += d.leak_beta_per_k * leak
    return k


def network(th: ThermalProfile) -> tuple[np.ndarray, np.ndarray]:
    """Capacitances and the conductance matrix G (links and ambient links on the diagonal)."""
    names = th.node_names()
    idx = {n: i for i, n in enumerate(names)}
    g = np.zeros((len(names), len(names)))
    for lk in th.links:
        i, j = idx[lk.a], idx[lk.b]
        g[i, j] -= lk.conductance_w_per_k
        g[j, i] -= lk.conductance_w_per_k
    np.fill_diagonal(g, -g.sum(axis=1) + np.array([n.to_ambient_w_per_k for n in th.nodes]))
    return np.array([n.capacitance_j_per_k for n in th.nodes]), g


def time_constants(th: ThermalProfile) -> tuple[float, ...]:
    """The network's modal time constants, slowest first."""
    cap, g = network(th)
    d = 1.0 / np.sqrt(cap)
    return tuple(sorted((-1.0 / np.linalg.eigvalsh(-(d[:, None] * g * d[None, :]))).tolist(), reverse=True))


@dataclass(frozen=True)
class Modes:
    """The symmetric modal form of a network: ``-D G D = U diag(lam) U^T`` with ``D = C^-1/2``.

    One eigen-decomposition serves every leakage pass of a fit evaluation, its slowest mode
    and its steady state (it was taken five times per evaluation before)."""

    d: np.ndarray
    lam: np.ndarray
    u: np.ndarray

    @classmethod
    def of(cls, cap: np.ndarray, g: np.ndarray) -> Modes:
        d = 1.0 / np.sqrt(cap)
        lam, u = np.linalg.eigh(-(d[:, None] * g * d[None, :]))
        return cls(d, lam, u)

    def steady(self, power: np.ndarray) -> np.ndarray:
        """``G^-1 P``: the excess temperature constant power settles at (``G^-1 = -D U lam^-1 U^T D``)."""
        return (self.d[:, None] * self.u) @ ((self.u.T @ (self.d * power)) / -self.lam)


def linear_response(
    cap: np.ndarray, g: np.ndarray, power: np.ndarray, h: float, x0: np.ndarray, modes: Modes | None = None
) -> np.ndarray:
    """Excess temperatures (grid x nodes) for ZOH power on a uniform grid, exactly.

    In the symmetric modal form each mode is a scalar recurrence ``z[k+1] = e z[k] + g w[k]``
    (the exact zero-order-hold discretisation: ``e = exp(lam h)``, ``g = (e - 1) / lam``), which
    ``lfilter`` runs in C with the initial state as its filter state: the whole trajectory costs
    a few vector operations per mode.
    """
    m = modes or Modes.of(cap, g)
    left = m.d[:, None] * m.u  # D U
    w = power @ left  # U^T D P, per grid point
    z0 = (m.u.T / m.d[None, :]) @ x0
    e = np.exp(m.lam * h)
    gain = (e - 1.0) / m.lam
    n = len(power)
    z = np.empty((n, len(cap)))
    z[0] = z0
    for i in range(len(cap)):
        z[1:, i] = lfilter([gain[i]], [1.0, -e[i]], w[:-1, i], zi=[e[i] * z0[i]])[0]
    return z @ left.T


def slow_mode(cap: np.ndarray, g: np.ndarray, modes: Modes | None = None) -> tuple[np.ndarray, float]:
    """The slowest mode's shape (excess temperature per node) and time constant."""
    m = modes or Modes.of(cap, g)
    i = int(np.argmax(m.lam))
    return m.d * m.u[:, i], -1.0 / float(m.lam[i])


def second_mode(modes: Modes) -> np.ndarray:
    """The second-slowest mode's shape (excess temperature per node): the start's faster transient."""
    i = int(np.argsort(modes.lam)[-2]) if len(modes.lam) > 1 else int(np.argmax(modes.lam))
    return modes.d * modes.u[:, i]


def fast_offset_spec() -> ParamSpec:
    """A second initial offset, along :func:`second_mode`: the same prior and bound as ``initial_offset``."""
    return ParamSpec(
        "initial_offset_fast", "fast_offset", (), 0.0, OFFSET_PRIOR_C, "°C", OFFSET_BOUND_C / OFFSET_PRIOR_C
    )


def free_run(
    board: BoardProfile,
    inputs: Inputs,
    grid: Grid,
    x0: np.ndarray,
    ambient_c: float,
    throttles: tuple[Protection, ...] = (),
    start: int = 0,
    pre: GridInputs | None = None,
    fan_level: int = 0,
) -> np.ndarray:
    """Open-loop simulation with the simulator's plant, leakage at the model's own temperature.

    The run starts at grid step ``start`` in state ``x0`` and returns the steps from there on
    (a forecast from a state estimated part-way through the log starts there).  A board fan
    (:mod:`~thermogov.sim.calibration.fanpath`) starts at ``fan_level`` and then follows the
    board's own curve on the model's temperature, polled every ``default_period_ms`` as the
    simulator's fan is (``SimFan.follow_default_curve``).

    The same input between samples as the fit (:func:`grid_power`), so the check differs from
    the fit only in what it is meant to test: leakage (and a throttle the log's clock does not
    show) fed back from the model's own temperature, not the log.  The temperature-free power
    is computed for all steps at once (:func:`static_grid_power`, the interpolated inputs
    ``pre`` made once per problem); only leakage and a throttle are evaluated step by step,
    on plain floats (the same formula as :func:`node_power`).
    """
    from thermogov.sim.calibration.throttle import dyn_factors

    pre = pre or GridInputs.of(board, inputs, grid)
    plant = ThermalPlant.from_profile(board.thermal, ambient_c)
    plant.x = x0.astype(float).copy()
    names = board.thermal.node_names()
    idx = {n: i for i, n in enumerate(names)}
    base = static_grid_power(board, pre)
    leaks = [
        (idx[d.node], d.leak_w_ref / d.volt_v[-1], d.leak_beta_per_k, d.leak_ref_c, pre.volt[d.name])
        for d in board.domains
        if d.leak_w_ref != 0.0
    ]
    throttled = [
        (idx[d.node], d.name, d.c_dyn_uw_per_mhz_v2 * pre.dyn_unit[d.name])
        for d in board.domains
        if any(d.name in t.domains for t in throttles)
    ]
    fan = board.fan
    if fan is not None:
        plant.add_ambient_link(fan.node, fan.conductance_w_per_k[fan_level])
        curve_i = idx[fan.curve_node]
        poll = max(1, round(fan.default_period_ms / 1000.0 / grid.h))
    out = np.empty((len(grid.t) - start, len(names)))
    for k in range(start, len(grid.t)):
        out[k - start] = plant.x
        temps = plant.x + ambient_c
        if fan is not None and (k - start) % poll == 0:
            level = fan.default_curve.target(float(temps[curve_i]), fan_level)
            if level != fan_level:
                plant.add_ambient_link(
                    fan.node, fan.conductance_w_per_k[level] - fan.conductance_w_per_k[fan_level]
                )
                fan_level = level
        p = base[k].copy()
        for i, scale, beta, ref, volt in leaks:
            p[i] += scale * volt[k] * math.exp(min(beta * (temps[i] - ref), 50.0))
        if throttled:
            factor = dyn_factors(board, inputs, {n: temps[i : i + 1] for i, n in enumerate(names)}, throttles)
            for i, name, dyn in throttled:
                if name in factor:
                    p[i] += dyn[k] * (float(factor[name][0]) - 1.0)
        plant.advance(grid.h, p)
    return out
