"""The runner hands over to SimPy only when another process is due: events still land on time.

``governor_loop`` runs a plan instant at once when no other process (a scenario event, a
protection poll, the board's fan) is due at or before it, and yields a Timeout otherwise
(``sim/model/runner.py``).  A wrong test there would run an event late, after instants past
its time, or leave SimPy's clock behind at the end.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from thermogov.config import Config, SimEvent
from thermogov.governor import TickRecord
from thermogov.sim.model import runner
from thermogov.sim.model.runner import simulate


@pytest.mark.parametrize("at_s", [0.234, 1.05, 2.0, 3.999])
def test_an_event_between_instants_is_applied_at_its_time(
    at_s: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = Config()
    cfg = dataclasses.replace(
        base,
        sim=dataclasses.replace(
            base.sim, duration_s=5.0, events=(SimEvent(at_s=at_s, kind="ambient", value=40.0),)
        ),
    )
    seen: list[float] = []  # the world's time when the event was applied
    real = runner.apply_event

    def spy(world, ev):  # type: ignore[no-untyped-def]
        seen.append(world.t)
        real(world, ev)

    monkeypatch.setattr(runner, "apply_event", spy)
    ticks: list[TickRecord] = []
    result = simulate(cfg, on_tick=ticks.append)
    assert seen == [at_s]
    tagged = [t.t_s for t in ticks if "ambient" in t.event.split()]
    # The tag goes on the first tick at or after the event (an event scheduled at the start
    # runs before the plan's instant at the same millisecond, in SimPy's order).
    first_after = min(t.t_s for t in ticks if t.t_s >= at_s - 1e-9)
    assert tagged == [pytest.approx(first_after)]
    assert result.world.plant.ambient_c == 40.0


def test_protection_polls_see_the_world_at_their_own_instants(monkeypatch: pytest.MonkeyPatch) -> None:
    base = Config()
    cfg = dataclasses.replace(base, sim=dataclasses.replace(base.sim, duration_s=4.5))
    polled: list[float] = []
    real = runner.SimWorld.poll_protections

    def spy(self):  # type: ignore[no-untyped-def]
        polled.append(self.t)
        return real(self)

    monkeypatch.setattr(runner.SimWorld, "poll_protections", spy)
    result = simulate(cfg)
    period_s = min(p.period_ms for p in result.world.board.protections) / 1000.0
    assert polled == [pytest.approx(k * period_s) for k in range(1, math.floor(4.5 / period_s) + 1)]
    assert result.world.t == 4.5
