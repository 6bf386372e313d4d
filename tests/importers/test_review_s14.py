"""Misreads found by the session-14 review (docs/importing.md, "Reviewed, session 14"): each log
was imported with exit 0 and a wrong value, or a value dropped, before.  Synthetic logs in each
tool's layout with this test's own numbers; every expected value is computed from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thermogov.importers import parse_log
from thermogov.interfaces import LogFormatError

N = 6
SOC_C = [48.3 + k for k in range(N)]
ARM_HZ = 2_400_023_808
# one Pi 5 `vcgencmd pmic_read_adc` dump: currents and voltages paired by rail name
PMIC_AMPS = {"3V3_SYS": 0.12, "VDD_CORE": 0.75}
PMIC_VOLTS = {"3V3_SYS": 3.31, "VDD_CORE": 0.72, "EXT5V": 5.09}


def _write(tmp_path: Path, text: str, name: str = "log.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def _pmic_dump() -> str:
    amps = "".join(f"  {r}_A current({i})={a:.8f}A\n" for i, (r, a) in enumerate(PMIC_AMPS.items()))
    volts = "".join(f"  {r}_V volt({i + 8})={v:.8f}V\n" for i, (r, v) in enumerate(PMIC_VOLTS.items()))
    return amps + volts


def _vc_loop(temps: list[str], *, date: bool = True, pmic: bool = False) -> str:
    out = ""
    for k in range(N):
        out += f"Fri  5 Dec 10:00:{k:02d} GMT 2026\n" if date else ""
        out += "".join(t.format(c=SOC_C[k]) + "\n" for t in temps)
        out += f"frequency(0)={ARM_HZ}\nthrottled=0x0\n"
        out += _pmic_dump() if pmic else ""
    return out


@pytest.mark.parametrize("date", [True, False])
def test_a_vcgencmd_loop_with_pmic_dumps_keeps_its_clock_and_sums_the_paired_rails(
    tmp_path: Path, date: bool
) -> None:
    """The dumps' lines made the loop look like a `Label: value` log, which dropped every clock."""
    log = parse_log(_write(tmp_path, _vc_loop(["temp={c:.1f}'C"], date=date, pmic=True)))
    assert log.fmt == "vcgencmd"
    assert [s.temps_c for s in log.samples] == [{"cpu": pytest.approx(c)} for c in SOC_C]
    assert [s.freqs_hz for s in log.samples] == [{"cpu": ARM_HZ}] * N
    watts = sum(PMIC_AMPS[r] * PMIC_VOLTS[r] for r in PMIC_AMPS if r in PMIC_VOLTS)  # EXT5V has no current
    assert [s.rails_w for s in log.samples] == [{"PMIC": pytest.approx(watts)}] * N
    assert all(s.power_w is None for s in log.samples)


def test_unnamed_temperatures_beside_one_clock_are_refused(tmp_path: Path) -> None:
    """`measure_temp` and `measure_temp pmic` print the same `temp=`: the PMIC's reading was
    stored as every second SoC reading (12 samples of 6 records)."""
    text = _vc_loop(["temp={c:.1f}'C", "temp=40.0'C"])
    with pytest.raises(LogFormatError, match=r"2 temp= readings .* print a name before each"):
        parse_log(_write(tmp_path, text))


def test_named_temperatures_beside_one_clock_are_sensors(tmp_path: Path) -> None:
    log = parse_log(_write(tmp_path, _vc_loop(["cpu temp={c:.1f}'C", "PMIC: temp=40.0'C"])))
    assert [s.temps_c for s in log.samples] == [{"cpu": pytest.approx(c), "pmic": 40.0} for c in SOC_C]
    assert [s.freqs_hz for s in log.samples] == [{"cpu": ARM_HZ}] * N
    assert [s.t_s for s in log.samples] == [float(k) for k in range(N)]


def test_a_loop_of_one_temperature_per_date_is_unchanged(tmp_path: Path) -> None:
    """Several readings between two clock readings, one per stamp, stay samples of one sensor."""
    text = "".join(
        f"10:00:{k:02d}\ntemp={c:.1f}'C\n" + ("frequency(0)=600000000\n" if k % 3 == 2 else "")
        for k, c in enumerate(SOC_C)
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.temps_c for s in log.samples] == [{"cpu": pytest.approx(c)} for c in SOC_C]


@pytest.mark.parametrize("degrees", ["°F", " F"])
def test_lm_sensors_fahrenheit_is_converted(tmp_path: Path, degrees: str) -> None:
    """`sensors -f` prints `+118.9°F`, or `+118.9 F` where the locale has no degree sign (a cron
    job): refused as no recognised log before."""
    text = "".join(
        f"Fri Dec  5 10:00:{k:02d} UTC 2026\ncpu_thermal-virtual-0\nAdapter: Virtual device\n"
        f"temp1:        +{c * 9 / 5 + 32:.2f}{degrees}  (crit = +230.0{degrees})\n\n"
        for k, c in enumerate(SOC_C)
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.temps_c["cpu"] for s in log.samples] == [pytest.approx(c, abs=0.01) for c in SOC_C]
    assert any("°F" in n for n in log.notes)


