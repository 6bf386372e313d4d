"""The state file holds valid UTF-8 and no lone surrogate, whatever names it carries (session 21).

A name that is not UTF-8 (here the ``--out`` folder, ``b"out\\xff"``, which Python holds as the
lone surrogate U+DCFF) was written to the state file as ``"\\udcff"``: a lone surrogate that
strict JSON readers (serde_json, pydantic 2) refuse, while ``thermogov status`` printed it as
``\\xff``.  Now the file holds the text ``\\xff`` as every printed line does, and a state an
older daemon wrote is read the same way: by the application's client, ``status``, ``--json``
and ``--watch`` (which also printed the raw byte and a name's escape sequence).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.hw import fakesys, procutil
from thermogov.client import current


def _strings(v: Any) -> list[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, dict):
        return [s for k, x in v.items() for s in (*_strings(k), *_strings(x))]
    if isinstance(v, list):
        return [s for x in v for s in _strings(x)]
    return []


def _strict(data: bytes) -> dict[str, Any]:
    """The document as a strict reader takes it: UTF-8, and no string a UTF-8 text cannot hold."""
    doc = json.loads(data.decode("utf-8"))
    for s in _strings(doc):
        s.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError
    return doc


def _published(state: Path) -> bytes:
    deadline = time.monotonic() + procutil.DEADLINE_S
    while time.monotonic() < deadline:
        if state.exists():
            return state.read_bytes()  # replaced atomically: whole
        select.select([], [], [], 0.02)  # yield between polls; the condition decides, not the time
    raise AssertionError("no state published")


def test_the_state_file_of_a_run_whose_out_folder_is_not_utf8_is_strict_json(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    state = tmp_path / "run" / "state.json"
    out = os.fsencode(tmp_path) + b"/out\xff"
    cfg = tmp_path / "hysteresis.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp_path), "--out", os.fsdecode(out), "--config", str(cfg)]
    proc = subprocess.Popen(
        [*procutil.script(), "run", *args, "--duration", "120s", "--state-file", str(state)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    try:
        line = procutil.wait_line(proc, "thermogov: started")  # before: the raw byte, not UTF-8
        assert "/out\\xff/" in line
        data = _published(state)
        doc = _strict(data)  # before: "\udcff" in run_dir
        assert doc["run_dir"].startswith(f"{tmp_path}/out\\xff/")
        assert b"\\ud" not in data
        r = procutil.status_cli("--json", "--state", str(state))  # asked again while only aged (30i)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["run_dir"] == doc["run_dir"], "the file and --json say the same"
    finally:
        # Before: exit 1, "internal error: UnicodeEncodeError" from the run ledger's row, after
        # the restore.  The ledger names the folder as printed.
        procutil.stopped(proc)
    ledger = (Path(os.fsdecode(out)) / "runs.csv").read_bytes().decode("utf-8")
    assert doc["run_dir"] in ledger


def _old_state(path: Path) -> None:
    """A state as a daemon before session 21 wrote it: ``json.dumps`` of a surrogate-holding name."""
    now = time.time()
    doc = {
        "schema": 1,
        "pid": os.getpid(),
        "time_unix": now,
        "started_unix": now - 10,
        "uptime_s": 10.0,
        "board": "rpi5",
        "dry_run": False,
        "run_dir": "/var/lib/thermogov/out\udcff/run",
        "policy": {"name": "stepped", "state": "HIGH"},
        "temperature_c": {"fused": 55.0, "sensors": {"cpu\udcfe\x1b[2J": 55.0}, "used": "cpu"},
        "domains": {"cpu": {"cap_hz": 2400000000, "frequency_hz": 2400000000}},
        "mode": None,
        "load_level": None,
        "power": {"power_w": None, "state": "mains", "capacity_pct": None, "battery_temp_c": None},
        "throughput": {"inferences_total": None, "rate_ips": None, "source": "none"},
        "throttle": {},
        "reloads": 0,
        "fan": None,
    }
    path.write_text(json.dumps(doc))
    assert "\\udcff" in path.read_text()


def test_an_older_state_with_lone_surrogates_is_read_as_the_daemon_writes_it_now(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    _old_state(state)
    s = current(state)  # before: the application got "\udcff" (its print or encode raised)
    assert s.raw["run_dir"] == "/var/lib/thermogov/out\\xff/run"
    assert list(s.sensors_c) == ["cpu\\xfe\x1b[2J"]
    for text in _strings(dict(s.raw)):
        text.encode("utf-8")
    plain = procutil.status_cli("--state", str(state), refresh=lambda: procutil.restamp(state))
    assert plain.returncode == 0 and "cpu\\xfe\\x1b[2J 55.0" in plain.stdout
    as_json = procutil.run_cli("status", "--json", "--state", str(state))
    assert json.loads(as_json.stdout)["run_dir"] == "/var/lib/thermogov/out\\xff/run"


def test_the_watch_draws_a_name_as_the_plain_view_prints_it(tmp_path: Path) -> None:
    # Before: the frame held the raw byte 0xfe (not UTF-8) and ran the name's ESC [2J.
    state = tmp_path / "state.json"
    _old_state(state)
    env = {**os.environ, "FORCE_COLOR": "1", "TERM": "xterm", "COLUMNS": "120"}
    view = subprocess.Popen(
        [*procutil.script(), "status", "--watch", "--state", str(state)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,
    )
    line = procutil.wait_line(view, "temperature:")  # decodes as UTF-8, or fails here
    view.kill()
    view.communicate(timeout=procutil.DEADLINE_S)
    assert "cpu\\xfe\\x1b[2J 55.0" in line
