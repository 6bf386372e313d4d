"""The load the governor asks for each tick: the inference mode and the load level.

Joins the mode table (:mod:`thermogov.modes`) and the lever below the lowest clock
(:mod:`thermogov.lever`): the mode in force is the cheaper of the table's choice and the
lever's mode floor, and the duty cycle is the lever's.  Whenever either changes, the world's
:class:`~thermogov.interfaces.LoadControl` is told (the simulated workload, kernel idle
injection on a board); both are also plain attributes (``mode``, ``load_level``, ``duty``) that
the board daemon publishes for the inference application.

It also keeps the ledger the summary reports: time and inferences in each mode and each level,
and accuracy-weighted inferences (each inference weighted by its mode's accuracy over the
accuracy of the costliest configured mode, i.e. full-model-equivalent inferences).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thermogov.interfaces import LoadControl, PowerStatus
from thermogov.lever import Lever, LeverConfig
from thermogov.modes import ModeCost, ModesConfig, ModeSelector


class LoadGovernor:
    def __init__(
        self,
        modes: ModesConfig,
        lever: LeverConfig,
        trip_c: float,
        control: LoadControl | None = None,
    ) -> None:
        self.modes = modes
        self.selector = ModeSelector(modes)
        self.lever = Lever(lever, trip_c, modes.order)
        self.control = control
        self.mode = modes.order[0]
        self.duty = 1.0
        self._sent: tuple[str, float] | None = None
        self._ref_acc = modes.cost(modes.order[0]).accuracy
        # Accounting by segments: a (mode, level) pair in force from a start instant and count;
        # closed when either changes, so a tick that changes nothing costs no dict updates.
        self._static = not modes.enabled and not lever.enabled
        self._seg: tuple[str, int] | None = None
        self._seg_t = 0.0
        self._seg_inf: int | None = None
        self._last_t = 0.0
        self._last_inf: int | None = None
        self.mode_s: dict[str, float] = {}
        self.mode_inf: dict[str, int] = {}
        self.level_s: dict[int, float] = {}
        self.level_inf: dict[int, int] = {}
        self.first_trip_t: float | None = None
        self.above_s = 0.0
        self.first_excursion_s: float | None = None  # above the trip until it first fell below
        self._last_above = False

    @property
    def load_level(self) -> int:
        return self.lever.level

    @property
    def level_label(self) -> str:
        """The rung as the state file shows it: ``"<level> <mode>@<duty>"`` or ``"<level> standby"``."""
        return f"{self.lever.level} {self.lever.current.label()}"

    @property
    def cost(self) -> ModeCost:
        return self.modes.cost(self.mode)

    def _close_segment(self, now_s: float, inferences: int | None) -> None:
        """Attribute the time and work since the segment began to the mode and level in force."""
        if self._seg is None:
            return
        mode, lvl = self._seg
        dt = now_s - self._seg_t
        self.mode_s[mode] = self.mode_s.get(mode, 0.0) + dt
        self.level_s[lvl] = self.level_s.get(lvl, 0.0) + dt
        if inferences is not None and self._seg_inf is not None:
            n = max(inferences - self._seg_inf, 0)
            self.mode_inf[mode] = self.mode_inf.get(mode, 0) + n
            self.level_inf[lvl] = self.level_inf.get(lvl, 0) + n

    def _trip_account(self, now_s: float, fused_c: float | None) -> None:
        if self._last_above:
            self.above_s += now_s - self._last_t
        above = fused_c is not None and fused_c >= self.lever.trip_c
        if above and self.first_trip_t is None:
            self.first_trip_t = now_s
        if not above and self.first_trip_t is not None and self.first_excursion_s is None:
            self.first_excursion_s = self.above_s
        self._last_above = above

    def step(
        self,
        now_s: float,
        fused_c: float | None,
        caps_hz: Mapping[str, int],
        lowest_hz: Mapping[str, int],
        status: PowerStatus | None,
        inferences: int | None,
    ) -> tuple[Mapping[str, int], list[str]]:
        """The caps after the lever (lowest while it is engaged) and the trace events."""
        if self._static and self._seg is not None:
            # Neither modes nor lever configured: nothing can change, only the ledger's end moves.
            self._last_t, self._last_inf = now_s, inferences
            return caps_hz, []
        lever = self.lever
        if lever.cfg.enabled:
            self._trip_account(now_s, fused_c)
        self._last_t, self._last_inf = now_s, inferences
        events: list[str] = []
        if lever.cfg.enabled and fused_c is not None:
            at_lowest = all(caps_hz[d] <= lowest_hz[d] for d in caps_hz)
            events.extend(lever.step(now_s, fused_c, at_lowest))
        level = lever.level
        if self.modes.enabled or level > 0:
            mode = self.selector.select(now_s, fused_c, status)
            floor = lever.current.mode_floor
            if floor:
                mode = self.selector.cheaper(mode, floor)
        else:
            mode = self.modes.order[0]
        if (mode, level) != self._seg:
            # Work done until now was done in the mode and level in force until now.
            self._close_segment(now_s, inferences)
            self._seg, self._seg_t, self._seg_inf = (mode, level), now_s, inferences
            if mode != self.mode:
                events.append(f"mode:{mode}")
            self.mode, self.duty = mode, lever.current.duty
            if self.control is not None and self._sent != (mode, self.duty):
                self.control.set_load(self.cost, self.duty)
                self._sent = (mode, self.duty)
        return (dict(lowest_hz) if level > 0 else caps_hz), events

    def summary(self) -> dict[str, Any]:
        self._close_segment(self._last_t, self._last_inf)
        self._seg_t, self._seg_inf = self._last_t, self._last_inf  # the open segment restarts here
        cost = self.modes.cost
        weighted = sum(n * cost(m).accuracy / self._ref_acc for m, n in self.mode_inf.items())
        total_s = sum(self.mode_s.values())
        levels = self.lever.levels
        out: dict[str, Any] = {
            "modes_enabled": self.modes.enabled,
            "mode_time_s": {m: round(s, 3) for m, s in self.mode_s.items()},
            "mode_inferences": dict(self.mode_inf),
            "accuracy_weighted_inferences": round(weighted, 1),
            "accuracy_weighted_throughput_ips": round(weighted / total_s, 4) if total_s > 0 else None,
            "mode_accuracy": {m: cost(m).accuracy for m in self.mode_s},
        }
        if self.lever.cfg.enabled:
            out["load_level_time_s"] = {
                f"{i} {levels[i].label()}": round(s, 3) for i, s in sorted(self.level_s.items())
            }
            out["load_level_inferences"] = {
                f"{i} {levels[i].label()}": n for i, n in sorted(self.level_inf.items())
            }
            first = self.above_s if self.first_excursion_s is None else self.first_excursion_s
            out["first_trip_at_s"] = self.first_trip_t
            out["first_trip_excursion_s"] = round(first, 3)
            out["time_above_trip_after_first_excursion_s"] = round(self.above_s - first, 3)
        return out
