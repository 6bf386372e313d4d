"""The published state file, the client that reads it and the counter the application feeds.

The atomicity test is the real thing: a separate reader process polls ``client.current()`` as
fast as it can while this process replaces the file thousands of times with documents of
changing length; every single read must parse.  The counter test has several processes adding
at once; the total must be exact and no read may see a half-written number.
"""

from __future__ import annotations

import json
import math
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hw.fakesys import dead_pid
from tests.hw.procutil import DEADLINE_S
from thermogov import client, counterfile
from thermogov.governor import TickRecord
from thermogov.hw import appcounter
from thermogov.hw.appcounter import AppCounter
from thermogov.hw.runtimefiles import check_dir, replace_atomic
from thermogov.interfaces import ConfigError, PowerStatus
from thermogov.statedoc import SCHEMA, StateIdentity, build_state

IDENT = StateIdentity(os.getpid(), 1000.0, "rpi5", False, "/tmp/run", "none")


def tick(fused: float | None = 61.5, event: str = "", inferences: int | None = None) -> TickRecord:
    return TickRecord(
        t_s=3.0,
        fused_c=fused,
        readings_c=(61.0, None),
        sensors_used="cpu",
        policy_state="HOLD",
        caps_hz=(1_500_000_000,),
        freqs_hz=(1_400_000_000,),
        power_w=float("nan"),
        inferences_total=inferences,
        event=event,
    )


def doc(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "time_unix": time.time(),
        "uptime_s": 3.0,
        "tick": tick(),
        "sensor_names": ("cpu", "pmic"),
        "domain_names": ("cpu",),
        "policy": "stepped",
    }
    base.update(kw)
    return build_state(IDENT, **base)  # type: ignore[arg-type]


def test_state_document_has_every_section_and_no_nan() -> None:
    d = doc(power=PowerStatus("discharging", 55.0), rate_ips=12.5, throttle={"under_voltage": 2}, mode="full")
    text = json.dumps(d, allow_nan=False)  # a NaN (the power here) would raise
    back = json.loads(text)
    assert back["schema"] == SCHEMA and back["pid"] == os.getpid()
    assert back["temperature_c"] == {
        "fused": 61.5,
        "sensors": {"cpu": 61.0, "pmic": None},
        "used": "cpu",
        "waiting": {},
    }
    assert back["domains"] == {"cpu": {"cap_hz": 1_500_000_000, "frequency_hz": 1_400_000_000}}
    assert back["power"]["power_w"] is None and back["power"]["state"] == "discharging"
    assert back["power"]["capacity_pct"] == 55.0
    assert back["throughput"] == {"inferences_total": None, "rate_ips": 12.5, "source": "none"}
    assert back["throttle"] == {"under_voltage": 2} and back["mode"] == "full"
    assert back["policy"] == {"name": "stepped", "state": "HOLD"}


def test_client_reads_types_and_caches_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    replace_atomic(path, json.dumps(doc()).encode())
    s = client.current(path)
    assert (s.board, s.policy, s.policy_state, s.fused_c) == ("rpi5", "stepped", "HOLD", 61.5)
    assert s.caps_hz == {"cpu": 1_500_000_000} and s.sensors_c == {"cpu": 61.0, "pmic": None}
    assert client.current(path) is s  # unchanged file: no re-parse
    replace_atomic(path, json.dumps(doc(tick=tick(fused=70.0))).encode())
    assert client.current(path).fused_c == 70.0
    assert s.stale_reason() is None


def test_missing_garbage_and_foreign_schema_are_distinct_errors(tmp_path: Path) -> None:
    with pytest.raises(client.NoState, match="no thermogov state"):
        client.current(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(client.StateFormatError, match="not JSON"):
        client.current(bad)
    bad.write_text(json.dumps({**doc(), "schema": 99}))
    with pytest.raises(client.StateFormatError, match="schema"):
        client.current(bad)


def test_stale_when_the_pid_is_gone_or_the_state_is_old(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    d = doc()
    d["pid"] = dead_pid()
    path.write_text(json.dumps(d))
    assert "not running" in (client.current(path).stale_reason() or "")
    d = doc(time_unix=time.time() - 60.0)
    path.write_text(json.dumps(d))
    reason = client.current(path).stale_reason()
    assert reason is not None and "old" in reason


READER = """
import json, sys
from pathlib import Path
from thermogov import client
path, done = Path(sys.argv[1]), Path(sys.argv[2])
reads = errors = 0
sizes = set()
said = False
while not done.exists() or reads < 100:
    try:
        s = client.current(path)
        sizes.add(len(s.sensors_c))
        reads += 1
        if len(sizes) > 1 and not said:
            print("across", flush=True)  # the writer may stop: this reader read across replacements
            said = True
    except client.NoState:
        pass
    except Exception as e:
        errors += 1
        print(repr(e), file=sys.stderr)
print(json.dumps({"reads": reads, "errors": errors, "sizes": sorted(sizes)}))
"""


def test_every_read_parses_while_the_writer_replaces_the_file(tmp_path: Path) -> None:
    path, done = tmp_path / "state.json", tmp_path / "done"
    replace_atomic(path, json.dumps(doc()).encode())
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(path), str(done)], stdout=subprocess.PIPE, text=True
    )
    assert reader.stdout is not None
    # At least 3000 replacements, and on until the reader said it read two lengths: a reader
    # that a loaded machine started late, or left unscheduled while 3000 were written, saw one
    # document only and failed the test (a condition with a deadline, never a fixed count).
    deadline = time.monotonic() + DEADLINE_S
    across = False
    try:
        i = 0
        while i < 3000 or (not across and time.monotonic() < deadline):
            n = 1 + i % 40  # documents of changing length: a torn read would not parse
            names = tuple(f"s{k}" for k in range(n))
            t = tick()._replace(readings_c=tuple(float(k) for k in range(n)))
            replace_atomic(path, json.dumps(doc(tick=t, sensor_names=names)).encode())
            i += 1
            if not across and i % 40 == 0:
                across = bool(select.select([reader.stdout], [], [], 0)[0])
    finally:
        done.touch()
    out, _ = reader.communicate(timeout=120)
    result = json.loads(out.splitlines()[-1])
    assert result["errors"] == 0
    assert result["reads"] >= 100 and len(result["sizes"]) > 1  # it did read across replacements


