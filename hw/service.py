"""``thermogov service install|uninstall``: the systemd unit and the example config, nothing more.

A board's system Python refuses ``sudo pip install .`` (PEP 668 on Raspberry Pi OS Bookworm,
https://peps.python.org/pep-0668/), so thermogov lives in a venv (docs/hardware.md) and the
unit must start *that* venv's script.  This command writes:

* ``/etc/systemd/system/thermogov.service``, generated from the unit template shipped in
  ``thermogov.hw`` (``hw/thermogov.service``) with only the ``Exec*=`` lines rewritten, so any
  other change to the template (hardening, ``Type=``, watchdog) reaches every install;
* ``/etc/thermogov/thermogov.toml``, the shipped example with every key commented out, only
  when no config is there: an existing config is never overwritten.

It enables nothing unless asked: ``--enable`` runs ``systemctl daemon-reload`` and
``systemctl enable --now`` and only against the live system (``--root /``).  ``uninstall``
removes only files it wrote: a unit carrying its marker line and a config still identical to
the example.  ``--root DIR`` stages both into a folder (an image being built, or a test).

The work is planned first (:func:`plan_install`, :func:`plan_uninstall`: a list of steps, no
side effect) and then applied, so every refusal happens before anything is written.  The click
commands are in ``hw/cli.py`` with the other commands of this world.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from thermogov.interfaces import ConfigError, RuntimeFailure, ThermogovError

UNIT_NAME = "thermogov.service"
UNIT_DIR = Path("/etc/systemd/system")
DEFAULT_CONFIG = Path("/etc/thermogov/thermogov.toml")
MARKER = "# Written by `thermogov service install`; `thermogov service uninstall` removes it."
HEADER = (
    MARKER,
    "# Generated from the unit template shipped with thermogov (hw/thermogov.service); a reinstall",
    "# rewrites it, so keep local changes in a drop-in: sudo systemctl edit thermogov",
)
ENABLE_HINT = "sudo systemctl daemon-reload && sudo systemctl enable --now thermogov"


class ServiceRuntimeError(RuntimeFailure):
    """systemctl failed: not the user's input, so exit status 1 (thermogov.exitstatus)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One thing install/uninstall does: write or remove a file, run a command, or just say so."""

    kind: str  # write | remove | rmdir | run | note
    message: str
    path: Path | None = None  # the real path (under --root)
    text: str = ""
    argv: tuple[str, ...] = ()


def template_text() -> str:
    return resources.files("thermogov.hw").joinpath(UNIT_NAME).read_text(encoding="utf-8")


def example_config_text() -> str:
    return resources.files("thermogov.examples").joinpath("thermogov.toml").read_text(encoding="utf-8")


def _quote(word: str) -> str:
    """systemd splits Exec lines on whitespace and honours double quotes (systemd.service(5))."""
    return f'"{word}"' if any(c.isspace() for c in word) else word


