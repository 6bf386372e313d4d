"""``power_settled`` (off): where the measured power says the fused value settles, and the rung that holds.

The PI of ``stepped`` sees a load rise only through the temperature it has already caused: at
full clocks a jump in the work the board does (a heavier request mix, a load switched on) raises
the board's power at once, the dies answer within seconds, and the slow nodes (package, heat
sink, board) follow over minutes.  On a Nano with 0.5 °C codes the PI left full clocks a rung a
tick, 7 s after the switch, and the fused value read the trip 12-13 s after it on every switch
(docs/policies.md, Session 26s, world 18).  The board's measured power shows the rise on the
tick it happens; the profile's RC network says how far it carries the fused value.

The model is first order in the slow nodes.  The level now is where the network has brought the
fused value under the power of the last slow time constant (an exponential average of the
measured power over ``slow_tau_s``, the network's slowest mode); held at the recent power (an
average over ``fast_tau_s``, the trend's horizon, which smooths a bursty load's per-tick power)
it settles ``c_per_w * (recent - slow)`` further, ``c_per_w`` the settled fused °C per watt of the
governed domains (the ladder's own power model through the network: the settled rise from the
lowest rung to the top over the power between them, :func:`ladder_rises_c`).  A step down the
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

#: Power iterations for the network's slowest time constant (a handful of nodes; the ratio of the
#: two slowest modes on the profiles is over 2, so 200 steps converge far past double precision).
SLOW_ITERATIONS = 200


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
    model = governed_model(board.model, set(ladder[0]))
    rises, powers = [], []
    for caps in ladder:
        heat: dict[str, float] = {}
        watts = 0.0
        for name, w in domain_powers_w(board, model, caps).items():
            node = board.domain(name).node
            heat[node] = heat.get(node, 0.0) + w
            watts += w
        rise = node_rise_c(board, heat)
        rises.append(sum(s.weight * rise[s.node] for s in sensors) / total)
        powers.append(watts)
    span = powers[-1] - powers[0]
    c_per_w = (rises[-1] - rises[0]) / span if span > 0.0 else 0.0
    return rises, c_per_w


def slowest_time_constant_s(board: BoardProfile) -> float:
    """The network's slowest time constant: the largest eigenvalue of ``G^-1 C`` (power iteration).

    ``C dT/dt = -G T + P``: the modes decay as ``exp(-t / tau)`` with ``tau`` the eigenvalues of
    ``G^-1 C``; iterating ``x <- G^-1 (C x)`` (:func:`thermogov.steadystate.node_rise_c` solves
    ``G^-1``) converges on the largest, the mode a settled value waits for.
    """
    th = board.thermal
    cap = {n.name: n.capacitance_j_per_k for n in th.nodes}
    x = dict.fromkeys(cap, 1.0)
    tau = 0.0
    for _ in range(SLOW_ITERATIONS):
        y = node_rise_c(board, {n: cap[n] * v for n, v in x.items()})
        norm = math.sqrt(sum(v * v for v in y.values()))
        if norm <= 0.0:
            return 0.0
        tau = norm / math.sqrt(sum(v * v for v in x.values()))
        x = {n: v / norm for n, v in y.items()}
    return tau


class PowerSettle:
    """The measured power's recent and slow averages and the settled fused value they imply."""

    def __init__(self, rises_c: list[float], c_per_w: float, slow_tau_s: float, fast_tau_s: float) -> None:
        self.rises_c = rises_c
        self.c_per_w = c_per_w
        self.slow_tau_s = slow_tau_s
        self.fast_tau_s = fast_tau_s
        self.fast_w: float | None = None
        self.slow_w: float | None = None

    def observe(self, dt: float, power_w: float | None) -> None:
        """Feed one tick's measured board power (``None``: the world measures none; kept as is)."""
        if power_w is None or not math.isfinite(power_w):
            return
        if self.fast_w is None or self.slow_w is None:
            self.fast_w = self.slow_w = power_w
            return
        self.fast_w += _alpha(dt, self.fast_tau_s) * (power_w - self.fast_w)
        self.slow_w += _alpha(dt, self.slow_tau_s) * (power_w - self.slow_w)

    def settled_c(self, level_c: float) -> float | None:
        """Where the fused value settles at the recent power, from ``level_c`` (None: no power seen)."""
        if self.fast_w is None or self.slow_w is None:
            return None
        return level_c + self.c_per_w * (self.fast_w - self.slow_w)

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


__all__ = ["PowerSettle", "ladder_rises_c", "slowest_time_constant_s"]
