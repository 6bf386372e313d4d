"""Every message line printed as one line of plain text, whatever the files it quotes hold.

The daemon and ``restore`` print what they read: a journal's labels and paths, a sysfs
attribute's contents, a device-tree string.  A newline there split one message into two lines
(the second one free text that looks like thermogov's own: ``policy0\\nthermogov: restored``), a
carriage return overwrote the line on a terminal, an escape sequence (``\\x1b[2J``) cleared it.
So every control character (C0, DEL, C1) and the Unicode line and paragraph separators
(U+2028, U+2029: ``str.splitlines`` and some log viewers break there) are shown as Python
escapes: the line says what the file holds, visibly, and stays one line.  Applied where lines
leave the program (the daemon's log, a command's result and error line), not where each value
is quoted, so no message can forget it.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def printable(text: str) -> str:
    """``text`` with each control character and line separator as its escape (``\\n``, ``\\x1b``)."""
    return _CONTROL.sub(_escape, text)
