"""Session 33w: a hostile round of new damage, and the misreads it found (issue 10: never
misread silently).

``tests/importers/hostile.py`` gains five kinds of damage (``VARIANTS_S33``): a logger restarted
into its file (its header written again halfway), the clock set back 90 s by NTP halfway, numbers
printed with thousands separators, a temperature column renamed to m°C with its values halfway,
and two logs joined with ``cat`` where the first had no line end.  Each variant of each log reads
to the clean file's values on a time axis that never goes back and is no longer than the clean
one's (twice it for two logs joined), or is refused in one line.  The synthetic logs and samples
of sessions 30w and 31w run here; the real logs (``$THERMOGOV_REAL_DATA``) in the slow leg.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from tests.importers.hostile import LOSSY_S33, VARIANTS_S33, misread, values
from tests.importers.test_wild_s30 import SYNTHETIC, _real_logs
from tests.importers.test_wild_s31 import SAMPLES
from tests.realdata import REAL_DATA, absent
from thermogov.importers import ImportedLog, parse_log
from thermogov.interfaces import LogFormatError


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines))
    return path


def _time_fault(clean: ImportedLog, got: ImportedLog, variant: str) -> str | None:
    """Why ``got``'s time axis is not the clean one's: a step back, or a longer span."""
    times = [s.t_s for s in got.samples]
    if any(b < a for a, b in itertools.pairwise(times)):
        return "the time axis goes back"
    span = times[-1] - times[0] if times else 0.0
    clean_span = clean.samples[-1].t_s - clean.samples[0].t_s
    limit = (2.0 if variant == "cat-without-line-end" else 1.0) * clean_span * 1.05 + 5.0
    return None if span <= limit else f"a span of {span:g} s where the clean log's is {clean_span:g} s"


def outcomes(clean_path: Path, tmp: Path) -> dict[str, str]:
    """Each variant's outcome: 'unchanged', 'read', 'refused', or why it is misread."""
    data = clean_path.read_bytes()
    clean: ImportedLog | None = None
    out: dict[str, str] = {}
    for variant, damage in VARIANTS_S33.items():
        damaged = damage(data)
        if damaged == data:
            out[variant] = "unchanged"
            continue
        clean = clean or parse_log(clean_path)
        path = tmp / f"{variant}--{clean_path.name}"
        path.write_bytes(damaged)
        try:
            log = parse_log(path)
        except LogFormatError as e:
            one_line = "\n" not in str(e) and str(e).strip()
            out[variant] = "refused" if one_line else f"refused in more than one line: {e!r}"
            continue
        joined = variant == "cat-without-line-end"
        why = misread(values(clean), values(log), variant in LOSSY_S33, skip_loads=joined)
        why = why or _time_fault(clean, log, variant)
        if why is not None and _loss_said(clean, log, joined):
            out[variant] = "read, values lost and said"
            continue
        out[variant] = "read" if why is None else f"{why} (read as {log.fmt})"
    return out


def _loss_said(clean: ImportedLog, log: ImportedLog, joined: bool) -> bool:
    """Whether every value read is one of the clean log's on a sound axis, and what was lost is
    said: a note naming values not imported, or lines skipped and counted."""
    wrong = misread(values(clean), values(log), True, skip_loads=joined) or _time_fault(
        clean, log, "cat-without-line-end" if joined else ""
    )
    said = log.skipped_lines > 0 or any("not imported" in n or "not read" in n for n in log.notes)
    return wrong is None and said


def _faults(clean_path: Path, tmp: Path) -> list[str]:
    bad = {"unchanged", "read", "read, values lost and said", "refused"}
    return [f"{v}: {o}" for v, o in outcomes(clean_path, tmp).items() if o not in bad]


@pytest.mark.parametrize("shape", sorted(SYNTHETIC))
def test_the_s33_variants_of_a_synthetic_log_are_read_right_or_refused(tmp_path: Path, shape: str) -> None:
    assert not (wrong := _faults(_write(tmp_path / f"{shape}.log", SYNTHETIC[shape]), tmp_path)), wrong


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_s33_variants_of_a_wild_sample_are_read_right_or_refused(tmp_path: Path, name: str) -> None:
    assert not (wrong := _faults(_write(tmp_path / name, SAMPLES[name][0]()), tmp_path)), wrong


@pytest.mark.slow
@pytest.mark.parametrize("name", _real_logs())
def test_the_s33_variants_of_a_real_log_are_read_right_or_refused(tmp_path: Path, name: str) -> None:
    clean = REAL_DATA / name
    if not clean.is_file():
        pytest.skip(absent(clean))
    assert not (wrong := _faults(clean, tmp_path)), wrong


