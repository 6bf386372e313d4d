"""Where the board is at the end of the training part: a Kalman filter of the fitted model.

A forecast of the held-out tail has to start somewhere.  Starting it from the fit's own
trajectory carries every misfit of the training part into the forecast: a model whose level
is 0.8 °C off at the split stays 0.8 °C off for the whole tail, and on a nearly flat log that
alone loses to simply holding the last reading.  The best estimate of the state at the split
uses the fitted model *and* the readings: a Kalman filter (R. E. Kalman, "A new approach to
linear filtering and prediction problems", J. Basic Eng. 82, 1960) over the training part.

The fitted network is linear in the state (leakage linearised, see ``model.leakage_slope``),
so the error of the fit's trajectory, ``e = x_true - x_fit``, obeys the input-free dynamics
``C de/dt = -G e + w`` whatever the inputs were; ``w`` is heat the model did not account for
(white, ``q`` W²·s per node).  Each sensor reads ``e`` at its node plus a sensor/level bias
``b`` (a random walk of ``q_b`` K²/s: a miscalibrated sensor, an ambient that is not the
fitted one) plus white noise.  In the network's symmetric modal form the transition is
diagonal, so one step costs a few small matrix products.

The two noise intensities are not known; they are chosen by maximising the likelihood of the
innovations over the training part (the standard method, e.g. R. K. Mehra, "Approaches to
adaptive filtering", IEEE Trans. Automatic Control 17, 1972), on a coarse logarithmic grid
that includes zero.  The measurement noise comes from the readings' own sample-to-sample
scatter (and the sensor's quantisation step), not from the model.  Nothing here reads the
held-out tail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Q_NODE_W2S = (0.0, 1e-3, 1e-2, 1e-1, 1.0)  # unmodelled heat into each node (W²·s): candidates
Q_BIAS_K2_PER_S = (0.0, 1e-5, 1e-4, 1e-3)  # drift of each sensor's level (K²/s): candidates
P0_NODE_K = 2.0  # prior sd of the fit's node error where the filter starts
P0_BIAS_K = 2.0  # ... and of each sensor's level (the ambient's prior sd, model.AMBIENT_PRIOR_C)
WINDOW = 600  # the filter runs over at most this many training samples before the split
MIN_NOISE_K = 0.05  # floor of the measurement noise sd (°C)


@dataclass(frozen=True)
class StateEstimate:
    """The correction at the split: node excess temperatures (K) and each sensor's level (K)."""

    dx: np.ndarray
    bias: np.ndarray
    q_node: float
    q_bias: float
    t_s: float  # the time the estimate is for (the last training sample)

    def dx_at(self, cap: np.ndarray, g: np.ndarray, t: float) -> np.ndarray:
        """The node correction carried by the model's own dynamics to time ``t`` (>= ``t_s``)."""
        d, lam, u = _modes(cap, g)
        z = (u.T / d[None, :]) @ self.dx
        return (d[:, None] * u) @ (np.exp(lam * (t - self.t_s)) * z)


