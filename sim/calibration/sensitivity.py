"""The fit's Jacobian by forward sensitivities: exact for the discrete model, all parameters at once.

The optimiser needs d(residuals)/d(parameters) at every iteration.  By finite differences that
is one full model evaluation per free parameter (15 on an AGX Orin log), which was 90 % of a
fit's time.  The model is a linear network stepped exactly on a uniform grid,

    x[j+1] = Phi x[j] + Gamma p[j],   Phi = exp(A h),  Gamma = h phi1(A h) C^-1,  A = -C^-1 G,

so its derivative along any parameter direction obeys the *same* recursion driven by a known
forcing (the derivative of ``Phi`` and ``Gamma`` times the trajectory, plus ``Gamma`` times the
derivative of the input).  In the network's modal form (``A = V diag(lam) V^-1``, ``V = D U``,
see :class:`~thermogov.sim.calibration.model.Modes`) the derivative of a matrix function
``f(A h)`` along ``dA`` is ``V ((V^-1 h dA V) o F) V^-1`` with ``F`` the divided differences of
``f`` at the eigenvalues (Daleckii-Krein; N. J. Higham, *Functions of Matrices*, SIAM 2008,
theorem 3.11), so every parameter's sensitivity is one more pass of the modal recursion, and
all parameters share each mode's filter coefficients: one ``lfilter`` call per mode filters
them all.  The leakage passes (:meth:`FitProblem._run
<thermogov.sim.calibration.fit.FitProblem._run>`) are chained exactly, each pass's input
depending on the previous pass's trajectory through the leakage slope.  The slowest mode's
shape and time constant (the initial offset and the time-constant wall) are differentiated by
first-order eigen-perturbation.

``tests/calibrate/test_sensitivity.py`` checks the result against central differences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.signal import lfilter

from thermogov.sim.calibration.model import Modes

SMALL_GAP = 1e-4  # eigenvalue gaps (in units of 1/h) below this use the derivative, not the difference


@dataclass(frozen=True)
class Directions:
    """How one unit of each free parameter moves the model's inputs (``P`` parameters, ``N`` steps).

    ``dcap``: capacitances (P x n); ``dg``: the conductance matrix (P x n x n); ``dbase``: the
    temperature-free power per node and step (P x n x N); ``damb``/``doff``: ambient and
    initial offset (P).  Leakage's slope in the network does not depend on any parameter."""

    dcap: np.ndarray
    dg: np.ndarray
    dbase: np.ndarray
    damb: np.ndarray
    doff: np.ndarray


@dataclass(frozen=True)
class PassRecord:
    """One leakage pass of a model evaluation, node-major (n x N): what its derivative needs."""

    x_lin: np.ndarray  # the trajectory leakage was linearised about
    slope: np.ndarray  # d(leakage)/dT at that trajectory
    p: np.ndarray  # the pass's input power
    xss: np.ndarray  # G_eff^-1 p[:, 0]: the steady part of its initial state
    x: np.ndarray  # its output trajectory


@dataclass(frozen=True)
class Sensitivities:
    """Derivatives of the last pass (P x n x N), its input, and of the slowest time constant's log (P)."""

    dx: np.ndarray
    dp: np.ndarray
    dlog_tau: np.ndarray


def _expm1_over(x: np.ndarray) -> np.ndarray:
    """``expm1(x) / x``, 1 at 0."""
    out = np.ones_like(x)
    nz = x != 0.0
    out[nz] = np.expm1(x[nz]) / x[nz]
    return out


def _dphi1(x: np.ndarray) -> np.ndarray:
    """Derivative of ``phi1(x) = expm1(x) / x``; a series near 0, where the formula cancels."""
    small = np.abs(x) < 1e-3
    xs = np.where(small, 1.0, x)
    exact = (xs * np.exp(xs) - np.expm1(xs)) / (xs * xs)
    return np.where(small, 0.5 + x / 3.0 + x * x / 8.0, exact)


def _rows(mask: np.ndarray) -> slice | np.ndarray:
    """The rows ``mask`` selects, as a slice when contiguous (a view, not a copy: the usual case,
    since parameters are ordered by kind)."""
    idx = np.flatnonzero(mask)
    if not len(idx):
        return slice(0, 0)
    if idx[-1] - idx[0] + 1 == len(idx):
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return idx