def _rows(n: int) -> str:
    return "time,temp,freq\n" + "".join(f"10:00:{k:02d},{45.0 + 0.5 * k:.1f},1500\n" for k in range(n))


@pytest.mark.parametrize("tail", ["\n10:00:06,46.5,1500\n", ""])
def test_a_line_cut_by_nuls_at_a_line_or_file_end_is_dropped(tmp_path: Path, tail: str) -> None:
    """`46.0,1` + NULs + newline kept the cut `1` as a 1 MHz clock."""
    text = _rows(4) + "10:00:05,46.0,1" + "\x00" * 4096 + tail
    log = parse_log(_write(tmp_path, text, "log.csv"))
    assert all(s.freqs_hz == {"cpu": 1_500_000_000} for s in log.samples)
    assert len(log.samples) == 4 + (1 if tail else 0)
    assert any("cut off by a run of NULs" in n for n in log.notes)


def test_nuls_after_a_complete_line_cut_nothing(tmp_path: Path) -> None:
    log = parse_log(_write(tmp_path, _rows(4) + "\x00" * 4096, "log.csv"))
    assert len(log.samples) == 4
    assert not any("cut off" in n for n in log.notes)


def test_jtop4_keys_stay_read(tmp_path: Path) -> None:
    """jetson-stats 4 CSV keys with an offline (-256) zone: read as before (guard for the review)."""
    header = "time,CPU1,CPU2,GPU,Temp cpu,Temp cv0,Power VDD_CPU_GPU_CV,Power TOT"
    rows = "".join(
        f"2026-12-05 10:00:{k:02d},{10 + k},{20 + k},5,{c:.1f},-256,600,{5000 + 10 * k}\n"
        for k, c in enumerate(SOC_C)
    )
    log = parse_log(_write(tmp_path, header + "\n" + rows, "log.csv"))
    assert [s.temps_c for s in log.samples] == [{"cpu": pytest.approx(c)} for c in SOC_C]
    assert [s.power_w for s in log.samples] == [pytest.approx(5.0 + 0.01 * k) for k in range(N)]
    assert json.dumps(list(log.notes))  # notes are plain strings


def _sensors_json_350(k: int, nan: bool) -> str:
    """One `date; sensors -j` record as lm-sensors 3.5.0 printed it (invalid JSON)."""
    nvme = ',\n   "nvme-pci-0100":{\n      "Adapter": "PCI adapter",\n      "Composite":{\n         "temp1_input": nan\n      }\n   }'
    return (
        f"Fri Dec  5 10:00:{k:02d} UTC 2026\n"
        '{\n   "cpu_thermal-virtual-0":{\n      "Adapter": "Virtual device",\n'
        f'      "temp1":{{\n         "temp1_input": {SOC_C[k]:.3f}\n      }}\n   }},\n'
        '   "rpi_volt-isa-0000":{\n      "Adapter": "ISA adapter",\n      "in0":{\n,\n'
        '         "in0_lcrit_alarm": 0.000\n      }\n   }' + (nvme if nan else "") + "\n}\n"
    )


@pytest.mark.parametrize("nan", [False, True])
def test_lm_sensors_350_json_is_repaired(tmp_path: Path, nan: bool) -> None:
    """A stray comma and a bare `nan` made every document invalid: refused before."""
    log = parse_log(_write(tmp_path, "".join(_sensors_json_350(k, nan) for k in range(N))))
    assert log.fmt == "sensors-json"
    assert [s.temps_c["cpu"] for s in log.samples] == [pytest.approx(c) for c in SOC_C]
    assert not any("nvme" in s.temps_c for s in log.samples)
    assert any("lm-sensors 3.5.0" in n for n in log.notes)


def test_lm_sensors_raw_u_output_is_read(tmp_path: Path) -> None:
    """`sensors -u` prints `temp1_input: 48.300` with no unit: refused as no recognised log before."""
    text = "".join(
        f"Fri Dec  5 10:00:{k:02d} UTC 2026\ncpu_thermal-virtual-0\nAdapter: Virtual device\ntemp1:\n"
        f"  temp1_input: {c:.3f}\n  temp1_crit: 110.000\n\nrp1_adc-isa-0000\nAdapter: ISA adapter\n"
        f"in1:\n  in1_input: 1.480\ntemp1:\n  temp1_input: {c + 7:.3f}\n\n"
        for k, c in enumerate(SOC_C)
    )
    log = parse_log(_write(tmp_path, text))
    assert [s.temps_c for s in log.samples] == [
        {"cpu": pytest.approx(c), "rp1_adc": pytest.approx(c + 7)} for c in SOC_C
    ]
    assert [s.t_s for s in log.samples] == [float(k) for k in range(N)]