def _modes(cap: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = 1.0 / np.sqrt(cap)
    lam, u = np.linalg.eigh(-(d[:, None] * g * d[None, :]))
    return d, lam, u


def measurement_noise(obs: np.ndarray) -> float:
    """The readings' white-noise variance: scatter of successive differences, at least quantisation.

    ``MAD(diff)/sqrt(2)`` (robust to the few large steps a load edge makes) measures the
    sample-to-sample noise; a quantised sensor whose readings rarely move still carries
    ``step²/12`` (step = the smallest non-zero difference between readings).
    """
    v = obs[np.isfinite(obs)]
    if len(v) < 3:
        return MIN_NOISE_K**2
    dv = np.diff(v)
    mad = 1.4826 * float(np.median(np.abs(dv - np.median(dv)))) / math.sqrt(2.0)
    nz = np.abs(dv[np.abs(dv) > 1e-9])
    quant = float(nz.min()) ** 2 / 12.0 if len(nz) else 0.0
    return max(mad**2, quant, MIN_NOISE_K**2)


def _run(
    t: np.ndarray,
    resid: np.ndarray,
    node_of: np.ndarray,
    d: np.ndarray,
    lam: np.ndarray,
    u: np.ndarray,
    r_var: np.ndarray,
    q: np.ndarray,
    qb: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Filter passes for every (q, qb) pair at once: (negative log-likelihoods, modal states, biases).

    The pairs share every step's matrices but the noise, so they run as one batch (the
    candidates cost little more than one pass)."""
    n, s, m = len(lam), resid.shape[0], len(q)
    dim = n + s
    h = np.zeros((s, dim))
    h[:, :n] = (d[:, None] * u)[node_of]
    h[np.arange(s), n + np.arange(s)] = 1.0
    p = np.zeros((m, dim, dim))
    p[:, :n, :n] = P0_NODE_K**2 * (u.T * (1.0 / d)[None, :]) @ (u * (1.0 / d)[:, None])  # U^T C U
    p[:, n:, n:] = np.eye(s) * P0_BIAS_K**2
    qc = (u.T * (d * d)[None, :]) @ u  # unit heat noise into each node, in modal coordinates
    lsum = lam[:, None] + lam[None, :]
    x = np.zeros((m, dim))
    nll = np.zeros(m)
    eye_s = np.eye(s)
    for k in range(len(t)):
        if k > 0:
            dt = t[k] - t[k - 1]
            e = np.exp(lam * dt)
            x[:, :n] *= e
            p[:, :n, :] *= e[None, :, None]
            p[:, :, :n] *= e[None, None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                integ = np.where(np.abs(lsum) > 1e-12, np.expm1(lsum * dt) / lsum, dt)
            p[:, :n, :n] += q[:, None, None] * (qc * integ)[None]
            p[:, n:, n:] += (qb * dt)[:, None, None] * eye_s[None]
        seen = np.isfinite(resid[:, k])
        if not seen.any():
            continue
        hk = h[seen]
        innov = resid[seen, k][None, :] - x @ hk.T  # m x s'
        ph = p @ hk.T  # m x dim x s'
        sk = hk @ ph + np.diag(r_var[seen])[None]
        sinv = np.linalg.inv(sk)
        kg = ph @ sinv
        x = x + np.einsum("mij,mj->mi", kg, innov)
        p = p - kg @ np.swapaxes(ph, 1, 2)
        p = 0.5 * (p + np.swapaxes(p, 1, 2))
        nll += 0.5 * (np.einsum("mi,mij,mj->m", innov, sinv, innov) + np.log(np.linalg.det(sk)))
    return nll, x[:, :n], x[:, n:]


def estimate_state(
    cap: np.ndarray,
    g: np.ndarray,
    t: np.ndarray,
    obs: np.ndarray,
    pred: np.ndarray,
    node_of: np.ndarray,
    last: int,
) -> StateEstimate:
    """The fit's error at sample ``last`` (nodes, sensor levels), from the readings up to it.

    ``obs``/``pred`` are sensors x samples (readings and the fit's prediction), ``node_of`` each
    sensor's node index, ``g`` the network with leakage's slope in it.  Samples after ``last``
    are never read.
    """
    first = max(0, last + 1 - WINDOW)
    tt = t[first : last + 1]
    resid = obs[:, first : last + 1] - pred[:, first : last + 1]
    r_var = np.array([measurement_noise(o[: last + 1]) for o in obs])
    d, lam, u = _modes(cap, g)
    q, qb = (a.ravel() for a in np.meshgrid(Q_NODE_W2S, Q_BIAS_K2_PER_S, indexing="ij"))
    nll, z, b = _run(tt, resid, node_of, d, lam, u, r_var, q, qb)
    i = int(np.argmin(np.where(np.isfinite(nll), nll, np.inf)))  # first minimum: the least noise
    return StateEstimate((d[:, None] * u) @ z[i], b[i], float(q[i]), float(qb[i]), float(t[last]))
