"""Every message line printed as one line of plain text, whatever the files it quotes hold.

The daemon and ``restore`` print what they read: a journal's labels and paths, a sysfs
attribute's contents, a device-tree string.  A newline there split one message into two lines
(the second one free text that looks like thermogov's own: ``policy0\\nthermogov: restored``), a
carriage return overwrote the line on a terminal, an escape sequence (``\\x1b[2J``) cleared it.
So every control character (C0, DEL, C1), the bidirectional formatting characters and the Unicode line and paragraph separators
(U+2028, U+2029: ``str.splitlines`` and some log viewers break there) are shown as Python
escapes: the line says what the file holds, visibly, and stays one line.  Applied where lines
leave the program (the daemon's log, a command's result and error line), not where each value
is quoted, so no message can forget it.

A name that is not UTF-8 (a devfreq folder ``b"\\xff..."``: Python lists it with the byte as a
lone surrogate, U+DCFF) was printed as the raw byte, so the line was not UTF-8 and a reader that
decodes it (journald's consumers, ``subprocess.run(text=True)``) failed on it; ``--json`` held
``"\\udcff"``, a lone surrogate strict JSON readers refuse.  Such a byte is shown as ``\\xff``
in both (:func:`plain_strings` for the JSON documents).
"""

from __future__ import annotations

import re

# Session 29h: and the bidirectional formatting characters (LRM/RLM, the embeddings and
# overrides U+202A..U+202E, the isolates U+2066..U+2069: Unicode's UAX #9), which reorder
# what a terminal shows after them: a config's table name ``"\u202estepped"`` was printed
# in the error line as it was, and the line read backwards from there.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _unpaired(match: re.Match[str]) -> str:
    """A lone surrogate: ``\\xNN`` for a byte that was not UTF-8 (surrogateescape), else ``\\uNNNN``."""
    c = match.group()
    return f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff" else f"\\u{ord(c):04x}"


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    if "\ud800" <= c <= "\udfff":
        return _unpaired(match)
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def printable(text: str) -> str:
    """``text`` with each control character and line separator as its escape (``\\n``, ``\\x1b``)."""
    return _CONTROL.sub(_escape, text)


def plain_strings(value: object) -> object:
    """``value`` (a JSON document's data) with each string's undecodable bytes as ``\\xNN`` text:
    what ``json.dumps`` then writes is valid UTF-8 and holds no lone surrogate."""
    if isinstance(value, str):
        return _SURROGATE.sub(_unpaired, value)
    if isinstance(value, dict):
        return {plain_strings(k): plain_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_strings(v) for v in value]
    return value
