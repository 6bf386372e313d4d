"""``gain_ladder``: the PI's gain scaled so one °C of error means the same on a finer ladder.

``stepped``'s ``k_p`` is in rungs per °C, and a rung is whatever the board's OPP tables make of
it: the Orin Nano's ladder has 9 rungs (8 steps), the Pi 5's 10 (9 steps), the AGX Orin's 26
(25 steps).  After the AGX Orin's fan failed the PI lagged the heating by 0.2 °C for 300 s and
read the trip on every seed (docs/policies.md, session 17a).  Two ways to say what a rung is
worth, each scaling ``k_p`` (P and I alike, so the controller keeps its shape):

* ``"steps"``: a share of the ladder per °C.  The ladder spans the board's controllable power
  (every domain at its floor to every domain at its top, :mod:`.ladder`), the mean rung-to-rung
  power step is ``1 / steps`` of that span, and ``k_p * steps / reference`` rungs per °C asks
  for the same share on every board.  It ignores how hot a watt makes the sensors.
* ``"plant"``: the loop's own gain.  One step of the ladder (its power span over its steps,
  each domain's power on its thermal node) settles the fused sensors ``c_per_step`` °C warmer
  (:func:`ladder_c_per_step`, the profile's RC network, linear); ``k_p`` rungs per °C times
  that is the loop gain in °C per °C, which is what a controller's gain means.  The profiles
  give 5.73 °C a step on the Orin Nano, 1.89 on a bare Pi 5, 0.97 on a Pi 5 with the Active
  Cooler's heatsink (fan off), 0.25 on the AGX Orin (a 0.33-W step into a 0.74-K/W path).

The scale is one-sided, ``max(1, reference / board)``, with the reference the least value among
the suite's boards, on which the tuned ``k_p`` is judged: every suite board keeps its gain exactly
(a factor of exactly 1.0), so the suite is bit-identical by construction, and only a board whose
steps are finer than any the gain was judged on is raised to that one's.  A coarser board is not
slowed: nothing validated a lower gain there.
"""

from __future__ import annotations

from thermogov.board import BoardProfile
from thermogov.policies.ladder import domain_powers_w, governed_model
from thermogov.steadystate import node_rise_c

GAIN_RULES = ("off", "steps", "plant")

# The finest ladder of the suite's boards: the Pi 5's 10 rungs (9 steps); the Orin Nano's 9
# rungs are 8.  tests/policies/test_gain.py rebuilds the ladders from the shipped profiles.
REFERENCE_LADDER_STEPS = 9
# The least fused °C a ladder step settles on the suite's boards: the Pi 5 with the Active
# Cooler's heatsink (profile rpi5-fan, fan off), 0.968 °C, rounded down so that board keeps a
# factor of exactly 1; the test recomputes it.
REFERENCE_C_PER_STEP = 0.96


def ladder_gain_scale(rungs: int, reference_steps: int = REFERENCE_LADDER_STEPS) -> float:
    """``"steps"``: how many times ``k_p`` a ladder of ``rungs`` rungs needs for the reference's share per °C.

    Exactly 1.0 for a ladder no finer than the reference, so its controller is untouched.
    """
    steps = rungs - 1
    if steps <= reference_steps:
        return 1.0
    return steps / reference_steps


def ladder_c_per_step(board: BoardProfile, ladder: list[dict[str, int]], fused: tuple[str, ...]) -> float:
    """How much warmer the fused sensors settle per ladder step: the ladder's span over its steps.

    Each governed domain's power at the top rung less that at the lowest (the ladder's own
    power model: full utilisation, leakage at its reference temperature) heats its node; the
    profile's network is linear, so the settled rise is the conductance system's solution, read
    through the fused sensors' profile weights.  0.0 for a one-rung ladder or no fused sensor.
    """
    steps = len(ladder) - 1
    sensors = [s for s in board.sensors if s.name in fused]
    total = sum(s.weight for s in sensors)
    if steps <= 0 or total <= 0.0:
        return 0.0
    model = governed_model(board.model, set(ladder[0]))
    power: dict[str, float] = {}
    for sign, caps in ((-1.0, ladder[0]), (1.0, ladder[-1])):
        for name, w in domain_powers_w(board, model, caps).items():
            node = board.domain(name).node
            power[node] = power.get(node, 0.0) + sign * w
    rise = node_rise_c(board, power)
    return sum(s.weight * rise[s.node] for s in sensors) / total / steps


def plant_gain_scale(c_per_step: float, reference_c: float = REFERENCE_C_PER_STEP) -> float:
    """``"plant"``: how many times ``k_p`` a board whose step settles ``c_per_step`` °C needs for the reference's loop gain."""
    if c_per_step <= 0.0 or c_per_step >= reference_c:
        return 1.0
    return reference_c / c_per_step


def gain_scale(rule: str, board: BoardProfile, ladder: list[dict[str, int]], fused: tuple[str, ...]) -> float:
    """The factor on ``k_p`` (and the trip's step, rounded) under ``gain_ladder = rule``."""
    if rule == "steps":
        return ladder_gain_scale(len(ladder))
    if rule == "plant":
        return plant_gain_scale(ladder_c_per_step(board, ladder, fused))
    return 1.0
