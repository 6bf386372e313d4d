"""Run the ``thermogov`` entry point as the unprivileged user ``nobody`` (the tests run as root).

The venv's interpreter may live where ``nobody`` cannot reach (pyenv under a 0700 /root), so
this looks for an interpreter of the same version that ``nobody`` can execute and points it at
this venv's site-packages (``site.addsitedir`` also processes the editable install's .pth).
Tests skip when there is none, or when not running as root (no setuid possible).
"""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from functools import cache

import pytest

V = f"{sys.version_info.major}.{sys.version_info.minor}"
CODE = (
    "import site, sys; site.addsitedir({site!r}); sys.argv[0] = 'thermogov'; "
    "from thermogov.cli import main; main()"
)


def _drop() -> None:
    user = pwd.getpwnam("nobody")
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)


ENV = {"PATH": "/usr/bin:/bin", "HOME": "/", "LC_ALL": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


@cache
def nobody_prefix() -> tuple[str, ...] | None:
    """argv prefix that runs thermogov as nobody, or None when this machine cannot."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return None
    code = CODE.format(site=sysconfig.get_paths()["purelib"])
    for exe in (
        sys.executable,
        os.path.realpath(sys.executable),
        f"/usr/bin/python{V}",
        f"/usr/local/bin/python{V}",
    ):
        try:
            r = subprocess.run(
                [exe, "-c", code, "--version"], preexec_fn=_drop, env=ENV, capture_output=True, timeout=60
            )
        except OSError:
            continue
        if r.returncode == 0:
            return (exe, "-c", code)
    return None


def run_as_nobody(args: Sequence[str], cwd: str = "/") -> subprocess.CompletedProcess[str]:
    prefix = nobody_prefix()
    if prefix is None:
        pytest.skip(f"no Python {V} that user nobody can run with this venv (or not root)")
    return subprocess.run(
        [*prefix, *args], preexec_fn=_drop, env=ENV, cwd=cwd, capture_output=True, text=True, timeout=120
    )
