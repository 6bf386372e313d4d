"""The power mode's own definition (hw/nvpmodelconf.py): which windows a mode writes.

Session 16's record tells thermogov's last cap from another value, but not a mode that wrote the
very value of that cap (board_shapes' ``mode-undone-unseen``).  nvpmodel's configuration says
which files each mode writes: at a journal restore under another mode, a window the mode sets is
the mode's (never lifted; where thermogov's recorded cap went in over it, the mode's value is
written back), a window it does not set gets its journaled values.  A file that cannot say
falls back to the record's rule with one warning naming the file.  The parser's strictness is
checked directly; the restore through the installed script.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_last_caps import _killed, _locks  # the same hot Orin Nano, killed under mode 0
from thermogov.hw.boardlock import board_lock_path
from thermogov.hw.lastcaps import last_caps_path
from thermogov.hw.nvpmodelconf import CONF_REL, ConfError, mode_writes, parse_modes
from thermogov.hw.powermode import STATUS_REL
from thermogov.hw.sysfs import SysfsTree

CPU = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPU}/policy0"
P4 = f"{CPU}/policy4"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"  # the JetPack 5 Orin Nano's
MODE_CPU_MAX = 652800

# The shape of a stock Orin file (NVIDIA's header format): FILE and CLOCK params, _KNEXT twins,
# settings by name, -1 for no cap, a PM_CONFIG section.
STOCK = """# comment
< PARAM TYPE=FILE NAME=CPU_ONLINE >
CORE_4 /sys/devices/system/cpu/cpu4/online

< PARAM TYPE=CLOCK NAME=CPU_A78_0 >
FREQ_TABLE /sys/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies
MAX_FREQ /sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq
MIN_FREQ /sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq

< PARAM TYPE=CLOCK NAME=CPU_A78_1 >
MAX_FREQ /sys/devices/system/cpu/cpu4/cpufreq/scaling_max_freq

< PARAM TYPE=CLOCK NAME=GPU >
MAX_FREQ /{gpu}/max_freq
MAX_FREQ_KNEXT /sys/devices/17000000.ga10b/devfreq_dev/max_freq

< POWER_MODEL ID=0 NAME=MAXN >
CPU_ONLINE CORE_4 1
CPU_A78_0 MAX_FREQ -1
CPU_A78_1 MAX_FREQ -1
GPU MAX_FREQ -1

