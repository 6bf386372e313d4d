"""``power_settled`` (off): where the measured power says the fused value settles, and the rung that holds.

The PI of ``stepped`` sees a load rise only through the temperature it has already caused: at
full clocks a jump in the work the board does (a heavier request mix, a load switched on) raises
the board's power at once, the dies answer within seconds, and the slow nodes (package, heat
sink, board) follow over minutes.  On a Nano with 0.5 °C codes the PI left full clocks a rung a
tick, 7 s after the switch, and the fused value read the trip 12-13 s after it on every switch
(docs/policies.md, Session 26s, world 18).  The board's measured power shows the rise on the
tick it happens; the profile's RC network says how far it carries the fused value.

The model runs the profile's network (:class:`Network`) on the measured power, split over the
nodes as the ladder's own power model splits a watt of the governed domains (:func:`ladder_split`),
started settled at the first power seen, so only a change of power is still to come.  Held at the
recent power (an average over ``fast_tau_s``, the trend's horizon, which smooths a bursty load's
per-tick power) the network settles at ``c_per_w * recent`` over ambient, ``c_per_w`` the settled
fused °C per watt of the governed domains (the settled rise from the lowest rung to the top over
the power between them, :func:`ladder_rises_c`); the difference from where the network stands now
is the rise still to come.  (A first version compared the recent power with a slow average of it:
it counted a heavy phase's history as a new rise, docs/policies.md Session 27s.)  A step down the
ladder is worth the settled difference between the two rungs, at the ladder's full utilisation
(an over-estimate when the work is lighter, so the rung chosen is, if anything, too high: the
trip rule and the PI still stand behind it).

:meth:`PowerSettle.hold_rung` is the highest rung at or under the one in force whose settled
value is at or under the set point; ``stepped`` takes it at once (a ceiling on ``u``, the
integral clamped to it), not a rung per tick.  A board whose world gives no power
(``PolicyInput.power_w`` is ``None``) never moves.  Pure Python: the network is a handful of
nodes (:mod:`thermogov.steadystate`).
"""

from __future__ import annotations

import math

from thermogov.board import BoardProfile
from thermogov.policies.ladder import domain_powers_w, governed_model
from thermogov.steadystate import node_rise_c


def ladder_heat_w(board: BoardProfile, ladder: list[dict[str, int]]) -> list[dict[str, float]]:
    """Each rung's governed power per thermal node (the ladder's own model, full utilisation)."""
    model = governed_model(board.model, set(ladder[0])) if ladder else board.model
    out = []
    for caps in ladder:
        heat: dict[str, float] = {}
        for name, w in domain_powers_w(board, model, caps).items():
            node = board.domain(name).node
            heat[node] = heat.get(node, 0.0) + w
        out.append(heat)
    return out


def ladder_rises_c(
    board: BoardProfile, ladder: list[dict[str, int]], fused: tuple[str, ...]
) -> tuple[list[float], float]:
    """Each rung's settled fused rise over ambient (full utilisation) and the settled fused °C per watt.

    The governed domains' power at each rung (:func:`.ladder.domain_powers_w`) heats its node;
    the network is linear, so each rise is the conductance system's solution, read through the
    fused sensors' profile weights.  The °C per watt is the lowest-to-top rise over the power
    between them (0.0 for a one-rung ladder or no fused sensor).
    """
    sensors = [s for s in board.sensors if s.name in fused]
    total = sum(s.weight for s in sensors)
    if not ladder or total <= 0.0:
        return [0.0] * len(ladder), 0.0
    rises, powers = [], []
    for heat in ladder_heat_w(board, ladder):
        rise = node_rise_c(board, heat)
        rises.append(sum(s.weight * rise[s.node] for s in sensors) / total)
        powers.append(sum(heat.values()))
    span = powers[-1] - powers[0]
    c_per_w = (rises[-1] - rises[0]) / span if span > 0.0 else 0.0
    return rises, c_per_w


