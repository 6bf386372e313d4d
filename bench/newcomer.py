"""Replay a new board user's first hour on a fresh clone, printing each step and its exit status.

    python bench/newcomer.py [--pythons 3.10,3.11,3.12,3.13] [--quick] [--keep] [--repo DIR]

It clones the repository (its committed HEAD) into a temporary folder and, as a newcomer would:

1. installs it into a fresh venv with each supported Python it finds (``--pythons``; on PATH as
   ``pythonX.Y`` or under pyenv's ``versions/``), checks ``thermogov --version`` and a short
   ``sim``; tries Python 3.8 (JetPack 5), which must refuse with a sentence naming the fix, and
   the JetPack 5 way: an interpreter copied under an ``opt/`` folder, a venv from it;
2. runs the README's two commands (install -e, ``thermogov sim``; install -e '.[test]',
   ``pytest``; ``--quick`` runs the suite without the slow tests);
3. tries the board commands without a board and with the emulator: ``doctor``,
   ``run --dry-run``, ``emulate`` + ``run``, ``restore``, as root and as the user ``nobody``
   (with the unit's 0700 state folder), ``service install|uninstall --root``;
4. feeds the bad inputs of issue 9 and expects exit status 2.

Each step prints ``ok`` when its exit status is the expected one, ``XX`` otherwise, with the
last line of its stderr (steps run with ``show`` print it, or their line with that text, when they pass too).  The script
needs root (it drops to ``nobody`` for the user steps) and
the package index (pip installs).  It exits 0 when every step was as expected.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.runtimedir import child_env, isolated_runtime_dir  # noqa: E402

SUPPORTED = ("3.10", "3.11", "3.12", "3.13")
TRIP75 = "[policies.stepped]\ntrip_c = 75.0\nrelease_c = 60.0\n"


@dataclass
class Step:
    name: str
    code: int
    want: tuple[int, ...]
    seconds: float
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.code in self.want


@dataclass
class Replay:
    work: Path
    steps: list[Step] = field(default_factory=list)

    def run(
        self,
        name: str,
        argv: Sequence[str],
        want: int | tuple[int, ...] = 0,
        *,
        cwd: Path | None = None,
        user: bool = False,
        timeout: float = 900.0,
        check: Callable[[subprocess.CompletedProcess[str]], str] | None = None,
        env: dict[str, str] | None = None,
        show: bool | str = False,
    ) -> subprocess.CompletedProcess[str]:
        """Run one step; ``show`` prints its last line (or the line with that text) when it passes too."""
        wants = want if isinstance(want, tuple) else (want,)
        t0 = time.monotonic()
        try:
            r = subprocess.run(
                list(argv),
                cwd=cwd or self.work,
                capture_output=True,
                text=True,
                timeout=timeout,
                preexec_fn=_drop if user else None,
                env=child_env(env or (USER_ENV if user else None)),  # never the real /run/thermogov
            )
        except subprocess.TimeoutExpired:
            r = subprocess.CompletedProcess(list(argv), 124, "", f"timed out after {timeout:g} s")
        except OSError as e:
            r = subprocess.CompletedProcess(list(argv), 127, "", f"{argv[0]}: {e.strerror}")
        note = check(r) if check is not None and r.returncode in wants else ""
        code = r.returncode if not note else -1
        lines = [ln.strip() for ln in (r.stderr or r.stdout or "").splitlines() if ln.strip()]
        # our own words, past pip's; for pytest, the first failed test
        ours = [ln for ln in lines if ln.startswith("thermogov")]
        failed = [ln.strip() for ln in (r.stdout or "").splitlines() if ln.startswith("FAILED ")]
        ours = failed[:1] or ours
        if isinstance(show, str):  # the line with this text, wherever it was printed
            ours = [ln.strip() for ln in (r.stdout + r.stderr).splitlines() if show in ln] or ours
        if not note and (code not in wants or show):
            note = (ours or lines or [""])[-1]
        self.record(Step(name, code, wants, time.monotonic() - t0, note))
        return r

    def record(self, step: Step) -> None:
        self.steps.append(step)
        flag = "ok" if step.ok else "XX"
        want = "/".join(str(w) for w in step.want)
        line = f"[{flag}] exit {step.code:>3} (want {want:>5}) {step.seconds:6.1f} s  {step.name}"
        print(line + (f"\n        -> {step.note[:300]}" if step.note else ""), flush=True)


USER_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/", "LC_ALL": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


def _drop() -> None:
    user = pwd.getpwnam("nobody")
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)


def find_python(version: str) -> str | None:
    """An interpreter for X.Y that really runs (a pyenv shim for a version not selected does not)."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    cands = [
        shutil.which(f"python{version}"),
        *sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"))[-1:],
    ]
    for c in cands:
        if c and subprocess.run([c, "-c", "import sys"], capture_output=True).returncode == 0:
            return c
    return None


