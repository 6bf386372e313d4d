"""``gain_ladder``: the PI's gain as a share of the ladder per °C, so a fine ladder is not a weak loop.

``stepped``'s ``k_p`` is in rungs per °C, and a rung is whatever the board's OPP tables make of
it: the Orin Nano's ladder has 9 rungs (8 steps), the Pi 5's 10 (9 steps), the AGX Orin's 26
(25 steps; 21 CPU and 11 GPU OPPs on the Pareto frontier).  One °C of error then moves the AGX
Orin's clocks through a third of the power the same error moves on the boards the default was
cross-validated on, and after its fan failed the PI lagged the heating by 0.2 °C for 300 s and
read the trip on every seed (docs/policies.md, session 17a).

Why the share of the ladder: the ladder's span is the board's whole controllable power (every
domain at its floor to every domain at its top, :mod:`.ladder`), so a gain in *fraction of the
span per °C* says the same thing on every board: one °C asks for the same share of what the
board can give back.  In rungs that is ``k_p * steps / reference_steps``.  The mean rung-to-rung
power step as a fraction of the span is ``1 / steps`` by definition, so this is the power-step
form of the rule with the span as the unit; the board's absolute watts per rung are not used,
because they differ 4x between the two cross-validated boards (Orin Nano 0.64 W, Pi 5 0.15 W a
rung from the profiles' power models) and the tuned ``k_p`` 1.0 holds on both.

The scale is one-sided, ``max(1, steps / REFERENCE_LADDER_STEPS)``, with the reference the finest
ladder the default was cross-validated on (the Pi 5's 9 steps): both cross-validated boards keep
their tuned gain exactly (8 / 9 and 9 / 9 give 1.0), so the suite is bit-identical by
construction, and only a ladder finer than any the gain was validated on has its rungs per °C
raised to that ladder's share.  A coarser ladder (a Pi 3's 6 steps) is not slowed: nothing
validated a lower gain there.

What it leaves out: the plant's own gain (°C per watt of the heat path), which differs 12x
between the Orin Nano (8.9 °C/W from the profile's network) and the AGX Orin (0.74 °C/W); a loop
gain in °C per °C would raise the AGX Orin's ``k_p`` about 7.7x and move the fanned Pi 5 of the
suite, and was not built (docs/policies.md, session 18a).
"""

from __future__ import annotations

# The finest ladder ``k_p`` was cross-validated on: the Pi 5's 10 rungs (9 steps) from its
# profile's OPP table; the Orin Nano's 9 rungs are 8 steps.  tests/policies/test_gain.py rebuilds
# both ladders from the shipped profiles and checks this number.
REFERENCE_LADDER_STEPS = 9


def ladder_gain_scale(rungs: int, reference_steps: int = REFERENCE_LADDER_STEPS) -> float:
    """How many times ``k_p`` (rungs per °C) a ladder of ``rungs`` rungs needs for the reference's share per °C.

    Exactly 1.0 for a ladder no finer than the reference, so its controller is untouched.
    """
    steps = rungs - 1
    if steps <= reference_steps:
        return 1.0
    return steps / reference_steps
