"""Session 19 review of `thermogov service install` on a stock board (docs/hardware.md, "Session 19").

Two ways the unit install went wrong without a word:

* ``Restart=on-failure`` with ``RestartSec=5`` under systemd's default start limit (5 starts in
  10 s) can never hit the limit, so a config error (exit 2) restarted the service forever;
* the unit runs with ``ProtectHome=yes``, so a venv in a home folder, or one whose interpreter
  links into one (uv's default ``~/.local/share/uv``, pyenv's ``~/.pyenv``), cannot be executed
  by it: the unit was written and failed at start with status=203/EXEC.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.hw import procutil
from thermogov.hw import service
from thermogov.interfaces import ConfigError

SYSTEMD_DEFAULT_INTERVAL_S = 10.0  # DefaultStartLimitIntervalSec= (systemd-system.conf(5))
SYSTEMD_DEFAULT_BURST = 5  # DefaultStartLimitBurst=


def _seconds(text: str) -> float:
    """A systemd time span as these units write it: ``5``, ``10s``, ``2min``, ``1min 30s``."""
    scale = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 0.001, "m": 60.0, "min": 60.0, "h": 3600.0}
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", text.strip())
    assert parts, text
    return sum(float(n) * scale[u] for n, u in parts)


def _settings(unit: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in unit.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith("#"):
            out[key.strip()] = value.strip()
    return out


def _fake_venv(root: Path, venv: str, python_target: str | None = None) -> None:
    bin_dir = root / venv.lstrip("/") / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "thermogov").write_text("#!/bin/sh\n")
    if python_target is not None:
        target = root / python_target.lstrip("/")
        target.parent.mkdir(parents=True)
        target.write_text("")
        (bin_dir / "python").symlink_to(os.path.relpath(target, bin_dir))


def test_a_service_that_keeps_failing_reaches_the_start_limit(tmp_path: Path) -> None:
    root = tmp_path / "img"
    root.mkdir()
    _fake_venv(root, "/opt/thermogov")
    done = procutil.run_cli("service", "install", "--root", str(root), "--venv", "/opt/thermogov")
    assert done.returncode == 0, done.stderr
    unit = _settings((root / "etc/systemd/system/thermogov.service").read_text())
    assert unit["Restart"] == "on-failure"
    interval = _seconds(unit.get("StartLimitIntervalSec", str(SYSTEMD_DEFAULT_INTERVAL_S)))
    burst = int(unit.get("StartLimitBurst", SYSTEMD_DEFAULT_BURST))
    # a start every RestartSec: `burst` of them must fit in the interval, or the limit never hits
    assert burst * _seconds(unit["RestartSec"]) < interval, (burst, unit["RestartSec"], interval)


@pytest.mark.parametrize(
    ("venv", "python_target", "named"),
    [
        ("/home/pi/thermogov", None, "/home/pi/thermogov/bin/thermogov is under /home"),
        ("/opt/thermogov", "/root/.local/share/uv/python/cpython-3.12/bin/python3.12", "is under /root"),
    ],
)
def test_a_staged_unit_that_protecthome_would_hide_is_said(
    tmp_path: Path, venv: str, python_target: str | None, named: str
) -> None:
    root = tmp_path / "img"
    root.mkdir()
    _fake_venv(root, venv, python_target)
    done = procutil.run_cli("service", "install", "--root", str(root), "--venv", venv)
    assert done.returncode == 0, done.stderr
    assert named in done.stdout and "ProtectHome=yes" in done.stdout and "/opt" in done.stdout
    assert "Traceback" not in done.stderr


def test_a_live_install_from_a_home_venv_is_refused_before_anything_is_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(ConfigError, match=r"under /home, which the unit's ProtectHome=yes hides"):
        service.plan_install(Path("/"), Path("/home/pi/tg/bin/thermogov"), service.DEFAULT_CONFIG, False)


def test_a_venv_under_opt_from_a_system_interpreter_is_not_named(tmp_path: Path) -> None:
    root = tmp_path / "img"
    root.mkdir()
    _fake_venv(root, "/opt/thermogov", "/usr/bin/python3.11")
    assert service.hidden_from_unit(root, Path("/opt/thermogov/bin/thermogov")) == ""
