"""``ripple_margin``: the set point's sigma counts the spread the loop adds while it holds."""

from __future__ import annotations

import math
import random

import pytest

from tests.policies.helpers import ctx_for, inp, policy
from thermogov.interfaces import ConfigError
from thermogov.policies.gain import gain_scale
from thermogov.policies.ladder import build_ladder
from thermogov.policies.ripple import HeldSpread, raised_share
from thermogov.policies.stepped import Stepped
from thermogov.sim.scenarios import load_scenario, scenario_names

SUITE_BOARDS = sorted({load_scenario(n).board for n in scenario_names()})
FINE = "jetson-agx-orin"  # gain_ladder "plant" factor 3.96
WINDOW = 30.0
SET = 84.0


def _stepped(board: str, params: dict[str, object]) -> Stepped:
    p = policy("stepped", params, board=board)
    assert isinstance(p, Stepped)
    return p


def _feed(spread: HeldSpread, values: list[float], set_c: float = SET) -> None:
    for i, v in enumerate(values):
        spread.observe(i * 0.1, 0.1 if i else 0.0, v, v, set_c, False)


def _rippling(n: int, amp: float, noise: float, mean: float = SET, period_s: float = 8.0) -> list[float]:
    rng = random.Random(1)
    return [mean + amp * math.sin(2 * math.pi * i * 0.1 / period_s) + rng.gauss(0, noise) for i in range(n)]


def test_the_held_spread_is_the_ripple_and_the_noise_in_quadrature() -> None:
    s = HeldSpread(WINDOW, 1.0)
    _feed(s, _rippling(6000, 0.2, 0.1))
    # a sine of amplitude A has RMS A / sqrt(2); the noise adds in quadrature
    assert s.sigma_c(0.1) == pytest.approx(math.hypot(0.2 / math.sqrt(2), 0.1), rel=0.08)


def test_only_the_raised_gains_share_of_the_excess_counts() -> None:
    full, part = HeldSpread(WINDOW, 1.0), HeldSpread(WINDOW, raised_share(2.0))
    for s in (full, part):
        _feed(s, _rippling(6000, 0.2, 0.1))
    excess = full.sigma_c(0.1) ** 2 - 0.01
    assert part.sigma_c(0.1) ** 2 - 0.01 == pytest.approx(0.75 * excess)  # 1 - 1 / 2**2
    assert raised_share(1.0) == 0.0 and raised_share(0.5) == 0.0


def test_nothing_is_counted_while_arriving_or_before_a_window_has_held() -> None:
    s = HeldSpread(WINDOW, 1.0)
    _feed(s, _rippling(6000, 0.5, 0.1), set_c=SET + 5.0)  # the level never reaches the set point
    assert s.sigma_c(0.1) == 0.1
    s = HeldSpread(WINDOW, 1.0)
    _feed(s, _rippling(500, 0.5, 0.1))  # 50 s: the mean's settling window, then 20 s measured
    assert s.sigma_c(0.1) == 0.1


def test_a_slow_drift_is_not_ripple() -> None:
    """A fan failing while held: the level drifts 0.01 °C/s, which is its own centred mean."""
    s = HeldSpread(WINDOW, 1.0)
    rng = random.Random(2)
    _feed(s, [SET + 0.01 * i * 0.1 + rng.gauss(0, 0.1) for i in range(6000)])
    assert s.sigma_c(0.1) == pytest.approx(0.1, rel=0.05)


def test_the_sigma_is_never_under_the_read_noise() -> None:
    s = HeldSpread(WINDOW, 1.0)
    _feed(s, [SET] * 6000)
    assert s.sigma_c(0.15) == 0.15


@pytest.mark.parametrize("board", SUITE_BOARDS)
def test_every_suite_board_has_no_share_and_no_estimator(board: str) -> None:
    ctx = ctx_for(board)
    factor = gain_scale("plant", ctx.board, build_ladder(ctx.board, ctx.tables_hz), ctx.sensor_names)
    assert raised_share(factor) == 0.0
    assert _stepped(board, {"ripple_margin": True}).ripple is None


def test_it_measures_on_a_board_whose_gain_was_raised() -> None:
    on = _stepped(FINE, {"ripple_margin": True})
    assert on.ripple is not None and on.ripple.share == pytest.approx(raised_share(on.p.k_p))
    assert _stepped(FINE, {"ripple_margin": True, "gain_ladder": "off"}).ripple is None
    assert _stepped(FINE, {}).ripple is not None  # on by default since session 19a
    assert _stepped(FINE, {"ripple_margin": False}).ripple is None


def test_no_estimator_reads_through_coarse_codes() -> None:
    """The AGX Xavier's gain is raised (x1.19), but its 0.5 °C codes are over twice its read noise."""
    assert raised_share(_stepped("jetson-agx-xavier", {}).p.k_p) > 0.0
    assert _stepped("jetson-agx-xavier", {"ripple_margin": True}).ripple is None


def test_a_bad_value_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError, match="ripple_margin"):
        _stepped(FINE, {"ripple_margin": "always"})


def test_a_rippling_hold_lowers_the_set_point_by_the_measured_spread() -> None:
    """Same readings to both: with the rule the set point sits k sigmas of the held spread under the trip."""
    ctx = ctx_for(FINE)
    off, on = _stepped(FINE, {"ripple_margin": False}), _stepped(FINE, {"ripple_margin": True})
    # At the default's set point, never at the trip; a 30-s ripple moves the 2-s level with it, so
    # the trend's read noise (the RMS around that level) counts little of it.
    readings = _rippling(6000, 0.3, 0.03, mean=84.5, period_s=30.0)
    for p in (off, on):
        for i, v in enumerate(readings):
            p.decide(inp(i * 0.1, v, ctx))
    assert on._set_c < off._set_c - 0.2
    # the share is 0.94 of the excess over the (small) read noise: nearly the whole held spread
    assert 85.0 - on._set_c == pytest.approx(on.p.noise_k * math.hypot(0.3 / math.sqrt(2), 0.03), rel=0.1)
