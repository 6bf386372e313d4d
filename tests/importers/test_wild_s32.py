"""Session 32w: a hostile round with new damage, and a pretty-printed ``sensors -j`` log written
twice (issue 10: never misread silently).

``tests/importers/hostile.py`` gains seven kinds of damage (``VARIANTS_S32``): a UTF-8 BOM with
CR LF on every other line, a header written again with the temperature column renamed, two
records out of order (a time stamp going back), two logs joined with ``cat``, the last line cut
in half, ``nan``/``inf`` printed for a failed read, and bytes that are no UTF-8.  Each variant of
each log reads to the clean file's values on a time axis that never goes back and is no longer
than the clean one's (twice it for two logs joined), or is refused in one line.  The synthetic
logs and samples of sessions 30w and 31w run here; the real logs (``$THERMOGOV_REAL_DATA``) in
the slow leg.  The one misread found (a tegrastats rail printed as ``nan``) is tested alone.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from tests.importers.hostile import (
    LOSSY_S32,
    VARIANTS_S32,
    concatenated,
    misread,
    values,
)
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
    limit = (2.0 if variant == "concatenated" else 1.0) * clean_span * 1.05 + 5.0
    return None if span <= limit else f"a span of {span:g} s where the clean log's is {clean_span:g} s"


def _faults(clean_path: Path, tmp: Path) -> list[str]:
    data = clean_path.read_bytes()
    clean: ImportedLog | None = None
    out: list[str] = []
    for variant, damage in VARIANTS_S32.items():
        damaged = damage(data)
        if damaged == data:
            continue
        clean = clean or parse_log(clean_path)
        path = tmp / f"{variant}--{clean_path.name}"
        path.write_bytes(damaged)
        try:
            log = parse_log(path)
        except LogFormatError as e:
            if "\n" in str(e) or not str(e).strip():
                out.append(f"{variant}: refused in more than one line: {e!r}")
            continue
        why = misread(
            values(clean), values(log), variant in LOSSY_S32, skip_loads=variant == "concatenated"
        ) or _time_fault(clean, log, variant)
        if why is not None:
            out.append(f"{variant}: {why} (read as {log.fmt})")
    return out


@pytest.mark.parametrize("shape", sorted(SYNTHETIC))
def test_the_new_variants_of_a_synthetic_log_are_read_right_or_refused(tmp_path: Path, shape: str) -> None:
    assert not (wrong := _faults(_write(tmp_path / f"{shape}.log", SYNTHETIC[shape]), tmp_path)), wrong


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_new_variants_of_a_wild_sample_are_read_right_or_refused(tmp_path: Path, name: str) -> None:
    assert not (wrong := _faults(_write(tmp_path / name, SAMPLES[name][0]()), tmp_path)), wrong


@pytest.mark.slow
@pytest.mark.parametrize("name", _real_logs())
def test_the_new_variants_of_a_real_log_are_read_right_or_refused(tmp_path: Path, name: str) -> None:
    clean = REAL_DATA / name
    if not clean.is_file():
        pytest.skip(absent(clean))
    assert not (wrong := _faults(clean, tmp_path)), wrong


def test_two_logs_joined_read_both_runs_on_one_forward_axis(tmp_path: Path) -> None:
    clean = _write(tmp_path / "t.csv", SYNTHETIC["table"])
    joined = tmp_path / "joined.csv"
    joined.write_bytes(concatenated(clean.read_bytes()))
    log = parse_log(joined)
    assert len(log.samples) == 2 * len(SYNTHETIC["table"][1:])
    assert all(b.t_s >= a.t_s for a, b in itertools.pairwise(log.samples))


# --- a tegrastats rail printed as nan -------------------------------------------------------------


def _tegrastats(i: int, total: str) -> str:
    return (
        f"03-01-2026 00:00:{i:02d} RAM 3100/62841MB (lfb 40x4MB) CPU [30%@1728,50%@1728] EMC_FREQ 10%@204 "
        f"GR3D_FREQ 31%@[305,0] cpu@{45 + i / 10:.1f}C tj@{46 + i / 10:.1f}C VDD_GPU_SOC 2797mW/2797mW "
        f"VDD_CPU_CV 399mW/555mW VIN_SYS_5V0 {total}"
    )


def test_a_tegrastats_rail_printed_as_nan_gives_no_board_power_for_its_line(tmp_path: Path) -> None:
    # the input rail lost: the board's power was the other rails' sum, 3.2 W where it draws 6 W
    lines = [_tegrastats(i, "6014mW/6000mW" if i != 5 else "6014mW/nanmW") for i in range(12)]
    log = parse_log(_write(tmp_path / "tg.log", lines))
    assert len(log.samples) == 12
    powers = [s.power_w for s in log.samples]
    assert powers[5] is None and not log.samples[5].rails_w
    assert all(p is not None and p > 5.0 for k, p in enumerate(powers) if k != 5)
    assert any("rail readings that are no number (e.g. VIN_SYS_5V0 '6014mW/nanmW')" in n for n in log.notes)


# --- a pretty-printed sensors -j log with lines written twice -------------------------------------


def _sensors_pretty(n: int, repeat: set[int]) -> list[str]:
    out: list[str] = []
    for i in range(n):
        out.append(f"Mon Dec  7 12:00:{2 * i:02d} UTC 2026")
        doc = {"cpu_thermal-virtual-0": {"Adapter": "Virtual device", "temp1": {"temp1_input": 45 + i / 4}}}
        for k, line in enumerate(json.dumps(doc, indent=3).splitlines()):
            out.append(line)
            if (i * 7 + k) % 9 in repeat:
                out.append(line)  # a logger's retry wrote the line again
    return out


@pytest.mark.parametrize("repeat", [{0}, {3, 5}], ids=["some-lines", "more-lines"])
def test_a_pretty_printed_sensors_j_log_with_repeated_lines_reads_one_sample_a_document(
    tmp_path: Path, repeat: set[int]
) -> None:
    log = parse_log(_write(tmp_path / "sj.log", _sensors_pretty(20, repeat)))  # refused before
    assert log.fmt == "sensors-json"
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([45 + i / 4 for i in range(20)])
    assert [s.t_s for s in log.samples] == pytest.approx([2.0 * i for i in range(20)])
    assert any("repeated the line before (written twice): dropped" in n for n in log.notes)


def test_a_sensors_j_document_broken_otherwise_is_still_skipped_and_counted(tmp_path: Path) -> None:
    # guard: only a line equal to the one before is dropped; a cut document is not mended
    lines = _sensors_pretty(10, set())
    cut = lines.index("Mon Dec  7 12:00:10 UTC 2026")
    del lines[cut + 4]
    log = parse_log(_write(tmp_path / "cut.log", lines))
    assert len(log.samples) == 9 and log.skipped_lines >= 1
    assert not any("repeated the line before" in n for n in log.notes)


# The stressberry file cut inside its `time` list, refused here in session 32w, is read to its last
# whole item since session 33w: tests/importers/test_wild_s33.py.
