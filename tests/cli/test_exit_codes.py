"""The exit-status contract of every command, through the installed ``thermogov`` console script.

0 done; 2 bad input or usage (one line naming the field); 1 a runtime failure (one line; for
run/restore what is left changed and the command that puts it back); 130 interrupted.  Never a
traceback.  Each case starts the real script in a subprocess, because the contract is what a
shell script, systemd's ``Restart=on-failure`` and ``ExecStopPost`` see, and an in-process
``CliRunner`` on a subcommand bypasses the entry point that used to drop every code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hw import cliargs, fakesys
from thermogov.hw.journal import InstanceLock, Journal, JournalData, JournalEntry

POLICY0 = "sys/devices/system/cpu/cpufreq/policy0"
BIN = Path(sys.executable).parent


def thermogov_script() -> str:
    """The console script of the interpreter running the tests (the venv's own)."""
    exe = BIN / "thermogov"
    found = str(exe) if exe.exists() else shutil.which("thermogov")
    if found is None:  # pragma: no cover - the package is installed for the tests
        pytest.fail("the thermogov console script is not installed; pip install -e '.[test]'")
    return found


def invoke(
    args: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "THERMOGOV_DEBUG": "", **(env or {})}
    return subprocess.run(
        [thermogov_script(), *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def one_line(p: subprocess.CompletedProcess[str], code: int) -> str:
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("thermogov: "), lines[0]
    return lines[0]


# -- hw command fixtures -----------------------------------------------------------------------
def hw_args(tmp: Path, *extra: str) -> list[str]:
    return [*cliargs.board_paths(tmp), *extra]


def run_args(tmp: Path, *extra: str) -> list[str]:
    return ["run", *cliargs.run_args(tmp, *extra)]


def restore_args(tmp: Path) -> list[str]:
    return ["restore", *hw_args(tmp)]


def entry(tmp: Path, rel_dir: str = POLICY0) -> JournalEntry:
    return JournalEntry(
        "cpu", "policy0", f"{rel_dir}/scaling_min_freq", f"{rel_dir}/scaling_max_freq", 1000, 1500000, 2400000
    )


def journal_for(tmp: Path, root: str, e: JournalEntry) -> None:
    Journal(tmp / "state").write(JournalData(2**22 + 12345, "", root, 0.0, (e,)))


# -- exit 2: bad input, nothing written ---------------------------------------------------------
def _bad_config(tmp: Path) -> list[str]:
    cfg = tmp / "typo.toml"
    cfg.write_text("[governor]\ncontrol_period_msec = 100\n")
    return [*run_args(tmp), "--config", str(cfg)]


def _no_sensors(tmp: Path) -> list[str]:
    (tmp / "root" / "sys/devices/virtual/thermal/thermal_zone0/type").unlink()
    return run_args(tmp)


def _config_file(text: str | bytes) -> Callable[[Path], list[str]]:
    """``run --config`` with a file holding ``text`` (bytes: written as they are)."""

    def make(tmp: Path) -> list[str]:
        cfg = tmp / "c.toml"
        if isinstance(text, bytes):
            cfg.write_bytes(text)
        else:
            cfg.write_text(text, encoding="utf-8")
        return [*run_args(tmp), "--config", str(cfg)]

    return make


def _sim_config(text: str) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        cfg = tmp / "c.toml"
        cfg.write_text(text, encoding="utf-8")
        return ["sim", "--config", str(cfg), "--duration", "5s", "--out", str(tmp / "o")]

    return make


def _sweep_file(body: str) -> Callable[[Path], list[str]]:
    """``sweep SWEEP.toml`` (the sweep file interface) with ``body`` after its [sweep] table."""

    def make(tmp: Path) -> list[str]:
        f = tmp / "bad-sweep.toml"
        f.write_text('[sweep]\nscenario = "orin-steady-25"\nduration = 5\n' + body, encoding="utf-8")
        return ["sweep", str(f), "--out", str(tmp / "o")]

    return make


def _board_file(tmp: Path) -> list[str]:
    from importlib import resources

    text = resources.files("thermogov.boards").joinpath("rpi5.toml").read_text(encoding="utf-8")
    bad = tmp / "board.toml"
    bad.write_text(text.replace("hard_limit_c = ", "hard_limit_c = nan # ", 1), encoding="utf-8")
    return ["sim", "--board", str(bad), "--duration", "5s", "--out", str(tmp / "o")]


BAD_INPUT: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    # a failsafe no config can switch off: non-finite and out-of-range numbers, broken files
    "config-trip-nan": (_config_file("[policies.hysteresis]\ntrip_c = nan\n"), "trip_c"),
    "config-hard-limit-nan": (_config_file("[sensors.cpu]\nhard_limit_c = nan\n"), "hard_limit_c"),
    "config-stale-inf": (_config_file("[governor]\nstale_periods = inf\n"), "stale_periods"),
    "config-grace-huge": (_config_file("[governor]\nunknown_grace_ms = 99999999\n"), "unknown_grace_ms"),
    "config-stuck-zero": (_config_file("[governor]\nstuck_after_s = 0\n"), "stuck_after_s"),
    "config-seed-huge": (_sim_config("[run]\nseed = 4294967296\n"), "seed"),
    "config-not-utf8": (_config_file(b'[run]\npolicy = "hyst\xe9resis"\n'), "UTF-8"),
    "config-deep-nesting": (_config_file("a = " + "[" * 5000 + "]" * 5000 + "\n"), "c.toml"),
    "config-deep-tables": (_config_file("a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n"), "c.toml"),
    "config-malformed": (_config_file("[run\npolicy = \n"), "malformed TOML"),
    "board-file-nan": (_board_file, "hard_limit_c"),
    # never a crash loop: an unusable run-record folder is refused before the board is touched
    "run-out-dev-null": (lambda t: [*run_args(t), "--out", os.devnull], "--out"),
    "run-out-proc": (lambda t: [*run_args(t), "--out", "/proc/thermogov-test-out"], "--out"),
    "run-state-dir-proc": (lambda t: [*run_args(t), "--state-dir", "/proc/thermogov-state"], "--state-dir"),
    "sim-ambient-nan": (lambda t: ["sim", "--ambient", "nan", "--out", str(t / "o")], "--ambient"),
    "sim-seed-huge": (lambda t: ["sim", "--seed", str(2**32), "--out", str(t / "o")], "--seed"),
    "sim-duration-inf": (lambda t: ["sim", "--duration", "1e400", "--out", str(t / "o")], "--duration"),
    # Arabic-Indic digits are a duration's digits as they are every number's (27h, session 29i);
    # a duration split by a space is not (the one rule of thermogov/units.py).
    "sim-duration-split-digits": (
        lambda t: ["sim", "--duration", "٩٠ s", "--out", str(t / "o")],
        "--duration",
    ),
    "emulate-speed-inf": (lambda t: ["emulate", "--sysfs-root", str(t / "emu"), "--speed", "inf"], "--speed"),
    "emulate-speed-huge": (
        lambda t: ["emulate", "--sysfs-root", str(t / "emu"), "--speed", "1e9"],
        "--speed",
    ),
    "compare-seed-nan": (
        lambda t: ["compare", "--policy", "hysteresis", "--seed", "nan", "--out", str(t / "o")],
        "--seed",
    ),
    "emulate-initial-temp-huge": (
        lambda t: ["emulate", "--sysfs-root", str(t / "emu"), "--initial-temp", "1e9"],
        "--initial-temp",
    ),
    "plot-window-nan": (lambda t: ["plot", "--window", "nan", str(t)], "--window"),
    "sweep-ambient-nan": (_sweep_file("[grid]\nambient = [25, nan]\n"), "grid.ambient[1]: nan"),
    "sim-duration": (lambda t: ["sim", "--duration", "abc", "--out", str(t / "o")], "duration"),
    "sim-seed": (lambda t: ["sim", "--seed", "x", "--out", str(t / "o")], "--seed"),
    "sim-unknown-option": (lambda t: ["sim", "--bogus"], "--bogus"),
    "unknown-command": (lambda t: ["frobnicate"], "frobnicate"),
    "boards-option": (lambda t: ["boards", "--bogus"], "--bogus"),
    "compare-scenario": (lambda t: ["compare", "--scenario", "no-such", "--out", str(t / "o")], "no-such"),
    "sweep-missing-file": (
        lambda t: ["sweep", str(t / "no-sweep.toml"), "--out", str(t / "o")],
        "no-sweep.toml",
    ),
    "sweep-ambient": (_sweep_file("[grid]\nambient = ['warm']\n"), "grid.ambient[0]"),
    "sweep-unknown-key": (_sweep_file("[grid]\nambiant = [25]\n"), "grid.ambiant: unknown key"),
    "plot-missing": (lambda t: ["plot", str(t / "no-run")], "no-run"),
    "import-missing": (lambda t: ["import", str(t / "nolog.txt"), "--out", str(t / "o")], "nolog.txt"),
    "calibrate-missing": (lambda t: ["calibrate", str(t / "no-run")], "no-run"),
    "emulate-duration": (
        lambda t: ["emulate", "--sysfs-root", str(t / "emu"), "--wall-duration", "abc"],
        "duration",
    ),
    "doctor-nonexistent-root": (lambda t: ["doctor", "--sysfs-root", str(t / "nonexistent")], "--sysfs-root"),
    "run-duration": (lambda t: [*run_args(t), "--duration", "abc"], "--duration"),
    "run-config-typo": (_bad_config, "control_period_msec"),
    "run-no-sensors": (_no_sensors, "sensors"),
    "run-nonexistent-root": (
        lambda t: ["run", "--sysfs-root", str(t / "nonexistent"), "--duration", "1s"],
        "--sysfs-root",
    ),
    "restore-nonexistent-root": (lambda t: ["restore", "--sysfs-root", str(t / "nope")], "--sysfs-root"),
}


DEPRECATED: dict[str, tuple[Callable[[Path], list[str]], str, str]] = {
    "emulate-duration": (
        lambda t: ["emulate", "--sysfs-root", str(t / "emu"), "--duration", "abc"],
        "emulate --duration is deprecated; use --wall-duration",
        "--duration",
    ),
    "board-file": (
        lambda t: [*_board_file(t)[:1], "--board-file", *_board_file(t)[2:]],
        "--board-file is deprecated; use --board FILE",
        "hard_limit_c",
    ),
}


@pytest.mark.parametrize("case", sorted(DEPRECATED))
def test_a_deprecated_flag_still_refuses_bad_input_in_one_error_line(tmp_path: Path, case: str) -> None:
    """The old spelling still works: at most its warning line, then the one-line error, exit 2."""
    t = fakesys.rpi5(tmp_path / "root")
    make, warning, needle = DEPRECATED[case]
    before = t.snapshot()
    p = invoke(make(tmp_path), cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    *warn, err = p.stderr.splitlines()
    assert all(warning in w for w in warn) and len(warn) <= 1, p.stderr
    assert err.startswith("thermogov: error: ") and needle in err
    assert t.snapshot() == before and not (tmp_path / "emu").exists()


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_exits_2_with_one_line(tmp_path: Path, case: str) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    make, needle = BAD_INPUT[case]
    args = make(tmp_path)
    before = t.snapshot()
    line = one_line(invoke(args, cwd=tmp_path), 2)
    assert line.startswith("thermogov: error: ") and needle in line
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


def test_a_click_usage_error_is_one_line_naming_the_option(tmp_path: Path) -> None:
    line = one_line(invoke(["sim", "--seed", "x"], cwd=tmp_path), 2)
    assert line.startswith("thermogov: error: --seed: ") and "thermogov sim --help" in line


# -- exit 1: runtime failures -----------------------------------------------------------------
def test_another_instance_running_exits_1(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    with InstanceLock(tmp_path / "run.lock"):
        line = one_line(invoke(run_args(tmp_path)), 1)
        assert "another thermogov" in line and f"pid {os.getpid()}" in line
        line = one_line(invoke(restore_args(tmp_path)), 1)
        assert "another thermogov" in line
    assert t.snapshot() == before


def test_journal_for_another_root_exits_1_naming_the_root(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    journal_for(tmp_path, "/somewhere/else", entry(tmp_path))
    before = t.snapshot()
    for args in (restore_args(tmp_path), run_args(tmp_path)):
        line = one_line(invoke(args), 1)
        # the journal's claim, quoted as such; never advice built from the file (session 29h)
        assert "journal says" in line and "'/somewhere/else'" in line
        assert "--sysfs-root /somewhere/else" not in line
    assert t.snapshot() == before and Journal(tmp_path / "state").exists()


def test_restore_incomplete_exits_1_naming_what_is_left_and_the_command(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    journal_for(tmp_path, str(tmp_path / "root"), entry(tmp_path, "sys/devices/system/cpu/cpufreq/policy7"))
    for args in (restore_args(tmp_path), run_args(tmp_path)):
        line = one_line(invoke(args), 1)
        assert "restore incomplete" in line and "policy7/scaling_min_freq" in line
        assert f"sudo thermogov restore --sysfs-root {tmp_path / 'root'}" in line
        assert Journal(tmp_path / "state").exists()


def test_run_without_root_is_a_usage_error_exit_2(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        p = invoke(run_args(tmp_path))
    else:
        # The interpreter lives under a root-only home here, so a fresh process cannot run as
        # another user: load the CLI as root, then drop to nobody and call the entry point.
        root = Path(tempfile.mkdtemp(prefix="thermogov-nonroot-"))
        try:
            root.chmod(0o755)
            fakesys.rpi5(root / "root")
            for d in (root, *root.rglob("*")):
                d.chmod(0o755 if d.is_dir() else 0o644)
            argv = ["thermogov", *run_args(root)]
            code = (
                "import os, sys\n"
                "import thermogov.cli, thermogov.hw.cli, thermogov.hw.daemon, thermogov.entry\n"
                "os.setgid(65534); os.setuid(65534)\n"
                f"sys.argv = {argv!r}\n"
                "thermogov.entry.main()\n"
            )
            p = subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
                cwd="/",
            )
        finally:
            shutil.rmtree(root)
    line = one_line(p, 2)
    assert "needs root" in line and "--dry-run" in line


# -- exit 0: done ---------------------------------------------------------------------------------
def test_success_paths_exit_0(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    assert invoke(["boards"]).returncode == 0
    assert invoke(["doctor", "--sysfs-root", str(tmp_path / "root")]).returncode == 0
    p = invoke(restore_args(tmp_path))
    assert p.returncode == 0 and "nothing to restore" in p.stdout
    t.write(f"{POLICY0}/scaling_max_freq", 1500000)
    journal_for(tmp_path, str(tmp_path / "root"), entry(tmp_path))
    p = invoke(restore_args(tmp_path))
    assert p.returncode == 0, p.stderr
    assert t.read_int(f"{POLICY0}/scaling_max_freq") == 2400000


# -- 130: interrupted, start-up included ---------------------------------------------------------
def _interrupting_module(tmp: Path, name: str) -> dict[str, str]:
    """A PYTHONPATH entry whose ``name`` raises KeyboardInterrupt on import (Ctrl-C mid-import)."""
    d = tmp / "shadow"
    (d / name).mkdir(parents=True)
    (d / name / "__init__.py").write_text("raise KeyboardInterrupt\n")
    return {"PYTHONPATH": str(d)}


@pytest.mark.parametrize(
    ("module", "args"),
    [("click", ["boards"]), ("simpy", ["sim", "--duration", "5s"])],
)
def test_ctrl_c_during_start_up_exits_130_without_traceback(
    tmp_path: Path, module: str, args: list[str]
) -> None:
    p = invoke(
        [*args, "--out", str(tmp_path / "o")] if module == "simpy" else args,
        env=_interrupting_module(tmp_path, module),
        cwd=tmp_path,
    )
    assert p.returncode == 130, p.stderr
    assert "Traceback" not in p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]  # click closes the ^C echo with \n
    assert lines == ["thermogov: interrupted"]


def test_thermogov_debug_shows_the_traceback(tmp_path: Path) -> None:
    p = invoke(["sim", "--duration", "abc"], env={"THERMOGOV_DEBUG": "1"}, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" in p.stderr
    assert p.stderr.splitlines()[-1].startswith("thermogov: error: ")
