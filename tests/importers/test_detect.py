"""Format detection and the error contract shared by every importer."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.importers import _DETECT_ORDER, FORMATS, detect_format, parse_log
from thermogov.interfaces import LogFormatError

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "logs"


def expected_format(name: str) -> str | None:
    if name.startswith("tegrastats_"):
        return "tegrastats"
    if name.startswith("rpi_") and name.endswith(".csv"):
        return "rpi-csv"
    if name.endswith(".dat"):
        return "stressberry"
    if name.startswith("sbcbench_"):
        return "sbc-bench"
    if name.startswith("jtop_"):
        return "jtop"
    return None  # sysfs dumps, SOURCES.md: not a supported log format


def test_every_listed_format_is_detected_and_every_detected_one_listed() -> None:
    """``FORMATS`` (the names ``--format`` takes and the error lists) and the detection order name
    the same formats, each once: a new importer cannot be detectable but unnamed, or the reverse."""
    detected = [name for name, _ in _DETECT_ORDER]
    assert len(set(FORMATS)) == len(FORMATS) and sorted(FORMATS) == sorted(detected)


def test_every_real_file(real: Path) -> None:
    files = sorted(p for p in real.iterdir() if p.is_file())
    assert len(files) == 51
    seen: dict[str | None, int] = {}
    for path in files:
        want = expected_format(path.name)
        seen[want] = seen.get(want, 0) + 1
        if want is None:
            with pytest.raises(LogFormatError, match="pass --format explicitly or check the file"):
                detect_format(path)
        else:
            assert detect_format(path) == want, path.name
    assert seen == {"tegrastats": 6, "rpi-csv": 3, "stressberry": 9, "sbc-bench": 13, "jtop": 1, None: 19}


def test_detection_reads_content_not_name(tmp_path: Path) -> None:
    for src, want in [
        ("tegrastats_agxorin_powergui-style_excerpt.csv", "tegrastats"),
        ("sbcbench_rpi5_8-NK_excerpt.txt", "sbc-bench"),
        ("sbcbench_xavier-nx_3YWp_excerpt.txt", "sbc-bench"),
    ]:
        renamed = tmp_path / "stats.log"
        renamed.write_bytes((LOGS / src).read_bytes())
        assert detect_format(renamed) == want
        assert parse_log(renamed).fmt == want


def test_detection_of_real_content_under_a_neutral_name(real: Path, tmp_path: Path) -> None:
    for src, want in [
        ("tegrastats_tx2_idle_lightload.log", "tegrastats"),
        ("rpi_4b_stress_cpu4_unitA.csv", "rpi-csv"),
        ("rpi_4b_longterm_cputemp.csv", "rpi-csv"),
        ("rpi_3b_stressberry_naked.dat", "stressberry"),
    ]:
        renamed = tmp_path / "data.txt"  # temporary copy inside the test run only
        renamed.write_bytes((real / src).read_bytes())
        assert detect_format(renamed) == want


def test_errors_are_one_line_and_name_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_text("  \n\n", encoding="utf-8")
    garbage = tmp_path / "garbage.log"
    garbage.write_text("lorem ipsum\ndolor sit amet\n", encoding="utf-8")
    cases = [
        (lambda: detect_format(empty), f"{empty}: file is empty; check the file or pass another log"),
        (
            lambda: parse_log(tmp_path / "missing.log"),
            f"{tmp_path / 'missing.log'}: cannot read (No such file or directory); "
            "check the path and permissions",
        ),
        (
            lambda: parse_log(tmp_path),
            f"{tmp_path}: is a directory, not a log file; pass the log file itself",
        ),
        (
            lambda: parse_log(garbage),
            f"{garbage}: not a recognised log (tegrastats, rpi-csv, stressberry, sbc-bench, jtop, vcgencmd, "
            "bcmstat, labelled, sensors-json, psensor, csv); pass --format explicitly or check the file",
        ),
        (
            lambda: parse_log(garbage, fmt="xml"),
            f"{garbage}: unknown format 'xml'; use one of auto, tegrastats, rpi-csv, stressberry, sbc-bench, "
            "jtop, vcgencmd, bcmstat, labelled, sensors-json, psensor, csv",
        ),
        (
            lambda: parse_log(garbage, fmt="sbc-bench"),
            f"{garbage}: no sbc-bench 'System health while running' lines found; "
            "pass --format explicitly or check the file",
        ),
    ]
    for call, message in cases:
        with pytest.raises(LogFormatError) as exc:
            call()
        assert str(exc.value) == message and "\n" not in str(exc.value)


def test_undecodable_bytes_do_not_abort(tmp_path: Path) -> None:
    lines = (LOGS / "sbcbench_rock5b_4qJG_excerpt.txt").read_bytes().splitlines(keepends=True)
    lines[6] = b"18:17:\xff\xfe8: garbage\n"  # one corrupted monitor line
    path = tmp_path / "corrupt.txt"
    path.write_bytes(b"".join(lines))
    log = parse_log(path)
    assert (len(log.samples), log.skipped_lines) == (6, 1)
