"""How fast the simulator runs compiled by mypyc, measured on a throwaway copy of the tree.

Issue 15 asks for a share of the bare SimPy loop the interpreted simulator does not reach with
bit-identical results (docs/performance.md).  mypyc compiles the same typed modules, unchanged,
to C extensions; this tool measures what that gives without touching the source tree (a
compiled module left beside its ``.py`` in an editable install would silently shadow later
edits): it copies the package to a temporary folder laid out as installed (``sim/`` as
``thermogov/sim``, where mypy can resolve ``thermogov.sim``), compiles :data:`MODULES` there,
records the :mod:`tools.sim_identity` cases with the interpreted tree, checks them with the
compiled copy, and runs ``bench/sim_speed.py`` on the copy.  Nothing is installed and nothing
is left behind.

Run::

    python -m pip install mypy                    # a build-time tool, not a dependency
    python tools/mypyc_trial.py [--repeat 3] [--duration 240] [--keep DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The modules of a simulated tick (bench/sim_profile.py): the governor's and the world's.  The
# runner and the recorder stay interpreted (their code needs annotations mypy does not accept yet).
MODULES = (
    "thermogov/policies/trend.py",
    "thermogov/policies/stepped.py",
    "thermogov/fusion.py",
    "thermogov/sensorwatch.py",
    "thermogov/governor.py",
    "thermogov/battery.py",
    "thermogov/loadgov.py",
    "thermogov/sim/model/world.py",
    "thermogov/sim/model/sensors.py",
    "thermogov/sim/model/workload.py",
    "thermogov/sim/model/servicetime.py",
    "thermogov/sim/model/plant.py",
    "thermogov/sim/model/battery.py",
    "thermogov/sim/model/latency.py",
    "thermogov/sim/model/domains.py",
)


class TrialError(Exception):
    """A step of the trial failed; the message says which and where its output is."""


def stage(dest: Path) -> None:
    """The package as installed (``thermogov/sim``, ``thermogov/hw``), plus what the build reads."""
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info")
    shutil.copytree(ROOT / "thermogov", dest / "thermogov", ignore=ignore)
    shutil.copytree(ROOT / "sim", dest / "thermogov" / "sim", ignore=ignore)
    shutil.copytree(ROOT / "hw", dest / "thermogov" / "hw", ignore=ignore)
    for folder in ("tools", "bench"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)


def run(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> str:
    """Run one step, its output kept in ``log``; a failure names the step and the log."""
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    log.write_text(out.stdout + out.stderr)
    if out.returncode != 0:
        raise TrialError(f"`{' '.join(cmd[1:3])}` failed (exit {out.returncode}), see {log.name}")
    return out.stdout


def compile_copy(copy: Path, env: dict[str, str], logs: Path) -> list[str]:
    """mypyc on :data:`MODULES` in the copy; returns the tick's modules that now load compiled.

    The copy has no ``pyproject.toml``, so the extensions land beside their sources by module
    name; the check imports each module the way the bench will and asks where it came from.
    """
    run([sys.executable, "-m", "mypyc", *MODULES], copy, env, logs / "mypyc.log")
    names = [m.removesuffix(".py").replace("/", ".") for m in MODULES]
    probe = f"import importlib; print(*[importlib.import_module(n).__file__ for n in {names!r}])"
    files = run([sys.executable, "-c", probe], copy, env, logs / "probe.log").split()
    interpreted = [n for n, f in zip(names, files, strict=True) if not f.endswith(".so")]
    if interpreted:
        raise TrialError(f"built, but these still load from source: {', '.join(interpreted)}")
    return names


def trial(copy: Path, logs: Path, repeat: int, duration_s: float) -> None:
    """Stage, record the interpreted reference, compile, check it and bench the copy."""
    stage(copy)
    logs.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(copy))
    ref = copy / "identity-ref"
    identity = [sys.executable, "tools/sim_identity.py"]
    # The reference from this checkout (interpreted), the check on the compiled copy.
    run(
        [*identity, "record", str(ref), "--duration", str(duration_s)],
        ROOT,
        dict(os.environ),
        logs / "record.log",
    )
    names = compile_copy(copy, env, logs)
    print(f"compiled: {len(names)} modules load as extensions")
    check = run([*identity, "check", str(ref)], copy, env, logs / "check.log")
    print(check.strip().splitlines()[-1])
    bench_cmd = [sys.executable, "bench/sim_speed.py", "--repeat", str(repeat), "--no-memory"]
    print("compiled copy:", run(bench_cmd, copy, env, logs / "bench.log").rstrip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="bench runs of each variant (default 3)")
    ap.add_argument("--duration", type=float, default=240.0, help="simulated seconds per identity case")
    ap.add_argument(
        "--keep", type=Path, help="build in this new folder and keep it (default: a temporary one)"
    )
    args = ap.parse_args(argv)
    if importlib.util.find_spec("mypyc") is None:
        print("mypyc_trial: mypyc is not installed; run `python -m pip install mypy` first", file=sys.stderr)
        return 2
    if args.repeat < 1 or not 0.0 < args.duration < 1e6:
        print("mypyc_trial: --repeat must be >= 1 and --duration between 0 and 1e6 seconds", file=sys.stderr)
        return 2
    if args.keep is not None and args.keep.exists():
        print(f"mypyc_trial: --keep {args.keep} exists; name a new folder", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mypyc-trial-") as tmp:
        copy = args.keep.resolve() if args.keep is not None else Path(tmp) / "tree"
        logs = copy / "logs"
        try:
            trial(copy, logs, args.repeat, args.duration)
        except (TrialError, OSError) as e:
            where = logs
            if args.keep is None and logs.is_dir():  # the temporary folder goes, not its logs
                where = Path(tempfile.mkdtemp(prefix="mypyc-trial-logs-"))
                shutil.copytree(logs, where, dirs_exist_ok=True)
            print(f"mypyc_trial: {e} (logs in {where})", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
