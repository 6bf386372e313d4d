"""Undo what terminals, editors and copy-paste do to a log before any format looks at it.

A log captured with ``script`` (util-linux script(1)) starts with ``Script started on ...``,
ends with ``Script done on ...`` and carries CR line ends, ANSI colour/cursor sequences and
progress lines overwritten in place with a bare CR.  Windows editors add a UTF-8 BOM and CRLF.
All of that is removed here, once, so every importer sees plain lines; what was removed is
returned as notes.  A file that is mostly binary is refused instead of being mined for digits.
"""

from __future__ import annotations

import re

from thermogov.interfaces import LogFormatError

# ECMA-48 control sequences: CSI (ESC [ ... final byte), OSC (ESC ] ... BEL/ST), two-byte ESC x.
_ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_SCRIPT_START_RE = re.compile(r"^Script started(?: on|,)", re.I)
_SCRIPT_DONE_RE = re.compile(r"^Script done(?: on|,)", re.I)
_BINARY_SHARE = 0.05  # more than 5 % NUL/undecodable/control characters: not a text log


def _is_binary(text: str) -> bool:
    sample = text[:65536]
    if not sample:
        return False
    bad = sum(1 for ch in sample if ch in "\x00\ufffd" or (ord(ch) < 32 and ch not in "\t\n\r\x1b\x08\x0c"))
    return bad / len(sample) > _BINARY_SHARE


def _overwrite(line: str) -> str:
    """What a terminal shows for a line with bare CRs and backspaces: the last overwrite wins."""
    if "\r" in line:
        parts = [p for p in line.split("\r") if p.strip()]
        line = parts[-1] if parts else ""
    while "\b" in line:
        new = re.sub(r"[^\b]\b", "", line, count=1)
        if new == line:
            line = line.replace("\b", "")
            break
        line = new
    return line


def clean_text(text: str, source: str) -> tuple[str, list[str]]:
    """(plain text, notes) of a decoded log; LogFormatError for a binary file."""
    if _is_binary(text):
        raise LogFormatError(f"{source}: looks like a binary file, not a text log; pass the log itself")
    notes: list[str] = []
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\ufeff", "")
    if "\r" in text and "\n" not in text:  # classic Mac line ends
        text = text.replace("\r", "\n")
    text = text.replace("\r\n", "\n")
    ansi = len(_ANSI_RE.findall(text))
    if ansi:
        text = _ANSI_RE.sub("", text)
        notes.append(f"{ansi} terminal control sequence(s) removed")
    lines = text.split("\n")
    overwritten = sum(1 for ln in lines if "\r" in ln.rstrip("\r") or "\b" in ln)
    if overwritten:
        notes.append(f"{overwritten} line(s) overwritten in place (CR/backspace): the last version kept")
    lines = [_overwrite(ln) for ln in lines]
    kept: list[str] = []
    script = False
    for ln in lines:
        if _SCRIPT_START_RE.match(ln) or _SCRIPT_DONE_RE.match(ln):
            script = True
            continue
        kept.append(ln)
    if script:
        notes.append("script(1) capture: its 'Script started/done' lines removed")
    return "\n".join(kept), notes
