"""tegrastats, jtop and vcgencmd readers append straight into the columnar store (docs/importing.md,
"Session 24").

Until session 23 these readers built a row object per line and a sample tuple from the kept
rows, which ``validate.checked`` then turned into columns: at the peak a big tegrastats log was
held three times.  These check that each reader now hands back columns itself, that a line
dropped after reading (a stray stamp behind the clock) leaves no trace in the samples or in the
notes its power gave, and that a tegrastats reader's peak above its text is a few hundred bytes a
line.  The byte bound is structural (on the old path ~2 200 B a 350-byte line), not a timing.
"""

from __future__ import annotations

import tracemalloc

from thermogov.importers import jtop, tegrastats, vcgencmd
from thermogov.importers.cells import lines_of
from thermogov.importers.samplestore import SampleColumns


def _tegra(
    k: int, stamp: int | None = None, rails: str = "VDD_IN 5000mW/5000mW VDD_SOC 1500mW/1500mW"
) -> str:
    s = k if stamp is None else stamp
    return (
        f"12-05-2026 10:{s // 60:02d}:{s % 60:02d} RAM 2000/7620MB (lfb 2x4MB) CPU [{k % 97}%@1510,5%@1510] "
        f"GR3D_FREQ {k % 89}%@[305] cpu@{45 + k % 20}.5C gpu@44.0C tj@46.0C {rails}\n"
    )


def test_tegrastats_hands_back_columns_and_drops_a_stray_line_cleanly() -> None:
    lines = [_tegra(k) for k in range(30)]
    # a stray line stamped 20 s behind, whose rails (no VDD_IN) would say "the sum of" if it were kept
    lines.insert(15, _tegra(15, stamp=0, rails="VDD_CPU 900mW/900mW VDD_SOC 1500mW/1500mW"))
    log = tegrastats.parse_text("".join(lines), "t.log")
    assert isinstance(log.samples, SampleColumns)
    assert len(log.samples) == 30 and log.skipped_lines == 1
    assert [s.t_s for s in log.samples] == [float(k) for k in range(30)]
    assert all(s.power_w == 5.0 and "VDD_CPU" not in s.rails_w for s in log.samples)
    assert not any("sum of" in n for n in log.notes)
    assert log.samples[3].temps_c == {"cpu": 48.5, "gpu": 44.0, "tj": 46.0}


def test_jtop_and_vcgencmd_hand_back_columns() -> None:
    rec = "{'CPU1': 8, 'CPU2': 16, 'GPU': 50, 'Temp CPU': 41.5, 'Temp GPU': 39.0, 'Power VDD_CPU': 900, 'Power VDD_SOC': 1500}"
    log = jtop.parse_text("\n".join([rec] * 5), "stats.log", interval_s=2.0)
    assert isinstance(log.samples, SampleColumns)
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert log.samples[0].power_w == 2.4 and log.samples[0].rails_w == {"VDD_CPU": 0.9, "VDD_SOC": 1.5}
    assert any("sum of VDD_CPU+VDD_SOC" in n for n in log.notes)
    text = "".join(f"temp={40 + k}.0'C\nfrequency(48)=1500345728\n" for k in range(6))
    vlog = vcgencmd.parse_text(text, "v.log")
    assert isinstance(vlog.samples, SampleColumns)
    assert [s.temps_c for s in vlog.samples][:2] == [{"cpu": 40.0}, {"cpu": 41.0}]
    assert vlog.samples[0].freqs_hz == {"cpu": 1500345728} and vlog.samples[0].rails_w == {}


def test_lines_of_is_splitlines() -> None:
    for text in ("", "a", "a\n", "a\r\nb\rc\x0bd\x85e\u2028f\n\n", "\n\nx\r", "x\r\n\r\n"):
        assert list(lines_of(text)) == text.splitlines()


def test_a_tegrastats_log_is_read_in_a_few_hundred_bytes_a_line() -> None:
    n = 3000
    text = "".join(_tegra(k % 3600).replace("10:", f"{10 + k // 3600:02d}:", 1) for k in range(n))
    tracemalloc.start()
    try:
        log = tegrastats.parse_text(text, "t.log")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(log.samples) == n
    assert peak / n < 1000, f"{peak / n:.0f} B a line at the reader's peak"
