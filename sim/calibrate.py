"""Fit a board profile's thermal model to a logged run, so the simulator predicts *your* board.

Model.  The profile's RC network (``C dT/dt = -G (T - T_amb) + P``) driven by the profile's
power model evaluated on the log's own inputs: per domain ``P = idle + u·cores·C_dyn·V(f)²·f
+ leak(T)`` at the domain's node and ``rest_of_board_w`` at the board node, exactly as
:mod:`thermogov.sim.world` computes it.  ``u`` is the logged utilisation, ``f`` the logged clock
(``V`` interpolated on the OPP table, clamped at its ends).  A log that has no power column is
still usable because the power is *derived* from the profile at the logged load and clock; its
error is absorbed by a fitted dynamic-power scale factor per domain.  Missing inputs are
inferred, and each inference is reported as a note: no clock -> the top OPP; no load but a clock
that moves (stressberry: ondemand raises the clock only under stress) -> busy when the clock is
well above its logged minimum; neither -> the load step seen in the temperature itself.

Fit.  ``scipy.optimize.least_squares`` on the temperature trajectory of the first
``1 - holdout`` of the log.  Every positive parameter is fitted as a log-ratio to the profile's
value with a weak prior (a factor 3 at one sigma for thermal values, 2 for power scales): a single
temperature trace cannot separate every conductance of a multi-node network (a 10 ms die node
is invisible at 1 s sampling, and a power scale is interchangeable with a conductance scale),
and the prior keeps those directions where the profile put them instead of letting them wander.
The ambient temperature, which no log in the reference set records, is fitted with a 3 °C prior
around ``--ambient``, and one offset lets the log start off its idle steady state.  Leakage
during the fit uses the *logged* temperature, which makes the model linear in the state: one
candidate costs one pass of a first-order recurrence per thermal mode (``scipy.signal.lfilter``
on a uniform grid), so even a 6-hour 1 Hz log fits in seconds.  The reported quality is then
measured honestly: the calibrated profile is run open-loop through the whole log by the
simulator's own :class:`~thermogov.sim.plant.ThermalPlant` with leakage at the *model's*
temperature, and the RMSE is taken on the held-out tail it never saw.

Uncertainty.  From the Jacobian at the optimum (Laplace approximation): data precision
``JᵀJ / s²`` (``s²`` the reduced chi-square of the temperature residuals, so model error widens
the bars) plus the prior's precision.  A parameter whose posterior sd is below half its prior
sd is reported as determined by the data, otherwise by the prior.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import least_squares
from scipy.signal import lfilter

from thermogov.board import BoardProfile, DomainProfile, ThermalLink, ThermalNode, ThermalProfile
from thermogov.interfaces import ConfigError, LogFormatError
from thermogov.sim.plant import ThermalPlant

SIGMA_T_C = 0.5  # per-sample temperature noise assumed in the residuals (°C); rescaled by chi²
THERMAL_PRIOR = math.log(3.0)
POWER_PRIOR = math.log(2.0)
AMBIENT_PRIOR_C = 3.0
OFFSET_PRIOR_C = 5.0
STEADY_WINDOW_S = 600.0  # the measured steady state: mean of the last 10 min under load ...
STEADY_MIN_TAUS = 4.0  # ... of a load segment at least this many slow time constants long
MAX_GRID = 200_000
MAX_SAMPLES = 4000  # longer logs are block-averaged first: same information, tenfold faster


# ---------------------------------------------------------------------------------------------
# The log, as the model sees it


@dataclass(frozen=True)
class LogData:
    """Inputs and outputs of one log on its own sample times (NaN where a value is missing)."""

    t_s: np.ndarray
    temps_c: dict[str, np.ndarray]
    freq_hz: dict[str, np.ndarray]
    load: dict[str, np.ndarray]
    power_w: np.ndarray | None
    source: str


def _column(cols: Mapping[str, Sequence[Any]], name: str) -> np.ndarray:
    return np.array([v if isinstance(v, int | float) else np.nan for v in cols[name]], dtype=float)


def log_data_from_columns(cols: Mapping[str, Sequence[Any]], source: str) -> LogData:
    """From trace columns (``load_trace``): ``<s>_c``, ``<d>_freq_hz``, ``<d>_load``, ``power_w``."""
    if "t_s" not in cols:
        raise LogFormatError(f"{source}: not a thermogov trace (no t_s column)")
    t = _column(cols, "t_s")
    temps = {c[:-2]: _column(cols, c) for c in cols if c.endswith("_c") and c != "fused_c"}
    freqs = {c[: -len("_freq_hz")]: _column(cols, c) for c in cols if c.endswith("_freq_hz")}
    loads = {c[: -len("_load")]: _column(cols, c) for c in cols if c.endswith("_load")}
    power = _column(cols, "power_w") if "power_w" in cols else None
    if power is not None and not np.isfinite(power).any():
        power = None
    return LogData(t, temps, freqs, loads, power, source)


def decimate(data: LogData, max_samples: int = MAX_SAMPLES) -> LogData:
    """Block-average a long log down to at most ``max_samples`` rows.

    A 6-hour 1 Hz log has ~20 000 rows but only a few hundred independent ones (see
    :func:`effective_samples`); averaging blocks of k rows also averages away the sensor's
    quantisation.  Utilisation and clock are averaged too, which keeps the mean power of a block.
    """
    n = len(data.t_s)
    k = math.ceil(n / max_samples)
    if k <= 1:
        return data
    m = n // k

    def blocks(a: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmean(a[: m * k].reshape(m, k), axis=1)

    return LogData(
        t_s=data.t_s[: m * k].reshape(m, k)[:, 0],
        temps_c={s: blocks(v) for s, v in data.temps_c.items()},
        freq_hz={d: blocks(v) for d, v in data.freq_hz.items()},
        load={d: blocks(v) for d, v in data.load.items()},
        power_w=None if data.power_w is None else blocks(data.power_w),
        source=data.source,
    )


def load_log_data(path: Path | str) -> LogData:
    """A run folder or trace CSV; any other file is parsed as a raw board log (auto-detected)."""
    from thermogov.trace import TRACE_FILE, read_csv_columns

    p = Path(path)
    if p.is_dir():
        if not (p / TRACE_FILE).is_file():
            raise LogFormatError(f"{p}: no {TRACE_FILE} in this folder; pass a run folder (thermogov import)")
        return log_data_from_columns(read_csv_columns(p / TRACE_FILE), str(p))
    if not p.is_file():
        raise LogFormatError(f"{p}: no such run folder or log file; check the path")
    with p.open(encoding="utf-8", errors="replace") as fh:
        first = fh.readline()
    if first.split(",")[0].strip() == "t_s":
        return log_data_from_columns(read_csv_columns(p), str(p))
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder

    log = parse_log(p)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:  # the same column mapping as a real import
        run = write_run_folder(log, Path(tmp))
        data = log_data_from_columns(read_csv_columns(run.run_dir / TRACE_FILE), str(p))
    return data


# ---------------------------------------------------------------------------------------------
# Inputs of the power model


@dataclass(frozen=True)
class Inputs:
    """Per-domain utilisation, clock and voltage at each sample, plus how they were obtained."""

    load: dict[str, np.ndarray]
    freq_hz: dict[str, np.ndarray]
    volt_v: dict[str, np.ndarray]
    varying: tuple[str, ...]  # domains whose dynamic power changes during the log
    notes: tuple[str, ...]


def _ffill(a: np.ndarray) -> np.ndarray:
    """Hold the last known value over gaps (and the first known one before it)."""
    out = a.copy()
    ok = np.isfinite(out)
    if not ok.any():
        return out
    idx = np.where(ok, np.arange(len(out)), 0)
    np.maximum.accumulate(idx, out=idx)
    out = out[idx]
    first = int(np.argmax(ok))
    out[:first] = a[first]
    return out


def infer_step(t: np.ndarray, temp: np.ndarray, window_s: float = 10.0) -> tuple[float, float] | None:
    """Start and end of a load step seen in a temperature trace, or None if there is none.

    A load step on a board shows as the steepest rise of the fast (package) mode within a few
    seconds, and its end as the steepest fall; a drift of the slow mode is far too slow to be
    mistaken for either.  A rise under 2 K is not called a step.
    """
    temp = _ffill(temp)
    j = np.searchsorted(t, t + window_s)
    j = np.minimum(j, len(t) - 1)
    delta = temp[j] - temp
    k_on = int(np.argmax(delta))
    if delta[k_on] < 2.0:
        return None
    after = delta.copy()
    after[: j[k_on] + 1] = 0.0
    k_off = int(np.argmin(after))
    t_off = float(t[k_off]) if after[k_off] <= -1.5 else float(t[-1]) + 1.0
    # The step happened between the two samples that straddle the steepest rise.
    on = (
        float(t[k_on + int(np.argmax(np.diff(temp[k_on : j[k_on] + 1])))])
        if j[k_on] > k_on
        else float(t[k_on])
    )
    if after[k_off] <= -1.5 and j[k_off] > k_off:
        t_off = float(t[k_off + int(np.argmin(np.diff(temp[k_off : j[k_off] + 1])))])
    return on, t_off


def derive_inputs(data: LogData, board: BoardProfile) -> Inputs:
    """The power model's inputs per profile domain, inferring what the log does not have."""
    notes: list[str] = []
    n = len(data.t_s)
    loads: dict[str, np.ndarray] = {}
    freqs: dict[str, np.ndarray] = {}
    volts: dict[str, np.ndarray] = {}
    any_load = any(np.isfinite(data.load.get(d.name, np.array([np.nan]))).any() for d in board.domains)
    for i, d in enumerate(board.domains):
        f = data.freq_hz.get(d.name)
        if f is None or not np.isfinite(f).any():
            f = np.full(n, float(d.opp_hz[-1]))
            notes.append(f"{d.name}: no clock in the log; the top OPP {d.opp_hz[-1] / 1e6:g} MHz is assumed")
        else:
            f = _ffill(f)
        u = data.load.get(d.name)
        if u is not None and np.isfinite(u).any():
            u = np.clip(_ffill(u), 0.0, 1.0)
        elif np.nanmax(f) > np.nanmin(f) * 1.05:
            lo, hi = float(np.nanmin(f)), float(np.nanmax(f))
            u = (f > lo + 0.25 * (hi - lo)).astype(float)
            notes.append(
                f"{d.name}: no load in the log; busy (u=1) while the clock is above {lo / 1e6:.0f} MHz + 25 % "
                "of its range (an on-demand governor raises it only under load)"
            )
        elif not any_load and i == 0:
            temp = _primary_temperature(data, board)
            step = infer_step(data.t_s, temp)
            if step is None:
                raise LogFormatError(
                    f"{data.source}: no load, no clock changes and no load step in the temperature; "
                    "nothing drives the model, so it cannot be calibrated from this log"
                )
            on, off = step
            u = ((data.t_s >= on) & (data.t_s < off)).astype(float)
            notes.append(
                f"{d.name}: no load or clock in the log; a load step (u=1) is inferred from the temperature "
                f"from {on:g} s to {off:g} s"
            )
        else:
            u = np.zeros(n)
            notes.append(f"{d.name}: no load in the log; taken as idle")
        hz = np.asarray(d.opp_hz, dtype=float)
        loads[d.name], freqs[d.name] = u, f
        volts[d.name] = np.interp(f, hz, np.asarray(d.volt_v))
        if np.nanmax(f) > hz[-1] * 1.001 or np.nanmin(f) < hz[0] * 0.999:
            notes.append(
                f"{d.name}: logged clock {np.nanmin(f) / 1e6:.0f}-{np.nanmax(f) / 1e6:.0f} MHz leaves the OPP table; "
                "voltage held at the table's end"
            )
    varying = tuple(
        d.name for d in board.domains if np.ptp(loads[d.name] * volts[d.name] ** 2 * freqs[d.name]) > 0
    )
    return Inputs(loads, freqs, volts, varying, tuple(notes))