ADDER = """
import sys
from thermogov import client
for _ in range(int(sys.argv[2])):
    client.report_inferences(1, sys.argv[1])
"""


def test_concurrent_reports_add_up_exactly_and_reads_are_whole(tmp_path: Path) -> None:
    path = tmp_path / "inferences"
    procs = [subprocess.Popen([sys.executable, "-c", ADDER, str(path), "300"]) for _ in range(4)]
    seen = []
    while any(p.poll() is None for p in procs):
        try:
            v = counterfile.read(str(path))
        except counterfile.CounterBusy:
            continue
        if v is not None:
            seen.append(v)
    assert all(p.wait() == 0 for p in procs)
    assert counterfile.read(str(path)) == 1200
    assert seen == sorted(seen) and all(0 <= v <= 1200 for v in seen)  # never a torn or wrong value


def test_bad_reports_are_refused() -> None:
    for n in (-1, 1.5, True, math.nan):
        with pytest.raises(ValueError, match="non-negative int"):
            counterfile.add("/nonexistent/never", n)  # type: ignore[arg-type]


def test_app_counter_counts_this_run_only_and_survives_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "inferences"
    logs: list[str] = []
    counterfile.add(str(path), 500)  # an earlier run's total
    now = [0.0]
    c = AppCounter(path, logs.append, clock=lambda: now[0])
    assert c() == 0
    counterfile.add(str(path), 7)
    assert c() == 7
    path.unlink()
    assert c() == 7  # gone: keeps the last count
    counterfile.add(str(path), 3)  # the application recreated it
    assert c() == 7  # the kept descriptor still reads the old file: its last count, not a made-up one
    now[0] += appcounter.RECHECK_S  # within a second the path is checked again
    assert c() == 10
    path.write_text("garbage\n")
    assert c() == 10 and any("not an inference count" in m for m in logs)
    c.close()


def test_app_counter_reads_through_one_kept_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "inferences"
    now = [0.0]
    c = AppCounter(path, lambda m: None, clock=lambda: now[0])
    c.create()
    opens: list[str] = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda p, *a, **k: opens.append(str(p)) or real_open(p, *a, **k))
    for n in range(1, 30):
        client.report_inferences(1, path)  # rewritten in place under flock
        assert c() == n
        now[0] += 0.1
    assert opens.count(str(path)) == 29 + 1  # the writer's 29 opens and the reader's one
    c.close()
    path.unlink()
    assert c() == 29 and c._fd == -1  # closed and gone: the last count, and nothing kept open


def test_app_counter_is_not_measured_until_something_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "inferences"
    c = AppCounter(path, lambda m: None)
    c.create()
    assert path.stat().st_mode & 0o777 == 0o666  # an unprivileged application can add to it
    assert c() is None  # the empty file the daemon made: not measured, not zero
    client.report_inferences(4, path)
    assert c() == 4


def test_unsafe_directories_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(ConfigError, match="symlink"):
        check_dir(link / "state.json", "--state-file", create=True)
    with pytest.raises(ConfigError, match="resolves under /sys"):
        check_dir(Path("/sys/kernel/state.json"), "--state-file", create=True)
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    with pytest.raises(ConfigError, match="world-writable"):
        check_dir(open_dir / "state.json", "--state-file", create=True)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    if os.geteuid() == 0:
        os.chown(foreign, 65534, 65534)
        with pytest.raises(ConfigError, match="belongs to uid 65534"):
            check_dir(foreign / "state.json", "--state-file", create=True)
    made = tmp_path / "new" / "state.json"
    check_dir(made, "--state-file", create=True)
    assert made.parent.is_dir() and made.parent.stat().st_mode & 0o777 == 0o755


def test_replace_never_follows_a_planted_temporary_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    path = tmp_path / "state.json"
    (tmp_path / ".state.json.tmp").symlink_to(victim)
    replace_atomic(path, b"{}")
    assert victim.read_text() == "keep" and path.read_bytes() == b"{}"
    assert path.stat().st_mode & 0o777 == 0o644
