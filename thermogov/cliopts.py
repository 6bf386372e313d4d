"""Options every command spells the same way: ``--board``, list options, output folders.

One place decides what ``--board`` accepts (a built-in name or a board TOML), how a list option
is written (repeat it, or give a comma list: ``--seed 1 --seed 2`` == ``--seed 1,2``) and what
an output folder must be (creatable and writable, checked before any work starts), so the
commands cannot drift apart again.  Only click and the standard library at import time: the
board daemon's commands may use this module.
"""

from __future__ import annotations

import errno
import math
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from thermogov.interfaces import ConfigError

F = TypeVar("F", bound=Callable[..., Any])

BOARD_HELP = (
    "Board: a built-in profile name (see `thermogov boards`) or a board TOML file (e.g. from calibrate)."
)


def board_options(help_text: str = BOARD_HELP) -> Callable[[F], F]:
    """``--board NAME|FILE`` plus the hidden, deprecated ``--board-file FILE`` it replaces."""

    def deco(fn: F) -> F:
        fn = click.option("--board-file", "board_file", hidden=True, type=GivenPath(dir_okay=False))(fn)
        return click.option("--board", help=help_text)(fn)

    return deco


def merge_board(board: str | None, board_file: str | None) -> str | None:
    """The one ``--board`` value; ``--board-file`` still works but says it is deprecated."""
    if board_file is None:
        return board
    if board is not None:
        raise ConfigError("--board-file: give --board NAME or --board FILE, not both")
    click.echo("thermogov: warning: --board-file is deprecated; use --board FILE", err=True)
    return board_file


def is_board_path(value: str) -> bool:
    """A ``--board`` value names a file when it looks like one; otherwise it is a profile name."""
    from thermogov.board import builtin_board_names

    if value in builtin_board_names():
        return False
    return value.endswith(".toml") or os.sep in value or "/" in value or Path(value).exists()


def not_a_file(path: Path) -> str:
    """Why ``path`` is no regular file to read from, "" when it is one (or names nothing).

    Told apart by ``stat`` itself, not ``Path.is_file``: that answers False alike for a path that
    does not exist, a named pipe (``mkfifo``), a device and a symbolic-link loop, and each of
    those was reported as "no such file" (session 23).  A path that does not exist answers ""
    too: the caller says "no such file"."""
    try:
        mode = path.stat().st_mode
    except OSError as e:
        if e.errno == errno.ENOENT:
            return "" if not path.is_symlink() else "is a symbolic link to no file"
        if e.errno == errno.ELOOP:
            return "is a symbolic-link loop"
        return f"cannot be read ({e.strerror or type(e).__name__})"
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "is a folder"
    if stat.S_ISFIFO(mode):  # the shell's <(...) too: a profile or a log is read more than once
        if str(path).startswith(("/dev/fd/", "/proc/self/fd/", "/dev/stdin")):
            return "is a pipe, not a regular file"
        return "is a named pipe, not a regular file"
    return "is a device or socket, not a regular file"


def load_board_option(value: str, field: str = "--board") -> Any:
    """The profile ``--board`` names (built-in or file); bad input -> ConfigError naming ``field``."""
    from thermogov.board import builtin_board_names, load_board, load_board_file

    names = ", ".join(builtin_board_names())
    if value in builtin_board_names():
        return load_board(value)
    if not value.strip():
        # Path("") is the working folder: "--board: is a folder" (31h) for an unset variable
        raise ConfigError(f"{field}: empty; give a board name ({names}) or a board TOML file")
    if not is_board_path(value):
        raise ConfigError(
            f"{field}: unknown board {value!r}; choose one of {names} or give a board TOML file"
        )
    path = Path(value)
    shown = value if value.isprintable() else repr(value)  # a newline in a name stays one line
    not_file = not_a_file(path)
    if not_file:
        raise ConfigError(f"{field}: {shown} {not_file}; give a board TOML file or one of {names}")
    if not path.exists():
        raise ConfigError(f"{field}: no such file {shown}; give a board TOML file or one of {names}")
    try:
        return load_board_file(path)
    except ConfigError as e:
        why = str(e).removeprefix(f"{path}: ").removesuffix("; fix the syntax")
        raise ConfigError(
            f"{field}: {shown} is not a board profile TOML ({why}); give a profile such as "
            "`thermogov calibrate` writes, or a built-in name"
        ) from e


def split_list(values: Sequence[str], strip: bool = True) -> list[str]:
    """Repeated and comma-separated values as one list, in order, blanks dropped; ``strip``:
    each item without the spaces around it (else as written, for a kind that judges them)."""
    return [part.strip() if strip else part for v in values for part in v.split(",") if part.strip()]


