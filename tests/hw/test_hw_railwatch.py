"""hw/railwatch.py: a rail going bad mid-run is said once, a flapping one at most every 30 s."""

from __future__ import annotations

from thermogov.hw.railwatch import RailWatch


def _watch() -> tuple[RailWatch, list[str], list[float]]:
    lines: list[str] = []
    now = [0.0]
    return RailWatch("VDD_IN", "hwmon1/in1_input", lines.append, lambda: now[0]), lines, now


def test_a_bad_spell_is_said_with_its_file_and_why_and_its_end_once() -> None:
    watch, lines, now = _watch()
    now[0] = 12.0
    watch.went_bad("0.00 W is no power for VDD_IN")
    now[0] = 20.0
    watch.came_back(4.83)
    assert len(lines) == 2
    assert "from t=12.0 s (hwmon1/in1_input: 0.00 W is no power" in lines[0]
    assert lines[1] == "board power readable again at t=20.0 s (VDD_IN: 4.83 W)"


def test_a_flapping_rail_is_said_at_most_every_30_s_and_counted() -> None:
    watch, lines, now = _watch()
    watch.went_bad("junk")
    watch.came_back(4.8)
    for t in (1.0, 2.0, 3.0):  # bad and good by turns: no line in between
        now[0] = t
        watch.went_bad("junk")
        watch.came_back(4.8)
    assert len(lines) == 2
    now[0] = 31.0
    watch.went_bad("junk")
    assert len(lines) == 3 and "went bad 3 more times" in lines[2]
