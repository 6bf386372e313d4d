"""No thermogov a test or a bench starts may use the real /run/thermogov (session 29i).

``board-*.lock``, ``caps-*`` and ``inferences`` of fake trees appeared in the real runtime folder
during test and bench runs: a bench is no test (tests/conftest.py's fixture does not run for it)
and its children inherited no ``THERMOGOV_LOCK_DIR``.  Asserted here on what each subprocess
helper hands the child, with the variable unset or naming /run/thermogov, and on every bench that
starts a thermogov calling :func:`tests.runtimedir.isolated_runtime_dir` (a listing of the real
folder before and after would blame whatever else runs on the machine).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli import script
from tests.hw import faultshim, procutil
from tests.runtimedir import REAL_RUNTIME_DIR, RUNTIME_ENV

REPO = Path(__file__).resolve().parents[2]


class _Seen:
    def __init__(self) -> None:
        self.envs: list[dict[str, str] | None] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.envs.append(kwargs.get("env"))
        return subprocess.CompletedProcess(args[0] if args else [], 0, "", "")


def _runtime_of(env: dict[str, str] | None) -> str:
    """The runtime folder the child would use: its own variable, or this process's when it
    inherits the environment (env None)."""
    value = (os.environ if env is None else env).get(RUNTIME_ENV, "")
    return value or str(REAL_RUNTIME_DIR)


def _calls(tmp: Path) -> dict[str, Callable[[], object]]:
    return {
        "procutil.run_cli": lambda: procutil.run_cli("doctor"),
        "procutil.run_cli(env=shim)": lambda: procutil.run_cli(
            "doctor", env=faultshim.env(tmp / "shim.so", tmp / "rules", tmp / "root")
        ),
        "procutil.start_run": lambda: procutil.start_run(tmp),
        "script.thermogov": lambda: script.thermogov("boards"),
        "script.thermogov_fd": lambda: script.thermogov_fd("boards", data=b""),
        "procutil.run_cli(env=scratch)": lambda: procutil.run_cli("doctor", env={"PATH": "/usr/bin:/bin"}),
    }


@pytest.mark.parametrize("unset", [True, False], ids=["unset", "the-real-folder"])
@pytest.mark.parametrize(
    "helper",
    [
        "procutil.run_cli",
        "procutil.run_cli(env=shim)",
        "procutil.start_run",
        "script.thermogov",
        "script.thermogov_fd",
        "procutil.run_cli(env=scratch)",
    ],
)
def test_every_subprocess_helper_gives_its_child_a_runtime_dir_that_is_not_run_thermogov(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helper: str, unset: bool
) -> None:
    if unset:
        monkeypatch.delenv(RUNTIME_ENV, raising=False)
    else:
        monkeypatch.setenv(RUNTIME_ENV, str(REAL_RUNTIME_DIR))
    seen = _Seen()
    monkeypatch.setattr(subprocess, "run", seen)
    monkeypatch.setattr(subprocess, "Popen", seen)
    _calls(tmp_path)[helper]()
    assert seen.envs, helper
    for env in seen.envs:
        runtime = _runtime_of(env)
        # main: the child inherited no variable, so its locks and caps went to /run/thermogov
        assert os.path.realpath(runtime) != os.path.realpath(REAL_RUNTIME_DIR), helper
        assert Path(runtime).is_dir()


_STARTS_THERMOGOV = re.compile(r'procutil|"run",|"run"\]|RunOptions|thermogov\.cli\b|daemon\.run\(')


def test_every_bench_that_starts_a_thermogov_isolates_its_runtime_dir() -> None:
    benches = [
        p
        for p in sorted((REPO / "bench").glob("*.py"))
        if "__main__" in (text := p.read_text()) and _STARTS_THERMOGOV.search(text)
    ]
    assert len(benches) >= 5  # the daemon benches are found at all
    missing = [p.name for p in benches if "isolated_runtime_dir()" not in p.read_text()]
    assert not missing, f"call tests.runtimedir.isolated_runtime_dir() in main(): {missing}"