< POWER_MODEL ID=2 NAME=7W >
CPU_ONLINE CORE_4 1
CPU_A78_0 MIN_FREQ 0
CPU_A78_0 MAX_FREQ {cpu}
CPU_A78_1 MAX_FREQ {cpu}
{gpu_line}
< PM_CONFIG DEFAULT=0 >
"""


def _conf(gpu_line: str = "") -> str:
    return STOCK.format(gpu=GPU, cpu=MODE_CPU_MAX, gpu_line=gpu_line)


def test_the_parser_reads_each_modes_writes_by_path_with_the_knext_twin_and_the_oldest_form() -> None:
    modes = parse_modes(_conf(f"GPU MAX_FREQ {fakesys.ORIN_NANO_GPU_HZ[1]}"))
    two = modes[2]
    assert two["/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"] == MODE_CPU_MAX
    assert two["/sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq"] == 0
    assert two[f"/{GPU}/max_freq"] == fakesys.ORIN_NANO_GPU_HZ[1]
    assert two["/sys/devices/17000000.ga10b/devfreq_dev/max_freq"] == fakesys.ORIN_NANO_GPU_HZ[1]
    assert modes[0][f"/{GPU}/max_freq"] == -1
    old = parse_modes(
        "< POWER_MODEL ID=1 NAME=MAXQ >\n/sys/x/scaling_max_freq 1200000\n< PM_CONFIG DEFAULT=1 >\n"
    )
    assert old == {1: {"/sys/x/scaling_max_freq": 1200000}}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("CPU_A78_0 MAX_FREQ 1\n", "line 1"),  # before any section
        ("< POWER_MODEL ID=2 NAME=X >\nGPU MAX_FREQ 1\n", "not declared"),
        (
            "< PARAM TYPE=CLOCK NAME=GPU >\nMAX_FREQ /g\n< POWER_MODEL ID=2 NAME=X >\nGPU MAX_FREQ fast\n",
            "integer",
        ),
        (
            "< PARAM TYPE=CLOCK NAME=GPU >\nMAX_FREQ /g\n< POWER_MODEL ID=2 NAME=X >\nGPU MAX_FREQ -2\n",
            "integer",
        ),
        ("< POWER_MODEL ID=2 NAME=X >\n< POWER_MODEL ID=2 NAME=Y >\n", "ID='2'"),
        ("< POWER_MODEL ID=two NAME=X >\n", "ID='two'"),
        ("< PARAM TYPE=CLOCK NAME=GPU\nMAX_FREQ /g\n", "header"),
        ("< PARAM TYPE=CLOCK NAME=GPU >\nMAX_FREQ relative/path\n", "PARAM line"),
        ("< PM_CONFIG DEFAULT=0 >\n", "no < POWER_MODEL"),
    ],
)
def test_a_malformed_file_is_refused_naming_what(text: str, says: str) -> None:
    with pytest.raises(ConfError, match=says.replace("(", r"\(")):
        parse_modes(text)


def test_paths_are_matched_after_resolving_links_and_the_file_may_be_a_link(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    assert (t.root / "sys/devices/system/cpu/cpu4/cpufreq").is_symlink()  # the kernel's link to policy4
    t.write("etc/nvpmodel/nvpmodel_p3767_0003.conf", _conf())
    t.link(CONF_REL, "etc/nvpmodel/nvpmodel_p3767_0003.conf")
    rels = [f"{P0}/scaling_max_freq", f"{P4}/scaling_max_freq", f"{GPU}/max_freq"]
    assert mode_writes(SysfsTree(t.root), 2, rels) == {rels[0]: MODE_CPU_MAX, rels[1]: MODE_CPU_MAX}
    assert mode_writes(SysfsTree(t.root), 0, rels) == dict.fromkeys(rels, -1)
    with pytest.raises(ConfError, match="no POWER_MODEL ID=5"):
        mode_writes(SysfsTree(t.root), 5, rels)


def test_a_conf_link_leading_out_of_the_root_is_not_followed(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    (t.root / "etc").mkdir()
    outside = tmp_path / "real-etc.conf"
    outside.write_text(_conf())
    (t.root / CONF_REL).symlink_to(outside)
    with pytest.raises(ConfError, match="outside the root"):
        mode_writes(SysfsTree(t.root), 2, [f"{P0}/scaling_max_freq"])


# -- the restore, through the installed script ---------------------------------------------------


def _mode_2(t: fakesys.FakeTree, conf: str, gpu_max: int | None) -> None:
    """``nvpmodel -m 2``: the CPU clusters' max, and the GPU's when ``gpu_max`` is given."""
    t.write(CONF_REL, conf)
    t.write(STATUS_REL, "pmode:0002 fmode:quiet\n")
    t.write(f"{P0}/scaling_max_freq", MODE_CPU_MAX)
    t.write(f"{P4}/scaling_max_freq", MODE_CPU_MAX)
    if gpu_max is not None:
        t.write(f"{GPU}/max_freq", gpu_max)


def _restore(tmp: Path) -> subprocess.CompletedProcess[str]:
    r = procutil.run_cli("restore", *procutil.paths(tmp), *_locks(tmp))
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return r


def test_a_mode_that_wrote_thermogovs_very_cap_keeps_it(tmp_path: Path) -> None:
    """The record's blind spot (``mode-undone-unseen``): the mode's GPU max equals thermogov's
    cap; session 16 lifted it to the value of before, the mode's definition says it is the mode's."""
    t, _before = _killed(tmp_path)
    capped = t.read_int(f"{GPU}/max_freq")
    _mode_2(t, _conf(f"GPU MAX_FREQ {capped}"), capped)
    r = _restore(tmp_path)
    assert t.read_int(f"{GPU}/max_freq") == capped, r.stderr
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_CPU_MAX
    assert "which sets them by its own definition" in r.stdout + r.stderr


def test_thermogovs_cap_over_the_modes_value_gives_the_modes_value(tmp_path: Path) -> None:
    """The governor wrote its cap again after the mode, before the daemon's look: the file reads
    thermogov's recorded cap, the mode set a higher one; the mode's value is what stands."""
    t, before = _killed(tmp_path)
    capped = t.read_int(f"{GPU}/max_freq")
    mode_gpu = min(f for f in fakesys.ORIN_NANO_GPU_HZ if f > capped)
    assert mode_gpu < int(before[f"{GPU}/max_freq"])  # neither thermogov's cap nor the value of before
    _mode_2(t, _conf(f"GPU MAX_FREQ {mode_gpu}"), None)  # the file still reads thermogov's cap
    r = _restore(tmp_path)
    assert t.read_int(f"{GPU}/max_freq") == mode_gpu, r.stderr
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_CPU_MAX


def test_a_window_the_mode_does_not_set_gets_its_value_of_before_without_a_record(tmp_path: Path) -> None:
    """Without the record (removed) session 16 left every window as it read; the mode's
    definition says the GPU was not the mode's to change: its value of before goes back."""
    t, before = _killed(tmp_path)
    last_caps_path(board_lock_path(tmp_path / "root", tmp_path / "locks")).unlink()
    _mode_2(t, _conf(), None)
    r = _restore(tmp_path)
    want = dict(before)
    for p in (P0, P4):  # the mode's max; the min of before (above it) lowered to it
        want[f"{p}/scaling_max_freq"] = f"{MODE_CPU_MAX}\n".encode()
        want[f"{p}/scaling_min_freq"] = f"{MODE_CPU_MAX}\n".encode()
    want[STATUS_REL] = b"pmode:0002 fmode:quiet\n"
    want[CONF_REL] = _conf().encode()
    snap = t.snapshot()
    snap.pop("etc", None)
    want.pop("etc", None)
    assert snap == want, r.stderr