def _list_callback(kind: Callable[[str], Any], example: str, strip: bool = True) -> Callable[..., list[Any]]:
    def callback(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[Any]:
        field = param.opts[0] if param.opts else str(param.name)
        if values and not split_list(values):
            # given, but nothing in it: an unset shell variable (``--seed "$SEEDS"``) would
            # otherwise run the default silently, as an empty --out would write into the cwd
            raise ConfigError(f"{field}: empty; write e.g. {example}, or leave the option out")
        out = []
        for item in split_list(values, strip):
            try:
                out.append(kind(item))
            except ValueError:
                # ConfigError, not click.BadParameter: one line and exit 2 like every bad input
                raise ConfigError(f"{field}: cannot read {item!r}; write e.g. {example}") from None
        return out

    return callback


def list_option(
    *decls: str, kind: Callable[[str], Any] = str, example: str, strip: bool = True, **kw: Any
) -> Callable[[F], F]:
    """A list option: repeatable and comma-separated alike (``--seed 1 --seed 2`` is
    ``--seed 1,2``); the value is a list, empty when the option is not given.  ``strip=False``
    hands each item on with its spaces (``compare --policy``: a variant's value is one word,
    as the other commands' ``--policy`` has it, session 30l)."""
    return click.option(*decls, multiple=True, callback=_list_callback(kind, example, strip), **kw)


def config_b_option(help_text: str) -> Callable[[F], F]:
    """``--config-b FILE`` (``config_b_path``): a second whole config, for ``ab`` and ``compare``."""
    return click.option("--config-b", "config_b_path", type=GivenPath(dir_okay=False), help=help_text)


def load_config_b(path: str) -> Any:
    """``--config-b``'s file; its errors (missing, not TOML, NaN, unknown key) name the option
    as well as the file and field.  The config module is imported here, not at the top, so a
    command that takes no ``--config-b`` does not load it."""
    from thermogov.config import load_config

    try:
        return load_config(path)
    except ConfigError as e:
        raise ConfigError(f"--config-b: {e}") from e


def finite_float(text: str) -> float:
    """float() that refuses NaN and infinities (bad input, not values)."""
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(text)
    return v


class GivenPath(click.Path):
    """``click.Path`` that first judges the text given (hostile round 28h): ``Path("")`` is the
    current folder, so ``run --out ''``, ``--state-dir ''``, ``service install --root ''`` or
    ``emulate --sysfs-root ''`` (an unset shell variable) wrote run folders, the crash journal, a
    systemd unit or a board tree into whatever folder the command ran in, and ``sim --config ''``
    ran on the defaults.  Empty text, or text holding a control character, is refused naming the
    option (:func:`check_path_text`'s rule), before anything is read or made.  A value taken from
    the option's environment variable (``--lock-dir``'s ``THERMOGOV_LOCK_DIR``) names the
    variable, which is what the user must fix (session 30i)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            if not value.strip():
                self._refuse("empty", "give a path", param, ctx)
            if any(ord(c) < 32 or ord(c) == 127 for c in value):
                self._refuse(
                    f"{value!r} holds a control character (newline, tab ...)", "give a path", param, ctx
                )
        converted = super().convert(value, param, ctx)
        if self.exists and not self.file_okay:
            # click's check refuses a regular file but passes a device, a FIFO or a socket:
            # ``doctor --sysfs-root /dev/null`` said "no board here" (exit 1) as if a folder
            # held no board (31h).  A folder that must exist is a folder.
            where = Path(os.fsdecode(converted))
            mode = where.stat().st_mode
            if not stat.S_ISDIR(mode):
                kind = not_a_file(where) if not stat.S_ISREG(mode) else "is a file"
                kind = kind.replace("not a regular file", "not a folder")
                self._refuse(f"{str(where)!r} {kind}", "give a folder", param, ctx)
        return converted

    def _refuse(self, why: str, fix: str, param: click.Parameter | None, ctx: click.Context | None) -> None:
        envvar = getattr(param, "envvar", None)
        if (
            isinstance(envvar, str)
            and param is not None
            and param.name
            and ctx is not None
            and ctx.get_parameter_source(param.name) == click.core.ParameterSource.ENVIRONMENT
        ):
            raise ConfigError(f"{envvar}: {why}; set it to a path or unset it")
        self.fail(f"{why}; {fix}", param, ctx)


def check_path_text(text: str, field: str, example: str) -> None:
    """Refuse a path that is empty or holds a control character, before anything is made.

    An empty path is an unset shell variable (``--out "$OUT"``) and would write into the current
    folder unasked; a control character (a newline pasted into the path) makes the printed path
    span lines that scripts read one by one.  ``example`` finishes the fix: "give a <example>".
    """
    if not text.strip():
        raise ConfigError(f"{field}: empty; give a {example}")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ConfigError(f"{field}: {text!r} holds a control character (newline, tab ...); give a {example}")


def check_out_dir(path: str | Path, field: str = "--out") -> Path:
    """Create ``path`` if needed and prove it writable, before any simulation or fit runs.

    The path's text is checked first (``check_path_text``); then a real write proves the folder.
    """
    check_path_text(str(path), field, "folder path such as traces")
    p = Path(path)
    if p.exists() and not p.is_dir():
        # --csv checks its file's folder here: "--out names a folder" would send the user elsewhere
        what = (
            "--out names a folder, give a folder path"
            if field == "--out"
            else f"{field} needs a folder there"
        )
        raise ConfigError(f"{field}: {p} is a file; {what}")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(
            f"{field}: cannot create folder {p} ({e.strerror}); choose a writable folder"
        ) from e
    try:  # a real write, not os.access: root passes access() even on a read-only mount
        fd, probe = tempfile.mkstemp(prefix=".thermogov-probe-", dir=p)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ConfigError(
            f"{field}: folder {p} is not writable ({e.strerror}); choose a writable folder"
        ) from e
    return p


__all__ = [
    "BOARD_HELP",
    "GivenPath",
    "board_options",
    "check_out_dir",
    "check_path_text",
    "config_b_option",
    "finite_float",
    "is_board_path",
    "list_option",
    "load_board_option",
    "load_config_b",
    "merge_board",
    "split_list",
]
