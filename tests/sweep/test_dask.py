"""The Dask executor: same table as local processes, on a LocalCluster and on a real cluster
(a `dask scheduler` and two `dask worker` processes on loopback), one worker killed mid-sweep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cliutil import run_cli
from tests.sweep.conftest import read_table
from thermogov.sim.sweep.engine import run_sweep
from thermogov.sim.sweep.executors import DaskExecutor
from thermogov.sim.sweep.point import PointResult
from thermogov.sim.sweep.spec import load_sweep

distributed = pytest.importorskip(
    "distributed", reason="dask[distributed] is not installed (pip install -e '.[dask]' to run these)"
)

DASK = str(Path(sys.executable).with_name("dask"))


def local_table(sweep_file: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> bytes:
    code, _, err = run_cli(["sweep", str(sweep_file), "--workers", "1", "--out", str(out)], capsys)
    assert code == 0, err
    return (out / "results.csv").read_bytes()


def test_local_cluster_gives_the_same_table_as_local_processes(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "dask"
    args = ["sweep", str(tiny_sweep), "--executor", "dask", "--workers", "2", "--out", str(out)]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    assert "on Dask at a LocalCluster (2 workers)" in err
    assert (out / "results.csv").read_bytes() == local_table(tiny_sweep, tmp_path / "local", capsys)


def test_compare_on_dask_gives_the_same_rows_as_local(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["compare", "--scenario", "orin-steady-25", "--policy", "stepped", "--policy", "hysteresis"]
    common += ["--duration", "60", "--no-oracle"]
    tables = []
    for name, extra in (("local", ["--workers", "2"]), ("dask", ["--executor", "dask", "--workers", "2"])):
        out = tmp_path / name
        code, _, err = run_cli([*common, *extra, "--out", str(out)], capsys)
        assert code == 0, err
        rows = read_table(out / "compare.csv")
        tables.append([{k: v for k, v in r.items() if k != "run_dir"} for r in rows])
        assert all(Path(r["run_dir"]).parent == out / "orin-steady-25" for r in rows)
    assert tables[0] == tables[1] and len(tables[0]) == 2


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, dict[str, subprocess.Popen[bytes]]]]:
    """A scheduler and two nanny-less workers (so a killed worker stays dead) on 127.0.0.1.

    The scheduler binds a port of its own choosing (``--port 0``) and writes its address to a
    scheduler file the workers and the client read (https://docs.dask.org/en/stable/deploying-cli.html):
    a port picked by this test and bound later by the scheduler could be taken in between by
    any other process of a shared machine (session 30i: the scheduler then failed to start)."""
    scheduler_file = tmp_path / "scheduler.json"
    procs: dict[str, subprocess.Popen[bytes]] = {}
    log = (tmp_path / "dask.log").open("wb")
    try:
        procs["scheduler"] = subprocess.Popen(
            [*(DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"),
             *("--scheduler-file", str(scheduler_file))],
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        for name in ("w1", "w2"):
            work = tmp_path / name
            work.mkdir()
            procs[name] = subprocess.Popen(
                [
                    *(
                        DASK,
                        "worker",
                        "--scheduler-file",
                        str(scheduler_file),
                        "--name",
                        name,
                        "--nthreads",
                        "1",
                        "--no-nanny",
                        "--no-dashboard",
                    ),
                    *("--host", "127.0.0.1", "--local-directory", str(work), "--death-timeout", "60"),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        with distributed.Client(scheduler_file=str(scheduler_file), timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
            addr = str(client.scheduler.address)
        yield addr, procs
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs.values():
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        log.close()


LONGER = """\
[sweep]
scenario = "orin-steady-25"
duration = 240

[grid]
ambient = [25.0, 30.0, 35.0, 40.0]
heatsink = [1.0, 0.6]
"""


def test_real_cluster_loses_no_point_when_a_worker_is_killed_mid_sweep(
    cluster: tuple[str, dict[str, subprocess.Popen[bytes]]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    addr, procs = cluster
    sweep_file = tmp_path / "kill-sweep.toml"
    sweep_file.write_text(LONGER, encoding="utf-8")
    sweep = load_sweep(sweep_file)
    killed: dict[str, object] = {}
    with DaskExecutor(address=addr) as ex:
        assert ex.workers == 2

        def kill_a_busy_worker(_r: PointResult) -> None:
            if killed:
                return
            info = ex.client.scheduler_info()["workers"]
            busy = {a: keys for a, keys in ex.client.processing().items() if keys}
            assert busy, "no worker was running a point after the first result"
            victim_addr = sorted(busy)[0]
            name = info[victim_addr]["name"]
            os.kill(procs[name].pid, signal.SIGKILL)
            procs[name].wait(timeout=30)
            killed.update(name=name, running=list(busy[victim_addr]))

        run = run_sweep(sweep, ex, tmp_path / "out", on_result=kill_a_busy_worker)
    assert killed["running"] and procs[str(killed["name"])].returncode == -signal.SIGKILL
    assert run.complete and run.failed == 0 and len(run.rows) == len(sweep.points)
    rows = read_table(tmp_path / "out" / "results.csv")
    assert [r["status"] for r in rows] == ["ok"] * len(sweep.points)
    assert (tmp_path / "out" / "results.csv").read_bytes() == local_table(
        sweep_file, tmp_path / "local", capsys
    )


def test_local_cluster_workers_run_quiet_and_leave_this_process_environment_alone() -> None:
    import dask

    from thermogov.sim.sweep.executors import LOCAL_CLUSTER_CONFIG

    before = dict(os.environ)
    with DaskExecutor(1) as ex:
        seen = ex.client.run(
            lambda: (
                {k: dask.config.get(k) for k in LOCAL_CLUSTER_CONFIG if "environ" not in k},
                os.environ.get("MALLOC_TRIM_THRESHOLD_"),
            )
        )
        assert dict(os.environ) == before
    wanted = {k: v for k, v in LOCAL_CLUSTER_CONFIG.items() if "environ" not in k}
    assert list(seen.values()) == [(wanted, before.get("MALLOC_TRIM_THRESHOLD_"))]
    assert wanted["distributed.worker.profile.enabled"] is False