def divided_differences(mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First divided differences of ``exp`` and ``phi1`` at the points ``mu`` (m x m each).

    The exponential's is written ``exp(max) * expm1(-gap) / (-gap)``, which neither cancels nor
    overflows for a 40 ms die mode next to a 10-minute heatsink mode."""
    a, b = mu[:, None], mu[None, :]
    gap = np.abs(a - b)
    fe = np.exp(np.maximum(a, b)) * _expm1_over(-gap)
    phi = _expm1_over(mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        fphi = (phi[:, None] - phi[None, :]) / (a - b)
    fphi = np.where(gap < SMALL_GAP, _dphi1(0.5 * (a + b)), fphi)
    return fe, fphi


def sensitivities(
    cap: np.ndarray,
    g_eff: np.ndarray,
    k: np.ndarray,
    modes: Modes,
    h: float,
    passes: list[PassRecord],
    dirs: Directions,
    offset: float,
    sensor_node: int,
) -> Sensitivities:
    """Forward sensitivities of a model evaluation's passes along every direction at once.

    ``k`` is leakage's slope moved into the network (``g_eff = G - diag(k)``), ``offset`` the
    initial offset along the slowest mode, normalised at node ``sensor_node``."""
    d, lam, u = modes.d, modes.lam, modes.u
    n_par = len(dirs.damb)
    v = d[:, None] * u  # D U
    v_inv = u.T / d[None, :]  # U^T D^-1
    mu = lam * h
    e = np.exp(mu)
    gain = (e - 1.0) / lam
    fe, fphi = divided_differences(mu)
    ratio = dirs.dcap / cap[None, :]  # dC / C
    ucu = np.einsum("ai,pa,aj->pij", u, ratio, u)  # U^T diag(dC/C) U
    dgs = np.einsum("ai,pab,bj->pij", v, dirs.dg, v)  # U^T D dG D U
    m_mod = -ucu * lam[None, None, :] - dgs  # V^-1 dA V
    k1 = h * m_mod * fe[None]
    k2 = h * h * m_mod * fphi[None]

    # The slowest mode: dS in modal form, first-order perturbation of its value and vector.
    s_hat = -0.5 * (ucu * lam[None, None, :] + lam[None, :, None] * ucu) - dgs
    i = int(np.argmax(lam))
    dlam = s_hat[:, i, i]
    gaps = lam[i] - lam
    coef = np.where(np.arange(len(lam)) == i, 0.0, s_hat[:, :, i] / np.where(gaps == 0.0, 1.0, gaps)[None, :])
    shape = d * u[:, i]
    dshape = -0.5 * d[None, :] * ratio * u[None, :, i] + d[None, :] * (coef @ u.T)
    s0 = shape[sensor_node]
    dalong = dirs.doff[:, None] * (shape / s0)[None, :] + offset * (
        dshape / s0 - shape[None, :] * dshape[:, sensor_node : sensor_node + 1] / (s0 * s0)
    )
    dlog_tau = -dlam / lam[i]

    n_steps = passes[0].p.shape[1]
    # Each kind of parameter touches only some terms; rows are sliced so that no term is
    # computed (or a P x n x N temporary made) for parameters it cannot move.
    net = _rows(np.any(ratio != 0.0, axis=1) | np.any(dirs.dg != 0.0, axis=(1, 2)))  # move Phi, Gamma
    caps = _rows(np.any(ratio != 0.0, axis=1))
    powered = _rows(np.any(dirs.dbase != 0.0, axis=(1, 2)))
    amb = _rows(dirs.damb != 0.0)
    k1, k2 = k1[net], k2[net]
    dx_prev = np.zeros((n_par, len(cap), n_steps))
    dx_prev[amb] = -dirs.damb[amb, None, None]  # the first pass linearises about leak_ref - ambient
    dp = np.empty((n_par, len(cap), n_steps))
    for rec in passes:
        # the pass's input: P(x_prev) - k x_prev, with leakage at x_prev + ambient
        np.multiply((rec.slope - k[:, None])[None], dx_prev, out=dp)
        dp[powered] += dirs.dbase[powered]
        dp[amb] += rec.slope[None] * dirs.damb[amb, None, None]
        rhs = dp[:, :, 0] - np.einsum("pab,b->pa", dirs.dg, rec.xss)
        dx0 = np.linalg.solve(g_eff, rhs.T).T + dalong
        y0 = dx0 @ v_inv.T  # (P, m)
        force = v.T @ dp[:, :, :-1]
        force[caps] -= v.T @ (ratio[caps, :, None] * rec.p[None, :, :-1])
        force *= gain[None, :, None]
        z = v_inv @ rec.x[:, :-1]  # modal trajectory (m x N-1)
        w = v.T @ rec.p[:, :-1]  # modal input (m x N-1)
        force[net] += k1 @ z + k2 @ w
        y = np.empty((n_par, len(cap), n_steps))
        y[:, :, 0] = y0
        for j in range(len(cap)):
            y[:, j, 1:] = lfilter([1.0], [1.0, -e[j]], force[:, j, :], axis=-1, zi=e[j] * y0[:, j : j + 1])[0]
        dx_prev = v @ y
    dx = dx_prev
    return Sensitivities(dx, dp, dlog_tau)
