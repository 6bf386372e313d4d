"""Lumped RC thermal network, advanced exactly for piecewise-constant power.

Model: ``C dT/dt = -G (T - T_amb) + P`` with C diagonal (J/K) and G the conductance Laplacian
plus each node's link to ambient (W/K).  In excess temperature ``x = T - T_amb`` this is
``dx/dt = A x + B P`` with ``A = -C^-1 G``, ``B = C^-1``.  We use the symmetric form
(Ukhov's exponential integrator, github.com/turing-complete/temperature): with ``D = C^-1/2``, ``-D G D = U diag(lam) U^T`` is symmetric
with real negative eigenvalues, so for any step h

    x(t+h) = Phi(h) x(t) + Gamma(h) P,
    Phi(h) = D U diag(e^{lam h}) U^T D^-1,   Gamma(h) = D U diag((e^{lam h} - 1)/lam) U^T D.

One eigen-decomposition per network, then any h is two small matrix products: no step-size
error, no stiffness trouble from a 40 ms die node next to a 10-minute battery.  Phi/Gamma are
cached per step length because a multi-rate plan uses only a handful of distinct steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from thermogov.board import ThermalProfile
from thermogov.interfaces import ConfigError


class ThermalPlant:
    def __init__(
        self,
        names: Sequence[str],
        capacitance: Sequence[float],
        conductance: np.ndarray,
        to_ambient: Sequence[float],
        ambient_c: float,
    ) -> None:
        self.names = tuple(names)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.capacitance = np.asarray(capacitance, dtype=float)
        self.links = np.asarray(conductance, dtype=float)  # symmetric node-node conductances
        self.to_ambient = np.asarray(to_ambient, dtype=float)
        self.ambient_c = float(ambient_c)
        self.x: np.ndarray = np.zeros(len(self.names))  # excess temperature over ambient
        self._decompose()

    @classmethod
    def from_profile(cls, th: ThermalProfile, ambient_c: float) -> ThermalPlant:
        names = th.node_names()
        idx = {n: i for i, n in enumerate(names)}
        g = np.zeros((len(names), len(names)))
        for link in th.links:
            i, j = idx[link.a], idx[link.b]
            g[i, j] += link.conductance_w_per_k
            g[j, i] += link.conductance_w_per_k
        return cls(
            names,
            [n.capacitance_j_per_k for n in th.nodes],
            g,
            [n.to_ambient_w_per_k for n in th.nodes],
            ambient_c,
        )

    # -- structure --------------------------------------------------------------------------
    def laplacian(self) -> np.ndarray:
        """G: conductance matrix including the ambient links on the diagonal."""
        g = -self.links.copy()
        np.fill_diagonal(g, self.links.sum(axis=1) + self.to_ambient)
        return g

    def _decompose(self) -> None:
        g = self.laplacian()
        d = 1.0 / np.sqrt(self.capacitance)
        sym = -(d[:, None] * g * d[None, :])
        lam, u = np.linalg.eigh(sym)
        if np.any(lam >= 0.0):
            # the profile checks every node's path to ambient; a network that still decomposes
            # with a non-negative mode spans time constants too wide for double precision
            raise ConfigError(
                "board thermal network: a mode does not decay in double precision (time constants "
                "too far apart, or a node with no path to ambient); bring the extreme capacitances "
                "and conductances of the profile's [thermal] closer together"
            )
        self._lam = lam
        self._left = d[:, None] * u  # D U
        self._right_phi = u.T / d[None, :]  # U^T D^-1
        self._right_gam = u.T * d[None, :]  # U^T D
        self._g = g
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def time_constants_s(self) -> np.ndarray:
        return np.sort(-1.0 / self._lam)[::-1]

    def scale_ambient_link(self, node: str, factor: float) -> None:
        """Change one node's conductance to ambient (a fan failing, a lid opened)."""
        self.to_ambient[self.index[node]] *= factor
        self._decompose()

    def add_ambient_link(self, node: str, delta_w_per_k: float) -> None:
        """Add conductance to ambient at one node (a fan speeding up; negative: slowing down)."""
        if delta_w_per_k:
            self.to_ambient[self.index[node]] += delta_w_per_k
            self._decompose()

    def set_ambient(self, ambient_c: float) -> None:
        """Step the ambient temperature; node temperatures are continuous across the step."""
        self.x += self.ambient_c - ambient_c
        self.ambient_c = float(ambient_c)

    # -- dynamics ---------------------------------------------------------------------------
    def _matrices(self, h: float) -> tuple[np.ndarray, np.ndarray]:
        key = round(h * 1e9)
        m = self._cache.get(key)
        if m is None:
            e = np.exp(self._lam * h)
            phi = (self._left * e[None, :]) @ self._right_phi
            gam = (self._left * ((e - 1.0) / self._lam)[None, :]) @ self._right_gam
            if len(self._cache) < 256:
                self._cache[key] = (phi, gam)
            m = (phi, gam)
        return m

    def advance(self, h: float, power_w: np.ndarray) -> None:
        """Advance by ``h`` seconds with ``power_w`` (per node, W) held constant."""
        if h <= 0.0:
            return
        phi, gam = self._matrices(h)
        # ndarray.dot, not @: the same BLAS product, without the matmul ufunc's dispatch,
        # which costs more than the product itself for a handful of nodes.
        self.x = phi.dot(self.x) + gam.dot(power_w)

    def temps_c(self) -> np.ndarray:
        return self.x + self.ambient_c

    def temp_c(self, node: str) -> float:
        return float(self.x[self.index[node]] + self.ambient_c)

    def set_temps_c(self, temps: Mapping[str, float] | np.ndarray) -> None:
        if isinstance(temps, np.ndarray):
            self.x = temps.astype(float) - self.ambient_c
        else:
            for n, v in temps.items():
                self.x[self.index[n]] = v - self.ambient_c

    def steady_state_c(self, power_w: np.ndarray) -> np.ndarray:
        """``T_amb + G^-1 P``: where constant power settles."""
        return np.linalg.solve(self._g, power_w) + self.ambient_c

    def derivative(self, x: np.ndarray, power_w: np.ndarray) -> np.ndarray:
        """``dx/dt`` of the ODE, for cross-checking against a numerical integrator."""
        return (-self._g @ x + power_w) / self.capacitance
