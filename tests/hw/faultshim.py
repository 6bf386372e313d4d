"""Build and configure the LD_PRELOAD fault injector (``faultshim.c``) for subprocess tests.

A fake tree is plain files, so a write to one always succeeds and a read always returns its
bytes; a kernel attribute can answer either with an errno (``store()`` returning -EBUSY for an
inactive cpufreq policy, -EINVAL for a refused value).  The shim gives the installed script's
process those answers for the files a rules file names, without touching any Python code.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.runtimedir import child_env

SOURCE = Path(__file__).with_name("faultshim.c")


def build() -> Path | None:
    """The compiled shim (cached by source hash), or None where no C compiler is installed."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    out = Path(tempfile.gettempdir()) / f"thermogov-faultshim-{digest}.so"
    if not out.exists():
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(tmp), str(SOURCE), "-ldl"], check=True)
        os.replace(tmp, out)
    return out


def write_rules(rules_file: Path, rules: list[tuple[str, str, int]]) -> None:
    """Replace the rules: (path suffix, "r"/"w"/"rw", errno).  The shim re-reads on a new mtime,
    so each rewrite leaves an mtime later than the one it replaced: a file system stamps times
    from a clock that ticks once a jiffy (before Linux 6.13's multigrain timestamps), and two
    rewrites within one tick got the same stamp, each bumped by the same 1 ms, and the shim kept
    the old rules."""
    try:
        was = rules_file.stat().st_mtime_ns
    except FileNotFoundError:
        was = None
    tmp = rules_file.with_suffix(".tmp")
    tmp.write_text("".join(f"{suffix} {ops} {code}\n" for suffix, ops, code in rules))
    os.replace(tmp, rules_file)
    st = rules_file.stat()
    if was is not None and st.st_mtime_ns <= was:
        os.utime(rules_file, ns=(st.st_atime_ns, was + 1_000_000))


def env(shim: Path, rules_file: Path, root: Path) -> dict[str, str]:
    """The environment for a child whose reads/writes under ``root`` obey ``rules_file``."""
    if not rules_file.exists():
        write_rules(rules_file, [])
    return child_env(
        {
            **os.environ,
            "LD_PRELOAD": str(shim),
            "THERMOGOV_FAULTS": str(rules_file),
            "THERMOGOV_FAULTS_ROOT": os.path.realpath(root),
        }
    )
