"""The command that puts a board back, spelled out in every runtime-failure line of run/restore.

A line such as ``restore incomplete`` is only actionable if it says what to type: the operator
reading a journal of systemd messages at 3 a.m. should not have to reconstruct which sysfs root
and state directory the daemon used.
"""

from __future__ import annotations

import shlex
from pathlib import Path


def restore_command(sysfs_root: Path | str, state_dir: Path | str) -> str:
    """``sudo thermogov restore --sysfs-root R --state-dir S`` for the given run, shell-quoted."""
    return (
        f"sudo thermogov restore --sysfs-root {shlex.quote(str(sysfs_root))} "
        f"--state-dir {shlex.quote(str(state_dir))}"
    )
