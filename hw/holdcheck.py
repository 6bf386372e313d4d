"""Can the configured trip be held at all?  The profile's thermal model answers before a run.

A governor can only lower clocks to the lowest cap it may set.  If the board under full load
at those caps still settles above the policy's trip, no policy holds the trip: the run pins
the lowest caps and spends its time above the trip (a Pi 5 asked for 75 °C at 1.5 GHz).  That
is a property of the board, the ambient and the trip, so ``doctor`` and ``run`` say it at once.

The prediction is the steady state of the profile's lumped RC network (``G x = P``, the same
network and power model the simulator integrates: idle + C·V²·f per busy core + leakage that
grows with temperature, plus battery Joule heat), solved by fixed-point iteration on the
leakage.  A board has no ambient sensor, so the ambient is inferred from the current fused
temperature by assuming the board is idle and settled now (as when the unit starts at boot):
the ambient at which the model's idle steady state equals what the sensors read.  A board that
is already busy reads hotter, so its inferred ambient is too high: the message says so.

Pure Python on purpose (a handful of nodes): ``thermogov run`` must not import numpy's linear
algebra, let alone scipy, at start-up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.fusion import SensorSpec
from thermogov.hw.devices import binding_celsius
from thermogov.hw.mapping import BoardMap, governed_table
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ConfigError, SensorError
from thermogov.steadystate import fused_c, steady_state_c
from thermogov.tomlcheck import Table

if TYPE_CHECKING:
    from thermogov.hw.daemon import Prepared


def policy_trip_c(config: Config, spec: str) -> float | None:
    """The temperature the configured policy starts limiting at; None for policies with no trip."""
    from thermogov.policies import split_policy_name
    from thermogov.policies.hysteresis import read_band
    from thermogov.policies.kernel import read_trips

    name, _ = split_policy_name(spec)
    params = Table(dict(config.policies.get(name, {})), config.policy_where(name))
    if name in ("stepped", "hysteresis"):
        return read_band(params)[0]
    if name in ("step_wise", "bang_bang"):
        return read_trips(params, [(85.0, 2.0)])[0].temp_mc / 1000.0
    if name == "power_allocator":
        return params.number("control_c", 85.0)
    return None  # performance, fixed: nothing to hold


def infer_ambient_c(
    board: BoardProfile, specs: Sequence[SensorSpec], clocks_hz: Mapping[str, int], now_c: float
) -> float:
    """The ambient at which the idle steady state reads ``now_c`` (it rises with the ambient).

    Regula falsi with the Illinois modification (Dowell & Jarratt, BIT 11, 1971) on the bracket
    ``[now - 150, now]``: the reading is nearly linear in the ambient, so a handful of steady
    states settle it to 1e-9 °C where bisection took 60.  This runs before ``thermogov run``
    writes its first cap, and on an emulated board at 25x every 40 ms of it is a simulated
    second at full clocks.  A runaway (infinite) steady state falls back to a bisection step.
    """

    def err(amb: float) -> float:
        return fused_c(board, specs, steady_state_c(board, clocks_hz, 0.0, amb)) - now_c

    lo, hi = now_c - 150.0, now_c
    f_lo, f_hi = err(lo), err(hi)
    side = 0
    for _ in range(100):
        if hi - lo < 1e-9:
            break
        if math.isfinite(f_lo) and math.isfinite(f_hi) and f_hi != f_lo:
            mid = hi - f_hi * (hi - lo) / (f_hi - f_lo)
            if not lo < mid < hi:
                mid = 0.5 * (lo + hi)
        else:
            mid = 0.5 * (lo + hi)
        f_mid = err(mid)
        if f_mid == 0.0:
            return mid
        if f_mid > 0.0:
            hi, f_hi = mid, f_mid
            if side == -1:
                f_lo *= 0.5
            side = -1
        else:
            lo, f_lo = mid, f_mid
            if side == 1:
                f_hi *= 0.5
            side = 1
        if abs(f_mid) < 1e-9:
            return mid
    return 0.5 * (lo + hi)


@dataclass(frozen=True, slots=True)
class HoldCheck:
    trip_c: float
    now_c: float
    ambient_c: float
    lowest_hz: dict[str, int]
    predicted_c: float

    @property
    def holds(self) -> bool:
        return self.predicted_c <= self.trip_c

    def warning(self, board: str, policy: str, lever: bool = False) -> str:
        caps = ", ".join(f"{d} {f / 1e6:g} MHz" for d, f in self.lowest_hz.items())
        pred = "thermal runaway" if math.isinf(self.predicted_c) else f"a steady {self.predicted_c:.1f} °C"
        return (
            f"thermogov: warning: the {policy} trip {self.trip_c:g} °C cannot be held even at the lowest caps "
            f"({caps}): the {board} profile predicts {pred} under full load at the ambient inferred from "
            f"the current {self.now_c:.1f} °C ({self.ambient_c:.1f} °C, assuming the board idles now); "
            + (
                "the lever below the lowest clock ([lever]) will step the load down to hold it"
                if lever
                else f"expect time above the trip: raise trip_c in [policies.{policy.partition(':')[0]}], improve "
                "the cooling, or set [lever] enabled = true to step the load down below the lowest clock "
                "(docs/power.md)"
            )
        )


def _live_fused_c(tree: SysfsTree, bmap: BoardMap, specs: Sequence[SensorSpec]) -> float | None:
    weight = {s.name: s.weight for s in specs}
    num = den = 0.0
    for b in bmap.sensors:
        if b.sensor.name not in weight:
            continue
        try:
            t = binding_celsius(tree, b)
        except SensorError:
            continue
        num += weight[b.sensor.name] * t
        den += weight[b.sensor.name]
    return num / den if den else None


def _ceilings_hz(tree: SysfsTree, bmap: BoardMap) -> dict[str, tuple[int, int]]:
    """Per mapped domain: (lowest cap thermogov may set, the limit in force now)."""
    out = {}
    for db in bmap.domains:
        tops = []
        for f in db.files:
            try:
                tops.append(tree.read_int(f.max_rel) * f.scale_hz)
            except SensorError:
                continue
        table = governed_table(db.hw_table_hz, db.domain.opp_hz[0], max(tops) if tops else None)
        out[db.domain.name] = (table[0], table[-1])
    return out


def check_hold(
    tree: SysfsTree, board: BoardProfile, bmap: BoardMap, config: Config, specs: Sequence[SensorSpec]
) -> HoldCheck | None:
    """None when the policy has no trip, no sensor reads now, or the board is already at its trip."""
    trip = policy_trip_c(config, config.policy)
    now = _live_fused_c(tree, bmap, specs)
    if trip is None or now is None or now >= trip:
        # At or above the trip already, the board is busy (or somewhere very hot) and the idle
        # assumption behind the inferred ambient fails; the run's own trace shows what happens.
        return None
    caps = _ceilings_hz(tree, bmap)
    lowest = {d: lo for d, (lo, _hi) in caps.items()}
    top = {d: hi for d, (_lo, hi) in caps.items()}
    ambient = infer_ambient_c(board, specs, top, now)
    predicted = fused_c(board, specs, steady_state_c(board, lowest, 1.0, ambient))
    return HoldCheck(trip, now, ambient, lowest, predicted)


def hold_warning(tree: SysfsTree, config: Config, board_opt: str | None) -> str | None:
    """The warning line for ``doctor`` and ``run``, or None (also when the board does not map:
    the caller reports that itself)."""
    from thermogov.hw.daemon import RunOptions, prepare

    try:
        prep = prepare(RunOptions(config=config, sysfs_root=tree.root, board=board_opt), tree)
    except (ConfigError, SensorError, ArithmeticError):  # advisory: never the reason a run fails
        return None
    return prepared_hold_warning(prep)


def prepared_hold_warning(prep: Prepared) -> str | None:
    """:func:`hold_warning` on a board already prepared (``run``'s own, hw/startlines.py)."""
    from thermogov.hw.daemon import policy_context

    try:
        # A config the run will refuse gets its one error line, not this warning before it.
        prep.config.make_policy(policy_context(prep))
        check = check_hold(prep.tree, prep.board, prep.bmap, prep.config, prep.specs)
    except (ConfigError, SensorError, ArithmeticError):  # advisory: never the reason a run fails
        return None
    if check is None or check.holds:
        return None
    return check.warning(prep.board.name, prep.config.policy, prep.config.lever.enabled)
