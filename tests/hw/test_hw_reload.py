"""``SIGHUP`` re-reads the config: a good one is applied at a tick, a bad one changes nothing.

One daemon on a hot fake Orin Nano: the hysteresis policy holds the lowest caps; a reload to
``performance`` must raise them (and be a ``reload`` trace event); a config with a bad value
and one changing a key that needs a restart must each be refused with one line, keep the
running policy (caps stay where they are) and be ``reload-rejected`` events.  After all that,
SIGTERM must still put every limit back exactly.
"""

from __future__ import annotations

import csv
import json
import signal
import subprocess
from pathlib import Path

from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths, script, start_run, wait_line
from tests.hw.test_hw_status_live import poll

POLICY0_MAX = "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
LOWEST_KHZ, HIGHEST_KHZ = 729600, 1510400


def _events(run_dir: Path) -> list[str]:
    with (run_dir / "trace.csv").open() as fh:
        return [e for row in csv.DictReader(fh) for e in row["event"].split() if e.startswith("reload")]


def test_sighup_applies_a_good_config_and_keeps_the_old_one_on_errors(tmp_path: Path) -> None:
    tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = tree.snapshot()
    cfg = tmp_path / "hysteresis.toml"  # the file start_run writes and passes as --config
    state = tmp_path / "run" / "state.json"
    proc = start_run(tmp_path, "--state-file", str(state))
    try:
        wait_line(proc, "thermogov: started")
        assert tree.read_int(POLICY0_MAX) == LOWEST_KHZ

        cfg.write_text('[run]\npolicy = "performance"\n')
        proc.send_signal(signal.SIGHUP)
        line = wait_line(proc, "reloaded", stream="stderr")
        assert f"reloaded {cfg}: policy performance" in line
        # The daemon writes as `echo v > attr` does (truncate, write): poll the text, not an int.
        poll(lambda: tree.read(POLICY0_MAX).strip() == str(HIGHEST_KHZ), "the reloaded policy's caps")
        s = poll(lambda: (d := json.loads(state.read_text()))["reloads"] == 1 and d, "reloads in the state")
        assert s["policy"]["name"] == "performance"

        cfg.write_text('[run]\npolicy = "hysteresis"\n[policies.hysteresis]\ntrip_c = nan\n')
        proc.send_signal(signal.SIGHUP)
        line = wait_line(proc, "reload rejected", stream="stderr")
        assert "trip_c" in line and "keeping the running configuration" in line

        cfg.write_text('[run]\npolicy = "hysteresis"\n[governor]\ncontrol_period_ms = 200\n')
        proc.send_signal(signal.SIGHUP)
        line = wait_line(proc, "reload rejected", stream="stderr")
        assert "governor.control_period_ms" in line and "needs a restart" in line
        assert tree.read_int(POLICY0_MAX) == HIGHEST_KHZ  # still the performance policy
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert tree.snapshot() == before  # restore is exact after reloads
    assert not (tmp_path / "state" / "journal.json").exists()
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    assert _events(run_dir) == ["reload", "reload-rejected", "reload-rejected"]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["reloads"] == 1 and summary["reloads_rejected"] == 2


def test_sighup_without_a_config_file_is_refused_and_keeps_governing(tmp_path: Path) -> None:

    tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=60000, gpu_mc=60000)
    before = tree.snapshot()
    proc = subprocess.Popen(
        [*script(), "run", *paths(tmp_path), "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    try:
        wait_line(proc, "thermogov: started")
        proc.send_signal(signal.SIGHUP)
        line = wait_line(proc, "reload rejected", stream="stderr")
        assert "no --config file" in line
        assert proc.poll() is None  # SIGHUP is not a stop
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0
    assert tree.snapshot() == before
