"""Session 15's review of the importers (docs/importing.md, "Reviewed, session 15"): each case
was a wrong value with exit 0, or a readable log refused, before.  Synthetic logs in each tool's
layout with this test's own numbers; every expected value is computed from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thermogov.importers import parse_log
from thermogov.interfaces import LogFormatError

N = 6
SOC_C = [48.3 + k for k in range(N)]


def _f(c: float) -> float:
    return c * 9.0 / 5.0 + 32.0


def _write(tmp_path: Path, text: str, name: str = "log.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def _loop(docs: list[dict[str, object]]) -> str:
    """A `date; sensors -j` loop around ``docs``."""
    return "".join(
        f"Fri Dec  5 10:00:{k:02d} UTC 2026\n{json.dumps(doc, indent=3)}\n" for k, doc in enumerate(docs)
    )


def _pi5(c: float, conv: bool, crit_c: float = 110.0) -> dict[str, object]:
    """A Pi 5's `sensors -j` (cpu_thermal with its crit, rp1_adc without limits); ``conv``: `-f`."""
    u = _f if conv else (lambda x: x)
    return {
        "cpu_thermal-virtual-0": {
            "Adapter": "Virtual device",
            "temp1": {"temp1_input": round(u(c), 3), "temp1_crit": round(u(crit_c), 3)},
        },
        "rp1_adc-isa-0000": {
            "Adapter": "ISA adapter",
            "in1": {"in1_input": 1.48},
            "temp1": {"temp1_input": round(u(c + 7), 3)},
        },
    }


def _nvme(c: float, conv: bool) -> dict[str, object]:
    """An NVMe drive's `sensors -j`: nonsense low/high limits beside a real crit."""
    u = _f if conv else (lambda x: x)
    return {
        "nvme-pci-0100": {
            "Adapter": "PCI adapter",
            "Composite": {
                "temp1_input": round(u(c), 3),
                "temp1_max": round(u(65261.85), 3),
                "temp1_min": round(u(-273.15), 3),
                "temp1_crit": round(u(84.85), 3),
                "temp1_alarm": 0.0,
            },
        }
    }


def test_sensors_j_f_on_a_pi_is_read_as_fahrenheit(tmp_path: Path) -> None:
    """`sensors -j -f` writes °F with no unit: the crit of 230 (110 °C) tells them apart."""
    log = parse_log(_write(tmp_path, _loop([_pi5(c, True) for c in SOC_C])))
    assert [s.temps_c for s in log.samples] == [
        {"cpu": pytest.approx(c, abs=1e-3), "rp1_adc": pytest.approx(c + 7, abs=1e-3)} for c in SOC_C
    ]
    assert any("°F" in n for n in log.notes)


def test_sensors_j_f_on_an_nvme_drive_is_read_as_fahrenheit(tmp_path: Path) -> None:
    log = parse_log(_write(tmp_path, _loop([_nvme(c - 10, True) for c in SOC_C])))
    assert [list(s.temps_c.values()) for s in log.samples] == [
        [pytest.approx(c - 10, abs=1e-3)] for c in SOC_C
    ]


@pytest.mark.parametrize("crit_c", [110.0, 104.5, 98.5])
def test_sensors_j_in_celsius_is_unchanged(tmp_path: Path, crit_c: float) -> None:
    log = parse_log(_write(tmp_path, _loop([_pi5(c, False, crit_c) | _nvme(c - 10, False) for c in SOC_C])))
    assert [s.temps_c["cpu"] for s in log.samples] == [pytest.approx(c) for c in SOC_C]
    assert [s.temps_c["nvme"] for s in log.samples] == [pytest.approx(c - 10) for c in SOC_C]
    assert not any("°F" in n for n in log.notes)


def test_a_log_that_reads_as_both_units_is_refused(tmp_path: Path) -> None:
    """A crit of 230 beside a reading of 45: °F by one, a board at 7 °C by the other."""
    docs = [_pi5(c, False, crit_c=230.0) for c in (45.0,) * N]
    with pytest.raises(LogFormatError) as e:
        parse_log(_write(tmp_path, _loop(docs)))
    msg = str(e.value)
    assert "\n" not in msg and "°F" in msg and "-f" in msg and "temp1_crit" in msg


def _json_350(c: float, bad: str) -> str:
    """An lm-sensors 3.5.0 document: a stray comma, and an NVMe reading printf'd as ``bad``."""
    return (
        '{\n   "cpu_thermal-virtual-0":{\n      "Adapter": "Virtual device",\n'
        f'      "temp1":{{\n         "temp1_input": {c:.3f}\n      }}\n   }},\n'
        '   "nvme-pci-0100":{\n      "Adapter": "PCI adapter",\n      "Composite":{\n,\n'
        f'         "temp1_input": {bad}\n      }}\n   }}\n}}\n'
    )


@pytest.mark.parametrize("bad", ["inf", "-inf"])
def test_lm_sensors_350_bare_infinities_are_repaired(tmp_path: Path, bad: str) -> None:
    """printf's `inf` is as invalid in JSON as its `nan`: every document was dropped, then refused."""
    text = "".join(f"Fri Dec  5 10:00:{k:02d} UTC 2026\n" + _json_350(c, bad) for k, c in enumerate(SOC_C))
    log = parse_log(_write(tmp_path, text))
    assert [s.temps_c["cpu"] for s in log.samples] == [pytest.approx(c) for c in SOC_C]
    assert all(set(s.temps_c) == {"cpu"} for s in log.samples)  # the infinity is no reading


PMIC_A = {"3V3_SYS": 0.12, "VDD_CORE": 0.75, "DDR_VDD2": 0.2}
PMIC_V = {"3V3_SYS": 3.31, "VDD_CORE": 0.72, "DDR_VDD2": 1.1, "EXT5V": 5.09}


def _dump(volts: dict[str, str]) -> str:
    amps = "".join(f"  {r}_A current({i})={a}A\n" for i, (r, a) in enumerate(PMIC_A.items()))
    return amps + "".join(f"  {r}_V volt({i + 8})={v}V\n" for i, (r, v) in enumerate(volts.items()))


@pytest.mark.parametrize(
    "damage",
    [
        {"VDD_CORE": None},  # the line lost (a cut, a garbled line)
        {"VDD_CORE": "nan"},  # not a number: the line is not a reading
        {"VDD_CORE": "-0.72"},  # a supply rail below 0 V
    ],
)
def test_a_pmic_dump_missing_a_rail_gives_no_sum_rather_than_a_smaller_one(
    tmp_path: Path, damage: dict[str, str | None]
) -> None:
    """The sum over the other rails read as a fall in power (1.16 -> 0.62 W) with no note."""
    whole = {r: str(v) for r, v in PMIC_V.items()}
    hurt = {r: v for r, v in {**whole, **damage}.items() if v is not None}
    text = "".join(
        f"Fri Dec  5 10:00:{k:02d} UTC 2026\ntemp={c:.1f}'C\nfrequency(0)=2400023808\nthrottled=0x0\n"
        + _dump(hurt if k == 3 else whole)
        for k, c in enumerate(SOC_C)
    )
    log = parse_log(_write(tmp_path, text))
    watts = sum(PMIC_A[r] * PMIC_V[r] for r in PMIC_A)
    want = [{"PMIC": pytest.approx(watts)}] * N
    want[3] = {}
    assert [s.rails_w for s in log.samples] == want
    assert [s.temps_c["cpu"] for s in log.samples] == [pytest.approx(c) for c in SOC_C]
    assert any("1 pmic_read_adc dump(s) without" in n for n in log.notes)
