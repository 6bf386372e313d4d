"""Session 28m: detectors hand over what they found, not a bool.

The table detector's bool made ``parse_log`` pass the table it had read to ``table.parse_text``
through a module-level cache keyed by the text (session 27m).  Now every detector returns what it
found or None: the table detector the :class:`~thermogov.importers.table.Table`, which
``parse_log`` hands to the reader, the others a :class:`~thermogov.importers.common.Mark` naming
their format and the evidence.  Structural (calls, results), not timed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov import importers
from thermogov.importers import table

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "logs"


def _csv(n: int) -> str:
    # five columns: a four-column counter table is rpi-csv's
    return "epoch,temp_c,freq_mhz,cpu_pct,power_w\n" + "".join(
        f"{1764928800 + k},{45 + (k % 200) / 10:.1f},1510,{k % 97},{5 + (k % 700) / 1000:.3f}\n"
        for k in range(n)
    )


_TEGRA = "".join(
    f"12-05-2026 10:00:{k:02d} RAM 2000/7620MB (lfb 2x4MB) SWAP 0/3810MB (cached 0MB) "
    f"CPU [{k}%@1510,5%@1510,off,off] EMC_FREQ 0%@2133 GR3D_FREQ 3%@[305] cpu@45.{k}C "
    "VDD_IN 5000mW/5000mW\n"
    for k in range(6)
)
_VCGENCMD = "".join(f"temp={48 + k}.3'C\nfrequency(48)=1500345728\n" for k in range(4))
_LABELLED = "".join(f"2026-12-05 10:00:0{k} CPU temp: {50 + k}.5\n" for k in range(5))
_RPI_COUNTER = "".join(f"{k},{k % 3}.5,{48 + k % 4}\n" for k in range(1, 8))
_JTOP = "\n".join(
    f"{{'CPU1': 8, 'CPU2': 16, 'GPU': 50, 'Temp CPU': {40 + k}.5, 'power cur': 2604}}" for k in range(3)
)


def _samples() -> list[tuple[str, str]]:
    out = [
        ("csv", _csv(20)),
        ("tegrastats", _TEGRA),
        ("vcgencmd", _VCGENCMD),
        ("labelled", _LABELLED),
        ("rpi-csv", _RPI_COUNTER),
        ("jtop", _JTOP),
    ]
    for name, want in [
        ("tegrastats_agxorin_powergui-style_excerpt.csv", "tegrastats"),
        ("sbcbench_rpi5_8-NK_excerpt.txt", "sbc-bench"),
    ]:
        out.append((want, (LOGS / name).read_text(encoding="utf-8")))
    return out


@pytest.mark.parametrize(("want", "text"), _samples(), ids=lambda v: v if len(v) < 20 else "")
def test_detection_hands_over_what_it_found(want: str, text: str) -> None:
    found = importers.detect(text)
    assert found is not None and found[0] == want
    if want == "csv":
        assert isinstance(found[1], table.Table) and len(found[1].rows) == 20
    else:
        assert isinstance(found[1], importers.Mark)
        assert found[1].fmt == want and found[1].evidence
    assert importers.detect_text(text) == want


@pytest.mark.parametrize(("want", "text"), _samples(), ids=lambda v: v if len(v) < 20 else "")
def test_every_detector_returns_a_payload_of_its_own_format_or_none(want: str, text: str) -> None:
    # each registered detector, on every sample: None, or what it found under its own name (the
    # bool looks_like of each module is what detect returns, not None)
    modules = {
        "sbc-bench": importers.sbcbench,
        "stressberry": importers.stressberry,
        "tegrastats": importers.tegrastats,
        "jtop": importers.jtop,
        "sensors-json": importers.sensorsjson,
        "psensor": importers.psensor,
        "bcmstat": importers.bcmstat,
        "vcgencmd": importers.vcgencmd,
        "labelled": importers.labelled,
        "rpi-csv": importers.rpi_csv,
        "csv": table,
    }
    for name, find in importers._DETECT_ORDER:
        got = find(text)
        assert modules[name].looks_like(text) is (got is not None), name
        if got is None:
            continue
        if name == "csv":
            assert isinstance(got, table.Table)
        else:
            assert isinstance(got, importers.Mark) and got.fmt == name


def test_parse_log_reads_the_table_detection_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.csv"
    path.write_text(_csv(300), encoding="utf-8")
    want = importers.parse_log(path)
    handed: list[table.Table | None] = []
    real = table.parse_text

    def parse_text(text: str, *args: object, **kw: object) -> object:
        handed.append(kw.get("table"))  # type: ignore[arg-type]
        return real(text, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(table, "parse_text", parse_text)
    got = importers.parse_log(path)
    assert len(handed) == 1 and isinstance(handed[0], table.Table), "the detected table was not handed over"
    assert (got.samples, got.notes, got.skipped_lines) == (want.samples, want.notes, want.skipped_lines)


def test_no_module_state_carries_a_table_between_calls() -> None:
    a = _csv(40)
    assert table.looks_like(a) and importers.detect_text(a) == "csv"
    # nothing kept at module level after a detection (session 27m kept the table in `_sniffed`)
    kept = [k for k, v in vars(table).items() if isinstance(v, (table.Table, tuple)) and "sniff" in k]
    assert not kept and not hasattr(table, "forget_sniffed")


def test_columns_with_a_detected_table_read_as_before(tmp_path: Path) -> None:
    # --columns on a detected table: the table found is read with the mapping given
    path = tmp_path / "v.log"
    path.write_text(_csv(30), encoding="utf-8")
    log = importers.parse_log(path, columns="t=epoch,temp=temp_c")
    assert log.fmt == "csv" and len(log.samples) == 30 and log.samples[2].temps_c == {"cpu": 45.2}
