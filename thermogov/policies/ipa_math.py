"""The integer arithmetic of the kernel's power allocator (IPA), kept apart to be checked by hand.

Source: ``drivers/thermal/gov_power_allocator.c`` (torvalds/linux @03c11eb).  Fixed point with
``FRAC_BITS = 10`` (x 1024); power in mW, temperature in m°C.  C's ``>>`` on a signed 64-bit value
is an arithmetic shift (floor), as Python's is; ``div_s64`` truncates toward zero and
``DIV_ROUND_CLOSEST_ULL`` rounds half up on unsigned values, so both get helpers here.  Every
function mirrors one kernel function; the names say which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FRAC_BITS = 10


def int_to_frac(x: int) -> int:
    return x << FRAC_BITS


def frac_to_int(x: int) -> int:
    return x >> FRAC_BITS


def mul_frac(x: int, y: int) -> int:
    return (x * y) >> FRAC_BITS


def div_s64(x: int, y: int) -> int:
    """C division of signed 64-bit integers: the quotient truncated toward zero."""
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def div_frac(x: int, y: int) -> int:
    return div_s64(x << FRAC_BITS, y)


def div_round_closest(x: int, d: int) -> int:
    """``DIV_ROUND_CLOSEST_ULL`` for non-negative operands."""
    return (x + d // 2) // d


@dataclass
class PidConstants:
    """``struct thermal_zone_params`` fields the governor reads (and estimates if unset)."""

    k_po: int = 0
    k_pu: int = 0
    k_i: int = 0
    k_d: int = 0
    integral_cutoff: int = 0  # m°C


def estimate_pid_constants(
    k: PidConstants, sustainable_power: int, switch_on_mc: int | None, control_mc: int
) -> None:
    """``estimate_pid_constants``: proportional gains that give 3x sustainable power at switch-on.

    ``k_po = (P << 10) / dT``, ``k_pu = (2 P << 10) / dT``, ``k_i = max(k_pu / 10, 1)``, with dT the
    distance from the switch-on trip to the control trip (or the control temperature itself when
    there is no switch-on trip).  Two trips at the same temperature: give up, leave them.
    C divides u32 by u32 here, i.e. truncation on non-negative values.
    """
    threshold = control_mc - (switch_on_mc if switch_on_mc is not None else 0)
    if threshold == 0:
        return
    k.k_po = int_to_frac(sustainable_power) // threshold
    k.k_pu = int_to_frac(2 * sustainable_power) // threshold
    k_i = k.k_pu // 10
    k.k_i = k_i if k_i > 0 else 1


@dataclass
class PidState:
    err_integral: int = 0  # s64, in frac units
    prev_err: int = 0  # s32, in frac units


@dataclass(frozen=True, slots=True)
class PidStep:
    p: int
    i: int
    d: int
    power_range: int


def pid_controller(
    state: PidState,
    k: PidConstants,
    temp_mc: int,
    control_mc: int,
    sustainable_power: int,
    max_allocatable_power: int,
    passive_delay_ms: int,
) -> PidStep:
    """``pid_controller``: the power budget for the next period (mW), updating the PID state."""
    max_power_frac = int_to_frac(max_allocatable_power)
    err = int_to_frac(control_mc - temp_mc)
    p = mul_frac(k.k_po if err < 0 else k.k_pu, err)
    i = mul_frac(k.k_i, state.err_integral)
    if err < int_to_frac(k.integral_cutoff):
        i_next = i + mul_frac(k.k_i, err)
        if abs(i_next) < max_power_frac:
            i = i_next
            state.err_integral += err
    d = mul_frac(k.k_d, err - state.prev_err)
    d = div_frac(d, passive_delay_ms) if passive_delay_ms else 0
    state.prev_err = err
    power_range = sustainable_power + frac_to_int(p + i + d)
    power_range = min(max(power_range, 0), max_allocatable_power)
    return PidStep(p, i, d, power_range)


@dataclass
class Actor:
    """``struct power_actor``: one cooling device's view of the budget, all in mW."""

    req_power: int
    max_power: int
    weight: int = 1 << FRAC_BITS
    granted_power: int = 0
    extra_actor_power: int = 0

    @property
    def weighted_req_power(self) -> int:
        return frac_to_int(self.weight * self.req_power)


def divvy_up_power(actors: Sequence[Actor], power_range: int, fixed: bool = True) -> None:
    """``divvy_up_power``: share the budget by weighted request, then re-share what is capped.

    Each actor first gets ``round(wreq_i * budget / sum wreq)`` (``fixed``; before the 2025 fix
    by Yu-Che Cheng the numerator was the *unweighted* request, so weights only acted through
    the denominator).  An actor granted more than its maximum keeps its maximum; the surplus,
    at most the total headroom, goes to the others in proportion to their headroom.
    """
    total_req = sum(a.weighted_req_power for a in actors) or 1
    extra = 0
    capped_extra = 0
    for a in actors:
        req = a.weighted_req_power if fixed else a.req_power
        a.granted_power = div_round_closest(req * power_range, total_req)
        if a.granted_power > a.max_power:
            extra += a.granted_power - a.max_power
            a.granted_power = a.max_power
        a.extra_actor_power = a.max_power - a.granted_power
        capped_extra += a.extra_actor_power
    if not extra or not capped_extra:
        return
    extra = min(extra, capped_extra)
    for a in actors:
        a.granted_power += div_round_closest(a.extra_actor_power * extra, capped_extra)
