"""Power budgets: keep the rolling average board power under the budget of the power state.

A cap limiter (:class:`thermogov.governor.CapLimiter`).  The caps it may choose form a ladder
built once from the board profile's power model (kernel energy-model form, see
:mod:`thermogov.costmodel`): from every domain at its lowest OPP, each rung raises the one
domain whose next OPP gives the smallest modelled board power at full load, so rungs are in
increasing power order.

Each tick it measures the power of the last interval (the board's input rail where it has one,
Jetson ``VDD_IN``; else the model at the caps in force) and integrates the error against the
budget, ``E = ∫ (budget - P) dt``.  The target for the next interval is ``budget + E / t_i``
and the rung chosen is the highest whose modelled power, scaled by measured / modelled at the
caps in force (the load's real intensity, leakage at the real temperature), fits the target.
Between two rungs the choice alternates so that the average lands on the budget (sigma-delta
modulation of a discrete actuator).  ``E`` is clamped: at most ``HEADROOM`` of one window's
budget energy may be saved up while the load wants less, so no window can exceed the budget
by more than about that fraction once the load wants more; excess energy drawn under the
budget is paid back up to one window's worth.  A change of budget (power state) starts over.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

from thermogov import costmodel
from thermogov.battery import LiionLimiter
from thermogov.board import BoardProfile
from thermogov.governor import CapLimiter
from thermogov.interfaces import PowerStatus
from thermogov.powerconfig import PowerConfig

HEADROOM = 0.01  # fraction of a window's budget energy the controller may bank
T_I_S = 1.0  # seconds over which a banked energy error is spent (sigma-delta loop time)


def model_power_w(board: BoardProfile, caps_hz: Mapping[str, int]) -> float:
    """Board power at these caps with the reference inference load saturating the pipeline."""
    doms = {d.name: d for d in board.domains}
    freqs = {d: caps_hz.get(d, doms[d].opp_hz[-1]) for d in doms}
    model_freqs = {d: freqs[d] for d in board.model.cycles if d in freqs}
    busy = (
        costmodel.busy_cores(board.model, model_freqs, 1.0)
        if len(model_freqs) == len(board.model.cycles)
        else {}
    )
    total = board.thermal.rest_of_board_w
    for name, cap in caps_hz.items():
        d = doms.get(name)
        if d is not None:
            total += costmodel.domain_power_w(d, cap, busy.get(name, float(d.cores)), d.leak_ref_c)
    return total


def build_ladder(
    board: BoardProfile, tables_hz: Mapping[str, Sequence[int]]
) -> list[tuple[dict[str, int], float]]:
    """Cap vectors in increasing modelled power, lowest caps first and highest caps last."""
    idx = dict.fromkeys(tables_hz, 0)

    def caps() -> dict[str, int]:
        return {d: tables_hz[d][i] for d, i in idx.items()}

    ladder = [(caps(), model_power_w(board, caps()))]
    while True:
        best: tuple[float, str] | None = None
        for d, i in idx.items():
            if i + 1 < len(tables_hz[d]):
                trial = caps() | {d: tables_hz[d][i + 1]}
                w = model_power_w(board, trial)
                if best is None or w < best[0]:
                    best = (w, d)
        if best is None:
            return ladder
        idx[best[1]] += 1
        ladder.append((caps(), max(best[0], ladder[-1][1])))


class BudgetController:
    def __init__(self, cfg: PowerConfig, board: BoardProfile, tables_hz: Mapping[str, Sequence[int]]) -> None:
        self.cfg = cfg
        self.board = board
        self.ladder = build_ladder(board, tables_hz)
        self.budget: float | None = None
        self._err_j = 0.0
        self._last_t: float | None = None
        self._in_force: dict[str, int] | None = None  # caps of the interval just measured
        self._window: deque[tuple[float, float]] = deque()  # (dt, energy) of the current budget
        self._window_j = 0.0
        self._window_s = 0.0
        self.budget_s = 0.0
        self.budget_j = 0.0
        self.max_window_ratio = 0.0  # worst full window's average / budget

    def _spent(self, dt: float, p: float) -> None:
        self.budget_s += dt
        self.budget_j += p * dt
        self._window.append((dt, p * dt))
        self._window_s += dt
        self._window_j += p * dt
        w = self.cfg.window_s
        while self._window and self._window_s - self._window[0][0] >= w - 1e-9:
            odt, oj = self._window.popleft()
            self._window_s -= odt
            self._window_j -= oj
        if self._window_s >= w - 1e-6 - 1e-9 and self.budget:
            self.max_window_ratio = max(self.max_window_ratio, self._window_j / self._window_s / self.budget)

    def limit(
        self, now_s: float, caps_hz: Mapping[str, int], power_w: float | None, status: PowerStatus | None
    ) -> tuple[dict[str, int], list[str]]:
        budget = self.cfg.budget_w(status)
        events: list[str] = []
        dt = 0.0 if self._last_t is None else max(now_s - self._last_t, 0.0)
        self._last_t = now_s
        if budget != self.budget:
            events.append(f"budget:{budget:g}W" if budget is not None else "budget_off")
            self.budget = budget
            self._err_j = 0.0
            self._window.clear()
            self._window_j = self._window_s = 0.0
            dt = 0.0  # the last interval ran under another budget
        if budget is None:
            self._in_force = None
            return dict(caps_hz), events
        in_force = self._in_force if self._in_force is not None else dict(caps_hz)
        modelled = model_power_w(self.board, in_force)
        p = power_w if power_w is not None else modelled
        if dt > 0.0:
            self._spent(dt, p)
            bank = HEADROOM * budget * self.cfg.window_s
            self._err_j = min(max(self._err_j + (budget - p) * dt, -budget * self.cfg.window_s), bank)
        target = budget + self._err_j / T_I_S
        scale = p / modelled if modelled > 0.0 else 1.0
        chosen = self.ladder[0][0]
        for rung, w in self.ladder:
            if w * scale > target:
                break
            chosen = rung
        self._in_force = {d: min(c, chosen.get(d, c)) for d, c in caps_hz.items()}
        return dict(chosen), events

    def summary(self) -> dict[str, object]:
        if self.budget_s <= 0.0:
            return {}
        return {
            "budget_s": round(self.budget_s, 3),
            "budget_mean_w": round(self.budget_j / self.budget_s, 4),
            "budget_max_window_ratio": round(self.max_window_ratio, 4),
        }


def power_limiters(
    cfg: PowerConfig, board: BoardProfile, tables_hz: Mapping[str, Sequence[int]]
) -> list[CapLimiter]:
    """The power-aware cap limiters of a run: Li-ion limits always, a budget when one is set."""
    out: list[CapLimiter] = [LiionLimiter(cfg, tables_hz)]
    if cfg.any_budget:
        out.append(BudgetController(cfg, board, tables_hz))
    return out


def limiter_summary(limiters: Sequence[object]) -> dict[str, object]:
    """The summary figures of every limiter that has some (budget kept, Li-ion crossings)."""
    out: dict[str, object] = {}
    for lim in limiters:
        fn = getattr(lim, "summary", None)
        if fn is not None:
            out.update(fn())
    return out
