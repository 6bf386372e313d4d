"""mypy over the package as it is installed, so ``thermogov.sim`` and ``thermogov.hw`` resolve.

The source tree keeps ``sim/`` and ``hw/`` beside ``thermogov/`` and the build maps them into the
package (``[tool.setuptools] package-dir``).  mypy cannot follow that mapping or the editable
install's import hook: run on the folders, every ``from thermogov.hw...`` and
``from thermogov.sim...`` import is an unresolved module, typed ``Any``, and a wrong call across
the three parts goes unseen (14 such errors were hidden that way in session 26).  This lays the
package out as installed in a temporary folder of symbolic links (nothing copied, nothing left
behind), runs ``mypy -p thermogov`` there with the project's ``[tool.mypy]`` settings, and prints
mypy's findings with the repository's own paths.  CI runs it in the lint step.

Run::

    python tools/typecheck.py            # exit 0 when clean, 1 with findings, 2 without mypy
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# where each part of the installed package lives in the source tree
MAPPED = {"thermogov/sim/": "sim/", "thermogov/hw/": "hw/"}


def link_package(dest: Path) -> None:
    """``dest/thermogov`` as installed: the core's entries linked one by one, ``sim`` and ``hw`` inside."""
    pkg = dest / "thermogov"
    pkg.mkdir()
    for entry in (ROOT / "thermogov").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    for part in ("sim", "hw"):
        (pkg / part).symlink_to(ROOT / part)


def source_path(line: str) -> str:
    """A mypy line with the installed path (``thermogov/hw/x.py``) as the tree's (``hw/x.py``)."""
    for installed, tree in MAPPED.items():
        if line.startswith(installed):
            return tree + line[len(installed) :]
    return line


def main() -> int:
    try:
        import mypy  # noqa: F401  (only to say clearly when it is missing)
    except ImportError:
        print("typecheck: mypy is not installed; pip install -e '.[test]'", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="thermogov-typecheck-") as tmp:
        link_package(Path(tmp))
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "thermogov"],
            cwd=tmp,
            env={**os.environ, "MYPYPATH": tmp},
            capture_output=True,
            text=True,
            check=False,
        )
    for line in done.stdout.splitlines():
        print(source_path(line))
    if done.stderr:
        print(done.stderr, file=sys.stderr, end="")
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
