"""Hostile round, session 25 (docs/hardware.md and docs/importing.md, "Session 25h"): session 24-25's
new inputs, through the installed script.

``thermogov status`` reads a file root writes and any user reads: a string, list or object where a
temperature, clock or rate goes, a pid of 10**30, an ``Infinity`` cap or a ``since_unix`` of 1e308
ended in "internal error" (a format code, ``os.kill`` or ``gmtime`` overflowing), and a document
nested 500 deep in RecursionError under ``--json``.  Each is now one line naming the field, exit 2;
a date that cannot be shown is left out of the waiting line.
"""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.hw.procutil import restamp, status_cli
from tests.hw.test_hw_statefile import doc


def _state(**waiting: object) -> dict[str, Any]:
    d = doc(waiting=waiting or None)
    d["pid"] = os.getpid()  # alive: the view's verdict is the document's, not staleness
    d["time_unix"] = time.time()
    d["throughput"] = {"inferences_total": 5, "rate_ips": 1.5, "source": "workload"}
    return d


def _with(d: dict[str, Any], where: tuple[str, ...], value: object) -> dict[str, Any]:
    d = copy.deepcopy(d)
    cur = d
    for k in where[:-1]:
        cur = cur[k]
    cur[where[-1]] = value
    return d


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        (("temperature_c", "fused"), "hot", "temperature_c.fused is 'hot', not a finite number"),
        (("temperature_c", "sensors", "cpu"), [61], "temperature_c.sensors.cpu is [61]"),
        (("domains", "cpu", "frequency_hz"), {"a": 1}, "domains.cpu.frequency_hz is {'a': 1}"),
        (("domains", "cpu", "cap_hz"), float("inf"), "domains.cpu.cap_hz is inf"),
        # (rev25's 9c1ce55 words this one its own way: the needle is the value)
        (("pid",), 10**30, "1000000000000000000000000000000"),
        (("reloads",), float("-inf"), "reloads is -inf"),
        (("power", "power_w"), "12", "power.power_w is '12'"),
        (("throughput", "rate_ips"), ["x"], "throughput.rate_ips is ['x']"),
    ],
)
def test_a_state_field_of_the_wrong_type_is_one_line_naming_it(
    tmp_path: Path, where: tuple[str, ...], value: object, said: str, as_json: bool
) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(_with(_state(), where, value)))
    p = thermogov("status", "--state", str(state), *(["--json"] if as_json else []), timeout=60)
    one_line_error(p, said)
    assert p.stdout == ""


def test_a_waiting_date_past_the_calendar_is_left_out(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    gpu = {"looked_for": "gpu-thermal", "waited_s": 3.0, "since_unix": 1e308}
    state.write_text(json.dumps(_state(gpu=gpu)))
    p = status_cli("--state", str(state), refresh=lambda: restamp(state))  # a slow start: not stale
    assert p.returncode == 0, p.stderr
    assert "waiting for gpu (gpu-thermal) for 3 s\n" in p.stdout


@pytest.mark.parametrize("as_json", [False, True])
def test_a_deeply_nested_state_is_refused_in_one_line(tmp_path: Path, as_json: bool) -> None:
    state = tmp_path / "state.json"
    d = _state()
    d["extra"] = "@"
    state.write_text(json.dumps(d).replace('"@"', "[" * 500 + "]" * 500))
    p = thermogov("status", "--state", str(state), *(["--json"] if as_json else []), timeout=60)
    one_line_error(p, "nested more than 32 levels")


@pytest.mark.parametrize("header", ["t,temp,temp,freq", "t,Temp,temp ,freq"])
def test_a_header_naming_a_column_twice_is_refused(tmp_path: Path, header: str) -> None:
    """Both columns went into one sensor and the second's values were kept silently (main
    reported a maximum of 51 °C from a first column reading 50 °C throughout)."""
    log = tmp_path / "log.csv"
    log.write_text(header + "\n" + "".join(f"{k},50.0,51.0,1000\n" for k in range(20)))
    p = thermogov("import", str(log), "--out", str(tmp_path / "o"), timeout=120)
    one_line_error(p, "the header names two columns")
    assert "columns 2 and 3" in p.stderr and "--columns" in p.stderr
    assert not (tmp_path / "o").exists()


def test_a_header_naming_a_column_twice_imports_with_columns(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text("t,temp,temp,freq\n" + "".join(f"{k},50.0,51.0,1000\n" for k in range(20)))
    p = thermogov(
        "import",
        str(log),
        "--columns",
        "t=1,temp=2,freq=4",
        "--out",
        str(tmp_path / "o"),
        "--json",
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["summary"]["max_sensor_c"] == {"cpu": 50.0}


@pytest.mark.parametrize(
    ("columns", "said"),
    [
        ("t=1,temp.\x1b[31m=2", "'\\x1b[31m' after temp. is not a name"),
        ("t=1,temp=2,rail." + "A" * 100_000 + "=3", "(+99960 characters) after rail. is not a name"),
        ("t=1,temp=2:" + "k" * 100_000, "unit 'kkkk"),
    ],
)
def test_a_columns_name_or_unit_that_is_no_name_is_one_short_line(
    tmp_path: Path, columns: str, said: str
) -> None:
    """Main took an escape sequence or a 100 000-character rail name as a sensor's name (into the
    run folder as given) and echoed a 100 000-character unit whole."""
    log = tmp_path / "log.csv"
    log.write_text("t,temp,freq\n" + "".join(f"{k},50.0,1000\n" for k in range(20)))
    p = thermogov("import", str(log), "--columns", columns, "--out", str(tmp_path / "o"), timeout=120)
    line = one_line_error(p, said)
    assert len(line) < 400
    assert not (tmp_path / "o").exists()


def test_a_5000_digit_number_in_the_state_is_named_without_python_s_hint(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(_state()).replace('"reloads": 0', '"reloads": ' + "9" * 5000))
    p = thermogov("status", "--state", str(state), timeout=60)
    line = one_line_error(p, "not JSON (a number of more than 4300 digits)")
    assert "set_int_max_str_digits" not in line
