"""tools/mypyc_trial.py: its refusals and failures are one line with the fix, and it never
writes into the source tree (the compile itself is measured by hand: it takes a minute)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "mypyc_trial.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mypyc_trial", TOOL)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_without_mypyc_it_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = _tool()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "mypyc" else real(name))
    assert tool.main([]) == 2
    err = capsys.readouterr().err
    assert "pip install mypy" in err and err.count("\n") == 1


@pytest.mark.parametrize("args", [["--repeat", "0"], ["--duration", "nan"], ["--duration", "-1"]])
def test_bad_arguments_exit_2_in_one_line(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = _tool()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())  # as if mypy were there
    assert tool.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("mypyc_trial: --") and err.count("\n") == 1


def test_a_failed_step_is_one_line_naming_it_and_the_logs_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = _tool()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())
    before = set((tool.ROOT / "sim" / "model").iterdir())

    def failing(cmd: list[str], **_kw: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(cmd, 3, "", "boom\n")

    monkeypatch.setattr(tool.subprocess, "run", failing)
    keep = tmp_path / "trial"
    assert tool.main(["--keep", str(keep)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "failed (exit 3)" in err and str(keep / "logs") in err
    assert (keep / "logs" / "record.log").read_text() == "boom\n"
    assert (keep / "thermogov" / "sim" / "model" / "world.py").is_file()  # staged as installed
    assert set((tool.ROOT / "sim" / "model").iterdir()) == before  # the tree untouched
    assert tool.main(["--keep", str(keep)]) == 2  # an existing folder is never reused