class Network:
    """The profile's RC network, integrated from a state of deviations (pure Python, a handful of nodes).

    ``C dx/dt = P - G x``: ``x`` is each node's deviation from where the slow power average holds
    it, ``P`` the deviation's heat per node; explicit steps under half the fastest node's time
    constant (the dies' 25 ms on a Nano), so it is stable and a 0.1-s tick is a few steps.
    """

    def __init__(self, board: BoardProfile, fused: tuple[str, ...]) -> None:
        th = board.thermal
        self.board = board
        self.names = th.node_names()
        self.cap = {n.name: n.capacitance_j_per_k for n in th.nodes}
        self.out = {n.name: n.to_ambient_w_per_k for n in th.nodes}
        self.links = [(lk.a, lk.b, lk.conductance_w_per_k) for lk in th.links]
        g_sum = dict(self.out)
        for a, b, c in self.links:
            g_sum[a] += c
            g_sum[b] += c
        self.dt_max = 0.5 * min(self.cap[n] / g_sum[n] for n in self.names if g_sum[n] > 0.0)
        sensors = [s for s in board.sensors if s.name in fused]
        total = sum(s.weight for s in sensors)
        self.weights = {s.node: 0.0 for s in sensors}
        for s in sensors:
            self.weights[s.node] += s.weight / total if total > 0.0 else 0.0

    def advance(self, x: dict[str, float], heat: dict[str, float], dt: float) -> dict[str, float]:
        """``x`` after ``dt`` seconds under ``heat`` (W per node, held)."""
        if dt <= 0.0:
            return x
        steps = max(math.ceil(dt / self.dt_max), 1)
        h = dt / steps
        names, cap, out = self.names, self.cap, self.out
        for _ in range(steps):
            flow = {n: heat.get(n, 0.0) - out[n] * x[n] for n in names}
            for a, b, c in self.links:
                q = c * (x[a] - x[b])
                flow[a] -= q
                flow[b] += q
            x = {n: x[n] + h * flow[n] / cap[n] for n in names}
        return x

    def fused(self, x: dict[str, float]) -> float:
        """The fused sensors' weighted deviation."""
        return sum(w * x[n] for n, w in self.weights.items())


def ladder_split(board: BoardProfile, ladder: list[dict[str, int]]) -> dict[str, float]:
    """How a watt more of the governed domains divides over the nodes: the ladder's lowest-to-top step."""
    heats = ladder_heat_w(board, ladder)
    if len(heats) < 2:
        return {}
    step = {n: heats[-1].get(n, 0.0) - heats[0].get(n, 0.0) for n in set(heats[-1]) | set(heats[0])}
    total = sum(step.values())
    return {n: w / total for n, w in step.items()} if total > 0.0 else {}


