"""The fit: least squares on the training part of the log, uncertainty, and the honest held-out check.

``scipy.optimize.least_squares`` on the temperature trajectory of the first ``1 - holdout`` of
the log, every parameter as a log-ratio to the profile's value with a weak prior (see
:mod:`thermogov.sim.calibration.model`).  Leakage is at the model's own temperature but
linearised (:func:`~thermogov.sim.calibration.model.leakage_slope`), which keeps the model linear
in the state, so a candidate costs one ``lfilter`` pass per mode and leakage pass, run only up
to the last training sample; the Jacobian comes from forward sensitivities of that same discrete
model (:mod:`~thermogov.sim.calibration.sensitivity`), not from one run per parameter.  The held-out
tail is never looked at until the fitted profile forecasts it with the simulator's own plant,
restarted at the split from the state a Kalman filter of the training readings puts there
(:meth:`FitProblem.forecast`, :mod:`~thermogov.sim.calibration.state`); the RMSE on that tail
is the reported quality.  How many parameters are freed is chosen by validation inside the
training part (:mod:`~thermogov.sim.calibration.select`).

Uncertainty is the Laplace approximation at the optimum: data precision ``JᵀJ / s²`` (``s²``
the reduced chi-square, so model error widens the bars) plus the prior's precision.  A parameter
whose posterior sd is below half its prior sd is reported as determined by the data.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.optimize import OptimizeResult, least_squares

from thermogov.board import BoardProfile, Protection, with_enclosure
from thermogov.interfaces import ConfigError, LogFormatError
from thermogov.sim.calibration.atbound import bound_share, pinned
from thermogov.sim.calibration.bootcool import cooling_from_boot, start_held, start_note
from thermogov.sim.calibration.capscale import KIND as CAP_SCALE
from thermogov.sim.calibration.capscale import (
    scale_as_in_final_fit,
    shared_capacitance_scale,
    steps_in_training,
)
from thermogov.sim.calibration.checks import check_training_part, checked_log, load_changes_in_training
from thermogov.sim.calibration.coldstart import offset_as_in_final_fit, start_reaches_room, widened_note
from thermogov.sim.calibration.data import LogData, decimate, ffill
from thermogov.sim.calibration.enclosure import (
    PRE_FIT_FTOL,
    TieBreak,
    candidates,
    choose_enclosure,
    fanless_for,
    housing_named,
    housing_of_setup,
    housing_with_fan,
    with_declared_switch,
)
from thermogov.sim.calibration.evidence import PRIOR_SD, trend_evidence
from thermogov.sim.calibration.fanoff import as_in_final_fit, fan_never_on, held_note, held_while_fan_off
from thermogov.sim.calibration.fanpath import fan_conductance, levels_from_log, switched_response, with_fan
from thermogov.sim.calibration.history import History, history_power, load_history, state_after
from thermogov.sim.calibration.housingrise import consistent, housing_rises, rise_note
from thermogov.sim.calibration.inputs import Inputs, derive_inputs, sensor_nodes
from thermogov.sim.calibration.model import (
    TAU_SLOW_RANGE_S,
    TAU_WALL,
    Grid,
    GridInputs,
    Modes,
    ParamSpec,
    apply_params,
    fast_offset_spec,
    free_run,
    leakage_grid_power,
    leakage_grid_slope,
    leakage_slope,
    linear_response,
    make_grid,
    network,
    param_specs,
    second_mode,
    slow_mode,
    static_grid_power,
    time_constants,
    unobservable_nodes,
)
from thermogov.sim.calibration.profile import rename
from thermogov.sim.calibration.select import (
    INNER_SHARE,
    LADDER,
    MARGIN,
    MIN_INNER_READINGS,
    choose,
    head,
    informative,
    reduced,
)
from thermogov.sim.calibration.sensitivity import Directions, PassRecord, sensitivities
from thermogov.sim.calibration.shrink import MARGIN as MARGIN_W
from thermogov.sim.calibration.shrink import (
    RANGE_RATIO,
    WEIGHTS,
    blend,
    choose_weight,
    comparable,
    exercised,
    held,
    saw_as_much,
    toward_level,
)
from thermogov.sim.calibration.state import StateEstimate, estimate_state
from thermogov.sim.calibration.steady import SteadyState, dynamic_power, steady_state
from thermogov.sim.calibration.throttle import damped, dyn_factors, unlogged_throttles

SIGMA_T_C = 0.5  # per-sample temperature noise assumed in the residuals (°C); rescaled by chi²
FTOL = 1e-6  # relative cost change at which a run stops; 1e-8 doubled the time for < 0.01 °C
LEAK_PASSES = 3  # chord passes that put leakage at the model's temperature (see FitProblem.predict)
INNER_FTOL = 1e-4  # the inner fits of the model-size choice only rank the sizes
START_FTOL = PRE_FIT_FTOL  # each of several starts only has to find its basin; the best is refined
START_TRANSIENT = True  # a second initial offset on logs that start a section (starts_a_section)
THROTTLE_PASSES = 8  # ... and a board throttle, damped (sim/calibration/throttle.py): it needs more


@dataclass(frozen=True)
class FittedParam:
    name: str
    unit: str
    prior: float
    value: float
    sd: float  # one standard deviation, in the parameter's unit
    determined_by: str  # "data" | "prior"

    @property
    def rel_sd(self) -> float:
        return self.sd / abs(self.value) if self.value else math.inf


@dataclass(frozen=True)
class CalibrationResult:
    board: BoardProfile
    params: tuple[FittedParam, ...]
    ambient_c: float
    rmse_train_c: float
    rmse_holdout_c: float | None
    holdout_from_s: float
    rmse_persistence_c: float | None  # holding the last training reading over the held-out tail
    steady: SteadyState | None
    time_constants_s: tuple[float, ...]
    notes: tuple[str, ...]
    sensor: str
    t_s: np.ndarray = field(repr=False)
    measured_c: np.ndarray = field(repr=False)
    predicted_c: np.ndarray = field(repr=False)
    source: str = ""
    variant: str | None = None
    cost: float = 0.0  # final least-squares cost (data and priors): what variant selection compares
    drift_weight: float = 1.0  # the held-out forecast's weight on the model's drift (shrink.py)
    level_share: float = 1.0  # ... and the share of its deviation from the level at the split it keeps

    @property
    def skill(self) -> float | None:
        """``1 - rmse / rmse_persistence``: > 0 when the model beats holding the last reading."""
        if self.rmse_holdout_c is None or not self.rmse_persistence_c:
            return None
        return 1.0 - self.rmse_holdout_c / self.rmse_persistence_c

    def param(self, name: str) -> FittedParam:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True)
class _Run:
    """One evaluation of the model: grid trajectory (excess K), power at samples, and its network."""

    x: np.ndarray
    total: np.ndarray
    board: BoardProfile
    ambient: float
    cap: np.ndarray
    g_eff: np.ndarray
    throttles: tuple[Protection, ...]
    k: np.ndarray  # leakage's slope, moved into the network (g_eff = G - diag(k))
    modes: Modes
    offset: float
    passes: tuple[PassRecord, ...] = ()  # recorded for the analytic Jacobian (record=True)
    fan_g: np.ndarray | None = None  # a board fan's conductance per grid step (fanpath), else None


@dataclass(frozen=True)
class ForecastParts:
    """A held-out forecast (sensors x samples), the model's drift in it (zero up to the split), and
    each sensor's level at the split; ``tail`` marks the samples after the split."""

    full: np.ndarray
    drift: np.ndarray | None
    level: np.ndarray | None
    tail: np.ndarray | None
    board: BoardProfile
    ambient: float
    state: StateEstimate | None

    def blend(self, weight: float, share: float = 1.0) -> np.ndarray:
        """The forecast with the drift weighted by ``weight`` and then its deviation from the level
        at the split scaled by ``share`` (:mod:`~thermogov.sim.calibration.shrink`)."""
        out = self.full if self.drift is None or weight == 1.0 else blend(self.full, self.drift, weight)
        if share == 1.0 or self.level is None or self.tail is None:
            return out
        return toward_level(out, self.level, self.tail, share)

    def deviation(self, weight: float, mask: np.ndarray) -> np.ndarray:
        """The first sensor's forecast (drift weighted) minus its level, on the ``mask`` samples."""
        if self.level is None:
            return np.zeros(0)
        return (self.blend(weight)[0] - self.level[0])[mask]


