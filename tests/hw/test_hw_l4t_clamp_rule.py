"""The L4T ``pwm_cap`` clamp rule, one function for the daemon and the restore (review of 22a)."""

from __future__ import annotations

from thermogov.hw.l4tfan import clamped_to_cap


def test_a_duty_clamped_to_the_cap_is_ours_and_nothing_else_is() -> None:
    assert clamped_to_cap(120, (200,), 120)  # written 200, cap lowered to 120 since
    assert clamped_to_cap(80, (80,), 120)  # under the cap: the value as written
    assert clamped_to_cap(120, (255, 37), 120)  # either recorded value may be the one in force
    assert not clamped_to_cap(100, (200,), 120)  # neither the value nor its clamp: another writer
    assert not clamped_to_cap(120, (80,), 120)  # a clamp never raises a duty
    assert not clamped_to_cap(120, (), 120)
