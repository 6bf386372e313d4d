"""Clocks that step while the rows keep coming (docs/importing.md, "Reviewed, session 22"): an NTP
step back, a board without a real-time clock logging from 1970 until the network sets the time,
a logger restarted into the same file.  Before: every row after a step back was dropped until
the clock passed the last kept time (all of a restart's), and a 1970 stretch as "garbled"."""

from __future__ import annotations

from pathlib import Path

from thermogov.importers import parse_log
from thermogov.importers.clocksteps import mend_steps

EPOCH = 1_764_928_800  # 2025-12-05 10:00 UTC


def _csv(path: Path, stamps: list[float], header: str = "epoch,temp_c,freq_mhz") -> Path:
    rows = "".join(f"{t:.0f},{45 + k / 10:.1f},1500\n" for k, t in enumerate(stamps))
    path.write_text(f"{header}\n{rows}", encoding="utf-8")
    return path


def _axis(path: Path) -> tuple[list[float], list[float], tuple[str, ...]]:
    log = parse_log(path)
    return [s.t_s for s in log.samples], [s.temps_c["cpu"] for s in log.samples], log.notes


def test_an_ntp_step_back_of_an_hour_keeps_every_row_in_file_order(tmp_path: Path) -> None:
    stamps = [EPOCH + k for k in range(20)] + [EPOCH + 19 - 3600 + k for k in range(1, 21)]
    t, temps, notes = _axis(_csv(tmp_path / "ntp.csv", stamps))
    assert t == [float(k) for k in range(40)]
    assert temps == [45 + k / 10 for k in range(40)]  # file order: never reordered
    assert any("clock stepped back by 3599 s 19 s into the log" in n and "20 row(s)" in n for n in notes)


def test_a_board_that_logs_from_1970_until_ntp_sets_the_clock(tmp_path: Path) -> None:
    stamps = [5.0 + k for k in range(10)] + [EPOCH + k for k in range(30)]
    t, temps, notes = _axis(_csv(tmp_path / "rtcless.csv", stamps))
    assert t == [float(k) for k in range(40)] and len(temps) == 40
    assert any("leapt forward" in n and "30 row(s)" in n for n in notes)
    assert not any("garbled" in n for n in notes)


def test_a_logger_restarted_into_the_same_file_counts_on(tmp_path: Path) -> None:
    first = "".join(f"{k},{45 + k / 10:.1f}\n" for k in range(15))
    again = "".join(f"{k},{50 + k / 10:.1f}\n" for k in range(15))
    path = tmp_path / "restart.csv"
    path.write_text(f"sec,temp\n{first}sec,temp\n{again}", encoding="utf-8")
    log = parse_log(path)
    assert [s.t_s for s in log.samples] == [float(k) for k in range(30)]
    assert [s.temps_c["cpu"] for s in log.samples][15] == 50.0
    assert any("stepped back by 14 s" in n for n in log.notes)


def test_tegrastats_lines_after_an_ntp_step_are_kept(tmp_path: Path) -> None:
    body = (
        "RAM 2000/7620MB (lfb 2x4MB) SWAP 0/3810MB (cached 0MB) CPU [10%@1510,5%@1510,4%@1510,3%@1510] "
        "EMC_FREQ 0%@2133 GR3D_FREQ 0%@[305] cpu@45.0C soc2@44.1C soc0@43.9C gpu@44.0C tj@45.0C "
        "soc1@44.2C VDD_IN 5000mW/5000mW VDD_CPU_GPU_CV 600mW/600mW VDD_SOC 1500mW/1500mW"
    )
    stamps = [f"12-05-2026 10:00:{k:02d}" for k in range(10)] + [
        f"12-05-2026 09:00:{k:02d}" for k in range(10)
    ]
    path = tmp_path / "tegrastats.log"
    path.write_text("".join(f"{s} {body}\n" for s in stamps), encoding="utf-8")
    log = parse_log(path)
    assert [s.t_s for s in log.samples] == [float(k) for k in range(20)]
    assert log.skipped_lines == 0 and any("20 line" not in n and "stepped back" in n for n in log.notes)


def test_jtop_records_after_a_step_are_kept(tmp_path: Path) -> None:
    stamps = [f"2026-12-05 10:00:{k:02d}.000000" for k in range(10)]
    stamps += [f"2026-12-05 09:30:{k:02d}.000000" for k in range(10)]
    rows = "".join(f"{s},{10 + k},45.{k}\n" for k, s in enumerate(stamps))
    path = tmp_path / "jtop.csv"
    path.write_text("time,CPU1,Temp CPU\n" + rows, encoding="utf-8")
    log = parse_log(path)
    assert [s.t_s for s in log.samples] == [float(k) for k in range(20)]


def test_one_reordered_row_or_a_step_of_one_interval_is_still_dropped_and_counted() -> None:
    """Guards (pass on main too): a stray row is no new clock, and nothing is reordered."""
    times = [0.0, 1.0, 2.0, 0.5, 3.0, 4.0, 1e300, 5.0, 6.0, 7.0]
    mended, notes = mend_steps(times)
    assert mended == times and notes == []


def test_many_rows_with_one_stamp_are_spread_and_said(tmp_path: Path) -> None:
    """Guard (item 3 of the task, done since session 21): ties spread over one step, with a note."""
    stamps = [EPOCH + k // 5 for k in range(20)]
    t, _, notes = _axis(_csv(tmp_path / "ties.csv", stamps))
    assert t == [k / 5 for k in range(20)]
    assert any("shared a timestamp" in n and "spread evenly" in n for n in notes)


def test_a_garbled_first_stamp_is_no_clock_to_follow() -> None:
    """Guard: ``-1e300`` then a regular log is one garbled row (dropped later), not a clock step."""
    times = [-1e300, *(float(k) for k in range(1, 10))]
    assert mend_steps(times) == (times, [])


def test_a_time_of_day_log_whose_clock_goes_back_an_hour(tmp_path: Path) -> None:
    """DST ending (or NTP) in a log of times of day: before, every row stamped before the last kept
    time was unplaceable and dropped (the whole hour of them)."""
    stamps = [f"01:59:{k:02d}" for k in range(50, 60)] + [f"01:00:{k:02d}" for k in range(20)]
    path = tmp_path / "tod.csv"
    path.write_text(
        "time,temp\n" + "".join(f"{s},{45 + k / 10:.1f}\n" for k, s in enumerate(stamps)), encoding="utf-8"
    )
    t, temps, notes = _axis(path)
    assert t == [float(k) for k in range(30)] and temps[10] == 46.0
    assert any("stepped back by 3599 s" in n for n in notes)


def test_a_vcgencmd_loop_with_date_t_whose_clock_goes_back(tmp_path: Path) -> None:
    """``while :; do date +%T; vcgencmd measure_temp; sleep 1; done`` over DST's end."""
    stamps = [f"02:59:{k:02d}" for k in range(45, 60)] + [f"02:00:{k:02d}" for k in range(15)]
    path = tmp_path / "loop.log"
    path.write_text(
        "".join(f"{s}\ntemp={45 + k / 10:.1f}'C\n" for k, s in enumerate(stamps)), encoding="utf-8"
    )
    log = parse_log(path)
    assert [s.t_s for s in log.samples] == [float(k) for k in range(30)]
    assert any("stepped back by 3599 s" in n for n in log.notes)