def _path_word(word: str) -> str:
    """A path thermogov puts in an ``Exec*=`` line, as one word systemd reads back as that path (systemd.service(5), "Command
    lines"; systemd.unit(5), "Specifiers"): split on whitespace unless double-quoted, ``\\`` and
    ``\"`` escapes inside quotes, ``%`` a specifier (``%%`` is one ``%``), ``$`` a variable
    (``$$`` is one ``$``).  A control character cannot be written at all: a newline in a
    path ended the line and began a directive of the path's choosing (``ExecStartPre=`` as root)."""
    bad = next((c for c in word if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if bad is not None:
        raise ConfigError(
            f"{word!r}: a control character ({bad!r}) cannot be written in a systemd unit; "
            "choose a path without one (nothing was written)"
        )
    escaped = word.replace("%", "%%").replace("$", "$$")
    if any(c.isspace() or c in "\"'\\" for c in word):
        return '"' + escaped.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return escaped


def render_unit(template: str, exe: Path, config: Path) -> str:
    """The template with every ``Exec*=`` running thermogov pointed at ``exe`` and ``config``."""
    lines = template.splitlines()
    while lines and lines[0].startswith("#"):  # the template's own "copy this file" header
        lines.pop(0)
    out = list(HEADER)
    found = False
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and key.strip().startswith("Exec") and not line.lstrip().startswith("#"):
            prefix = value[: len(value) - len(value.lstrip("-@+!:"))]
            words = shlex.split(value[len(prefix) :])
            if words and Path(words[0]).name == "thermogov":
                tokens = [_quote(w) for w in words]
                tokens[0] = _path_word(str(exe))
                if "--config" in words:
                    i = words.index("--config")
                    if i + 1 < len(words):
                        tokens[i + 1] = _path_word(str(config))
                elif key.strip() == "ExecStart":
                    tokens += ["--config", _path_word(str(config))]
                found = found or key.strip() == "ExecStart"
                line = f"{key}={prefix}{' '.join(tokens)}"
        out.append(line)
    if not found:
        raise ConfigError(
            f"unit template {UNIT_NAME}: no ExecStart= running thermogov; the package is broken"
        )
    return "\n".join(out) + "\n"


def running_exe() -> Path:
    """This Python's ``thermogov`` script: the venv the command runs from."""
    cand = Path(sys.prefix) / "bin" / "thermogov"
    if cand.is_file():
        return cand.absolute()
    found = shutil.which("thermogov")
    if found:
        return Path(found).absolute()
    raise ConfigError(
        f"no thermogov script in {Path(sys.prefix) / 'bin'} or on PATH; pass --venv DIR (the venv thermogov is installed in)"
    )


def venv_exe(venv: Path, root: Path) -> Path:
    if not venv.is_absolute():
        raise ConfigError(f"--venv {venv}: give an absolute path (systemd needs one), e.g. /opt/thermogov")
    exe = venv / "bin" / "thermogov"
    if not (exe.is_file() or under(root, exe).is_file()):
        raise ConfigError(
            f"--venv {venv}: no bin/thermogov there; create it first: python3 -m venv {venv} && {venv}/bin/pip install ."
        )
    return exe


def under(root: Path, path: Path) -> Path:
    """``path`` (absolute, as seen on the target) inside ``root``."""
    return root / path.relative_to(path.anchor)


# What the unit's ``ProtectHome=yes`` makes empty for the service (systemd.exec(5)): a script or
# an interpreter there cannot be executed by it, and the unit fails with status=203/EXEC.
HIDDEN_BY_PROTECT_HOME = (Path("/home"), Path("/root"), Path("/run/user"))


def _on_target(root: Path, path: Path) -> Path:
    """``path`` (as seen on the target) with its links resolved, as seen on the target again."""
    real = Path(os.path.realpath(under(root, path)))
    top = root.resolve()
    return Path("/") / real.relative_to(top) if top != Path("/") and real.is_relative_to(top) else real


def hidden_from_unit(root: Path, exe: Path) -> str:
    """Why the unit could not execute ``exe``: it, its venv's ``python`` or the interpreter that
    links to lies under a folder ``ProtectHome=yes`` hides (a venv in a home folder, or one made
    from an interpreter uv installed under ``~/.local/share/uv``); "" when none does."""
    for path in (exe, _on_target(root, exe), _on_target(root, exe.parent / "python")):
        for top in HIDDEN_BY_PROTECT_HOME:
            if path.is_relative_to(top):
                return (
                    f"{path} is under {top}, which the unit's ProtectHome=yes hides from the service: it would "
                    "fail to start (status=203/EXEC); install into a venv under /opt (docs/hardware.md): "
                    "sudo python3 -m venv /opt/thermogov && sudo /opt/thermogov/bin/pip install . "
                    "&& sudo /opt/thermogov/bin/thermogov service install"
                )
    return ""


def _check(root: Path, config: Path, live_needs_root: bool = True) -> None:
    if not root.is_dir():
        raise ConfigError(f"--root {root}: no such directory; pass / (this machine) or an existing folder")
    if not config.is_absolute() or config.suffix != ".toml":
        raise ConfigError(f"--config {config}: give an absolute path to a .toml file, e.g. {DEFAULT_CONFIG}")
    if live_needs_root and is_live(root) and os.geteuid() != 0:
        raise ThermogovError(
            f"service: writing {UNIT_DIR} and {config.parent} needs root; use sudo, or --root DIR to stage into a folder"
        )


def is_live(root: Path) -> bool:
    return root.resolve() == Path("/")


def _config_note(path: Path) -> str:
    from thermogov.config import load_config

    try:
        load_config(path)
    except ConfigError as e:
        return f"kept {path} (yours, not overwritten), but it does not validate: {e}"
    return f"kept {path} (yours, not overwritten)"


def plan_install(root: Path, exe: Path, config: Path, enable: bool) -> list[Step]:
    _check(root, config)
    if enable and not is_live(root):
        raise ConfigError(
            f"--enable runs systemctl on this machine, so it needs --root / (not {root}); enable a staged unit on the board"
        )
    steps: list[Step] = []
    hidden = hidden_from_unit(root, exe)
    if hidden and is_live(root):
        raise ConfigError(hidden)
    if hidden:  # staged: the image may differ, but as staged it will not start
        steps.append(Step("note", f"warning: {hidden}"))
    unit_path = under(root, UNIT_DIR / UNIT_NAME)
    unit = render_unit(template_text(), exe, config)
    if unit_path.exists():
        old = unit_path.read_text(encoding="utf-8", errors="replace")
        if MARKER not in old:
            raise ConfigError(
                f"{unit_path} exists and was not written by `thermogov service install`; move it away "
                "(keep local changes in a drop-in: systemctl edit thermogov) and run install again"
            )
        if old == unit:
            steps.append(Step("note", f"unchanged {unit_path}"))
        else:
            steps.append(Step("write", f"updated {unit_path} (ExecStart={exe})", unit_path, unit))
    else:
        steps.append(Step("write", f"wrote {unit_path} (ExecStart={exe})", unit_path, unit))
    cfg_path = under(root, config)
    example = example_config_text()
    if not cfg_path.exists():
        steps.append(
            Step("write", f"wrote {cfg_path} (the example: every key commented out)", cfg_path, example)
        )
    elif cfg_path.read_text(encoding="utf-8", errors="replace") == example:
        steps.append(Step("note", f"unchanged {cfg_path}"))
    else:
        steps.append(Step("note", _config_note(cfg_path)))
    if enable:
        steps.append(Step("run", "systemctl daemon-reload", argv=("systemctl", "daemon-reload")))
        steps.append(
            Step(
                "run", f"systemctl enable --now {UNIT_NAME}", argv=("systemctl", "enable", "--now", UNIT_NAME)
            )
        )
    elif is_live(root):
        steps.append(Step("note", f"nothing enabled; to start it now and at every boot: {ENABLE_HINT}"))
    else:
        steps.append(Step("note", f"staged under {root}; nothing enabled (on the board: {ENABLE_HINT})"))
    return steps


def _wants_links(root: Path) -> list[Path]:
    base = under(root, UNIT_DIR)
    return sorted(p for p in base.glob(f"*.wants/{UNIT_NAME}") if p.is_symlink()) if base.is_dir() else []


def plan_uninstall(root: Path, config: Path) -> list[Step]:
    _check(root, config)
    steps: list[Step] = []
    unit_path = under(root, UNIT_DIR / UNIT_NAME)
    ours = unit_path.is_file() and MARKER in unit_path.read_text(encoding="utf-8", errors="replace")
    if unit_path.exists() and not ours:
        steps.append(Step("note", f"left {unit_path}: not written by `thermogov service install`"))
    if ours:
        links = _wants_links(root)
        if links and is_live(root):
            steps.append(
                Step(
                    "run",
                    f"systemctl disable --now {UNIT_NAME}",
                    argv=("systemctl", "disable", "--now", UNIT_NAME),
                )
            )
        elif links:
            steps.append(Step("note", f"left {', '.join(map(str, links))}: enabled by hand, not by install"))
        steps.append(Step("remove", f"removed {unit_path}", unit_path))
        if links and is_live(root):
            steps.append(Step("run", "systemctl daemon-reload", argv=("systemctl", "daemon-reload")))
        elif is_live(root):
            steps.append(
                Step(
                    "note",
                    "not enabled, so systemctl was not run; `sudo systemctl daemon-reload` forgets the unit",
                )
            )
    cfg_path = under(root, config)
    if cfg_path.is_file():
        if cfg_path.read_text(encoding="utf-8", errors="replace") == example_config_text():
            steps.append(Step("remove", f"removed {cfg_path} (still the example)", cfg_path))
            if cfg_path.parent.name == "thermogov":
                steps.append(Step("rmdir", f"removed {cfg_path.parent} (empty)", cfg_path.parent))
        else:
            steps.append(Step("note", f"kept {cfg_path}: you edited it"))
    if not any(s.kind in ("remove", "run") for s in steps):
        steps.append(Step("note", f"nothing to uninstall under {root}"))
    return steps


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o644)
    os.replace(tmp, path)


def _systemctl(argv: Sequence[str]) -> None:
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, check=False)
    except OSError as e:
        raise ServiceRuntimeError(f"{' '.join(argv)}: {e.strerror}; is this a systemd system?") from e
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        raise ServiceRuntimeError(
            f"{' '.join(argv)} failed ({why[-1] if why else f'exit {done.returncode}'})"
        )


def apply(
    steps: list[Step], echo: Callable[[str], None], run: Callable[[Sequence[str]], None] = _systemctl
) -> None:
    for s in steps:
        if s.kind == "write" and s.path is not None:
            _write(s.path, s.text)
        elif s.kind == "remove" and s.path is not None:
            s.path.unlink()
        elif s.kind == "rmdir" and s.path is not None:
            if any(s.path.iterdir()):
                continue  # something else lives there: not ours to remove
            s.path.rmdir()
        elif s.kind == "run":
            run(s.argv)
        echo(s.message)