@pytest.mark.parametrize("conf", [None, "< POWER_MODEL ID=2 NAME=X >\nGPU MAX_FREQ 1\n"])
def test_a_missing_or_malformed_file_falls_back_to_the_record_with_one_warning(
    tmp_path: Path, conf: str | None
) -> None:
    t, before = _killed(tmp_path)
    capped = t.read_int(f"{GPU}/max_freq")
    _mode_2(t, conf or "", capped)  # the mode wrote thermogov's very cap: the record cannot tell
    if conf is None:
        (t.root / CONF_REL).unlink()
    r = _restore(tmp_path)
    out = r.stdout + r.stderr
    assert out.count(f"warning: {t.root / CONF_REL}") == 1, out
    assert t.read_int(f"{GPU}/max_freq") == int(before[f"{GPU}/max_freq"])  # session 16's rule
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_CPU_MAX


# -- the daemon alive: the limit watch sees the mode change --------------------------------------


def _running_then_mode(tmp: Path) -> tuple[fakesys.FakeTree, subprocess.Popen[bytes], int]:
    """A hot Orin Nano governed under mode 0; ``nvpmodel -m 2`` lowers the CPU clusters and
    writes the GPU max thermogov's cap already holds (nothing to see in that file); the daemon
    has said the change."""
    t = fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)
    t.write(STATUS_REL, "pmode:0000 fmode:quiet\n")
    proc = procutil.start_run(tmp, "--duration", "60s", *_locks(tmp))
    procutil.wait_line(proc, "thermogov: started")
    capped = t.read_int(f"{GPU}/max_freq")
    assert capped < fakesys.ORIN_NANO_GPU_HZ[-1]
    assert t.read_int(f"{P0}/scaling_max_freq") > MODE_CPU_MAX  # the mode lowers the CPU
    _mode_2(t, _conf(f"GPU MAX_FREQ {capped}"), capped)
    procutil.wait_line(proc, "nvpmodel mode changed", stream="stderr")
    return t, proc, capped


def test_a_clean_exit_keeps_a_window_the_mode_set_to_thermogovs_very_cap(tmp_path: Path) -> None:
    t, proc, capped = _running_then_mode(tmp_path)
    proc.terminate()
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err
    assert t.read_int(f"{GPU}/max_freq") == capped, err.decode()
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_CPU_MAX


def test_a_window_the_mode_set_to_thermogovs_cap_is_journaled_as_the_modes(tmp_path: Path) -> None:
    t, proc, capped = _running_then_mode(tmp_path)
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    _restore(tmp_path)
    assert t.read_int(f"{GPU}/max_freq") == capped
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_CPU_MAX
