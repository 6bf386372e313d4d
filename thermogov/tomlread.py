"""TOML reading on every Python the boards ship.

``tomllib`` joined the standard library in 3.11; JetPack 6 (Ubuntu 22.04) has 3.10, where the
same parser is the ``tomli`` package (a declared dependency there).  Everything that reads TOML
imports ``loads`` and ``TOMLDecodeError`` from here so no module carries the fallback itself.
"""

from __future__ import annotations

import re
import stat
import sys
from pathlib import Path
from typing import Any

from thermogov.interfaces import ConfigError

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, loads
else:  # pragma: no cover - exercised by the 3.10 CI leg
    from tomli import TOMLDecodeError, loads

MAX_TOML_BYTES = 4 << 20  # configs and profiles are a few kB; more is not a config file


def loads_checked(text: str, where: str) -> dict[str, Any]:
    """Parse TOML; every way it can fail is a one-line ConfigError naming ``where``.

    Besides syntax errors, a deeply nested document (``a = [[[[...]]]]``) makes the recursive
    parser raise RecursionError, which is bad input like any other.
    """
    try:
        return loads(text)
    except TOMLDecodeError as e:
        raise ConfigError(f"{where}: malformed TOML ({' '.join(str(e).split())}); fix the syntax") from e
    except RecursionError:
        raise ConfigError(f"{where}: malformed TOML (nested too deeply); flatten the tables") from None
    except (ValueError, OverflowError) as e:  # e.g. a date the parser cannot represent
        big = too_many_digits(text, e)
        if big:
            raise ConfigError(f"{where}: {big}") from None
        raise ConfigError(f"{where}: malformed TOML ({e}); fix the value") from e


_DIGITS_RE = re.compile(r"[0-9_]+")  # a number's digit run (TOML allows 1_000); linear to find
_TABLE_RE = re.compile(r"^[ \t]*\[\[?[ \t]*([^\]\n]*?)[ \t]*\]", re.M)


def too_many_digits(text: str, e: BaseException) -> str:
    """Session 25l: the int() limit's own text (``Exceeds the limit (4300 digits) for integer
    string conversion ... use sys.set_int_max_str_digits()``) tells a user to call a Python
    function.  Instead: the line and field of the first such number, and the fix; "" when ``e``
    is not that error."""
    if "integer string conversion" not in str(e):
        return ""
    limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)() or 4300
    at = next((m for m in _DIGITS_RE.finditer(text) if len(m.group()) - m.group().count("_") > limit), None)
    if at is None:
        return f"a number of more than {limit} digits; write a number the field can hold"
    line = text.count("\n", 0, at.start()) + 1
    head = text[text.rfind("\n", 0, at.start()) + 1 : at.start()]
    key = head.partition("=")[0].strip().strip("\"'") if "=" in head else ""
    tables = _TABLE_RE.findall(text, 0, at.start())
    field = ".".join(x for x in (tables[-1].strip() if tables else "", key) if x)
    name = f"{field} " if field else ""
    return f"line {line}: {name}is a number of more than {limit} digits; write a number the field can hold"


_PIPE_PREFIXES = ("/dev/fd/", "/proc/self/fd/", "/dev/stdin")


def _refuse_special(p: Path, what: str) -> None:
    """Refuse a named pipe, socket or device before opening it.

    Opening a FIFO nobody writes to blocks forever (``--config`` given a pipe made with
    ``mkfifo`` hung ``sim``, ``compare`` and ``sweep``), and a terminal or other character
    device blocks the same way.  A pipe reached through ``/dev/fd/N`` is kept: that is the
    shell's process substitution, ``--config <(...)``, whose writer is already running.
    """
    try:
        mode = p.stat().st_mode
    except OSError:
        return  # open() below names the error
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return  # a directory: open() below says "Is a directory"
    if stat.S_ISFIFO(mode) and str(p).startswith(_PIPE_PREFIXES):
        return
    if str(p) == "/dev/null":  # reads as empty at once: the same as an empty file
        return
    kind = "a named pipe" if stat.S_ISFIFO(mode) else "a device or socket, not a regular file"
    raise ConfigError(f"{p}: {kind}; give the {what} as a regular TOML file")


def load_file(path: Path | str, what: str = "config") -> dict[str, Any]:
    """Read and parse a TOML file: unreadable, too big, non-UTF-8 or malformed -> ConfigError."""
    p = Path(path)
    _refuse_special(p, what)
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_TOML_BYTES + 1)
    except OSError as e:
        raise ConfigError(
            f"{p}: cannot read {what} ({e.strerror or type(e).__name__}); check the path"
        ) from e
    if len(raw) > MAX_TOML_BYTES:
        raise ConfigError(f"{p}: larger than {MAX_TOML_BYTES >> 20} MiB; not a {what} file")
    if raw.startswith(b"\xef\xbb\xbf"):  # Notepad's "UTF-8 with BOM"; TOML parsers reject it
        raise ConfigError(f"{p}: starts with a byte-order mark; save it as UTF-8 without BOM")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"{p}: not UTF-8 (byte {e.start} is {raw[e.start]:#04x}); TOML files must be UTF-8 text"
        ) from None
    return loads_checked(text, str(p))


__all__ = ["TOMLDecodeError", "load_file", "loads", "loads_checked", "too_many_digits"]
