"""Reference points for what-if work: no software cap at all, or one constant cap.

``performance`` leaves every domain at its top OPP, so only the board's own protections act
(what a user gets who installs nothing).  ``fixed:<MHz>`` holds a constant cap: the best fixed
cap that stays under the trip is the simplest bound a clever policy must beat.
"""

from __future__ import annotations

import bisect
import math

from thermogov.interfaces import ConfigError
from thermogov.policies.base import Decision, PolicyContext, PolicyInput
from thermogov.tomlcheck import Table


class ConstantCaps:
    """One set of caps on every tick, whatever the input: the body both reference points share.

    A subclass names the policy and the state its trace rows show; it holds no logic of its own,
    so the two can only differ in which caps they are given.
    """

    name = "constant"
    STATE = "CONST"

    def __init__(self, caps: dict[str, int]) -> None:
        self.caps = caps
        self.state = self.STATE

    def decide(self, inp: PolicyInput) -> Decision:
        return Decision(self.caps, self.state)


class Performance(ConstantCaps):
    name = "performance"
    STATE = "MAX"


class Fixed(ConstantCaps):
    name = "fixed"
    STATE = "FIXED"


def make_performance(params: Table, ctx: PolicyContext, argument: str) -> Performance:
    if argument:
        raise ConfigError("policy: 'performance' takes no argument")
    params.done()
    return Performance(ctx.highest_caps())


def parse_fixed_argument(argument: str, ctx: PolicyContext) -> dict[str, int]:
    """``1200`` (MHz, every domain: the highest OPP not above it), ``60%`` (fraction of each
    table's range, by index), or ``cpu=1344,gpu=612`` (exact OPPs per domain)."""
    arg = argument.strip().lower().removesuffix("mhz")
    if not arg:
        raise ConfigError(
            "policy: fixed needs a cap, e.g. fixed:1200 (MHz), fixed:50% or fixed:cpu=1344,gpu=612"
        )
    caps: dict[str, int] = {}
    if "=" in arg:
        for part in arg.split(","):
            dom, _, val = part.partition("=")
            dom = dom.strip()
            if dom not in ctx.tables_hz:
                raise ConfigError(
                    f"policy: fixed: unknown domain {dom!r}; domains are {', '.join(ctx.tables_hz)}"
                )
            try:
                hz = round(float(val) * 1e6)
            except (ValueError, OverflowError) as e:  # nan / inf: not an OPP
                raise ConfigError(f"policy: fixed: cannot read {val!r} as MHz") from e
            if hz not in ctx.tables_hz[dom]:
                opps = ", ".join(f"{f / 1e6:g}" for f in ctx.tables_hz[dom])
                raise ConfigError(f"policy: fixed: {val} MHz is not an OPP of {dom}; choose one of {opps}")
            caps[dom] = hz
        for dom, table in ctx.tables_hz.items():
            caps.setdefault(dom, table[-1])
        return caps
    if arg.endswith("%"):
        try:
            frac = float(arg[:-1]) / 100.0
        except ValueError as e:
            raise ConfigError(f"policy: fixed: cannot read {argument!r} as a percentage") from e
        if not 0.0 <= frac <= 1.0:  # NaN too
            raise ConfigError(f"policy: fixed:{argument.strip()}: a percentage must be from 0% to 100%")
        return {d: t[round(frac * (len(t) - 1))] for d, t in ctx.tables_hz.items()}
    try:
        limit = float(arg) * 1e6
    except ValueError as e:
        raise ConfigError(f"policy: fixed: cannot read {argument!r}; use e.g. fixed:1200 or fixed:50%") from e
    if not math.isfinite(limit):  # "outside the OPP range" would send the user looking for a range
        raise ConfigError(
            f"policy: fixed:{argument.strip()} is no frequency (NaN or infinite); use e.g. fixed:1200 or fixed:50%"
        )
    # One MHz for every domain means "the highest OPP not above it" in each table (a domain
    # whose table starts above it runs at its lowest OPP).  Outside the range spanned by all
    # the tables it would be clamped into something the user did not ask for (fixed:99999 is
    # just `performance`), so it is refused instead.
    lo = min(t[0] for t in ctx.tables_hz.values())
    hi = max(t[-1] for t in ctx.tables_hz.values())
    if not lo - 1e-3 <= limit <= hi + 1e-3:
        raise ConfigError(
            f"policy: fixed:{argument.strip()} is outside the board's OPP range {lo / 1e6:g}-{hi / 1e6:g} MHz; "
            "choose a cap in that range, a percentage (fixed:50%) or per-domain OPPs (fixed:cpu=<MHz>)"
        )
    return {d: t[max(bisect.bisect_right(t, limit + 1e-3) - 1, 0)] for d, t in ctx.tables_hz.items()}


def make_fixed(params: Table, ctx: PolicyContext, argument: str) -> Fixed:
    params.done()
    return Fixed(parse_fixed_argument(argument, ctx))
