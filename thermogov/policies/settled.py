"""Where a slow hard-limited node is headed: an observer of the board's RC network (``limit_settled``).

A battery pack behind the carrier board lags the dies by 10³ s: its heat comes through board and
carrier, its own slope grows for minutes after the clocks rose, and no extrapolation of its own
trend sees the rise the heat already stored upstream will bring (docs/policies.md, sessions 15d,
15e and 16a).  This module keeps an estimate of every node of the profile's thermal network
(the same ``G``, ``C`` and power model the simulator integrates and :mod:`thermogov.steadystate`
solves), corrected by the readings with a Kalman filter, and from it predicts, for each rung of
the ladder, the highest value a watched sensor's node will reach if that rung is held for a
short while and the board then falls back to the lowest rung for good.  The highest rung whose
prediction stays under the sensor's limit minus its margin is a ceiling the policy keeps under:
a reference governor with the lowest clocks as the back-up that must always stay able to hold
the limit (the idea of E. G. Gilbert and I. Kolmanovsky's reference governors: admit a command
only if a safe continuation from the resulting state exists).

What the daemon also has is all it uses: the board profile (network, domains, battery), the caps
in force, the board's measured power when the world measures it, and the readings.  Two things a
policy cannot see are estimated as states: the ambient (a slow random walk; no board reports it)
and a heat at the battery node on top of the modelled I²R of the board's draw through the pack
(a charger that stops once the pack is full leaves the pack no current; motors draw more).

Two refinements (session 17b, docs/policies.md).  *A bounded horizon*: with a stated time ahead
(``limit_settled_horizon_s``, or the rest of a run whose length the user states, ``run_s``) the
ceiling is the highest rung that could be held for that whole time without the sensor reaching
its limit less the margin, and the lowest rung where none can (it delays the limit longest).
Where even the lowest rung cannot hold the pack for good the guard then still earns until the
limit comes within the horizon, rather than giving up every rung from the first second; and it
earns at an even rate rather than at full clocks and then the lowest: a rung's throughput grows
slower than its power, so for the same heat into the pack an even rung completes more.

*The supply's state*: on external power (``charging``, ``full``, ``mains``: the charger feeds
the board, as the simulator's battery model does) the board's draw does not pass through the
pack, so its I²R is not charged at any rung and the charge current's heat is left to the learnt
extra heat, which a change of state restarts.

numpy is imported only when the option is on: the daemon's default start-up stays lean.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from thermogov import costmodel
from thermogov.board import BoardProfile

if TYPE_CHECKING:
    import numpy as np

#: Seconds between observer updates.  The watched nodes move over minutes; the fast die nodes
#: in between are integrated exactly (the step is the matrix exponential), so the step only sets
#: how often a new reading corrects the estimate.
UPDATE_S = 1.0
#: Process noise, estimated (no public source: the size of model error a profile marked "E"
#: carries): each node's heat uncertain by 10 % of its modelled power plus 0.05 W, the ambient
#: drifting 1 °C per 10 minutes, the pack's unmodelled heat 0.05 W per minute (1-sigma rates).
NODE_HEAT_FRACTION = 0.1
NODE_HEAT_FLOOR_W = 0.05
AMBIENT_DRIFT_C2_PER_S = 1.0 / 600.0
PACK_HEAT_W2_PER_S = 0.05**2 / 60.0
#: Prior spread of the states nothing reads (hidden nodes, ambient) and of the pack's extra heat.
PRIOR_C = 5.0
PRIOR_PACK_W = 0.3
#: The read noise floor (a sensor declaring none still rounds and lags).
READ_FLOOR_C = 0.1
#: How many of the slowest time constants the fall-back's peak is searched over, and at how many
#: log-spaced instants (the peak of a sum of decaying exponentials is smooth in log time).
PEAK_SPAN_TAUS = 6.0
PEAK_POINTS = 48
#: Supply states in which the charger feeds the board (interfaces.POWER_STATES): no board current
#: through the pack.
EXTERNAL_POWER = frozenset({"charging", "full", "mains"})


class SettledObserver:
    """A Kalman filter on the profile's RC network, and the rung ceiling it implies.

    State ``z = [node temperatures..., ambient, extra pack heat]``.  ``update`` is called every
    tick; it integrates and corrects every :data:`UPDATE_S`.  ``ceiling`` is the continuous rung
    position (as ``Stepped.u``) the watched sensors allow, ``inf`` when no limit binds.
    """

    def __init__(
        self,
        board: BoardProfile,
        ladder: Sequence[Mapping[str, int]],
        sensor_names: Sequence[str],
        watched: Mapping[str, float],
        hold_s: float,
    ) -> None:
        import numpy as np

        self.np = np
        th = board.thermal
        names = th.node_names()
        idx = {n: i for i, n in enumerate(names)}
        n = len(names)
        g = np.zeros((n, n))
        g_amb = np.zeros(n)
        cap = np.zeros(n)
        for node in th.nodes:
            i = idx[node.name]
            g[i, i] += node.to_ambient_w_per_k
            g_amb[i] = node.to_ambient_w_per_k
            cap[i] = node.capacitance_j_per_k
        for link in th.links:
            i, j, c = idx[link.a], idx[link.b], link.conductance_w_per_k
            g[i, i] += c
            g[j, j] += c
            g[i, j] -= c
            g[j, i] -= c
        # A = -C^-1 G is similar to the symmetric -C^-1/2 G C^-1/2: real eigenvalues, stable modes.
        half = 1.0 / np.sqrt(cap)
        mu, q = np.linalg.eigh(half[:, None] * g * half[None, :])
        self.lam = -mu  # every node has a path to ambient (the profile's check): all negative
        self.vec = half[:, None] * q  # A = vec diag(lam) vec_inv
        self.vec_inv = q.T * np.sqrt(cap)[None, :]
        self.g, self.g_amb, self.cap, self.n = g, g_amb, cap, n
        self.g_inv = np.linalg.inv(g)
        self.board, self.idx = board, idx
        self.ladder = [dict(r) for r in ladder]
        self.hold_s = hold_s
        self.domains = [d for d in board.domains if d.name in self.ladder[0]]
        # A domain the board lacks (a Jetson without its GPU devfreq) leaves the pipeline, as in
        # thermogov.steadystate: the stages that remain set the pace.
        self.model = replace(
            board.model, cycles={d: c for d, c in board.model.cycles.items() if d in self.ladder[0]}
        )
        self.rest_node = idx.get(th.rest_of_board_node, -1)
        bat = board.battery
        self.bat_node = idx[bat.node] if bat is not None else -1
        by_name = {s.name: s for s in board.sensors}
        self.read = {
            s: (
                idx[by_name[s].node],
                max(by_name[s].noise_c ** 2 + by_name[s].quant_c ** 2 / 12.0, READ_FLOOR_C**2),
            )
            for s in sensor_names
            if s in by_name and by_name[s].node in idx
        }
        self.watched = {s: (idx[by_name[s].node], lim) for s, lim in watched.items() if s in self.read}
        slowest = 1.0 / float(np.min(mu))
        self.peak_t = np.concatenate(([0.0], np.geomspace(1.0, PEAK_SPAN_TAUS * slowest, PEAK_POINTS)))
        self.peak_exp = np.exp(np.outer(self.lam, self.peak_t))  # modes x instants
        self.hold_exp = np.exp(self.lam * hold_s)
        self.bound_s = math.inf  # how long a rung must be holdable (inf: 16a's back-up for good)
        self.bounded: tuple[float, np.ndarray] | None = None  # (bound_s, its peak_exp), cached
        self.on_pack = True  # the board's draw passes through the pack (unknown supply: as 16a)
        self.supply: str | None = None
        self.z: np.ndarray | None = None
        self.cov: np.ndarray | None = None
        self.last_t: float | None = None
        self.seen: dict[str, float] = {}
        self.scale = 1.0  # measured over modelled dynamic power (the workload's utilisation)
        self.u_max = math.inf

    # -- the power model -------------------------------------------------------------------
    def _powers(self, clocks: Mapping[str, int], temps: np.ndarray) -> tuple[np.ndarray, float, float]:
        """Node heat at ``clocks`` (battery I²R and converter loss included), board power, dynamic part."""
        np = self.np
        p = np.zeros(self.n)
        total = self.board.thermal.rest_of_board_w
        if self.rest_node >= 0:
            p[self.rest_node] += total
        have = {d: clocks[d] for d in self.model.cycles if d in clocks}
        cores = costmodel.busy_cores(self.model, have, 1.0) if have else {}
        dyn_total = 0.0
        for d in self.domains:
            f = clocks.get(d.name)
            if f is None:
                continue
            node = self.idx[d.node]
            dyn = costmodel.dynamic_power_w(d, f, cores.get(d.name, 0.0)) * self.scale
            w = d.idle_w + dyn + costmodel.leakage_w(d, f, float(temps[node]))
            p[node] += w
            total += w
            dyn_total += dyn
        return p, total, dyn_total

    def _with_battery(self, p: np.ndarray, total: float) -> tuple[np.ndarray, float]:
        """Add the converter loss (the carrier) and the pack's modelled I²R; returns the I²R too."""
        bat = self.board.battery
        if bat is None:
            return p, 0.0
        drawn = total / bat.converter_efficiency
        if self.rest_node >= 0:
            p[self.rest_node] += drawn - total
        if not self.on_pack:
            return p, 0.0  # on the charger: the pack carries the charge current only (learnt)
        i2r = (drawn / bat.voltage_v) ** 2 * bat.r0_ohm
        return p, i2r

    def _measured_scale(self, clocks: Mapping[str, int], temps: np.ndarray, power_w: float | None) -> None:
        """The workload's share of the saturating dynamic power, from the measured board power."""
        if power_w is None:
            return
        self.scale = 1.0
        _, total, dyn = self._powers(clocks, temps)
        if dyn > 0.0:
            self.scale = min(max((power_w - (total - dyn)) / dyn, 0.0), 1.5)

    # -- the filter --------------------------------------------------------------------------
    def _start(self, readings: Mapping[str, float | None], clocks: Mapping[str, int]) -> None:
        """A first estimate: the network at rest at its idle power, its ambient fitted to the readings."""
        np = self.np
        idle = {d.name: clocks[d.name] for d in self.domains if d.name in clocks}
        self.scale, scale = 0.0, self.scale
        p, total, _ = self._powers(idle, np.full(self.n, 25.0))
        self.scale = scale
        p, i2r = self._with_battery(p, total)
        if self.bat_node >= 0:
            p[self.bat_node] += i2r
        rise = self.g_inv @ p
        got = [(i, v) for s, (i, _) in self.read.items() if (v := readings.get(s)) is not None]
        amb = float(np.mean([v - rise[i] for i, v in got])) if got else 25.0
        x = amb + rise
        for i, v in got:
            x[i] = v
        self.z = np.concatenate((x, [amb, 0.0]))
        var = np.full(self.n + 2, PRIOR_C**2)
        var[-1] = PRIOR_PACK_W**2
        for i, _ in got:
            var[i] = 1.0
        self.cov = np.diag(var)

    def update(
        self,
        t: float,
        readings: Mapping[str, float | None],
        readings_t: Mapping[str, float | None] | None,
        clocks: Mapping[str, int],
        power_w: float | None,
        bound_s: float = math.inf,
        supply: str | None = None,
    ) -> None:
        """Integrate and correct once per :data:`UPDATE_S`, then recompute the ceiling.

        ``bound_s``: how long a rung must be holdable under the limits (``inf``: 16a's rule, the
        rung for ``hold_s`` then the lowest for good).  ``supply``: the :class:`~thermogov.interfaces.PowerStatus` state, when the
        world reports one (``None``: the board's draw is taken to pass through the pack).
        """
        np = self.np
        self.bound_s = bound_s
        if supply is not None and supply != self.supply:
            self._new_supply(supply)
        if self.z is None or self.cov is None or self.last_t is None:
            self._start(readings, clocks)
            self.last_t = t
            self._ceiling()
            return
        dt = t - self.last_t
        if dt < UPDATE_S - 1e-9:
            return
        self.last_t = t
        n, z, cov = self.n, self.z, self.cov
        x = z[:n]
        self._measured_scale(clocks, x, power_w)
        p, total, _ = self._powers(clocks, x)
        p, i2r = self._with_battery(p, total)
        e = np.exp(self.lam * dt)
        phi = (e - 1.0) / self.lam
        ad = (self.vec * e[None, :]) @ self.vec_inv
        bd = (self.vec * phi[None, :]) @ self.vec_inv / self.cap[None, :]
        f = np.eye(n + 2)
        f[:n, :n] = ad
        f[:n, n] = bd @ self.g_amb
        heat = p.copy()
        if self.bat_node >= 0:
            heat[self.bat_node] += i2r
            f[:n, n + 1] = bd[:, self.bat_node]
        z = f @ z
        z[:n] += bd @ heat
        sd = NODE_HEAT_FRACTION * np.abs(p) + NODE_HEAT_FLOOR_W
        qn = np.zeros(n + 2)
        qn[:n] = (sd / self.cap) ** 2 * dt
        qn[n] = AMBIENT_DRIFT_C2_PER_S * dt
        qn[n + 1] = PACK_HEAT_W2_PER_S * dt
        cov = f @ cov @ f.T + np.diag(qn)
        for s, (i, var) in self.read.items():
            v = readings.get(s)
            if v is None:
                continue
            at = None if readings_t is None else readings_t.get(s)
            if at is not None:
                if self.seen.get(s) == at:
                    continue
                self.seen[s] = at
            # One scalar reading of one node: the gain is that node's column of the covariance.
            col = cov[:, i]
            k = col / (cov[i, i] + var)
            z = z + k * (v - z[i])
            cov = cov - np.outer(k, col)
        self.z, self.cov = z, 0.5 * (cov + cov.T)
        self._ceiling()

    def _new_supply(self, supply: str) -> None:
        """A change of supply: whose current heats the pack changes, so the learnt extra heat restarts."""
        known = self.supply is not None
        self.supply = supply
        self.on_pack = supply not in EXTERNAL_POWER
        if known and self.z is not None and self.cov is not None:
            self.z[-1] = 0.0
            self.cov[-1, :] = 0.0
            self.cov[:, -1] = 0.0
            self.cov[-1, -1] = PRIOR_PACK_W**2

    def _bounded_exp(self) -> np.ndarray:
        """The modes at the instants a peak within ``bound_s`` is searched at (cached per bound)."""
        if self.bounded is None or self.bounded[0] != self.bound_s:
            np = self.np
            reach = max(self.bound_s, 0.0)
            t = np.concatenate(([0.0], np.geomspace(1.0, max(reach, 1.0), PEAK_POINTS)))
            self.bounded = (self.bound_s, np.exp(np.outer(self.lam, np.minimum(t, reach))))
        return self.bounded[1]

    # -- the prediction ----------------------------------------------------------------------
    def _settled(self, rung: int, x: np.ndarray) -> np.ndarray:
        """Where the network settles at ``rung`` from the estimated ambient and extra pack heat."""
        assert self.z is not None
        n = self.n
        p, total, _ = self._powers(self.ladder[rung], x)
        p, i2r = self._with_battery(p, total)
        if self.bat_node >= 0:
            # The extra heat is kept as estimated, the pack's total never below zero (a full pack
            # on a charger that stopped carries none, at any rung).
            p[self.bat_node] += max(i2r + float(self.z[n + 1]), 0.0)
        return float(self.z[n]) + self.g_inv @ p

    def peaks(self) -> list[dict[str, float]]:
        """Per rung, each watched sensor's highest predicted value.

        Unbounded (``bound_s`` infinite, session 16a): the rung held ``hold_s``, then the lowest
        rung for good.  Bounded (session 17b): the rung held for the whole bound, so the ceiling
        is the highest rung the board could keep to the run's end (or over the stated horizon)
        without the sensor reaching its limit; it rises as the bound shrinks.
        """
        np = self.np
        assert self.z is not None
        x0 = self.z[: self.n]
        if self.bound_s < math.inf:
            return self._bounded_peaks(x0)
        low = self._settled(0, x0)
        out = []
        for rung in range(len(self.ladder)):
            far = self._settled(rung, x0)
            x1 = far + self.vec @ (self.hold_exp * (self.vec_inv @ (x0 - far)))
            modes = self.vec_inv @ (x1 - low)
            out.append(
                {
                    s: max(
                        float(x0[i]),
                        float(x1[i]),
                        float(low[i] + np.max(self.vec[i] @ (modes[:, None] * self.peak_exp))),
                    )
                    for s, (i, _) in self.watched.items()
                }
            )
        return out

    def _bounded_peaks(self, x0: np.ndarray) -> list[dict[str, float]]:
        """Per rung, each watched sensor's highest value with that rung held for ``bound_s``."""
        np = self.np
        exp = self._bounded_exp()
        out = []
        for rung in range(len(self.ladder)):
            far = self._settled(rung, x0)
            modes = self.vec_inv @ (x0 - far)
            out.append(
                {
                    s: float(far[i] + np.max(self.vec[i] @ (modes[:, None] * exp)))
                    for s, (i, _) in self.watched.items()
                }
            )
        return out

    def _ceiling(self) -> None:
        """The highest continuous rung position whose predicted peak keeps every watched limit."""
        peaks = self.peaks()
        u = math.inf
        for s, (_, lim) in self.watched.items():
            vals = [pk[s] for pk in peaks]
            if vals[-1] <= lim:
                continue
            top_ok = max((r for r, v in enumerate(vals) if v <= lim), default=-1)
            if top_ok < 0:
                u = 0.0
                continue
            lo, hi = vals[top_ok], vals[top_ok + 1]
            frac = (lim - lo) / (hi - lo) if hi > lo else 0.0
            u = min(u, top_ok + min(max(frac, 0.0), 1.0))
        self.u_max = u

    @property
    def ambient_c(self) -> float | None:
        return None if self.z is None else float(self.z[self.n])


__all__ = ["SettledObserver"]
