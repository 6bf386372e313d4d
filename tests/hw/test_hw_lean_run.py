"""What a real ``thermogov run`` loads, end to end: no simulator, no data stack, no optional face.

``tests/core/test_lean_imports.py`` imports the daemon's modules, and
``tests/core/test_import_graph.py`` reads every import statement; neither runs the command, so
an import made on the way through start-up, validation, the loop and restore (a lazy import in a
function only ``run`` calls) would pass both.  Here the console script's own entry governs a fake
Raspberry Pi 5 for a dry run in a fresh interpreter and reports every module it loaded.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.hw import fakesys
from tests.hw.cliargs import run_args

# The boundary rule of hw (docs/architecture.md): no simulator and no data stack, and the
# optional extras only when their option is given.  Nor numpy with the default policy: the
# built-in workload's numpy runs in its child process (hw/infer.py), and only stepped's
# limit_settled (off by default) imports it in the daemon.
FORBIDDEN = ("simpy", "pandas", "scipy", "matplotlib", "numpy", "prometheus_client", "rich")
MARK = "LOADED:"


def test_a_dry_run_of_the_daemon_loads_no_simulator_no_data_stack_and_no_extra(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    argv = [
        "run",
        "--dry-run",
        *run_args(tmp_path),
        "--lock-dir",
        str(tmp_path / "locks"),
        "--state-file",
        str(tmp_path / "state.json"),
    ]
    code = (
        "import sys\n"
        "from thermogov.cli import run_main\n"
        f"status = run_main({argv!r})\n"
        "names = sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in "
        f"{FORBIDDEN!r}}} | {{'thermogov.sim' for m in sys.modules if m.startswith('thermogov.sim')}})\n"
        f"print({MARK!r}, status, ','.join(names), file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    report = [line for line in out.stderr.splitlines() if line.startswith(MARK)]
    assert report, f"the child reported nothing: {out.stderr[-400:]}"
    _, status, *loaded = report[-1].split(" ")
    assert status == "0", out.stderr[-400:]  # the run governed (dry) and ended by its duration
    assert loaded == [""], f"thermogov run loaded {loaded[0]}"
