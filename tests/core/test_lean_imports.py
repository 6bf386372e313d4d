"""The core must not drag the simulator or the data stack in: the board daemon shares it."""

import subprocess
import sys

HEAVY = ("simpy", "pandas", "matplotlib", "scipy")
CORE_MODULES = [
    "thermogov",
    "thermogov.interfaces",
    "thermogov.config",
    "thermogov.board",
    "thermogov.fusion",
    "thermogov.scheduler",
    "thermogov.governor",
    "thermogov.policies",
    "thermogov.trace",
    "thermogov.runs",
    "thermogov.cli",
    "thermogov.costmodel",
]


def test_core_imports_none_of_the_heavy_packages() -> None:
    code = (
        "import importlib, sys\n"
        f"for m in {CORE_MODULES!r}: importlib.import_module(m)\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# What `thermogov run` loads: the hardware world imports no simulator and no data stack either.
HW_MODULES = ["thermogov.cli", "thermogov.hw.cli", "thermogov.hw.daemon", "thermogov.hw.doctor"]


def test_the_hardware_world_loads_no_simulator_and_no_data_stack() -> None:
    code = (
        "import importlib, sys\n"
        f"for m in {HW_MODULES!r}: importlib.import_module(m)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        + repr(HEAVY)
        + " or m.startswith('thermogov.sim')]\n"
        "print(','.join(sorted(bad)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