def _has(text: str) -> Callable[[subprocess.CompletedProcess[str]], str]:
    def check(r: subprocess.CompletedProcess[str]) -> str:
        return "" if text in r.stdout + r.stderr else f"output lacks {text!r}"

    return check


def user_prefix(venv: Path) -> list[str] | None:
    """argv prefix running this venv's thermogov as nobody (pyenv's interpreters may be out of reach)."""
    v = subprocess.run(
        [
            str(venv / "bin/python"),
            "-c",
            "import sys, sysconfig; print(sys.version_info[1], sysconfig.get_paths()['purelib'])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    code = f"import site, sys; site.addsitedir({v[1]!r}); sys.argv[0] = 'thermogov'; from thermogov.cli import main; main()"
    for exe in (str(venv / "bin/python"), os.path.realpath(venv / "bin/python"), f"/usr/bin/python3.{v[0]}"):
        try:
            r = subprocess.run(
                [exe, "-c", code, "--version"], preexec_fn=_drop, env=USER_ENV, capture_output=True
            )
        except OSError:  # nobody may not reach it (pyenv under a 0700 /root)
            continue
        if r.returncode == 0:
            return [exe, "-c", code]
    return None


def wait_for(path: Path, proc: subprocess.Popen[str], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.2)
    return False


def install_legs(rp: Replay, clone: Path, pythons: Sequence[str]) -> None:
    for v in pythons:
        py = find_python(v)
        if py is None:
            rp.record(Step(f"python {v}: not found (PATH, pyenv)", 127, (0,), 0.0))
            continue
        venv = rp.work / f"venv-{v}"
        rp.run(f"python {v}: venv", [py, "-m", "venv", str(venv)])
        rp.run(f"python {v}: pip install <clone>", [str(venv / "bin/pip"), "install", "-q", str(clone)])
        rp.run(f"python {v}: thermogov --version", [str(venv / "bin/thermogov"), "--version"], show=True)
        rp.run(
            f"python {v}: thermogov sim --duration 60 --json",
            [
                str(venv / "bin/thermogov"),
                "sim",
                "--duration",
                "60",
                "--json",
                "--out",
                str(rp.work / f"traces-{v}"),
            ],
        )


def jetpack5_legs(rp: Replay, clone: Path) -> None:
    py38 = find_python("3.8")
    if py38 is None:
        rp.record(Step("python 3.8 (JetPack 5): not found", 127, (1,), 0.0))
    else:
        venv = rp.work / "venv-3.8"
        rp.run("python 3.8: venv", [py38, "-m", "venv", str(venv)])
        rp.run(
            "python 3.8 (JetPack 5): pip install <clone> refuses, naming the fix",
            [str(venv / "bin/pip"), "install", "-q", str(clone)],
            want=1,
            check=_has("thermogov needs Python 3.10 or newer"),
            show=True,
        )
    # The documented way: an interpreter of its own under /opt (uv's python-build-standalone
    # there; here a copy of a 3.10 build, which is relocatable the same way), a venv from it.
    src = find_python("3.10")
    if src is None:
        rp.record(Step("JetPack 5 way: no Python 3.10 to stand in for uv's", 127, (0,), 0.0))
        return
    prefix = Path(src).resolve().parents[1]
    opt = rp.work / "opt"
    t0 = time.monotonic()
    shutil.copytree(prefix, opt / "python" / prefix.name, symlinks=True)
    rp.record(Step(f"JetPack 5 way: interpreter under {opt}/python", 0, (0,), time.monotonic() - t0))
    py = opt / "python" / prefix.name / "bin" / "python3.10"
    rp.run("JetPack 5 way: venv opt/thermogov from it", [str(py), "-m", "venv", str(opt / "thermogov")])
    rp.run(
        "JetPack 5 way: pip install <clone>", [str(opt / "thermogov/bin/pip"), "install", "-q", str(clone)]
    )
    rp.run(
        "JetPack 5 way: its python is the /opt one",
        [str(opt / "thermogov/bin/python"), "-c", "import sys; print(sys.base_prefix)"],
        check=_has(str(opt / "python")),
    )
    root = rp.work / "image-jp5"
    root.mkdir()
    rp.run(
        "JetPack 5 way: service install --root --venv points ExecStart there",
        [
            str(opt / "thermogov/bin/thermogov"),
            "service",
            "install",
            "--root",
            str(root),
            "--venv",
            str(opt / "thermogov"),
        ],
        check=lambda r: (
            ""
            if f"ExecStart={opt}/thermogov/bin/thermogov run"
            in (root / "etc/systemd/system/thermogov.service").read_text()
            else "unit has another ExecStart"
        ),
    )


def readme_legs(rp: Replay, clone: Path, quick: bool) -> Path:
    venv = rp.work / "venv-readme"
    rp.run("README: python3 -m venv (the default python3)", [sys.executable, "-m", "venv", str(venv)])
    pip = str(venv / "bin/pip")
    rp.run("README 1: pip install -e .", [pip, "install", "-q", "-e", "."], cwd=clone)
    rp.run(
        "README 1: thermogov sim",
        [str(venv / "bin/thermogov"), "sim"],
        cwd=clone,
        check=_has("sustained throughput"),
        show="sustained throughput",
    )
    rp.run("README 2: pip install -e '.[test]'", [pip, "install", "-q", "-e", ".[test]"], cwd=clone)
    suite = [str(venv / "bin/python"), "-m", "pytest", "-q", "-x"] + (["-m", "not slow"] if quick else [])
    rp.run(
        "README 2: python3 -m pytest" + (" -m 'not slow' (--quick)" if quick else ""),
        suite,
        cwd=clone,
        timeout=3600,
    )
    return venv


def board_legs(rp: Replay, venv: Path, clone: Path) -> None:
    tg = str(venv / "bin/thermogov")
    here_board = (
        any(Path("/sys/class/thermal").glob("thermal_zone*"))
        and Path("/sys/devices/system/cpu/cpufreq").is_dir()
    )
    rp.run("doctor on this machine", [tg, "doctor"], want=0 if here_board else 1, show=True)
    rp.run("doctor --sysfs-root /nonexistent", [tg, "doctor", "--sysfs-root", "/nonexistent"], want=2)
    empty = rp.work / "empty-root"
    empty.mkdir()
    rp.run(
        "doctor --json on an empty root (no board)",
        [tg, "doctor", "--json", "--sysfs-root", str(empty)],
        want=1,
    )

    tree = rp.work / "pi5"
    state = rp.work / "state"
    state.mkdir(mode=0o700)
    out = rp.work / "runs"
    out.mkdir()
    out.chmod(0o777)
    cfg = rp.work / "trip75.toml"
    cfg.write_text(TRIP75)
    emu = subprocess.Popen(
        [tg, "emulate", "--board", "rpi5", "--sysfs-root", str(tree), "--speed", "10"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    t0 = time.monotonic()
    ready = wait_for(tree / "sys/devices/system/cpu/cpufreq", emu, 60.0)
    rp.record(
        Step("emulate --board rpi5 --speed 10: tree ready", 0 if ready else 1, (0,), time.monotonic() - t0)
    )
    try:
        common = [
            "--sysfs-root",
            str(tree),
            "--state-dir",
            str(state),
            "--lock-file",
            str(rp.work / "tg.lock"),
        ]
        rp.run("doctor --sysfs-root <emulated>", [tg, "doctor", "--sysfs-root", str(tree)])
        rp.run(
            "doctor with a 75 °C trip on the Pi 5 warns",
            [tg, "doctor", "--sysfs-root", str(tree), "--config", str(cfg)],
            check=_has("cannot be held"),
            show="cannot be held",
        )
        rp.run(
            "doctor --json <emulated>",
            [tg, "doctor", "--json", "--sysfs-root", str(tree)],
            check=lambda r: "" if json.loads(r.stdout)["board_found"] else "board_found false",
        )
        prefix = user_prefix(venv)
        if prefix is None:
            rp.record(Step("as nobody: no interpreter nobody can run", 127, (0,), 0.0))
        else:
            rp.run("as nobody: doctor <emulated>", [*prefix, "doctor", "--sysfs-root", str(tree)], user=True)
            rp.run(
                "as nobody: run --dry-run with the 0700 state dir",
                [*prefix, "run", "--dry-run", *common, "--out", str(out), "--duration", "3s"],
                user=True,
                show="not readable",
            )
            rp.run(
                "as nobody: run (no --dry-run) needs root",
                [*prefix, "run", *common, "--duration", "3s"],
                want=2,  # usage: needs sudo, like restore (tests/cli/test_exit_codes.py)
                user=True,
                show=True,
            )
            rp.run(
                "as nobody: restore needs root", [*prefix, "restore", *common], want=2, user=True, show=True
            )
        rp.run(
            "root: run --duration 5s <emulated>",
            [tg, "run", *common, "--out", str(out), "--duration", "5s"],
            show="sustained throughput",
        )
        rp.run(
            "root: run --policy hysteresis --duration 3s",
            [tg, "run", *common, "--out", str(out), "--duration", "3s", "--policy", "hysteresis"],
        )
        rp.run(
            "root: run with the 75 °C trip warns at start",
            [tg, "run", *common, "--out", str(out), "--duration", "2s", "--config", str(cfg)],
            check=_has("cannot be held"),
            show="cannot be held",
        )
        rp.run("root: restore (nothing left to restore)", [tg, "restore", *common], show=True)
        rp.run(
            "run --policy nope",
            [tg, "run", *common, "--dry-run", "--duration", "1s", "--policy", "nope"],
            want=2,
        )
    finally:
        emu.send_signal(signal.SIGINT)
        try:
            code = emu.wait(timeout=30)
        except subprocess.TimeoutExpired:
            emu.kill()
            code = emu.wait()
        rp.record(Step("emulate stopped by Ctrl-C", code, (0, 130), 0.0))

    hot = rp.work / "orin-hot"
    rp.run(
        "emulate a fanless Orin Nano at 45 °C, --speed 100: shutdown reported",
        [
            tg,
            "emulate",
            "--board",
            "jetson-orin-nano",
            "--sysfs-root",
            str(hot),
            "--speed",
            "100",
            "--ambient",
            "45",
            "--wall-duration",
            "120s",
        ],
        want=1,
        timeout=300,
        show=True,
    )
    rp.run(
        "run on the powered-off tree refuses",
        [
            tg,
            "run",
            "--sysfs-root",
            str(hot),
            "--state-dir",
            str(rp.work / "s2"),
            "--lock-file",
            str(rp.work / "l2"),
            "--duration",
            "1s",
        ],
        want=2,
    )

    image = rp.work / "image"
    image.mkdir()
    unit = image / "etc/systemd/system/thermogov.service"
    rp.run(
        "service install --root <tmp>",
        [tg, "service", "install", "--root", str(image)],
        check=lambda r: (
            ""
            if f"ExecStart={venv}/bin/thermogov run --config /etc/thermogov/thermogov.toml"
            in unit.read_text()
            else "wrong ExecStart"
        ),
    )
    rp.run(
        "service install --root <tmp> --enable (not the live system)",
        [tg, "service", "install", "--root", str(image), "--enable"],
        want=2,
    )
    rp.run(
        "service uninstall --root <tmp> leaves nothing",
        [tg, "service", "uninstall", "--root", str(image)],
        check=lambda r: "" if not [p for p in image.rglob("*") if p.is_file()] else "files left",
    )


def bad_input_legs(rp: Replay, venv: Path) -> None:
    tg = str(venv / "bin/thermogov")
    (rp.work / "board.txt").write_text("not toml [\n")
    cases = [
        ("sim --out <unwritable>", ["sim", "--duration", "10", "--out", "/proc/thermogov-out"]),
        (
            "sim --board <not TOML>",
            ["sim", "--duration", "10", "--board", str(rp.work / "board.txt")],
        ),
        ("plot --out <a file name>", ["plot", str(rp.work / "no-run"), "--out", str(rp.work / "fig.png")]),
        ("sim --policy fixed:99999", ["sim", "--duration", "10", "--policy", "fixed:99999"]),
        (
            "sim --scenario rpi5-steady-25 --board jetson-orin-nano",
            ["sim", "--scenario", "rpi5-steady-25", "--board", "jetson-orin-nano"],
        ),
        ("sim --duration -5", ["sim", "--duration", "-5"]),
        ("sim --ambient nan", ["sim", "--ambient", "nan"]),
        (
            "run --duration abc --dry-run",
            ["run", "--dry-run", "--duration", "abc", "--sysfs-root", str(rp.work / "empty-root")],
        ),
        (
            "run --board nope --dry-run",
            ["run", "--dry-run", "--board", "nope", "--sysfs-root", str(rp.work / "empty-root")],
        ),
        ("doctor --config <missing>", ["doctor", "--config", str(rp.work / "missing.toml")]),
        ("emulate --speed 0", ["emulate", "--sysfs-root", str(rp.work / "e0"), "--speed", "0"]),
        ("emulate --speed inf", ["emulate", "--sysfs-root", str(rp.work / "e1"), "--speed", "inf"]),
        ("plot <no such run>", ["plot", str(rp.work / "no-run")]),
        ("import <no such file>", ["import", str(rp.work / "no-log.csv")]),
        ("compare --scenario nope", ["compare", "--scenario", "nope"]),
    ]
    for name, args in cases:
        rp.run(f"bad input: {name}", [tg, *args], want=2, timeout=300, show=True)


def main() -> int:
    isolated_runtime_dir()  # never the real /run/thermogov (tests/runtimedir.py)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pythons", default=",".join(SUPPORTED), help="comma list of X.Y to install with")
    ap.add_argument("--quick", action="store_true", help="one Python, and the suite without slow tests")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--repo", type=Path, default=REPO, help="repository to clone (default: this one)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("newcomer: run as root (the user steps drop to nobody)", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="thermogov-newcomer-"))
    work.chmod(0o755)
    rp = Replay(work)
    print(f"newcomer: fresh clone of {args.repo} in {work}", flush=True)
    try:
        clone = work / "thermogov"
        rp.run("git clone <repo>", ["git", "clone", "--quiet", "--no-hardlinks", str(args.repo), str(clone)])
        pythons = [p.strip() for p in args.pythons.split(",") if p.strip()]
        install_legs(rp, clone, pythons[:1] if args.quick else pythons)
        jetpack5_legs(rp, clone)
        venv = readme_legs(rp, clone, args.quick)
        board_legs(rp, venv, clone)
        bad_input_legs(rp, venv)
    finally:
        good = sum(s.ok for s in rp.steps)
        print(f"newcomer: {good} of {len(rp.steps)} steps as expected; {len(rp.steps) - good} not")
        if args.keep:
            print(f"newcomer: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if all(s.ok for s in rp.steps) else 1


if __name__ == "__main__":
    raise SystemExit(main())