def sensor_nodes(data: LogData, board: BoardProfile) -> dict[str, str]:
    """Log sensor -> thermal node, by the profile's sensor names (or its sysfs zone names)."""
    out: dict[str, str] = {}
    for s in board.sensors:
        aliases = {s.name, *(_alias(a) for a in s.sysfs_names)}
        for name, values in data.temps_c.items():
            if (name in aliases or _alias(name) in aliases) and np.isfinite(values).any() and name not in out:
                out[name] = s.node
    if not out:
        logged = [k for k, v in data.temps_c.items() if np.isfinite(v).any() and k != "ambient"]
        if len(logged) == 1 and len(board.sensors) == 1:
            return {logged[0]: board.sensors[0].node}
        raise ConfigError(
            f"{data.source}: none of the log's sensors ({', '.join(sorted(data.temps_c)) or 'none'}) is a sensor "
            f"of board {board.name} ({', '.join(s.name for s in board.sensors)}); choose the matching --board"
        )
    return out


def _alias(name: str) -> str:
    n = name.lower().replace("-", "_")
    for suffix in ("_thermal", "_therm"):
        n = n.removesuffix(suffix)
    return n


def _primary_temperature(data: LogData, board: BoardProfile) -> np.ndarray:
    return data.temps_c[next(iter(sensor_nodes(data, board)))]