class PowerSettle:
    """The measured power's recent average, the network's answer to the power measured so far,
    and the settled fused value they imply."""

    def __init__(
        self,
        rises_c: list[float],
        c_per_w: float,
        fast_tau_s: float,
        network: Network,
        split: dict[str, float],
    ) -> None:
        self.rises_c = rises_c
        self.c_per_w = c_per_w
        self.fast_tau_s = fast_tau_s
        self.network = network
        self.split = split
        self.x: dict[str, float] = {}  # each node's rise over ambient from the power measured so far
        self.fast_w: float | None = None
        # ``power_held`` (session 28c): the recent power's mean and spread while one rung has
        # been in force; a load rise is a rise at a held rung beyond what it wandered there.
        self.raw_w = 0.0  # the recent power as measured (never moved by :meth:`stepped_down`)
        self.rung: int | None = None  # the rung in force while the power was measured
        self.held_since_s = 0.0  # since when it has been in force
        self._n = 0
        self._mean_w = 0.0
        self._m2 = 0.0
        self._k = math.inf
        self.rise_w = 0.0  # the recent power over its mean at the held rung, this tick
        self.spread_w = math.inf  # its standard deviation at the held rung, before this tick
        self.rising = False  # a held rise is under way: statistics frozen, rung changes kept

    def observe(self, dt: float, power_w: float | None, rung: int | None = None, t: float = 0.0) -> None:
        """Feed one tick's measured board power (``None``: the world measures none; kept as is).

        ``rung`` is the rung in force while it was measured (``None``: not tracked, for
        :meth:`held_rise`): a change of rung starts the held rung's statistics afresh, unless a
        held rise is under way; it lasts until the recent power is back within ``k`` spreads."""
        if power_w is None or not math.isfinite(power_w):
            return
        heat = {n: share * power_w for n, share in self.split.items()}
        if self.fast_w is None:
            # Start settled at the first power: only a change of power is still to come.
            self.fast_w = self.raw_w = power_w
            self.x = node_rise_c(self.network.board, heat)
        else:
            self.x = self.network.advance(self.x, heat, dt)
            alpha = _alpha(dt, self.fast_tau_s)
            self.fast_w += alpha * (power_w - self.fast_w)
            self.raw_w += alpha * (power_w - self.raw_w)
        if rung is None:
            return
        spread = math.sqrt(self._m2 / (self._n - 1)) if self._n > 1 else math.inf
        if self.rising and self.raw_w - self._mean_w <= self._k * spread:
            self.rising = False  # the power is back within the held rung's spread
        if not self.rising and rung != self.rung:
            self.rung, self.held_since_s = rung, t
            self._n, self._mean_w, self._m2 = 0, 0.0, 0.0
            spread = math.inf
        self.rise_w = self.raw_w - self._mean_w if self._n else 0.0
        self.spread_w = spread
        if not self.rising:
            self._n += 1
            delta = self.raw_w - self._mean_w
            self._mean_w += delta / self._n
            self._m2 += delta * (self.raw_w - self._mean_w)

    def held_rise(self, k: float, hold_s: float, t: float) -> bool:
        """A held rise: the recent power rose at a rung held at least ``hold_s`` by more than ``k``
        of its own standard deviations there, or such a rise is still under way.  Not the
        policy's own rung change (a new rung's statistics start afresh) nor a load that wanders
        as much by itself (a bursty load's bursts are in the spread of a rung held through them)."""
        self._k = k
        if not self.rising:
            self.rising = (
                self.rung is not None
                and t - self.held_since_s >= hold_s
                and self._n > 2
                and self.rise_w > k * self.spread_w
            )
        return self.rising

    def to_come_c(self) -> float | None:
        """The fused rise still to come at the recent power (None: no power seen).

        At the recent power the network settles ``c_per_w`` °C a watt over ambient; run on the
        power measured so far it stands at ``fused(x)``: the difference is the rise still to come,
        which the level does not show yet.  Only the model's dynamics count, not its absolute
        temperatures: an ambient, a heat sink or a load the profile does not know moves the level
        and the model's two terms alike."""
        if self.fast_w is None:
            return None
        return self.c_per_w * self.fast_w - self.network.fused(self.x)

    def stepped_down(self, rung: int, to: int) -> None:
        """The rung in force went from ``rung`` to ``to``: the recent power is taken as the model's
        power at the new rung (the two rungs' settled difference over ``c_per_w``) until the
        measured power shows what it draws, so one load rise is not answered again on every tick
        the recent average still carries the old rung's power."""
        if self.fast_w is not None and self.c_per_w > 0.0:
            self.fast_w -= (self.rises_c[rung] - self.rises_c[to]) / self.c_per_w

    def hold_rung(self, rung: int, settled_c: float, set_c: float) -> int:
        """The highest rung at or under ``rung`` whose settled value is at or under ``set_c`` (0 if none)."""
        rises = self.rises_c
        for r in range(rung, -1, -1):
            if settled_c - (rises[rung] - rises[r]) <= set_c:
                return r
        return 0


def _alpha(dt: float, tau_s: float) -> float:
    return 1.0 if tau_s <= 0.0 else 1.0 - math.exp(-max(dt, 0.0) / tau_s)


__all__ = [
    "Network",
    "PowerSettle",
    "ladder_heat_w",
    "ladder_rises_c",
    "ladder_split",
]