@dataclass
class FitProblem:
    """One log and one starting profile, set up for the fit: the model as a function of ``phi``.

    ``phi`` holds every parameter in units of its prior's sigma (see :class:`ParamSpec`), which
    makes the prior term of the residuals simply ``phi``.
    """

    board: BoardProfile
    data: LogData
    inputs: Inputs
    grid: Grid
    specs: list[ParamSpec]
    sensors: dict[str, str]
    train: np.ndarray  # sample mask
    leak_ref: dict[str, float]  # node -> temperature the fit linearises leakage about
    power_sigma: float
    grid_inputs: GridInputs  # the inputs on the grid, interpolated once (model.GridInputs)
    n_fit: int  # grid steps up to the last training sample: all the fit's residuals need
    data_weight: float = 1.0  # sqrt(n_eff / n): see calibrate()
    tau_slow_s: float = 0.0  # slowest time constant of the last evaluated network
    fan_levels: np.ndarray | None = None  # a board fan's level per grid step, from the training log (fanpath)
    history: History | None = None  # the load before the log (history.py): the initial state's base

    @property
    def free(self) -> np.ndarray:
        """Indices of the parameters the optimiser moves (the others stay at their prior)."""
        return np.array([i for i, s in enumerate(self.specs) if not s.fixed], dtype=int)

    def expand(self, phi_free: np.ndarray) -> np.ndarray:
        phi = np.zeros(len(self.specs))
        phi[self.free] = phi_free
        return phi

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        b = np.array([self.specs[i].bound for i in self.free])
        return -b, b

    @classmethod
    def build(
        cls,
        data: LogData,
        board: BoardProfile,
        *,
        holdout: float,
        ambient_c: float,
        free_ambient: bool = False,
    ) -> FitProblem:
        """Inputs, sensors, parameters and the training mask; nothing here reads the held-out tail."""
        t = data.t_s
        sensors = sensor_nodes(data, board)
        inputs = derive_inputs(data, board)
        amb = data.temps_c.get("ambient")
        ambient_prior = float(np.nanmean(amb)) if amb is not None and np.isfinite(amb).any() else ambient_c
        dt = np.diff(t)
        sample_s = float(np.median(dt[dt > 0])) if (dt > 0).any() else 1.0
        specs = param_specs(
            board,
            inputs.varying,
            True,  # idle power is always fitted: see param_specs
            ambient_prior,
            sample_s=sample_s,
            free_ambient=free_ambient,
        )
        train = t <= t[0] + (1.0 - holdout) * (t[-1] - t[0])
        sparse = readings_in(data, sensors, train) < READINGS_PER_PARAM * sum(not s.fixed for s in specs)
        specs = reduced_for_sparse_logs(specs, data, sensors, train)
        power_sigma = 0.05 * float(np.nanmean(data.power_w)) + 0.05 if data.power_w is not None else 1.0
        grid = make_grid(t)
        fan_levels, n_fit = levels_from_log(board, data, sensors, grid, train), fit_steps(grid, t, train)
        specs = held_while_fan_off(specs, board, fan_never_on(board, fan_levels, n_fit))  # fanoff.py
        specs = shared_capacitance_scale(
            specs,
            sparse=sparse,
            stepped=steps_in_training(inputs, train),
            readings=readings_in(data, sensors, train),
            hidden=unobservable_nodes(board.thermal, sample_s),
        )
        return cls(
            board,
            data,
            inputs,
            grid,
            specs,
            sensors,
            train,
            _leak_reference(data, board, sensors, train),
            power_sigma,
            GridInputs.of(board, inputs, grid),
            n_fit,
            fan_levels=fan_levels,
            history=load_history(
                data.uptime_s, data.load_average, sum(d.cores for d in board.domains if d.kind == "cpufreq")
            ),
        )

    def predict(
        self, phi: np.ndarray, free: bool = False
    ) -> tuple[np.ndarray, np.ndarray, BoardProfile, float]:
        """Predicted sensor temperatures (sensors x samples), model total power per sample, profile, ambient.

        ``free=False`` is the fit's linear evaluation, ``free=True`` the simulator's plant run
        open-loop; both keep leakage at the model's own temperature, so they are the same model.
        The initial state is the idle steady state of the first input plus ``initial_offset``
        along the slowest mode: a log may start off its idle steady state, and only the slowest
        mode is still out of equilibrium by the time the first samples are taken.
        """
        run = self._run(phi, free)
        return self._at_samples(run.x, run.ambient), run.total, run.board, run.ambient

    def _run(self, phi: np.ndarray, free: bool, train_only: bool = False, record: bool = False) -> _Run:
        """One evaluation; ``train_only`` stops the linear run at the last training sample.

        The fit's residuals end there and the response is causal, so the fit never computes
        the grid beyond it (:func:`fit_steps`); samples after it then hold the last value."""
        values = [s.value(p) for s, p in zip(self.specs, phi, strict=True)]
        board, ambient, offset = apply_params(self.board, self.specs, values)
        cap, g = network(board.thermal)
        names = board.thermal.node_names()
        node_idx = {n: i for i, n in enumerate(names)}
        n = self.n_fit if train_only and not free else len(self.grid.t)
        grid = self.grid
        pre = self.grid_inputs.head(n) if n < len(grid.t) else self.grid_inputs
        # Leakage at the model's own temperature, kept linear (see leakage_slope): its slope at
        # the reference temperature is in the network, the input carries P(x_lin) - k x_lin.
        # Pass 1 linearises about the reference, each further pass about the previous pass's
        # trajectory (a chord iteration; each pass shrinks the error by ~|k(T) - k_ref| / G,
        # a few per cent even 40 K off the reference).  The number of passes is fixed so that
        # the residuals stay smooth in phi (the Jacobian differentiates every pass).
        k = leakage_slope(board, self.inputs, np.flatnonzero(self.train), self.leak_ref)
        g_eff = g - np.diag(k)
        modes = Modes.of(cap, g_eff)
        fan_g, fan_node, g_start, modes_start = None, 0, g_eff, modes
        if board.fan is not None and self.fan_levels is not None:  # a switched path (fanpath.py)
            fan_g, fan_node = fan_conductance(board, self.fan_levels), node_idx[board.fan.node]
            g_start = with_fan(g_eff, fan_node, float(fan_g[0]))
            modes_start = Modes.of(cap, g_start)
        shape, self.tau_slow_s = slow_mode(cap, g_start, modes_start)
        sensor = node_idx[next(iter(self.sensors.values()))]
        along_slow = offset * shape / shape[sensor]
        fast = sum(v for sp, v in zip(self.specs, values, strict=True) if sp.kind == "fast_offset")
        if fast:  # the second offset (start_transient): the second-slowest mode, 1 K at the sensor
            shape2 = second_mode(modes_start)
            if abs(shape2[sensor]) > 1e-12:
                along_slow = along_slow + fast * shape2 / shape2[sensor]
        x_ref = np.array([self.leak_ref[nm] for nm in names]) - ambient
        x_lin = np.broadcast_to(x_ref, (n, len(names)))
        throttles = unlogged_throttles(board, self.inputs)
        factor = None
        base = static_grid_power(board, pre)  # rest of board, idle, dynamic: no temperature in it
        passes: list[PassRecord] = []
        for _pass in range(THROTTLE_PASSES if throttles else LEAK_PASSES):
            temps = {nm: x_lin[:, i] + ambient for i, nm in enumerate(names)}
            if throttles:  # a throttle the log's clock does not show, at this pass's temperature
                factor = damped(factor, dyn_factors(board, self.inputs, temps, throttles))
                base = static_grid_power(board, pre, factor)
            p_grid = base + leakage_grid_power(board, pre, temps) - x_lin * k
            if self.history is None:
                xss = np.linalg.solve(g_start, p_grid[0])
            else:  # the state the load before the log left (history.py)
                xss = state_after(self.history, modes_start, p_grid[0], *history_power(board, self.inputs))
            x0 = xss + along_slow
            x_prev = x_lin
            x_lin = (
                linear_response(cap, g_eff, p_grid, grid.h, x0, modes)
                if fan_g is None
                else switched_response(cap, g_eff, fan_node, fan_g, p_grid, grid.h, x0)
            )
            if record:
                slope = leakage_grid_slope(board, pre, temps)
                passes.append(PassRecord(x_prev.T, slope.T, p_grid.T, xss, x_lin.T))
        fan_level = 0 if self.fan_levels is None else int(self.fan_levels[0])
        x = (
            free_run(
                board, self.inputs, grid, x0, ambient, throttles, pre=self.grid_inputs, fan_level=fan_level
            )
            if free
            else x_lin
        )
        total_at_samples = np.interp(self.data.t_s, grid.t[:n], p_grid.sum(axis=1) + x @ k)
        return _Run(
            x, total_at_samples, board, ambient, cap, g_eff, throttles, k, modes, offset, tuple(passes), fan_g
        )

    def _at_samples(self, x: np.ndarray, ambient: float) -> np.ndarray:
        idx = {n: i for i, n in enumerate(self.board.thermal.node_names())}
        t = self.data.t_s
        gt = self.grid.t[: len(x)]
        return np.array([np.interp(t, gt, x[:, idx[node]]) + ambient for node in self.sensors.values()])

    def forecast(
        self, phi: np.ndarray, drift_weight: float = 1.0
    ) -> tuple[np.ndarray, BoardProfile, float, StateEstimate | None]:
        """The open-loop prediction, restarted at the split from the state the readings show there.

        Up to the last training sample this is the fit's own open-loop run.  From there on the
        simulator's plant runs again from the fit's state corrected by a Kalman filter of the
        training readings (:mod:`~thermogov.sim.calibration.state`), and each sensor carries
        the level offset the filter found.  The held-out readings are never read: the forecast
        knows what persistence knows (the readings up to the split) and the logged inputs.
        ``drift_weight`` < 1 shrinks the model's drift under the inputs held at the split
        (:mod:`~thermogov.sim.calibration.shrink`).
        """
        parts = self.forecast_parts(phi, drift=drift_weight != 1.0)
        return parts.blend(drift_weight), parts.board, parts.ambient, parts.state

    def forecast_parts(self, phi: np.ndarray, drift: bool = True) -> ForecastParts:
        """The forecast and, with ``drift``, the model's drift after the split (shrink.py)."""
        run = self._run(phi, True)
        pred = self._at_samples(run.x, run.ambient)
        t = self.data.t_s
        seen = np.flatnonzero(self.train)
        if not len(seen) or seen[-1] >= len(t) - 1:
            return ForecastParts(pred, None, None, None, run.board, run.ambient, None)
        last = int(seen[-1])
        idx = {n: i for i, n in enumerate(run.board.thermal.node_names())}
        obs = np.array([self.data.temps_c[s] for s in self.sensors], dtype=float)
        obs[:, last + 1 :] = np.nan  # the filter must not see the held-out tail
        node_of = np.array([idx[n] for n in self.sensors.values()], dtype=int)
        ks = int(np.searchsorted(self.grid.t, t[last], side="left"))
        if ks >= len(self.grid.t):
            return ForecastParts(pred, None, None, None, run.board, run.ambient, None)
        g_split, fan_level = run.g_eff, 0  # the network at the split: with the fan at the level the log shows
        if run.fan_g is not None and self.fan_levels is not None and run.board.fan is not None:
            g_split = with_fan(run.g_eff, idx[run.board.fan.node], float(run.fan_g[ks]))
            fan_level = int(self.fan_levels[ks])
        est = estimate_state(run.cap, g_split, t, obs, pred, node_of, last)
        x0 = run.x[ks] + est.dx_at(run.cap, g_split, float(self.grid.t[ks]))

        def from_split(pre: GridInputs) -> np.ndarray:
            x = run.x.copy()
            x[ks:] = free_run(
                run.board,
                self.inputs,
                self.grid,
                x0,
                run.ambient,
                run.throttles,
                start=ks,
                pre=pre,
                fan_level=fan_level,
            )
            return x

        out = self._at_samples(from_split(self.grid_inputs), run.ambient)
        out[:, last + 1 :] += est.bias[:, None]
        out[:, : last + 1] = pred[:, : last + 1]
        drift_c = None
        if drift:  # the run with the inputs held at the split, less the state at the split
            xh = from_split(held(self.grid_inputs, ks))
            xh[ks:] -= x0
            xh[:ks] = 0.0
            drift_c = self._at_samples(xh, 0.0)
            drift_c[:, : last + 1] = 0.0
        level = (
            self._at_samples(np.broadcast_to(x0, (len(self.grid.t), len(x0))), run.ambient)[:, 0] + est.bias
        )
        tail = np.arange(len(t)) > last
        return ForecastParts(out, drift_c, level, tail, run.board, run.ambient, est)

    def residuals(self, phi_free: np.ndarray) -> np.ndarray:
        """Training residuals in units of their sigma (weighted by ``data_weight``), then the priors.

        The last residual is the soft wall that keeps the slowest time constant within the
        range of the board class (``TAU_SLOW_RANGE_S``); it is zero inside the range."""
        phi = self.expand(phi_free)
        run = self._run(phi, False, train_only=True)
        pred, total = self._at_samples(run.x, run.ambient), run.total
        parts = []
        for i, name in enumerate(self.sensors):
            obs = self.data.temps_c[name]
            m = self.train & np.isfinite(obs)
            parts.append((pred[i][m] - obs[m]) * (self.data_weight / SIGMA_T_C))
        if self.data.power_w is not None:
            m = self.train & np.isfinite(self.data.power_w)
            parts.append((total[m] - self.data.power_w[m]) * (self.data_weight / self.power_sigma))
        parts.append(phi_free)  # the priors, in units of their own sigma
        lo, hi = TAU_SLOW_RANGE_S
        tau = max(self.tau_slow_s, 1e-9)
        wall = max(0.0, math.log(tau / hi)) + max(0.0, math.log(lo / tau))
        parts.append(np.array([wall / TAU_WALL]))
        return np.concatenate(parts)

    @property
    def analytic_jacobian(self) -> bool:
        """Whether :meth:`jacobian` applies: not with a board throttle the log's clock lacks
        (its damped passes are not differentiated; those fits keep finite differences), nor
        with a switched fan (:mod:`~thermogov.sim.calibration.fanpath`: one network per level)."""
        return (
            not unlogged_throttles(self.board, self.inputs)
            and self.board.fan is None
            and self.history is None
            and not any(sp.kind == "fast_offset" for sp in self.specs)
        )

    def jacobian(self, phi_free: np.ndarray) -> np.ndarray:
        """d(residuals)/d(phi_free), exactly for the discrete model: forward sensitivities.

        One model evaluation plus one batched modal pass per leakage pass
        (:mod:`~thermogov.sim.calibration.sensitivity`) instead of one evaluation per free
        parameter; the rows are laid out as :meth:`residuals` lays them out."""
        phi = self.expand(phi_free)
        run = self._run(phi, False, train_only=True, record=True)
        n_steps = run.passes[0].p.shape[1]
        dirs = self._directions(phi, run.board, n_steps)
        names = run.board.thermal.node_names()
        idx = {nm: i for i, nm in enumerate(names)}
        sens = sensitivities(
            run.cap,
            run.g_eff,
            run.k,
            run.modes,
            self.grid.h,
            list(run.passes),
            dirs,
            run.offset,
            idx[next(iter(self.sensors.values()))],
        )
        lo, hi, w = _interp_weights(self.data.t_s, self.grid.t[:n_steps])
        rows = []
        for name, node in self.sensors.items():
            obs = self.data.temps_c[name]
            m = self.train & np.isfinite(obs)
            f = sens.dx[:, idx[node], :]
            rows.append(
                ((f[:, lo[m]] * (1.0 - w[m]) + f[:, hi[m]] * w[m]) + dirs.damb[:, None]).T
                * (self.data_weight / SIGMA_T_C)
            )
        if self.data.power_w is not None:
            m = self.train & np.isfinite(self.data.power_w)
            f = sens.dp.sum(axis=1) + np.einsum("n,pnj->pj", run.k, sens.dx)
            rows.append(
                (f[:, lo[m]] * (1.0 - w[m]) + f[:, hi[m]] * w[m]).T * (self.data_weight / self.power_sigma)
            )
        rows.append(np.eye(len(phi_free)))
        lo_tau, hi_tau = TAU_SLOW_RANGE_S
        tau = max(self.tau_slow_s, 1e-9)
        sign = 1.0 if tau > hi_tau else (-1.0 if tau < lo_tau else 0.0)
        rows.append((sign * sens.dlog_tau / TAU_WALL)[None, :])
        return np.vstack(rows)

    def _directions(self, phi: np.ndarray, board: BoardProfile, n_steps: int) -> Directions:
        """How one unit of each free ``phi`` moves capacitances, conductances, power, ambient, offset."""
        names = board.thermal.node_names()
        idx = {nm: i for i, nm in enumerate(names)}
        free = self.free
        n_par, n = len(free), len(names)
        dcap = np.zeros((n_par, n))
        dg = np.zeros((n_par, n, n))
        dbase = np.zeros((n_par, n, n_steps))
        damb = np.zeros(n_par)
        doff = np.zeros(n_par)
        pre = self.grid_inputs
        for j, i in enumerate(free):
            s = self.specs[i]
            rate = s.sigma * s.value(phi[i]) if s.log else s.sigma  # d(value)/d(phi)
            if s.kind == "capacitance":
                dcap[j, idx[s.key[0]]] = rate
            elif s.kind == CAP_SCALE:  # d(scale x C_n)/d(phi) = sigma x (the scaled C_n)
                for nm in s.key:
                    dcap[j, idx[nm]] = s.sigma * board.thermal.nodes[idx[nm]].capacitance_j_per_k
            elif s.kind == "link":
                a, b = idx[s.key[0]], idx[s.key[1]]
                dg[j, a, a] += rate
                dg[j, b, b] += rate
                dg[j, a, b] -= rate
                dg[j, b, a] -= rate
            elif s.kind == "ambient_link":
                dg[j, idx[s.key[0]], idx[s.key[0]]] += rate
            elif s.kind == "dyn_scale":
                dom = board.domain(s.key[0])
                dbase[j, idx[dom.node]] += (
                    s.sigma * dom.c_dyn_uw_per_mhz_v2 * pre.dyn_unit[dom.name][:n_steps]
                )
            elif s.kind == "static_scale":
                dbase[j, idx[board.thermal.rest_of_board_node]] += s.sigma * board.thermal.rest_of_board_w
                for dom in board.domains:
                    dbase[j, idx[dom.node]] += s.sigma * dom.idle_w
            elif s.kind == "ambient":
                damb[j] = rate
            else:
                doff[j] = rate
        return Directions(dcap, dg, dbase, damb, doff)


