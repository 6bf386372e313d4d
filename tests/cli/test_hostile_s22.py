"""Hostile round, session 22 (docs/importing.md, "Hostile round, session 22"): inputs that hung
or ended in "internal error", driven through the installed script.

A named pipe given where a TOML file belongs blocked ``sim``, ``compare`` and ``sweep`` forever
(opening a FIFO waits for a writer); a ``--scheduler`` address without a port ended in
"internal error" (exit 1).  Each is now one line naming the option or file, exit 2.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov, thermogov_fd

# A guard, not a wait: on main these commands never returned.
HANG_GUARD_S = 60

SWEEP = '[sweep]\nscenario = "rpi5-steady-25"\nduration = "5"\n[grid]\nambient = [25.0]\n'

COMPARE = ["compare", "--scenario", "rpi5-steady-25", "--policy", "stepped", "--no-oracle", "--duration", "5"]


def _fifo(tmp: Path) -> Path:
    f = tmp / "pipe.toml"
    os.mkfifo(f)
    return f


@pytest.mark.parametrize(
    "argv",
    [
        ["sim", "--duration", "5", "--config", "{f}", "--out", "{out}"],
        [*COMPARE, "--config", "{f}", "--out", "{out}"],
        ["sweep", "{f}", "--dry-run", "--out", "{out}"],
        ["doctor", "--config", "{f}", "--board", "rpi5", "--sysfs-root", "{tmp}"],
    ],
    ids=["sim", "compare", "sweep", "doctor"],
)
def test_named_pipe_as_toml_is_refused_not_waited_on(tmp_path: Path, argv: list[str]) -> None:
    f = _fifo(tmp_path)
    out = tmp_path / "out"
    args = [a.format(f=f, out=out, tmp=tmp_path) for a in argv]
    p = thermogov(*args, timeout=HANG_GUARD_S)
    one_line_error(p, "named pipe")
    assert str(f) in p.stderr
    assert not out.exists()


def test_process_substitution_pipe_still_reads(tmp_path: Path) -> None:
    """``--config <(...)`` is a pipe reached through /dev/fd: its writer runs, so it is read."""
    p = thermogov_fd(
        "sim",
        "--duration",
        "5",
        "--config",
        "/dev/fd/{fd}",
        "--out",
        str(tmp_path / "o"),
        "--json",
        data=b"[run]\nseed = 3\n",
        timeout=HANG_GUARD_S,
    )
    assert p.returncode == 0, p.stderr
    assert "-s3" in p.stdout


def test_dev_null_config_is_an_empty_config(tmp_path: Path) -> None:
    p = thermogov("sim", "--duration", "5", "--config", "/dev/null", "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr


def test_device_as_config_is_refused(tmp_path: Path) -> None:
    p = thermogov("sim", "--duration", "5", "--config", "/dev/zero", "--out", str(tmp_path / "o"))
    one_line_error(p, "/dev/zero")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("address", ["nonsense", "htp://host:8786", "tcp://host:port"])
@pytest.mark.parametrize("cmd", ["compare", "sweep"])
def test_malformed_scheduler_address_is_bad_input(tmp_path: Path, cmd: str, address: str) -> None:
    """One line and exit 2, and nothing more on stderr as the interpreter exits: a Client
    started on such an address used to print a traceback from distributed's exit hook (3.10)."""
    pytest.importorskip("distributed")
    if cmd == "compare":
        args = [*COMPARE, "--out", str(tmp_path / "o")]
    else:
        sweep = tmp_path / "s.toml"
        sweep.write_text(SWEEP)
        args = ["sweep", str(sweep), "--out", str(tmp_path / "o")]
    p = thermogov(*args, "--executor", "dask", "--scheduler", address, timeout=HANG_GUARD_S)
    line = one_line_error(p, "--scheduler")
    assert "tcp://HOST:PORT" in line


def _run_folder(tmp: Path) -> Path:
    """A short simulated run folder (config.toml, summary.json, trace.csv, samples.csv)."""
    out = tmp / "runs"
    p = thermogov("sim", "--board", "rpi5", "--duration", "5", "--out", str(out))
    assert p.returncode == 0, p.stderr
    (run,) = [d for d in out.iterdir() if d.is_dir()]
    return run


@pytest.mark.parametrize(
    ("cmd", "member"),
    [("plot", "config.toml"), ("calibrate", "config.toml"), ("calibrate", "summary.json")],
)
def test_named_pipe_inside_a_run_folder_is_not_waited_on(tmp_path: Path, cmd: str, member: str) -> None:
    """A run folder is input too: a pipe where its config or summary belongs hung both readers."""
    run = _run_folder(tmp_path)
    (run / member).unlink()
    os.mkfifo(run / member)
    args = [cmd, str(run), "--out", str(tmp_path / "o")]
    if cmd == "calibrate":
        args += ["--board", "rpi5", "--json"]
    p = thermogov(*args, timeout=HANG_GUARD_S)
    assert "Traceback" not in p.stderr
    if member == "config.toml" and cmd == "calibrate":
        one_line_error(p, "named pipe")  # calibrate checks the folder's config as `sim` would
    else:  # plot needs only the trace; calibrate with --board only the samples
        assert p.returncode in (0, 1), p.stderr
