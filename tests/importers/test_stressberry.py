"""stressberry importer: the nine real runs (GPL-3.0: read from $THERMOGOV_REAL_DATA, never copied) and
synthetic documents, written for this test, in both YAML list styles stressberry emits."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.importers import detect_format, parse_log, stressberry
from thermogov.interfaces import LogFormatError

ROOT = Path(__file__).resolve().parents[2]


# file, samples, first T, last T, min T, max T, last t_s, top clock MHz (None = not logged)
RUNS = [
    ("rpi_3b_stressberry_acrylic-case.dat", 293, 48.3, 54.8, 47.2, 82.2, 599.424, None),
    ("rpi_3b_stressberry_naked.dat", 293, 46.2, 51.5, 45.6, 81.7, 599.252, None),
    ("rpi_3bplus_stressberry_flirc-case.dat", 300, 44.008, 48.85, 43.47, 60.148, 598.42, None),
    ("rpi_4b_stressberry_fans-off.dat", 301, 45.277, 55.504, 44.79, 64.757, 600.209, None),
    ("rpi_4b_stressberry_nocase.dat", 291, 46.0, 51.0, 45.0, 72.0, 598.914, 1500.398464),
    ("rpi_4b_stressberry_icetower-fan-off.dat", 292, 31.0, 40.0, 31.0, 49.0, 598.715, 1500.398464),
    ("rpi_4b_stressberry_icetower-fan-on.dat", 292, 28.0, 28.0, 26.0, 37.0, 598.578, 1500.398464),
    ("rpi_4b_stressberry_armor-case.dat", 293, 35.0, 43.0, 34.0, 51.0, 598.758, 1500.398464),
    ("rpi_4b_stressberry_argon-one-oc1950.dat", 291, 36.0, 40.0, 35.0, 53.0, 599.678, 1950.486272),
]


@pytest.mark.parametrize(("name", "n", "t_first", "t_last", "t_min", "t_max", "end_s", "top_mhz"), RUNS)
def test_real_runs(
    real: Path,
    name: str,
    n: int,
    t_first: float,
    t_last: float,
    t_min: float,
    t_max: float,
    end_s: float,
    top_mhz: float | None,
) -> None:
    path = real / name
    assert detect_format(path) == "stressberry"
    log = parse_log(path)
    assert (log.fmt, log.board_hint, log.skipped_lines, len(log.samples)) == ("stressberry", None, 0, n)
    temps = [s.temps_c["cpu"] for s in log.samples]
    assert (temps[0], temps[-1], min(temps), max(temps)) == (t_first, t_last, t_min, t_max)
    assert log.samples[0].t_s == 0.0 and log.samples[-1].t_s == pytest.approx(end_s, abs=1e-3)
    gaps = [b.t_s - a.t_s for a, b in zip(log.samples, log.samples[1:], strict=False)]
    assert min(gaps) >= 2.0 and max(gaps) < 2.12  # stressberry samples every ~2 s
    clocks = [s.freqs_hz.get("cpu") for s in log.samples]
    if top_mhz is None:
        assert set(clocks) == {None}
        assert "no cpu frequency list (stressberry < 0.2): clocks unknown" in log.notes
    else:
        assert max(c or 0 for c in clocks) == round(top_mhz * 1e6)


def test_argon_load_window_from_clock(real: Path) -> None:
    log = parse_log(real / "rpi_4b_stressberry_argon-one-oc1950.dat")
    busy = [i for i, s in enumerate(log.samples) if s.freqs_hz["cpu"] > 1_000_000_000]
    assert (busy[0], busy[-1], len(busy)) == (74, 217, 144)  # contiguous stress window
    assert log.samples[0].freqs_hz["cpu"] == 650_162_112
    assert "stressberry 0.2.2, run started 2019-09-20 23:37:39.046158" in log.notes
    assert "setup: Argon One case, fan 100%" in log.notes


# Written for this test: the flow-list style of stressberry 0.1 ...
FLOW = """# This file was created by stressberry v0.1.1 on 2017-11-17 22:22:11.521681
name: 'test rig'
temperature: [40.0, 41.5, oops,
  43.0, 44.5]
time: [0.0, 2.0, 4.0, 6.0,
  8.0]
"""
# ... and the block-list style of stressberry >= 0.2, with an ambient sensor.
BLOCK = """# This file was created by stressberry v0.3.1 on 2020-06-19 12:55:06.229935
ambient:
- 21.0
- 21.5
- 22.0
cpu frequency:
- 600.0
- 1500.0
- 1500.0
name: block rig
temperature:
- 35.0
- 45.0
- 50.0
time:
- 100.0
- 102.5
- 105.0
what is this line
"""


def test_synthetic_flow_lists() -> None:
    log = stressberry.parse_text(FLOW, "flow.dat")
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 6.0, 8.0]  # the "oops" entry costs one sample
    assert [s.temps_c for s in log.samples][-1] == {"cpu": 44.5}
    assert log.skipped_lines == 1 and "setup: test rig" in log.notes


def test_synthetic_block_lists_with_ambient() -> None:
    log = stressberry.parse_text(BLOCK, "block.dat")
    assert log.skipped_lines == 1  # the stray prose line
    assert [s.t_s for s in log.samples] == [0.0, 2.5, 5.0]  # rebased to the first sample
    assert log.samples[1].temps_c == {"cpu": 45.0, "ambient": 21.5}
    assert [s.freqs_hz["cpu"] for s in log.samples] == [600_000_000, 1_500_000_000, 1_500_000_000]


def test_synthetic_mismatched_lengths_and_missing_lists() -> None:
    text = "name: x\ntemperature: [40.0, 41.0, 42.0]\ntime: [0.0, 2.0]\n"
    log = stressberry.parse_text(text, "short.dat")
    assert len(log.samples) == 2
    assert "time has 2 entries, temperature 3: extra entries dropped" in log.notes
    with pytest.raises(LogFormatError, match=r"^nolist\.dat: no stressberry 'time' and 'temperature' lists"):
        stressberry.parse_text("name: x\ntemperature: []\ntime: []\n", "nolist.dat")