def _interp_weights(t: np.ndarray, grid_t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.interp(t, grid_t, f) == f[lo] * (1 - w) + f[hi] * w`` for any ``f``: for many columns at once."""
    hi = np.clip(np.searchsorted(grid_t, t, side="right"), 1, len(grid_t) - 1)
    lo = hi - 1
    width = grid_t[hi] - grid_t[lo]
    w = np.clip((t - grid_t[lo]) / np.where(width > 0, width, 1.0), 0.0, 1.0)
    if len(grid_t) == 1:
        hi = lo = np.zeros(len(t), dtype=int)
    return lo, hi, w


def fit_steps(grid: Grid, t: np.ndarray, train: np.ndarray) -> int:
    """Grid steps the fit must run: up to the first step at or after the last training sample.

    The training residuals are interpolated between the grid steps that bracket each sample, so
    nothing later can change them; the held-out part (60 % of the log in the fidelity bench)
    is never simulated during the fit, only by the open-loop check."""
    seen = np.flatnonzero(train)
    if not len(seen):
        return len(grid.t)
    return min(len(grid.t), int(np.searchsorted(grid.t, t[seen[-1]], side="left")) + 1)


READINGS_PER_PARAM = 10  # below this many training readings per parameter the network's shape is not fitted


def readings_in(data: LogData, sensors: Mapping[str, str], train: np.ndarray) -> int:
    return int(sum((np.isfinite(data.temps_c[s]) & train).sum() for s in sensors))


def reduced_for_sparse_logs(
    specs: list[ParamSpec], data: LogData, sensors: Mapping[str, str], train: np.ndarray
) -> list[ParamSpec]:
    """Fix the network's shape (capacitances, internal links) when the training part is too sparse.

    An sbc-bench report has a reading every 10-40 s: ten readings in the training part cannot
    determine a dozen parameters, and a fit that tries moves them to their bounds (held-out
    RMSE 42 °C on one such log).  With fewer than ``READINGS_PER_PARAM`` readings per free
    parameter only the gains stay free: the paths to ambient, the power scales, the ambient and
    the initial offset, the combinations a few readings of a level do determine.
    """
    n_free = sum(not s.fixed for s in specs)
    if readings_in(data, sensors, train) >= READINGS_PER_PARAM * n_free:
        return specs
    return [dataclasses.replace(s, fixed=True) if s.kind in ("capacitance", "link") else s for s in specs]


def starts_a_section(prob: FitProblem) -> bool:
    """Whether the final fit gets a second initial offset along the second-slowest mode.

    The start is the load history's state plus one offset along the slowest mode: only that mode
    is still off equilibrium once a log's first readings are taken.  A log whose first row starts
    a benchmark section (``load_starts_at_gaps``: sbc-bench, whose first benchmark heats the
    board from its first reading) is off equilibrium in a faster mode too.  Only where the fit
    forecasts a held-out part: a whole-log fit (the fleet's, :mod:`fleet`) keeps the one offset,
    since the second one takes from the gains the data determine there and so from the priors
    the fleet pools; and only where the log's second reading comes within that mode's time
    constant (:func:`_second_mode_seen`; docs/calibration.md, *Twelfth session: F3 and the
    Uptime prior*)."""
    return (
        prob.data.load_starts_at_gaps
        and not prob.train.all()
        and not cooling_from_boot(prob.data)  # its start is held (bootcool.py)
        and _second_mode_seen(prob)
    )


def _second_mode_seen(prob: FitProblem) -> bool:
    """Whether a reading after the first falls within the second-slowest time constant of the start's
    network (the profile's, the fan at the log's first level): otherwise an offset along that mode
    only moves the first reading, and fitting it drops that reading from the fit."""
    cap, g = network(prob.board.thermal)
    fan = prob.board.fan
    if fan is not None and prob.fan_levels is not None:
        idx = prob.board.thermal.node_names().index(fan.node)
        g = with_fan(g, idx, float(fan_conductance(prob.board, prob.fan_levels)[0]))
    lam = np.sort(Modes.of(cap, g).lam)
    if len(lam) < 2:
        return False
    tau2 = -1.0 / float(lam[-2])
    obs = prob.data.temps_c[next(iter(prob.sensors))]
    t = prob.data.t_s[prob.train & np.isfinite(obs)]
    return len(t) > 1 and bool(t[1] - t[0] <= tau2)


def _leak_reference(
    data: LogData, board: BoardProfile, sensors: Mapping[str, str], train: np.ndarray
) -> dict[str, float]:
    """Per node, the mean logged temperature of the training part: where leakage is linearised.

    Nodes without a sensor take the mean of all sensors; only training samples are used, so the
    held-out tail cannot reach the fit even through this constant.
    """
    by_node: dict[str, list[float]] = {}
    for name, node in sensors.items():
        by_node.setdefault(node, []).append(float(np.nanmean(ffill(data.temps_c[name])[train])))
    mean_all = float(np.mean([v for vs in by_node.values() for v in vs]))
    return {n: float(np.mean(by_node[n])) if n in by_node else mean_all for n in board.thermal.node_names()}


def _best(
    prob: FitProblem, starts: Sequence[np.ndarray], say: Callable[[str], None], stage: str, ftol: float = FTOL
) -> OptimizeResult:
    """The lowest-cost local optimum over a few starts: short logs have more than one.

    Every start is first run to a loose tolerance (``START_FTOL``, the housings' pre-fit
    tolerance) and only the best is refined: the starts only have to find the right basin, and
    a tight tolerance on each costs most of the time.
    """
    lo, hi = prob.bounds()
    best = None
    for i, x0 in enumerate(starts):
        say(f"{stage}: start {i + 1}/{len(starts)}")
        res = _solve(prob, np.clip(x0, lo, hi), lo, hi, max(START_FTOL, ftol) if len(starts) > 1 else ftol)
        if best is None or res.cost < best.cost:
            best = res
    assert best is not None
    if len(starts) > 1:
        best = _solve(prob, best.x, lo, hi, ftol)
    return best


def _solve(prob: FitProblem, x0: np.ndarray, lo: np.ndarray, hi: np.ndarray, ftol: float) -> OptimizeResult:
    """One bounded least-squares run; a model that is not finite is the log's fault, said as such."""
    r0 = prob.residuals(x0)
    if not np.all(np.isfinite(r0)):
        raise LogFormatError(
            f"{prob.data.source}: the model is not finite on this log's inputs (a clock, load or power "
            "column holds values the power model cannot use); check those columns with `thermogov import`"
        )
    try:
        return least_squares(
            prob.residuals,
            x0,
            jac=prob.jacobian if prob.analytic_jacobian else "2-point",
            method="trf",
            bounds=(lo, hi),
            x_scale=1.0,
            ftol=ftol,
            xtol=FTOL,
            tr_solver="lsmr",
        )
    except ValueError as e:  # scipy's own checks (residuals turning non-finite mid-fit)
        raise LogFormatError(f"{prob.data.source}: the fit failed on this log ({e})") from e


def _pre_fit(prob: FitProblem) -> float:
    """The cost of one loose fit from the priors: enough to rank housings (see enclosure.py)."""
    lo, hi = prob.bounds()
    return float(_solve(prob, np.zeros(len(prob.free)), lo, hi, PRE_FIT_FTOL).cost)


def effective_samples(r: np.ndarray, batches: int = 30) -> float:
    """Independent-sample equivalent of a residual series, by the batch-means method.

    With ``b`` samples per batch, ``b·var(batch means) / var(r)`` is the integrated
    autocorrelation time (1 for white noise, ``b`` for a residual that is one slow drift); the
    series is worth ``n`` divided by it.  Lag-1 correlation alone would call 1 °C quantisation
    noise on top of a slow misfit "independent".
    """
    n = len(r)
    if n < 2 * batches:
        return float(n)
    b = n // batches
    m = r[: b * batches].reshape(batches, b).mean(axis=1)
    var = float(np.var(r))
    if var <= 0:
        return float(n)
    tau = float(np.clip(b * np.var(m) / var, 1.0, b))
    return n / tau


def _fit(
    prob: FitProblem, say: Callable[[str], None], ftol: float = FTOL, reweight: bool = True
) -> tuple[OptimizeResult, int, float]:
    """Two passes: fit, then reweight the data term by the residuals' effective sample size, refit.

    Model error makes residuals correlated over minutes, so a 1 Hz log of 20 000 samples
    carries far fewer than 20 000 independent observations.  Counting each one fully would let
    a tiny systematic misfit outvote every prior (it drove a fitted ambient to 1 °C on a 6 h
    log).  The effective sample size of the first pass's residuals (batch means) rescales the
    data term before the second, final pass.
    """
    free_specs = [prob.specs[i] for i in prob.free]
    n_free = len(free_specs)
    cap_idx = [i for i, sp in enumerate(free_specs) if sp.kind in ("capacitance", CAP_SCALE)]
    starts = [np.zeros(n_free)]
    if cap_idx:
        for shift in (-1.0, 1.0):  # the slow mode's share is the ambiguous part of a short log
            x0 = np.zeros(n_free)
            x0[cap_idx] = shift
            starts.append(x0)
    res = _best(prob, starts, say, "fit pass 1/2", ftol)
    n_tail = n_free + 1  # priors + the time-constant wall
    n_data = len(res.fun) - n_tail
    n_eff = effective_samples(res.fun[:n_data])
    if reweight:
        prob.data_weight = math.sqrt(n_eff / n_data)
        res = _best(prob, [res.x], say, "fit pass 2/2 (residuals reweighted)", ftol)
    return res, n_data, n_eff


@dataclass(frozen=True)
class _Inner:
    """The validation inside the training part: its problem, the first sensor's readings, the tail."""

    base: FitProblem
    obs: np.ndarray
    test: np.ndarray


def _inner(
    data: LogData, board: BoardProfile, holdout: float, ambient_c: float, free_ambient: bool
) -> _Inner | None:
    """The inner problem: the training rows only, split at ``INNER_SHARE``; None when too short.

    Only the training rows are handed to it, so the held-out tail cannot reach any choice made
    on it even through the input inference."""
    t = data.t_s
    n_train = int(np.searchsorted(t, t[0] + (1.0 - holdout) * (t[-1] - t[0]), side="right"))
    inner = head(data, n_train)
    try:
        base = FitProblem.build(
            inner, board, holdout=1.0 - INNER_SHARE, ambient_c=ambient_c, free_ambient=free_ambient
        )
        check_training_part(base)
    except LogFormatError:
        return None
    obs = inner.temps_c[next(iter(base.sensors))]
    test = np.isfinite(obs) & ~base.train
    if test.sum() < MIN_INNER_READINGS:
        return None
    return _Inner(base, obs, test)


def _inner_forecast(inner: _Inner, rung: str) -> ForecastParts | None:
    """The rung fitted on the inner training part, forecasting the inner tail (with its drift)."""
    prob = dataclasses.replace(inner.base, specs=reduced(inner.base.specs, rung))
    try:
        res, _n, _ne = _fit(prob, lambda _m: None, INNER_FTOL, reweight=False)
        return prob.forecast_parts(prob.expand(res.x))
    except LogFormatError:
        return None


def _rmse(inner: _Inner, pred: np.ndarray) -> float:
    return float(np.sqrt(np.mean((pred[0][inner.test] - inner.obs[inner.test]) ** 2)))


def _select_model(
    inner: _Inner | None, board: BoardProfile, say: Callable[[str], None]
) -> tuple[str, dict[str, float], dict[str, ForecastParts]]:
    """The rung of :data:`~thermogov.sim.calibration.select.LADDER` the training part supports.

    A training part too short to split, or whose inner tail holds no load change, keeps the
    full model (and no scores).  The inner forecasts are returned for the drift weight."""
    if inner is None or not informative(dynamic_power(board, inner.base.inputs), ~inner.base.train):
        return LADDER[0][0], {}, {}  # nothing to choose on: see select.informative
    scores: dict[str, float] = {}
    parts: dict[str, ForecastParts] = {}
    seen: set[tuple[int, ...]] = set()
    for rung, _held in LADDER:
        key = tuple(dataclasses.replace(inner.base, specs=reduced(inner.base.specs, rung)).free.tolist())
        if key in seen:
            continue
        seen.add(key)
        say(f"model size: {rung}")
        got = _inner_forecast(inner, rung)
        if got is None:
            continue
        parts[rung] = got
        scores[rung] = _rmse(inner, got.full)
    return choose(scores), scores, parts


def _rms(a: np.ndarray) -> float:
    return float(np.sqrt(np.mean(a**2))) if len(a) else 0.0


def _inner_stands(inner: _Inner | None, prob: FitProblem) -> str:
    """Why the inner validation cannot choose a shrink for the held-out forecast ("" when it may).

    Checked before the inner forecast is made (it costs a fit): a training part to split and a
    held-out tail, and the final fit may have seen the load at the split at most
    :data:`~thermogov.sim.calibration.shrink.RANGE_RATIO` times as long as the inner fit saw the
    load at its split (:func:`~thermogov.sim.calibration.shrink.saw_as_much`)."""
    if inner is None:
        return "the training part is too short to validate it"
    if prob.train.all() or not prob.train.any():
        return "no held-out tail to forecast"
    dyn = dynamic_power(prob.board, prob.inputs)
    inner_last = int(np.flatnonzero(inner.base.train)[-1])
    last = int(np.flatnonzero(prob.train)[-1])
    if not saw_as_much(prob.data.t_s, dyn, inner_last, last, dyn[prob.train]):
        return (
            f"the final fit saw the load at its split over {RANGE_RATIO:g}x as long as the inner fit saw the load "
            "at its own (a training part that ends mid-rise: the inner model's drift is not the final one's)"
        )
    return ""


def _not_exercised(what: str, inner_part: np.ndarray, outer_part: np.ndarray) -> str:
    if exercised(inner_part, outer_part):
        return ""
    return (
        f"{what} is {_rms(inner_part):.2f} °C RMS in the inner tail and {_rms(outer_part):.2f} °C in the held-out "
        f"forecast, more than {RANGE_RATIO:g}x apart, so the inner validation did not test shrinking it"
    )


@dataclass(frozen=True)
class _Validation:
    """An inner validation that may choose a shrink: its problem and forecast, and the model's drift
    (first sensor) in the inner tail and in the held-out forecast, the ``None`` cases ruled out once
    for :func:`_drift_weight` and :func:`_level_share`."""

    inner: _Inner
    got: ForecastParts
    inner_drift: np.ndarray
    outer_drift: np.ndarray
    outer_tail: np.ndarray


def _validation(
    inner: _Inner | None, got: ForecastParts | None, outer: ForecastParts, gate: str
) -> _Validation | str:
    """The inner validation to choose a shrink on, or why there is none (``gate`` first)."""
    if gate:
        return gate
    if inner is None or got is None or got.drift is None or outer.drift is None or outer.tail is None:
        return "the inner fit failed"  # (a forecast with a drift always has its tail)
    return _Validation(inner, got, got.drift[0][inner.test], outer.drift[0][outer.tail], outer.tail)


def _chosen(scores: dict[float, float]) -> tuple[float, str]:
    """The weight the inner validation chose from ``scores`` (RMSE by weight) and the scores for the note."""
    return choose_weight(scores), ", ".join(f"{w:g} {rmse:.2f}" for w, rmse in scores.items())


def _drift_weight(
    inner: _Inner | None, got: ForecastParts | None, prob: FitProblem, outer: ForecastParts, gate: str
) -> tuple[float, str]:
    """The drift weight (:mod:`~thermogov.sim.calibration.shrink`) and the note that says why: 1
    unless the inner tail was a test like the held-out one (its load, the size of the model's
    drift in it) and a smaller weight forecast it better by the margin.  ``gate`` is
    :func:`_inner_stands`'s reason."""
    checked = _validation(inner, got, outer, gate)
    why = checked if isinstance(checked, str) else ""
    if isinstance(checked, _Validation):
        dyn_inner = dynamic_power(prob.board, checked.inner.base.inputs)
        dyn_all = dynamic_power(prob.board, prob.inputs)
        if not comparable(dyn_inner[~checked.inner.base.train], dyn_all[~prob.train], dyn_inner):
            why = "the last 30 % of the training part holds a load change unlike the held-out tail's"
        else:
            why = _not_exercised("the model's drift", checked.inner_drift, checked.outer_drift)
        if not why:
            weight, ranked = _chosen({w: _rmse(checked.inner, checked.got.blend(w)) for w in WEIGHTS})
            return weight, (
                f"forecast drift weight {weight:g} chosen on the same inner validation (RMSE °C by weight: "
                f"{ranked}; < 1 only if it beats 1 by {MARGIN_W:.0%}; sim/calibration/shrink.py)"
            )
    return 1.0, f"forecast drift weight 1: {why}"


def _level_share(
    inner: _Inner | None, got: ForecastParts | None, weight: float, outer: ForecastParts, gate: str
) -> tuple[float, str]:
    """How much of the forecast's deviation from the level at the split to keep
    (:func:`~thermogov.sim.calibration.shrink.toward_level`), and the note that says why.

    Chosen on the same inner validation as the drift weight, with that weight applied, and only
    where the inner tail exercised the deviation, and the (weighted) drift in it, at the size
    the held-out forecast has (:func:`~thermogov.sim.calibration.shrink.exercised`): a deviation
    whose drift and response cancel in one tail and not in the other was not tested."""
    checked = _validation(inner, got, outer, gate)
    why = checked if isinstance(checked, str) else ""
    if isinstance(checked, _Validation):
        why = _not_exercised(
            "the model's deviation from the level at the split",
            checked.got.deviation(weight, checked.inner.test),
            outer.deviation(weight, checked.outer_tail),
        )
        if not why and weight > 0.0:
            why = _not_exercised(
                "the model's drift", weight * checked.inner_drift, weight * checked.outer_drift
            )
        if not why:
            share, ranked = _chosen({a: _rmse(checked.inner, checked.got.blend(weight, a)) for a in WEIGHTS})
            return share, (
                f"forecast level share {share:g}: the deviation from the level at the split kept at this share, "
                f"chosen on the same inner validation (RMSE °C by share: {ranked}; sim/calibration/shrink.py)"
            )
    return 1.0, f"forecast level share 1: {why}"


def _trend_share(prob: FitProblem, outer: ForecastParts, share: float, note: str) -> tuple[float, str]:
    """The level share the training part's end supports (:mod:`~thermogov.sim.calibration.evidence`),
    where it is below the one the inner validation chose, with its note; else ``share`` and ``note``."""
    first = next(iter(prob.sensors))
    ev = trend_evidence(
        prob.data.temps_c[first], outer.full[0], prob.train, dynamic_power(prob.board, prob.inputs)
    )
    if ev.why or ev.share >= share or ev.raw is None or ev.se is None:
        return share, note
    return ev.share, (
        f"forecast level share {ev.share:.2f}: over the last {1 - INNER_SHARE:.0%} of the training part, under the "
        f"load the held-out tail keeps, the readings moved {ev.raw:.2f} ± {ev.se:.2f} times as much as the fitted "
        f"trajectory (prior 1 ± {PRIOR_SD:g}; the model's trend is shrunk toward the level at the split; "
        "sim/calibration/evidence.py)"
    )


def calibrate(
    data: LogData,
    board: BoardProfile,
    *,
    holdout: float = 0.3,
    ambient_c: float = 25.0,
    free_ambient: bool = False,
    enclosure: str | None = None,
    progress: Callable[[str], None] | None = None,
    select: bool = True,
) -> CalibrationResult:
    """Fit ``board``'s thermal model (and power scales) to ``data``; see the module docstring.

    ``progress`` receives one line per stage (each least-squares start is one line, so a user
    sees it move).  A log the model cannot be fitted to (too few distinct times, a sensor that
    never reads a plausible value, a temperature that never moves) raises
    :class:`LogFormatError` naming the cause, never a numerical error."""
    say = progress or (lambda _msg: None)
    if not (math.isfinite(holdout) and 0.0 <= holdout < 0.9):
        raise ConfigError(f"--holdout: {holdout:g} must be in [0, 0.9)")
    data, cleaned = checked_log(data)
    data = decimate(data)
    t = data.t_s
    say(f"{len(t)} samples over {t[-1] - t[0]:.0f} s; setting up the model of {board.name}")

    def build(b: BoardProfile) -> FitProblem:
        return FitProblem.build(data, b, holdout=holdout, ambient_c=ambient_c, free_ambient=free_ambient)

    prob = build(board)
    # A training part without a load change cannot show a time constant or a gain; when the
    # log's inputs change later, the forecast still has something to say: the profile's own
    # network and power scales, with only the idle level (idle power, ambient, offset) fitted.
    levels_only = not load_changes_in_training(prob)
    check_training_part(prob, levels_only=levels_only)
    if levels_only:
        select = False

    def build_for_housing(b: BoardProfile) -> FitProblem:
        p = build(b)
        if levels_only:  # ranked on what will be fitted: the idle level alone
            p.specs = reduced(p.specs, "levels")
        return p

    tiebreak = (
        None if levels_only or not select else _housing_by_forecast(data, holdout, ambient_c, free_ambient)
    )
    board, housing_note = _housing(data, board, enclosure, build_for_housing, say, tiebreak)
    prob = build_for_housing(board)
    prob.specs = start_reaches_room(prob)  # the start may be a board at room temperature (coldstart.py)
    prob.specs = start_held(prob)  # ... but not one still cooling from its boot (bootcool.py)
    specs, sensors, inputs, train = prob.specs, prob.sensors, prob.inputs, prob.train
    notes = [*cleaned, *inputs.notes, *([housing_note] if housing_note else [])]
    notes.extend(n for n in (held_note(specs, board), widened_note(specs)) if n)
    if any(sp.fixed and sp.kind == "offset" for sp in specs):
        notes.append(start_note(data))
    if levels_only:
        notes.append(
            "no load change in the training part: only the idle level (static_scale, ambient, offset) is "
            f"fitted; the network, housing ({board.enclosure}) and power scales are the profile's, so the "
            "forecast of the later load changes is the profile's, not this board's"
        )
    sparse = [sp.name for sp in specs if sp.fixed and sp.kind == "link"]
    fixed = [sp.name for sp in specs if sp.fixed and sp.kind == "capacitance"]
    if fixed and not levels_only and not sparse:  # on a sparse log the note below gives the reason
        notes.append(
            f"{', '.join(fixed)} not fitted: the node moves only with modes faster than a quarter of the "
            "sample interval, which the log cannot see (kept at the profile's value)"
        )
    if sparse and not levels_only:
        notes.append(
            f"only {readings_in(data, sensors, train)} readings in the training part (< {READINGS_PER_PARAM} per "
            "parameter): capacitances and internal links kept at the profile's values, only the gains "
            "(paths to ambient, power scales, ambient, offset) fitted"
        )
    scale = next((sp.name for sp in specs if sp.kind == CAP_SCALE and not sp.fixed), None)
    if scale and not levels_only:
        notes.append(
            f"{scale} fitted: the training part holds no load step, so its rate is shared between the "
            "capacitance on the main path to ambient and that path (sim/calibration/capscale.py)"
        )
    if prob.history is not None:
        notes.append(
            f"initial state: the network run through the CPU load the log's uptime and load averages imply "
            f"before its first reading ({prob.history.describe()}; sim/calibration/history.py), not the idle "
            "steady state"
        )
    drift_weight = 1.0
    inner, inner_parts = None, None
    if select:
        inner = _inner(data, board, holdout, ambient_c, free_ambient)
        if inner is not None:  # the paths to ambient held or free as in the final fit (fanoff.py)
            inner = dataclasses.replace(
                inner,
                base=dataclasses.replace(
                    inner.base,
                    specs=scale_as_in_final_fit(
                        offset_as_in_final_fit(as_in_final_fit(inner.base.specs, specs), specs), specs
                    ),
                ),
            )
        rung, scores, parts = _select_model(inner, board, say)
        if rung != LADDER[0][0]:
            prob.specs = specs = reduced(specs, rung)
        if scores:
            ranked = ", ".join(f"{n} {v:.2f}" for n, v in scores.items())
            notes.append(
                f"model size {rung!r} chosen by forecasting the last {1 - INNER_SHARE:.0%} of the training part "
                f"from a fit of its first {INNER_SHARE:.0%} (RMSE °C: {ranked})"
            )
        else:
            notes.append(
                f"model size {rung!r}: the last {1 - INNER_SHARE:.0%} of the training part holds no load change "
                "to validate a smaller model on"
            )
        inner_parts = parts.get(rung)
        if START_TRANSIENT and rung != "levels" and starts_a_section(prob):  # the final fit only
            prob.specs = specs = [*specs, fast_offset_spec()]
            notes.append(
                "the log's first row starts a benchmark section: a second initial offset along the "
                "second-slowest mode is fitted (the start's transient; model size and shrinks chosen without it)"
            )
    res, n_data, n_eff = _fit(prob, say)
    phi = prob.expand(res.x)
    notes.append(f"residuals correlated: {n_data} samples count as {n_eff:.0f} independent ones in the fit")
    say("uncertainty and held-out check")
    params = _posterior(specs, prob.free, res)
    gate = _inner_stands(inner, prob) if select else "not chosen"
    outer = prob.forecast_parts(phi, drift=not gate)
    level_share = 1.0
    if select:  # how far to trust the model after the split: both chosen on the inner validation
        if not gate and inner is not None and inner_parts is None:
            say("forecast drift weight and level share")
            inner_parts = _inner_forecast(inner, rung)
        drift_weight, weight_note = _drift_weight(inner, inner_parts, prob, outer, gate)
        level_share, share_note = _level_share(inner, inner_parts, drift_weight, outer, gate)
        level_share, share_note = _trend_share(prob, outer, level_share, share_note)
        level_share, share_note = bound_share(pinned(specs, prob.free, res.x), level_share, share_note)
        notes.extend(n for n in (weight_note, share_note) if n)
    pred, fitted, ambient, state = (
        outer.blend(drift_weight, level_share),
        outer.board,
        outer.ambient,
        outer.state,
    )
    if state is not None:
        notes.append(
            f"held-out forecast restarted at {state.t_s - t[0]:.0f} s from the state a Kalman filter of the "
            f"training readings puts there (level offset {', '.join(f'{b:+.2f}' for b in state.bias)} °C; "
            f"noise chosen by likelihood: heat {state.q_node:g} W²s, level drift {state.q_bias:g} K²/s)"
        )
    fitted = rename(
        fitted, f"{board.name}-calibrated", f"{board.description} (calibrated from {Path(data.source).name})"
    )
    fitted = dataclasses.replace(fitted, enclosures=())  # fitted to one housing: the others do not apply
    first = next(iter(sensors))
    obs = data.temps_c[first]
    err = pred[0] - obs
    ok = np.isfinite(err)
    rmse_train = float(np.sqrt(np.mean(err[ok & train] ** 2)))
    test = ok & ~train
    rmse_holdout = float(np.sqrt(np.mean(err[test] ** 2))) if test.any() else None
    rmse_persist = persistence_rmse(obs, train)
    taus = time_constants(fitted.thermal)
    say("steady state under the main load")
    steady = steady_state(fitted, inputs, data, sensors, ambient, taus[0])
    if steady is not None and steady.note:
        notes.append(steady.note)
    return CalibrationResult(
        board=fitted,
        params=params,
        ambient_c=ambient,
        rmse_train_c=rmse_train,
        rmse_holdout_c=rmse_holdout,
        holdout_from_s=float((1.0 - holdout) * (t[-1] - t[0])),
        rmse_persistence_c=rmse_persist,
        steady=steady,
        time_constants_s=taus,
        notes=tuple(notes),
        sensor=first,
        t_s=t,
        measured_c=obs,
        predicted_c=pred[0],
        source=data.source,
        variant=board.enclosure if housing_note else None,
        cost=float(res.cost),
        drift_weight=drift_weight,
        level_share=level_share,
    )


def _housing(
    data: LogData,
    board: BoardProfile,
    enclosure: str | None,
    build: Callable[[BoardProfile], FitProblem],
    say: Callable[[str], None],
    tiebreak: TieBreak | None = None,
) -> tuple[BoardProfile, str | None]:
    """The housing the fit starts from, and the note that says why.

    Declared (``--enclosure``) first; then what the log says of itself: a product name that
    implies a housing (:data:`~thermogov.sim.calibration.enclosure.HOUSING_NAMES`), a fan's
    tachometer turning, a setup name that says a passive cooler sits on the SoC
    (:func:`~thermogov.sim.calibration.enclosure.housing_of_setup`, which may reach a housing the
    pre-fit never ranks); else the cheapest pre-fit of each housing on the training part.  The
    same order holds whether the training part holds a load change or only an idle level
    (then ``build`` frees only the idle level, and the pre-fit ranks the housings by how well
    each explains that level with the profile's idle power and the assumed ambient: weak
    evidence, but the only one the log has; a first version kept the profile's default housing
    there without looking).
    """
    if enclosure is None and (named := housing_named(board, data.model)) is not None:
        return with_enclosure(board, named), (
            f"enclosure {named}: the log names the product {data.model!r}; declare another with --enclosure"
        )
    fan_housing = housing_with_fan(board, data.fan_rpm, data.fan_evidence) if enclosure is None else None
    if fan_housing is not None:
        evidence = data.fan_evidence or f"a fan turning at {max(data.fan_rpm):g} RPM"
        housed = with_declared_switch(with_enclosure(board, fan_housing), data.fan_switch_c)
        return housed, (
            f"enclosure {fan_housing}: the log shows a fan ({evidence}), the one housing of the profile "
            "with a fan, switched by its curve; declare another with --enclosure"
        )
    setup_housing = housing_of_setup(board, data.setup) if enclosure is None else None
    if setup_housing is not None:
        return with_enclosure(board, setup_housing), (
            f"enclosure {setup_housing}: the log's setup {data.setup!r} says a passive cooler sits on the SoC; "
            "declare another with --enclosure"
        )
    if enclosure is not None or board.enclosures:
        say(
            f"housing: pre-fit of {', '.join(candidates(board))}"
            if enclosure is None
            else "housing: declared"
        )
        ranked, rise_note = _housings_by_rise(data, board, build) if enclosure is None else (None, None)
        chosen, note = choose_enclosure(data, board, build, _pre_fit, enclosure, ranked, tiebreak)
        if enclosure is None and (fanless := fanless_for(board, chosen, data)) is not None:
            note = (
                f"enclosure {fanless}: the pre-fit prefers {chosen.enclosure}, a housing with a fan, but the log "
                f"lists the board's hardware sensors ({', '.join(data.sensor_chips)}) without one: a passive "
                f"cooler on the SoC; declare another with --enclosure ({note})"
            )
            chosen = with_enclosure(board, fanless)
        return chosen, "; ".join(n for n in (note, rise_note) if n) or None
    return board, None


def _housing_by_forecast(data: LogData, holdout: float, ambient_c: float, free_ambient: bool) -> TieBreak:
    """A tie-break among housings the pre-fit cannot tell apart: the one whose network, its gains
    fitted on the first :data:`~thermogov.sim.calibration.select.INNER_SHARE` of the training part,
    forecasts the rest best.

    The ``gains`` rung keeps each housing's own capacitances and internal links, which is what sets
    housings apart; freeing them (the ``full`` rung) lets every housing's fit walk toward the same
    network, and costs twice the time (unitA 4.7 -> 10 s CPU with ``full``; Session 31f).

    The pre-fit ranks housings by how well each *fits* the training part, and where the training
    part is one rise their costs differ by less than a parameter's worth; which housing the rise
    heads for shows better in a forecast of its own continuation.  Unlike the model-size choice
    (``select.informative``), that test needs no load change in the inner tail: every housing has
    the same parameters, so a continuation does not favour a smaller model.  Another housing than
    the cheapest must forecast ``MARGIN`` better (as a larger model must in ``select.choose``); a
    training part too short to split declines, and the cheapest stands."""

    def tiebreak(board: BoardProfile, near: list[str]) -> tuple[str, str] | None:
        scores: dict[str, float] = {}
        for name in near:
            inner = _inner(data, with_enclosure(board, name), holdout, ambient_c, free_ambient)
            got = None if inner is None else _inner_forecast(inner, "gains")
            if inner is None or got is None:
                return None
            scores[name] = _rmse(inner, got.full)
        best = min(near, key=lambda n: (scores[n], near.index(n)))
        if not scores[best] < (1.0 - MARGIN) * scores[near[0]]:
            return None
        ranked = ", ".join(f"{n} {scores[n]:.2f}" for n in near)
        return best, (
            f"so the one whose gains fitted on the first {INNER_SHARE:.0%} of the training part forecast the rest best "
            f"(RMSE °C: {ranked}; another than the cheapest by {MARGIN:.0%})"
        )

    return tiebreak


def _housings_by_rise(
    data: LogData, board: BoardProfile, build: Callable[[BoardProfile], FitProblem]
) -> tuple[list[str] | None, str | None]:
    """The candidates a falling training part leaves for the pre-fit (:mod:`housingrise`), and its note;
    (None, None) when the log has no such evidence or it leaves every candidate or none."""
    names = candidates(board)
    prob = build(board)
    ambient = next(s.prior for s in prob.specs if s.kind == "ambient")
    rises = housing_rises(data, board, names, prob.train, ambient)
    kept = consistent(rises)
    if not kept or len(kept) == len(names):
        return None, None
    return kept, rise_note(rises, kept)


def persistence_rmse(obs: np.ndarray, train: np.ndarray) -> float | None:
    """RMSE of the persistence forecast: the last training reading held over the held-out tail.

    The baseline any model must beat: it knows everything the fit knew at the split and
    nothing after; a model worse than it has learnt nothing that generalises."""
    ok = np.isfinite(obs)
    seen = ok & train
    test = ok & ~train
    if not seen.any() or not test.any():
        return None
    last = obs[np.flatnonzero(seen)[-1]]
    return float(np.sqrt(np.mean((obs[test] - last) ** 2)))


def _posterior(specs: Sequence[ParamSpec], free: np.ndarray, res: OptimizeResult) -> tuple[FittedParam, ...]:
    """Laplace approximation at the optimum; see the module docstring.  Fixed parameters keep the prior."""
    n_free = len(free)
    n_tail = n_free + 1
    jd = res.jac[:-n_tail]
    rd = res.fun[:-n_tail]  # already weighted by data_weight, so s2 is per effective sample
    dof = max(len(rd) - n_free, 1)
    s2 = max(float(rd @ rd) / dof, 1e-6)
    cov = np.linalg.pinv(jd.T @ jd / s2 + np.eye(n_free))
    sd_free = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    phi = np.zeros(len(specs))
    phi[free] = res.x
    sd_phi = np.ones(len(specs))
    sd_phi[free] = sd_free
    out = []
    for s, p, sdp in zip(specs, phi, sd_phi, strict=True):
        v = s.value(p)
        sd = float(v * s.sigma * sdp) if s.log else float(s.sigma * sdp)
        out.append(FittedParam(s.name, s.unit, s.prior, v, sd, "data" if sdp < 0.5 else "prior"))
    return tuple(out)
