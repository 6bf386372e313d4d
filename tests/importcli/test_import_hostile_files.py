"""Hostile files through the installed ``thermogov import`` (docs/importing.md, "Formats and
hostile files, session 13"): compressed logs read as the plain log, archives refused naming the
command that unpacks them, NUL bytes from a power cut removed, a line of megabytes dropped
before any reader splits it, non-finite and extreme numbers in every numeric column."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import math
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

ROWS = 30


def _log_text() -> str:
    return "time,temp,freq,load\n" + "".join(
        f"2026-12-04T10:00:{k:02d},{45 + 0.3 * k:.1f},{1500 - 100 * (k % 4)},{20 + k}\n" for k in range(ROWS)
    )


def _samples(path: Path, out: Path) -> tuple[str, dict]:
    """(samples.csv of the imported run, the --json answer)."""
    p = thermogov("import", str(path), "--out", str(out), "--json")
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    return (Path(info["run_dir"]) / "samples.csv").read_text(), info


@pytest.fixture
def plain(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "plain.csv"
    path.write_text(_log_text(), encoding="utf-8")
    return path, _samples(path, tmp_path / "plain-out")[0]


@pytest.mark.parametrize(
    ("suffix", "pack", "name"),
    [(".gz", gzip.compress, "gzip"), (".bz2", bz2.compress, "bzip2"), (".xz", lzma.compress, "xz")],
)
def test_a_compressed_log_imports_as_the_plain_one(
    tmp_path: Path, plain: tuple[Path, str], suffix: str, pack, name: str
) -> None:
    """logrotate gzips old logs; all three were refused as "a binary file"."""
    path = tmp_path / f"log.csv{suffix}"
    path.write_bytes(pack(plain[0].read_bytes()))
    samples, info = _samples(path, tmp_path / "out")
    assert samples == plain[1]
    assert any(n.startswith(f"{name}-compressed") for n in info["notes"])


def test_a_zip_of_one_log_reads_and_of_two_is_refused_naming_them(
    tmp_path: Path, plain: tuple[Path, str]
) -> None:
    one = tmp_path / "one.zip"
    with zipfile.ZipFile(one, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("pi.csv", plain[0].read_text())
    assert _samples(one, tmp_path / "out")[0] == plain[1]
    two = tmp_path / "two.zip"
    with zipfile.ZipFile(two, "w") as z:
        z.writestr("a.csv", plain[0].read_text())
        z.writestr("b.csv", plain[0].read_text())
    line = one_line_error(thermogov("import", str(two), "--out", str(tmp_path / "o2")), "two.zip")
    assert "'a.csv'" in line and "'b.csv'" in line and "unzip" in line
    assert not (tmp_path / "o2").exists()


def test_archives_and_damaged_streams_are_refused_with_the_fix(
    tmp_path: Path, plain: tuple[Path, str]
) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(plain[0], arcname="pi.csv")
    cases = {
        "log.tar": (buf.getvalue(), "tar -xf"),
        "log.tar.gz": (gzip.compress(buf.getvalue()), "tar -xf"),
        "log.zst": (b"\x28\xb5\x2f\xfd" + bytes(range(64)), "zstd -d"),
        "cut.gz": (gzip.compress(plain[0].read_bytes() * 20)[:200], "cut short"),
    }
    for name, (data, needle) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        one_line_error(thermogov("import", str(path), "--out", str(tmp_path / "o")), needle)
        assert not (tmp_path / "o").exists()


def test_decompression_stops_at_the_log_size_bound() -> None:
    """A 1 KB gzip of a gigabyte of zeros must not fill memory (the bound is MAX_LOG_BYTES)."""
    from thermogov.importers.compressed import decompressed
    from thermogov.interfaces import LogFormatError

    bomb = gzip.compress(b"0" * (8 << 20))
    with pytest.raises(LogFormatError, match="larger than 1 MiB once decompressed"):
        decompressed(bomb, "bomb.gz", 1 << 20)
    assert decompressed(bomb, "bomb.gz", 16 << 20)[0] == b"0" * (8 << 20)


def test_nul_bytes_of_a_power_cut_are_removed_and_counted(tmp_path: Path, plain: tuple[Path, str]) -> None:
    """The file's size was committed before its data: the log then ends in NULs (refused as binary)."""
    path = tmp_path / "cut.csv"
    path.write_bytes(plain[0].read_bytes() + b"\0" * 65536)
    samples, info = _samples(path, tmp_path / "out")
    assert samples == plain[1]
    assert any(n.startswith("65536 NUL byte(s) removed") for n in info["notes"])
    only = tmp_path / "nul.log"
    only.write_bytes(b"\0" * 4096)
    one_line_error(thermogov("import", str(only), "--out", str(tmp_path / "o")), "only NUL bytes")


def test_a_line_of_megabytes_is_dropped_before_any_reader_splits_it(
    tmp_path: Path, plain: tuple[Path, str]
) -> None:
    """A 128 KiB field was an internal error of the csv module, and a 50 MB line of numbers took
    2.4 GB of memory; the line is now dropped and said, and a file of nothing else refused."""
    path = tmp_path / "long.csv"
    path.write_text("1," * (1 << 19) + "\n" + plain[0].read_text(), encoding="utf-8")
    samples, info = _samples(path, tmp_path / "out")
    assert samples == plain[1]
    assert any("longer than 64 KiB dropped" in n for n in info["notes"])
    blob = tmp_path / "blob.log"
    blob.write_text("45.2," * (1 << 18), encoding="utf-8")
    one_line_error(
        thermogov("import", str(blob), "--out", str(tmp_path / "o")), "no line shorter than 64 KiB"
    )


def test_a_table_of_100000_columns_is_said_to_be_too_wide_not_binary(tmp_path: Path) -> None:
    """Main (session 25l): "a binary or a file without line ends" for a text table whose every line
    is over 64 KiB: it has line ends, and the fix is to cut its columns."""
    wide = tmp_path / "wide.csv"
    header = ",".join(["t", *(f"temp{i}" for i in range(99_999))])
    rows = [",".join([str(r), *(["45.0"] * 99_999)]) for r in range(3)]
    wide.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    line = one_line_error(thermogov("import", str(wide), "--out", str(tmp_path / "o")), "line 1 is ")
    assert f"line 1 is {len(header)} bytes (about 100000 fields), over the 64 KiB" in line, line
    assert "the other 3 line(s)" in line and "cut -d, -f" in line and "binary" not in line, line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("token", ["1e308", "-1e308", "-0", "nan", "inf", "-inf"])
def test_an_extreme_or_non_finite_number_in_every_column_of_a_row(tmp_path: Path, token: str) -> None:
    lines = _log_text().splitlines()
    k = ROWS // 2
    lines[k + 1] = ",".join([lines[k + 1].split(",")[0], token, token, token])
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, info = _samples(path, tmp_path / "out")
    s = info["summary"]
    assert math.isfinite(s["max_fused_c"]) and -40 <= s["max_fused_c"] <= 150
    assert s["duration_s"] == ROWS - 1
    assert all(math.isfinite(v) for v in _floats(s))


def _floats(value: object) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats(v)]
    if isinstance(value, list):
        return [f for v in value for f in _floats(v)]
    return []
