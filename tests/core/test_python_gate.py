"""pip on an old Python (JetPack 5's 3.8) gets one clear sentence from the build backend."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"
IMPORT = f"import sys; sys.path.insert(0, {str(TOOLS)!r}); import pep517_backend"


def _old_pythons() -> list[str]:
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = [
        p for v in ("3.8", "3.9") for p in sorted(glob.glob(f"{root}/versions/{v}.*/bin/python{v}"))[-1:]
    ]
    return found


def test_backend_is_setuptools_on_a_supported_python() -> None:
    sys.path.insert(0, str(TOOLS))
    try:
        import pep517_backend
    finally:
        sys.path.remove(str(TOOLS))
    for hook in ("build_wheel", "build_sdist", "build_editable", "get_requires_for_build_wheel"):
        assert callable(getattr(pep517_backend, hook)), hook


@pytest.mark.parametrize("python", _old_pythons() or [pytest.param("", marks=pytest.mark.skip("no 3.8/3.9"))])
def test_old_python_is_told_what_to_do(python: str) -> None:
    r = subprocess.run([python, "-c", IMPORT], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("thermogov needs Python 3.10 or newer; this is Python 3.")
    assert "docs/hardware.md" in line and "JetPack 5" in line