# ---------------------------------------------------------------------------------------------
# Parameters


@dataclass(frozen=True)
class ParamSpec:
    """One fitted quantity: where it lives in the profile, its prior value and width."""

    name: str
    kind: str  # capacitance | link | ambient_link | dyn_scale | static_scale | ambient | offset
    key: tuple[str, ...]
    prior: float
    sigma: float  # log-space for positive parameters, °C for ambient/offset
    unit: str

    @property
    def log(self) -> bool:
        return self.kind not in ("ambient", "offset")

    def value(self, phi: float) -> float:
        return self.prior * math.exp(phi * self.sigma) if self.log else self.prior + phi * self.sigma


def param_specs(
    board: BoardProfile, varying: Sequence[str], fit_static: bool, ambient_c: float
) -> list[ParamSpec]:
    th = board.thermal
    specs = [
        ParamSpec(f"C[{n.name}]", "capacitance", (n.name,), n.capacitance_j_per_k, THERMAL_PRIOR, "J/K")
        for n in th.nodes
    ]
    specs += [
        ParamSpec(f"G[{lk.a}-{lk.b}]", "link", (lk.a, lk.b), lk.conductance_w_per_k, THERMAL_PRIOR, "W/K")
        for lk in th.links
    ]
    specs += [
        ParamSpec(
            f"G[{n.name}-ambient]", "ambient_link", (n.name,), n.to_ambient_w_per_k, THERMAL_PRIOR, "W/K"
        )
        for n in th.nodes
        if n.to_ambient_w_per_k > 0
    ]
    specs += [
        ParamSpec(f"dyn_scale[{d}]", "dyn_scale", (d,), 1.0, POWER_PRIOR, "x")
        for d in varying
        if board.domain(d).c_dyn_uw_per_mhz_v2 > 0
    ]
    if fit_static:
        specs.append(ParamSpec("static_scale", "static_scale", (), 1.0, POWER_PRIOR, "x"))
    specs.append(ParamSpec("ambient", "ambient", (), ambient_c, AMBIENT_PRIOR_C, "°C"))
    specs.append(ParamSpec("initial_offset", "offset", (), 0.0, OFFSET_PRIOR_C, "°C"))
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
    for s, v in zip(specs, values, strict=True):
        if s.kind == "capacitance":
            caps[s.key[0]] = v
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
        else:
            offset = v
    th = board.thermal
    thermal = ThermalProfile(
        nodes=tuple(ThermalNode(n.name, caps[n.name], amb_links[n.name]) for n in th.nodes),
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
    return dataclasses.replace(board, thermal=thermal, domains=domains), ambient, offset


# ---------------------------------------------------------------------------------------------
# Model evaluation


@dataclass(frozen=True)
class Grid:
    """A uniform time grid carrying the inputs (zero-order hold of the samples)."""

    t: np.ndarray
    h: float
    sample_index: np.ndarray  # for each grid point, the sample whose input is in force


def make_grid(t: np.ndarray) -> Grid:
    dt = np.diff(t)
    dt = dt[dt > 0]
    h = float(np.median(dt)) if len(dt) else 1.0
    if len(dt) and np.std(dt) > 0.02 * h:
        h /= 4.0  # jittered sampling (stressberry): a finer grid keeps input edges within h/4
    span = float(t[-1] - t[0])
    h = max(h, span / MAX_GRID, 1e-3)
    n = math.floor(span / h + 1e-9) + 1
    grid = t[0] + h * np.arange(n)
    idx = np.searchsorted(t, grid + 1e-9, side="right") - 1
    return Grid(grid, h, np.clip(idx, 0, len(t) - 1))


def node_power(
    board: BoardProfile, inputs: Inputs, rows: np.ndarray, node_temp: Mapping[str, np.ndarray]
) -> np.ndarray:
    """Power per node (rows x nodes) at the given sample rows; the simulator's own formula."""
    names = board.thermal.node_names()
    idx = {n: i for i, n in enumerate(names)}
    p = np.zeros((len(rows), len(names)))
    p[:, idx[board.thermal.rest_of_board_node]] += board.thermal.rest_of_board_w
    for d in board.domains:
        p[:, idx[d.node]] += domain_power(d, inputs, rows, node_temp[d.node])
    return p


def domain_power(d: DomainProfile, inputs: Inputs, rows: np.ndarray, temp_c: np.ndarray) -> np.ndarray:
    u = inputs.load[d.name][rows]
    f = inputs.freq_hz[d.name][rows]
    v = inputs.volt_v[d.name][rows]
    dyn = d.c_dyn_uw_per_mhz_v2 * v * v * (f / 1e6) * 1e-6 * u * d.cores
    leak = (
        d.leak_w_ref
        * (v / d.volt_v[-1])
        * np.exp(np.minimum(d.leak_beta_per_k * (temp_c - d.leak_ref_c), 50.0))
    )
    return d.idle_w + dyn + leak


def _network(th: ThermalProfile) -> tuple[np.ndarray, np.ndarray]:
    names = th.node_names()
    idx = {n: i for i, n in enumerate(names)}
    g = np.zeros((len(names), len(names)))
    for lk in th.links:
        i, j = idx[lk.a], idx[lk.b]
        g[i, j] -= lk.conductance_w_per_k
        g[j, i] -= lk.conductance_w_per_k
    np.fill_diagonal(g, -g.sum(axis=1) + np.array([n.to_ambient_w_per_k for n in th.nodes]))
    return np.array([n.capacitance_j_per_k for n in th.nodes]), g


def linear_response(
    cap: np.ndarray, g: np.ndarray, power: np.ndarray, h: float, x0: np.ndarray
) -> np.ndarray:
    """Excess temperatures (grid x nodes) for ZOH power on a uniform grid, exactly.

    In the symmetric modal form each mode is a scalar recurrence ``z[k+1] = e z[k] + g w[k]``,
    which ``lfilter`` runs in C: the whole trajectory costs a few vector operations.
    """
    d = 1.0 / np.sqrt(cap)
    lam, u = np.linalg.eigh(-(d[:, None] * g * d[None, :]))
    w = power @ (u.T * d[None, :]).T  # U^T D P, per grid point
    z0 = (u.T / d[None, :]) @ x0
    e = np.exp(lam * h)
    gain = (e - 1.0) / lam
    n = len(power)
    z = np.empty((n, len(cap)))
    z[0] = z0
    k = np.arange(1, n)
    for i in range(len(cap)):
        decay = np.exp(lam[i] * h * k)
        z[1:, i] = decay * z0[i] + lfilter([gain[i]], [1.0, -e[i]], w[:-1, i])
    return z @ (d[:, None] * u).T


def slow_mode(cap: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, float]:
    """The slowest mode's shape (excess temperature per node) and time constant."""
    d = 1.0 / np.sqrt(cap)
    lam, u = np.linalg.eigh(-(d[:, None] * g * d[None, :]))
    i = int(np.argmax(lam))
    return d * u[:, i], -1.0 / float(lam[i])


# ---------------------------------------------------------------------------------------------
# The fit


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
class SteadyState:
    """Measured vs predicted steady state under the log's main load segment."""

    segment_s: tuple[float, float]
    window_s: tuple[float, float]
    predicted_c: float
    measured_c: float | None  # None when the segment is too short to reach steady state
    note: str

    @property
    def error_c(self) -> float | None:
        return None if self.measured_c is None else self.predicted_c - self.measured_c


@dataclass(frozen=True)
class CalibrationResult:
    board: BoardProfile
    params: tuple[FittedParam, ...]
    ambient_c: float
    rmse_train_c: float
    rmse_holdout_c: float | None
    holdout_from_s: float
    steady: SteadyState | None
    time_constants_s: tuple[float, ...]
    notes: tuple[str, ...]
    sensor: str
    t_s: np.ndarray = field(repr=False)
    measured_c: np.ndarray = field(repr=False)
    predicted_c: np.ndarray = field(repr=False)
    source: str = ""

    def param(self, name: str) -> FittedParam:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass
class _Problem:
    board: BoardProfile
    data: LogData
    inputs: Inputs
    grid: Grid
    specs: list[ParamSpec]
    sensors: dict[str, str]
    train: np.ndarray  # sample mask
    leak_temp: dict[str, np.ndarray]  # node -> measured temperature on the grid (for leakage)
    power_sigma: float
    data_weight: float = 1.0  # sqrt(n_eff / n): see calibrate()


def _leak_temperatures(
    data: LogData, board: BoardProfile, sensors: Mapping[str, str], grid: Grid
) -> dict[str, np.ndarray]:
    by_node: dict[str, list[np.ndarray]] = {}
    for name, node in sensors.items():
        by_node.setdefault(node, []).append(_ffill(data.temps_c[name]))
    mean_all = np.mean([v for vs in by_node.values() for v in vs], axis=0)
    return {
        n: (np.mean(by_node[n], axis=0) if n in by_node else mean_all)[grid.sample_index]
        for n in board.thermal.node_names()
    }


def _predict(
    prob: _Problem, phi: np.ndarray, free_run: bool = False
) -> tuple[np.ndarray, np.ndarray, BoardProfile, float]:
    """Predicted sensor temperatures (sensors x samples), model total power per sample, profile, ambient."""
    values = [s.value(p) for s, p in zip(prob.specs, phi, strict=True)]
    board, ambient, offset = apply_params(prob.board, prob.specs, values)
    cap, g = _network(board.thermal)
    rows = prob.grid.sample_index
    p_grid = node_power(board, prob.inputs, rows, prob.leak_temp)
    names = board.thermal.node_names()
    node_idx = {n: i for i, n in enumerate(names)}
    shape, _tau = slow_mode(cap, g)
    first_node = node_idx[next(iter(prob.sensors.values()))]
    x0 = np.linalg.solve(g, p_grid[0]) + offset * shape / shape[first_node]
    if free_run:
        x = _free_run(board, prob.inputs, rows, prob.grid.h, x0, ambient)
    else:
        x = linear_response(cap, g, p_grid, prob.grid.h, x0)
    t = prob.data.t_s
    pred = np.array(
        [np.interp(t, prob.grid.t, x[:, node_idx[node]]) + ambient for node in prob.sensors.values()]
    )
    total = p_grid.sum(axis=1)
    total_at_samples = np.interp(t, prob.grid.t, total)
    return pred, total_at_samples, board, ambient


def _free_run(
    board: BoardProfile, inputs: Inputs, rows: np.ndarray, h: float, x0: np.ndarray, ambient: float
) -> np.ndarray:
    """Open-loop simulation with the simulator's plant, leakage at the model's own temperature."""
    plant = ThermalPlant.from_profile(board.thermal, ambient)
    plant.x = x0.astype(float).copy()
    names = board.thermal.node_names()
    out = np.empty((len(rows), len(names)))
    one = np.zeros(1, dtype=int)
    for k, r in enumerate(rows):
        out[k] = plant.x
        temps = plant.temps_c()
        one[0] = r
        p = node_power(board, inputs, one, {n: temps[i : i + 1] for i, n in enumerate(names)})[0]
        plant.advance(h, p)
    return out


def _residuals(prob: _Problem, phi: np.ndarray) -> np.ndarray:
    pred, total, _b, _a = _predict(prob, phi)
    parts = []
    for i, name in enumerate(prob.sensors):
        obs = prob.data.temps_c[name]
        m = prob.train & np.isfinite(obs)
        parts.append((pred[i][m] - obs[m]) * (prob.data_weight / SIGMA_T_C))
    if prob.data.power_w is not None:
        m = prob.train & np.isfinite(prob.data.power_w)
        parts.append((total[m] - prob.data.power_w[m]) * (prob.data_weight / prob.power_sigma))
    parts.append(phi)  # the priors, in units of their own sigma
    return np.concatenate(parts)


def _best(prob: _Problem, starts: Sequence[np.ndarray]) -> Any:
    """The lowest-cost local optimum over a few starts: short logs have more than one."""
    best = None
    for x0 in starts:
        res = least_squares(lambda p: _residuals(prob, p), x0, method="trf", bounds=(-8.0, 8.0), x_scale=1.0)
        if best is None or res.cost < best.cost:
            best = res
    return best


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


def calibrate(
    data: LogData, board: BoardProfile, *, holdout: float = 0.3, ambient_c: float = 25.0
) -> CalibrationResult:
    """Fit ``board``'s thermal model (and power scales) to ``data``; see the module docstring."""
    if not 0.0 <= holdout < 0.9:
        raise ConfigError(f"--holdout: {holdout:g} must be in [0, 0.9)")
    if len(data.t_s) < 10 or data.t_s[-1] - data.t_s[0] <= 0:
        raise LogFormatError(f"{data.source}: {len(data.t_s)} samples are too few to calibrate from")
    data = decimate(data)
    t = data.t_s
    sensors = sensor_nodes(data, board)
    inputs = derive_inputs(data, board)
    notes = list(inputs.notes)
    amb = data.temps_c.get("ambient")
    ambient_prior = float(np.nanmean(amb)) if amb is not None and np.isfinite(amb).any() else ambient_c
    fit_static = data.power_w is not None
    specs = param_specs(board, inputs.varying, fit_static, ambient_prior)
    split = t[0] + (1.0 - holdout) * (t[-1] - t[0])
    train = t <= split
    grid = make_grid(t)
    power_sigma = 0.05 * float(np.nanmean(data.power_w)) + 0.05 if data.power_w is not None else 1.0
    prob = _Problem(
        board,
        data,
        inputs,
        grid,
        specs,
        sensors,
        train,
        _leak_temperatures(data, board, sensors, grid),
        power_sigma,
    )
    n_cap = sum(1 for sp in specs if sp.kind == "capacitance")
    starts = [np.zeros(len(specs))]
    for shift in (-1.0, 1.0):  # the slow mode's share is the ambiguous part of a short log
        x0 = np.zeros(len(specs))
        x0[:n_cap] = shift
        starts.append(x0)
    res = _best(prob, starts)
    # Model error makes residuals correlated over minutes, so a 1 Hz log of 20 000 samples
    # carries far fewer than 20 000 independent observations.  Counting each one fully would let
    # a tiny systematic misfit outvote every prior (it drove a fitted ambient to 1 °C on a 6 h
    # log).  The effective sample size of the first pass's residuals (batch means) rescales
    # the data term before the second, final pass.
    n_data = len(res.fun) - len(specs)
    n_eff = effective_samples(res.fun[:n_data])
    prob.data_weight = math.sqrt(n_eff / n_data)
    res = _best(prob, [res.x, *starts])
    phi = res.x
    notes.append(f"residuals correlated: {n_data} samples count as {n_eff:.0f} independent ones in the fit")
    values = [s.value(p) for s, p in zip(specs, phi, strict=True)]
    n_prior = len(specs)
    jd = res.jac[:-n_prior]
    rd = res.fun[:-n_prior]  # already weighted by data_weight, so s2 is per effective sample
    dof = max(len(rd) - len(specs), 1)
    s2 = max(float(rd @ rd) / dof, 1e-6)
    cov = np.linalg.pinv(jd.T @ jd / s2 + np.eye(len(specs)))
    sd_phi = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    params = tuple(
        FittedParam(
            s.name,
            s.unit,
            s.prior,
            v,
            (v * s.sigma * sdp) if s.log else s.sigma * sdp,
            "data" if sdp < 0.5 else "prior",
        )
        for s, v, sdp in zip(specs, values, sd_phi, strict=True)
    )
    pred, _total, fitted, ambient = _predict(prob, phi, free_run=True)
    fitted = rename(
        fitted, f"{board.name}-calibrated", f"{board.description} (calibrated from {Path(data.source).name})"
    )
    first = next(iter(sensors))
    obs = data.temps_c[first]
    err = pred[0] - obs
    ok = np.isfinite(err)
    rmse_train = float(np.sqrt(np.mean(err[ok & train] ** 2)))
    test = ok & ~train
    rmse_holdout = float(np.sqrt(np.mean(err[test] ** 2))) if test.any() else None
    cap, g = _network(fitted.thermal)
    d = 1.0 / np.sqrt(cap)
    taus = tuple(sorted((-1.0 / np.linalg.eigvalsh(-(d[:, None] * g * d[None, :]))).tolist(), reverse=True))
    steady = _steady_state(fitted, inputs, data, sensors, ambient, taus[0])
    if steady is not None and steady.note:
        notes.append(steady.note)
    return CalibrationResult(
        board=fitted,
        params=params,
        ambient_c=ambient,
        rmse_train_c=rmse_train,
        rmse_holdout_c=rmse_holdout,
        holdout_from_s=float(split - t[0]),
        steady=steady,
        time_constants_s=taus,
        notes=tuple(notes),
        sensor=first,
        t_s=t,
        measured_c=obs,
        predicted_c=pred[0],
        source=data.source,
    )


# ---------------------------------------------------------------------------------------------
# Steady state


def steady_state_c(board: BoardProfile, inputs: Inputs, rows: np.ndarray, ambient_c: float) -> np.ndarray:
    """Node temperatures where the mean input over ``rows`` settles (leakage fixed point)."""
    names = board.thermal.node_names()
    _cap, g = _network(board.thermal)
    temps = np.full(len(names), ambient_c + 20.0)
    for _ in range(100):
        p = node_power(board, inputs, rows, {n: np.full(len(rows), temps[i]) for i, n in enumerate(names)})
        new = np.linalg.solve(g, p.mean(axis=0)) + ambient_c
        if np.max(np.abs(new - temps)) < 1e-6:
            return new
        temps = new
    return temps


def _steady_state(
    board: BoardProfile,
    inputs: Inputs,
    data: LogData,
    sensors: Mapping[str, str],
    ambient: float,
    tau_slow: float,
) -> SteadyState | None:
    """Steady state of the longest high-power segment: predicted always, measured when reached.

    "Reached" means the segment lasts at least ``STEADY_MIN_TAUS`` slow time constants (then the
    slow mode has decayed below 2 %); the measured value is the mean of the sensor over the last
    ``STEADY_WINDOW_S`` of the segment and the prediction uses the mean input of that window.
    """
    t = data.t_s
    dyn = sum(inputs.load[d] * inputs.volt_v[d] ** 2 * inputs.freq_hz[d] for d in inputs.load)
    if np.ptp(dyn) <= 0:
        return None
    high = dyn > 0.5 * (dyn.min() + dyn.max())
    best = (0, 0)
    start = None
    for i, h in enumerate([*high.tolist(), False]):
        if h and start is None:
            start = i
        elif not h and start is not None:
            if t[i - 1] - t[start] > t[best[1]] - t[best[0]] or best == (0, 0):
                best = (start, i - 1)
            start = None
    a, b = best
    seg = (float(t[a]), float(t[b]))
    w0 = max(seg[0], seg[1] - STEADY_WINDOW_S)
    rows = np.where((t >= w0) & (t <= seg[1]))[0]
    node = next(iter(sensors.values()))
    idx = board.thermal.node_names().index(node)
    predicted = float(steady_state_c(board, inputs, rows, ambient)[idx])
    length = seg[1] - seg[0]
    if length >= STEADY_MIN_TAUS * tau_slow and length >= STEADY_WINDOW_S:
        obs = data.temps_c[next(iter(sensors))][rows]
        return SteadyState(seg, (w0, seg[1]), predicted, float(np.nanmean(obs)), "")
    note = (
        f"steady state not reached in the log: the load segment lasts {length:.0f} s < "
        f"{STEADY_MIN_TAUS:g} x the slow time constant {tau_slow:.0f} s; only the prediction is reported"
    )
    return SteadyState(seg, (w0, seg[1]), predicted, None, note)


# ---------------------------------------------------------------------------------------------
# Writing the profile


def board_to_dict(board: BoardProfile) -> dict[str, Any]:
    """The TOML tables of a profile, the inverse of :func:`thermogov.board.parse_board`."""

    def mhz(hz: Sequence[int]) -> list[float | int]:
        return [round(f / 1e6, 6) if f % 1_000_000 else f // 1_000_000 for f in hz]

    d: dict[str, Any] = {
        "board": {"name": board.name, "description": board.description, "dt_models": list(board.dt_models)},
        "sensors": {
            s.name: {
                "weight": s.weight,
                "period_ms": s.period_ms,
                "hard_limit_c": s.hard_limit_c,
                "node": s.node,
                "noise_c": s.noise_c,
                "quant_c": s.quant_c,
                "lag_s": s.lag_s,
                "kind": s.kind,
                "sysfs_names": list(s.sysfs_names),
            }
            for s in board.sensors
        },
        "domains": {
            dm.name: {
                "kind": dm.kind,
                "node": dm.node,
                "cores": dm.cores,
                "opp_mhz": mhz(dm.opp_hz),
                "volt_v": list(dm.volt_v),
                "c_dyn_uw_per_mhz_v2": _sig(dm.c_dyn_uw_per_mhz_v2),
                "idle_w": _sig(dm.idle_w),
                "leak_w_ref": dm.leak_w_ref,
                "leak_ref_c": dm.leak_ref_c,
                "leak_beta_per_k": dm.leak_beta_per_k,
                "sysfs_names": list(dm.sysfs_names),
            }
            for dm in board.domains
        },
        "thermal": {
            "rest_of_board_w": _sig(board.thermal.rest_of_board_w),
            "rest_of_board_node": board.thermal.rest_of_board_node,
            "links": [[lk.a, lk.b, _sig(lk.conductance_w_per_k)] for lk in board.thermal.links],
            "nodes": {
                n.name: {
                    "capacitance_j_per_k": _sig(n.capacitance_j_per_k),
                    "to_ambient_w_per_k": _sig(n.to_ambient_w_per_k),
                }
                for n in board.thermal.nodes
            },
        },
        "model": {
            "name": board.model.name,
            "fixed_ms": board.model.fixed_s * 1000.0,
            "batch_fixed_ms": board.model.batch_fixed_s * 1000.0,
            "cycles": dict(board.model.cycles),
            **({"threads": dict(board.model.threads)} if board.model.threads else {}),
        },
    }
    if board.battery is not None:
        b = board.battery
        d["battery"] = {
            "node": b.node,
            "capacity_ah": b.capacity_ah,
            "voltage_v": b.voltage_v,
            "r0_ohm": b.r0_ohm,
            "converter_efficiency": b.converter_efficiency,
            "initial_soc": b.initial_soc,
        }
    d["protections"] = [
        {
            "kind": p.kind,
            "nodes": list(p.nodes),
            "start_c": p.start_c,
            "full_c": p.full_c,
            "hyst_c": p.hyst_c,
            "period_ms": p.period_ms,
            "domains": list(p.domains),
            "floor_mhz": mhz(p.floor_hz),
            "visible": p.visible,
            "source": p.source,
        }
        for p in board.protections
    ]
    return d


def _sig(v: float, digits: int = 5) -> float:
    """Round to significant digits: a fitted 0.1834719... written as 0.18347 reads back the same model."""
    return float(f"{v:.{digits}g}") if v else 0.0


def board_toml(board: BoardProfile, header: Sequence[str] = ()) -> str:
    """A profile as TOML text in the layout of ``thermogov/boards/*.toml``."""
    from thermogov.tomlwrite import dumps

    d = board_to_dict(board)
    protections = d.pop("protections")
    text = "".join(f"# {line}\n" for line in header) + ("\n" if header else "") + dumps(d)
    for p in protections:
        text += "\n[[protections]]\n" + dumps(p)
    return text


def calibrated_profile_text(result: CalibrationResult, original: BoardProfile) -> str:
    """The calibrated profile with a header that says where its numbers came from."""
    rmse = "n/a" if result.rmse_holdout_c is None else f"{result.rmse_holdout_c:.2f} °C"
    header = [
        f"{result.board.name}: {original.name} calibrated by `thermogov calibrate` from",
        f"  {result.source}",
        f"Held-out RMSE {rmse} (tail from {result.holdout_from_s:.0f} s), train RMSE {result.rmse_train_c:.2f} °C.",
        f"Fitted ambient during the log: {result.ambient_c:.1f} °C (simulate with --ambient to compare).",
        "Fitted (value ± 1 sd, prior, determined by):",
        *(
            f"  {p.name} = {p.value:.4g} ± {p.sd:.2g} {p.unit} (prior {p.prior:.4g}; {p.determined_by})"
            for p in result.params
        ),
        "dyn_scale multiplies c_dyn_uw_per_mhz_v2, static_scale idle_w and rest_of_board_w (already applied below).",
        "Everything else is copied from " + (original.source_file or original.name) + ".",
    ]
    return board_toml(result.board, header)


def rename(board: BoardProfile, name: str, description: str) -> BoardProfile:
    return dataclasses.replace(board, name=name, description=description)
