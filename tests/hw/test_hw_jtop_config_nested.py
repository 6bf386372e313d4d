"""A jetson_stats config that nests too deep is no config of jtop's (review 21r).

hw/jtopfan.py reads ``usr/local/jetson_stats/config.json`` under the root at every start with
the L4T fan governed and in ``doctor``, and says nothing of a file it cannot read as expected.
``json.loads`` of ``[[[[...`` raises RecursionError (the decoder recurses per level), which it
did not catch: ``doctor`` and ``run`` ended with "internal error", exit 1.  Through the
installed script.
"""

from __future__ import annotations

from pathlib import Path

from tests.hw import procutil
from tests.hw.test_hw_l4t_fan_rival import GOVERNED, _nano_jp46

CONFIG = "usr/local/jetson_stats/config.json"


def _nested(tmp: Path) -> None:
    _nano_jp46(tmp / "root")
    cfg = tmp / "root" / CONFIG
    cfg.parent.mkdir(parents=True)
    cfg.write_text("[" * 5000)


def test_doctor_says_nothing_of_a_nested_jtop_config(tmp_path: Path) -> None:
    _nested(tmp_path)
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert "jetson_stats keeps fan settings" not in done.stdout


def test_run_governs_the_fan_with_a_nested_jtop_config(tmp_path: Path) -> None:
    _nested(tmp_path)
    proc = procutil.start_run(tmp_path, "--duration", "120s", run_lines=GOVERNED)
    procutil.wait_line(proc, "thermogov: started")
    assert "internal error" not in procutil.stopped(proc)
