"""Session 20c's hostile round: inputs a broken board or an attacker could give session 19's code.

Each case failed on main (docs/hardware.md, "Session 20c"):

* an OPP list longer than a sysfs page (10^5 entries) was read cut at 64 KiB, its last number a
  piece of one (a bogus 7.69 MHz OPP the GPU domain offered and recorded as its range);
* a NUL byte inside a list read as a space (two OPPs out of one corrupt token);
* a devfreq class entry of the profile's GPU name resolving to another device's folder (the
  EMC's) had the GPU's caps written to the memory clock;
* a devfreq name that is not UTF-8 made ``doctor`` print a line that is not UTF-8 and
  ``doctor --json`` a lone surrogate;
* ``service install --config`` with a newline in the path wrote a unit with a directive of the
  path's choosing; ``%`` and ``$`` in a path were read by systemd as a specifier and a variable.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.cli.script import SCRIPT
from tests.hw import fakesys, procutil
from tests.hw.fakesys import FakeTree

GPU = "sys/devices/57000000.gpu/devfreq/57000000.gpu"
EMC = "sys/devices/7001b000.emc/devfreq/7001b000.emc"
EMC_HZ = (204000000, 408000000, 800000000, 1600000000)


def _nano(tmp: Path) -> FakeTree:
    return fakesys.jetson_nano(tmp / "root", cpu_mc=92000)


def _doctor(tmp: Path) -> str:
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp / "root"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _args(tmp: Path) -> list[str]:
    cfg = tmp / "c.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    return [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg)]


def _gpu_domain_line(out: str) -> str:
    return next(ln for ln in out.splitlines() if ln.strip().startswith("domain gpu"))


def test_an_opp_list_longer_than_a_page_is_refused_not_read_in_part(tmp_path: Path) -> None:
    t = _nano(tmp_path)
    t.write(f"{GPU}/available_frequencies", " ".join(str(76800000 + 13 * i) for i in range(100000)) + "\n")
    line = _gpu_domain_line(_doctor(tmp_path))
    assert "MISSING" in line and "longer than any sysfs attribute" in line


def test_a_nul_byte_inside_an_opp_list_is_refused(tmp_path: Path) -> None:
    t = _nano(tmp_path)
    t.write(f"{GPU}/available_frequencies", b"76800000 \x00153600000 998400000\n")
    line = _gpu_domain_line(_doctor(tmp_path))
    assert "MISSING" in line and "NUL" in line


def _gpu_name_on_the_emc(t: FakeTree, *, replace_folder: bool) -> None:
    t.devfreq("sys/devices/7001b000.emc", "7001b000.emc", "emc", EMC_HZ, governor="userspace")
    if replace_folder:  # the device's own folder swapped for a link
        shutil.rmtree(t.root / GPU)
        t.link(GPU, EMC)
    else:  # the class entry pointed elsewhere
        os.unlink(t.root / "sys/class/devfreq/57000000.gpu")
        t.link("sys/class/devfreq/57000000.gpu", EMC)


def test_a_gpu_entry_resolving_to_another_devices_folder_is_left_alone(tmp_path: Path) -> None:
    for n, replace in enumerate((False, True)):
        tmp = tmp_path / str(n)
        t = _nano(tmp)
        _gpu_name_on_the_emc(t, replace_folder=replace)
        line = _gpu_domain_line(_doctor(tmp))
        assert "MISSING" in line and "another device's folder" in line
        cfg = tmp / "c.toml"
        cfg.write_text('[run]\npolicy = "hysteresis"\n')
        args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg)]
        proc = subprocess.Popen(
            [*procutil.script(), "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        procutil.wait_line(proc, "thermogov: started")
        journal = json.loads((tmp / "state/journal.json").read_text())
        assert not any("emc" in e["max_rel"] or "gpu" in e["max_rel"] for e in journal["entries"])
        assert t.read_int(f"{EMC}/max_freq") == max(EMC_HZ)  # the memory clock untouched
        assert "another device's folder" in procutil.stopped(proc)


def test_a_name_that_is_not_utf8_is_printed_as_escapes(tmp_path: Path) -> None:
    t = _nano(tmp_path)
    root = os.fsencode(t.root)
    real = os.path.join(root, b"sys/devices/evil/devfreq/\xff\x1b[2Jevil")
    os.makedirs(real)
    for attr, value in (
        (b"available_frequencies", b"100 200\n"),
        (b"min_freq", b"100\n"),
        (b"max_freq", b"200\n"),
    ):
        with open(os.path.join(real, attr), "wb") as fh:
            fh.write(value)
    link = os.path.join(root, b"sys/class/devfreq/\xff\x1b[2Jevil")
    os.symlink(os.path.relpath(real, os.path.dirname(link)), link)
    for extra in ((), ("--json",)):
        done = subprocess.run(
            [*procutil.script(), "doctor", *extra, "--sysfs-root", str(tmp_path / "root")],
            capture_output=True,
            timeout=procutil.DEADLINE_S,
        )
        assert done.returncode == 0, done.stderr
        out = done.stdout.decode("utf-8")  # raised UnicodeDecodeError on main (the raw 0xff)
        assert "\\udc" not in out  # a lone surrogate (--json on main)
        if extra:
            names = [d["name"] for d in json.loads(out)["devfreq"]]
            assert "\\xff\x1b[2Jevil" in names
        else:
            assert "\\xff\\x1b[2Jevil" in out


def _unit(tmp: Path) -> Path:
    return tmp / "etc/systemd/system/thermogov.service"


def _install(tmp: Path, config: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), "service", "install", "--root", str(tmp), "--config", config],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_unit_path_with_a_newline_is_refused_and_nothing_written(tmp_path: Path) -> None:
    evil = "/etc/thermogov/a\nExecStartPre=/bin/touch /tmp/pwn\n#.toml"
    done = _install(tmp_path, evil)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "control character" in done.stderr
    assert not _unit(tmp_path).exists() and not list(tmp_path.rglob("*"))


def test_a_unit_path_with_spaces_percent_and_dollar_is_escaped(tmp_path: Path) -> None:
    config = '/etc/thermo gov/100% $HOME "q".toml'
    done = _install(tmp_path, config)
    assert done.returncode == 0, done.stderr
    start = next(ln for ln in _unit(tmp_path).read_text().splitlines() if ln.startswith("ExecStart="))
    assert start.endswith(' --config "/etc/thermo gov/100%% $$HOME \\"q\\".toml"')


def test_a_late_gpu_entry_on_another_devices_folder_is_left_alone(tmp_path: Path) -> None:
    """The same rule for a GPU that appears after start (hw/latedevfreq.py): its class entry
    linked to the EMC's folder was adopted on main, the GPU's caps written to the memory clock."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=92000, gpu_mc=92000)
    os.unlink(t.root / "sys/class/devfreq/17000000.gpu")  # the GPU driver not probed yet
    emc = t.devfreq(
        "sys/devices/platform/bus@0/2c60000.emc", "2c60000.emc", "emc", EMC_HZ, governor="userspace"
    )
    before = t.snapshot()
    proc = subprocess.Popen(
        [*procutil.script(), "run", *_args(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    procutil.wait_line(proc, "thermogov: started")
    real = os.path.realpath(t.root / emc)
    (t.root / "sys/class/devfreq/17000000.gpu").symlink_to(real)
    line = procutil.wait_line(proc, "17000000.gpu appeared but is left alone", stream="stderr")
    assert "another device's folder" in line
    procutil.stopped(proc)
    (t.root / "sys/class/devfreq/17000000.gpu").unlink()
    assert t.snapshot() == before  # the memory clock untouched
