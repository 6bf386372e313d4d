"""``thermogov service install|uninstall`` against a temporary --root, and the shipped example config."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from thermogov import tomlread
from thermogov.config import Config, SensorOverride, SimEvent, parse_config
from thermogov.hw import service
from thermogov.policies.stepped import SteppedParams

UNIT = Path("etc/systemd/system/thermogov.service")
CONF = Path("etc/thermogov/thermogov.toml")
SCRIPT = Path(sys.prefix) / "bin" / "thermogov"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def _exec_lines(unit: str) -> dict[str, str]:
    return {k: v for k, _, v in (ln.partition("=") for ln in unit.splitlines()) if k.startswith("Exec")}


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


# -- install -------------------------------------------------------------------------------------
def test_install_writes_unit_for_the_running_venv_and_the_example(tmp_path: Path) -> None:
    r = _cli("service", "install", "--root", str(tmp_path))
    assert r.returncode == 0, r.stderr
    unit = (tmp_path / UNIT).read_text()
    execs = _exec_lines(unit)
    assert execs["ExecStart"] == f"{SCRIPT} run --config /etc/thermogov/thermogov.toml"
    assert execs["ExecStopPost"] == f"{SCRIPT} restore"
    assert (tmp_path / CONF).read_text() == service.example_config_text()
    assert "nothing enabled" in r.stdout and "systemctl enable --now thermogov" in r.stdout
    assert not list(tmp_path.rglob("*.wants"))  # nothing enabled
    assert oct((tmp_path / UNIT).stat().st_mode & 0o777) == "0o644"


def test_unit_keeps_every_template_line_but_exec(tmp_path: Path) -> None:
    service.apply(service.plan_install(tmp_path, SCRIPT, service.DEFAULT_CONFIG, False), lambda _m: None)
    unit = (tmp_path / UNIT).read_text().splitlines()
    body = [ln for ln in service.template_text().splitlines() if not ln.startswith("Exec")]
    body = body[next(i for i, ln in enumerate(body) if not ln.startswith("#")) :]
    assert [ln for ln in unit if not ln.startswith("Exec") and ln not in service.HEADER] == body


def test_render_composes_with_a_changed_template() -> None:
    """Another Type=, a watchdog, prefixed Exec lines: only the thermogov commands change."""
    template = (
        "# copy me\n[Service]\nType=notify\nWatchdogSec=10\nNotifyAccess=main\n"
        "ExecStartPre=/bin/mkdir -p /run/x\n"
        "ExecStart=-/usr/local/bin/thermogov run --config /etc/old.toml --workload none\n"
        "ExecStopPost=/usr/local/bin/thermogov restore\n"
    )
    unit = service.render_unit(template, Path("/opt/my venv/bin/thermogov"), Path("/etc/thermogov/t.toml"))
    execs = _exec_lines(unit)
    assert (
        execs["ExecStart"]
        == '-"/opt/my venv/bin/thermogov" run --config /etc/thermogov/t.toml --workload none'
    )
    assert execs["ExecStopPost"] == '"/opt/my venv/bin/thermogov" restore'
    assert execs["ExecStartPre"] == "/bin/mkdir -p /run/x"
    assert "Type=notify\nWatchdogSec=10\nNotifyAccess=main\n" in unit and "# copy me" not in unit


def test_render_adds_config_when_the_template_has_none() -> None:
    unit = service.render_unit("[Service]\nExecStart=thermogov run\n", SCRIPT, Path("/etc/x.toml"))
    assert _exec_lines(unit)["ExecStart"] == f"{SCRIPT} run --config /etc/x.toml"


def test_venv_option_points_the_unit_at_that_venv(tmp_path: Path) -> None:
    exe = tmp_path / "opt/thermogov/bin/thermogov"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    r = _cli(
        "service",
        "install",
        "--root",
        str(tmp_path),
        "--venv",
        "/opt/thermogov",
        "--config",
        "/etc/tg/a.toml",
    )
    assert r.returncode == 0, r.stderr
    execs = _exec_lines((tmp_path / UNIT).read_text())
    assert execs["ExecStart"] == "/opt/thermogov/bin/thermogov run --config /etc/tg/a.toml"
    assert (tmp_path / "etc/tg/a.toml").is_file()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--venv", "/opt/none"], "--venv /opt/none: no bin/thermogov there"),
        (["--venv", "relative/venv"], "give an absolute path"),
        (["--enable"], "--enable runs systemctl on this machine, so it needs --root /"),
        (["--config", "thermogov.toml"], "--config thermogov.toml: give an absolute path"),
    ],
)
def test_bad_install_input_exits_2_and_writes_nothing(tmp_path: Path, args: list[str], needle: str) -> None:
    r = _cli("service", "install", "--root", str(tmp_path), *args)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("thermogov: error: ") and needle in lines[0]
    assert _tree(tmp_path) == {}


def test_missing_root_exits_2(tmp_path: Path) -> None:
    r = _cli("service", "install", "--root", str(tmp_path / "nope"))
    assert r.returncode == 2 and "no such directory" in r.stderr


def test_live_install_without_root_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "is_live", lambda _root: True)
    monkeypatch.setattr(service.os, "geteuid", lambda: 1000)
    with pytest.raises(service.ThermogovError, match="needs root; use sudo, or --root DIR"):
        service.plan_install(tmp_path, SCRIPT, service.DEFAULT_CONFIG, False)


def test_never_overwrites_an_edited_config(tmp_path: Path) -> None:
    (tmp_path / CONF).parent.mkdir(parents=True)
    (tmp_path / CONF).write_text('[run]\npolicy = "hysteresis"\n')
    r = _cli("service", "install", "--root", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / CONF).read_text() == '[run]\npolicy = "hysteresis"\n'
    assert "kept" in r.stdout and "not overwritten" in r.stdout and "does not validate" not in r.stdout


def test_kept_config_that_does_not_validate_is_reported(tmp_path: Path) -> None:
    (tmp_path / CONF).parent.mkdir(parents=True)
    (tmp_path / CONF).write_text('[run]\npolicy = "nope"\n')
    r = _cli("service", "install", "--root", str(tmp_path))
    assert r.returncode == 0 and "does not validate" in r.stdout and "unknown policy 'nope'" in r.stdout


def test_reinstall_is_idempotent_and_rewrites_a_moved_venv(tmp_path: Path) -> None:
    service.apply(service.plan_install(tmp_path, SCRIPT, service.DEFAULT_CONFIG, False), lambda _m: None)
    before = _tree(tmp_path)
    msgs: list[str] = []
    service.apply(service.plan_install(tmp_path, SCRIPT, service.DEFAULT_CONFIG, False), msgs.append)
    assert _tree(tmp_path) == before and msgs[0].startswith("unchanged") and msgs[1].startswith("unchanged")
    service.apply(
        service.plan_install(tmp_path, Path("/opt/b/bin/thermogov"), service.DEFAULT_CONFIG, False),
        msgs.append,
    )
    assert "ExecStart=/opt/b/bin/thermogov run" in (tmp_path / UNIT).read_text()


def test_refuses_to_replace_a_unit_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / UNIT).parent.mkdir(parents=True)
    (tmp_path / UNIT).write_text("[Service]\nExecStart=/usr/local/bin/thermogov run\n")
    r = _cli("service", "install", "--root", str(tmp_path))
    assert r.returncode == 2 and "was not written by `thermogov service install`" in r.stderr
    assert _tree(tmp_path) == {str(UNIT): "[Service]\nExecStart=/usr/local/bin/thermogov run\n"}


def test_enable_runs_systemctl_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "is_live", lambda _root: True)  # the live-system branch, in a tmp folder
    calls: list[Sequence[str]] = []
    service.apply(service.plan_install(tmp_path, SCRIPT, service.DEFAULT_CONFIG, False), print, calls.append)
    assert calls == []
    service.apply(service.plan_install(tmp_path, SCRIPT, service.DEFAULT_CONFIG, True), print, calls.append)
    assert calls == [("systemctl", "daemon-reload"), ("systemctl", "enable", "--now", "thermogov.service")]


def test_failing_systemctl_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "is_live", lambda _root: True)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no systemctl at all
    with pytest.raises(service.ServiceRuntimeError, match="is this a systemd system"):
        service.apply(service.plan_install(tmp_path, SCRIPT, service.DEFAULT_CONFIG, True), lambda _m: None)


# -- uninstall -------------------------------------------------------------------------------------
def test_uninstall_removes_what_install_wrote(tmp_path: Path) -> None:
    (tmp_path / "etc/systemd/system/other.service").parent.mkdir(parents=True)
    (tmp_path / "etc/systemd/system/other.service").write_text("x")
    assert _cli("service", "install", "--root", str(tmp_path)).returncode == 0
    r = _cli("service", "uninstall", "--root", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert _tree(tmp_path) == {"etc/systemd/system/other.service": "x"}
    assert not (tmp_path / "etc/thermogov").exists()
    again = _cli("service", "uninstall", "--root", str(tmp_path))
    assert again.returncode == 0 and "nothing to uninstall" in again.stdout


def test_uninstall_keeps_edited_config_and_foreign_unit(tmp_path: Path) -> None:
    assert _cli("service", "install", "--root", str(tmp_path)).returncode == 0
    (tmp_path / CONF).write_text((tmp_path / CONF).read_text() + "\n[run]\n")
    (tmp_path / UNIT).write_text("[Service]\nExecStart=/usr/bin/thermogov run\n")
    r = _cli("service", "uninstall", "--root", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / CONF).is_file() and (tmp_path / UNIT).is_file()
    assert "kept" in r.stdout and "not written by `thermogov service install`" in r.stdout


def test_uninstall_disables_an_enabled_unit_on_the_live_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.apply(service.plan_install(tmp_path, SCRIPT, service.DEFAULT_CONFIG, False), lambda _m: None)
    wants = tmp_path / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir()
    (wants / "thermogov.service").symlink_to("../thermogov.service")
    monkeypatch.setattr(service, "is_live", lambda _root: True)
    calls: list[Sequence[str]] = []
    service.apply(service.plan_uninstall(tmp_path, service.DEFAULT_CONFIG), lambda _m: None, calls.append)
    assert calls == [("systemctl", "disable", "--now", "thermogov.service"), ("systemctl", "daemon-reload")]
    assert not (tmp_path / UNIT).exists()


# -- the example config ------------------------------------------------------------------------------
def _uncommented(text: str) -> str:
    """Every commented-out setting and table header of the example, switched on."""
    return re.sub(r"(?m)^#(?=\[|[a-z_]+ = )", "", text)


def _keys(d: dict[str, object], prefix: str = "") -> set[str]:
    out = set()
    for k, v in d.items():
        if isinstance(v, dict):
            out |= _keys(v, f"{prefix}{k}.")
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                out |= _keys(item, f"{prefix}{k}[].")
        else:
            out.add(f"{prefix}{k}")
    return out


def test_example_config_parses_as_shipped_and_is_the_defaults() -> None:
    cfg = parse_config(tomlread.loads(service.example_config_text()))
    assert dataclasses.replace(cfg, policies={}) == Config()
    assert cfg.policies == {"stepped": {}, "hysteresis": {}}


def test_every_config_key_appears_in_the_example() -> None:
    data = tomlread.loads(_uncommented(service.example_config_text()))
    cfg = parse_config(data)  # every key switched on still validates
    keys = _keys(data)
    wanted = _keys(Config().to_dict())
    wanted |= {f"sensors.cpu.{f.name}" for f in dataclasses.fields(SensorOverride)}
    wanted |= {f"sim.events[].{f.name}" for f in dataclasses.fields(SimEvent)}
    wanted |= {"sim.initial_temp_c"}
    wanted |= {f"policies.stepped.{f.name}" for f in dataclasses.fields(SteppedParams)}
    assert wanted - keys == set()
    # the values shown are the defaults (run, governor, sim, stepped)
    defaults = Config().to_dict()
    for section in ("run", "governor"):
        assert cfg.to_dict()[section] == defaults[section]
    assert cfg.to_dict()["sim"]["workload"] == defaults["sim"]["workload"]
    stepped = data["policies"]["stepped"]
    assert {k: stepped[k] for k in (f.name for f in dataclasses.fields(SteppedParams))} == dataclasses.asdict(
        SteppedParams()
    )


def test_example_policy_sections_validate_against_every_board() -> None:
    """Switched on, the policy sections construct their policies on each built-in board."""
    from thermogov.board import builtin_board_names, load_board
    from thermogov.policies import PolicyContext, configured_policy

    cfg = parse_config(tomlread.loads(_uncommented(service.example_config_text())))
    for name in builtin_board_names():
        b = load_board(name)
        ctx = PolicyContext(b, {d.name: d.opp_hz for d in b.domains}, 0.1, tuple(s.name for s in b.sensors))
        for policy in ("stepped", "hysteresis"):
            configured_policy(policy, cfg.policies, ctx)


def test_example_ships_in_the_package() -> None:
    assert (
        os.path.basename(str(service.resources.files("thermogov.examples") / "thermogov.toml"))
        == "thermogov.toml"
    )
