"""Session 31w: formats seen in the wild, each written small from its public description and
damaged by ``tests/importers/hostile.py`` (issue 10: never misread silently).

The samples are this file's own numbers in each format's layout, as its documentation or source
describes it (read, not copied):

* ``sensors -j`` in a ``date; sensors -j`` loop: lm-sensors ``sensors(1)`` (``-j``), the values
  under hwmon's subfeature names (Linux ``Documentation/hwmon/sysfs-interface.rst``);
* psensor's ``~/.psensor/sensors.log``: chinf/psensor ``src/lib/slog.c`` (``I``/``S`` lines, rows
  of ``%.1f`` cells left empty while a value does not change);
* ``bcmstat.sh``'s table: MilhouseVH/bcmstat (its header and ``Mhz``/``C (Max)`` cells);
* jtop's CSV (a ``csv.DictWriter`` of ``jetson.stats``, jetson-stats ``examples/jtop_logger.py``)
  and its dict-per-line ``stats.log`` (the ``repr`` of the same dict);
* ``armbianmonitor -m`` / ``sbc-bench -m`` captured alone, the header repeated every 15 lines
  (ThomasKaiser/sbc-bench ``MonitorBoard``);
* stressberry's ``.dat`` with an ``ambient`` list (nschloe/stressberry ``cli/run.py``).

Each hostile variant of each sample reads to the clean values or is refused in one line.  The
misreads found (jtop CSV) are tested alone below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.importers.hostile import VARIANTS
from tests.importers.test_wild_s29 import _cli
from tests.importers.test_wild_s30 import _check
from thermogov.importers import parse_log
from thermogov.interfaces import LogFormatError

N = 40


def _t(i: int) -> float:
    return 45 + 0.25 * i + (0.5 if i % 7 == 3 else 0.0)


def _hms(i: int) -> str:
    return f"12:{i // 60:02d}:{i % 60:02d}"


def _sensors_j() -> list[str]:
    out = []
    for i in range(N):
        out.append(f"Mon Dec  7 {_hms(i * 2)} UTC 2026")
        doc = {
            "cpu_thermal-virtual-0": {"Adapter": "Virtual device", "temp1": {"temp1_input": round(_t(i), 3)}},
            "rp1_adc-isa-0000": {
                "Adapter": "ISA adapter",
                "in1": {"in1_input": 1.48},
                "temp1": {"temp1_input": round(_t(i) - 3.1, 3), "temp1_crit": 110.0},
            },
        }
        out.append(json.dumps(doc, indent=3))
    return out


def _psensor() -> list[str]:
    rows = ["I,1764842400,1.2.1", "S,lmsensor cpu_thermal-virtual-0 temp1,8101", "S,gtop2 cpu usage,8004"]
    prev: list[str] | None = None
    for i in range(N):
        cells = [f"{_t(i):.1f}", f"{20.0 + 10 * (i % 3):.1f}"]
        shown = [c if prev is None or c != p else "" for c, p in zip(cells, prev or cells, strict=True)]
        prev = cells
        rows.append(f"{2 * i}," + ",".join(shown))
    return rows


def _bcmstat() -> list[str]:
    return [
        '  Config: v0.5.5, args "", priority lowest (+19)',
        "",
        "Time         ARM    Core    H264 Core Temp (Max)  IRQ/s      RX B/s      TX B/s",
        "======== ======= ======= ======= =============== ====== ========== ==========",
        *(
            f"{_hms(i * 2)} {1500 if i % 5 else 600:>4}Mhz  500Mhz    0Mhz   {_t(i):.2f}C ({_t(i) + 1:.2f}C)"
            "   1234      12345      6789"
            for i in range(N)
        ),
    ]


_JTOP_KEYS = (
    "time,uptime,CPU1,CPU2,CPU3,CPU4,GPU,RAM,EMC,SWAP,fan,Temp AO,Temp CPU,Temp GPU,Temp PLL,Temp thermal"
)


def _jtop_csv(power: str = "power cur,power avg", step_s: int = 1) -> list[str]:
    return [f"{_JTOP_KEYS},{power},jetson_clocks,nvp model"] + [
        f"2026-12-07 {_hms(i * step_s)}.123456,0:00:{i % 60:02d}.5,{(i * 13) % 100},{(i * 7) % 100},10,5,"
        f"{(i * 3) % 100},2845208,2845208,5,0.0,{_t(i) + 6:.2f},{_t(i):.1f},{_t(i) - 2:.1f},"
        f"{_t(i) - 3:.1f},{_t(i) - 1:.2f},{2600 + 10 * i},2580,OFF,MAXN"
        for i in range(N)
    ]


def _jtop_stats() -> list[str]:
    return [
        str(
            {
                "time": f"2026-12-07 {_hms(i)}",
                "CPU1": (i * 13) % 100,
                "CPU2": 10,
                "GPU": (i * 3) % 100,
                "Temp CPU": round(_t(i), 1),
                "Temp GPU": round(_t(i) - 2, 1),
                "power cur": 2600 + 10 * i,
            }
        )
        for i in range(N)
    ]


def _armbianmonitor() -> list[str]:
    rows = []
    for i in range(N):
        if i % 15 == 0:
            rows.append("Time       big.LITTLE   load %cpu %sys %usr %nice %io %irq   Temp")
        rows.append(
            f"{_hms(i * 5)}: 2400/1800MHz  {1 + i / 100:.2f}  {(i * 13) % 100:>3}%   0%  10%   0%   0%   0%  "
            f"{_t(i):.1f}°C"
        )
    return rows


def _stressberry() -> list[str]:
    return [
        "# This file was created by stressberry v0.3.3 on 2026-12-07 12:00:00.000000",
        "name: ice tower",
        "ambient: [" + ", ".join(f"{20.5 + 0.1 * (i % 3):.1f}" for i in range(N)) + "]",
        "temperature: [" + ", ".join(f"{_t(i):.1f}" for i in range(N)) + "]",
        "time: [" + ", ".join(f"{10.0 * i + 0.05:.3f}" for i in range(N)) + "]",
        "cpu frequency: [" + ", ".join(f"{1500.0 if i % 4 else 600.0:.1f}" for i in range(N)) + "]",
    ]


SAMPLES = {
    "sensors-j.log": (_sensors_j, "sensors-json"),
    "psensor.log": (_psensor, "psensor"),
    "bcmstat.log": (_bcmstat, "bcmstat"),
    "jtop.csv": (_jtop_csv, "jtop"),
    "jtop-stats.log": (_jtop_stats, "jtop"),
    "armbianmonitor.log": (_armbianmonitor, "sbc-bench"),
    "stressberry.dat": (_stressberry, "stressberry"),
}


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines))
    return path


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_hostile_variant_of_a_wild_sample_is_read_right_or_refused(tmp_path: Path, name: str) -> None:
    make, fmt = SAMPLES[name]
    clean = _write(tmp_path / name, make())
    log = parse_log(clean)
    assert log.fmt == fmt and len(log.samples) == N
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([_t(i) for i in range(N)], abs=0.06)
    wrong = [why for v in VARIANTS if (why := _check(clean, tmp_path, v)) is not None]
    assert not wrong, wrong


def test_a_jtop_csv_row_of_another_width_is_skipped_not_read_under_the_wrong_keys(tmp_path: Path) -> None:
    # a power loss cut row 20 after its CPU cells (the rest of the line follows on its own line):
    # read by key its `57,2845208,...` put a temperature into the GPU load, and its time (no
    # stamp) put every record on an assumed 1 s axis where they are 2 s apart
    lines = _jtop_csv(step_s=2)
    cut = lines[20].split(",")
    lines[20:21] = [",".join(cut[:6]), ",".join(cut[7:])]
    log = parse_log(_write(tmp_path / "cut.csv", lines))
    assert [s.t_s for s in log.samples] == [2.0 * i for i in range(N) if i != 19]
    assert log.skipped_lines == 2
    assert max(s.loads["gpu"] for s in log.samples) == pytest.approx(
        max((i * 3) % 100 for i in range(N)) / 100
    )


def test_a_jtop_running_average_is_no_rail_in_either_case(tmp_path: Path) -> None:
    # `Power cur,Power avg` (a script's capitals): the average was a rail `avg` and the board's
    # power the sum of both, twice the reading
    log = parse_log(_write(tmp_path / "p.csv", _jtop_csv(power="Power cur,Power avg")))
    assert [s.power_w for s in log.samples] == pytest.approx([2.6 + 0.01 * i for i in range(N)])
    assert all(not s.rails_w for s in log.samples)


def test_a_jtop_csv_resaved_with_semicolons_and_decimal_commas_is_read(tmp_path: Path) -> None:
    # a spreadsheet under a German locale: `;` between fields, `55,50` (refused before as a
    # generic table whose EMC column fit no load unit)
    lines = [ln.replace(",", ";") for ln in _jtop_csv()]
    lines = [lines[0], *(ln.replace(".", ",") for ln in lines[1:])]
    log = parse_log(_write(tmp_path / "de.csv", lines))
    assert log.fmt == "jtop" and len(log.samples) == N
    assert [s.temps_c["ao"] for s in log.samples] == pytest.approx([_t(i) + 6 for i in range(N)], abs=0.006)
    assert [s.t_s for s in log.samples] == [float(i) for i in range(N)]


def test_a_psensor_log_with_decimal_commas_is_refused_in_one_line(tmp_path: Path) -> None:
    # psensor's `%.1f` under a locale with decimal commas: `2,45,2,30,0` -- each value adds a
    # cell and an unchanged one (left empty) none, so the cells cannot be told apart
    lines = [ln if ln[0] in "IS" else ln.replace(".", ",") for ln in _psensor()]
    path = _write(tmp_path / "sensors.log", lines)
    with pytest.raises(LogFormatError, match=r"line 4: 4 cells where its session declares 2 sensor\(s\)"):
        parse_log(path)
    r = _cli(path, tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "decimal commas" in r.stderr
