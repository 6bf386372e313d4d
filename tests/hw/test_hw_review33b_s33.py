"""Session 33s: what review 33r left in the daemon (docs/hardware.md, "Session 33s").

In process on tmp trees (tests/hw/fakesys.py), the daemon on the virtual clock
(tests/hw/virtualclock.py); the exit line of a failing textfile through the installed script
and the fault shim (tests/hw/faultshim.c).  Never a sleep, never the real /sys or /run.
"""

from __future__ import annotations

import csv
import errno
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys

P0 = "sys/devices/system/cpu/cpufreq/policy0"
NEW_LIST = "1500000 1800000 2000000\n"


# -- (1) after an OPP list change, the cap reported is the cap written ---------------------------------
@pytest.fixture(scope="module")
def cool_pi5_list_change(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A cool Pi 5 governed for 10 s on the virtual clock (hysteresis: its top cap, 2.4 GHz),
    publishing a state file and a metrics textfile; at 3 s its cpufreq driver comes back
    listing 1.5, 1.8, 2.0 GHz, so the OPP watch writes 2.0 GHz at its look (5 s).  What the
    state file and the textfile said at 8 s, the trace's rows, policy0's max at 8 s and the
    number of the governor's cap writes (``CapActuator.apply``) after the change."""
    from tests.hw import virtualclock
    from tests.hw.cliargs import run_options
    from thermogov.hw import daemon, devices
    from thermogov.hw.publish import PublishOptions

    tmp = tmp_path_factory.mktemp("listchange")
    mp = pytest.MonkeyPatch()
    t = fakesys.rpi5(tmp / "root", cpu_mc=55000)
    pub = tmp / "pub"
    pub.mkdir()
    state, textfile = pub / "state.json", pub / "thermogov.prom"
    seen: dict[str, Any] = {"applies": 0}
    real_apply = devices.CapActuator.apply

    def apply(self: devices.CapActuator, cap_hz: int) -> int:
        seen["applies"] += 1
        return real_apply(self, cap_hz)

    def script(s: float) -> None:
        if s >= 3.0 and "applies_at_change" not in seen:
            seen["applies_at_change"] = seen["applies"]
            t.write(f"{P0}/scaling_available_frequencies", NEW_LIST)
        if s >= 8.0 and "state" not in seen:
            seen["state"] = json.loads(state.read_text())
            seen["textfile"] = textfile.read_text()
            seen["max_khz"] = t.read_int(f"{P0}/scaling_max_freq")

    try:
        mp.setattr(devices.CapActuator, "apply", apply)
        virtualclock.install(mp, script)
        mp.setattr(daemon, "check_privileges", lambda dry: None)
        err = io.StringIO()
        opts = run_options(
            tmp, duration_s=10.0, publish=PublishOptions(state_file=state, metrics_textfile=textfile)
        )
        daemon.run(opts, out=io.StringIO(), err=err)
    finally:
        mp.undo()
    (trace,) = (tmp / "out").glob("*/trace.csv")
    with trace.open() as fh:
        seen["rows"] = list(csv.DictReader(fh))
    seen["err"] = err.getvalue()
    return seen


def test_the_trace_shows_the_cap_the_opp_watch_wrote_not_the_ask(
    cool_pi5_list_change: dict[str, Any],
) -> None:
    """Rows after the look (5 s) show 2.0 GHz, the cap written (policy0's max reads 2000000
    kHz); rows before it the ask, 2.4 GHz, which was in force then.  BASE 1a4f403: 2.4 GHz in
    every row, a cap above the one in force."""
    seen = cool_pi5_list_change
    assert seen["max_khz"] == 2_000_000, seen["err"]
    caps = {round(float(r["t_s"]), 1): int(r["cpu_cap_hz"]) for r in seen["rows"]}
    assert caps[1.0] == 2_400_000_000
    late = {c for t, c in caps.items() if t >= 5.5}
    assert late == {2_000_000_000}, sorted(caps.items())[45:60]


def test_the_state_file_and_the_metrics_show_the_cap_written(cool_pi5_list_change: dict[str, Any]) -> None:
    """At 8 s ``state.json``'s ``domains.cpu.cap_hz`` and the textfile's
    ``thermogov_cap_hertz{domain="cpu"}`` are 2.0 GHz.  BASE 1a4f403: 2.4 GHz in both."""
    seen = cool_pi5_list_change
    assert seen["state"]["domains"]["cpu"]["cap_hz"] == 2_000_000_000
    assert 'thermogov_cap_hertz{domain="cpu"} 2000000000.0' in seen["textfile"], seen["textfile"]


def test_reporting_the_cap_written_changes_no_decision_and_adds_no_write(
    cool_pi5_list_change: dict[str, Any],
) -> None:
    """The governor's own record (what the policy is handed and compares its ask with) is not
    changed by the report: no cap write follows the change (a guard: BASE wrote none either;
    moving the record to 2.0 GHz would make the governor write its 2.4 GHz ask every tick)."""
    seen = cool_pi5_list_change
    assert seen["applies"] == seen["applies_at_change"]


def test_the_governors_next_write_ends_the_report_of_a_cap_written_below_its_ask() -> None:
    """In the core: a cap the backend wrote below the ask is what the next tick records, with
    no write of the governor's; its next write reads its cap back, and that is recorded."""
    from tests.core.fakes import FnSensor, RecordingActuator
    from thermogov.board import load_board
    from thermogov.fusion import SensorSpec
    from thermogov.governor import Governor
    from thermogov.policies import PolicyContext, make_policy
    from thermogov.tomlcheck import Table

    table = (500, 1000, 1500, 2000)
    act = RecordingActuator("cpu", table)
    policy = make_policy("hysteresis", Table({}, "p"), PolicyContext(load_board("rpi5"), {"cpu": table}, 0.1))
    temp = [60.0]
    gov = Governor(
        (SensorSpec("cpu", 1.0, 100, 95.0),),
        {"cpu": FnSensor("cpu", lambda: temp[0])},
        [act],  # type: ignore[list-item]
        policy,
    )

    def tick(t: float) -> tuple[int, ...]:
        gov.sample("cpu", t)
        return gov.tick(t).caps_hz

    assert tick(0.0) == (2000,)
    gov.written_below("cpu", 1500)
    assert tick(0.1) == (1500,) and act.writes == []
    temp[0] = 88.0
    assert tick(0.2) == (500,) and act.writes == [500]
    temp[0] = 60.0
    assert tick(0.3) == (2000,) and act.writes == [500, 2000]


# -- (2) the textfile's "daemon down" write failing at exit: one line naming it ------------------------
def test_a_textfile_that_cannot_be_written_at_exit_is_said_and_the_exit_stays_0(
    tmp_path: Path, shim: Path
) -> None:
    """Through the installed script: the metrics textfile's folder is full (writes to its
    temporary fail ENOSPC, the fault shim's ``w`` rule) on a hot Pi 5; SIGTERM: exit 0, every
    limit as before, and one line names the file and says it still holds the run's values.
    BASE 1a4f403: the exit's failure was suppressed, nothing said."""
    from tests.hw import faultshim, procutil

    t = fakesys.rpi5(tmp_path / "root", cpu_mc=85000)
    before = t.snapshot()
    textfile = tmp_path / "pub" / "thermogov.prom"
    textfile.parent.mkdir()
    env = faultshim.env(shim, tmp_path / "faults", tmp_path)
    faultshim.write_rules(tmp_path / "faults", [("pub/.thermogov.prom.tmp", "w", errno.ENOSPC)])
    proc = procutil.start_run(tmp_path, "--metrics-textfile", str(textfile), env=env)
    procutil.wait_line(proc, "thermogov: started")
    err = procutil.stopped_as_before(proc, t, before, "Traceback")
    lines = [ln for ln in err.splitlines() if "cannot write thermogov_up 0 at exit" in ln]
    assert len(lines) == 1, err
    assert f"metrics textfile {textfile}: cannot write thermogov_up 0 at exit (ENOSPC" in lines[0]
    assert "remove it by hand" in lines[0]
