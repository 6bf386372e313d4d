"""``SIGHUP`` re-reads the config: a good one is applied at a tick, a bad one changes nothing.

One daemon on a hot fake Orin Nano: the hysteresis policy holds the lowest caps; a reload to
``performance`` must raise them (and be a ``reload`` trace event); a config with a bad value
and one changing a key that needs a restart must each be refused with one line, keep the
running policy (caps stay where they are) and be ``reload-rejected`` events.  After all that,
SIGTERM must still put every limit back exactly.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import signal
import subprocess
from pathlib import Path
from types import SimpleNamespace

from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths, script, start_run, wait_line
from tests.hw.test_hw_notify import _messages as notify_messages
from tests.hw.test_hw_notify import _start as notify_start
from tests.hw.test_hw_notify import fake_systemd  # noqa: F401  (the fixture)
from tests.hw.test_hw_status_live import poll
from thermogov.board import load_board
from thermogov.config import Config, SensorOverride, SimConfig, parse_config
from thermogov.hw.reload import RELOAD, Reloader, ReloadTarget, restart_key
from thermogov.policies import PolicyContext, configured_policy
from thermogov.powerconfig import PowerConfig

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


def test_only_decision_keys_may_change_without_a_restart() -> None:
    old = Config()
    assert restart_key(old, dataclasses.replace(old, policy="hysteresis")) is None
    assert restart_key(old, dataclasses.replace(old, policies={"stepped": {"trip_c": 80.0}})) is None
    assert restart_key(old, dataclasses.replace(old, power=PowerConfig(discharging_w=8.0))) is None
    assert (
        restart_key(old, dataclasses.replace(old, sim=SimConfig(duration_s=5.0))) is None
    )  # ignored on a board
    assert restart_key(old, dataclasses.replace(old, board="rpi5")) == "run.board"
    assert restart_key(old, dataclasses.replace(old, out="elsewhere")) == "run.out"
    changed = dataclasses.replace(old, sensors={"cpu": SensorOverride(weight=2.0)})
    assert restart_key(old, changed) == "sensors.cpu.enabled"  # a new [sensors.cpu] table


def test_the_load_governors_sections_need_a_restart() -> None:
    """[modes]/[lever] are fixed at start-up: the idle-injection journal, the load governor and
    the trace's mode/load_level were built from them, so a SIGHUP must refuse a change."""
    old = parse_config({})
    assert restart_key(old, parse_config({"lever": {"enabled": True}})) == "lever.enabled"
    changed = parse_config({"modes": {"enabled": not old.modes.enabled}})
    assert restart_key(old, changed) == "modes.enabled"
    both = parse_config({"policies": {"stepped": {"trip_c": 80.0}}, "lever": {"up_dwell_s": 99.0}})
    assert restart_key(old, both) == "lever.up_dwell_s"


def test_an_unchanged_policy_keeps_its_state_and_a_new_one_starts_fresh() -> None:
    board = load_board("jetson-orin-nano")
    tables = {d.name: tuple(d.opp_hz) for d in board.domains}
    ctx = PolicyContext(board=board, tables_hz=tables, control_period_s=0.1, sensor_names=("cpu",), extra={})
    running = Config(policy="hysteresis")
    nxt = {"cfg": running}

    gov = SimpleNamespace(policy=configured_policy("hysteresis", {}, ctx), limiters=[])
    first = gov.policy
    logs: list[str] = []
    r = Reloader(lambda: nxt["cfg"], running, ReloadTarget(board, ctx, tables), logs.append, "t.toml")
    assert r.apply(gov) == RELOAD and gov.policy is first  # same policy, same parameters
    nxt["cfg"] = dataclasses.replace(running, policies={"hysteresis": {"trip_c": 80.0}})
    assert r.apply(gov) == RELOAD and gov.policy is not first
    assert r.count == 2 and logs[-1] == "reloaded t.toml: policy hysteresis"


def test_a_burst_of_sighups_neither_stops_nor_hurries_the_loop(tmp_path: Path) -> None:
    """A SIGHUP wakes the daemon's wait; the wait must resume, not run the next instant early.

    Control instants are every 100 ms from the start, so in a run that kept its schedule no two
    trace rows fall into the same 100 ms slot; an instant run early would share its slot with
    the one before it.
    """
    tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=60000, gpu_mc=60000)
    before = tree.snapshot()
    proc = start_run(tmp_path)
    try:
        wait_line(proc, "thermogov: started")
        for _ in range(40):
            proc.send_signal(signal.SIGHUP)
        wait_line(proc, "reloaded", stream="stderr")
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert tree.snapshot() == before
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    with (run_dir / "trace.csv").open() as fh:
        t = [float(r["t_s"]) for r in csv.DictReader(fh)]
    if "fell" in err.decode():  # a stalled machine re-planned the schedule: slots moved
        return
    slots = [int(x / 0.1 + 1e-6) for x in t]
    assert len(slots) == len(set(slots)), "an instant ran before its deadline"
    assert "reload" in " ".join(_events(run_dir))


def test_systemd_status_says_whether_the_reload_took(tmp_path: Path, fake_systemd) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    sock, path = fake_systemd
    proc = notify_start(tmp_path, path)
    try:
        notify_messages(sock, "READY=1")
        (tmp_path / "hysteresis.toml").write_text('[run]\npolicy = "performance"\n')
        proc.send_signal(signal.SIGHUP)
        took = notify_messages(sock, "STATUS=")[-1]
        assert took == f"STATUS=reloaded {tmp_path / 'hysteresis.toml'}: policy performance"
        (tmp_path / "hysteresis.toml").write_text("[run]\npolicy = 3\n")
        proc.send_signal(signal.SIGHUP)
        refused = notify_messages(sock, "STATUS=")[-1]
        assert refused.startswith("STATUS=reload rejected:") and "run.policy" in refused
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0