# --- what the round found: whole numbers printed with thousands separators ------------------------


def _tegrastats(i: int, *, ram: str = "2,632/7,850MB", gr3d: str = "@[1,300,0]") -> str:
    return (
        f"12-07-2026 12:00:{i:02d} RAM {ram} (lfb 3x4MB) SWAP 0/3,925MB (cached 0MB) "
        f"CPU [29%@2,035,0%@1,190,off,12%@729] EMC_FREQ 3%@1,600 GR3D_FREQ {i}%{gr3d} "
        f"cpu@{45 + i / 10:.3f}C tj@{46 + i / 10:.3f}C VDD_GPU_SOC 2,797mW/2,797mW VIN_SYS_5V0 6,014mW/6,000mW"
    )


def test_a_tegrastats_log_with_grouped_whole_numbers_reads_them_whole(tmp_path: Path) -> None:
    # was read as a comma table (clocks of 629..648 MHz from `2,632/7`), or lost every rail
    log = parse_log(_write(tmp_path / "tg.log", [_tegrastats(i) for i in range(12)]))
    assert log.fmt == "tegrastats" and len(log.samples) == 12
    s = log.samples[3]
    assert s.freqs_hz["cpu"] == 2_035_000_000 and s.freqs_hz["emc"] == 1_600_000_000
    assert "gpu" not in s.freqs_hz  # `[1,300,0]`: one clock or two, not read
    assert s.temps_c["cpu"] == pytest.approx(45.3) and s.loads["cpu"] == pytest.approx((29 + 0 + 12) / 300)
    assert s.rails_w == {"VDD_GPU_SOC": 2.797, "VIN_SYS_5V0": 6.014}
    assert any("thousands separators" in n for n in log.notes)
    assert any("GPU clock lists on lines with thousands separators" in n for n in log.notes)


def test_a_grouped_emc_clock_is_never_its_first_digits(tmp_path: Path) -> None:
    # the RAM figure ungrouped (no sign of grouping on the line): `@1,600` was a 1 MHz clock
    cpu = ("[29%@2,035,0%@1,190,off,12%@729]", "[29%@2035,0%@1190,off,12%@729]")
    lines = [_tegrastats(i, ram="2632/7850MB", gr3d="@[305,0]").replace(*cpu) for i in range(12)]
    log = parse_log(_write(tmp_path / "tg.log", lines))
    assert len(log.samples) == 12 and not any("emc" in s.freqs_hz for s in log.samples)


def test_a_tegrastats_temperature_with_a_decimal_comma_is_not_merged(tmp_path: Path) -> None:
    # guard: `51,031C` is a decimal comma (tegrastats prints temperatures with decimals)
    lines = [_tegrastats(i).replace(f"cpu@{45 + i / 10:.3f}C", "cpu@51,031C") for i in range(12)]
    log = parse_log(_write(tmp_path / "tg.log", lines))
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([51.031] * 12)


def test_a_bcmstat_clock_with_a_thousands_group_is_read(tmp_path: Path) -> None:
    lines = [ln.replace("1500Mhz", "1,500Mhz") for ln in SAMPLES["bcmstat.log"][0]()]
    log = parse_log(_write(tmp_path / "b.log", lines))  # 8 of 40 rows read before, the rest skipped
    assert len(log.samples) == 40 and max(s.freqs_hz["cpu"] for s in log.samples) == 1_500_000_000


def test_jtop_values_that_are_no_number_are_said(tmp_path: Path) -> None:
    grouped = [
        re.sub(r"'power cur': (\d)(\d{3})", r"'power cur': '\1,\2'", ln)
        for ln in SAMPLES["jtop-stats.log"][0]()
    ]
    log = parse_log(_write(tmp_path / "s.log", grouped))  # every power lost without a word before
    assert len(log.samples) == 40 and all(s.power_w is None for s in log.samples)
    assert any(n.startswith("'power cur': value(s) that are no number") for n in log.notes), log.notes


def test_a_cpu_list_grouped_alone_is_refused_naming_the_separators(tmp_path: Path) -> None:
    # the RAM figure ungrouped: `48%@1,479]` was refused as "holds decimal commas", a wrong cause
    lines = [_tegrastats(i, ram="2632/7850MB", gr3d="@[305,0]") for i in range(12)]
    with pytest.raises(
        LogFormatError, match=r"line 1: the CPU list .* holds clocks with thousands separators"
    ):
        parse_log(_write(tmp_path / "tg.log", lines))
