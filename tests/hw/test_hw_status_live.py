"""``thermogov status`` and the Prometheus metrics against a live daemon on a fake board.

The daemon runs as a real process through the installed script; the tests wait on its
``started`` line and then poll for what it publishes under a deadline (no fixed sleeps).
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths, run_cli, script, start_run, status_cli, wait_line

POLICY0_MAX = "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"


def poll(check, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        select.select([], [], [], 0.02)  # yield between polls; the condition decides, not the time
    raise AssertionError(f"timed out waiting for {what}")


def _state(path: Path) -> dict[str, object] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _metrics(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


@pytest.fixture
def hot(tmp_path: Path) -> fakesys.FakeTree:
    return fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)


def test_status_of_a_live_daemon_then_of_none(tmp_path: Path, hot: fakesys.FakeTree) -> None:
    state = tmp_path / "run" / "state.json"
    proc = start_run(tmp_path, "--state-file", str(state))
    try:
        line = wait_line(proc, "thermogov: started")
        assert f"state={state}" in line
        poll(lambda: _state(state), "the state file")
        r = status_cli("--state", str(state))  # a loaded machine: asked again while only aged
        assert r.returncode == 0, r.stderr
        assert "governing" in r.stdout and "jetson-orin-nano" in r.stdout
        assert "domain cpu: cap 730 MHz" in r.stdout  # hot: hysteresis holds the lowest cap
        r = status_cli("--json", "--state", str(state))
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        assert doc["stale"] is None and doc["pid"] == proc.pid and doc["policy"]["name"] == "hysteresis"
        assert doc["domains"]["cpu"]["cap_hz"] == 729_600_000
        assert doc["temperature_c"]["sensors"]["cpu"] == 90.0
        assert doc["throughput"]["inferences_total"] is None  # nothing reported: not measured
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0
    assert not state.exists()  # a clean stop removes it: no daemon state
    r = run_cli("status", "--state", str(state))
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "no thermogov state" in r.stderr


def test_a_killed_daemon_leaves_a_state_said_to_be_stale(tmp_path: Path, hot: fakesys.FakeTree) -> None:
    state = tmp_path / "run" / "state.json"
    proc = start_run(tmp_path, "--state-file", str(state))
    wait_line(proc, "thermogov: started")
    poll(lambda: _state(state), "the state file")
    proc.kill()
    proc.communicate(timeout=DEADLINE_S)
    r = run_cli("status", "--state", str(state))
    assert r.returncode == 1
    assert r.stdout.startswith(f"STALE: daemon pid {proc.pid} is not running")
    assert run_cli("restore", *paths(tmp_path)).returncode == 0


def test_the_application_counter_reaches_state_trace_and_summary(
    tmp_path: Path, hot: fakesys.FakeTree
) -> None:
    from thermogov import client

    state, counter = tmp_path / "run" / "state.json", tmp_path / "run" / "inferences"
    proc = start_run(tmp_path, "--state-file", str(state), "--inferences-file", str(counter))
    try:
        wait_line(proc, "thermogov: started")
        assert counter.exists()  # made by the daemon for the application
        for _ in range(5):
            client.report_inferences(10, counter)
        s = poll(
            lambda: (x := _state(state)) and x["throughput"]["inferences_total"] == 50 and x,  # type: ignore[index]
            "the reported inferences in the state",
        )
        assert s["throughput"]["source"] == f"file:{counter}"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["inferences_total"] == 50


def test_metrics_are_served_and_written_in_the_exposition_format(
    tmp_path: Path, hot: fakesys.FakeTree
) -> None:
    prom = tmp_path / "textfile" / "thermogov.prom"
    prom.parent.mkdir()
    proc = start_run(tmp_path, "--metrics-port", "0", "--metrics-textfile", str(prom))
    try:
        line = wait_line(proc, "thermogov: started")
        m = re.search(r"metrics=(http://\S+)", line)
        assert m, line
        scraped = _metrics(urllib.request.urlopen(m.group(1), timeout=DEADLINE_S).read().decode())
        written = _metrics(poll(lambda: prom.exists() and prom.read_text(), "the textfile"))
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    for got in (scraped, written):
        assert got[("thermogov_up", ())] == 1.0
        assert got[("thermogov_temperature_celsius", (("sensor", "cpu"),))] == 90.0
        assert got[("thermogov_cap_hertz", (("domain", "cpu"),))] == 729_600_000
        assert got[("thermogov_cap_hertz", (("domain", "gpu"),))] == 306_000_000
        assert ("thermogov_frequency_hertz", (("domain", "cpu"),)) in got
        assert ("thermogov_fused_temperature_celsius", ()) in got
        assert ("thermogov_power_watts", ()) in got  # the INA3221 rail of the fake Orin Nano
        assert got[("thermogov_reloads_total", ())] == 0.0
    assert _metrics(prom.read_text()) == {("thermogov_up", ()): 0.0}  # stopped: said so, no stale values


def test_bad_metrics_options_exit_2_with_nothing_written(tmp_path: Path, hot: fakesys.FakeTree) -> None:
    before = hot.snapshot()
    r = run_cli("run", *paths(tmp_path), "--metrics-textfile", str(tmp_path / "thermogov.txt"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "*.prom" in r.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = run_cli("run", *paths(tmp_path), "--metrics-port", str(port))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and f"--metrics-port {port}" in r.stderr
    r = run_cli("run", *paths(tmp_path), "--state-file", "/sys/thermogov.json")
    assert r.returncode == 2 and "outside it" in r.stderr
    assert hot.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()


def _ctrl_c_delivered() -> None:
    """Give the viewer SIGINT's default action, as a shell gives its foreground command.

    A test run started in the background by a non-interactive shell inherits SIGINT ignored,
    and Python then never installs its KeyboardInterrupt handler: the viewer would redraw
    through the test's Ctrl-C and time out (it did so in such a CI run).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_watch_redraws_until_ctrl_c(tmp_path: Path, hot: fakesys.FakeTree) -> None:
    state = tmp_path / "run" / "state.json"
    proc = start_run(tmp_path, "--state-file", str(state))
    try:
        wait_line(proc, "thermogov: started")
        poll(lambda: _state(state), "the state file")
        env = {**os.environ, "FORCE_COLOR": "1", "TERM": "xterm", "COLUMNS": "120"}
        view = subprocess.Popen(
            [*script(), "status", "--watch", "--state", str(state)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            bufsize=0,
            preexec_fn=_ctrl_c_delivered,
        )
        wait_line(view, "jetson-orin-nano")  # a frame was drawn
        view.send_signal(signal.SIGINT)
        _, err = view.communicate(timeout=DEADLINE_S)
        assert view.returncode == 130 and "interrupted" in err.decode()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=DEADLINE_S)


NO_RICH = (
    "import sys; sys.modules['rich'] = None; sys.argv[0] = 'thermogov'; "
    "from thermogov.cli import main; main()"
)


def test_watch_without_rich_says_how_to_install_it(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-c", NO_RICH, "status", "--watch", "--state", str(tmp_path / "s.json")],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "pip install 'thermogov[watch]'" in r.stderr


def test_status_usage_errors_exit_2(tmp_path: Path) -> None:
    r = run_cli("status", "--watch", "--json", "--state", str(tmp_path / "s.json"))
    assert r.returncode == 2 and "choose one" in r.stderr


def test_the_daemon_path_loads_neither_prometheus_client_nor_rich() -> None:
    code = (
        "import sys, thermogov.hw.cli, thermogov.hw.daemon, thermogov.client\n"
        "print(','.join(m for m in sys.modules if m.split('.')[0] in ('prometheus_client', 'rich')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
